"""Points that balance: a profile's points swept over a range, the armies rebuilt within the
scenario's points at each value, each side's win rate measured, and the fair value found.

At each value the units of the varied profile keep the points they were given in the scenario
(their models times the profile's own points) and field as many models as that buys at the new
value — more models when the profile is cheaper, fewer when it is dearer.  Every value plays the
same games (the same seeds: game ``i`` of the run), so the curve moves only with the points; values
whose points buy the same lists (the same numbers of models) share one run of those games.
The fair value is where the side's win rate crosses 50%, between the two values around it
(linear interpolation); its interval is where the upper and the lower 95% bounds cross 50%.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable

from compiler import ast as A
from compiler.battle.rules import Rules
from compiler.battle.simulate import Armies, Tally, play_games, run, with_armies
from compiler.battle.stats import wilson
from compiler.limits import MAX_COUNT, MAX_GAMES
from compiler.model.ruleset import Ruleset

_VARY = re.compile(r"^([A-Za-z_]\w*)\.points=(-?\d{1,9})\.\.(-?\d{1,9})(?::(-?\d{1,9}))?$")
#: Values one sweep may try.
MAX_VALUES = 200


@dataclass(frozen=True)
class Vary:
    """``PROFILE.points=LO..HI[:STEP]``."""

    profile: str
    values: tuple[int, ...]
    text: str


def parse_vary(text: str, model: Ruleset) -> Vary:
    """The sweep ``text`` asks for (``ValueError``, one sentence, when it cannot be run)."""
    m = _VARY.match(text.replace(" ", ""))
    if m is None:
        raise ValueError(f"--vary {text}: write PROFILE.points=LO..HI or PROFILE.points=LO..HI:STEP, "
                         f"e.g. space_marine.points=10..20")
    name, lo, hi, step = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4) or 1)
    profile = model.profiles.get(name)
    if profile is None or profile.kind != "unit":
        raise ValueError(f"--vary {text}: '{name}' is not a unit profile of {model.id}")
    if profile.points is None:
        raise ValueError(f"--vary {text}: '{name}' has no points to vary; give it `points N` first")
    if step <= 0:
        raise ValueError(f"--vary {text}: the step must be a whole number above 0")
    values = tuple(range(max(lo, 1), hi + 1, step))
    if not values:
        raise ValueError(f"--vary {text}: the range {lo}..{hi} holds no value of 1 point or more")
    if len(values) > MAX_VALUES:
        raise ValueError(f"--vary {text}: {len(values)} values is more than the {MAX_VALUES} one sweep may try")
    return Vary(name, values, text)


def armies_at(model: Ruleset, sc: A.Scenario, vary: Vary, value: int) -> Armies:
    """Every side's army list with the varied profile's units rebuilt at ``value`` points a model."""
    base = model.profiles[vary.profile].points
    assert base is not None
    out = []
    for side in sc.sides:
        units = []
        for u in side.units:
            if u.name == vary.profile:
                count = min(MAX_COUNT, u.count * base // value)
                if count:
                    units.append(dataclasses.replace(u, count=count))
            else:
                units.append(u)
        if not units:
            raise ValueError(f"--vary {vary.text}: at {value} points a model the {u.count * base} points of "
                             f"'{side.id}' buy no {vary.profile}, and the side has nothing else: its army is empty")
        out.append((side.id, tuple(units)))
    return tuple(out)


def fielding_side(sc: A.Scenario, vary: Vary) -> int:
    """The first side that fields the varied profile (``ValueError`` when none does)."""
    for k, side in enumerate(sc.sides):
        if any(u.name == vary.profile for u in side.units):
            return k
    raise ValueError(f"--vary {vary.text}: no side of scenario '{sc.id}' fields '{vary.profile}'")


def crossing(values: list[int], rates: list[float]) -> float | None:
    """Where ``rates`` (at ``values``) cross 0.5, linearly between the two values around it."""
    for (v0, r0), (v1, r1) in zip(zip(values, rates), zip(values[1:], rates[1:])):
        if r0 == 0.5:
            return float(v0)
        if (r0 - 0.5) * (r1 - 0.5) < 0:
            return v0 + (0.5 - r0) * (v1 - v0) / (r1 - r0)
    if values and rates[-1] == 0.5:
        return float(values[-1])
    return None


def fair_value(values: list[int], rates: list[float], lows: list[float],
               highs: list[float]) -> dict[str, Any] | None:
    """The fair value (where ``rates`` cross 50%) and its 95% interval (where the ``lows`` and the
    ``highs``, the bounds of each rate, cross 50%); None when the rates do not cross.

    A bound that does not cross in the range leaves the interval open at that end: on a falling
    curve (the last rate no higher than the first) the lower bound crosses before the rate and the
    upper bound after, so a lower bound that does not cross opens it to the first value and an upper
    bound to the last; on a rising curve the other way round."""
    fair = crossing(values, rates)
    if fair is None:
        return None
    falling = rates[-1] <= rates[0]
    low = crossing(values, lows)
    high = crossing(values, highs)
    if low is None:
        low = float(values[0] if falling else values[-1])
    if high is None:
        high = float(values[-1] if falling else values[0])
    return {"value": round(fair, 3), "ci95": [round(min(fair, low, high), 3), round(max(fair, low, high), 3)]}


def _rate(x: float) -> float:
    """A rate or a bound as the answer gives it (and the fair value is worked out from): to six decimals."""
    return round(x, 6)


def _after(progress: Callable[[int], None], done: int) -> Callable[[int], None]:
    """``progress`` told the games of one value after the ``done`` of the values before it."""
    return lambda n: progress(done + n)


def sweep(path: str, model: Ruleset, sc: A.Scenario, vary: Vary, games: int, seed: int, jobs: int = 1,
          policy: str = "greedy", scheduler: str | None = None,
          progress: Callable[[int], None] | None = None, rules: Rules | None = None) -> dict[str, Any]:
    """The JSON answer of ``warscribe balance``: each value's win rate (of the side that fields the
    profile) with its interval, every side's rates, and the fair value with its interval.

    With ``rules`` (those of ``model``, already built) and one job, the games are played here from
    them rather than from the ruleset compiled again at ``path``: the same games, the same answer."""
    if games * len(vary.values) > MAX_GAMES:
        raise ValueError(f"{games:,} games at each of {len(vary.values)} values is more than the {MAX_GAMES:,} "
                         f"one run may play")
    side = fielding_side(sc, vary)
    lists = [armies_at(model, sc, vary, v) for v in vary.values]  # every value checked before any game
    points: list[dict[str, Any]] = []
    rates: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    played: dict[Armies, Tally] = {}  # values whose points buy the same lists play the same games
    for i, (value, armies) in enumerate(zip(vary.values, lists)):
        tally = played.get(armies)
        if tally is not None:  # the same lists as at a value before (the points buy as many models)
            if progress is not None:
                progress((i + 1) * games)
        elif rules is not None and jobs <= 1 and scheduler is None:
            tally = played[armies] = play_games(rules, with_armies(sc, armies), policy, seed, 0, games)
        else:
            tally = played[armies] = run(path, sc, games, seed, jobs, policy, scheduler=scheduler, armies=armies,
                                         progress=None if progress is None else _after(progress, i * games))
        lo, hi = wilson(tally.wins[side], tally.games)
        models = {sid: sum(u.count for u in units if u.name == vary.profile) for sid, units in armies}
        rate = _rate(tally.wins[side] / tally.games)
        points.append({"value": value, "models": models[sc.sides[side].id], "win_rate": rate,
                       "ci95": [_rate(lo), _rate(hi)],
                       "sides": [{"id": s.id, "win_rate": _rate(tally.wins[k] / tally.games)}
                                 for k, s in enumerate(sc.sides)],
                       "draw_rate": _rate(tally.draws / tally.games)})
        rates.append(rate)
        lows.append(_rate(lo))
        highs.append(_rate(hi))
    fair = fair_value(list(vary.values), rates, lows, highs)
    return {"ruleset": model.id, "scenario": sc.id, "vary": vary.text, "profile": vary.profile,
            "side": sc.sides[side].id, "games": games, "seed": seed, "policy": policy, "points": points,
            "fair": fair}
