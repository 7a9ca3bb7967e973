"""Leaving `warscribe play` half-way: `q` or `quit` at any prompt, or the end of the input
(Ctrl-D), stops the battle with a sentence and exit 0; a `--log` file is never left half-written."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.battle import Quit
from compiler.battle.policies import Choice, HumanPolicy, Option
from compiler.cli import app

CONSOLE = str(Path(__file__).resolve().parent.parent / "rules" / "console-40k")


def play(*args: str, stdin: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["play", CONSOLE, "--seed", "5", *args], input=stdin, env={"NO_COLOR": "1"})
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.output


@pytest.mark.parametrize("answer", ["q", "quit", " Q "])
def test_quit_at_a_choice_in_the_battle_stops_it_with_exit_0(answer: str) -> None:
    code, out = play("--side", "space_marines", stdin=f"1\n{answer}\n" + "1\n" * 50)
    assert code == 0, out
    assert "(q quits)" in out  # the prompt says how to leave
    last = out.strip().splitlines()[-1]
    assert last.endswith("You quit: the battle stops here in game turn 1, with no winner."), last
    assert "win" not in last.replace("winner", "")  # no result named for a battle not played out


def test_quit_when_asked_for_a_side() -> None:
    code, out = play(stdin="q\n")
    assert code == 0 and "Choose a side" in out and out.rstrip().endswith("You quit: the battle stops here, with no winner.")


def test_the_end_of_the_input_stops_the_battle_the_same_way() -> None:
    code, out = play(stdin="1\n1\n")
    assert code == 0 and out.rstrip().endswith("No more input: the battle stops here in game turn 1, with no winner.")


def test_a_log_already_there_is_left_as_it_was(tmp_path: Path) -> None:
    log = tmp_path / "b.jsonl"
    code, _ = play("--auto", "--log", str(log), stdin="")
    assert code == 0
    finished = log.read_text(encoding="utf-8")
    code, out = play("--side", "orks", "--log", str(log), stdin="q\n")
    assert code == 0 and f"no battle log is written to {log}" in out.replace("\n", " ")
    assert log.read_text(encoding="utf-8") == finished
    fresh = tmp_path / "new.jsonl"
    assert play("--side", "orks", "--log", str(fresh), stdin="q\n")[0] == 0 and not fresh.exists()


def test_the_person_s_policy_raises_quit_and_says_how_to_leave() -> None:
    said: list[str] = []
    answers = iter(["7", "quit"])
    human = HumanPolicy(lambda prompt: next(answers), said.append)
    options = (Option("a", "A"), Option("b", "B"))
    with pytest.raises(Quit):
        human.choose(Choice("unit", 0, "Orks", "Which?", options))
    assert "Please enter a number from 1 to 2, or q to quit." in said
