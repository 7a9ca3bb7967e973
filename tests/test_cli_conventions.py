"""The command line's shared conventions: one vocabulary of options, colour as NO_COLOR and
FORCE_COLOR say, refusals of options that cannot combine, and the project's settings file."""
from __future__ import annotations

import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import app

ROOT = Path(__file__).resolve().parent.parent
ESC = "\x1b["


def run(*args: str, env: dict[str, str | None] | None = None, cwd: Path | None = None) -> tuple[int, str, str]:
    import os

    before = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        r = CliRunner().invoke(app, list(args), env={"NO_COLOR": None, "FORCE_COLOR": None, **(env or {})})
    finally:
        os.chdir(before)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


def test_version_flag_and_command_agree() -> None:
    from compiler import __version__

    for args in (["--version"], ["-V"], ["version"]):
        code, out, _ = run(*args)
        assert code == 0 and out == f"warscribe {__version__}\n"


def test_check_json_and_its_format_alias() -> None:
    code, out, _ = run("check", "--json", "rules/console-40k")
    alias = run("check", "--format", "json", "rules/console-40k")[1]
    assert code == 0 and out == alias
    assert set(json.loads(out)) == {"diagnostics", "summary"}
    code, _, err = run("check", "--format", "text", "--json", "rules/console-40k")
    assert code == 2 and "--format cannot be combined with --json" in err


@pytest.mark.parametrize("args, words", [
    (["play", "rules/console-40k", "--auto", "--side", "orks"], "--auto cannot be combined with --side"),
    (["play", "rules/console-40k", "--replay", "x.log", "--seed", "3"], "--replay cannot be combined with --seed"),
    (["play", "rules/console-40k", "--replay", "x.log", "--auto"], "--replay cannot be combined with --auto"),
    (["test", "--strict", "rules/console-40k"], "--strict judges the coverage report; add --coverage"),
])
def test_options_that_cannot_combine_are_refused_with_a_sentence(args: list[str], words: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and words in err and out == ""


def test_quiet_leaves_the_summary_and_the_notes_out() -> None:
    loud = run("check", "rules/console-40k")
    quiet = run("check", "-q", "rules/console-40k")
    before = run("-q", "check", "rules/console-40k")
    assert "1 ruleset checked" in loud[1] and "note[" in loud[2]
    assert quiet == before == (0, "", "")


#: Every command, as a user calls it: (arguments, whether its output has colour to give).
COMMANDS = [
    (["check", "rules/console-40k"], True),  # the notes
    (["eval", "rules/console-40k", "P(nothing(4))"], True),  # the error's diagnostic
    (["eval", "rules/console-40k", "P(hit(4))"], False),
    (["table", "rules/console-40k", "to_wound"], False),
    (["test", "rules/console-40k"], False),
    (["test", "--coverage", "rules/console-40k"], True),
    (["diff", "rules/console-40k", "rules/classic-40k", "--no-impact"], True),
    (["play", "rules/console-40k", "--auto", "--seed", "1"], True),
    (["simulate", "rules/console-40k", "--games", "20"], False),
    (["army", "check", "rules/console-40k", "tests/fixtures/no-such-roster"], False),
    (["fmt", "--check", "rules/console-40k"], False),
    (["export", "rules/console-40k"], False),
    (["render", "rules/console-40k"], False),  # no --out: a usage error
    (["config"], False),
    (["version"], False),
    (["--version"], False),
]


@pytest.mark.parametrize("args, colours", COMMANDS, ids=lambda a: " ".join(a) if isinstance(a, list) else str(a))
def test_every_command_obeys_no_color_and_force_color(args: list[str], colours: bool) -> None:
    plain = run(*args, env={"NO_COLOR": "1"})
    assert ESC not in plain[1] + plain[2]
    forced = run(*args, env={"FORCE_COLOR": "1"})
    assert (ESC in forced[1] + forced[2]) is colours
    assert forced[0] == plain[0]


def test_color_options_win_over_the_environment_and_json_is_never_coloured() -> None:
    assert ESC in run("check", "--color", "rules/console-40k", env={"NO_COLOR": "1"})[2]
    assert ESC in run("--color", "check", "rules/console-40k", env={"NO_COLOR": "1"})[2]
    assert ESC not in run("check", "--no-color", "rules/console-40k", env={"FORCE_COLOR": "1"})[2]
    for args in (["check", "--json", "rules/console-40k"], ["export", "rules/console-40k"],
                 ["simulate", "rules/console-40k", "--games", "20", "--json"]):
        code, out, err = run(*args, env={"FORCE_COLOR": "1"})
        assert ESC not in out
        json.loads(out)


# -- the project's settings ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    for name in ("console-40k", "classic-40k"):
        shutil.copytree(ROOT / "rules" / name, root / "house" / name)
    (root / "pyproject.toml").write_text(textwrap.dedent("""\
        [project]
        name = "my-house-rules"

        [tool.warscribe]
        rules = "house"
        games = 30
        seed = 11
        policy = "random"
        site = "https://rules.example.org/house/"
        """), encoding="utf-8")
    return root


def test_settings_are_found_from_a_subfolder_and_config_says_where_each_came_from(project: Path) -> None:
    deep = project / "house" / "classic-40k"
    code, out, err = run("config", cwd=deep)
    assert code == 0, err
    lines = {line.split("=")[0].strip(): line for line in out.splitlines() if "=" in line}
    assert '"house"' in lines["rules"] and "pyproject.toml [tool.warscribe]" in lines["rules"]
    assert "30" in lines["games"] and "pyproject.toml" in lines["games"]
    assert "default" in lines["strict"] and "false" in lines["strict"]
    data = json.loads(run("config", "--json", cwd=deep)[1])
    assert data["settings"]["seed"] == {"value": 11, "from": data["settings"]["seed"]["from"]}
    assert data["settings"]["seed"]["from"].endswith("pyproject.toml [tool.warscribe]")
    assert Path(data["root"]) == project.resolve()


def test_check_inside_a_ruleset_folder_checks_that_ruleset(project: Path) -> None:
    code, out, err = run("check", cwd=project / "house" / "classic-40k")
    assert code == 0, err
    assert "1 ruleset checked" in out
    code, out, err = run("check", cwd=project)
    assert code == 0 and "2 rulesets checked" in out


def test_simulate_takes_games_seed_and_policy_from_the_settings_and_the_command_line_wins(project: Path) -> None:
    code, out, err = run("simulate", "house/console-40k", "--json", cwd=project / "house")
    assert code == 2 and "house/console-40k" in err  # a path is read from the current folder
    code, out, err = run("simulate", "console-40k", "--json", cwd=project / "house")
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 30 and data["seed"] == 11
    assert data["games"] == 30
    code, out, err = run("simulate", "console-40k", "--json", "--games", "12", cwd=project / "house")
    assert json.loads(out)["games"] == 12


def test_a_wrong_setting_is_a_sentence_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "warscribe.toml").write_text('rules = "rules"\nstrikt = true\n', encoding="utf-8")
    code, out, err = run("check", cwd=tmp_path)
    assert code == 2 and "unknown setting 'strikt'; did you mean 'strict'?" in err
    (tmp_path / "warscribe.toml").write_text('games = "many"\n', encoding="utf-8")
    code, out, err = run("config", cwd=tmp_path)
    assert code == 2 and "'games' should be a whole number" in err


