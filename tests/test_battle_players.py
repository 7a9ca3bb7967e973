"""Policies per side (``--policy A:B``) and tournaments of policies in both seatings."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from compiler.cli import app

CONSOLE = str(Path(__file__).resolve().parent.parent / "rules" / "console-40k")


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.output


def test_each_side_plays_its_own_policy_and_a_tournament_seats_them_both_ways() -> None:
    code, text = run("simulate", CONSOLE, "--games", "250", "--seed", "3", "--policy", "random:greedy", "--json")
    assert code == 0, text
    mixed = json.loads(text)
    assert mixed["policy"] == {"space_marines": "random", "orks": "greedy"}
    code, text = run("simulate", CONSOLE, "--games", "250", "--seed", "3", "--tournament", "--json")
    assert code == 0, text
    rows = {tuple(r["policies"]): r for r in json.loads(text)["tournament"]}
    assert set(rows) == {("greedy", "greedy"), ("greedy", "random"), ("random", "greedy"), ("random", "random")}
    # the same games as the run above: the same seeds, the same policies in the same seats
    assert [s["wins"] for s in rows[("random", "greedy")]["sides"]] == [s["wins"] for s in mixed["sides"]]
    # the greedy Space Marines win far more against random Orks than random Marines against greedy Orks
    greedy_seat = rows[("greedy", "random")]["sides"][0]
    random_seat = rows[("random", "greedy")]["sides"][0]
    assert greedy_seat["ci95"][0] > random_seat["ci95"][1]
    code, text = run("simulate", CONSOLE, "--games", "250", "--tournament", "--policies", "greedy")
    assert code == 0 and "greedy" in text and "%" in text


def test_bad_policies_are_refused_in_one_sentence() -> None:
    for args, says in ((["--policy", "greedy:mcst"], "unknown policy 'mcst'"),
                       (["--policy", "greedy:random:greedy"], "names 3 policies for 2 sides"),
                       (["--policies", "greedy"], "add --tournament"),
                       (["--tournament", "--policies", "greedy,nope"], "unknown policy 'nope'")):
        code, text = run("simulate", CONSOLE, "--games", "10", *args)
        assert code == 2 and says in text, (args, text)
        assert "Traceback" not in text
