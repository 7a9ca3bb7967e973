"""A status the rules read for the unit attacked (``+1 to save when gone_to_ground``) is set for a
volley from the target's statuses, not the shooter's: the unit that went to ground when shot is
saved better, and shoots no differently itself.  Walked through the game tree with the exact laws
(Fractions); ``check`` refuses a status read for both sides of a volley (W867)."""
from __future__ import annotations

from fractions import Fraction
from math import comb

from compiler.battle import Node, Rules
from compiler.driver import compile_text
from compiler.model.sides import status_sides

RULES = '''
ruleset ground "Ground":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Sv "Save" 1..10
stat W "Wounds" 1..10 role wounds
stat Range "Range" distance
situation gone_to_ground "The unit has gone to ground"
test hit(BS) = roll d6 >= BS
test save(Sv) = roll d6 >= Sv
attack shooting(shooter, weapon, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed = unsaved removes target
modifier hug "Hugging the ground": +1 to save when gone_to_ground
{extra}
unit trooper "Trooper":
  BS 4  Sv 5  W 1
weapon rifle "Rifle":
  Range 24"
game g "A game":
  turns 1
  activation whole_army
  phase dive "Going to ground":
    action dive "Go to ground": sets gone_to_ground
  phase shoot "Shooting":
    action fire "Fire": attack shooting within Range
  {reaction}
  victory wipe "Annihilation" by annihilation
scenario field "A field":
  game g
  distance 12"
  first red
  side red "Red":
    2 trooper with rifle
  side blue "Blue":
    3 trooper with rifle
'''


def binomial(n: int, p: Fraction) -> list[Fraction]:
    return [comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]


def root(reaction: str = "when shot: sets gone_to_ground") -> Node:
    result = compile_text(RULES.format(extra="", reaction=reaction), "ground.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("field"))


# a shot kills on a hit (4+: 1/2) and a failed save: 5+ saves 1/3, with +1 to save 4+ saves 1/2
OPEN = Fraction(1, 2) * Fraction(2, 3)
GROUND = Fraction(1, 2) * Fraction(1, 2)


def test_the_rules_read_gone_to_ground_for_the_unit_attacked() -> None:
    model = compile_text(RULES.format(extra="", reaction=""), "ground.rules").rulesets[0]
    assert status_sides(model).defending == frozenset({"gone_to_ground"})


def options(node: Node) -> list[str]:
    choice = node.choice()
    assert choice is not None
    return [o.label for o in choice.options]


def test_a_volley_at_a_unit_gone_to_ground_is_worked_out_with_its_status() -> None:
    """Blue goes to ground when Red shoots (a reaction that only sets a status is taken at once):
    Red's volley kills Bin(2, 1/4), the law of the resolver with ``gone_to_ground`` set, not the
    Bin(2, 1/3) of a unit in the open."""
    node = root()
    assert options(node) == ["Go to ground", "Nothing"]
    volley = node.child(1).child(0)  # Red stays up, and fires
    red, blue = volley.state().units[:2]
    assert blue.statuses.keys() == {"gone_to_ground"} and not red.statuses
    assert volley.chance_kind() == "volley"
    law = [p for _, p in volley.chance_outcomes()]
    assert law == binomial(2, GROUND) != binomial(2, OPEN)
    attack = volley.rules.model.get("shooting")
    assert list(volley.rules.volley(attack, red, "rifle", blue, (("gone_to_ground", True),)).probabilities) == law


def test_the_shooter_gone_to_ground_does_not_make_its_target_save_better() -> None:
    """Red goes to ground, then fires: Blue, in the open, saves on 5+ as ever, Bin(2, 1/3)."""
    node = root(reaction="")
    fire = node.child(0)  # Red goes to ground
    assert fire.state().units[0].has("gone_to_ground") and options(fire) == ["Fire", "Nothing"]
    volley = fire.child(0)
    assert volley.chance_kind() == "volley" and not volley.state().units[1].statuses
    assert [p for _, p in volley.chance_outcomes()] == binomial(2, OPEN) != binomial(2, GROUND)


def test_check_refuses_a_status_read_for_both_sides_of_a_volley() -> None:
    text = RULES.format(extra='modifier steady "Steady aim": +1 to hit when gone_to_ground', reaction="")
    errors = [d for d in compile_text(text, "ground.rules").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["W867"], errors
    assert text.splitlines()[errors[0].span.line - 1].startswith("modifier hug")
    assert "'steady'" in errors[0].message and "one side only" in (errors[0].hint or "")


def test_a_stat_of_the_target_read_when_gone_to_ground_is_the_targets() -> None:
    """``-1 Sv when gone_to_ground`` (no role: the attack reads Sv of the target only) and
    ``Sv of target better by 1`` both make the status the target's; ``-1 BS`` the shooter's."""
    def sides(modifier: str) -> frozenset[str]:
        text = RULES.format(extra="", reaction="").replace(
            'modifier hug "Hugging the ground": +1 to save when gone_to_ground', modifier)
        return status_sides(compile_text(text, "ground.rules").rulesets[0]).defending
    assert sides('modifier hug "Hug": -1 Sv when gone_to_ground') == {"gone_to_ground"}
    assert sides('modifier hug "Hug": Sv of target better by 1 when gone_to_ground') == {"gone_to_ground"}
    assert sides('modifier hug "Hug": -1 BS when gone_to_ground') == frozenset()
