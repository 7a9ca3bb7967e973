"""compiler.words: the one "value in words" formatter family, and the old names that point to it."""
from __future__ import annotations

import doctest
from fractions import Fraction

import compiler.words
from compiler.model.values import TargetValue
from compiler.resolve import core, evaluator, report, runner
from compiler.words import fraction_json, number_words, value_words


def test_doctests() -> None:
    result = doctest.testmod(compiler.words)
    assert result.failed == 0 and result.attempted >= 8


def test_old_names_are_the_one_formatter() -> None:
    assert core.show is evaluator.show is value_words
    assert runner.fmt_number is number_words
    assert report.fraction_text is fraction_json


def test_words_for_each_kind_of_value() -> None:
    assert [value_words(v) for v in (True, False, None, 7, Fraction(7, 2), TargetValue.high(4), "soft")] == \
        ["yes", "no", "none", "7", "7/2", "4+", "soft"]
    assert number_words(Fraction(35, 216)) == "35/216 (≈ 0.162037)"
    assert number_words(Fraction(1, 1234567)) == "≈ 8.10001e-07"
    assert number_words(TargetValue.high(3)) == "3+"
    assert fraction_json(Fraction(3)) == "3" and fraction_json(Fraction(25, 18)) == "25/18"
    assert report.value_text(core.Roll(True, 6)) == "yes"
