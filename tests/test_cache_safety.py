"""Nothing read from disk runs as code: planted cache entries, an unsafe or swapped cache folder,
and a repository whose own settings would run commands.

Ownership cases chown a file or folder to a user id that does not exist (``FOREIGN_UID``), which
needs root; they are skipped only when the tests do not run as root (then no file of another
user's can be made either)."""
from __future__ import annotations

import os
import pickle
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from compiler import cachedir
from compiler.ast import cached

TEXT = 'stat BS "Ballistic Skill" 1..10: "Aim."\n'
FOREIGN_UID = 54_321
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="making a file of another user's needs root")


class Planted:
    """A pickle that, loaded, makes a folder: proof that loading ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (os.mkdir, (str(self.marker),))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(cached, "_state", {})
    monkeypatch.setattr(cached, "_READ", {})
    monkeypatch.setattr(cachedir, "_keys", {})
    monkeypatch.setattr(cachedir, "_warned", set())
    monkeypatch.setenv("WARSCRIBE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("WARSCRIBE_CACHE", raising=False)
    return tmp_path / "cache" / "ast"


def _entry_of(text: str, path: str) -> Path:
    key = path.encode() + b"\0" + text.encode()
    entry = cached._entry("ast", key)
    assert entry is not None
    return entry


def test_a_planted_pickle_runs_nothing(folder: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    entry = _entry_of(TEXT, "a.rules")
    evil = pickle.dumps(Planted(marker))
    assert pickle.loads(evil) is None and marker.is_dir()  # the payload is live…
    marker.rmdir()
    for planted in (evil, cachedir.MAGIC + b"\x01" + b"\0" * 32 + evil):  # bare, and with a forged seal
        entry.write_bytes(planted)
        cached._READ.clear()
        assert cached.read_rules(TEXT, "a.rules") == cached.parse_file(TEXT, "a.rules")
        assert not marker.exists()  # …and never runs from the cache


def test_even_a_sealed_entry_holds_only_warscribe_data(folder: Path, tmp_path: Path) -> None:
    """An entry sealed with the user's key (a leaked key, a bug) still cannot name a function."""
    marker = tmp_path / "ran"
    entry = _entry_of(TEXT, "a.rules")
    assert cachedir.write_entry(entry.parent, entry.name, pickle.dumps(Planted(marker)))
    assert cached.read_rules(TEXT, "a.rules") == cached.parse_file(TEXT, "a.rules")
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):
        cachedir.loads(pickle.dumps(Planted(marker)))


def test_the_folder_and_its_key_are_private(folder: Path) -> None:
    cached.read_rules(TEXT, "a.rules")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / cachedir.KEY_NAME).stat().st_mode) == 0o600
    (entry,) = folder.glob("*.ast")
    assert entry.read_bytes().startswith(cachedir.MAGIC)


