"""Properties over more than ``EXHAUSTIVE_LIMIT`` points: sampled with a seeded ``random.Random``.

`pip install .` does not install Hypothesis, so the resolver must not need it at run time:
these tests run such a property with ``import hypothesis`` made to fail.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compiler.driver import compile_text
from compiler.resolve import runner
from compiler.resolve.runner import run_ruleset

HEADER = 'ruleset demo "Demo":\n  version 1.0.0\n'
PROPERTIES = HEADER + textwrap.dedent('''\
    property holds "x + y is at least 2":
      for x in 1..60, y in 1..60
      expect x + y >= 2

    property fails "x + y stays under 70":
      for x in 1..60, y in 1..60
      expect x + y < 70
    ''')

BLOCK_HYPOTHESIS = textwrap.dedent('''\
    import sys

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name == "hypothesis" or name.startswith("hypothesis."):
                raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
            return None

    sys.meta_path.insert(0, Blocker())
    ''')


def results() -> dict[str, runner.Result]:
    compiled = compile_text(PROPERTIES)
    assert compiled.ok, [(d.code, d.message) for d in compiled.diagnostics]
    return {r.id: r for r in run_ruleset(compiled.rulesets[0])}


def test_the_example_properties_are_too_big_to_check_exhaustively() -> None:
    assert 60 * 60 > runner.EXHAUSTIVE_LIMIT


def test_a_sampled_property_runs_without_hypothesis(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in sys.modules if n == "hypothesis" or n.startswith("hypothesis.")]:
        monkeypatch.setitem(sys.modules, name, None)  # `import hypothesis` now raises ImportError
    found = results()
    assert found["holds"].passed and found["holds"].checked == runner.SAMPLED_EXAMPLES
    assert not found["fails"].passed


def test_a_counterexample_is_shrunk_to_the_edge_and_is_the_same_every_run() -> None:
    first, second = results()["fails"], results()["fails"]
    assert first.failures == second.failures
    message = first.failures[0].message
    point = dict((k, int(v)) for k, v in re.findall(r"(\w) = (\d+)", message))
    assert set(point) == {"x", "y"}, message
    assert point["x"] + point["y"] == 70, message  # lowering either coordinate by one passes


def test_the_console_command_samples_a_property_with_hypothesis_missing(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(PROPERTIES, encoding="utf-8")
    script = BLOCK_HYPOTHESIS + textwrap.dedent(f'''\
        from compiler.cli import main
        sys.argv = ["warscribe", "test", {str(folder)!r}]
        main()
        ''')
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                       env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    assert "ModuleNotFoundError" not in r.stdout + r.stderr, r.stderr
    assert "Traceback" not in r.stdout + r.stderr, r.stderr
    assert r.returncode == 1, r.stdout + r.stderr  # the `fails` property fails, as a result
    assert "1 passed, 1 failed" in r.stdout, r.stdout
