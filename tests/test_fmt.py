"""``warscribe fmt``: the canonical layout, comments kept, meaning kept, idempotent, written atomically.

Property tests run the formatter over every bundled ruleset, every fixture and
generated rulesets: formatting never changes what the rules say (the AST of
every declaration, spans aside) and formatting twice changes nothing more.
``rules/`` itself is kept formatted: :func:`test_bundled_rules_are_formatted`
is CI's ``warscribe fmt --check rules/``.
"""
from __future__ import annotations

import functools
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.ast.build import build_file
from compiler.syntax.fmt import FormatError, format_file, format_text, rules_files, structure
from compiler.syntax.parse import parse_text
from strategies import rulesets
from conftest import Ran, warscribe

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("rules/*/*.rules"), *ROOT.glob("tests/fixtures/*/*.rules"),
                  *ROOT.glob("bench/*/*.rules")])
GOLDEN = sorted(ROOT.glob("tests/golden/*.rules"))
HEADER = 'ruleset demo "Demo":\n  version 1.0.0\n'


def fmt(text: str) -> str:
    return format_text(text, "t.rules")


@functools.cache
def formatted(path: Path) -> tuple[str, str]:
    """A file's text and the formatter's answer, worked out once for the two tests that ask for it."""
    text = path.read_text(encoding="utf-8")
    return text, fmt(text)  # raises if the meaning changed


def meaning(text: str):  # type: ignore[no-untyped-def]
    tree, diags = parse_text(text, "t.rules")
    assert tree is not None, diags
    file, _ = build_file(tree, "t.rules")
    return structure(file)


def run(*args: str, cwd: Path | None = None, stdin: str | None = None) -> Ran:
    """warscribe in this process; tests/test_console_script.py runs the real console script."""
    return warscribe(*args, cwd=cwd, stdin=stdin)


# ---------------------------------------------------------------------------
# The layout
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("before, after", [
    ('stat  BS   "B"  1 .. 10 :"Aim."\n', 'stat BS "B" 1..10: "Aim."\n'),
    ("formula f(x) \"F\" = ( x+1 )*-2 - -x / 2 + 25/18\n", 'formula f(x) "F" = (x + 1) * -2 - -x / 2 + 25/18\n'),
    ('test hit( BS ) "H" = roll d6>=BS , natural 1 fails\n', 'test hit(BS) "H" = roll d6 >= BS, natural 1 fails\n'),
    ('table t(S:1..10,T :1..10) "T":\n  T-S<=-2 -> 2 +\n  otherwise->never\n',
     'table t(S: 1..10, T: 1..10) "T":\n  T - S <= -2 -> 2+\n  otherwise -> never\n'),
    ('modifier m "M":\n    - 2 BS of shooter\n    when cover  is hard\n', 'modifier m "M":\n  -2 BS of shooter\n  when cover is hard\n'),
    ('unit u "U":\n  BS 4 Sv 3+    D D3 + 1\n', 'unit u "U":\n  BS 4  Sv 3+  D D3+1\n'),
    ('example e "E":\n  let r = s(5 u,w,10 u) with cover=soft\n  expect P(r.hits>=2)~0.5±0.01\n',
     'example e "E":\n  let r = s(5 u, w, 10 u) with cover = soft\n  expect P(r.hits >= 2) ~ 0.5 ± 0.01\n'),
    ("test t(x) \"T\":\n  roll d6 against (x+4-1)+\n  natural 1 fails\n",
     'test t(x) "T":\n  roll d6 against (x + 4 - 1)+\n  natural 1 fails\n'),
    ('ability a(N: 1..3) "A":\n  on natural 5+ to hit: N extra hits\n', None),
    ('property p "P":\n  for S in 1 .. 9, T in 1..10\n  expect P(hit(S)) >= 0\n',
     'property p "P":\n  for S in 1..9, T in 1..10\n  expect P(hit(S)) >= 0\n'),
    ("formula f(x) \"F\" = x in lo + 1 .. 2\n", 'formula f(x) "F" = x in lo + 1 .. 2\n'),
])
def test_spacing(before: str, after: str | None) -> None:
    result = fmt(before)
    assert result == (after if after is not None else before), result


def test_indentation_becomes_two_spaces_per_block() -> None:
    text = (HEADER.replace("  ", "    ") + 'section a "A":\n\tsection b "B":\n\t\trule r "R": "x"\n'
            'section c "C":\n      rule q "Q":\n            "y"\n')
    assert fmt(text) == (HEADER + 'section a "A":\n  section b "B":\n    rule r "R": "x"\n'
                         'section c "C":\n  rule q "Q":\n    "y"\n')


def test_comments_are_kept_everywhere() -> None:
    text = ("# top\n" + 'ruleset x "X":   # on the header\n    version 1.0.0\n'
            "section a \"A\":\n        # first in the block\n        rule r \"R\": \"x\" # after code\n"
            "        # last in the block\n# between\nformula f(x) \"F\" = max(x,  # inside brackets\n"
            "      # alone inside brackets\n   2)\n# at the end\n")
    result = fmt(text)
    assert result == ("# top\n" + 'ruleset x "X":  # on the header\n  version 1.0.0\n'
                      "section a \"A\":\n  # first in the block\n  rule r \"R\": \"x\"  # after code\n"
                      "  # last in the block\n# between\nformula f(x) \"F\" = max(x,  # inside brackets\n"
                      "      # alone inside brackets\n   2)\n# at the end\n")
    for line in text.splitlines():
        if "#" in line:
            assert line[line.index("#"):] in result


