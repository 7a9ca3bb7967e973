"""Grammar-aware fuzzing: generated rulesets are clean; damaged ones give diagnostics, never exceptions.

The strategies live in ``tests/strategies.py``.  No deadline (wall time flakes on a
busy machine); conftest's CPU-time guard stops a hang.  More inputs per test:
``WARSCRIBE_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz_grammar.py``;
the long run (100,000 inputs, with a report) is ``python bench/fuzz.py``.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

from compiler.diagnostics import Severity
from compiler.driver import compile_text
from compiler.syntax.fmt import format_text
from compiler.resolve.runner import run_ruleset
from strategies import exercise, mutated, rulesets

FUZZ = settings(max_examples=int(os.environ.get("WARSCRIBE_FUZZ_EXAMPLES", "50")),
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
def test_generated_rulesets_pass_their_examples(text: str) -> None:
    result = compile_text(text, "gen.rules")
    assert result.ok
    failed = [(r.id, [f.message for f in r.failures]) for r in run_ruleset(result.rulesets[0]) if not r.passed]
    assert not failed, failed


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
