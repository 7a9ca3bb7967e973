"""The command line as a user meets it: exit codes, text and JSON output, no tracebacks."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import Ran, warscribe

ROOT = Path(__file__).resolve().parent.parent
GOOD = 'ruleset demo "Demo":\n  version 1.0.0\nstat BS "Ballistic Skill" 1..10\n'


def run(*args: str, cwd: Path | None = None) -> Ran:
    """warscribe in this process; tests/test_console_script.py runs the real console script."""
    return warscribe(*args, cwd=cwd)


def test_clean_ruleset_exits_0(write_ruleset) -> None:
    folder = write_ruleset(GOOD)
    r = run("check", str(folder))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 ruleset checked, 0 errors, 0 warnings" in r.stdout


def test_warnings_are_printed_but_exit_0_unless_strict(write_ruleset) -> None:
    folder = write_ruleset(GOOD + 'table t(roll: 1..6) "T":\n  1 -> 2\n')
    r = run("check", str(folder))
    assert r.returncode == 0 and "warning[W301]" in r.stderr  # diagnostics on stderr
    assert "W301" not in r.stdout and "1 ruleset checked, 0 errors, 1 warning" in r.stdout
    assert run("check", "--strict", str(folder)).returncode == 1


def test_truncated_ruleset_gives_located_error_and_exit_1(write_ruleset) -> None:
    folder = write_ruleset(GOOD + 'table to_hit(BS) "To hit":\n  1 -> 6+\n  2 ->')
    r = run("check", str(folder))
    assert r.returncode == 1
    assert "Traceback" not in r.stdout + r.stderr
    first = r.stderr.splitlines()[0]
    rel = os.path.relpath(folder / "ruleset.rules", ROOT)
    path = str(folder / "ruleset.rules") if rel.startswith("..") else rel
    assert first.startswith(f"{path}:6:7: error[W001]: this line ends too early"), first


def test_garbage_line_gives_located_error_and_exit_1(write_ruleset) -> None:
    folder = write_ruleset(GOOD + "}}}} not a rule at all {{{{\n")
    r = run("check", str(folder))
    assert r.returncode == 1
    assert "Traceback" not in r.stdout + r.stderr
    assert ":4:1: error[W001]: unexpected character '}'" in r.stderr


def test_json_format(write_ruleset) -> None:
    folder = write_ruleset(GOOD + 'unit m "Marine":\n  BS 12  SV 3+\n')
    r = run("check", "--format", "json", str(folder))
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert data["summary"] == {"error": 2, "warning": 0, "note": 0}
    by_code = {d["code"]: d for d in data["diagnostics"]}
    assert set(by_code) == {"W101", "W202"}
    d = by_code["W101"]
    assert d["severity"] == "error" and d["message"] == "unknown stat 'SV'"
    assert (d["span"]["line"], d["span"]["column"]) == (5, 10)
    assert d["hint"] is None or isinstance(d["hint"], str)


def test_missing_path_is_a_usage_error() -> None:
    r = run("check", "no/such/folder")
    assert r.returncode == 2
    assert "no such file or folder: no/such/folder" in r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_option_is_a_usage_error() -> None:
    assert run("check", "--frobnicate").returncode == 2


def test_help_lists_check() -> None:
    r = run("--help")
    assert r.returncode == 0 and "check" in r.stdout


def test_not_utf8_is_reported(write_ruleset) -> None:
    folder = write_ruleset(GOOD)
    (folder / "ruleset.rules").write_bytes(GOOD.encode() + b'stat X "\xff\xfe" 1..2\n')
    r = run("check", str(folder))
    assert r.returncode == 1 and "error[W005]: this file is not UTF-8 text" in r.stderr


def test_default_path_is_rules_folder(tmp_path: Path) -> None:
    (tmp_path / "rules" / "demo").mkdir(parents=True)
    (tmp_path / "rules" / "demo" / "ruleset.rules").write_text(GOOD)
    r = run("check", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(not (ROOT / "rules").is_dir(), reason="no bundled rulesets yet")
def test_bundled_rulesets_are_clean() -> None:
    r = run("check", "--format", "json", "rules")
    data = json.loads(r.stdout)
    problems = [d for d in data["diagnostics"] if d["severity"] != "note"]
    assert problems == [], json.dumps(problems[:5], indent=1)
    assert r.returncode == 0


def test_help_lists_every_command_in_order_each_with_its_summary_in_full() -> None:
    from compiler.cli.commands import MODULES

    r = run("--help")
    listed = r.stdout.split("Commands:")[1]
    names = [line.split()[0] for line in listed.splitlines() if line.startswith("  ") and line[2] != " "]
    assert names == list(MODULES)
    flat = " ".join(listed.split())
    assert "render Write the website as plain Markdown pages, a navigation (nav.yml) and assets — no MkDocs needed." \
        in flat
    assert "diff What changed between two versions of a ruleset, and what it did to the odds." in flat


def test_a_command_help_lists_its_arguments_and_options_with_defaults() -> None:
    r = run("eval", "-h")
    assert r.returncode == 0, r.stderr
    flat = " ".join(r.stdout.split())
    assert "Usage: warscribe eval [OPTIONS] PATH EXPRESSION" in flat
    assert "Arguments: PATH The ruleset folder. EXPRESSION What to work out" in flat
    assert "-w, --with TEXT A situation" in flat and "--exact / --fast" in flat and "[default: exact]" in flat
    army = run("army", "check", "--help")
    assert "ROSTER The army list" in " ".join(army.stdout.split()) and "--army TEXT" in army.stdout


def test_no_arguments_print_the_help_and_exit_2() -> None:
    r = run()
    assert r.returncode == 2 and "Commands:" in r.stdout and "check" in r.stdout
    group = run("army")
    assert group.returncode == 2 and "Commands:" in group.stdout and "check" in group.stdout


def test_a_bad_option_value_is_a_usage_error() -> None:
    r = run("simulate", "rules/classic-40k", "--games", "0")
    assert r.returncode == 2 and "Invalid value for '--games'" in r.stderr and r.stdout == ""
    r = run("check", "--format", "yaml")
    assert r.returncode == 2 and "'yaml' is not one of 'text', 'json'" in r.stderr
    r = run("render", "rules")
    assert r.returncode == 2 and "Missing option '--out'" in r.stderr


def test_an_interrupted_command_exits_130_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.driver

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(compiler.driver, "compile_paths", interrupted)
    r = run("check", "rules/classic-40k")
    assert r.returncode == 130 and "Traceback" not in r.stdout + r.stderr
