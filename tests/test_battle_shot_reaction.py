"""``when shot``: a unit an enemy shoots at may answer before the volley (return fire at the
shooter), walked through the game tree with the exact laws of each roll (Fractions): the answer
comes first, a shooter it wipes out makes no volley, the answer's own fire is answered by no one,
a reaction spending its action leaves the unit idle in its own turn, and `check` refuses blows
of close combat in answer to a shooter."""
from __future__ import annotations

from fractions import Fraction
from math import comb

from compiler.battle import CHANCE, TERMINAL, Node, Rules
from compiler.driver import compile_text

RULES = '''
ruleset volley "Volley":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
stat Range "Range" distance
stat A "Attacks" 1..10
test hit(BS) = roll d6 >= BS
attack shooting(shooter, weapon, target) "Shooting":
  hits = (shooter.models * weapon.A) each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
weapon rifle "Rifle":
  Range 24"  A 1
game g "A game":
  turns 1
  activation whole_army
  phase shoot "Shooting":
    action fire "Fire": attack shooting within Range
  {reaction}
  victory wipe "Annihilation" by annihilation
scenario field "A field":
  game g
  distance 12"
  first red
  side red "Red":
    {red} trooper with rifle
  side blue "Blue":
    2 trooper with rifle
'''

HALF = Fraction(1, 2)


def binomial(n: int) -> list[Fraction]:
    return [Fraction(comb(n, k), 2 ** n) for k in range(n + 1)]


def root(reaction: str, red: int = 2) -> Node:
    result = compile_text(RULES.format(reaction=reaction, red=red), "volley.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("field"))


def options(node: Node) -> list[str]:
    choice = node.choice()
    assert choice is not None
    return [o.label for o in choice.options]


def test_the_shot_unit_answers_before_the_volley_with_the_exact_law_of_both() -> None:
    """Red's two troopers fire at Blue's two; Blue may first fire back.  The law of Blue's losses
    is that of two volleys in turn: Red keeps 2 - Bin(2, 1/2) models, then Blue loses Bin(those, 1/2)."""
    node = root("when shot: attack shooting within Range")
    assert options(node) == ["Fire", "Nothing"]
    asked = node.child(0)
    assert asked.current_player() == 1 and options(asked) == ["Yes", "No"]  # Blue's answer, before any roll
    answer = asked.child(0)
    assert answer.chance_kind() == "volley" and [p for _, p in answer.chance_outcomes()] == binomial(2)
    blue_lost = [Fraction(0)] * 3
    for red_lost, p in answer.chance_outcomes():
        after = answer.child(red_lost)
        assert after.state().units[0].models == 2 - red_lost
        if red_lost == 2:  # the shooters fell to the answer: no volley, Blue wins
            assert after.current_player() == TERMINAL and after.outcome().winner == 1
            blue_lost[0] += p
            continue
        # Red's volley follows at once: Red is not asked to answer the answer's fire
        assert after.current_player() == CHANCE and after.chance_kind() == "volley"
        for k, q in after.chance_outcomes():
            assert after.child(k).state().units[1].models == 2 - k
            blue_lost[k] += p * q
    law = [sum(binomial(2)[r] * (binomial(2 - r)[k] if k <= 2 - r else 0) for r in range(3)) for k in range(3)]
    assert blue_lost == law == [Fraction(9, 16), Fraction(3, 8), Fraction(1, 16)]
    declined = asked.child(1)  # no answer: Red's volley at full strength
    assert declined.chance_kind() == "volley" and [p for _, p in declined.chance_outcomes()] == binomial(2)


def test_a_reaction_that_spends_the_action_leaves_the_unit_idle_in_its_own_turn() -> None:
    spends = root("when shot, spending its action: attack shooting within Range")
    after = spends.child(0).child(0).child(0).child(0)  # Blue answers; nobody falls either way
    assert after.current_player() == TERMINAL  # Blue's turn: its only unit has spent its action
    free = root("when shot: attack shooting within Range").child(0).child(0).child(0).child(0)
    assert free.current_player() == 1 and options(free) == ["Fire", "Nothing"]  # it fires again in its turn


def test_a_failed_test_of_the_answer_stops_it_and_spends_the_action_only_on_a_failure() -> None:
    """``tests hit(BS)`` on a 4+ first: a failure stops the answer (no return fire) and spends the
    action; a success lets the unit fire back and act in its turn."""
    node = root("when shot, spending its action on a failure: tests hit(BS), attack shooting within Range")
    test = node.child(0).child(0)
    assert test.chance_kind() == "test" and [p for _, p in test.chance_outcomes()] == [HALF, HALF]
    passed, failed = test.child(0), test.child(1)
    assert passed.chance_kind() == "volley" and [p for _, p in passed.chance_outcomes()] == binomial(2)
    assert failed.chance_kind() == "volley"  # straight to Red's volley, unanswered
    assert failed.child(0).current_player() == TERMINAL  # spent: Blue does not act in its turn
    assert passed.child(0).child(0).current_player() == 1


def test_check_refuses_blows_of_close_combat_in_answer_to_a_shooter() -> None:
    text = RULES.format(reaction="when shot: attack shooting without Range", red=2)
    text = text.replace('  phase shoot', '  phase melee "Melee":\n    action charge "Charge": engage within 6\" as locked\n'
                        '  phase shoot').replace("game g", 'status locked "Locked": "In melee."\ngame g', 1)
    errors = [d for d in compile_text(text, "volley.rules").diagnostics if d.is_error]
    assert len(errors) == 1 and errors[0].code == "W863" and "being shot answers a shooter" in errors[0].message, errors
    assert text.splitlines()[errors[0].span.line - 1].strip().startswith("when shot") and errors[0].span.column > 0 and "within Range" in (errors[0].hint or "")
