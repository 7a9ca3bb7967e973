"""One guard for every file a command writes: `export --out`, `play --log`, `render --out`, `fmt`.

A `.rules` file (directly or through a link), a ruleset folder, the rules being read and an
existing file the command did not write are refused with one sentence and exit status 2,
before any work — every file left byte for byte as it was."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import app

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "rules" / "console-40k", tmp_path / "rules" / "console-40k")
    (tmp_path / "out").mkdir()
    (tmp_path / "rules" / "console-40k" / "notes").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        key = str(p.relative_to(root))
        out[key] = f"-> {p.readlink()}" if p.is_symlink() else (p.read_bytes() if p.is_file() else "dir")
    return out


def refused(args: list[str], root: Path, why: str) -> None:
    before = snapshot(root)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("warscribe: error:")]
    assert len(errors) == 1 and why in errors[0], result.output
    assert "Traceback" not in result.output and "goes first" not in result.output  # no battle was played
    assert snapshot(root) == before


RULESET = "rules/console-40k"
SOURCE = "rules/console-40k/ruleset.rules"


def _targets(root: Path) -> list[tuple[str, str]]:
    (root / "out" / "link.json").symlink_to(root / SOURCE)
    return [(SOURCE, ".rules file"), ("out/link.json", ".rules file"), (f"{RULESET}/x.json", "ruleset folder"),
            (f"{RULESET}/notes/x.json", "which this command reads")]


def test_export_never_writes_a_source(project: Path) -> None:
    for target, why in _targets(project):
        refused(["export", RULESET, "--out", target], project, why)


def test_play_log_never_writes_a_source_and_is_checked_before_the_battle(project: Path) -> None:
    for target, why in [*_targets(project), ("missing/x.jsonl", "does not exist"), ("out", "it is a folder")]:
        refused(["play", RULESET, "--auto", "--seed", "3", "--log", target], project, why)


def test_render_never_writes_into_the_rules(project: Path) -> None:
    for target, why in (("rules", "the rules it renders"), (RULESET, "ruleset folder"),
                        (f"{RULESET}/notes", "the rules it renders")):
        refused(["render", RULESET, "--out", target], project, why)


def test_render_keeps_a_hand_written_index(project: Path) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "index.md").write_text("# My own front page\n", encoding="utf-8")
    refused(["render", RULESET, "--out", "docs"], project, "did not write")
    forced = CliRunner().invoke(app, ["render", RULESET, "--out", "docs", "--force"])
    assert forced.exit_code == 0, forced.output


def test_an_existing_file_is_replaced_only_when_it_is_the_commands_own(project: Path) -> None:
    notes = project / "out" / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    refused(["export", RULESET, "--out", "out/notes.txt"], project, "--force")
    refused(["play", RULESET, "--auto", "--seed", "3", "--log", "out/notes.txt"], project, "--force")
    # its own output is replaced; anything else only with --force
    runner = CliRunner()
    assert runner.invoke(app, ["export", RULESET, "--out", "out/model.json"]).exit_code == 0
    assert runner.invoke(app, ["export", RULESET, "--out", "out/model.json"]).exit_code == 0
    assert json.loads((project / "out" / "model.json").read_text("utf-8"))["format"] == 1
    assert runner.invoke(app, ["play", RULESET, "--auto", "--seed", "3", "--log", "out/b.jsonl"]).exit_code == 0
    first = (project / "out" / "b.jsonl").read_text("utf-8")
    assert runner.invoke(app, ["play", RULESET, "--auto", "--seed", "4", "--log", "out/b.jsonl"]).exit_code == 0
    assert (project / "out" / "b.jsonl").read_text("utf-8") != first
    assert runner.invoke(app, ["export", RULESET, "--out", "out/b.jsonl"]).exit_code == 2  # a log is not an export
    forced = runner.invoke(app, ["export", RULESET, "--out", "out/notes.txt", "--force"])
    assert forced.exit_code == 0 and (project / "out" / "notes.txt").read_text("utf-8").startswith("{")


def test_fmt_never_replaces_an_edit_saved_while_it_ran(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.syntax import fmt

    path = project / SOURCE
    path.write_text(path.read_text("utf-8") + "\n\n\nstat   Zz  \"Z\"  1..6\n", encoding="utf-8")
    real = fmt.format_text
    saved = "stat Zz \"Z\" 1..6  # saved by the author meanwhile\n"

    def format_while_an_edit_is_saved(text: str, shown: str) -> str:
        out = real(text, shown)
        path.write_text(saved, encoding="utf-8")
        return out
    monkeypatch.setattr(fmt, "format_text", format_while_an_edit_is_saved)
    result = CliRunner().invoke(app, ["fmt", SOURCE])
    assert result.exit_code == 1
    assert "changed while it was being formatted" in result.output
    assert path.read_text("utf-8") == saved
