"""What the greedy player reads of a status held for a reaction: the reaction's volley at the
charger, weighed where the charger would stand when it fires — no farther than the enemy's charge
reaches (a charge of 8" fires at 8", whatever the enemy's moves add), no nearer than the enemy
stands — and nothing when the enemy cannot come (its moves and charge added up fall short).
Each worth is worked out here from the exact law of the volley (Fractions)."""
from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from compiler.battle import Node, Rules
from compiler.driver import compile_text

RULES = '''
ruleset watch "Watch":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
situation range_band "Range band" one of short, long
status locked "Locked": "In close combat."
status on_overwatch "On overwatch": "Watching."
test hit(BS) = roll d6 >= BS
modifier long_range "Long range": hit needs 6+ when range_band is long
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
game g "A game":
  turns 1
  activation whole_army
  situation range_band is long when distance_to_enemy > 6, otherwise short
  phase watch "Watch":
    action hold "Hold": sets on_overwatch
  phase advance "Advance":
    action go "Go": move up to 3" toward the enemy
  phase assault "Assault":
    action charge "Charge": engage within 8" as locked
  when charged if on_overwatch: attack shooting
scenario field "A field":
  game g
  distance 24"
  first red
  side red "Red":
    5 trooper at 0"
  side blue "Blue":
    3 trooper at {blue}"
'''


def volley(shooters: int, targets: int, p: Fraction) -> Fraction:
    """The models a volley removes, on average: a hit per shooter with chance ``p``, a model per hit
    (no more than there are)."""
    return sum((min(k, targets) * comb(shooters, k) * p ** k * (1 - p) ** (shooters - k)
                for k in range(shooters + 1)), Fraction(0))


def hold_worth(blue: int) -> float:
    """The greedy player's worth of Red's "Hold" (its first choice: Hold or Nothing)."""
    result = compile_text(RULES.format(blue=blue), "watch.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("field"))
    choice = node.choice()
    assert choice is not None and choice.estimates is not None
    assert [o.label for o in choice.options] == ["Hold", "Nothing"]
    hold, nothing = choice.estimates()
    assert nothing == 0.0
    return hold


@pytest.mark.parametrize("blue,law", [
    (10, Fraction(1, 6)),  # 10" off: it charges from 8" (its charge's reach), long range: 6+
    (11, Fraction(1, 6)),  # 3" + 8" = 11": it can just come, and fires from 8"
    (5, Fraction(1, 2)),  # within its charge: it charges from where it stands, short range: 4+
])
def test_a_status_held_for_a_reaction_is_worth_the_volley_at_the_charger_from_its_charge_reach(
        blue: int, law: Fraction) -> None:
    """Five troopers on overwatch against three: the volley is weighed at the charger standing at
    its charge's reach (8"), not at its move's (3") nor where it stands now."""
    assert hold_worth(blue) == pytest.approx(float(volley(5, 3, law)), rel=1e-12)


def test_a_status_held_for_a_reaction_is_worth_nothing_when_the_enemy_cannot_come() -> None:
    """12" off, the enemy's 3" move and 8" charge fall short: the greedy player sees nothing in
    holding the status (less than doing nothing: a status alone gains nothing on a tie)."""
    assert hold_worth(12) <= 0.0
