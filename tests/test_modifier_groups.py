"""Modifiers in a group: of one group only the largest counts (by size, whichever its sign);
modifiers outside any group add up.  Each answer is an enumeration of the die."""
from __future__ import annotations

from fractions import Fraction

import pytest

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, parse_expression

RULES = '''ruleset g "Groups":
  version 1.0.0

stat Q "Quality" 1..6: "q"
stat T "Toughness" 1..10: "t"
situation cover "Cover"
situation far "Far"
situation aimed "Aimed"
situation blessed "Blessed"

test hit(Q) = roll d6 >= Q
test wound(T) = roll d6 >= T

modifier soft "Soft cover": -1 to hit when cover
  group penalties
modifier distance "Far away": -2 to hit when far
  group penalties
modifier blessing "Blessing": +1 to hit when blessed
  group penalties
modifier aim "Aim": +1 to hit when aimed

modifier thin "Thin": -1 T when cover
  group armour
modifier plated "Plated": +2 T when far
  group armour
'''


@pytest.fixture(scope="module")
def model():  # type: ignore[no-untyped-def]
    result = compile_text(RULES)
    assert result.ok, [d.message for d in result.diagnostics]
    return result.rulesets[0]


def chance(need: int, modifier: int) -> Fraction:
    return Fraction(sum(1 for face in range(1, 7) if face + modifier >= need), 6)


@pytest.mark.parametrize("on, modifier", [
    ((), 0),
    (("cover",), -1),
    (("far",), -2),
    (("cover", "far"), -2),            # one group: the larger penalty, not both
    (("blessed",), +1),
    (("blessed", "far"), -2),          # a bonus and a penalty in one group: the larger by size
    (("blessed", "cover"), -1),        # equal sizes: the first written counts (soft cover)
    (("cover", "far", "aimed"), -1),   # outside the group, +1 adds to the group's -2
    (("aimed",), +1),
])
def test_only_the_largest_of_a_group_counts(model, on: tuple[str, ...], modifier: int) -> None:  # type: ignore[no-untyped-def]
    ev = Evaluator(model, situation={name: True for name in on})
    assert ev.probability_of(parse_expression("hit(3)")) == chance(3, modifier)


@pytest.mark.parametrize("on, toughness", [((), 4), (("cover",), 3), (("far",), 6), (("cover", "far"), 6)])
def test_a_group_of_stat_modifiers(model, on: tuple[str, ...], toughness: int) -> None:  # type: ignore[no-untyped-def]
    ev = Evaluator(model, situation={name: True for name in on})
    assert ev.probability_of(parse_expression("wound(4)")) == chance(toughness, 0)
