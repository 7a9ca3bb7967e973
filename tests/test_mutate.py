"""bench/mutate.py: the mutants it makes, and a run that kills some and reports the survivors."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "mutate.py"

spec = importlib.util.spec_from_file_location("mutate", SCRIPT)
assert spec is not None and spec.loader is not None
mutate = importlib.util.module_from_spec(spec)
sys.modules["mutate"] = mutate
spec.loader.exec_module(mutate)

MODULE = textwrap.dedent('''\
    """A docstring with 1 < 2 in it is left alone."""
    LIMIT: int = 3


    def at_least(a: int, b: int) -> bool:
        return a >= b


    def clamp(a: int) -> int:
        if a > LIMIT:
            return LIMIT
        return a


    def both(a: bool, b: bool) -> bool:
        return a and b  # pragma: no mutate
    ''')


def test_mutants_are_the_small_changes_it_names(tmp_path: Path) -> None:
    path = tmp_path / "mod.py"
    path.write_text(MODULE)
    found = {(m.line, m.change): m.source for m in mutate.mutants(path)}
    assert (6, ">= -> >") in found and "return (a > b)" in found[(6, ">= -> >")]
    assert (2, "3 -> 4") in found and (2, "3 -> 2") in found
    assert (10, "if branch dropped") in found and (10, "if condition negated") in found
    assert (11, "return value -> None") in found
    # the docstring, the annotation and the line marked "pragma: no mutate" are not mutated
    assert not [k for k in found if k[0] in (1, 16)]
    for source in found.values():
        compile(source, "mod.py", "exec")
        assert source != MODULE


def test_a_run_kills_what_the_tests_see_and_lists_the_survivors(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "mod.py").write_text(MODULE)
    # the tests see the boundary of at_least, never clamp's
    (tree / "test_mod.py").write_text(textwrap.dedent('''\
        from mod import at_least, clamp
        def test_at_least():
            assert at_least(2, 2) and not at_least(1, 2)
        def test_clamp_small():
            assert clamp(1) == 1
        '''))
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, str(SCRIPT), str(tree / "mod.py"), "--root", str(tree),
                           "--lines", "6-10", "--json", str(report), "--", "test_mod.py",
                           # a bare pytest: this tree needs none of the plugins (each costs a second a run)
                           "-p", "no:warscribe", "-p", "no:hypothesispytest", "-p", "no:playwright",
                           "-p", "no:base_url"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(report.read_text())
    survived = {(s["line"], s["change"]) for s in data["survivors"]}
    assert (6, ">= -> >") not in survived and (6, "return value -> None") not in survived
    assert (10, "> -> >=") in survived  # clamp(3) is never asked
    assert data["mutants"] == 5 and data["killed"] + data["survived"] + data["timed_out"] == 5
    assert "survived mod.py:10: > -> >=" in done.stdout
    assert (tree / "mod.py").read_text() == MODULE  # the tree it was given is untouched


def test_several_ranges_and_an_earlier_reports_survivors_choose_the_mutants(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text(MODULE)

    def listed(*options: str) -> list[str]:
        done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "mod.py"), "--root", str(tmp_path),
                               "--list", *options], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        return [line for line in done.stdout.splitlines() if line.startswith("mod.py:")]
    every = listed()
    assert {line.split(":")[1] for line in listed("--lines", "6,10-10")} == {"6", "10"}
    assert listed("--lines", "6,10-10") == [m for m in every if m.split(":")[1] in ("6", "10")]
    report = tmp_path / "old.json"
    report.write_text(json.dumps({"survivors": [{"line": 10, "change": "> -> >="},
                                                {"line": 99, "change": "gone"}]}))
    assert listed("--survivors", str(report)) == ["mod.py:10: > -> >="]
