"""The battle log: one JSON object a line, and the replay that plays it back to the same battle.

The first line says what was played (ruleset, scenario, seed); then one line per event, in
order; the last line holds every answer given at a choice point.  The dice come from the seed
and the answers from the log, so :func:`replay` plays exactly the same battle, whoever (or
whatever policy) answered the first time.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TextIO

from compiler import ast as A
from compiler.battle.engine import Battle, Listener
from compiler.battle.policies import ScriptedPolicy
from compiler.battle.rules import Rules

FORMAT = "warscribe-battle-log"
VERSION = 1


@dataclass(frozen=True, slots=True)
class Log:
    """A battle log as read back."""

    ruleset: str
    scenario: str
    seed: int
    events: tuple[dict[str, Any], ...]
    choices: tuple[int, ...]
    path: str | None = None  # the ruleset's folder as the battle was played from (logs since it was added)


def write_log(out: TextIO, battle: Battle, ruleset: str, seed: int, path: str | None = None) -> None:
    """Write ``battle`` (already played) as JSON lines; ``path``, the ruleset's folder, lets a
    replay find the rules by itself."""
    head: dict[str, Any] = {"format": FORMAT, "version": VERSION, "ruleset": ruleset,
                            "scenario": battle.scenario.id, "seed": seed}
    if path is not None:
        head["path"] = path
    out.write(json.dumps(head, sort_keys=True) + "\n")
    for event in battle.events:
        out.write(json.dumps(event, sort_keys=True, ensure_ascii=False) + "\n")
    out.write(json.dumps({"choices": battle.choices}) + "\n")


def is_log(head: bytes) -> bool:
    """Does a file start like a battle log (its first line naming the format)?"""
    first = head.split(b"\n", 1)[0]
    try:
        row = json.loads(first)
    except ValueError:
        return False
    return isinstance(row, dict) and row.get("format") == FORMAT


class LogError(ValueError):
    """A file that is not a battle log, or one for another ruleset."""


def read_log(lines: Iterable[str]) -> Log:
    """A log read from its lines."""
    rows = [json.loads(line) for line in lines if line.strip()]
    if not rows or rows[0].get("format") != FORMAT:
        raise LogError("not a warscribe battle log (its first line should name the format)")
    head, tail = rows[0], rows[-1]
    if "choices" not in tail:
        raise LogError("the battle log is cut short: its last line should list the choices")
    path = head.get("path")
    return Log(str(head["ruleset"]), str(head["scenario"]), int(head["seed"]), tuple(rows[1:-1]),
               tuple(int(c) for c in tail["choices"]), str(path) if isinstance(path, str) else None)


def replay(rules: Rules, log: Log, listener: Listener | None = None,
           before: Callable[[Battle], None] | None = None) -> Battle:
    """Play the logged battle again: the same seed, the logged answers (``before`` sees the
    battle before its first move, as a caller of :class:`Battle` would)."""
    if rules.model.id != log.ruleset:
        raise LogError(f"the log is of ruleset '{log.ruleset}', not '{rules.model.id}'")
    scenario = rules.model.get(log.scenario)
    if not isinstance(scenario, A.Scenario):
        raise LogError(f"ruleset '{rules.model.id}' has no scenario '{log.scenario}'")
    script = ScriptedPolicy(log.choices)
    battle = Battle(rules, scenario, [script] * len(scenario.sides), log.seed, listener=listener)
    if before is not None:
        before(battle)
    battle.run()
    return battle