# -- progress -------------------------------------------------------------------------------------


def test_a_long_run_off_a_terminal_ends_with_one_summary_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.cli import progress

    monkeypatch.setattr(progress, "AFTER", 0.0)  # every run counts as long
    code, out, err = run("simulate", "rules/console-40k", "--games", "40", "--json")
    assert code == 0 and json.loads(out)["games"] == 40
    assert [line for line in err.splitlines() if line.strip()] == [err.strip()]
    assert re.fullmatch(r"warscribe: simulate: 40 games in \d+\.\d s", err.strip()), err
    code, out, err = run("test", "rules/console-40k", "rules/gemini-arap")
    assert re.fullmatch(r"warscribe: test: 2 rulesets in \d+\.\d s", err.strip()), err
    assert run("simulate", "rules/console-40k", "--games", "40", "-q")[2] == ""


def test_a_long_run_on_a_terminal_shows_a_bar_and_no_summary_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.cli import progress

    monkeypatch.setattr(progress, "AFTER", 0.0)
    monkeypatch.setattr(progress, "on_terminal", lambda: True)
    code, out, err = run("simulate", "rules/console-40k", "--games", "300", "--json")
    assert code == 0 and json.loads(out)["games"] == 300  # the answer untouched
    assert "simulate" in err and "━" in err and "games" in err  # the bar was drawn on standard error
    assert "warscribe: simulate:" not in err
    assert run("simulate", "rules/console-40k", "--games", "300", "-q")[2] == ""


# -- tables that fit --------------------------------------------------------------------------------


HEADERS = ("tables", "tests", "formulas", "modifiers", "attacks", "abilities", "all", "in battle", "resolver only",
           "links only", "prose only", "unmarked")


