"""40K-S battles: charges, close combat, pinning, fire locking, fall back and overwatch, as
worked examples on scripted states (rules/40k-s, the rifle_line scenario).

Each test sets the table by hand (two squads at given places, the others off it), gives one
unit an order with scripted answers, and checks the next state and the exact law of each volley
against an independent count with Fractions: a squad of one-wound models loses
min(X, models) where X ~ Binomial(attacks, p), p the chance one attack kills.
"""
from __future__ import annotations

import re
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest

import compiler
from compiler import ast as A
from compiler.battle import EFFECTS, Battle, Choice, Law, RandomPolicy, Rules, Unit
from compiler.battle.schemes import give_order, orders_for, used
from compiler.battle.turns import refresh_engaged
from compiler.driver import compile_text

ROOT = Path(__file__).resolve().parent.parent
ORDERS = ["advance", "charge", "fall_back", "first_fire", "overwatch", "pile_in"]


class Script:
    """Both sides' answers, in order (each checked against the prompt it is meant for)."""

    def __init__(self, answers: list[tuple[str, str]]) -> None:
        self.answers = list(answers)

    def choose(self, choice: Choice) -> int:
        kind, label = self.answers.pop(0)
        assert choice.kind == kind, (choice.kind, kind, choice.prompt)
        return [o.label for o in choice.options].index(label)


class Dice:
    """Nature: records each volley's law and gives the outcome asked for (by models removed)."""

    def __init__(self, removed: list[int]) -> None:
        self.removed = list(removed)
        self.laws: list[Law] = []

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        assert what == "volley"
        self.laws.append(law)
        return law.values.index(self.removed.pop(0))


def kills(attacks: int, p: Fraction, models: int) -> dict[int, Fraction]:
    """The law of models lost by a squad of one-wound models: min(Binomial(attacks, p), models)."""
    out: dict[int, Fraction] = {}
    for k in range(attacks + 1):
        q = comb(attacks, k) * p ** k * (1 - p) ** (attacks - k)
        out[min(k, models)] = out.get(min(k, models), Fraction(0)) + q
    return out


def law_dict(law: Law) -> dict[int, Any]:
    return {v: p for (v, _), p in law.outcomes() if p}


@pytest.fixture(scope="module")
def model() -> compiler.Ruleset:
    result = compiler.compile_paths([str(ROOT / "rules" / "40k-s")])
    assert result.ok
    return result.rulesets[0]


def table(model: compiler.Ruleset, answers: list[tuple[str, str]], removed: list[int],
          places: dict[str, float]) -> tuple[Battle, Dice, dict[str, Unit]]:
    """The rifle_line battle in its first game turn with only the units named in ``places``
    (armoured 1 and 2: a1, a2; line 1 to 3: l1, l2, l3) on the line, where ``places`` puts them."""
    script, dice = Script(answers), Dice(removed)
    b = Battle(Rules(model, exact=True), model.get("rifle_line"), [script, script], seed=0, nature=dice)
    st = b.state
    st.turn = 1
    names = dict(zip(["a1", "a2", "l1", "l2", "l3"], st.units))
    for name, u in names.items():
        if name in places:
            u.position = places[name]
        else:
            u.models = 0  # off the table (not a casualty: nobody scores it)
    st.phase = "phase_activation"
    return b, dice, names


def phase(model: compiler.Ruleset) -> A.Phase:
    game = model.get("battle")
    assert isinstance(game, A.Game)
    return next(p for p in game.phases if p.orders)


def order(b: Battle, unit: Unit, model: compiler.Ruleset) -> None:
    """``unit``'s detachment is activated: it is given an order, then has been used this turn."""
    b.state.active = unit.side
    give_order(b, unit, phase(model))
    used(b, unit)


