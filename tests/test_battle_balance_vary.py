"""``--vary`` read strictly: a step of 0 or less, a range that holds no value of a point or more,
an unknown profile and one without points each get one sentence; a good sweep its values."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compiler.battle.balance import MAX_VALUES, parse_vary
from compiler.driver import compile_text

RULES = '''
ruleset sweep "Sweep":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
unit trooper "Trooper":
  BS 4  W 1
  points 10
unit drone "Drone":
  BS 4  W 1
'''


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_text(RULES, "sweep.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    return result.rulesets[0]


@pytest.mark.parametrize("text,message", [
    ("trooper.points=1..5:0", "the step must be a whole number above 0"),
    ("trooper.points=1..5:-2", "the step must be a whole number above 0"),
    ("trooper.points=-5..0", "holds no value of 1 point or more"),
    ("drone.points=1..5", "'drone' has no points to vary"),
    ("sniper.points=1..5", "'sniper' is not a unit profile of sweep"),
    ("trooper.cost=1..5", "write PROFILE.points=LO..HI"),
    (f"trooper.points=1..{MAX_VALUES + 1}", f"{MAX_VALUES + 1} values is more than the {MAX_VALUES}"),
])
def test_a_sweep_that_cannot_be_run_gets_one_sentence(model: Any, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")) as err:
        parse_vary(text, model)
    assert str(err.value).startswith(f"--vary {text}")


def test_a_sweep_lists_its_values_from_one_point_up(model: Any) -> None:
    vary = parse_vary("trooper.points = -2..9:3", model)
    assert (vary.profile, vary.values) == ("trooper", (1, 4, 7))
    assert parse_vary(f"trooper.points=1..{MAX_VALUES}", model).values == tuple(range(1, MAX_VALUES + 1))


def test_a_sweep_played_from_built_rules_plays_the_games_a_run_plays() -> None:
    """``sweep`` with the rules already built (one job) and without them (the ruleset compiled again
    at its path, each value's games run): the same games, the same answer; the progress reported
    counts every value's games, those of a value whose lists an earlier value played too, either way."""
    import compiler
    from compiler.battle import Rules
    from compiler.battle.balance import sweep

    path = str(Path(__file__).resolve().parent.parent / "rules" / "console-40k")
    console = compiler.compile_paths([path]).rulesets[0]
    sc = console.get("sample_battle")
    vary = parse_vary("space_marine.points=13..15", console)  # 70 points buy 5, 5 and 4 marines
    told: list[int] = []
    built = sweep(path, console, sc, vary, 12, 3, rules=Rules(console), progress=told.append)
    run: list[int] = []
    assert built == sweep(path, console, sc, vary, 12, 3, progress=run.append)
    assert told == [24]  # the second value's lists are the first's: its 12 games counted without a run
    assert run == [12, 24, 36]  # each value's run tells its games after those of the values before it
    assert [p["models"] for p in built["points"]] == [5, 5, 4]


def test_a_battle_no_side_can_win_is_a_draw_at_every_value_and_has_no_fair_value(model: Any) -> None:
    """Troopers with no weapon on either side: every game ends at the turn limit, a draw — a draw
    rate of 1 and win rates of 0 at each value, and no value where the rate crosses 50 %."""
    from compiler.battle import Rules
    from compiler.battle.balance import sweep

    text = RULES + '''game g "A game":
  turns 1
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation
attack shooting(shooter, weapon, target) "Shooting":
  hits = shooter.models each 1
  killed = hits removes target
scenario stand "A standoff":
  game g
  distance 12"
  side red "Red":
    2 trooper
  side blue "Blue":
    2 trooper
'''
    result = compile_text(text, "sweep.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    standoff = result.rulesets[0]
    vary = parse_vary("trooper.points=5..10:5", standoff)
    out = sweep("", standoff, standoff.get("stand"), vary, 7, 1, rules=Rules(standoff))
    assert [(p["value"], p["models"], p["win_rate"], p["draw_rate"]) for p in out["points"]] == \
        [(5, 4, 0.0, 1.0), (10, 2, 0.0, 1.0)]
    assert out["fair"] is None
