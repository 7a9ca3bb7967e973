"""What the greedy policy reads of moves and objectives: each step of a move toward an objective or
the enemy weighed at what it gains in objectives (worked out here from the control rule: the side
whose models within 3" outnumber the other's holds it), a move that must give an objective up,
whether a move is worth making at all (its best step 0" or not), a volley weighed at each enemy's
own distance, and the enemies in sight looked at again after a move."""
from __future__ import annotations

import pytest

from compiler.battle import Battle, GreedyPolicy, Node, Rules
from compiler.driver import compile_text

RULES = '''
ruleset steps "Steps":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
situation range_band "Range band" one of short, long
test hit(BS) = roll d6 >= BS
modifier long_range "Long range": hit needs 6+ when range_band is long
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
  points 10
game g "A game":
  turns 1
  activation whole_army
  control within 3" by models
  situation range_band is long when distance_to_enemy > 6, otherwise short
{phases}
  score held "Objective held": 2 for each objective held at end of turn
  victory first_to_ten "First to ten" by reaching 10
scenario field "A field":
  game g
  distance 24"
  first red
{objectives}
  side red "Red":
{red}
  side blue "Blue":
{blue}
'''

MOVE = '  phase move "Movement":\n    action {name} "Go": move up to 6" toward {goal}'
FIRE = '  phase fire "Shooting":\n    action shoot "Shoot": attack shooting'


