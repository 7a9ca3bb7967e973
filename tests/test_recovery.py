"""Error recovery: a syntax error costs only the top-level declaration it is in."""
from __future__ import annotations

from pathlib import Path

from compiler.driver import compile_paths, compile_text
from compiler.syntax.recover import parse_recovering, top_level_pieces

TEXT = '''ruleset r "R":
  version 1.0.0

stat BS "BS" 1..6: "b"

test hit(BS) = roll d6 >=

section s "S":
  """
A prose line at the margin, inside a prose block.
  """
  formula twice(x) "Twice" = 2 *

formula thrice(x) "Thrice" = 3 * x

example e "E":
  expect P(hit(4)) = 1/2
  expect twice(2) = 4
  expect thrice(2) = 6
'''


def test_pieces_follow_top_level_declarations_not_prose() -> None:
    starts = [s for s, _ in top_level_pieces(TEXT)]
    assert starts == [0, 3, 5, 7, 13, 15]


def test_each_broken_declaration_gives_one_error_and_no_cascade() -> None:
    result = compile_text(TEXT, "r.rules")
    errors = [(d.code, d.span.line) for d in result.diagnostics if d.is_error]
    assert errors == [("W001", 6), ("W001", 12)]  # no "unknown name 'hit'" / "'twice'" in the example
    assert len(result.rulesets) == 1 and "thrice" in result.rulesets[0].callables


def test_a_broken_header_still_counts_the_ruleset(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(TEXT.replace("version 1.0.0", "version 1.0"), encoding="utf-8")
    result = compile_paths([folder])
    assert [r.id for r in result.rulesets] == ["r"]
    assert [(d.code, d.span.line) for d in result.diagnostics if d.is_error] == \
        [("W001", 2), ("W001", 6), ("W001", 12)]


def test_a_clean_file_is_parsed_once_as_a_whole() -> None:
    tree, diags, recovered = parse_recovering('stat BS "BS" 1..6\n', "x.rules")
    assert tree is not None and diags == () and recovered.broken == () and recovered.header is None
