"""House-rule judgements that say how sure they are: ``simulate OVERLAY --against BASE``.

Each side's change in win rate comes with Newcombe's 95% interval and a verdict — more wins,
fewer wins, or no clear change (the interval holds 0) — and names the policy it was made under.
``--policies greedy,random`` makes the judgement under each policy (the same games, the same
seeds) and flags a side whose change goes one way under one policy and the other way under
another: a result that flips with the players is not one to publish.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from compiler.cli.common import say

if TYPE_CHECKING:
    from compiler import ast as A
    from compiler.battle.simulate import Armies


def verdict(change: dict[str, Any]) -> str:
    """"more wins", "fewer wins" or "no clear change", by the change's 95% interval."""
    lo, hi = change["ci95"]
    return "more wins" if lo > 0 else "fewer wins" if hi < 0 else "no clear change"


def judged(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each side's change with its verdict."""
    return [{**c, "verdict": verdict(c)} for c in changes]


def judge(path: str, against: str, sc: A.Scenario, names: Sequence[str], games: int, seed: int, jobs: int,
          scheduler: str | None, armies: Armies) -> list[dict[str, Any]]:
    """The judgement under each policy of ``names``: ``[{"policy", "change": [...]}]``."""
    from compiler.battle import run
    from compiler.battle.simulate import against as change

    rows = []
    for name in names:
        overlay = run(path, sc, games, seed, jobs, name, scheduler=scheduler, armies=armies)
        base = run(against, sc, games, seed, jobs, name, scheduler=scheduler, armies=armies)
        rows.append({"policy": name, "change": judged(change(sc, overlay, base))})
    return rows


def flags(rows: list[dict[str, Any]]) -> list[str]:
    """The sides whose change goes up under one policy and down under another (by the estimate)."""
    out: list[str] = []
    if not rows:
        return out
    for k, first in enumerate(rows[0]["change"]):
        signs = {(r["change"][k]["change"] > 0) - (r["change"][k]["change"] < 0) for r in rows}
        if 1 in signs and -1 in signs:
            out.append(first["id"])
    return out


def print_judgements(rows: list[dict[str, Any]], flagged: list[str], titles: dict[str, str]) -> None:
    say("  under each policy:")
    for r in rows:
        parts = []
        for c in r["change"]:
            lo, hi = c["ci95"]
            parts.append(f"{titles.get(c['id'], c['id'])} {c['change'] * 100:+.1f} points "
                         f"(95% CI {lo * 100:+.1f} to {hi * 100:+.1f}: {c['verdict']})")
        say(f"    {r['policy']}: " + "; ".join(parts))
    for side in flagged:
        say(f"  warning: the change for {titles.get(side, side)} goes one way under one policy and the other way "
            f"under another: the judgement depends on how the sides play")