def test_a_world_writable_folder_is_refused_with_one_warning(folder: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    marker = tmp_path / "ran"
    (folder / f"{0:064x}.ast").write_bytes(pickle.dumps(Planted(marker)))
    for _ in range(3):
        cached._READ.clear()
        assert cached.read_rules(TEXT, "a.rules") == cached.parse_file(TEXT, "a.rules")
    assert cached.cache_folder() is None and not marker.exists()
    assert sorted(p.name for p in folder.iterdir()) == [f"{0:064x}.ast"]  # nothing written there
    err = capsys.readouterr().err
    assert err.count("not using the cache folder") == 1 and "other users can write to it" in err


def test_a_key_others_can_read_is_refused(folder: Path) -> None:
    cached.read_rules(TEXT, "a.rules")
    (folder / cachedir.KEY_NAME).chmod(0o644)
    cachedir._keys.clear()
    cached._READ.clear()
    (entry,) = folder.glob("*.ast")
    assert cachedir.read_entry(folder, entry.name) is None


def _swap(folder: Path, replacement: Path, link: bool) -> None:
    folder.rename(folder.with_name("ast-old"))
    if link:
        folder.symlink_to(replacement)
    else:
        replacement.rename(folder)


def test_a_folder_swapped_for_a_link_is_refused_at_the_next_open(folder: Path, tmp_path: Path) -> None:
    """A long-running process (an editor's language server) checks the folder at each open."""
    cached.read_rules(TEXT, "a.rules")  # the folder is found good and remembered
    (entry,) = folder.glob("*.ast")
    marker = tmp_path / "ran"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    shutil.copy(folder / cachedir.KEY_NAME, elsewhere / cachedir.KEY_NAME)  # even the user's own key
    (elsewhere / entry.name).write_bytes(cachedir.seal(b"x" * 32, entry.name, pickle.dumps(Planted(marker))))
    _swap(folder, elsewhere, link=True)
    cached._READ.clear()
    assert cached.read_rules(TEXT, "a.rules") == cached.parse_file(TEXT, "a.rules")
    assert not marker.exists()
    assert cachedir.read_entry(folder, entry.name) is None
    assert cachedir.write_entry(folder, entry.name, b"x") is False


@as_root
def test_a_folder_swapped_for_another_users_is_refused(folder: Path, tmp_path: Path) -> None:
    cached.read_rules(TEXT, "a.rules")
    (entry,) = folder.glob("*.ast")
    good = entry.read_bytes()
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    for name in (entry.name, cachedir.KEY_NAME):
        shutil.copy(folder / name, theirs / name)
    os.chown(theirs, FOREIGN_UID, FOREIGN_UID)
    _swap(folder, theirs, link=False)
    assert (folder / entry.name).read_bytes() == good  # a well-sealed entry, in a folder not the user's
    assert cachedir.read_entry(folder, entry.name) is None
    assert cachedir.folder_problem(folder) == "it belongs to another user"


@as_root
def test_an_entry_of_another_users_is_a_miss(folder: Path) -> None:
    cached.read_rules(TEXT, "a.rules")
    (entry,) = folder.glob("*.ast")
    assert cachedir.read_entry(folder, entry.name) is not None
    os.chown(entry, FOREIGN_UID, FOREIGN_UID)
    assert cachedir.read_entry(folder, entry.name) is None


def test_a_planted_parser_runs_nothing(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.syntax import grammar

    monkeypatch.setattr(grammar, "_shipped_parser_file", lambda variant, text: None)
    folder.mkdir(parents=True, mode=0o700)
    marker = tmp_path / "ran"
    name = grammar.built_parser_name("parser", grammar.grammar_text())
    (folder / name).write_bytes(pickle.dumps(Planted(marker)))  # Lark's own cache format would load it
    cachedir.write_entry(folder, "probe", b"")  # the key exists: a sealed entry of another content
    built = grammar._load_or_build("parser")
    assert not marker.exists()
    assert built.parse('stat BS "BS" 1..6\n', start="start").data == "start"
    # what it saved instead is sealed, and read back as plain data
    payload = cachedir.read_entry(folder, name)
    assert payload is not None and isinstance(cachedir.loads(payload, plain=True), dict)
    again = grammar._load_or_build("parser")
    assert again.parse(TEXT, start="start") == built.parse(TEXT, start="start")


def test_a_planted_compiled_template_runs_nothing(folder: Path, tmp_path: Path) -> None:
    import jinja2

    from compiler.site.env import SealedBytecodeCache

    folder.mkdir(parents=True, mode=0o700)
    marker = tmp_path / "ran"
    bcc = SealedBytecodeCache(folder, "k")
    env = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ 1 + 1 }}"}), bytecode_cache=bcc)
    assert env.get_template("t").render() == "2"
    (entry,) = folder.glob("*.jinja")
    code = compile(f"import os; os.mkdir({str(marker)!r})", "t", "exec")
    bucket = jinja2.bccache.Bucket(env, bcc.get_cache_key("t"), bcc.get_source_checksum("{{ 1 + 1 }}"))
    bucket.code = code
    entry.write_bytes(bucket.bytecode_to_string())  # Jinja's own format: marshalled code, unsealed
    env2 = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ 1 + 1 }}"}), bytecode_cache=bcc)
    assert env2.get_template("t").render() == "2"
    assert not marker.exists()


# -- git --------------------------------------------------------------------------------------

