"""No command destroys what it did not create, and every failure of the machine is one sentence.

`build`, `render` and `export` write only to an output they own: an existing file, a folder of
someone else's files, a version-control folder and a symbolic link are refused and left as they
were; the new site goes in by one atomic exchange; a killed build's leftovers are cleaned by the
next build; a full disk or a missing folder is a one-line error with exit code 1.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import app
from compiler.site.output import MARKER, TEMPORARY, OutputFolderError, check_target, clean_leftovers, staged
from test_build_output import build, snapshot
from test_diff import SKIRMISH
from test_mkdocs_plugin import project


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return project(tmp_path, {"skirmish": SKIRMISH})


def one_line_error(output: str) -> str:
    errors = [line for line in output.splitlines() if line.startswith("warscribe: error:")]
    assert len(errors) == 1, output
    assert "Traceback" not in output
    return errors[0]


def test_build_refuses_a_tracked_file_and_leaves_it(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "README.md").write_text("# keep\n", encoding="utf-8")
    result = build(root, monkeypatch, "--out", "README.md")
    assert result.exit_code == 2
    assert "it is a file" in one_line_error(result.output)
    assert (root / "README.md").read_text(encoding="utf-8") == "# keep\n"


@pytest.mark.parametrize("out", [".git", ".git/site", "repo"])
def test_build_refuses_a_version_control_folder(root: Path, monkeypatch: pytest.MonkeyPatch, out: str) -> None:
    for git in (root / ".git", root / "repo" / ".git"):
        git.mkdir(parents=True)
        (git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    result = build(root, monkeypatch, "--out", out)
    assert result.exit_code == 2
    assert "version-control" in one_line_error(result.output)
    assert (root / ".git" / "HEAD").is_file() and (root / "repo" / ".git" / "HEAD").is_file()


def test_a_symlinked_public_is_refused_and_its_target_kept(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "precious.txt").write_text("keep", encoding="utf-8")
    (root / "public").symlink_to(elsewhere)
    result = build(root, monkeypatch)
    assert result.exit_code == 2
    assert "symbolic link" in one_line_error(result.output)
    assert (elsewhere / "precious.txt").read_text(encoding="utf-8") == "keep"


def test_a_folder_of_other_files_is_refused(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "notes.txt").write_text("mine", encoding="utf-8")
    result = build(root, monkeypatch, "--out", "docs")
    assert result.exit_code == 2
    assert "not a warscribe build" in one_line_error(result.output)
    assert (root / "docs" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_build_marks_its_site_replaces_it_and_cleans_killed_builds(root: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    dead = root / ".public.building-999999999-abc"  # a build killed long ago (no such process)
    (dead / "x").mkdir(parents=True)
    (dead / TEMPORARY).write_text("", encoding="utf-8")
    old = root / ".public.old-999999999-abc"  # a site moved aside by a killed build
    old.mkdir()
    (old / MARKER).write_text("", encoding="utf-8")
    running = root / f".public.building-{os.getppid()}-xyz"  # a build still running (a live process)
    running.mkdir()
    (running / TEMPORARY).write_text("", encoding="utf-8")
    # folders merely named like a build's temporaries, without its marker: someone else's, kept
    theirs = [root / ".public.building-999999999-mine", root / ".public.old-1-notes"]
    for folder in theirs:
        folder.mkdir()
        (folder / "notes.md").write_text("mine", encoding="utf-8")
    assert build(root, monkeypatch).exit_code == 0
    assert (root / "public" / MARKER).is_file()
    assert not (root / "public" / TEMPORARY).exists()
    assert not dead.exists() and not old.exists() and running.exists()
    assert all((folder / "notes.md").read_text("utf-8") == "mine" for folder in theirs)
    (root / "public" / "extra.html").write_text("from the last build", encoding="utf-8")
    assert build(root, monkeypatch).exit_code == 0  # its own marked site is replaced
    assert not (root / "public" / "extra.html").exists()
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".")) == sorted(
        [running.name, *(f.name for f in theirs)])


def test_the_swap_is_one_exchange_that_keeps_the_old_site_until_the_new_is_in(tmp_path: Path) -> None:
    final = tmp_path / "public"
    final.mkdir()
    (final / "old.html").write_text("old", encoding="utf-8")
    with staged(final) as staging:
        (staging / "new.html").write_text("new", encoding="utf-8")
        assert (final / "old.html").is_file()  # the old site serves until the swap
    assert sorted(p.name for p in final.iterdir()) == [MARKER, "new.html"]
    assert [p.name for p in tmp_path.iterdir()] == ["public"]
    assert clean_leftovers(final) == []


def test_a_full_disk_during_build_is_one_sentence(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert build(root, monkeypatch).exit_code == 0
    before = snapshot(root / "public")

    def full(cfg: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(root / "public" / "index.html"))

    monkeypatch.setattr("mkdocs.commands.build.build", full)
    result = build(root, monkeypatch)
    assert result.exit_code == 1
    line = one_line_error(result.output)
    assert "No space left on device" in line and "public" in line
    assert snapshot(root / "public") == before
    assert not [p for p in root.iterdir() if p.name.startswith(".public")]


def test_render_refuses_a_file_a_link_and_a_foreign_folder(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.chdir(root)
    (root / "README.md").write_text("# keep\n", encoding="utf-8")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (root / "linked").symlink_to(elsewhere)
    (root / "mine").mkdir()
    (root / "mine" / "notes.txt").write_text("mine", encoding="utf-8")
    for out, why in (("README.md", "it is a file"), ("linked", "symbolic link"), ("mine", "did not write")):
        result = CliRunner().invoke(app, ["render", "rules/skirmish", "--out", out])
        assert result.exit_code == 2, result.output
        assert why in one_line_error(result.output)
    assert (root / "README.md").read_text(encoding="utf-8") == "# keep\n"
    assert list(elsewhere.iterdir()) == []


def test_render_never_writes_through_a_linked_subfolder(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.chdir(root)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (root / "md").mkdir()
    (root / "md" / MARKER).write_text("", encoding="utf-8")  # a folder render wrote before
    (root / "md" / "skirmish").symlink_to(elsewhere)
    result = CliRunner().invoke(app, ["render", "rules/skirmish", "--out", "md"])
    assert result.exit_code == 0, result.output
    assert list(elsewhere.iterdir()) == []
    assert (root / "md" / "skirmish").is_dir() and not (root / "md" / "skirmish").is_symlink()
    assert (root / "md" / MARKER).is_file()


def test_export_errors_are_sentences(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    missing = CliRunner().invoke(app, ["export", "rules/skirmish", "--out", "/nonexistent/x.json"])
    assert missing.exit_code == 2
    assert "does not exist" in one_line_error(missing.output)
    folder = CliRunner().invoke(app, ["export", "rules/skirmish", "--out", "rules"])
    assert folder.exit_code == 2
    assert "it is a folder" in one_line_error(folder.output)

    def full(path: object, text: object, encoding: str = "utf-8") -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("compiler.site.output.write_atomic", full)
    disk = CliRunner().invoke(app, ["export", "rules/skirmish", "--out", "x.json"])
    assert disk.exit_code == 1
    assert "No space left on device" in one_line_error(disk.output)
    assert not (root / "x.json").exists()


def test_check_target_refuses_what_is_neither_file_nor_folder(tmp_path: Path) -> None:
    with pytest.raises(OutputFolderError, match="neither a file nor a folder"):
        check_target(Path("/dev/null"), "export to", folder=False)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OutputFolderError, match="neither"):
        check_target(fifo, "export to", folder=False)


def test_new_escapes_a_title_with_a_newline_and_quotes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    title = 'Evil "x"\n""" \\ y'
    assert CliRunner().invoke(app, ["new", "evil", "--title", title]).exit_code == 0
    checked = CliRunner().invoke(app, ["check", "rules/evil"])
    assert checked.exit_code == 0, checked.output
    exported = CliRunner().invoke(app, ["export", "rules/evil"])
    assert '"title": "Evil \\"x\\" \\"\\"\\" \\\\ y"' in exported.output


