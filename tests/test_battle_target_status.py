"""A status the rules read for the unit attacked (``+1 to save when gone_to_ground``) is set for a
volley from the target's statuses, not the shooter's: the unit that went to ground when shot is
saved better, and shoots no differently itself.  Walked through the game tree with the exact laws
(Fractions); ``check`` refuses a status read for both sides of a volley (W867)."""
from __future__ import annotations

import re
from fractions import Fraction
from math import comb
from pathlib import Path

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


# -- what the attacks call: a status read through a formula, a table, or a test with no profile -----

HUG = 'modifier hug "Hugging the ground": +1 to save when gone_to_ground'
SAVE = "unsaved = hits each not save(target.Sv)"


def variant(*changes: tuple[str, str], extra: str = "", reaction: str = "") -> str:
    text = RULES.format(extra=extra, reaction=reaction)
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    return text


def volley_laws(text: str) -> tuple[list[Fraction], list[Fraction]]:
    """Red's volley at Blue, once with Blue gone to ground (Red in the open), once with Red gone
    to ground (Blue in the open), worked out through the game tree."""
    result = compile_text(text, "ground.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("field"))
    at_ground = node.child(1).child(0)  # Red stays up and fires; Blue goes to ground when shot
    assert at_ground.state().units[1].has("gone_to_ground") and not at_ground.state().units[0].statuses
    no_reaction = text.replace("when shot: sets gone_to_ground", "")
    model = compile_text(no_reaction, "ground.rules").rulesets[0]
    from_ground = Node.root(Rules(model, exact=True), model.get("field")).child(0).child(0)
    assert from_ground.state().units[0].has("gone_to_ground") and not from_ground.state().units[1].statuses
    return ([p for _, p in at_ground.chance_outcomes()], [p for _, p in from_ground.chance_outcomes()])


def assert_targets_status(text: str) -> None:
    """The volley at the unit gone to ground is Bin(2, 1/4), at the unit in the open Bin(2, 1/3)."""
    at_ground, from_ground = volley_laws(text)
    assert at_ground == binomial(2, GROUND) != binomial(2, OPEN)
    assert from_ground == binomial(2, OPEN)


WHEN_SHOT = "when shot: sets gone_to_ground"


def test_a_status_read_by_a_formula_the_save_is_handed_is_the_targets() -> None:
    """``save(target.Sv - cover(target))``, ``cover`` reading the situation: the save is the
    target's roll, and the status its."""
    assert_targets_status(variant(
        (HUG, 'formula cover(u: unit) "Cover" = if gone_to_ground then 1 else 0'),
        (SAVE, "unsaved = hits each not save(target.Sv - cover(target))"), reaction=WHEN_SHOT))


def test_a_status_read_by_a_table_the_save_is_handed_is_the_targets() -> None:
    assert_targets_status(variant(
        (HUG, 'table cover(u: unit) "Cover":\n  gone_to_ground -> 1\n  otherwise -> 0'),
        (SAVE, "unsaved = hits each not save(target.Sv - cover(target))"), reaction=WHEN_SHOT))


def test_a_status_read_in_the_saves_argument_or_its_roll_is_the_targets() -> None:
    """Read in what the attack hands the save, or in the save's own roll: the target's roll."""
    assert_targets_status(variant(
        (HUG, ""), (SAVE, "unsaved = hits each not save(target.Sv - (if gone_to_ground then 1 else 0))"),
        reaction=WHEN_SHOT))
    assert_targets_status(variant(
        (HUG, ""), ("roll d6 >= Sv\n", "roll d6 >= Sv - (if gone_to_ground then 1 else 0)\n"),
        reaction=WHEN_SHOT))


def test_a_modifier_whose_when_reads_the_status_through_a_formula() -> None:
    assert_targets_status(variant(
        (HUG, 'formula down() "Down" = gone_to_ground\nmodifier hug "Hug": +1 to save when down()'),
        reaction=WHEN_SHOT))


def test_a_save_called_with_no_profile_is_the_targets_roll() -> None:
    """``each not save(5)``: the failures go on toward the removal, so the unit attacked rolls it."""
    assert_targets_status(variant((SAVE, "unsaved = hits each not save(5)"), reaction=WHEN_SHOT))


def test_a_status_read_through_a_formula_for_both_sides_is_refused() -> None:
    text = variant((HUG, 'formula cover(u: unit) "Cover" = if gone_to_ground then 1 else 0'),
                   (SAVE, "unsaved = hits each not save(target.Sv - cover(target))"),
                   extra='modifier steady "Steady aim": +1 to hit when gone_to_ground')
    errors = [d for d in compile_text(text, "ground.rules").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["W867"], errors
    assert "'shooting'" in errors[0].message and "'steady'" in errors[0].message


def test_a_hook_of_the_shooters_read_with_a_status_of_the_targets_is_refused() -> None:
    """An ability whose ``when`` reads the status drives the shooter's hit hooks: the status is the
    shooter's there, and the target's for the save (W867), where it was silently the target's."""
    text = variant(("  BS 4  Sv 5  W 1", "  BS 4  Sv 5  W 1\n  abilities steady"),
                   ("hits = shooter.models each", "shots = shooter.models\n  hits = shots each"), extra=(
        'ability steady "Steady":\n  when gone_to_ground\n  on natural 6 to hit: no save'))
    errors = [d for d in compile_text(text, "ground.rules").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["W867"], errors
    assert "'steady'" in errors[0].message


def test_a_status_read_for_a_roll_no_side_is_told_of_is_refused_where_it_is_rolled() -> None:
    """A test called with no profile in a step off the way to the removal (a hazard the attack
    rolls too), and nowhere with one: nothing tells whose roll it is, so whose status (W868), at
    the call.  The same test called with a profile elsewhere, or on the way to the removal, is told."""
    hazard = 'test hazard(n: 1..6) = roll d6 >= n\nmodifier brace "Brace": +1 to hazard when gone_to_ground'
    text = variant((SAVE, "spent = shooter.models each hazard(3)\n  " + SAVE), extra=hazard)
    errors = [d for d in compile_text(text, "ground.rules").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["W868"], errors
    line = text.splitlines()[errors[0].span.line - 1]
    assert line.strip().startswith("spent =") and line[errors[0].span.column - 1:].startswith("hazard(3)")
    assert "'brace'" in errors[0].message and "target.Sv" in (errors[0].hint or "")
    told = variant((SAVE, "spent = shooter.models each hazard(shooter.BS)\n  " + SAVE), extra=hazard)
    assert [d.code for d in compile_text(told, "ground.rules").diagnostics if d.is_error] == ["W867"]
    chained = variant((SAVE, "unsaved = hits each not hazard(3)"), extra=hazard)
    assert status_sides(compile_text(chained, "ground.rules").rulesets[0]).defending == {"gone_to_ground"}


def test_the_references_examples_are_refused_as_they_show() -> None:
    """The examples of "Whose status a volley reads" (site/language.md), on this file's game: W869
    at the modifier that reads a counter for the target's save; W868 at ``overheat(3)``, and,
    handed the shooter, W867 — each with the message the reference prints."""
    md = (Path(__file__).resolve().parent.parent / "site" / "language.md").read_text(encoding="utf-8")
    part = md.split("\n### Whose status a volley reads\n", 1)[1].split("\n### ", 1)[0]
    pins, shooting = re.findall(r"```warscribe\n(.*?)```", part, re.S)
    shown = re.findall(r"```text\n(.*?)\n```", part, re.S)
    counter = "  counter pins: rises by 1 when shot, falls by 1 at end of game turn\n"
    assert counter.strip() in " ".join(part.split())
    attack = RULES[RULES.index("attack shooting"):RULES.index("modifier hug")]
    found = []
    texts = (variant((HUG, pins), ("  turns 1\n", "  turns 1\n" + counter)), variant((attack, ""), (HUG, shooting)))
    for text in texts:
        errors = [d for d in compile_text(text, "ground.rules").diagnostics if d.is_error]
        assert len(errors) == 1, errors
        found.append(f"error[{errors[0].code}]: {errors[0].message}")
        where = text.splitlines()[errors[0].span.line - 1][errors[0].span.column - 1:]
        assert where.startswith("modifier pinned_down" if errors[0].code == "W869" else "overheat(3)")
    assert found == shown
    handed = variant((attack, ""), (HUG, shooting.replace("overheat(3)", "overheat(shooter.BS)")))
    assert [d.code for d in compile_text(handed, "ground.rules").diagnostics if d.is_error] == ["W867"]


def test_a_status_read_through_a_derived_situation_is_sorted_by_what_reads_that() -> None:
    """``situation posture is prone when gone_to_ground`` and ``+1 to save when posture is prone``:
    the save reads the status through the situation the game works out, so it is the target's."""
    text = variant(
        (HUG, 'situation posture "Posture" one of prone, upright\n'
              'modifier hug "Hug": +1 to save when posture is prone'),
        ("  turns 1\n", "  turns 1\n  situation posture is prone when gone_to_ground, otherwise upright\n"),
        reaction=WHEN_SHOT)
    assert_targets_status(text)
    both = text + 'modifier steady "Steady aim": +1 to hit when posture is prone\n'
    assert [d.code for d in compile_text(both, "ground.rules").diagnostics if d.is_error] == ["W867"]


def test_a_counter_read_for_the_unit_attacked_is_refused() -> None:
    """A counter is the acting unit's value: a volley is worked out with the shooter's, so one read
    for the target's save (``+1 to save when pins >= 1``) would never count (W869); read for the
    shooter's hit it is what the volley uses."""
    counter = "  counter pins: rises by 1 when shot, falls by 1 at end of game turn\n"
    text = variant((HUG, 'situation pins "Pins" 0..3\nmodifier hug "Hug": +1 to save when pins >= 1'),
                   ("  turns 1\n", "  turns 1\n" + counter))
    errors = [d for d in compile_text(text, "ground.rules").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["W869"], errors
    assert text.splitlines()[errors[0].span.line - 1].startswith("modifier hug") and "'pins'" in errors[0].message
    shooter = text.replace("+1 to save when pins >= 1", "-1 to hit when pins >= 1")
    assert [d.code for d in compile_text(shooter, "ground.rules").diagnostics if d.is_error] == []


def test_a_status_read_for_a_roll_made_for_both_sides_is_refused() -> None:
    """``save`` rolled for the target (``save(target.Sv)``) and for the shooter (``save(shooter.Sv)``,
    a hazard): ``+1 to save when gone_to_ground`` reads the status for both units (W867)."""
    text = variant((SAVE, "burnt = shooter.models each not save(shooter.Sv)\n  " + SAVE))
    errors = [d for d in compile_text(text, "ground.rules").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["W867"], errors
    assert "'hug'" in errors[0].message and "both for the unit attacked and for the attacker" in errors[0].message
    assert text.splitlines()[errors[0].span.line - 1].startswith("modifier hug")
