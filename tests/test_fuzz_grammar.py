"""Grammar-aware fuzzing: generated rulesets are clean; damaged ones give diagnostics, never exceptions.

The strategies live in ``tests/strategies.py``.  No deadline (wall time flakes on a
busy machine); conftest's CPU-time guard stops a hang.  More inputs per test:
``WARSCRIBE_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz_grammar.py``;
the long run (100,000 inputs, with a report) is ``python bench/fuzz.py``.
"""
from __future__ import annotations

import os
from fractions import Fraction

from hypothesis import HealthCheck, given, settings

from compiler.diagnostics import Severity
from compiler.driver import compile_text
from compiler.syntax.fmt import format_text
from compiler.resolve.runner import run_ruleset
from strategies import DiceTotal, brute_force_at_least, exercise, mutated, rulesets

FUZZ = settings(max_examples=int(os.environ.get("WARSCRIBE_FUZZ_EXAMPLES", "30")),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Warnings a generated ruleset may have: its random table rows can overlap or leave gaps.
EXPECTED_WARNINGS = {"W301", "W302", "W303"}


@FUZZ
@given(rulesets())
def test_generated_rulesets_check_without_errors(text: str) -> None:
    result = compile_text(text, "gen.rules")
    problems = [(d.code, d.message) for d in result.diagnostics
                if d.is_error or (d.severity is Severity.WARNING and d.code not in EXPECTED_WARNINGS)]
    assert not problems, problems


@FUZZ
@given(rulesets())
def test_generated_rulesets_give_the_independently_computed_answers(text: str) -> None:
    """The generated examples expect values computed in Python (strategies.py), not by warscribe."""
    result = compile_text(text, "gen.rules")
    assert result.ok
    failed = [(r.id, [(f.message, f"line {f.span.line}", f.expected, f.actual) for f in r.failures])
              for r in run_ruleset(result.rulesets[0]) if not r.passed]
    assert not failed, failed


def test_the_dice_oracle_enumerates_every_roll() -> None:
    assert brute_force_at_least(DiceTotal(((1, 2, 6),), 0, 7)) == Fraction(7, 12)  # 21 of 36 rolls
    assert brute_force_at_least(DiceTotal(((1, 1, 6), (-1, 1, 4)), 3, 5)) == Fraction(5, 12)
    assert DiceTotal(((1, 1, 6), (-1, 2, 4)), 1, 0).text == "d6 - 2d4 + 1"


@FUZZ
@given(rulesets())
def test_generated_rulesets_format_idempotently_and_keep_their_meaning(text: str) -> None:
    once = format_text(text, "gen.rules")  # raises if the meaning changed
    assert format_text(once, "gen.rules") == once
    assert compile_text(once, "gen.rules").ok


@FUZZ
@given(mutated())
def test_damaged_rulesets_give_only_diagnostics(text: str) -> None:
    exercise(text)