def test_fmt_stdin_diagnostics_go_to_stderr() -> None:
    result = CliRunner().invoke(app, ["fmt", "-"], input="ruleset x \"X\":\n  version\n")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.strip()


def test_fmt_on_a_full_disk_is_one_sentence(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    rules = root / "rules" / "skirmish" / "ruleset.rules"
    rules.write_text(rules.read_text(encoding="utf-8").replace("\n", "   \n"), encoding="utf-8")
    before = rules.read_bytes()

    def full(path: object, text: object, encoding: str = "utf-8") -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("compiler.atomic.write_atomic", full)
    result = CliRunner().invoke(app, ["fmt", "rules/skirmish"])
    assert result.exit_code == 1, result.output
    assert "No space left on device" in one_line_error(result.output)
    assert rules.read_bytes() == before


@pytest.mark.parametrize("command", [["render", "{p}", "--out", "md"], ["export", "{p}"]])
def test_a_path_that_is_neither_file_nor_folder_is_a_usage_error(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  command: list[str]) -> None:
    monkeypatch.chdir(root)
    os.mkfifo(root / "fifo")
    for p in ("/dev/null", "fifo"):
        result = CliRunner().invoke(app, [a.format(p=p) for a in command])
        assert result.exit_code == 2, result.output
        assert "neither a file nor a folder" in one_line_error(result.output)


@pytest.mark.parametrize("override, why", [
    ('{% extends "lexicon.md.j2" %}\n', "extends or includes itself"),
    ('{% include "lexicon.md.j2" %}\n', "extends or includes itself"),
    ("\n{{ 1/0 }}\n", "ZeroDivisionError: division by zero"),
])
def test_a_template_override_that_raises_is_one_located_sentence(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  override: str, why: str) -> None:
    monkeypatch.chdir(root)
    (root / "site" / "lexicon.md.j2").write_text(override, encoding="utf-8")
    result = CliRunner().invoke(app, ["render", "rules/skirmish", "--out", "md"])
    assert result.exit_code == 1, result.output
    line = one_line_error(result.output)
    assert why in line and "lexicon.md.j2:" in line
    assert not (root / "md").exists()


def test_serve_on_a_busy_port_is_one_sentence(root: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "compiler", "serve", "-a", f"127.0.0.1:{port}"], cwd=root,
                                capture_output=True, text=True, timeout=300,
                                env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"cannot serve on 127.0.0.1:{port}: Address already in use" in result.stderr


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_render_on_a_full_or_read_only_disk_is_one_sentence(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                             code: int) -> None:
    monkeypatch.chdir(root)

    def fail(path: object, text: object, encoding: str = "utf-8") -> None:
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr("compiler.site.output.write_atomic", fail)
    result = CliRunner().invoke(app, ["render", "rules/skirmish", "--out", "md"])
    assert result.exit_code == 1, result.output
    assert os.strerror(code) in one_line_error(result.output)


@pytest.mark.parametrize("command", [["build"], ["fmt", "rules/skirmish"], ["export", "rules/skirmish", "--out", "x.json"]])
def test_a_read_only_disk_is_one_sentence(root: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    # Run as root, a chmod does not stop a write: the file system's refusal is raised where the writing happens.
    monkeypatch.chdir(root)
    rules = root / "rules" / "skirmish" / "ruleset.rules"
    rules.write_text(rules.read_text(encoding="utf-8").replace("\n", "   \n"), encoding="utf-8")  # fmt has work

    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(root / "x"))

    for target in ("compiler.site.output.write_atomic", "compiler.atomic.write_atomic",
                   "mkdocs.commands.build.build"):
        monkeypatch.setattr(target, read_only)
    before = rules.read_bytes()
    result = build(root, monkeypatch) if command == ["build"] else CliRunner().invoke(app, command)
    assert result.exit_code == 1, result.output
    assert "Read-only file system" in one_line_error(result.output)
    assert rules.read_bytes() == before and not (root / "x.json").exists()


@pytest.mark.parametrize("command", [["check", "{p}"], ["test", "{p}"], ["eval", "{p}", "1"], ["table", "{p}", "t"],
                                     ["diff", "{p}", "rules/skirmish"], ["diff", "rules/skirmish", "{p}"],
                                     ["render", "{p}", "--out", "md"], ["export", "{p}"]])
def test_a_pipe_or_a_device_given_to_any_command_is_one_sentence(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 command: list[str]) -> None:
    import threading

    monkeypatch.chdir(root)
    os.mkfifo(root / "fifo")
    for p in ("/dev/null", "fifo"):
        results: list[object] = []
        # Opening a pipe nobody writes to blocks forever: run in a thread so a regression fails, not hangs.
        worker = threading.Thread(target=lambda: results.append(
            CliRunner().invoke(app, [a.format(p=p) for a in command])), daemon=True)
        worker.start()
        worker.join(120)
        assert results, f"{command} on {p} never finished"
        result = results[0]
        assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
        assert "neither a file nor a folder" in one_line_error(result.output)  # type: ignore[attr-defined]
