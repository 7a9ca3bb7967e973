"""Bounded work, refused up front: games and workers, replay logs, army lists, keep_highest.

Each hostile input ends in one sentence (exit status 2 for a bad input, 1 for a replay that
parts from its log), never a traceback, and before the work it would take."""
from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler import limits
from compiler.battle import simulate
from compiler.cli import app

ROOT = Path(__file__).resolve().parent.parent
CONSOLE = str(ROOT / "rules" / "console-40k")


def one_error(result: object, code: int) -> str:
    output = getattr(result, "output")
    assert getattr(result, "exit_code") == code, output
    assert "Traceback" not in output, output
    assert getattr(result, "exception") is None or isinstance(getattr(result, "exception"), SystemExit), output
    errors = [line for line in output.splitlines() if line.startswith(("warscribe: error:", "Error:"))]
    assert len(errors) == 1, output
    return errors[0]


# -- simulate ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, says", [(["--games", str(10**12)], "1000000"), (["--jobs", "10000"], "64")])
def test_simulate_refuses_too_many_games_or_workers(args: list[str], says: str) -> None:
    assert says in one_error(CliRunner().invoke(app, ["simulate", CONSOLE, *args]), 2)


def test_the_work_list_is_made_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cap lifted, a trillion games start at once: chunks are made as they are played."""
    class Enough(Exception):
        pass
    played: list[int] = []

    def chunk(job: simulate.Job) -> simulate.Tally:
        played.append(job[5])
        if len(played) == 3:
            raise Enough
        return simulate.Tally((0, 0), 0, 0, 0, (0, 0), 0.0)
    monkeypatch.setattr(simulate, "MAX_GAMES", 10**15)
    monkeypatch.setattr(simulate, "run_chunk", chunk)
    sc = type("Sc", (), {"id": "x", "sides": (1, 2)})()
    with pytest.raises(Enough):
        simulate.run("p", sc, 10**12, 1, jobs=1)  # type: ignore[arg-type]
    assert played == [0, simulate.CHUNK, 2 * simulate.CHUNK]
    with pytest.raises(ValueError, match="more than"):
        simulate.run("p", sc, 10**15 + 1, 1)  # type: ignore[arg-type]


def test_workers_never_exceed_the_work_or_the_cores() -> None:
    from compiler.cli.battle import workers

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    assert workers(60, 300, force=False) == min(2, cores)  # 300 games: two chunks of work
    assert workers(60, 300, force=True) == 2
    assert workers(60, 10**6, force=False) == cores
    assert workers(60, 10**6, force=True) == 60
    assert workers(1, 10**6, force=False) == 1


# -- replay logs -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def log_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("log") / "b.jsonl"
    result = CliRunner().invoke(app, ["play", CONSOLE, "--auto", "--seed", "5", "--log", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_text("utf-8").splitlines()


def replay(tmp_path: Path, data: bytes | str) -> object:
    path = tmp_path / "x.jsonl"
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return CliRunner().invoke(app, ["play", CONSOLE, "--replay", str(path)])


def _with(lines: list[str], index: int, **changes: object) -> str:
    row = json.loads(lines[index])
    row.update(changes)
    return "\n".join([*lines[:index], json.dumps(row), *lines[index + 1:]]) + "\n"


HOSTILE = {
    "seed a text": lambda L: _with(L, 0, seed="x"),
    "seed a boolean": lambda L: _with(L, 0, seed=True),
    "seed huge": lambda L: _with(L, 0, seed=10**30),
    "seed of 5,000 digits": lambda L: L[0].replace('"seed": 5', '"seed": ' + "9" * 5000) + "\n" + "\n".join(L[1:]),
    "ruleset a number": lambda L: _with(L, 0, ruleset=5),
    "version 3": lambda L: _with(L, 0, version=3),
    "version a boolean": lambda L: _with(L, 0, version=True),
    "choices texts": lambda L: _with(L, len(L) - 1, choices=["a"]),
    "choices negative": lambda L: _with(L, len(L) - 1, choices=[-1]),
    "choices a number": lambda L: _with(L, len(L) - 1, choices=10**30),
    "head a list": lambda L: "[1, 2]\n" + "\n".join(L[1:]),
    "an event without a kind": lambda L: _with(L, 1, event=7),
    "deep nesting": lambda L: "\n".join([L[0], "[" * 100_000 + "]" * 100_000, *L[1:]]),
    "nested event": lambda L: _with(L, 1, extra=json.loads("[" * 20 + "]" * 20)),
    "infinite number": lambda L: _with(L, 1, mean=1e308).replace("1e+308", "1e999"),
    "not UTF-8": lambda L: b"\xff\xfe" + "\n".join(L).encode(),
    "a line after the choices": lambda L: "\n".join([*L, L[1]]) + "\n",
    "cut short": lambda L: "\n".join(L[:-1]) + "\n",
    "empty": lambda L: "",
    "a long line": lambda L: "\n".join([L[0], '{"event": "x", "t": "' + "a" * limits.MAX_LOG_LINE + '"}', *L[1:]]),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_log_is_one_sentence(name: str, log_lines: list[str], tmp_path: Path) -> None:
    error = one_error(replay(tmp_path, HOSTILE[name](log_lines)), 2)
    assert "cannot replay" in error


def test_a_huge_log_is_refused_by_its_size_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(1 << 30)  # a sparse gigabyte
    result = CliRunner().invoke(app, ["play", CONSOLE, "--replay", str(big)])
    assert "more than the 64,000,000" in one_error(result, 2)


def test_a_stream_is_cut_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from compiler.battle import LogError, log

    monkeypatch.setattr(log, "MAX_LOG_BYTES", 1000)
    endless = io.BytesIO(b'{"event": "x"}\n' * 1000)
    with pytest.raises(LogError, match="runs past the 1,000 bytes"):
        list(log._lines(endless))


def test_a_replay_says_where_it_parts_from_its_log(log_lines: list[str], tmp_path: Path) -> None:
    assert replay(tmp_path, "\n".join(log_lines) + "\n").exit_code == 0  # the log as written replays
    changed = _with(log_lines, 4, turn=json.loads(log_lines[4])["turn"] + 7)
    assert "parts from the log at line 5" in one_error(replay(tmp_path, changed), 1)
    dropped = "\n".join([*log_lines[:4], *log_lines[5:]]) + "\n"
    assert "parts from the log at line 5" in one_error(replay(tmp_path, dropped), 1)
    extra = "\n".join([*log_lines[:-1], log_lines[-2]]) + "\n"  # one more event before the choices
    assert "ends before the log does" in one_error(replay(tmp_path, extra + log_lines[-1] + "\n"), 1)
    more = _with(log_lines, len(log_lines) - 1, choices=[*json.loads(log_lines[-1])["choices"], 0, 0])
    assert "answers but the replay asked for" in one_error(replay(tmp_path, more), 1)


# -- army lists --------------------------------------------------------------------------------

def test_an_army_list_is_read_up_to_its_limit() -> None:
    result = CliRunner().invoke(app, ["army", "check", CONSOLE, "/dev/zero"])
    assert "more than 1,000,000 bytes" in one_error(result, 2)


@pytest.mark.parametrize("data, code, says", [
    (b"\xff\xd8\xff\xe0 a picture", 2, "not UTF-8"),
    (b"10 space_marine\x00\x01\x02", 2, "binary data"),
    (("9" * 5000 + " space_marine\n").encode(), 1, "write from 1 to 10,000"),
])
def test_a_binary_or_absurd_army_list_is_one_sentence(data: bytes, code: int, says: str, tmp_path: Path) -> None:
    roster = tmp_path / "list.txt"
    roster.write_bytes(data)
    result = CliRunner().invoke(app, ["army", "check", CONSOLE, str(roster)])
    assert result.exit_code == code and says in result.output and "Traceback" not in result.output


# -- keep_highest ------------------------------------------------------------------------------

def _steps(k: int, n: int, faces: int) -> int:
    """The steps keep_highest takes, counted by following its states (sorted tuples of kept faces)."""
    states = {()}
    steps = 0
    for _ in range(n):
        steps += len(states) * faces
        states = {tuple(sorted(s + (f,), reverse=True)[:k]) for s in states for f in range(faces)}
    return steps


@pytest.mark.parametrize("k, n, faces", list(itertools.product((1, 2, 3), (1, 3, 5), (2, 6))))
def test_the_work_of_keep_highest_is_counted_exactly(k: int, n: int, faces: int) -> None:
    from compiler.resolve.budget import keep_work

    if k <= n:
        assert keep_work(k, n, faces) == _steps(k, n, faces)


def test_keep_highest_of_99_of_100_dice_is_refused_before_the_work() -> None:
    """The refusal comes from the estimate made before the work (its message names the budget),
    not from the check of each die's states, which used to take 48 s to get there."""
    from test_builtins import MODEL

    from compiler.resolve.core import ResolveError
    from compiler.resolve.evaluator import Evaluator, parse_expression

    for question in ("keep_highest(99, 100, d6)", "keep_lowest(50, 100, d6)", "keep_highest(10, 100, d6)"):
        with pytest.raises(ResolveError, match="more than 500,000 steps"):
            Evaluator(MODEL).evaluate(parse_expression(question))
    assert Evaluator(MODEL).evaluate(parse_expression("P(keep_highest(3, 100, d6) == 18)")) > 0