def test_prose_is_kept_byte_for_byte_and_moves_with_its_block() -> None:
    body = "Intro *with* [[x]]\n      an indented line\n\n    | a | b |\n    |---|---|\n    Hard  \n    break"
    text = HEADER + 'section s "S":\n    """\n    ' + body + '\n    """\n'
    result = fmt(text)
    inner = result.split('"""')[1]
    assert inner == "\n  " + body.replace("\n    ", "\n  ").replace("\n      ", "\n    ") + "\n  "
    assert meaning(result) == meaning(text)


def test_prose_that_cannot_move_left_is_left_where_it_is() -> None:
    text = HEADER + 'section s "S":\n    """\nText at the margin\n    indented\n    """\n'
    assert meaning(fmt(text)) == meaning(text)
    assert "\nText at the margin\n    indented\n" in fmt(text)


def test_columns_lined_up_by_hand_stay_lined_up() -> None:
    text = HEADER + ('table t(S: 1..10, T: 1..10) "T":\n  T-S <= -2    -> 2+\n  T - S == -1 -> 3+\n'
                     "  otherwise    -> 4+\n"
                     "attack a(x, y, z) \"A\":\n  shots = x.models\n  hits    = shots each h(x.BS)\n")
    result = fmt(text)
    assert "  T - S <= -2 -> 2+\n  T - S == -1 -> 3+\n  otherwise   -> 4+\n" in result
    assert "  shots = x.models\n  hits  = shots each h(x.BS)\n" in result


def test_columns_not_lined_up_get_single_spaces() -> None:
    text = HEADER + 'table t(x: 1..6) "T":\n  x == 1    -> 2+\n\n  otherwise -> 4+\n'
    assert "  x == 1 -> 2+\n\n  otherwise -> 4+\n" in fmt(text)


def test_grids_and_trailing_comments_line_up() -> None:
    text = HEADER + ('table g(S: 1..2, T: 1..3) "G":\n  grid S by T:\n    T:    1   2   3\n'
                     "    1:    4+  -   never\n    2:  3+ 4+ 5+\n"
                     "formula a() \"A\" = 1     # one\nformula bb() \"B\" = 22  # two\n")
    result = fmt(text)
    assert "    T: 1  2  3\n    1: 4+ -  never\n    2: 3+ 4+ 5+\n" in result
    assert 'formula a() "A" = 1    # one\nformula bb() "B" = 22  # two\n' in result


def test_blank_lines_shrink_to_two_and_the_file_ends_with_one_newline() -> None:
    text = "\n\n" + HEADER + "\n\n\n\n\nstat BS \"B\" 1..6   \n\n\n"
    assert fmt(text) == HEADER + "\n\nstat BS \"B\" 1..6\n"


def test_windows_line_endings_are_kept_and_mean_the_same() -> None:
    text = HEADER + 'section s "S":\n    """\n    Line one.\n\n    Line two.\n    """\n'
    crlf = text.replace("\n", "\r\n")
    assert meaning(crlf) == meaning(text)
    assert fmt(crlf) == fmt(text).replace("\n", "\r\n")


def test_backslash_continuations_are_kept() -> None:
    text = HEADER + 'formula f(x) "F" = x + \\\n      1\n'
    assert fmt(text) == text


def test_a_file_that_does_not_parse_is_not_formatted() -> None:
    with pytest.raises(FormatError) as info:
        fmt(HEADER + 'stat BS "B 1..6\n')
    assert info.value.diagnostics[0].code == "W001"


def test_the_result_is_always_checked() -> None:
    import compiler.syntax.fmt as F

    original = F.Layout.run
    try:
        F.Layout.run = lambda self: original(self).replace("1..6", "1..7")  # a formatter bug
        with pytest.raises(FormatError) as info:
            fmt(HEADER + 'stat BS "B" 1..6\n')
        assert info.value.diagnostics[0].code == "W910"
    finally:
        F.Layout.run = original


