"""Golden files: the exact text of one diagnostic of each kind.

Each ``tests/golden/NAME.rules`` is checked and its rendered diagnostics are
compared with ``NAME.out``.  After an intended change of wording run
``pytest tests/test_golden.py --update-golden`` and review the diff with git.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from compiler.diagnostics import render
from compiler.driver import compile_text

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.rules"))


def rendered(name: str) -> str:
    path = f"golden/{name}.rules"
    text = (GOLDEN / f"{name}.rules").read_text(encoding="utf-8")
    result = compile_text(text, path)
    return "\n\n".join(render(d, dict(result.sources)) for d in result.diagnostics) + "\n"


@pytest.mark.parametrize("name", CASES)
def test_golden(name: str, update_golden: bool) -> None:
    out = GOLDEN / f"{name}.out"
    actual = rendered(name)
    if update_golden or not out.exists():
        out.write_text(actual, encoding="utf-8")
        if not update_golden:
            pytest.fail(f"wrote new golden file {out.name}; review and commit it")
    assert actual == out.read_text(encoding="utf-8")


def test_every_golden_case_reports_something() -> None:
    for name in CASES:
        assert rendered(name).strip(), name
