"""A worked-out situation, a situation given by a table and a status held while engaged must not
depend on dice: ``check`` refuses them where they are written (W871), and the battle engine's own
refusal, should one reach it, names the place too."""
from __future__ import annotations

from pathlib import Path

import pytest

from compiler.battle import Battle, RandomPolicy, Rules
from compiler.driver import compile_text
from compiler.resolve import ResolveError

BASE = '''ruleset sure "Sure":
  version 1.0.0
stat PC "Pinning class" 1..5
stat W "Wounds" 1..10 role wounds
status locked "Locked": "In contact with an enemy."
status pinned "Pinned": "Held by an enemy at least as big."
situation band "Band" one of near, far
situation wear "Wear" one of fresh, worn
test steady(PC) = roll d6 <= PC
table wear_of(size: 1..20) "How worn":
  WEAR_ROW -> "worn"
  otherwise -> "fresh"
unit small "Small":
  PC 1  W 1
unit big "Big":
  PC 3  W 1
game g "G":
  activation alternating_activations
  situation band is far when BAND, otherwise near
  situation wear is given by wear_of(models)
  phase p "P":
    action charge "Charge": engage within 12" as locked
    action go "Go": move up to 6" toward the enemy
  while locked: pinned when HELD
scenario s "S":
  game g
  distance 8"
  first red
  side red "Red":
    1 small
  side blue "Blue":
    1 big
'''
SURE = {"BAND": "distance_to_enemy > 6", "WEAR_ROW": "size > 8", "HELD": "foe.PC >= PC"}


def ruleset(**changed: str) -> str:
    text = BASE
    for key, sure in SURE.items():
        text = text.replace(key, changed.get(key, sure))
    return text


def where(text: str, written: str) -> tuple[int, int]:
    """The line and column (1-based) at which ``written`` begins in ``text``."""
    before = text[:text.index(written)]
    return before.count("\n") + 1, len(before) - before.rfind("\n")


def refusals(text: str) -> list[tuple[int, int, str]]:
    return [(d.span.line, d.span.column, d.message) for d in compile_text(text, "sure.rules").diagnostics
            if d.code == "W871"]


def test_sure_conditions_reading_stats_the_distance_and_whole_rolls_are_accepted() -> None:
    for text in (ruleset(), ruleset(BAND="PC >= 2 and distance_to_enemy <= 12"),
                 ruleset(BAND="P(d6 > PC) > 0.5", HELD="mean(d6) > PC")):
        result = compile_text(text, "sure.rules")
        assert result.ok, [(d.code, d.message) for d in result.diagnostics]


def test_a_worked_out_situation_on_a_die_roll_is_refused_at_its_condition() -> None:
    text = ruleset(BAND="d6 > 3")
    assert refusals(text) == [
        (*where(text, "d6 > 3"), "the situation 'band' depends on dice: its condition must be sure")]


def test_a_condition_that_calls_a_test_is_refused() -> None:
    text = ruleset(BAND="distance_to_enemy > 6 and steady(PC)")
    assert refusals(text) == [
        (*where(text, "distance_to_enemy > 6 and"), "the situation 'band' depends on dice: its condition must be sure")]


def test_a_situation_given_by_a_table_that_rolls_is_refused_at_the_call() -> None:
    text = ruleset(WEAR_ROW="size + d6 > 8")
    assert refusals(text) == [
        (*where(text, "wear_of(models)"), "the situation 'wear' depends on dice: its table must give one value")]


def test_a_status_held_while_engaged_on_a_die_roll_is_refused_at_its_condition() -> None:
    text = ruleset(HELD="foe.PC + d3 > PC")
    assert refusals(text) == [
        (*where(text, "foe.PC + d3"), "'pinned' held while engaged depends on dice: its condition must be sure")]


def test_the_engine_locates_its_own_refusal() -> None:
    """Past check (whose refusal the engine does not see), the engine stops at the condition."""
    text = ruleset(BAND="d6 > 3")
    result = compile_text(text, "sure.rules")
    m = result.rulesets[0]
    battle = Battle(Rules(m), m.get("s"), [RandomPolicy(1), RandomPolicy(2)], seed=0)
    with pytest.raises(ResolveError) as err:
        battle.run()
    assert err.value.message == "the situation 'band' depends on dice: its condition must be sure"
    assert err.value.span is not None and (err.value.span.line, err.value.span.column) == where(text, "d6 > 3")


def test_the_reference_shows_the_refusal_check_gives() -> None:
    text = (Path(__file__).resolve().parent.parent / "site" / "language.md").read_text(encoding="utf-8")
    shown = next(line.strip() for line in text.splitlines() if line.strip().startswith("error[W871]: "))
    text = ruleset(BAND="d6 > 3").replace("situation band ", "situation range_band ")  # the reference's name
    assert [f"error[W871]: {message}" for _, _, message in refusals(text)] == [shown]
