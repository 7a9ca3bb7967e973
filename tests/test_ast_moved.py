"""A text read at one path and met again at another: its AST moved there is the one parsing gives."""
from __future__ import annotations

from pathlib import Path

import pytest

from compiler.ast import cached
from compiler.ast.moved import moved

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(ROOT.glob("rules/*/*.rules")) + sorted(ROOT.glob("tests/**/*.rules"))
BROKEN = [
    'table "Wound chart":\n  otherwise -> 4+\n',  # a syntax error, recovered from
    'ruleset demo "Demo\n  version 1.0.0\n',  # the header itself lost: its id and title guessed
    'stat BS "BS" 1..6\nstat oops oops\nstat S "S" 1..10\n',  # one declaration lost (its id kept as broken)
    "",
]


def test_every_bundled_and_test_file_is_found() -> None:
    assert len(FILES) > 80  # the six rulesets and the test files: the walk meets every kind of node


@pytest.mark.parametrize("text", [p.read_text("utf-8") for p in FILES] + BROKEN,
                         ids=[str(p.relative_to(ROOT)) for p in FILES] + [f"broken{i}" for i in range(len(BROKEN))])
def test_moved_is_parsing_at_the_new_path(text: str) -> None:
    here = cached.parse_file(text, "/tmp/warscribe-a1/rules/x/file.rules")
    there = moved(here, "/tmp/warscribe-a1/rules/x/file.rules", "rules/x/file.rules")
    assert there == cached.parse_file(text, "rules/x/file.rules")
    assert repr(there) == repr(cached.parse_file(text, "rules/x/file.rules"))


def test_the_diagnostics_move_too() -> None:
    file, diags = cached.parse_file(BROKEN[2], "a.rules")
    assert diags and diags[0].span.file == "a.rules"
    moved_file, moved_diags = moved((file, diags), "a.rules", "b.rules")  # type: ignore[misc]
    assert moved_file is not None and moved_file.path == "b.rules" and moved_file.broken == ("oops",)
    assert [d.span.file for d in moved_diags] == ["b.rules"] * len(diags)


def test_a_value_it_does_not_know_is_left_to_parsing() -> None:
    assert moved(({"a": 1},), "a.rules", "b.rules") is None


@pytest.fixture
def reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths parsed from now on (the cache folder empty, the process's memory of texts too)."""
    monkeypatch.setattr(cached, "_state", {})
    monkeypatch.setattr(cached, "_READ", {})
    monkeypatch.setenv("WARSCRIBE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("WARSCRIBE_CACHE", raising=False)
    parsed: list[str] = []
    parse = cached.parse_file

    def counting(text: str, path: str) -> object:
        parsed.append(path)
        return parse(text, path)
    monkeypatch.setattr(cached, "parse_file", counting)
    return parsed


def test_a_text_read_again_elsewhere_is_not_parsed_again(reads: list[str]) -> None:
    text = (ROOT / "rules" / "console-40k" / "profiles.rules").read_text("utf-8")
    first = cached.read_rules(text, "rules/console-40k/profiles.rules")
    again = cached.read_rules(text, "/tmp/warscribe-x/rules/console-40k/profiles.rules")
    assert reads == ["rules/console-40k/profiles.rules"]
    assert again == cached.parse_file(text, "/tmp/warscribe-x/rules/console-40k/profiles.rules")
    assert first != again  # the spans name the file each was read at
    changed = cached.read_rules(text + "\n", "/tmp/warscribe-x/rules/console-40k/profiles.rules")
    assert reads[-1] == "/tmp/warscribe-x/rules/console-40k/profiles.rules"  # another text is parsed
    assert changed[0] is not None


def test_the_memory_of_texts_is_bounded(reads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cached, "MAX_READ", 3)
    for i in range(10):
        cached.read_rules(f'stat S{i} "S" 1..6\n', f"{i}.rules")
    assert len(cached._READ) == 3
    cached.read_rules('stat S0 "S" 1..6\n', "elsewhere.rules")  # forgotten: parsed again
    assert reads[-1] == "elsewhere.rules"