def test_a_charge_engages_pins_fire_locks_and_the_charger_fights_with_its_melee_profiles(model) -> None:
    # armoured squad 1 stands 8" from line squad 1: within its charge move (2 x 6")
    b, dice, u = table(model, [("order", "Charge orders")], [2, 1], {"a1": 12.0, "l1": 20.0})
    a1, l1 = u["a1"], u["l1"]
    assert [o.id for o in orders_for(a1, phase(model))] == ["advance", "charge", "first_fire"]
    order(b, a1, model)
    # both engaged, pinned and fire locked (pinning class 1 against 1); the charger stands where its
    # target stood and moved into combat this turn; the target was charged while free
    assert a1.engaged == [l1.uid] and l1.engaged == [a1.uid] and a1.position == l1.position == 20.0
    assert a1.statuses == {"engaged": "", "pinned": "", "fire_locked": "", "moved_into_combat": "game turn"}
    assert l1.statuses == {"charged_this_turn": "game turn", "engaged": "", "pinned": "", "fire_locked": ""}
    assert a1.values["order"] == "charge"
    # the fight: only the profiles with no Range strike (fists, then the Extra blade), never the rifle
    volleys = [e for e in b.events if e["event"] == "volley"]
    assert [v["weapon"] for v in volleys] == ["armoured_fists", "combat_blade"]
    # WS 4 against WS 3 hits on 3+, S 4 against T 3 wounds on 3+, a 5+ save fails on 1-4
    p = Fraction(2, 3) * Fraction(2, 3) * Fraction(2, 3)
    # fists: 5 models x (1 + the charge bonus) attacks; the Extra blade never takes the bonus
    assert law_dict(dice.laws[0]) == kills(10, p, 5)
    assert law_dict(dice.laws[1]) == kills(5, p, 3)  # at the 3 models the fists left standing
    # line squad 1 has not acted yet: its dead stay until it has (it fights back at full strength)
    assert (l1.models, l1.doomed) == (5, 3)


def test_a_charge_reaches_only_twice_the_move(model) -> None:
    b, dice, u = table(model, [("order", "Charge orders")], [], {"a1": 4.0, "l1": 17.0})  # 13" apart
    order(b, u["a1"], model)
    assert u["a1"].engaged == [] and u["a1"].position == 4.0 and not dice.laws
    assert any(e["event"] == "out_of_reach" and e["reach"] == 12 for e in b.events)


def engaged_pair(model: compiler.Ruleset, answers: list[tuple[str, str]], removed: list[int],
                 places: dict[str, float]) -> tuple[Battle, Dice, dict[str, Unit]]:
    """Armoured squad 1 has charged line squad 1 (and killed nobody); then the answers given."""
    b, dice, u = table(model, [("order", "Charge orders")] + answers, [0, 0] + removed, places)
    order(b, u["a1"], model)
    return b, dice, u


def test_a_pinned_unit_may_only_fall_back_pile_in_or_overwatch_when_charged_this_turn(model) -> None:
    b, _, u = engaged_pair(model, [], [], {"a1": 12.0, "l1": 20.0})
    a1, l1 = u["a1"], u["l1"]
    p = phase(model)
    assert [o.id for o in orders_for(l1, p)] == ["fall_back", "overwatch", "pile_in"]
    assert [o.id for o in orders_for(a1, p)] == ["fall_back", "pile_in"]  # it was engaged by its own charge
    b.period_ends("game turn")  # the next turn: engaged since the turn began, so no overwatch
    assert [o.id for o in orders_for(l1, p)] == ["fall_back", "pile_in"]
    assert l1.statuses == {"engaged": "", "pinned": "", "fire_locked": ""}


def test_overwatch_shoots_only_the_engaged_enemy_at_minus_two_with_guns_only(model) -> None:
    b, dice, u = engaged_pair(model, [("order", "Overwatch orders")], [1], {"a1": 12.0, "l1": 20.0, "a2": 20.0})
    order(b, u["l1"], model)
    volleys = [e for e in b.events if e["event"] == "volley"][2:]
    assert [(v["weapon"], v["target"]) for v in volleys] == [("rifle", u["a1"].label)]  # not the fists, not a2
    assert "order=overwatch" in volleys[0]["situation"]
    # BS 3 hits on 4+, at -2 on 6+ (a natural 6 always hits); S 3 against T 4 wounds on 5+; a 3+ save fails on 1-2
    p = Fraction(1, 6) * Fraction(1, 3) * Fraction(1, 3)
    assert law_dict(dice.laws[2]) == kills(5, p, 5)
    assert u["a1"].models == 4


