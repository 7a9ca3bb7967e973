"""Diagnostics go to standard error, answers to standard output, for every command.

``warscribe fmt - < in > out`` must leave only formatted text in ``out``; ``eval … > odds.txt``
only the odds.  Each command is run on a ruleset with a mistake (or asked a question it
refuses) and its standard output must hold no diagnostic.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import warscribe

GOOD = 'ruleset demo "Demo":\n  version 1.0.0\nstat BS "Ballistic Skill" 1..10\n' \
       'test hit(BS) = roll d6 >= BS, natural 1 fails\n'
BAD = GOOD + "table t(BS) \"T\":\n  BS >= unknown_name -> 4+\n"


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    good, bad = tmp_path / "good", tmp_path / "bad"
    for folder, text in ((good, GOOD), (bad, BAD)):
        folder.mkdir()
        (folder / "ruleset.rules").write_text(text, encoding="utf-8")
    return good, bad


def no_diagnostic_in(text: str) -> bool:
    return "error[" not in text and "warning[" not in text and "fix them first" not in text


@pytest.mark.parametrize("command", [
    ["check"], ["test"], ["eval", "{bad}", "1"], ["table", "{bad}", "t"], ["export", "{bad}"],
    ["render", "{bad}", "--out", "{tmp}/pages"],
])
def test_a_ruleset_with_errors_is_reported_on_stderr_only(command: list[str], folders, tmp_path: Path) -> None:
    good, bad = folders
    args = [a.format(bad=bad, tmp=tmp_path) for a in command]
    if command in (["check"], ["test"]):
        args.append(str(bad))
    r = warscribe(*args)
    assert r.returncode == 1, r
    assert "unknown_name" in r.stderr and "error[W101]" in r.stderr
    assert no_diagnostic_in(r.stdout), r.stdout


def test_check_prints_its_summary_on_stdout(folders) -> None:
    good, bad = folders
    r = warscribe("check", str(bad))
    assert r.stdout.startswith("1 ruleset checked, 1 error")


@pytest.mark.parametrize("question", ["hti(4)", "d1000 / d999", "(1 *"])
def test_eval_refusals_and_mistakes_are_on_stderr(question: str, folders) -> None:
    good, _ = folders
    r = warscribe("eval", str(good), question)
    assert r.returncode == 1 and r.stdout == "" and "<expression>:1:" in r.stderr


def test_fmt_of_standard_input_keeps_stdout_for_the_text(folders) -> None:
    r = warscribe("fmt", "-", stdin='stat BS "B 1..6\n')
    assert r.returncode == 1 and r.stdout == "" and "error[W001]" in r.stderr
    r = warscribe("fmt", "-", stdin=GOOD)
    assert r.returncode == 0 and r.stdout == GOOD and r.stderr == ""


def test_fmt_of_a_file_that_does_not_parse_reports_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "x.rules"
    path.write_text('stat BS "B 1..6\n', encoding="utf-8")
    r = warscribe("fmt", str(path))
    assert r.returncode == 1 and "error[W001]" in r.stderr and "cannot format" in r.stderr
    assert no_diagnostic_in(r.stdout) and "cannot format" not in r.stdout
