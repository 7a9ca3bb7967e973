"""What a ruleset's battles ran: the ids an event log names (strings only, never an empty one),
and the declarations a few greedy games of each scenario used, kept on the model."""
from __future__ import annotations

from compiler.battle.ran import ids_in, not_played, ran_in_battle
from compiler.driver import compile_text

RULES = '''
ruleset ran "Ran":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 2  W 1
game g "A game":
  turns 2
  activation whole_army
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  phase idle "Idle":
    action wait "Wait": move up to 0" toward the enemy
  victory wipe "Annihilation" by annihilation
scenario clash "A clash":
  distance 12"
  first red
  side red "Red":
    5 trooper
  side blue "Blue":
    5 trooper
'''


def test_an_event_log_names_strings_only_and_never_an_empty_one() -> None:
    events = [{"event": "volley", "phase": "fire", "rule": "", "action": 3, "score": "kills"},
              {"event": "turn", "phase": "", "reason": None}]
    assert ids_in(events) == {"fire", "kills"}


def test_the_games_of_a_scenario_that_names_no_game_run_the_rulesets_one_game() -> None:
    model = compile_text(RULES, "ran.rules").rulesets[0]
    ran = ran_in_battle(model, games=2)
    assert {"clash", "g", "fire", "shoot", "shooting", "hit", "wipe"} <= ran
    assert ran_in_battle(model, games=2) is ran  # kept on the model
    assert ran_in_battle(model, games=1) == ran  # asked again for other games: worked out again


# The engine cannot play it: the game's situation is settled by a die roll (check refuses that too,
# W871, and nothing else; the engine's own refusal is what coverage reports).
UNPLAYABLE = RULES.replace('stat W "Wounds" 1..10 role wounds\n',
                           'stat W "Wounds" 1..10 role wounds\nsituation band "Band" one of near, far\n').replace(
    "  activation whole_army\n", "  activation whole_army\n  situation band is far when d6 > 3, otherwise near\n")
#: Where the scenario the engine cannot play is written, and why it cannot.
UNPLAYED_AT = "ran.rules:%d:1" % (UNPLAYABLE.splitlines().index('scenario clash "A clash":') + 1)
UNPLAYED_WHY = "the situation 'band' depends on dice: its condition must be sure"


def test_a_scenario_the_engine_cannot_play_is_named_with_its_located_reason_not_dropped() -> None:
    comp = compile_text(UNPLAYABLE, "ran.rules")
    assert [d.code for d in comp.diagnostics if d.is_error] == ["W871"], comp.diagnostics
    model = comp.rulesets[0]
    ran = ran_in_battle(model, games=2)
    assert "clash" not in ran and "shoot" not in ran  # nothing of it was played ...
    assert not_played(model, games=2) == (("clash", f"{UNPLAYED_AT}: {UNPLAYED_WHY}"),)  # ... and that is said
    assert not_played(compile_text(RULES, "ran.rules").rulesets[0], games=1) == ()
