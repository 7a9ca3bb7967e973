"""The battle log read back (:func:`compiler.battle.read_log`): what it keeps, each limit at its
bound, the line each refusal names; and the replay of a small battle's log, with where it parts
from a log that was changed."""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, LogError, Rules, read_log, replay, write_log
from compiler.battle import log as battle_log
from compiler.battle.log import ReplayMismatch, is_log, open_log
from compiler.driver import compile_text

HEAD = {"format": "warscribe-battle-log", "version": 2, "ruleset": "r", "scenario": "s", "seed": 5}


def lines(*events: dict[str, Any], head: dict[str, Any] | None = None, choices: Any = (1, 0)) -> list[str]:
    rows = [HEAD if head is None else head, *events, {"choices": list(choices) if isinstance(choices, tuple) else choices}]
    return [json.dumps(r) for r in rows]


def refused(text_lines: list[str]) -> str:
    with pytest.raises(LogError) as err:
        read_log(text_lines)
    return str(err.value)


def test_a_log_keeps_its_head_its_events_in_canonical_form_their_lines_and_its_choices() -> None:
    text = lines({"z": 1, "event": "start", "a": "é"}, {"event": "end"}, head={**HEAD, "path": "rules/x"})
    log = read_log([text[0], "", text[1], "  ", text[2], text[3]])
    assert (log.ruleset, log.scenario, log.seed, log.path, log.version) == ("r", "s", 5, "rules/x", 2)
    assert log.events == ('{"a": "é", "event": "start", "z": 1}', '{"event": "end"}')
    assert log.lines == (3, 5) and log.choices == (1, 0)  # blank lines counted, not kept
    assert read_log(lines(head={**HEAD, "version": 1})).version == 1
    assert read_log(lines(head={**HEAD, "path": 7})).path is None


def test_each_limit_of_a_log_holds_at_its_bound() -> None:
    big = 2**64
    assert read_log(lines(head={**HEAD, "seed": big - 1})).seed == big - 1
    assert refused(lines(head={**HEAD, "seed": big})) == "line 1 holds a number too large for a battle log"
    for seed in (-1, "5", True, 5.0):
        assert refused(lines(head={**HEAD, "seed": seed})) == "line 1: 'seed' should be a whole number from 0 to 2**64 - 1"
    assert read_log(lines({"event": "x", "n": big - 1, "m": 1 - big})).events
    for n in (big, -big):
        assert refused(lines({"event": "x", "n": n})) == "line 2 holds a number too large for a battle log"
    assert read_log(lines(choices=(999_999, 0))).choices == (999_999, 0)
    for bad in ((1_000_000,), (-1,), (True,), (1.0,)):
        assert refused(lines(choices=bad)) == "line 2: 'choices' should be a list of answers (whole numbers from 0)"
    assert "line 2: 'choices'" in refused(lines(choices=3))
    deep: Any = "leaf"
    for _ in range(7):  # the event is depth 0: seven lists down, the leaf is at depth 8
        deep = [deep]
    assert read_log(lines({"event": "x", "d": deep})).events
    assert refused(lines({"event": "x", "d": [deep]})) == "line 2 is nested more than 8 levels deep"
    assert refused(lines({"event": "x", "d": {"k": deep}})) == "line 2 is nested more than 8 levels deep"
    assert read_log(lines({"event": "x", "t": "a" * 10_000})).events
    assert refused(lines({"event": "x", "t": "a" * 10_001})) == "line 2 holds a text longer than 10,000 characters"
    assert refused(lines({"event": "x", "k" * 10_001: 1})) == "line 2 holds a text longer than 10,000 characters"
    assert read_log(lines({"event": "x", "f": 1.5, "b": True, "z": None})).events
    for text in ("NaN", "Infinity", "-Infinity"):
        row = '{"event": "x", "f": ' + text + "}"
        assert refused([lines()[0], row, lines()[1]]) == "line 2 holds a number that is not finite"


def test_the_events_a_log_may_hold_are_counted_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(battle_log, "MAX_LOG_EVENTS", 2)
    assert len(read_log(lines({"event": "a"}, {"event": "b"})).events) == 2
    assert refused(lines({"event": "a"}, {"event": "b"}, {"event": "c"})) == "line 4: the log has more than 2 events"


def test_each_refusal_names_its_line() -> None:
    ok = lines({"event": "a"})
    assert refused([*ok, ok[1]]) == "line 4: the log goes on after its list of choices (line 3)"
    assert refused(["", *ok[:1], '{"turn": 1}', ok[2]]) == 'line 3: an event should name its kind ("event": "...")'
    assert refused([ok[0], "[1]", ok[2]]) == "line 2 is not a JSON object"
    assert refused([ok[0], "{", ok[2]]).startswith("line 2 is not JSON: ")
    assert refused(ok[:2]) == "the battle log is cut short: its last line should list the choices"
    assert refused([]) == refused(['{"format": "other"}']) == \
        "not a warscribe battle log (its first line should name the format)"
    assert refused(lines(head={**HEAD, "version": 3})) == \
        "line 1: a battle log of version 3; this warscribe reads versions 1 and 2"
    assert "version true" in refused(lines(head={**HEAD, "version": True}))
    assert refused(lines(head={**HEAD, "scenario": ""})) == "line 1: 'scenario' should be a name (text), not \"\""
    assert refused(["", *lines(head={**HEAD, "ruleset": 5})]) == "line 2: 'ruleset' should be a name (text), not 5"


def test_a_file_starts_like_a_log_only_with_the_format_named_on_its_first_line() -> None:
    head = json.dumps(HEAD).encode()
    assert is_log(head + b"\n{}") and is_log(head)
    assert not is_log(b'{"format": "other"}\n' + head)
    assert not is_log(b"[1, 2]") and not is_log(b"not json") and not is_log(b"\n" + head)


