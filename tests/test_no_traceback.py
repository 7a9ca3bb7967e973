"""Inputs that used to end in a Python traceback, each now answered by one sentence (or a located
diagnostic): Rich markup in titles and absurd answers in `play`, a side over the model limit, a
volley too big to work out, `eval --json --fast` beyond floating point, a mistyped profile in an
attack call (and the language server's state after a failed check).  Hostile replay logs and army
lists are in test_bounds.py."""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from compiler.cli import app

ROOT = Path(__file__).resolve().parent.parent


def copy_with(tmp: Path, name: str, edits: dict[str, list[tuple[str, str]]]) -> str:
    folder = tmp / name
    shutil.copytree(ROOT / "rules" / "console-40k", folder)
    for file, pairs in edits.items():
        text = (folder / file).read_text("utf-8")
        for old, new in pairs:
            assert old in text, old
            text = text.replace(old, new, 1)
        (folder / file).write_text(text, "utf-8")
    return str(folder)


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)


MARKUP = "[/] Marines [bold"
UNIT = "Space [/] Marine [link=http://evil.example]x[/link]"


@pytest.fixture(scope="module")
def rulesets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("rules")
    return {
        "markup": copy_with(tmp, "markup", {
            "scenarios.rules": [('"Five Space Marines against ten Ork Boyz"', '"[/bold] [link=http://evil.example]x[/link] [red"'),
                                ('side space_marines "Space Marines"', f'side space_marines "{MARKUP}"')],
            "profiles.rules": [('unit space_marine "Space Marine"', f'unit space_marine "{UNIT}"')]}),
        "crowd": copy_with(tmp, "crowd", {"scenarios.rules": [(
            "      10 ork_boy with single_handed_weapon",
            "      9999 ork_boy with single_handed_weapon\n      9999 ork_boy with single_handed_weapon")]}),
        "horde": copy_with(tmp, "horde", {"scenarios.rules": [(
            "      10 ork_boy with single_handed_weapon", "      9999 ork_boy with single_handed_weapon")]}),
        "typo": copy_with(tmp, "typo", {"examples.rules": [(
            "assault(5 space_marine, 8 ork_boy)", "assault(5 space_marine, 8 ork_boyx)")]}),
    }


def test_markup_in_titles_is_printed_as_written(rulesets: dict[str, str]) -> None:
    auto = CliRunner().invoke(app, ["play", rulesets["markup"], "--auto", "--seed", "3"])
    no_traceback(auto)
    assert auto.exit_code == 0 and MARKUP in auto.output and "[link=http://evil.example]" in auto.output
    # played by hand: the prompts name the titles too; a 5,000-digit answer and "²" are asked again
    answers = "1\n" + "9" * 5000 + "\n²\n" + "1\n" * 300
    by_hand = CliRunner().invoke(app, ["play", rulesets["markup"], "--seed", "3"], input=answers)
    no_traceback(by_hand)
    assert f"  1. {MARKUP}" in by_hand.output and "Please enter a number from 1 to 2, or q to quit." in by_hand.output
    assert f"{MARKUP}: {UNIT}" in by_hand.output


def test_a_side_over_the_model_limit_is_refused_by_check(rulesets: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["check", rulesets["crowd"]])
    no_traceback(result)
    assert result.exit_code == 1
    assert re.search(r"scenarios\.rules:17:5: error\[W903\]: side 'orks' fields 19,998 models", result.output)


@pytest.mark.parametrize("command", [["play", "--auto", "--seed", "1"], ["simulate", "--games", "2"]])
def test_a_volley_too_big_to_work_out_is_one_located_error(rulesets: dict[str, str], command: list[str]) -> None:
    result = CliRunner().invoke(app, [command[0], rulesets["horde"], *command[1:]])
    no_traceback(result)
    assert result.exit_code == 1
    assert re.search(r"rulebook\.rules:\d+:\d+: error\[W800\]: attack 'assault' at space_marine: [\d,]+ is more than "
                     r"warscribe will count", result.output)


def test_eval_json_fast_beyond_floating_point() -> None:
    huge = "1" + "0" * 99  # (a number of more than 100 digits is refused: W908) 10**99, four times over
    result = CliRunner().invoke(app, ["eval", str(ROOT / "rules" / "console-40k"), f"d6 * {huge} * {huge} * {huge} * {huge}",
                                      "--json", "--fast"])
    no_traceback(result)
    answer = json.loads(result.output)
    assert answer["mean_float"] is None and answer["mean"] == "35" + "0" * 395


@pytest.mark.parametrize("command", [["check"], ["test"], ["export"]])
def test_a_mistyped_profile_in_an_attack_call_is_a_diagnostic(rulesets: dict[str, str], command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, rulesets["typo"]])
    no_traceback(result)
    assert result.exit_code == 1
    assert "ork_boyx" in result.output and "did you mean 'ork_boy'" in result.output


def test_the_language_server_never_keeps_no_problems_after_a_failed_check(tmp_path: Path) -> None:
    """A check that fails (a bug in warscribe) replaces what was published with one error."""
    from lsprotocol import types as T

    from compiler.lsp.server import RulesServer

    server = RulesServer(0.0)
    folder = str(tmp_path)
    path = str(tmp_path / "a.rules")
    published: list[T.PublishDiagnosticsParams] = []
    server.text_document_publish_diagnostics = published.append  # type: ignore[method-assign]
    server.overrides = lambda: ({path: "stat S \"S\" 1..6\n"}, {path: 3})  # type: ignore[method-assign]

    def broken(*args: object) -> object:
        raise KeyError("ork_boyx")
    server.compile = broken  # type: ignore[method-assign]
    server.window_log_message = lambda params: None  # type: ignore[method-assign]
    # in a thread of its own: a browser test file on this worker may leave Playwright's loop
    # running in this one, where asyncio.run refuses to start
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, server.recompile(folder, 0)).result()
    (sent,) = published
    assert sent.version == 3 and len(sent.diagnostics) == 1
    assert "could not check this ruleset" in sent.diagnostics[0].message
    assert sent.diagnostics[0].severity == T.DiagnosticSeverity.Error


@pytest.mark.parametrize("argv", [["diff", "bench/ruleset", "bench/ruleset", "\0"], ["check", "rules\0x"],
                                  ["export", "rules/console-40k", "--out", "x\0.json"], ["eval", "a\0", "d6"]])
def test_a_nul_character_in_an_argument_is_one_sentence(argv: list[str]) -> None:
    """No path holds a NUL character (the system refuses it with a ValueError deep inside)."""
    result = CliRunner().invoke(app, argv)
    no_traceback(result)
    assert result.exit_code == 2 and "an argument holds a NUL character" in result.output


@pytest.mark.parametrize("argv", [["check", "9" * 5000], ["eval", "9" * 5000, "d6"], ["test", "9" * 5000],
                                  ["export", "rules/console-40k", "--out", "9" * 5000],
                                  ["play", "rules/console-40k", "--auto", "--log", "9" * 5000],
                                  ["diff", "rules/console-40k", "/dev/null", "9" * 5000]])
def test_a_path_too_long_for_the_file_system_is_one_sentence(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, argv)
    no_traceback(result)
    assert result.exit_code == 2
    assert result.output.startswith("warscribe: error:") and len(result.output.splitlines()) == 1