# ---------------------------------------------------------------------------
# Properties: meaning kept, idempotent — on every real file and on generated ones
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_formatting_keeps_the_meaning_and_is_idempotent(path: Path) -> None:
    text, once = formatted(path)
    if once == text:  # already formatted: fmt(text) == text is the meaning kept and the idempotence both
        return
    assert meaning(once) == meaning(text)
    assert fmt(once) == once


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_inputs_format_or_report_their_syntax_error(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        once = fmt(text)
    except FormatError as err:
        assert err.diagnostics[0].code in ("W001", "W002", "W003")
    else:
        assert fmt(once) == once


@settings(max_examples=int(os.environ.get("WARSCRIBE_FUZZ_EXAMPLES", "30")),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rulesets(), st.data())
def test_formatting_generated_and_reindented_rulesets(text: str, data: st.DataObject) -> None:
    once = fmt(text)
    assert fmt(once) == once
    # The same rules with another indentation width and sloppy spacing format the same way.
    width = data.draw(st.sampled_from([1, 3, 4, 8]))
    sloppy = "\n".join(_reindent(line, width) for line in text.split("\n"))
    if parse_text(sloppy, "t.rules")[0] is not None and meaning(sloppy) == meaning(text):
        assert fmt(sloppy) == once


def _reindent(line: str, width: int) -> str:
    body = line.lstrip(" ")
    return " " * ((len(line) - len(body)) // 2 * width) + body


def test_bundled_rules_are_formatted() -> None:
    """CI's `warscribe fmt --check rules/`: every bundled ruleset is kept in the canonical layout."""
    paths = sorted(ROOT.glob("rules/*/*.rules"))
    assert set(paths) <= set(SOURCES)  # formatted once, in the property test above
    unformatted = [str(p.relative_to(ROOT)) for p in paths if formatted(p)[1] != formatted(p)[0]]
    assert not unformatted, f"run: warscribe fmt rules/  ({', '.join(unformatted)})"


# ---------------------------------------------------------------------------
# Files, folders and the command line
# ---------------------------------------------------------------------------

MESSY = HEADER + 'stat  BS "B"  1 .. 6\n'
TIDY = HEADER + 'stat BS "B" 1..6\n'


def test_format_file_rewrites_atomically_and_keeps_permissions(tmp_path: Path) -> None:
    path = tmp_path / "x.rules"
    path.write_text(MESSY, encoding="utf-8")
    path.chmod(0o640)
    result = format_file(path)
    assert result.changed and path.read_text(encoding="utf-8") == TIDY
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.rules"]  # no temporary file left
    assert not format_file(path).changed


def test_a_failed_write_leaves_the_file_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.rules"
    path.write_text(MESSY, encoding="utf-8")

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError):
        format_file(path)
    assert path.read_text(encoding="utf-8") == MESSY
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.rules"]


def test_a_link_is_formatted_where_it_points_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real.rules").write_text(MESSY, encoding="utf-8")
    (tmp_path / "link.rules").symlink_to("real.rules")
    format_file(tmp_path / "link.rules")
    assert (tmp_path / "link.rules").is_symlink()
    assert (tmp_path / "real.rules").read_text(encoding="utf-8") == TIDY


def test_folders_are_searched_but_links_out_of_them_are_not_followed(tmp_path: Path) -> None:
    (tmp_path / "rules" / "a").mkdir(parents=True)
    (tmp_path / "rules" / "a" / "x.rules").write_text(TIDY, encoding="utf-8")
    (tmp_path / "rules" / ".hidden").mkdir()
    (tmp_path / "rules" / ".hidden" / "y.rules").write_text(MESSY, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "z.rules").write_text(MESSY, encoding="utf-8")
    (tmp_path / "rules" / "b").symlink_to(tmp_path / "elsewhere")
    assert [p.name for p in rules_files([str(tmp_path / "rules")])] == ["x.rules"]


def test_fmt_check_lists_unformatted_files_and_exits_1(tmp_path: Path) -> None:
    folder = tmp_path / "rules" / "demo"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(MESSY, encoding="utf-8")
    (folder / "tidy.rules").write_text('stat S "S" 1..6\n', encoding="utf-8")
    r = run("fmt", "--check", cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "would reformat rules/demo/ruleset.rules" in r.stdout
    assert "1 file would be reformatted, 1 file would be left unchanged" in r.stdout
    assert (folder / "ruleset.rules").read_text(encoding="utf-8") == MESSY  # --check changes nothing
    r = run("fmt", "--diff", cwd=tmp_path)
    assert r.returncode == 0 and "-stat  BS" in r.stdout and "+stat BS" in r.stdout
    r = run("fmt", cwd=tmp_path)
    assert r.returncode == 0 and "reformatted rules/demo/ruleset.rules" in r.stdout
    assert (folder / "ruleset.rules").read_text(encoding="utf-8") == TIDY
    assert run("fmt", "--check", cwd=tmp_path).returncode == 0


def test_fmt_reports_a_syntax_error_and_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.rules"
    path.write_text(HEADER + 'stat BS "B 1..6\n', encoding="utf-8")
    r = run("fmt", str(path))
    assert r.returncode == 1 and "error[W001]" in r.stderr and "Traceback" not in r.stdout + r.stderr
    assert path.read_text(encoding="utf-8") == HEADER + 'stat BS "B 1..6\n'


def test_fmt_reads_standard_input() -> None:
    r = run("fmt", "-", stdin=MESSY)
    assert r.returncode == 0 and r.stdout == TIDY


def test_fmt_wrong_calls_exit_2(tmp_path: Path) -> None:
    assert run("fmt", str(tmp_path / "missing")).returncode == 2
    (tmp_path / "x.txt").write_text("x", encoding="utf-8")
    assert run("fmt", str(tmp_path / "x.txt")).returncode == 2