def test_a_log_file_is_read_line_by_line_to_its_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "\n".join(lines({"event": "a"})) + "\n"
    path = tmp_path / "b.jsonl"
    path.write_text(text, "utf-8")
    assert open_log(path).events == ('{"event": "a"}',)
    size = len(text.encode())
    monkeypatch.setattr(battle_log, "MAX_LOG_BYTES", size)
    assert open_log(path).choices == (1, 0)  # exactly at the limit
    monkeypatch.setattr(battle_log, "MAX_LOG_BYTES", size - 1)
    with pytest.raises(LogError, match=f"the file is {size:,} bytes, more than the {size - 1:,}"):
        open_log(path)
    longest = max(len(x.encode()) + 1 for x in text.splitlines())  # with its newline
    monkeypatch.setattr(battle_log, "MAX_LOG_BYTES", 10**6)
    monkeypatch.setattr(battle_log, "MAX_LOG_LINE", longest)
    assert open_log(path).events
    monkeypatch.setattr(battle_log, "MAX_LOG_LINE", longest - 1)
    with pytest.raises(LogError, match=r"^line 1 is longer than the"):
        open_log(path)
    path.write_bytes(text.encode() + b"\xff\n")
    monkeypatch.setattr(battle_log, "MAX_LOG_LINE", 10**6)
    with pytest.raises(LogError, match="^line 4 is not UTF-8 text$"):
        open_log(path)


DUEL = '''
ruleset logged "Logged":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each weapon.A
  hits = shots each hit(shooter.BS)
  killed = hits removes target
weapon rifle "Rifle":
  A 1
unit trooper "Trooper":
  BS 4  W 1
  weapons rifle
game g "A game":
  turns 3
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wiped_out "Wiped out" by annihilation: "A side with no models left loses."
scenario duel "A duel":
  game g
  distance 12"
  first red
  side red "Red":
    3 trooper
  side blue "Blue":
    3 trooper
'''


@pytest.fixture(scope="module")
def written() -> tuple[Rules, list[str]]:
    result = compile_text(DUEL, "logged.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    rules = Rules(model)
    sc = model.get("duel")
    assert isinstance(sc, A.Scenario)
    battle = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], 4)
    battle.run()
    out = io.StringIO()
    write_log(out, battle, model.id, 4, path="here")
    return rules, out.getvalue().splitlines()


def test_a_written_log_replays_event_by_event_to_its_listener(written: tuple[Rules, list[str]]) -> None:
    rules, text = written
    head = json.loads(text[0])
    assert head == {"format": "warscribe-battle-log", "version": 2, "ruleset": "logged", "scenario": "duel",
                    "seed": 4, "path": "here"}
    log = read_log(text)
    heard: list[dict[str, Any]] = []
    seated: list[Battle] = []
    battle = replay(rules, log, heard.append, seated.append)
    assert [json.dumps(e, sort_keys=True, ensure_ascii=False) for e in heard] == list(log.events)
    assert seated == [battle] and battle.choices == list(log.choices) and len(log.choices) > 1


def mismatch(rules: Rules, text: list[str]) -> str:
    with pytest.raises(ReplayMismatch) as err:
        replay(rules, read_log(text))
    return str(err.value)


def test_a_replay_names_where_it_parts_from_a_changed_log(written: tuple[Rules, list[str]]) -> None:
    rules, text = written
    row = json.loads(text[3])
    row["changed"] = "x" * 200
    changed = [*text[:3], json.dumps(row), *text[4:]]
    said = mismatch(rules, changed)
    assert said.startswith("the replay parts from the log at line 4: the log has ")
    assert "x" * 120 + "..., the replay " in said and "x" * 160 not in said  # the long event cut short
    for size, shown in ((160, "whole"), (161, "cut")):  # an event of 160 characters is shown whole
        row["changed"] = ""
        row["changed"] = "x" * (size - len(json.dumps(row, sort_keys=True, ensure_ascii=False)))
        logged = json.dumps(row, sort_keys=True, ensure_ascii=False)
        assert len(logged) == size
        said = mismatch(rules, [*text[:3], logged, *text[4:]])
        assert (f"the log has {logged}, the replay " in said) == (shown == "whole")
        assert (f"the log has {logged[:157]}..., the replay " in said) == (shown == "cut")
    # an event left out: the replay's next event is not the log's next line
    assert mismatch(rules, ["", *text[:3], *text[4:]]).startswith("the replay parts from the log at line 5: ")
    assert mismatch(rules, [*text[:-2], text[-1]]).startswith(
        "the replay parts from the log after its last event: it goes on with ")
    assert mismatch(rules, [*text[:-1], text[-2], text[-1]]).startswith(
        f"the replay ends before the log does: the log goes on at line {len(text)} with ")
    more = json.loads(text[-1])["choices"] + [0, 0]
    assert mismatch(rules, [*text[:-1], json.dumps({"choices": more})]) == \
        f"the log lists {len(more)} answers but the replay asked for {len(more) - 2}"
    fewer = json.loads(text[-1])["choices"][:-1]
    assert mismatch(rules, [*text[:-1], json.dumps({"choices": fewer})]).startswith("the replay parts from the log at ")
    with pytest.raises(LogError, match="^the log is of ruleset 'other', not 'logged'$"):
        replay(rules, read_log([json.dumps({**json.loads(text[0]), "ruleset": "other"}), *text[1:]]))
    with pytest.raises(LogError, match="^ruleset 'logged' has no scenario 'gone'$"):
        replay(rules, read_log([json.dumps({**json.loads(text[0]), "scenario": "gone"}), *text[1:]]))
