"""A status a rule links counts as running in battle only when what it does took effect in the
games played for coverage — an action it took from a unit, a reaction it allowed, a modifier its
condition turned on — never merely because the battles set it."""
from __future__ import annotations

import pytest

from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.battle.ran import ran_in_battle
from compiler.driver import compile_text
from compiler.model.ruleset import Ruleset
from compiler.resolve.coverage import coverage

RULES = '''ruleset bracing "Bracing":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
status braced "Braced": "Dug in, the unit holds its fire."
situation aiming "Aiming": "The unit took a moment to aim."
test hit(BS) = roll d6 >= 7 - BS
modifier steady_aim "Steady aim": +1 to hit when aiming
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit marine "Marine":
  BS 3  W 1
game volley "A volley":
  turns 2
  activation whole_army
{phases}
  victory wipe "Annihilation" by annihilation
rule holding_fire "Holding fire":
  """A [[braced]] unit does not fire."""
rule aimed_fire "Aimed fire":
  """A unit that is [[aiming]] hits more often."""
scenario line "A line":
  game volley
  distance 20"
  first blue
  side blue "Blue":
    5 marine
  side red "Red":
    5 marine
example plain "Plain":
  expect P(hit(3)) = 1/3
'''

FIRE = '''  phase fire "Fire":
    action shoot "Shoot": attack shooting unless braced
'''
BRACE = '''  phase brace "Brace":
    must action dig_in "Dig in": sets braced until end of turn
'''
AIM = '''  phase aim "Aim":
    must action take_aim "Take aim": sets aiming until end of turn
'''


def model_of(phases: str) -> Ruleset:
    result = compile_text(RULES.format(phases=phases), "bracing.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def statuses_set(model: Ruleset) -> set[str]:
    battle = Battle(Rules(model), model.get("line"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    return {e["status"] for e in battle.events if e["event"] == "status"}


def test_a_status_set_too_late_to_do_anything_only_links() -> None:
    """Braced after firing, lapsing at the end of the turn: every unit digs in, yet no unit is ever
    kept from shooting, so the rule linking the status only links; aiming after firing likewise
    never turns the modifier on."""
    model = model_of(FIRE + BRACE + AIM)
    assert {"braced", "aiming"} <= statuses_set(model)  # the battles set both
    ran = ran_in_battle(model, games=2)
    assert "braced" not in ran and "aiming" not in ran and "steady_aim" not in ran
    cov = coverage(model, ran)
    assert "holding_fire" in cov.links_only and "holding_fire" not in cov.in_battle
    assert "aimed_fire" in cov.links_only and "aimed_fire" not in cov.in_battle


def test_a_status_that_takes_an_action_away_runs_in_battle() -> None:
    """Braced before the fire phase: the unit holding it is not offered Shoot (the action it
    removes), and the rule linking it runs in battle."""
    model = model_of(BRACE + FIRE)
    ran = ran_in_battle(model, games=1)
    assert "braced" in ran
    cov = coverage(model, ran)
    assert "holding_fire" in cov.in_battle and "holding_fire" not in cov.links_only
    assert "aimed_fire" in cov.unmarked and "aimed_fire" not in cov.driving  # nothing here sets aiming


def test_a_status_a_modifier_reads_runs_in_battle_when_the_modifier_changed_a_number() -> None:
    """Aiming before the fire phase: each volley is worked out with the modifier its condition
    turns on, so the status runs in battle (through the modifier the resolver applied)."""
    model = model_of(AIM + FIRE)
    assert isinstance(model.get("steady_aim"), A.Modifier)
    ran = ran_in_battle(model, games=1)
    assert {"steady_aim", "aiming"} <= ran and "braced" not in ran
    cov = coverage(model, ran)
    assert "aimed_fire" in cov.in_battle and "holding_fire" in cov.unmarked


STAYS = '''  phase brace "Brace":
    must action dig_in "Dig in": sets braced
'''
SHOOT = '''  phase fire "Fire":
    action shoot "Shoot": attack shooting
'''


@pytest.mark.parametrize("phases,extra", [
    (STAYS + SHOOT, ""),  # set and held, read by nothing: not applied
    (STAYS + SHOOT, "  when shot if braced: attack shooting\n"),  # a reaction the status allows
    (STAYS + SHOOT, "  when shot unless braced: attack shooting\n"),  # a reaction the status bars
    (STAYS + SHOOT.replace("attack shooting", "attack shooting at enemies not braced"), ""),  # an enemy it spares
    (STAYS + '''  phase move "Move":
    action advance "Advance": move up to step(braced) toward the enemy
''' + SHOOT, ""),  # an expression worked out for the unit reads it
    (STAYS + SHOOT + "  activation dice 1..2 of hit(BS), bust on 2 failures, 1 fewer actions when braced\n", "dice"),
])
def test_each_way_a_status_takes_effect_is_traced(phases: str, extra: str) -> None:
    text = RULES.format(phases=phases + (extra if extra != "dice" else "")).replace(
        "attack shooting(", 'formula step(held) "Step" = if held then 1 else 6\nattack shooting(')
    if extra == "dice":  # fewer actions from the activation dice for a unit holding it
        text = text.replace("activation whole_army", "activation activation_rolls")
    result = compile_text(text, "bracing.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    ran = ran_in_battle(model, games=1)
    applies = bool(extra) or "not braced" in phases or "step(braced)" in phases
    assert ("braced" in ran) is applies
    assert ("holding_fire" in coverage(model, ran).in_battle) is applies


COUNTER = '''  counter pins: rises by 1 when shot, falls by 1 at end of game turn
'''


@pytest.mark.parametrize("read", [False, True])
def test_a_counter_counts_when_something_read_it_not_when_it_rose(read: bool) -> None:
    """Pins rise on every unit shot; a rule linking them runs in battle only when a modifier of
    their amount (``-pins BS``) changed a number, here the next volley of a pinned unit."""
    text = RULES.format(phases=SHOOT + COUNTER).replace(
        'rule holding_fire', 'situation pins "Pins" 0..6: "Fire taken."\nrule pinning "Pinning":\n'
        '  """Each volley at a unit adds to its [[pins]]."""\nrule holding_fire', 1)
    if read:
        text = text.replace("attack shooting(", 'modifier pinned_aim "Pinned": -pins BS\nattack shooting(', 1)
    result = compile_text(text, "pins.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("line"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    assert any(e["event"] == "counter" and e["counter"] == "pins" and e["change"] > 0 for e in battle.events)
    ran = ran_in_battle(model, games=1)
    assert ("pins" in ran) is read
    cov = coverage(model, ran)
    assert ("pinning" in cov.in_battle) is read and ("pinning" in cov.links_only) is not read



def test_a_counter_read_by_its_own_rise_runs_in_battle() -> None:
    """``rises by 1 + pins when shot``: each rise, worked out for the unit shot, reads its pins; the
    counter runs in battle with nothing else reading it (compare the test above, unread)."""
    text = RULES.format(phases=SHOOT + COUNTER.replace("rises by 1 when", "rises by 1 + pins when")).replace(
        'rule holding_fire', 'situation pins "Pins" 0..6: "Fire taken."\nrule pinning "Pinning":\n'
        '  """Each volley at a unit adds to its [[pins]]."""\nrule holding_fire', 1)
    result = compile_text(text, "pins.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    ran = ran_in_battle(model, games=1)
    assert "pins" in ran and "pinning" in coverage(model, ran).in_battle
