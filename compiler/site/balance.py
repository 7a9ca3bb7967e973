"""The Balance section of a Battles page: what a unit should cost for a scenario to be fair.

A site opts a scenario in from mkdocs.yml (the plugin's ``balance`` option)::

    balance:
      console-40k: {scenario: sample_battle, vary: space_marine.points=10..20, games: 400}

(a ruleset may list several such settings, one per scenario).  The section is the answer of
``warscribe balance`` for those settings with the page's seed (:func:`compiler.battle.balance.sweep`,
the same function): the win rate of the side fielding the profile at each value with its 95%
interval, drawn as a curve with its band and the fair value marked, and the same numbers in a
table.  The sweep is kept in warscribe's cache folder, keyed like the page's battles by the rules'
meaning (readers' text left out) and the settings, so a warm build plays no game.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Mapping

from compiler import ast as A
from compiler.ast.cached import remembered
from compiler.battle import POLICIES
from compiler.battle.balance import armies_at, fielding_side, parse_vary, sweep
from compiler.battle.rules import Rules
from compiler.battle.simulate import side_policies
from compiler.limits import MAX_GAMES
from compiler.model.ruleset import Ruleset
from compiler.site.charts import curve_chart

#: Battles at each value when a setting does not say.
GAMES = 400
_KEYS = frozenset({"scenario", "vary", "games", "policy"})


@dataclass(frozen=True)
class BalanceSetting:
    """One scenario's sweep, as mkdocs.yml asks for it."""

    ruleset: str
    scenario: str
    vary: str
    games: int = GAMES
    policy: str = "greedy"


def settings(raw: Mapping[Any, Any]) -> tuple[BalanceSetting, ...]:
    """The plugin's ``balance`` option read (``ValueError``, one sentence, when it is malformed):
    ``{ruleset id: {scenario, vary[, games][, policy]}}``, or a list of those per ruleset.

    >>> settings({"demo": {"scenario": "duel", "vary": "gunner.points=8..12", "games": 100}})
    (BalanceSetting(ruleset='demo', scenario='duel', vary='gunner.points=8..12', games=100, policy='greedy'),)
    >>> settings({"demo": {"vary": "gunner.points=8..12"}})
    Traceback (most recent call last):
    ...
    ValueError: balance: demo needs a scenario and vary, e.g. {scenario: sample_battle, vary: space_marine.points=10..20, games: 400}
    """
    out = []
    for rs_id, entries in raw.items():
        for entry in entries if isinstance(entries, list) else [entries]:
            if not isinstance(entry, dict) or not {"scenario", "vary"} <= set(entry) or not set(entry) <= _KEYS:
                raise ValueError(f"balance: {rs_id} needs a scenario and vary, e.g. {{scenario: sample_battle, "
                                 f"vary: space_marine.points=10..20, games: {GAMES}}}")
            games = entry.get("games", GAMES)
            if not isinstance(games, int) or isinstance(games, bool) or not 1 <= games <= MAX_GAMES:
                raise ValueError(f"balance: the games of {rs_id} are a whole number from 1 to {MAX_GAMES:,}")
            policy = str(entry.get("policy", "greedy"))
            if any(name not in POLICIES for name in policy.split(":")):
                raise ValueError(f"balance: the policy '{policy}' of {rs_id} is not one of {', '.join(POLICIES)}")
            out.append(BalanceSetting(str(rs_id), str(entry["scenario"]), str(entry["vary"]), games, policy))
    return tuple(out)


def check(found: tuple[BalanceSetting, ...], rulesets: Mapping[str, Ruleset]) -> None:
    """``ValueError`` (one sentence) for a setting that cannot be swept: an unknown ruleset or
    scenario, a ``vary`` that ``warscribe balance`` refuses, too many games."""
    seen = set()
    for s in found:
        rs = rulesets.get(s.ruleset)
        if rs is None:
            raise ValueError(f"balance: there is no ruleset '{s.ruleset}' in the rules folder")
        sc = rs.get(s.scenario)
        if not isinstance(sc, A.Scenario):
            raise ValueError(f"balance: ruleset '{s.ruleset}' has no scenario '{s.scenario}'")
        if (s.ruleset, s.scenario) in seen:
            raise ValueError(f"balance: scenario '{s.scenario}' of {s.ruleset} is given twice")
        seen.add((s.ruleset, s.scenario))
        side_policies(s.policy, len(sc.sides))
        vary = parse_vary(s.vary, rs)
        fielding_side(sc, vary)
        for value in vary.values:
            armies_at(rs, sc, vary, value)
        if s.games * len(vary.values) > MAX_GAMES:
            raise ValueError(f"balance: {s.games:,} games at each of {len(vary.values)} values of {s.ruleset} "
                             f"is more than the {MAX_GAMES:,} one sweep may play")


@dataclass(frozen=True)
class BalancePoint:
    value: int
    models: int
    rate: float
    low: float
    high: float


@dataclass(frozen=True)
class BalanceView:
    """The section: the sweep's settings in words, its points, the fair value, the chart."""

    profile: str  # the varied profile's title
    side: str  # the title of the side that fields it
    vary: str
    games: int
    seed: int
    policy: str
    points: tuple[BalancePoint, ...]
    fair: float | None
    fair_low: float | None
    fair_high: float | None
    svg: str
    command: str  # the `warscribe balance` command line (run in the rules folder) that gives the same answer


def balance_view(rs: Ruleset, rules: Rules, sc: A.Scenario, key: str, setting: BalanceSetting,
                 seed: int) -> BalanceView:
    """The Balance section of ``sc`` for ``setting`` (``key``: the digest of the rules' meaning)."""
    vary = parse_vary(setting.vary, rs)
    stored = f"{rs.id}\0{sc.id}\0{key}\0{setting.vary}\0{setting.games}\0{seed}\0{setting.policy}".encode()
    out: dict[str, Any] = remembered(
        "balance", stored,
        lambda: sweep(rs.folder, rs, sc, vary, setting.games, seed, policy=setting.policy, rules=rules),
        lambda found: isinstance(found, dict) and isinstance(found.get("points"), list))
    side = next(s.title for s in sc.sides if s.id == out["side"])
    profile = getattr(rs.get(vary.profile), "title", vary.profile)
    points = tuple(BalancePoint(p["value"], p["models"], p["win_rate"], p["ci95"][0], p["ci95"][1])
                   for p in out["points"])
    fair = out["fair"]
    svg = curve_chart([(p.value, p.rate, p.low, p.high) for p in points],
                      f"The win rate of {side} by the points of one {profile}", x_label=f"points of one {profile}",
                      mark=None if fair is None else fair["value"],
                      mark_label="" if fair is None else f"fair: {fair['value']:g}")
    folder = PurePath(rs.folder).name
    folder = folder if re.fullmatch(r"[\w.-]+", folder) else rs.id
    command = (f"warscribe balance {folder} {sc.id} --vary {vary.text} --games {setting.games} --seed {seed}"
               + (f" --policy {setting.policy}" if setting.policy != "greedy" else ""))
    return BalanceView(profile, side, vary.text, setting.games, seed, setting.policy, points,
                       None if fair is None else fair["value"], None if fair is None else fair["ci95"][0],
                       None if fair is None else fair["ci95"][1], svg, command)
