"""Diagnostics read as English: the right article (one helper picks a/an), no "unexpected an …".

Each case is a message a user meets; the expected words are written from the grammar of
English, not copied from the program's output.
"""
from __future__ import annotations

import re

import pytest

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression
from compiler.syntax.parse import parse_text
from compiler.words import a_or_an

HEADER = 'ruleset demo "Demo":\n  version 1.0.0\n'
BASE = HEADER + ('stat BS "Ballistic Skill" 1..10\nstat W "Wounds" 1..10 role wounds\n'
                 'test hit(BS) = roll d6 >= BS, natural 1 fails\n'
                 'ability assault "Assault": "May shoot after charging."\n'
                 'unit grunt "Grunt":\n  BS 4  W 1\n'
                 'attack shooting(shooter, target) "Shooting":\n  shots = shooter.models\n'
                 '  hits = shots each hit(shooter.BS)\n')


@pytest.mark.parametrize("phrase, expected", [
    ("attack", "an attack"), ("ability", "an ability"), ("example", "an example"), ("item", "an item"),
    ("open question", "an open question"), ("assumption", "an assumption"),
    ("table", "a table"), ("stat", "a stat"), ("weapon", "a weapon"), ("yes/no value", "a yes/no value"),
    ("unit", "a unit"), ("use", "a use"), ("one-off", "a one-off"), ("hour", "an hour"),
    ("'S'", "an 'S'"), ("'BS'", "a 'BS'"), ("'AP'", "an 'AP'"),
])
def test_the_article_fits_the_sound(phrase: str, expected: str) -> None:
    assert a_or_an(phrase) == expected


def messages(text: str) -> list[str]:
    return [d.message for d in compile_text(text).diagnostics]


def test_a_declaration_used_as_a_value_is_named_with_its_article() -> None:
    found = messages(BASE + 'formula f() "F" = shooting + 1\nformula g() "G" = assault\n')
    assert "'shooting' is an attack: call it with its values, e.g. shooting(…)" in found
    assert "'assault' is an ability, not a value" in found


def test_an_id_defined_twice_names_the_first_kind_with_its_article() -> None:
    found = messages(BASE + 'table assault(BS) "A":\n  otherwise -> 4+\n')
    assert "'assault' is already defined (as an ability)" in found


def test_against_a_yes_no_value_says_so_in_words() -> None:
    found = messages(HEADER + 'test t() "T" = roll d6 against (1 > 2)\n')
    assert any(m.endswith("but this is a yes/no value") for m in found), found


def test_no_message_says_a_before_a_vowel_sound() -> None:
    text = BASE + ('formula f() "F" = shooting + assault\ntable assault(BS) "A":\n  otherwise -> 4+\n'
                   'test t() "T" = roll d6 against (1 > 2)\n')
    for m in messages(text):
        assert not re.search(r"\ba (attack|ability|example|item|open|assumption|army)\b", m), m


def test_a_negative_group_of_models_is_refused_in_words() -> None:
    found = messages(BASE + 'example e "E":\n  let r = shooting(-5 grunt, 1 grunt)\n  expect mean(r.hits) >= 0\n')
    assert "a number of models cannot be negative: -5 grunt" in found


def test_a_group_used_as_a_number_is_called_a_group() -> None:
    model = compile_text(BASE).rulesets[0]
    with pytest.raises(ResolveError, match="^5 grunt is a group of models, not a number$"):
        Evaluator(model).evaluate(parse_expression("-(5 grunt)"))


@pytest.mark.parametrize("text, line", [
    (HEADER + "      version 2\n", 3),
    ('unit grunt "Grunt":\n  BS 4\n\n      W 1\n', 4),
])
def test_an_unexpected_indentation_is_named_and_located_on_its_line(text: str, line: int) -> None:
    _, (d,) = parse_text(text, "x.rules")
    assert d.message == "unexpected indentation"
    assert (d.span.line, d.span.column) == (line, 1)


def test_the_end_of_the_file_is_not_preceded_by_an_article() -> None:
    for text in ('formula f() "F" = (1 +', 'unit grunt "Grunt":\n  BS 4 (', "table t(x) \"T\":\n  x > (1"):
        _, diags = parse_text(text, "x.rules")
        for d in diags:
            assert not re.search(r"unexpected (a|an|the) ", d.message), d.message