def root(phases: str, objectives: str, red: str, blue: str) -> Node:
    text = RULES.format(phases=phases, objectives=objectives, red=red, blue=blue)
    result = compile_text(text, "steps.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("field"))


def estimates(node: Node) -> list[float]:
    choice = node.choice()
    assert choice is not None and choice.estimates is not None
    return list(choice.estimates())


def steps_of(node: Node) -> list[float]:
    """The estimates of how far the first unit's move goes (its first action taken)."""
    how_far = node.child(0)
    choice = how_far.choice()
    assert choice is not None and choice.kind == "move"
    assert [o.label for o in choice.options] == [f'{d}"' for d in range(7)]
    return estimates(how_far)


def held(x: float, marker: float) -> bool:
    return abs(x - marker) <= 3


@pytest.mark.parametrize("red,relic,way", [(10, 4, -1), (0, 6, 1)])
def test_each_step_toward_an_objective_weighs_taking_it(red: int, relic: int, way: int) -> None:
    """Red goes toward the relic, behind it (at 4", Red at 10") or ahead (at 6", Red at 0"): from
    3" on it stands within 3" of it and holds it (2 points), and each inch nearer adds a millionth."""
    node = root(MOVE.format(name="take", goal="the nearest objective"), f'  objective relic "The relic" at {relic}"',
                f'    5 trooper at {red}"', '    5 trooper at 24"')
    want = [2.0 * held(red + way * d, relic) + 1e-6 * d for d in range(7)]
    assert want[2] == pytest.approx(2e-6) and want[3] == pytest.approx(2 + 3e-6)
    assert steps_of(node) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_a_step_that_leaves_one_objective_for_another_counts_both() -> None:
    """Red at 12" holds the mill at 13"; going toward the relic at 4" gives the mill up after 2"
    and takes the relic from 5" on."""
    node = root(MOVE.format(name="take", goal="objective relic"),
                '  objective relic "The relic" at 4"\n  objective mill "The mill" at 13"',
                '    5 trooper at 12"', '    5 trooper at 24"')
    want = [2.0 * (held(12 - d, 4) - 0) + 2.0 * (held(12 - d, 13) - 1) + 1e-6 * d for d in range(7)]
    assert [round(w) for w in want] == [0, 0, 0, -2, -2, 0, 0]
    assert steps_of(node) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_one_enemy_model_on_the_objective_contests_one_model() -> None:
    """A lone trooper cannot take the relic from a lone enemy trooper standing on it (one model
    each: not more than the other's): no step gains anything but the inches."""
    node = root(MOVE.format(name="take", goal="the nearest objective"), '  objective relic "The relic" at 4"',
                '    1 trooper at 10"', '    1 trooper at 4"')
    assert steps_of(node) == pytest.approx([1e-6 * d for d in range(7)], rel=1e-12, abs=1e-12)


def test_each_step_toward_an_enemy_on_the_left_weighs_the_objective_on_the_way() -> None:
    """Blue stands at 2", left of Red at 16"; the relic at 10" is held from a move of 3" on.  Nothing
    can shoot, so a step is worth what it gains, less a millionth per inch."""
    node = root(MOVE.format(name="go", goal="the enemy"), '  objective relic "The relic" at 10"',
                '    5 trooper at 16"', '    5 trooper at 2"')
    want = [2.0 * held(16 - d, 10) - 1e-6 * d for d in range(7)]
    assert steps_of(node) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_a_move_whose_best_step_gives_an_objective_up_is_worth_no_less_than_nothing_gained() -> None:
    """Red at 10" holds the mill at 12"; Blue at 0".  Closing to 6" (a 4" move) makes its shots hit
    on 4+ instead of 6 (five shots at 10 points a model: 25 against 25/3), worth giving the mill up
    (2 points): the move is the best step, and what the move takes in objectives counts as nothing,
    not as the 2 lost (the shots are weighed when they are taken)."""
    node = root(MOVE.format(name="go", goal="the enemy") + "\n" + FIRE, '  objective mill "The mill" at 12"',
                '    5 trooper at 10"', '    5 trooper at 0"')
    assert [o.label for o in node.choice().options] == ["Go", "Nothing"]  # type: ignore[union-attr]
    steps = steps_of(node)
    shots = [25.0 if 10 - d <= 6 else 25 / 3 for d in range(7)]
    want = [shots[d] + 2.0 * (held(10 - d, 12) - 1) - 1e-6 * d for d in range(7)]
    assert steps == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert max(range(7), key=lambda d: want[d]) == 4
    assert estimates(node) == pytest.approx([1e-3, 0.0], rel=1e-12, abs=1e-12)


def test_a_volley_is_weighed_at_each_enemys_own_distance() -> None:
    """Two like units of Blue, the first 10" away (hit on a 6), the second 4" away (on a 4+): the
    shot is worth the nearer one's 25 points, not the first one's 25/3."""
    node = root(FIRE, "", '    5 trooper at 10"', '    5 trooper at 0"\n    5 trooper at 6"')
    assert [o.label for o in node.choice().options] == ["Shoot", "Nothing"]  # type: ignore[union-attr]
    assert estimates(node) == pytest.approx([25.0, 0.0], rel=1e-12)


@pytest.mark.parametrize("red,worth", [
    ('6"', -1e-3),  # already at short range: no inch gains anything, and a step back would lose it
    ('7"', 1e-3),   # one inch brings the shots to short range
    ('10"', -1e-3),  # 3" leaves them at long range: an inch more would not be a step of this move
])
def test_a_move_is_worth_taking_only_when_its_best_step_is_not_to_stay(red: str, worth: float) -> None:
    """A move of up to 3" toward Blue, then shots that hit on 4+ from 6" or nearer (on a 6 beyond):
    from 7" the best step is 1" (the move is worth a little: the shots are weighed when taken);
    from 6" and from 10" it is 0" (holding still beats a move that gains nothing)."""
    node = root(MOVE.format(name="go", goal="the enemy").replace('6"', '3"') + "\n" + FIRE, "",
                f'    5 trooper at {red}', '    5 trooper at 0"')
    assert [o.label for o in node.choice().options] == ["Go", "Nothing"]  # type: ignore[union-attr]
    assert estimates(node) == pytest.approx([worth, 0.0], rel=1e-12, abs=1e-12)


def test_the_enemies_in_sight_are_looked_at_again_once_the_unit_has_moved() -> None:
    """On a table, Red behind a wall has nobody in sight; the greedy player moves it 6" (every step
    is worth as much: the longest), past the wall and 2" from Blue, then shoots: the shot is weighed
    at Blue in sight where Red now stands, not at the view from where it weighed its move."""
    text = RULES.format(phases=MOVE.format(name="go", goal="the enemy") + "\n" + FIRE, objectives="",
                        red='    5 trooper at 2", 6"', blue='    5 trooper at 10", 6"')
    text = text.replace('  control within 3" by models\n', '  control within 3" by models\n  terrain wall "Wall": blocks sight\n')
    text = text.replace('  distance 24"\n', '  table 24" by 12"\n  terrain ruin "The ruin" wall from 5", 0" to 6", 12"\n')
    result = compile_text(text, "steps.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    red = [(e["event"], e.get("inches", e.get("action"))) for e in battle.events
           if e["side"] == "red" and e["event"] in ("action", "move")]
    assert red[:3] == [("action", "go"), ("move", 6), ("action", "shoot")]


def test_a_move_that_works_out_at_no_inches_is_worth_less_than_holding_still() -> None:
    """A move of ``BS - 5`` inches is none for a trooper (BS 4): from 7" the inch that would bring
    its shots to short range is not a step it has, so the move is worth less than nothing."""
    node = root(MOVE.format(name="go", goal="the enemy").replace('6"', 'BS - 5') + "\n" + FIRE, "",
                '    5 trooper at 7"', '    5 trooper at 0"')
    assert [o.label for o in node.choice().options] == ["Go", "Nothing"]  # type: ignore[union-attr]
    assert estimates(node) == pytest.approx([-1e-3, 0.0], rel=1e-12, abs=1e-12)


def test_a_destroyed_unit_on_the_objective_contests_nothing() -> None:
    """Control by presence: Blue's squad on the relic is destroyed (no models left, where it fell);
    each step of Red's move toward the relic weighs taking it as if nobody stood there."""
    text = RULES.format(phases=MOVE.format(name="take", goal="the nearest objective"),
                        objectives='  objective relic "The relic" at 4"', red='    5 trooper at 10"',
                        blue='    5 trooper at 24"\n    5 trooper at 4"').replace(
        'control within 3" by models', 'control within 3" by presence')
    result = compile_text(text, "steps.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    red, _, fallen = battle.state.units
    effect = model.get("g").phases[0].actions[0].effects[0]
    assert battle.estimates.goal_steps(red, effect, 6) == pytest.approx([1e-6 * d for d in range(7)], abs=1e-12)
    fallen.models = 0
    want = [2.0 * held(10 - d, 4) + 1e-6 * d for d in range(7)]
    assert battle.estimates.goal_steps(red, effect, 6) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_a_move_toward_the_enemy_is_worth_the_objective_its_best_step_takes() -> None:
    """Blue at 2", Red at 16", the relic at 10": nothing can shoot, and the move's best step (3",
    the shortest that holds the relic) takes it: the move is worth its 2 points (and the little a
    move that is made is worth), doing nothing 0."""
    node = root(MOVE.format(name="go", goal="the enemy"), '  objective relic "The relic" at 10"',
                '    5 trooper at 16"', '    5 trooper at 2"')
    assert [o.label for o in node.choice().options] == ["Go", "Nothing"]  # type: ignore[union-attr]
    assert max(range(7), key=lambda d: steps_of(node)[d]) == 3
    assert estimates(node) == pytest.approx([2.0 + 1e-3, 0.0], rel=1e-12, abs=1e-12)
