"""Activation dice with a fight: the phase's combat is fought after the units tried, a unit locked
in it (barred from every action) rolls no dice, and the greedy player tries its units in the order
listed, as its general path does — the exact law of a small battle, computed here with fractions."""
from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

import pytest

from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.battle.exact import solve
from compiler.battle.policies import Choice
from compiler.driver import compile_text

RULES = '''
ruleset melee "Melee":
  version 1.0.0
stat Ld "Leadership" 2..12
stat Rd "Readiness" 1..6
stat W "Wounds" 1..10 role wounds
test blow(Ld) = roll d6 >= Ld
test ready(Rd) = roll d6 >= Rd
status locked "Locked": "In combat."
status bold "Bold": "It holds its ground."
attack brawl(attacker, defender) "Brawl":
  hits = attacker.models each blow(attacker.Ld)
  killed = hits removes defender
unit trooper "Trooper":
  Ld 4  Rd 1  W 1
unit brute "Brute":
  Ld 3  Rd 1  W 1
game g "A game":
  turns 1
  activation activation_rolls
  activation dice 1..1 of ready(Rd), bust on 2 failures
  phase assault "Assault":
    must action charge "Charge": engage within 6" as locked unless locked
    combat brawl in order of Ld
  victory wipe "Annihilation" by annihilation
scenario clash "A clash":
  game g
  distance 4"
  first red
  side red "Red":
{red}
  side blue "Blue":
    5 brute
'''


class PlainGreedy(GreedyPolicy):
    """The greedy policy asked each choice the general way (no engine shortcut)."""


@pytest.fixture(scope="module")
def duel() -> Any:
    return model_of("    5 trooper")