def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@example.org"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=False)


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A repository with a ruleset whose own settings run a command: fsmonitor, hooks, a filter
    driver on .rules files, a signature check.  Each command makes a file in ``marks``."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("hostile")
    repo, marks = root / "repo", root / "marks"
    marks.mkdir()
    (repo / "rules" / "x").mkdir(parents=True)
    _run(repo, "init", "-q")
    src = Path(__file__).resolve().parent.parent / "rules" / "console-40k"
    for f in src.glob("*.rules"):
        shutil.copy(f, repo / "rules" / "x" / f.name)
    assert _run(repo, "add", "-A").returncode == 0
    assert _run(repo, "commit", "-qm", "one").returncode == 0
    script = root / "evil.sh"
    script.write_text(f'#!/bin/sh\ntouch "{marks}/$1"\ncat\n')
    script.chmod(0o755)
    for key, value in (("core.fsmonitor", f"{script} fsmonitor"), ("filter.evil.clean", f"{script} clean"),
                       ("filter.evil.smudge", f"{script} smudge"), ("log.showSignature", "true"),
                       ("gpg.program", f"{script} gpg"), ("core.pager", f"{script} pager"),
                       ("core.hooksPath", str(root / "hooks"))):
        assert _run(repo, "config", key, value).returncode == 0
    (root / "hooks").mkdir()
    for hook in ("post-checkout", "post-index-change", "reference-transaction"):
        (root / "hooks" / hook).write_text(f'#!/bin/sh\ntouch "{marks}/{hook}"\n')
        (root / "hooks" / hook).chmod(0o755)
    (repo / ".gitattributes").write_text("*.rules filter=evil\n")
    return repo, marks


def test_the_repositorys_commands_are_live(hostile_repo: tuple[Path, Path]) -> None:
    """The planted settings do run under a plain git (so the test below can fail)."""
    repo, marks = hostile_repo
    _run(repo, "status")
    assert (marks / "fsmonitor").exists()
    for m in marks.iterdir():
        m.unlink()


def test_git_runs_none_of_the_repositorys_commands(hostile_repo: tuple[Path, Path]) -> None:
    from compiler.review.gitsource import (SideSpec, changed_since_head, load_commit, releases, repo_root,
                                           resolve_revision, unchanged_since)
    from compiler.site.output import source_date_epoch

    repo, marks = hostile_repo
    folder = repo / "rules" / "x"
    for m in marks.iterdir():
        m.unlink()
    assert repo_root(folder) == repo.resolve()
    head = resolve_revision(repo, "HEAD")
    assert [r.commit for r in releases(folder)] == [head]
    assert changed_since_head([folder]) == {folder: False}
    assert unchanged_since(repo.resolve(), head, [folder])
    loaded = load_commit(repo.resolve(), head, SideSpec("HEAD", str(folder)))
    assert loaded.ok and loaded.model is not None and loaded.model.id == "console-40k"
    assert source_date_epoch(folder).isdigit()
    first = sorted(folder.glob("*.rules"))[0]
    text = first.read_text("utf-8")
    try:
        first.write_text(text + "\n// changed\n", "utf-8")
        assert changed_since_head([folder]) == {folder: True}
        assert not unchanged_since(repo.resolve(), head, [folder])
    finally:
        first.write_text(text, "utf-8")
    assert sorted(m.name for m in marks.iterdir()) == []


def test_with_caching_off_a_sealed_parser_is_read_and_nothing_written(folder: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.syntax import grammar

    monkeypatch.setattr(grammar, "_shipped_parser_file", lambda variant, text: None)
    built = grammar._load_or_build("parser")  # made and saved, sealed
    before = sorted(p.name for p in folder.iterdir())
    monkeypatch.setenv("WARSCRIBE_CACHE", "0")

    def no_build(*args: object, **kwargs: object) -> object:
        raise AssertionError("built again")
    monkeypatch.setattr(grammar, "_build", no_build)
    again = grammar._load_or_build("parser")
    assert again.parse(TEXT, start="start") == built.parse(TEXT, start="start")
    assert sorted(p.name for p in folder.iterdir()) == before
    # a planted, unsealed parser is not read with caching off either: it is built instead
    name = grammar.built_parser_name("parser", grammar.grammar_text())
    marker = tmp_path / "ran"
    (folder / name).write_bytes(pickle.dumps(Planted(marker)))
    with pytest.raises(AssertionError, match="built again"):
        grammar._load_or_build("parser")
    assert not marker.exists()
