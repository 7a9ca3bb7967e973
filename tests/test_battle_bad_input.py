"""Scenarios that cannot be played are refused by `check`, each with a located sentence, within
the documented limits: an army of a million models, an objective walled in by impassable ground,
more terrain than a table takes (overlapping deployment zones and a table of a million inches:
tests/test_battle_table.py).  And the free ground `check` reads is exact: it agrees with a walk
over every half inch of a small table."""
from __future__ import annotations

from collections import deque

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.check.ground import Ground
from compiler.driver import compile_text
from compiler.limits import MAX_COUNT, MAX_TERRAIN_AREAS

RULES = '''
ruleset walls "Walls":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
game hold "Hold":
  turns 2
  activation whole_army
  control within 3" by models
  terrain lake "Lake": impassable
  phase move "Movement":
    action advance "Advance": move up to 6" toward the enemy
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  score held "Held": 1 for each objective held at end of turn
  victory most "Most points" by highest_score
scenario field "A field":
  game hold
  table 48" by 48"
{terrain}
  objective relic "The relic" at 24", 24"
  side red "Red":
    {red} trooper at 4", 4"
  side blue "Blue":
    5 trooper at 44", 44"
'''

#: a square moat round the relic (24", 24"), a 1" bank on each side, 6" of dry ground inside
MOAT = ('  terrain south "South bank" lake from 16", 16" to 32", 17"\n'
        '  terrain north "North bank" lake from 16", 31" to 32", 32"\n'
        '  terrain west "West bank" lake from 16", 16" to 17", 32"\n'
        '  terrain east "East bank" lake from 31", 16" to 32", 32"')


def errors(terrain: str = "", red: int = 5) -> list[tuple[str, int, str]]:
    result = compile_text(RULES.format(terrain=terrain, red=red), "walls.rules")
    return [(d.code, d.span.line, d.message) for d in result.diagnostics if d.severity.name == "ERROR"]


def line_of(text: str, terrain: str = "") -> int:
    return RULES.format(terrain=terrain, red=5).split("\n").index(text) + 1


def test_the_open_field_is_accepted() -> None:
    assert errors() == []


def test_a_million_models_are_refused_on_the_side_that_fields_them() -> None:
    found = errors(red=1_000_000)
    assert any(code == "W903" and line == line_of('  side red "Red":')
               and f"side 'red' fields 1,000,000 models; a battle counts at most {MAX_COUNT:,} models a side" in m
               for code, line, m in found), found


def test_an_objective_walled_in_by_impassable_ground_is_refused() -> None:
    found = errors(MOAT)
    assert found == [("W864", line_of('  objective relic "The relic" at 24", 24"', MOAT),
                      "objective 'relic' cannot be held: impassable terrain keeps every unit more than 3\" from it")]


def test_a_way_through_the_wall_or_a_wall_within_reach_lets_the_objective_be_held() -> None:
    gap = MOAT.replace('from 16", 16" to 32", 17"', 'from 18", 16" to 32", 17"')  # the south-west corner open
    assert errors(gap) == []
    # a moat 1" from the relic: ground outside it is within 3"
    tight = '\n'.join(line.replace('16"', '21"').replace('17"', '22"').replace('31"', '26"').replace('32"', '27"')
                      for line in MOAT.split('\n'))
    assert errors(tight) == []
    # a unit inside the moat can walk to it (and hold it), though nobody outside can
    inside = RULES.format(terrain=MOAT, red=5).replace('5 trooper at 4", 4"', '5 trooper at 20", 20"')
    assert [d.message for d in compile_text(inside, "walls.rules").diagnostics if d.severity.name == "ERROR"] == []


def test_more_terrain_areas_than_a_table_takes_are_refused_at_the_first_too_many() -> None:
    pieces = [f'  terrain rock{k} "Rock" lake from {k % 40}", {40 + k // 40}" to {k % 40}", {40 + k // 40}"'
              for k in range(MAX_TERRAIN_AREAS + 1)]
    text = RULES.format(terrain="\n".join(pieces), red=5)
    result = compile_text(text, "walls.rules")
    found = [(d.code, d.span.line, d.message) for d in result.diagnostics if d.severity.name == "ERROR"]
    first_over = text.split("\n").index(pieces[MAX_TERRAIN_AREAS]) + 1
    assert found == [("W864", first_over, f"{MAX_TERRAIN_AREAS + 1:,} terrain areas is more than warscribe plays on "
                                          f"one table ({MAX_TERRAIN_AREAS:,})")]
    assert errors("\n".join(pieces[:MAX_TERRAIN_AREAS])) == []


# -- the free ground, against a walk over every half inch ------------------------------------

SIZE = 8


def lattice_reach(blocks: list[tuple[int, int, int, int]], start: tuple[float, float]) -> set[tuple[float, float]]:
    """Every point of the half-inch lattice a walk from ``start`` reaches, never standing in a
    block (with integer corners, a half-inch step between two free points crosses no block)."""
    def free(p: tuple[float, float]) -> bool:
        return not any(x0 <= p[0] <= x1 and y0 <= p[1] <= y1 for x0, y0, x1, y1 in blocks)
    if not free(start):
        return set()
    seen, todo = {start}, deque([start])
    while todo:
        x, y = todo.popleft()
        for p in ((x - .5, y), (x + .5, y), (x, y - .5), (x, y + .5)):
            if 0 <= p[0] <= SIZE and 0 <= p[1] <= SIZE and p not in seen and free(p):
                seen.add(p)
                todo.append(p)
    return seen


coord = st.integers(0, 2 * SIZE).map(lambda v: v / 2)
rect = st.tuples(st.integers(0, SIZE), st.integers(0, SIZE), st.integers(0, 3), st.integers(0, 3)).map(
    lambda r: (r[0], r[1], min(SIZE, r[0] + r[2]), min(SIZE, r[1] + r[3])))


@settings(max_examples=60, deadline=None)
@given(st.lists(rect, max_size=6), st.tuples(coord, coord), st.tuples(coord, coord))
@example([(0, 0, 1, 1), (0, 0, 2, 0)], (0, 1.5), (0.5, 0))  # free ground just off a corner: (1+, 0+)
def test_the_free_ground_is_the_ground_a_walk_reaches(blocks: list[tuple[int, int, int, int]],
                                                      start: tuple[float, float], goal: tuple[float, float]) -> None:
    ground = Ground(SIZE, SIZE, [tuple(map(float, b)) for b in blocks])  # type: ignore[misc]
    walked = lattice_reach(blocks, start)
    goal_free = not any(x0 <= goal[0] <= x1 and y0 <= goal[1] <= y1 for x0, y0, x1, y1 in blocks)
    if goal_free:
        assert ground.near([start], goal[0], goal[1], 0) == (goal in walked)
    # within a reach: the nearest half-inch point walked to is as near as the nearest free ground,
    # to within the half-inch grid's coarseness: every free point lies within half an inch of a
    # walked point along a line between two blocks, and within half a diagonal (√2 / 2) of one
    # inside a free square whose corner touches two blocks (free ground just off the corner where
    # a block's side meets another's, which no half-inch point stands on)
    if walked:
        nearest = min(((p[0] - goal[0]) ** 2 + (p[1] - goal[1]) ** 2) ** .5 for p in walked)
        assert ground.near([start], goal[0], goal[1], nearest + 1e-9)
        assert not ground.near([start], goal[0], goal[1], nearest - 0.5 * 2 ** .5 - 1e-9)
    else:
        assert not ground.near([start], goal[0], goal[1], 2 * SIZE)
