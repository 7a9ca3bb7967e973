"""Inputs that once crashed (a traceback instead of a diagnostic), found by fuzzing: each is now refused in words.

The questions come from a run of random expressions through ``warscribe eval`` on the bundled
console-40k ruleset (check, resolve, print): a roll combined with a profile took the fast
path's native operators and raised TypeError; an attack step refused while it was printed,
and a fraction too long to print, escaped the command as tracebacks.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import cpu_budget, warscribe

from compiler.driver import compile_paths
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression
from compiler.resolve.report import value_lines

ROOT = Path(__file__).resolve().parent.parent
CONSOLE = ROOT / "rules" / "console-40k"


@pytest.fixture(scope="module")
def model():  # type: ignore[no-untyped-def]
    return compile_paths([CONSOLE]).rulesets[0]


@pytest.mark.parametrize("question, words", [
    ("100d1000 + 5 space_marine", "5 space_marine is a group of models, not a number"),
    ("100d1000 + boltgun", "boltgun is a profile, not a number"),
    ("d1000 >= boltgun", "boltgun is a profile, not a number"),
    ("2d6 each space_marine", "space_marine is a profile, not a number"),
    ("7 each 100d1000 * space_marine", "space_marine is a profile, not a number"),
    ("d6 + true", "a yes/no value is not a number"),
])
def test_a_roll_combined_with_something_that_is_not_a_number_is_refused_in_words(model, question: str,
                                                                                 words: str) -> None:
    with cpu_budget(60), pytest.raises(ResolveError) as err:
        value_lines(Evaluator(model).evaluate(parse_expression(question)))
    assert err.value.message == words


def test_a_roll_plus_true_is_never_worked_out_as_plus_one(model) -> None:
    # bool is an int to Python: the fast path once added True as 1, a silent wrong answer.
    with pytest.raises(ResolveError):
        Evaluator(model, exact=False).evaluate(parse_expression("d6 + true"))


def test_ten_thousand_models_print_a_diagnostic_not_a_traceback() -> None:
    r = warscribe("eval", str(CONSOLE), "shooting(10000 space_marine, boltgun, 10000 ork_boy)")
    assert r.returncode == 1 and r.stdout == ""
    assert "rulebook.rules:" in r.stderr and "error[W800]" in r.stderr and "--fast" in r.stderr
