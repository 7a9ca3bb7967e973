"""The battle log: one JSON object a line, and the replay that plays it back to the same battle.

The first line says what was played (ruleset, scenario, seed); then one line per event, in
order; the last line holds every answer given at a choice point.  The dice come from the seed
and the answers from the log, so :func:`replay` plays exactly the same battle, whoever (or
whatever policy) answered the first time.
"""
from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator, TextIO

from compiler import ast as A
from compiler.battle.streams import stream
from compiler.battle.engine import Battle, Listener
from compiler.battle.policies import ScriptedPolicy, ScriptError
from compiler.battle.rules import Rules
from compiler.limits import MAX_LOG_BYTES, MAX_LOG_EVENTS, MAX_LOG_LINE

FORMAT = "warscribe-battle-log"
#: The version a log is written in: 2 since each battle's dice are its seed's SplitMix64 stream
#: (:mod:`compiler.battle.streams`); a log of version 1 (dice from Python's Mersenne Twister) is
#: read and replayed on its own dice.
VERSION = 2
READS = (1, 2)


@dataclass(frozen=True, slots=True)
class Log:
    """A battle log as read back."""

    ruleset: str
    scenario: str
    seed: int
    events: tuple[str, ...]  # each event as canonical JSON text (keys sorted): a tenth of the memory of dicts
    choices: tuple[int, ...]
    path: str | None = None  # the ruleset's folder as the battle was played from (logs since it was added)
    lines: tuple[int, ...] = ()  # the line of each event in the file
    version: int = VERSION  # the version it was written in (its dice: :func:`compiler.battle.streams.stream`)


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
    """A file that is not a battle log, or one for another ruleset (the message names the line)."""


#: Nesting of lists and objects one logged event may hold (events hold flat values and short lists).
_MAX_DEPTH = 8
#: Characters of one text in a log (ids, titles, statuses).
_MAX_TEXT = 10_000
#: The largest whole number a log may hold (a seed is 64 bits; counts are far smaller).
_MAX_INT = 2**64
#: The largest answer at a choice point.
_MAX_CHOICE = 1_000_000


