"""`simulate --tournament` says on standard error what it plays, one line as each pairing starts,
when no progress bar can be drawn (a log, CI); `-q` silences it, and standard output keeps only
the answer."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import app

CONSOLE = str(Path(__file__).resolve().parent.parent / "rules" / "console-40k")
ARGS = ["simulate", CONSOLE, "--games", "3", "--seed", "2", "--tournament", "--policies", "greedy,random"]


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args), env={"NO_COLOR": "1"})
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def plain() -> tuple[int, str, str]:
    return run(*ARGS, "--json")


def test_each_pairing_is_announced_on_stderr_in_the_order_it_is_played(plain) -> None:
    code, out, err = plain
    assert code == 0, err
    pairs = [("greedy", "greedy"), ("greedy", "random"), ("random", "greedy"), ("random", "random")]
    expected = [f"warscribe: tournament: pairing {i} of 4: {a} (Space Marines) against {b} (Orks), 3 games"
                for i, (a, b) in enumerate(pairs, 1)]
    lines = [line for line in err.splitlines() if "pairing" in line]
    assert lines == expected
    # the answer is on stdout alone, one row per pairing, in the same order
    assert [tuple(r["policies"]) for r in json.loads(out)["tournament"]] == pairs


def test_quiet_silences_it_and_the_answer_stays_the_same(plain) -> None:
    code, out, err = run("-q", *ARGS, "--json")
    assert code == 0 and err == "" and out == plain[1]


def test_the_progress_counts_the_games_of_the_whole_tournament() -> None:
    from compiler.cli.common import compile_one
    from compiler.cli.battle import pick_scenario
    from compiler.cli.tournament import tournament

    _, model = compile_one(CONSOLE)
    seen: list[int] = []
    begun: list[tuple[int, str, str]] = []
    tournament(CONSOLE, pick_scenario(model, None), ["greedy", "random"], 3, 2,
               begin=lambda i, a, b: begun.append((i, a, b)), advance=seen.append)
    assert begun == [(0, "greedy", "greedy"), (1, "greedy", "random"), (2, "random", "greedy"), (3, "random", "random")]
    assert seen == sorted(seen) and seen[-1] == 4 * 3 and {3, 6, 9} <= set(seen)
