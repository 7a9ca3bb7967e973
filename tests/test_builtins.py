"""The built-in registry (compiler.syntax.builtins): one entry per built-in, read by every stage."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from compiler.driver import compile_text
from compiler.model.static import BUILTIN_STATIC
from compiler.resolve import evaluator
from compiler.resolve.builtins import IMPLEMENTATIONS
from compiler.resolve.core import AGGREGATES
from compiler.resolve.evaluator import Evaluator, parse_expression
from compiler.syntax.builtins import BUILTINS

LANGUAGE = Path(__file__).resolve().parent.parent / "site" / "language.md"
MODEL = compile_text('ruleset d "D":\n  version 1.0.0\n').rulesets[0]


def test_the_resolver_implements_exactly_the_registry() -> None:
    assert set(IMPLEMENTATIONS) == set(BUILTINS)
    assert set(evaluator.BUILTIN_CALLS) == set(BUILTINS)


def test_aggregates_and_static_sets_come_from_the_registry() -> None:
    assert AGGREGATES == {"P", "mean"}
    assert BUILTIN_STATIC == {"min", "max", "abs", "ceil", "floor", "clamp", "even", "odd"}


@pytest.mark.parametrize("name", list(BUILTINS))
def test_every_builtin_is_documented_with_its_example(name: str) -> None:
    entry = BUILTINS[name]
    text = LANGUAGE.read_text(encoding="utf-8")
    section = text.split("### Built-in functions", 1)[1].split("\n## ", 1)[0]
    assert f"- `{entry.example}` — " in section
    assert entry.example.startswith(f"{name}(")
    assert entry.min_args <= entry.max_args
    assert "\n" not in entry.doc
    parse_expression(entry.example)  # the example is written in the language


@pytest.mark.parametrize("expr, value", [
    ("min(4, 2, 7)", 2), ("max(4, 2, 7)", 7), ("abs(3 - 5)", 2), ("ceil(7 / 2)", 4), ("floor(7 / 2)", 3),
    ("clamp(9, 2, 6)", 6), ("clamp(1, 2, 6)", 2), ("even(4)", True), ("odd(4)", False),
])
def test_static_implementations_agree_with_the_resolver(expr: str, value: object) -> None:
    from compiler.model.static import evaluate

    parsed = parse_expression(expr)
    assert evaluate(parsed, {}, MODEL) == value
    assert Evaluator(MODEL).evaluate(parsed) == value


def test_dice_builtins_have_no_static_implementation_but_resolve() -> None:
    assert BUILTINS["highest"].static is None
    assert Evaluator(MODEL).evaluate(parse_expression("mean(highest(2, d6))")) == Fraction(161, 36)


@pytest.mark.parametrize("name", list(BUILTINS))
def test_every_builtin_is_highlighted_as_the_registry_says(name: str) -> None:
    from pygments.token import string_to_tokentype

    from compiler.syntax.lexer import WarscribeLexer

    tokens = [(t, v) for t, v in WarscribeLexer().get_tokens(f"example e:\n  expect {BUILTINS[name].example} >= 0\n")]
    assert (string_to_tokentype(BUILTINS[name].highlight), name) in tokens
    # the same word without a call is a name, not a builtin
    plain = [(t, v) for t, v in WarscribeLexer().get_tokens(f"example e:\n  let {name}x = 1\n")]
    assert all(v != name for _, v in plain)


def test_a_die_of_n_sides_is_uniform_and_may_take_a_rolled_n() -> None:
    ev = Evaluator(MODEL)
    for n in (1, 2, 7, 20):
        assert ev.evaluate(parse_expression(f"P(d({n}) == 1)")) == Fraction(1, n)
        assert ev.evaluate(parse_expression(f"mean(d({n}))")) == Fraction(n + 1, 2)
    # n rolled on a d6 first: the mean of (n + 1) / 2 over n = 1..6
    assert ev.evaluate(parse_expression("mean(d(d6))")) == Fraction(9, 4)
    with pytest.raises(evaluator.ResolveError, match="0 sides"):
        ev.evaluate(parse_expression("d(0)"))


@pytest.mark.parametrize("expr, message", [
    ("keep_highest(4, 3, d6)", "keeps between 1 and the 3 dice rolled"),
    ("keep_lowest(0, 3, d6)", "keeps between 1 and the 3 dice rolled"),
    ("keep_highest(2, 101, d6)", "rolls at most 100 dice"),
    ("keep_highest(2, 3, explode(d6, 6, 1))", "cut-off part"),
    ("keep_highest(5, 10, d200)", "too much to work out"),
    ("keep_highest(2, d6, d6)", "the number of dice rolled must be a fixed number"),
    ("highest(d3, d6)", "the number of dice kept must be a fixed number"),
])
def test_keep_highest_and_lowest_refuse_what_they_cannot_work_out(expr: str, message: str) -> None:
    from compiler.resolve.evaluator import ResolveError

    with pytest.raises(ResolveError) as info:
        Evaluator(MODEL).evaluate(parse_expression(expr))
    assert message in info.value.message
    assert info.value.span is not None


def test_keep_highest_of_a_fixed_value_adds_it_k_times() -> None:
    assert Evaluator(MODEL).evaluate(parse_expression("keep_highest(2, 3, 4)")) == 8