def test_pile_in_fights_back_without_the_charge_bonus(model) -> None:
    b, dice, u = engaged_pair(model, [("order", "Pile-in orders")], [0], {"a1": 12.0, "l1": 20.0})
    order(b, u["l1"], model)
    volleys = [e for e in b.events if e["event"] == "volley"][2:]
    assert [v["weapon"] for v in volleys] == ["trooper_fists"]
    # WS 3 against WS 4 hits on 4+; S 3 against T 4 wounds on 5+; a 3+ save fails on 1-2; one attack each
    p = Fraction(1, 2) * Fraction(1, 3) * Fraction(1, 3)
    assert law_dict(dice.laws[2]) == kills(5, p, 5)


def test_fall_back_breaks_the_engagement_and_frees_both_units(model) -> None:
    b, _, u = engaged_pair(model, [("order", "Fall back orders"), ("move", '6"')], [], {"a1": 12.0, "l1": 20.0})
    a1, l1 = u["a1"], u["l1"]
    order(b, l1, model)
    assert (a1.engaged, l1.engaged) == ([], [])
    assert a1.statuses == {"moved_into_combat": "game turn"} and l1.statuses == {"charged_this_turn": "game turn"}
    assert l1.position == 24.0  # 6" straight away from the enemy, toward its own edge (the line is 24" long)
    p = phase(model)
    assert [o.id for o in orders_for(a1, p)] == ["advance", "charge", "first_fire"]  # free again
    assert "fall_back" not in [o.id for o in orders_for(l1, p)]  # only a pinned unit falls back


def test_no_one_shoots_at_a_fire_locked_unit(model) -> None:
    # line squad 2, free, may shoot armoured squad 2 but not armoured squad 1, locked in combat
    b, dice, u = engaged_pair(model, [("order", "First fire orders")], [0],
                              {"a1": 4.0, "l1": 12.0, "a2": 2.0, "l2": 20.0})
    order(b, u["l2"], model)
    volleys = [e for e in b.events if e["event"] == "volley"][2:]
    assert [v["target"] for v in volleys] == [u["a2"].label]
    b2, dice2, u2 = engaged_pair(model, [("order", "First fire orders")], [], {"a1": 4.0, "l1": 12.0, "l2": 20.0})
    order(b2, u2["l2"], model)
    assert [e for e in b2.events if e["event"] == "volley"][2:] == [] and len(dice2.laws) == 2
    assert any(e["event"] == "no_target" and e["unit"] == u2["l2"].label for e in b2.events)


def test_a_fire_locked_unit_is_never_offered_first_fire_or_advance(model) -> None:
    _, _, u = engaged_pair(model, [], [], {"a1": 12.0, "l1": 20.0})
    offered = {o.id for o in orders_for(u["l1"], phase(model))}
    assert offered.isdisjoint({"advance", "first_fire", "charge"})


# -- the language: a weapon filter on `combat`, and check's refusals ------------------------------

PRELUDE = '''ruleset ref "Reference":
  version 1.0.0
stat M "Move" distance
stat Range "Range" distance
stat A "Attacks" 1..10
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
stat I "Initiative" 1..10
test nerve(Ld) = roll 2d6 <= Ld
status locked "Locked": "In combat."
attack brawl(attacker, weapon, defender) "Brawl":
  blows = attacker.models * weapon.A
  hits = blows each nerve(attacker.Ld)
  killed = hits removes defender
attack rush(attacker, defender) "Rush":
  blows = attacker.models
  hits = blows each nerve(attacker.Ld)
  killed = hits removes defender
unit trooper "Trooper":
  M 6"  Ld 7  W 1  I 3
  weapons gun, blade
weapon gun "Gun":
  Range 24"  A 3
weapon blade "Blade":
  Range -  A 1
'''