def test_coverage_at_80_columns_is_stacked_and_loses_no_header() -> None:
    code, out, err = run("test", "--coverage", "rules/console-40k", "rules/gemini-arap", env={"COLUMNS": "80"})
    assert code == 0, err
    table = out[out.index("Executable coverage"):].split("not exercised:")[0]
    assert max(len(line) for line in table.splitlines()) <= 80
    for ruleset in ("console-40k", "gemini-arap"):
        block = table[table.index(ruleset + "\n"):]
        for header in HEADERS:  # each header a row of its own, with its count
            assert re.search(rf"│ {header} +│ +(\d+(/\d+)?|–) │", block), (header, block)
    wide = run("test", "--coverage", "rules/console-40k", env={"COLUMNS": "200"})[1]  # (one ruleset's table is enough)
    head = next(line for line in wide.splitlines() if "┃ ruleset" in line)
    assert all(h in head for h in HEADERS)


def test_against_speaks_in_points_and_titles() -> None:
    code, out, err = run("simulate", "rules/dark-millennia", "--against", "rules/classic-40k", "--games", "40",
                         "--policy", "greedy")
    assert code == 0, err
    assert "against Classic 40K: the cover-save game (policy greedy):" in out
    for side in ("Space Marines", "Ork Boyz"):
        assert re.search(rf"    {side}: wins \d+\.\d% → \d+\.\d%, [+-]\d+\.\d points "
                         rf"\(95% CI [+-]\d+\.\d to [+-]\d+\.\d points\): (more wins|fewer wins|no clear change)", out), out


def test_tiny_chances_are_not_printed_as_zero_and_json_numbers_are_canonical() -> None:
    from fractions import Fraction

    out = run("eval", "rules/console-40k", "shooting(10 space_marine, boltgun, 10 ork_boy).killed")[1]
    assert "<0.01%" in out and " 0.00%" not in out
    data = json.loads(run("eval", "rules/console-40k", "d6 + 1", "--json")[1])
    assert data["mean"] == "9/2"
    assert [row["at_least"] for row in data["distribution"]][0] == "1"  # not "1/1"
    assert [row["p"] for row in data["distribution"]] == ["1/6"] * 6
    seven = json.loads(run("eval", "rules/console-40k", "2d6", "--json")[1])
    assert seven["mean"] == "7" and Fraction(seven["mean"]) == 7  # not "7/1"


# -- where authors keep their rules ----------------------------------------------------------------


def test_the_pre_commit_hooks_run_the_commands_they_name(tmp_path: Path) -> None:
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["warscribe-fmt", "warscribe-check", "warscribe-test"]
    shutil.copytree(ROOT / "rules" / "console-40k", tmp_path / "rules" / "console-40k")
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "rules").rglob("*"))
    for hook in hooks:
        assert hook["language"] == "python" and re.search(hook["files"], "rules/console-40k/lexicon.rules")
        program, *args = hook["entry"].split()
        assert program == "warscribe"
        given = [f for f in files if re.search(hook["files"], f)] if hook.get("pass_filenames", True) else []
        code, out, err = run(*args, *given, cwd=tmp_path)
        assert code == 0, (hook["id"], out, err)
    # a broken rule fails the check hook
    lexicon = tmp_path / "rules" / "console-40k" / "lexicon.rules"
    lexicon.write_text(lexicon.read_text(encoding="utf-8") + "\nstat BS BS\n", encoding="utf-8")
    assert run(*hooks[1]["entry"].split()[1:], cwd=tmp_path)[0] == 1


def test_the_ci_recipe_runs_commands_that_exist() -> None:
    page = (ROOT / "site" / "ci.md").read_text(encoding="utf-8")
    commands = set(re.findall(r"^[ \t]+(?:- run: )?warscribe (\w+)", page, re.M))
    assert commands >= {"fmt", "check", "test", "diff", "build"}
    for name in commands:
        assert run(name, "--help")[0] == 0, name
    assert "--markdown" in page and "deploy-pages" in page and "pull_request" in page


def test_pytest_runs_without_xdist_and_counts_what_warscribe_test_counts() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "NO_COLOR": "1", "PYTEST_ADDOPTS": ""}
    collected = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only", "-q",
                                "-p", "no:cacheprovider", "rules/dark-millennia"], cwd=ROOT, env=env, capture_output=True,
                               text=True, timeout=600)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    items = [line for line in collected.stdout.splitlines() if "::" in line]
    code, out, _ = run("test", "--json", "rules/dark-millennia")  # an overlay: its own examples and its base's
    assert len(items) == len(json.loads(out)["results"])
    assert any("dark-millennia/ruleset.rules::classic-40k:" in line for line in items)  # the base's, under the overlay


