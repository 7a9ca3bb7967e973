"""The AST cache: the same answer as parsing, from a folder the user owns; any trouble is a miss."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from compiler.ast import cached

TEXT = 'stat BS "Ballistic Skill" 1..10: "Aim."\n\ntest hit(x) "Hit":\n  roll d6 >= 4\n  roll d6 >= 3\n'


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(cached, "_state", {})
    monkeypatch.setattr(cached, "_READ", {})
    monkeypatch.setenv("WARSCRIBE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("WARSCRIBE_CACHE", raising=False)
    return tmp_path / "ast"


def fresh(text: str, path: str) -> tuple[object, tuple[object, ...]]:
    """What parsing and building the text gives without the cache."""
    return cached.parse_file(text, path)


def test_a_hit_is_the_same_as_parsing(folder: Path) -> None:
    first = cached.read_rules(TEXT, "a.rules")
    assert len(list(folder.glob("*.ast"))) == 1
    again = cached.read_rules(TEXT, "a.rules")
    assert first == again == fresh(TEXT, "a.rules")
    assert again[1] and again[1][0].code == "W105"  # the builder's diagnostic comes back too


def test_the_path_is_part_of_the_key(folder: Path) -> None:
    cached.read_rules(TEXT, "a.rules")
    file, _ = cached.read_rules(TEXT, "b.rules")
    assert file is not None and file.path == "b.rules" and file.items[0].span.file == "b.rules"


def test_a_syntax_error_is_kept_as_it_came(folder: Path) -> None:
    bad = 'table "Wound chart":\n  otherwise -> 4+\n'
    assert cached.read_rules(bad, "x.rules") == cached.read_rules(bad, "x.rules") == fresh(bad, "x.rules")


def test_a_damaged_entry_is_a_miss(folder: Path) -> None:
    cached.read_rules(TEXT, "a.rules")
    (entry,) = folder.glob("*.ast")
    entry.write_bytes(b"not a pickle")
    assert cached.read_rules(TEXT, "a.rules") == fresh(TEXT, "a.rules")


def test_off_when_asked(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARSCRIBE_CACHE", "0")
    assert cached.read_rules(TEXT, "a.rules") == fresh(TEXT, "a.rules")
    assert not folder.exists()


def test_a_folder_that_cannot_be_made_is_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cached, "_state", {})
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("WARSCRIBE_CACHE_DIR", str(blocker))
    assert cached.cache_folder() is None
    assert cached.read_rules(TEXT, "a.rules") == fresh(TEXT, "a.rules")


def test_a_full_folder_loses_its_oldest_half(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the cache's own entries are pruned: a file of another name (the user's notes, a file
    named like an entry but for a case of letters the cache never writes) stays."""
    monkeypatch.setattr(cached, "MAX_ENTRIES", 4)
    folder.mkdir(parents=True, mode=0o700)
    names = [f"{i:064x}.ast" for i in range(6)]
    for i, name in enumerate(names):
        (folder / name).write_bytes(b"")
        os.utime(folder / name, (i, i))
    others = ["notes.txt", "0.ast", f"{10:064X}.ast", "key"]
    for i, name in enumerate(others):
        (folder / name).write_bytes(b"mine")
        os.utime(folder / name, (0, 0))
    assert cached.cache_folder() == folder
    assert sorted(p.name for p in folder.iterdir()) == sorted(names[3:] + others)


def test_a_long_run_stays_bounded(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cached, "MAX_ENTRIES", 4)
    for i in range(12):
        cached.read_rules(f'stat S{i} "Strength" 1..10: "Strong."\n', "a.rules")
    assert len(list(folder.glob("*.ast"))) <= 4


def test_files_read_passing_through_are_not_kept(folder: Path) -> None:
    with cached.passing():
        first = cached.read_rules(TEXT, "/tmp/warscribe-x/a.rules")
    assert first == fresh(TEXT, "/tmp/warscribe-x/a.rules")
    assert not list(folder.glob("*.ast"))
    assert cached.read_rules(TEXT, "a.rules") == fresh(TEXT, "a.rules")  # outside, kept as ever
    assert len(list(folder.glob("*.ast"))) == 1