def test_combat_without_range_strikes_with_the_bladed_profiles_only() -> None:
    text = PRELUDE + '''
game g "G":
  turns 1
  phase fight "Fight":
    action charge "Charge": engage within 6" as locked unless locked
    combat brawl without Range in order of I
  victory wipe "Annihilation" by annihilation
scenario duel "Duel":
  game g
  distance 4"
  first red
  side red "Red":
    2 trooper with gun, blade
  side blue "Blue":
    3 trooper with gun, blade
'''
    result = compile_text(text, "ref.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    m = result.rulesets[0]
    dice = Dice([0, 0, 0, 0])  # nobody falls: each side's turn ends with a round of combat
    b = Battle(Rules(m, exact=True), m.get("duel"), [Script([("action", "Charge")])] * 2, seed=0, nature=dice)
    b.run()
    volleys = [(e["side"], e["weapon"], e["models"]) for e in b.events if e["event"] == "volley"]
    # red's turn: the active side strikes first on a tie of I; then blue's turn, blue first
    assert volleys == [("red", "blade", 2), ("red", "blade", 3), ("blue", "blade", 3), ("blue", "blade", 2)]
    p = Fraction(21, 36)  # 2d6 <= 7
    assert law_dict(dice.laws[0]) == kills(2, p, 3) and law_dict(dice.laws[1]) == kills(3, p, 2)


@pytest.mark.parametrize("line, message", [
    ("action f \"F\": attack brawl without Reach at engaged enemies", "unknown stat 'Reach'"),
    ("action f \"F\": attack rush without Range", "attack 'rush' takes no weapon, so `without Range` has no weapon "
     "profile to read"),
    ("action f \"F\": attack brawl at enemies not hidden", "unknown status 'hidden'"),
    ("action f \"F\": attack brawl within Range at engaged enemies", "'f' attacks only engaged enemies, but nothing "
     "in the game engages"),
    ("action f \"F\": disengages, move up to M away from the enemy", "'f' disengages, but nothing in the game engages"),
    ("combat brawl without Reach in order of I", "unknown stat 'Reach'"),
])
def test_check_refuses_a_filter_or_a_disengagement_that_cannot_work_at_its_line(line: str, message: str) -> None:
    text = PRELUDE + f'game g "G":\n  phase p "P":\n    {line}\n'
    found = [d for d in compile_text(text, "ref.rules").diagnostics if d.message == message]
    assert found, [d.message for d in compile_text(text, "ref.rules").diagnostics]
    assert found[0].span.line == PRELUDE.count("\n") + 3 and found[0].severity == "error"


def test_check_refuses_an_unknown_status_among_an_engagements_statuses() -> None:
    text = PRELUDE + 'game g "G":\n  phase p "P":\n    action c "C": engage within 6" as locked and stuck\n'
    found = {(d.code, d.message) for d in compile_text(text, "ref.rules").diagnostics}
    assert ("W101", "unknown status 'stuck'") in found


def test_the_references_close_combat_example_checks_and_plays() -> None:
    md = (ROOT / "site" / "language.md").read_text("utf-8")
    section = md.split("### Close combat and breaking off", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```warscribe\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    result = compile_text('ruleset ref "Reference":\n  version 1.0.0\nstat A "Attacks" 1..10\n' + blocks[0], "ref.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics if d.severity == "error"]
    m = result.rulesets[0]
    fought = set()
    for seed in range(4):
        b = Battle(Rules(m), m.get("cutthroat_line"), [RandomPolicy(seed), RandomPolicy(seed + 5)], seed=seed)
        b.run()
        for e in b.events:
            if e["event"] == "volley":
                fought.add((e["rule"], e["weapon"]))
    # the fight strikes with cleavers only, shots go with muskets only
    assert ("melee", "cleaver") in fought and fought <= {("melee", "cleaver"), ("gunfire", "musket")}


# -- casualties removed after the unit acts; beleaguered and decimated units ----------------------


def test_a_unit_hit_before_it_acts_keeps_its_models_until_it_has_acted(model) -> None:
    b, dice, u = table(model, [("order", "First fire orders"), ("order", "First fire orders")], [3, 1],
                       {"a1": 4.0, "l1": 20.0})
    a1, l1 = u["a1"], u["l1"]
    order(b, l1, model)  # 3 of armoured squad 1 fall before it has acted
    assert (a1.models, a1.doomed, l1.acted) == (5, 3, True)
    order(b, a1, model)  # it shoots with all five, then its dead are removed
    volley = [e for e in b.events if e["event"] == "volley"][-1]
    assert volley["models"] == 5 and (a1.models, a1.doomed) == (2, 0)
    assert l1.models == 4  # line squad 1 had acted: its casualty fell at once
    assert any(e["event"] == "removed" and e.get("acted") for e in b.events)


def test_a_beleaguered_charger_hits_at_minus_one_and_a_decimated_one_has_no_charge_bonus(model) -> None:
    # beleaguered: 3 of 5 lost before acting (at least half); WS 4 against WS 3 needs 3+, at -1 4+
    b, dice, u = table(model, [("order", "First fire orders"), ("order", "Charge orders")], [3, 0, 0],
                       {"a1": 12.0, "l1": 20.0})
    order(b, u["l1"], model)
    order(b, u["a1"], model)
    fight = [e for e in b.events if e["event"] == "volley"][1]
    assert "damage_state=beleaguered" in fight["situation"] and fight["models"] == 5
    p = Fraction(1, 2) * Fraction(2, 3) * Fraction(2, 3)
    assert law_dict(dice.laws[1]) == kills(10, p, 5)  # five models, each 1 + the charge bonus
    # decimated: all 5 lost before acting; it still charges, at -1 and without the bonus attack
    b, dice, u = table(model, [("order", "First fire orders"), ("order", "Charge orders")], [5, 0, 0],
                       {"a1": 12.0, "l1": 20.0})
    order(b, u["l1"], model)
    assert u["a1"].alive and u["a1"].doomed == 5
    order(b, u["a1"], model)
    fight = [e for e in b.events if e["event"] == "volley"][1]
    assert "damage_state=decimated" in fight["situation"]
    assert law_dict(dice.laws[1]) == kills(5, p, 5)
    assert not u["a1"].alive  # then it is gone


def test_check_refuses_casualties_after_acting_where_units_do_not_act_one_at_a_time() -> None:
    text = PRELUDE + 'game g "G":\n  activation whole_army\n  casualties removed after the unit acts\n  phase p "P":\n' \
        '    action go "Go": move up to 6" toward the enemy\n'
    found = [d for d in compile_text(text, "ref.rules").diagnostics if d.code == "W863"]
    assert [d.span.line for d in found] == [PRELUDE.count("\n") + 3]
    assert "used one at a time" in found[0].message


def test_check_refuses_a_situation_given_by_a_table_that_names_no_choice_of_it() -> None:
    text = PRELUDE + 'situation mood "Mood" one of calm, shaken\ntable mood_of(n: 0..10) "Mood":\n' \
        '  n > 2 -> "calm"\n  otherwise -> "panicked"\ngame g "G":\n  activation alternating_activations\n' \
        '  situation mood is given by mood_of(marked)\n  phase p "P":\n    action go "Go": move up to 6" toward the enemy\n'
    found = {(d.code, d.message) for d in compile_text(text, "ref.rules").diagnostics}
    line = PRELUDE.count("\n") + 4
    assert ("W101", f"table 'mood_of' gives 'panicked' at line {line}, which is not a choice of the situation 'mood'") \
        in found


# -- statuses held while engaged, by the size of the enemy ------------------------------------------

CLASSES = '''ruleset sizes "Sizes":
  version 1.0.0
stat PC "Pinning class" 1..5
stat W "Wounds" 1..10 role wounds
status locked "Locked": "In contact with an enemy."
status pinned "Pinned": "Held by an enemy at least as big."
status fire_locked "Fire locked": "Too tied up to shoot."
unit small "Small":
  PC 1  W 1
unit mid "Mid":
  PC 2  W 1
unit big "Big":
  PC 3  W 1
game g "G":
  activation alternating_activations
  phase p "P":
    action charge "Charge": engage within 12" as locked
    action fall_back "Fall back": disengages, move up to 6" away from the enemy
  while locked: pinned when foe.PC >= PC
  while locked: fire_locked when foe.PC > PC - 2
scenario s "S":
  game g
  distance 4"
  first red
  side red "Red":
    1 mid
    1 big
  side blue "Blue":
    1 small
    1 mid
    1 big
'''


def test_a_status_held_while_engaged_follows_the_enemies_the_unit_is_engaged_with() -> None:
    result = compile_text(CLASSES, "sizes.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    m = result.rulesets[0]
    charge, fall_back = m.get("g").phases[0].actions
    b = Battle(Rules(m), m.get("s"), [Script([])] * 2, seed=0)
    red, red_big, small, mid, big = b.state.units

    def charges(unit: Unit, foe: Unit) -> None:  # only ``foe`` within the charge's 12"
        for u in b.state.units:
            u.position = 0.0 if u is unit or u is foe or u.side == unit.side else 50.0
        EFFECTS["engage"](b, unit, charge.effects[0], charge)
        assert foe.uid in unit.engaged

    charges(red, small)  # a class-2 unit charges a class-1 unit
    assert red.statuses == {"locked": "", "fire_locked": ""}  # its foe one class smaller: fire locked only
    assert small.statuses == {"locked": "", "pinned": "", "fire_locked": ""}
    charges(big, red)  # a class-3 unit charges it too
    assert red.statuses == {"locked": "", "fire_locked": "", "pinned": ""}
    assert big.statuses == {"locked": "", "fire_locked": ""}
    b.state.remove_models(big, 1)  # the big one falls (as a volley ends); the small one still holds the mid one
    refresh_engaged(b)
    assert red.statuses == {"locked": "", "fire_locked": ""}
    EFFECTS["disengage"](b, red, fall_back.effects[0], fall_back)  # breaking off ends them all
    assert red.statuses == {} and small.statuses == {}
    charges(red_big, small)  # two classes larger than its only foe: free
    assert red_big.statuses == {"locked": ""} and small.statuses == {"locked": "", "pinned": "", "fire_locked": ""}
    charges(mid, red_big)  # one class smaller: now fire locked
    assert red_big.statuses == {"locked": "", "fire_locked": ""} and mid.statuses["pinned"] == ""


def test_check_refuses_a_status_held_while_engaged_that_no_engagement_sets() -> None:
    text = CLASSES.replace("  while locked: pinned when foe.PC >= PC\n", "  while held: pinned when foe.PC >= PC\n"
                           "  while locked: locked when foe.PC >= PC\n")
    found = {(d.code, d.message) for d in compile_text(text, "sizes.rules").diagnostics}
    assert ("W863", "no engagement of game 'g' sets 'held'") in found
    assert ("W863", "'locked' is set by an engagement outright and held while engaged under a condition") in found


def test_casualties_removed_at_the_end_of_a_phase_end_the_statuses_their_engagement_set() -> None:
    """The big one's last model, marked in the phase, is removed when it ends: the mid one it was
    pinning, still engaged with the small one, is no longer pinned (as when a volley removes it)."""
    from compiler.battle.turns import remove_marked
    result = compile_text(CLASSES, "sizes.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    m = result.rulesets[0]
    charge = m.get("g").phases[0].actions[0]
    b = Battle(Rules(m), m.get("s"), [Script([])] * 2, seed=0)
    red, _, small, _, big = b.state.units
    for unit, foe in ((red, small), (big, red)):
        for u in b.state.units:
            u.position = 0.0 if u is unit or u is foe or u.side == unit.side else 50.0
        EFFECTS["engage"](b, unit, charge.effects[0], charge)
    assert red.statuses == {"locked": "", "fire_locked": "", "pinned": ""}
    big.doomed = 1
    remove_marked(b)
    assert big.models == 0 and red.engaged == [small.uid] and red.statuses == {"locked": "", "fire_locked": ""}