def model_of(red: str) -> Any:
    result = compile_text(RULES.format(red=red), "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def binomial(n: int, p: Fraction) -> list[Fraction]:
    return [comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]


def test_the_phase_combat_is_fought_in_each_players_turn(duel: Any) -> None:
    """Red's troopers charge (one die, always a success); the combat follows in Red's turn and again
    in Blue's (the brutes, locked, take no action): troopers (Ld 4, blows on 4+) strike first, the
    brutes (3+) back, each with the models left.  The law of the models left, worked out here."""
    half, two = Fraction(1, 2), Fraction(2, 3)

    @cache
    def rounds(red: int, blue: int, left: int) -> dict[tuple[int, int], Fraction]:
        if left == 0 or red == 0 or blue == 0:
            return {(red, blue): Fraction(1)}
        out: dict[tuple[int, int], Fraction] = {}
        for k, pk in enumerate(binomial(red, half)):
            b = max(0, blue - k)
            for j, pj in enumerate(binomial(b, two)):
                for end, p in rounds(max(0, red - j), b, left - 1).items():
                    out[end] = out.get(end, Fraction(0)) + pk * pj * p
        return out

    expected: dict[tuple[Any, ...], Fraction] = {}
    for (red, blue), p in rounds(5, 5, 2).items():
        winner = None if red and blue else 0 if red else 1
        key = (winner, 1, (red, blue))
        expected[key] = expected.get(key, Fraction(0)) + p
    assert sum(expected.values()) == 1
    assert solve(Rules(duel, exact=True), duel.get("clash")).endings == expected


def test_a_unit_locked_in_combat_rolls_no_activation_dice(duel: Any) -> None:
    battle = Battle(Rules(duel), duel.get("clash"), [GreedyPolicy(), GreedyPolicy()], seed=3)
    battle.run()
    tried = [(e["side"], e["unit"]) for e in battle.events if e["event"] == "activation"]
    assert tried == [("red", "Trooper")]  # the brutes, locked in the fight, are not tried
    assert [e["side"] for e in battle.events if e["event"] == "volley"][:2] == ["red", "red"]


def test_a_unit_holding_a_status_that_bars_nothing_still_rolls() -> None:
    """A status that no action's `unless` names does not keep the unit from its dice."""
    model = model_of("    5 trooper")
    battle = Battle(Rules(model), model.get("clash"), [GreedyPolicy(), GreedyPolicy()], seed=3)
    battle.state.units[0].statuses["bold"] = ""  # held for the game
    battle.run()
    assert [(e["side"], e["unit"]) for e in battle.events if e["event"] == "activation"] == [("red", "Trooper")]
    assert battle.state.units[0].statuses.keys() == {"bold", "locked"}  # it charged


def test_the_greedy_player_tries_its_units_in_the_order_listed() -> None:
    model = model_of("    5 trooper\n    2 brute")
    plays = []
    for policy in (GreedyPolicy, PlainGreedy):
        battle = Battle(Rules(model), model.get("clash"), [policy(), policy()], seed=5)
        out = battle.run()
        tried = [e["unit"] for e in battle.events if e["event"] == "activation"]
        assert tried[:2] == ["Trooper 1", "Brute 2"]
        plays.append((out, battle.choices, battle.events))
    assert plays[0] == plays[1]


def test_a_unit_holding_the_status_takes_that_many_actions_fewer() -> None:
    """``1 fewer actions when bold``: the bold trooper's one success gives it no action (it rolls,
    and does not charge); without the status it charges."""
    text = RULES.format(red="    5 trooper").replace("bust on 2 failures", "bust on 2 failures, 1 fewer actions when bold")
    result = compile_text(text, "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    for bold, acted in ((True, []), (False, ["charge"])):
        battle = Battle(Rules(model), model.get("clash"), [GreedyPolicy(), GreedyPolicy()], seed=3)
        if bold:
            battle.state.units[0].statuses["bold"] = ""
        battle.run()
        rolls = [(e["unit"], e["dice"], e["successes"]) for e in battle.events if e["event"] == "activation"]
        assert rolls[0] == ("Trooper", 1, 1)
        assert [e["action"] for e in battle.events if e["event"] == "action" and e["side"] == "red"] == acted


class Spy(GreedyPolicy):
    """The greedy policy on its general path, keeping the estimates of each dice choice."""

    def __init__(self) -> None:
        self.dice: list[list[float]] = []

    def choose(self, choice: Choice) -> int:
        if choice.kind == "dice" and choice.estimates is not None:
            self.dice.append(list(choice.estimates()))
        return super().choose(choice)


def test_the_dice_a_unit_holding_the_status_rolls_are_weighed_with_its_fewer_actions() -> None:
    """Each die a success on 4+, two failures a bust (no other unit waits); ``2 fewer actions when
    bold``: n dice are worth the successes less two, never below none."""
    text = RULES.format(red="    5 trooper").replace(
        "activation dice 1..1 of ready(Rd), bust on 2 failures",
        "activation dice 1..3 of blow(Ld), bust on 2 failures, 2 fewer actions when bold")
    result = compile_text(text, "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]

    def worth(n: int, fewer: int) -> Fraction:
        return sum((comb(n, s) * Fraction(1, 2) ** n * (0 if n - s >= 2 else max(0, s - fewer)) for s in range(n + 1)),
                   Fraction(0))
    assert [worth(n, 2) for n in (1, 2, 3)] == [0, 0, Fraction(1, 8)]
    for fewer in (2, 0):
        picks = []
        for policy in (Spy, GreedyPolicy):
            battle = Battle(Rules(model), model.get("clash"), [policy(), GreedyPolicy()], seed=3)
            if fewer:
                battle.state.units[0].statuses["bold"] = ""
            battle.run()
            picks.append(next(e["dice"] for e in battle.events if e["event"] == "activation"))
            if isinstance(battle.policies[0], Spy):
                assert battle.policies[0].dice[0] == pytest.approx([float(worth(n, fewer)) for n in (1, 2, 3)],
                                                                   abs=1e-12)
        assert picks == [3, 3]


def test_each_success_is_an_action_and_a_choice_of_two_options_is_recorded() -> None:
    """Two activation dice that always succeed give a unit two actions in a row (the first one
    taken does not end its activation); the greedy side's pick between advancing and doing nothing
    is recorded as an answer each time, where a `must` action alone (one option) records none."""
    answers = {}
    for must in ("must ", ""):
        text = RULES.format(red="    5 trooper").replace(
            'must action charge "Charge": engage within 6" as locked unless locked',
            f'{must}action advance "Advance": move up to 1" toward the enemy').replace(
            "activation dice 1..1", "activation dice 2..2").replace('distance 4"', 'distance 20"')
        result = compile_text(text, "melee.rules")
        assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
        model = result.rulesets[0]
        battle = Battle(Rules(model), model.get("clash"), [GreedyPolicy(), GreedyPolicy()], seed=3)
        battle.run()
        acts = [(e["event"], e["side"], e.get("successes", e.get("inches"))) for e in battle.events
                if e["event"] in ("activation", "move")]
        assert acts == [("activation", "red", 2), ("move", "red", 1), ("move", "red", 1),
                        ("activation", "blue", 2), ("move", "blue", 1), ("move", "blue", 1)]
        answers[must] = battle.choices
    # each side: the activation's first answer (0), then per action its pick among the actions
    # (advance: 0) only where there are two options, and the inches of its move (1 of 0..1)
    assert answers == {"must ": [0, 1, 1] * 2, "": [0, 0, 1, 0, 1] * 2}
