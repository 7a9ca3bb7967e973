"""Red team: a repository's own settings cannot make git read what warscribe reads.

A configuration file may include another by path, and ``/dev/stdin`` is a path: git then reads
its settings from warscribe's standard input — the user's keys at a terminal (warscribe waits
for them), or the messages an editor sends ``warscribe lsp``.  Git now runs with no standard
input and no terminal (``/dev/tty`` is refused the same way), so an input fed to warscribe is
never read as settings; the one call that feeds git (``cat-file --batch``, whose input such a
repository would read as settings and stop) falls back to reading the blobs one at a time."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from compiler.gitrun import git
from conftest import ROOT, warscribe_process


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@example.org"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=False,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("stdin") / "repo"
    (repo / "rules" / "x").mkdir(parents=True)
    _run(repo, "init", "-q")
    shutil.copy(ROOT / "tests" / "fixtures" / "sample" / "ruleset.rules", repo / "rules" / "x" / "ruleset.rules")
    assert _run(repo, "add", "-A").returncode == 0
    assert _run(repo, "commit", "-qm", "one").returncode == 0
    assert _run(repo, "config", "include.path", "/dev/stdin").returncode == 0
    return repo


def test_git_reads_no_settings_from_warscribe_s_standard_input(repo: Path) -> None:
    # What a user types (or an editor sends) would be a broken settings file: git would stop.
    ran = warscribe_process("diff", "HEAD", "rules/x", cwd=repo, stdin="these are the user's keys\n")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "no differences in the rules" in ran.stdout, ran.stdout  # the ruleset at HEAD was read and compiled


def test_git_is_given_neither_standard_input_nor_a_terminal(repo: Path) -> None:
    (repo / ".git" / "tty.config").write_text("[include]\n\tpath = /dev/tty\n", encoding="utf-8")
    try:
        assert _run(repo, "config", "--add", "include.path", "tty.config").returncode == 0
        answer = git(repo, "rev-parse", "--show-toplevel")
        # No terminal to read: git says so and stops at once (with a terminal it would wait for keys).
        assert answer.returncode != 0 and "/dev/tty" in answer.stderr, answer
    finally:
        _run(repo, "config", "--unset", "include.path", "tty.config")


def test_a_release_is_named_by_its_header_never_by_a_line_of_prose(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    from compiler.review.gitsource import releases

    repo = tmp_path / "repo"
    folder = repo / "rules" / "x"
    (folder / "sub").mkdir(parents=True)
    _run(repo, "init", "-q")
    header = 'ruleset x "X":\n  version {}\n\ninclude "a.rules"\nstat BS "B" 1..6: "{}"\n'
    (folder / "a.rules").write_text('section s "S":\n  """\n  Nothing yet.\n  """\n', encoding="utf-8")
    (folder / "ruleset.rules").write_text(header.format("1.0.0", "one"), encoding="utf-8")
    assert _run(repo, "add", "-A").returncode == 0 and _run(repo, "commit", "-qm", "one").returncode == 0
    # A file before the header's, whose prose has a line like a version field; a folder inside
    # with a ruleset of its own; a header whose version line is no version (it did not check).
    (folder / "a.rules").write_text('section s "S":\n  """\n  version 9.9.9<img src=x onerror=alert(1)>\n'
                                    '  version 8.8.8\n  """\n', encoding="utf-8")
    (folder / "sub" / "ruleset.rules").write_text(header.format("7.7.7", "inner"), encoding="utf-8")
    (folder / "ruleset.rules").write_text(header.format("2.0.0", "two"), encoding="utf-8")
    assert _run(repo, "add", "-A").returncode == 0 and _run(repo, "commit", "-qm", "two").returncode == 0
    (folder / "ruleset.rules").write_text(header.format("3.0.0<b>", "three"), encoding="utf-8")
    assert _run(repo, "commit", "-qam", "three").returncode == 0
    assert [r.version for r in releases(folder)] == ["2.0.0", "1.0.0"]


def test_a_repository_where_git_stalls_is_waited_for_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "stalls"
    repo.mkdir()
    _run(repo, "init", "-q")
    (repo / "a.rules").write_text("x\n", encoding="utf-8")
    assert _run(repo, "add", "-A").returncode == 0 and _run(repo, "commit", "-qm", "one").returncode == 0
    os.mkfifo(repo / ".git" / "packed-refs")  # git opens it to find a ref, and waits for a writer
    with pytest.raises(subprocess.TimeoutExpired):
        git(repo, "log", "-1", "--format=%H", timeout=0.5)
    asked: list[object] = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: asked.append(a))
    (repo / "sub").mkdir()
    for where in (repo, repo / "sub"):  # at once: git is not started again for this repository
        with pytest.raises(subprocess.TimeoutExpired):
            git(where, "rev-parse", "HEAD")
    assert asked == []
    git(tmp_path, "rev-parse", "--show-toplevel")  # another repository (none here) is asked as before
    assert len(asked) == 1
