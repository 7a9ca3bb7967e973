"""``warscribe balance``: points swept, armies rebuilt within the scenario's points, the fair value."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.battle.balance import armies_at, crossing, fair_value, parse_vary
from compiler.cli import app

ROOT = Path(__file__).resolve().parent.parent
CONSOLE = str(ROOT / "rules" / "console-40k")
SWEEP = ["balance", CONSOLE, "--vary", "space_marine.points=12..18:3", "--games", "250", "--seed", "4", "-q",
         "--json"]


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.output


@pytest.fixture(scope="module")
def console():  # type: ignore[no-untyped-def]
    import compiler
    return compiler.compile_paths([CONSOLE]).rulesets[0]


def test_the_armies_are_rebuilt_within_the_scenario_points(console) -> None:  # type: ignore[no-untyped-def]
    sc = console.get("sample_battle")
    vary = parse_vary("space_marine.points=10..20", console)
    assert vary.values == tuple(range(10, 21))
    # five marines at 14 points are 70 points: 7 models at 10 points, 4 at 15 (60), 3 at 20 (60)
    for value, models in ((10, 7), (14, 5), (15, 4), (20, 3)):
        lists = dict(armies_at(console, sc, vary, value))
        assert [u.count for u in lists["space_marines"]] == [models]
        assert [u.count for u in lists["orks"]] == [10]  # the other side is left as it is


def test_the_fair_value_is_where_the_rate_crosses_half() -> None:
    assert crossing([10, 12, 14], [0.9, 0.7, 0.3]) == 13.0
    assert crossing([10, 12], [0.6, 0.55]) is None
    assert crossing([10, 11, 12], [0.8, 0.5, 0.2]) == 11.0


XS = [10, 20, 30, 40]
FALLING = [0.8, 0.6, 0.3, 0.2]  # crosses 50 % at 20 + 1/3 × 10
RISING = FALLING[::-1]  # at 20 + 2/3 × 10


@pytest.mark.parametrize("rates,lows,highs,fair", [
    # falling: the lower bound crosses before the rate, the upper after; one that stays on its side
    # of 50 % leaves the interval open to the end of the range it would have crossed toward
    (FALLING, [0.45, 0.35, 0.2, 0.1], [0.95, 0.85, 0.7, 0.4], [23.333, 10.0, 36.667]),  # upper: 30 + 2/3 × 10
    (FALLING, [0.65, 0.45, 0.3, 0.1], [0.95, 0.85, 0.7, 0.6], [23.333, 17.5, 40.0]),  # lower: 10 + 3/4 × 10
    (FALLING, [0.45, 0.35, 0.2, 0.1], [0.95, 0.85, 0.7, 0.6], [23.333, 10.0, 40.0]),
    # rising: the other way round
    (RISING, [0.1, 0.2, 0.35, 0.45], [0.4, 0.7, 0.85, 0.95], [26.667, 13.333, 40.0]),  # upper: 10 + 1/3 × 10
    (RISING, [0.1, 0.3, 0.45, 0.65], [0.6, 0.7, 0.85, 0.95], [26.667, 10.0, 32.5]),  # lower: 30 + 1/4 × 10
    (RISING, [0.1, 0.2, 0.35, 0.45], [0.6, 0.7, 0.85, 0.95], [26.667, 10.0, 40.0]),
    # a rising curve whose first step falls (noise) is rising: its end is above its start
    ([0.3, 0.2, 0.6, 0.8], [0.1, 0.1, 0.35, 0.45], [0.45, 0.35, 0.8, 0.95], [27.5, 23.333, 40.0]),
    # a curve that ends where it began counts as falling: its lower bound opens it to the first value
    ([0.6, 0.4, 0.6, 0.6], [0.45, 0.2, 0.45, 0.45], [0.8, 0.45, 0.8, 0.8], [15.0, 10.0, 18.571]),
])
def test_a_bound_that_does_not_cross_half_leaves_the_fair_interval_open_at_its_end(
        rates: list[float], lows: list[float], highs: list[float], fair: list[float]) -> None:
    assert fair_value(XS, rates, lows, highs) == {"value": fair[0], "ci95": fair[1:]}


def test_rates_that_do_not_cross_half_have_no_fair_value() -> None:
    assert fair_value(XS, [0.9, 0.8, 0.7, 0.6], [0.8, 0.7, 0.6, 0.5], [0.95, 0.9, 0.8, 0.7]) is None


def test_a_sweep_of_exactly_the_most_games_a_run_may_play_is_not_refused_for_its_size(console) -> None:  # type: ignore[no-untyped-def]
    """Refused for its size only past the bound: at exactly MAX_GAMES the sweep goes on (here to the
    check of its values' armies, which refuses it before any game)."""
    from compiler.battle.balance import sweep
    from compiler.limits import MAX_GAMES

    sc = console.get("sample_battle")
    vary = parse_vary("space_marine.points=80..81", console)  # 70 points buy no marine at 80
    with pytest.raises(ValueError, match="its army is empty"):
        sweep(CONSOLE, console, sc, vary, MAX_GAMES // 2, 1)
    with pytest.raises(ValueError, match=f"{MAX_GAMES // 2 + 1:,} games at each of 2 values is more than the "
                                         f"{MAX_GAMES:,} one run may play"):
        sweep(CONSOLE, console, sc, vary, MAX_GAMES // 2 + 1, 1)


def test_a_sweep_gives_the_same_answer_for_any_number_of_workers() -> None:
    code, text = run(*SWEEP)
    assert code == 0, text
    out = json.loads(text)
    assert [p["value"] for p in out["points"]] == [12, 15, 18]
    assert [p["models"] for p in out["points"]] == [5, 4, 3]
    rates = [p["win_rate"] for p in out["points"]]
    assert rates[0] > 0.5 > rates[2] and rates[0] > rates[1] > rates[2]  # fewer marines, fewer wins
    i = 0 if rates[1] < 0.5 else 1  # the two values around the crossing
    x0, r0, r1 = (12, 15)[i], rates[i], rates[i + 1]
    fair = out["fair"]
    assert fair["value"] == pytest.approx(x0 + (0.5 - r0) * 3 / (r1 - r0), abs=1e-3)
    assert fair["ci95"][0] <= fair["value"] <= fair["ci95"][1]
    code, again = run(*SWEEP, "--jobs", "2", "--jobs-force")
    assert code == 0 and json.loads(again) == out
    code, table = run(*SWEEP[:-1])
    assert code == 0 and f"fair value: {fair['value']:g} points" in table


def test_a_sweep_on_a_dask_cluster_gives_the_same_answer() -> None:
    distributed = pytest.importorskip("dask.distributed")
    code, text = run(*SWEEP)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        code, on_cluster = run(*SWEEP, "--scheduler", cluster.scheduler_address)
    assert code == 0, on_cluster
    assert json.loads(on_cluster) == json.loads(text)


def test_bad_sweeps_are_refused_in_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "pointless.rules").write_text((ROOT / "tests" / "test_battle_exact.py").read_text()
                                              .split("DUEL = '''", 1)[1].split("'''", 1)[0])
    cases = [([CONSOLE, "--vary", "space_marine.points=10..12", "--policy", "clever"], "unknown policy 'clever'"),
             ([str(tmp_path), "--vary", "gunner.points=1..3"], "has no points to vary"),
             ([CONSOLE, "--vary", "space_marine.points=20..10"], "holds no value"),
             ([CONSOLE, "--vary", "space_marine.points=80..90"], "its army is empty"),
             ([CONSOLE, "--vary", "boltgun.points=1..2"], "not a unit profile"),
             ([CONSOLE, "--vary", "space_marine=1..2"], "write PROFILE.points=LO..HI")]
    for args, says in cases:
        code, text = run("balance", *args, "--games", "10")
        assert code == 2 and says in text and "Traceback" not in text, (args, text)


def test_values_that_buy_the_same_lists_share_one_run_with_its_own_answer(console) -> None:  # type: ignore[no-untyped-def]
    from compiler.battle.balance import sweep
    from compiler.battle.simulate import run as play

    sc = console.get("sample_battle")
    vary = parse_vary("space_marine.points=13..15", console)  # 70 points buy 5, 5 and 4 marines
    out = sweep(CONSOLE, console, sc, vary, 120, 3)
    assert [p["models"] for p in out["points"]] == [5, 5, 4]
    for value, point in zip(vary.values, out["points"]):
        alone = play(CONSOLE, sc, 120, 3, armies=armies_at(console, sc, vary, value))
        assert point["win_rate"] == round(alone.wins[0] / 120, 6)
        assert point["draw_rate"] == round(alone.draws / 120, 6)
        assert point["sides"] == [{"id": s.id, "win_rate": round(alone.wins[k] / 120, 6)} for k, s in enumerate(sc.sides)]
        assert 0 < alone.wins[1] < 120