def _checked(value: Any, where: str, depth: int = 0) -> None:
    """Refuse (``LogError``) what no battle logs: deep nesting, huge numbers, long texts."""
    if depth > _MAX_DEPTH:
        raise LogError(f"{where} is nested more than {_MAX_DEPTH} levels deep")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if not -_MAX_INT < value < _MAX_INT:
            raise LogError(f"{where} holds a number too large for a battle log")
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise LogError(f"{where} holds a number that is not finite")
    elif isinstance(value, str):
        if len(value) > _MAX_TEXT:
            raise LogError(f"{where} holds a text longer than {_MAX_TEXT:,} characters")
    elif isinstance(value, list):
        for item in value:
            _checked(item, where, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _checked(key, where, depth + 1)
            _checked(item, where, depth + 1)


def _row(text: str, n: int) -> dict[str, Any]:
    where = f"line {n}"
    try:
        row = json.loads(text)
    except RecursionError:
        raise LogError(f"{where} is nested too deeply to be a battle log") from None
    except json.JSONDecodeError as err:
        raise LogError(f"{where} is not JSON: {str(err).splitlines()[0][:200]}") from None
    except ValueError:  # a number of more digits than Python converts
        raise LogError(f"{where} holds a number of more than {sys.get_int_max_str_digits():,} digits, which no "
                       f"battle log has") from None
    if not isinstance(row, dict):
        raise LogError(f"{where} is not a JSON object")
    _checked(row, where)
    return row


def _text(row: dict[str, Any], key: str, n: int) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value:
        raise LogError(f"line {n}: '{key}' should be a name (text), not {json.dumps(value)[:60]}")
    return value


def read_log(lines: Iterable[str]) -> Log:
    """A log read from its lines (each checked as it comes: :class:`LogError` names the first bad one)."""
    head: dict[str, Any] | None = None
    events: list[str] = []
    numbers: list[int] = []
    tail: tuple[int, dict[str, Any]] | None = None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if tail is not None:
            raise LogError(f"line {n}: the log goes on after its list of choices (line {tail[0]})")
        row = _row(line, n)
        if head is None:
            if row.get("format") != FORMAT:
                raise LogError("not a warscribe battle log (its first line should name the format)")
            if row.get("version") not in READS or isinstance(row.get("version"), bool):
                raise LogError(f"line {n}: a battle log of version {json.dumps(row.get('version'))[:20]}; "
                               f"this warscribe reads versions {' and '.join(map(str, READS))}")
            head = row
            head["_line"] = n
            continue
        if "choices" in row and "event" not in row:
            tail = (n, row)
            continue
        if not isinstance(row.get("event"), str):
            raise LogError(f"line {n}: an event should name its kind (\"event\": \"...\")")
        if len(events) >= MAX_LOG_EVENTS:
            raise LogError(f"line {n}: the log has more than {MAX_LOG_EVENTS:,} events")
        events.append(json.dumps(row, sort_keys=True, ensure_ascii=False))
        numbers.append(n)
    if head is None:
        raise LogError("not a warscribe battle log (its first line should name the format)")
    if tail is None:
        raise LogError("the battle log is cut short: its last line should list the choices")
    n0 = int(head["_line"])
    seed = head.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < _MAX_INT:
        raise LogError(f"line {n0}: 'seed' should be a whole number from 0 to 2**64 - 1")
    choices = tail[1]["choices"]
    if not isinstance(choices, list) or not all(isinstance(c, int) and not isinstance(c, bool)
                                                and 0 <= c < _MAX_CHOICE for c in choices):
        raise LogError(f"line {tail[0]}: 'choices' should be a list of answers (whole numbers from 0)")
    path = head.get("path")
    return Log(_text(head, "ruleset", n0), _text(head, "scenario", n0), seed, tuple(events), tuple(choices),
               path if isinstance(path, str) else None, tuple(numbers), int(head["version"]))


def open_log(path: Path) -> Log:
    """The battle log in the file ``path``, streamed: refused (:class:`LogError`) when the file is
    over :data:`~compiler.limits.MAX_LOG_BYTES` before a byte is read, or when a stream (a pipe,
    a device) or a line grows past its limit while read."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > MAX_LOG_BYTES:
            raise LogError(f"the file is {st.st_size:,} bytes, more than the {MAX_LOG_BYTES:,} a battle log may have")
        return read_log(_lines(f))


def _lines(f: BinaryIO) -> Iterator[str]:
    total = 0
    n = 0
    while True:
        raw = f.readline(MAX_LOG_LINE + 1)
        if not raw:
            return
        n += 1
        total += len(raw)
        if total > MAX_LOG_BYTES:
            raise LogError(f"line {n}: the log runs past the {MAX_LOG_BYTES:,} bytes a battle log may have")
        if len(raw) > MAX_LOG_LINE:
            raise LogError(f"line {n} is longer than the {MAX_LOG_LINE:,} bytes a line of a battle log may have")
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            raise LogError(f"line {n} is not UTF-8 text") from None


class ReplayMismatch(LogError):
    """The battle played again from a log does not give the logged events (the message says where)."""


def _short(event_json: str) -> str:
    return event_json if len(event_json) <= 160 else event_json[:157] + "..."


def replay(rules: Rules, log: Log, listener: Listener | None = None,
           before: Callable[[Battle], None] | None = None) -> Battle:
    """Play the logged battle again: the same seed, the logged answers (``before`` sees the
    battle before its first move, as a caller of :class:`Battle` would).  Each event is compared
    with the logged one as it happens, before ``listener`` sees it: the first that differs stops
    the replay with :class:`ReplayMismatch` naming its line; so do a log that goes on after the
    replay ends and answers the replay never asked for."""
    if rules.model.id != log.ruleset:
        raise LogError(f"the log is of ruleset '{log.ruleset}', not '{rules.model.id}'")
    scenario = rules.model.get(log.scenario)
    if not isinstance(scenario, A.Scenario):
        raise LogError(f"ruleset '{rules.model.id}' has no scenario '{log.scenario}'")
    script = ScriptedPolicy(log.choices)
    seen = 0  # events compared so far

    def line(i: int) -> str:
        return f"line {log.lines[i]}" if i < len(log.lines) else f"event {i + 1}"

    def compare(event: dict[str, Any]) -> None:
        nonlocal seen
        i = seen
        seen += 1
        text = json.dumps(event, sort_keys=True, ensure_ascii=False)
        if i >= len(log.events):
            raise ReplayMismatch(f"the replay parts from the log after its last event: it goes on with {_short(text)}")
        if text != log.events[i]:
            raise ReplayMismatch(f"the replay parts from the log at {line(i)}: the log has {_short(log.events[i])}, "
                                 f"the replay {_short(text)}")
        if listener is not None:
            listener(event)

    # a log written for people carries each volley's dice: drawn again, the same, from the seed
    dice = any('"event": "volley"' in e and ('"dice": [' in e or '"dice_note": ' in e) for e in log.events)
    battle = Battle(rules, scenario, [script] * len(scenario.sides), log.seed, listener=compare, dice=dice,
                    draws=stream(log.seed, log.version))
    if before is not None:
        before(battle)
    try:
        battle.run()
    except ScriptError as err:
        raise ReplayMismatch(f"the replay parts from the log at {line(seen)}: {err}") from None
    if seen < len(log.events):
        raise ReplayMismatch(f"the replay ends before the log does: the log goes on at {line(seen)} with "
                             f"{_short(log.events[seen])}")
    if script.position < len(log.choices):
        raise ReplayMismatch(f"the log lists {len(log.choices)} answers but the replay asked for {script.position}")
    return battle
