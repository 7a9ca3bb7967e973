"""A number given to a situation with a range must lie in it: in the rules, at ``eval --with`` and ``table --with``.

``situation distance 0..48`` set to 1000 would otherwise be worked out as if the table
had been read far off its edge — a silent wrong answer.  Refused with W202 where the
value is written (the rules, or the command line's ``<expression>``), naming the range.
"""
from __future__ import annotations

from pathlib import Path

from conftest import warscribe

from compiler.driver import compile_text
from compiler.resolve.runner import run_ruleset

RULES = '''ruleset r "R":
  version 1.0.0

situation sp "Suppression points" 0..6
situation cover "Cover" one of open, hard

formula f() "F" = sp + 1
'''


def errors(text: str) -> list:  # type: ignore[type-arg]
    return [d for d in compile_text(text).diagnostics if d.is_error]


def test_a_number_past_the_range_in_an_example_is_refused_where_it_is_written() -> None:
    found = errors(RULES + '\nexample e "E":\n  let a = f() with sp = 1000\n  expect a = 1\n')
    assert [d.code for d in found] == ["W202"]
    assert "0..6" in found[0].message and "1000" in found[0].message
    assert (found[0].span.line, found[0].span.column) == (10, 25)


def test_a_negative_number_is_below_the_range() -> None:
    found = errors(RULES + '\nexample e "E":\n  let a = f() with sp = -1\n  expect a = 0\n')
    assert [d.code for d in found] == ["W202"] and "0..6" in found[0].message


def test_the_ends_of_the_range_are_accepted() -> None:
    text = RULES + '\nexample e "E":\n  let a = f() with sp = 0\n  let b = f() with sp = 6\n  expect a = 1\n  expect b = 7\n'
    assert errors(text) == []
    results = run_ruleset(compile_text(text).rulesets[0])
    assert all(r.passed for r in results) and results


def test_a_value_known_only_when_resolved_is_refused_by_the_resolver() -> None:
    text = RULES + '\nexample e "E":\n  let n = 7\n  let a = f() with sp = n\n  expect a = 8\n'
    assert errors(text) == []  # `n` is an example's name: not known to check
    (result,) = run_ruleset(compile_text(text).rulesets[0])
    assert not result.passed
    assert any("outside its range 0..6" in f.message for f in result.failures)


def write(tmp_path: Path) -> Path:
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(RULES, encoding="utf-8")
    return folder


def test_eval_with_refuses_a_number_past_the_range(tmp_path: Path) -> None:
    r = warscribe("eval", str(write(tmp_path)), "f()", "--with", "sp = 1000")
    assert r.returncode == 1
    assert "<expression>:1:" in r.stderr and "W202" in r.stderr and "0..6" in r.stderr and r.stdout == ""


def test_table_with_checks_its_settings(tmp_path: Path) -> None:
    folder = write(tmp_path)
    r = warscribe("table", str(folder), "f", "--with", "sp = 1000")
    assert r.returncode == 1 and "W202" in r.stderr and "0..6" in r.stderr
    r = warscribe("table", str(folder), "f", "--with", "spp = 1")
    assert r.returncode == 1 and "unknown situation 'spp'" in r.stderr