def test_the_vscode_extension_lists_every_command_it_registers_and_says_how_to_install_warscribe() -> None:
    vscode = ROOT / "editors" / "vscode"
    registered = set(re.findall(r"registerCommand\(\s*\"([\w.]+)\"", (vscode / "extension.js").read_text("utf-8")))
    manifest = json.loads((vscode / "package.json").read_text("utf-8"))
    listed = {c["command"] for c in manifest["contributes"].get("commands", [])}
    assert registered and registered == listed  # each in the command palette, under a title
    assert all(c.get("title") for c in manifest["contributes"]["commands"])
    readme = (vscode / "README.md").read_text("utf-8")
    assert "pip install warscribe" not in readme  # no such package is published
    assert "pip install ." in readme


def test_an_overlay_against_its_base_lists_no_id_version_or_history_as_changes(tmp_path: Path) -> None:
    code, out, err = run("diff", "rules/classic-40k", "rules/dark-millennia", "--no-impact")
    assert code == 0, err
    head = out.split("\n~ ruleset dark-millennia", 1)[1].split("\n~ ", 1)[0]
    assert "title: Classic 40K" in head  # what the overlay says differently is still shown
    for field in ("id:", "version:", "history:", "extends:"):
        assert f"\n    {field}" not in head, field
    # two versions of one ruleset still show them
    shutil.copytree(ROOT / "rules" / "console-40k", tmp_path / "old")
    shutil.copytree(ROOT / "rules" / "console-40k", tmp_path / "new")
    header = tmp_path / "new" / "ruleset.rules"
    text = header.read_text(encoding="utf-8")
    version = re.search(r"version (\d+\.\d+\.\d+)", text)
    assert version is not None
    header.write_text(text.replace(version.group(0), "version 9.9.9", 1), encoding="utf-8")
    out = run("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--no-impact")[1]
    assert f"version: {version.group(1)} → 9.9.9" in out


# -- --json wherever a command answers with data ----------------------------------------------------


def test_json_on_play_army_fmt_and_build(tmp_path: Path) -> None:
    code, out, err = run("play", "rules/console-40k", "--auto", "--seed", "1", "--json")
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and events[0]["event"] == "start" and events[-1]["event"] == "end"
    assert any(e["event"] == "volley" and e["unit"].startswith(("Space Marines: ", "Orks: ")) for e in events)
    code, out, err = run("play", "rules/console-40k", "--json")
    assert code == 2 and "add --auto" in err
    roster = tmp_path / "list.txt"
    roster.write_text("30 ork_boy\n", encoding="utf-8")
    code, out, err = run("army", "check", "rules/console-40k", str(roster), "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["units"] == 1
    assert data["violations"] and all(v["rule"] and v["span"]["line"] > 0 for v in data["violations"])
    code, out, err = run("fmt", "--check", "--json", "rules/console-40k")
    assert code == 0 and json.loads(out) == {"would_reformat": [], "unchanged": 6, "errors": []}
    assert run("fmt", "--json", "--diff", "rules/console-40k")[0] == 2
    (tmp_path / "rules" / "tiny").mkdir(parents=True)
    (tmp_path / "rules" / "tiny" / "ruleset.rules").write_text(
        'ruleset tiny "Tiny":\n  version 1.0.0\n\nstat BS "Skill" 1..10: "Aim."\n', encoding="utf-8")
    code, out, err = run("build", "--json", "-q", cwd=tmp_path, env={"NO_MKDOCS_2_WARNING": "1"})
    assert code == 0, err
    built = json.loads(out)
    assert built["pages"] > 3 and Path(built["out"]).resolve() == (tmp_path / "public").resolve()
    assert built["warnings"] == 0 and err == ""  # -q: no progress lines either


def test_verbose_before_or_after_the_command() -> None:
    before = run("-v", "test", "rules/console-40k")[1]
    after = run("test", "-v", "rules/console-40k")[1]
    plain = run("test", "rules/console-40k")[1]
    assert "ok   console-40k example first_move" in before and "ok   console-40k example" in after
    assert "ok   " not in plain


def test_play_links_rules_to_the_site_the_settings_name(project: Path) -> None:
    code, out, err = run("play", "console-40k", "--auto", "--seed", "1", "--policy", "greedy", cwd=project / "house")
    assert code == 0, err
    assert re.search(r"\(Shooting, https://rules\.example\.org/house/console-40k/rulebook/[\w-]+/#shooting\)", out)
