"""Tests of the Pygments lexer (compiler/syntax/lexer.py) and its entry point."""

from __future__ import annotations

import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import (
    get_lexer_by_name,
    get_lexer_for_filename,
    get_lexer_for_mimetype,
)
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Literal,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
)

from compiler.syntax.lexer import WarscribeLexer

ROOT = Path(__file__).resolve().parent.parent
RULES_FILES = sorted(
    list((ROOT / "rules").rglob("*.rules"))
    + list((ROOT / "tests" / "fixtures").rglob("*.rules"))
)


def spans(src: str) -> list[tuple[int, object, str]]:
    """(offset, token type, text) of every token, whitespace included."""
    return list(WarscribeLexer().get_tokens_unprocessed(src))


def visible(src: str) -> list[tuple[object, str]]:
    return [(t, v) for _, t, v in spans(src) if v.strip()]


def kind(src: str, text: str, nth: int = 0):
    """The token type of the nth token whose text is `text`."""
    found = [t for t, v in visible(src) if v == text]
    assert len(found) > nth, f"no token {text!r} in {visible(src)}"
    return found[nth]


WOUND_CHART = 'table to_wound(S, T) "Wound chart":\n  T - S <= -2 -> 2+\n'


# ---------------------------------------------------------------------------
# token spans
# ---------------------------------------------------------------------------


def test_wound_chart_spans():
    toks = spans(WOUND_CHART)
    by_offset = {i: (t, v) for i, t, v in toks}
    assert by_offset[0] == (Keyword.Declaration, "table")
    assert by_offset[6] == (Name.Function, "to_wound")
    assert by_offset[14] == (Punctuation, "(")
    assert by_offset[15] == (Name, "S")
    assert by_offset[18] == (Name, "T")
    title = WOUND_CHART.index('"Wound chart"')
    title_tokens = [(t, v) for i, t, v in toks if title <= i < title + len('"Wound chart"')]
    assert "".join(v for _, v in title_tokens) == '"Wound chart"'
    assert all(t in String for t, _ in title_tokens)
    assert kind(WOUND_CHART, ":") is Punctuation
    assert kind(WOUND_CHART, "-") is Operator
    assert kind(WOUND_CHART, "<=") is Operator
    assert kind(WOUND_CHART, "2") in Number
    arrow = WOUND_CHART.index("->")
    assert by_offset[arrow] == (Operator, "->")
    target = WOUND_CHART.index("2+")
    assert by_offset[target][1] == "2+"
    assert by_offset[target][0] in Number


def test_prose_block_with_links():
    src = (
        'rule cover "Cover":\n'
        '  """A model in [[terrain]] gets\n'
        '  a [[cover_save|cover save]]: see "rules".\n'
        '  # not a comment in prose\n'
        '  """\n'
    )
    toks = visible(src)
    assert (Name.Label, "[[terrain]]") in toks
    assert (Name.Label, "[[cover_save|cover save]]") in toks
    start = next(i for i, (t, v) in enumerate(toks) if v == '"""')
    end = max(i for i, (t, v) in enumerate(toks) if v == '"""')
    inside = toks[start : end + 1]
    assert {t for t, _ in inside} <= {String.Doc, Name.Label}
    assert toks[start][0] is String.Doc and toks[end][0] is String.Doc
    text = "".join(v for _, v in inside)
    assert "# not a comment in prose" in text and "\n" in text
    assert not any(t in Comment for t, _ in toks)


def test_link_in_one_line_string():
    src = 'term engagement "Engagement": "Two units in [[base_contact|contact]]."\n'
    assert kind(src, "[[base_contact|contact]]") is Name.Label
    assert kind(src, "Two units in ") is String.Double
    assert kind(src, "Engagement") is String.Double


def test_string_escape_and_hash_inside_string():
    src = 'rule r "A \\"quoted\\" # word": "x"\n'
    assert kind(src, '\\"') is String.Escape
    assert not any(t in Comment for t, _ in visible(src))


def test_comments():
    src = "# a whole-line comment\ntest hit(BS) \"Hit\":\n  roll d6 against to_hit(BS)   # trailing\n"
    assert kind(src, "# a whole-line comment") is Comment.Single
    assert kind(src, "# trailing") is Comment.Single


def test_declarations_and_their_ids():
    src = (
        'ruleset my-skirmish "My Skirmish":\n'
        "  version 1.0.0\n"
        "  extends classic-40k ^1.0.0\n"
        "  history:\n"
        '    1.0.0 2026-10-01: "First."\n'
        'include "profiles.rules"\n'
        'stat BS "Ballistic Skill" 1..10: "Shooting."\n'
        'unit space_marine "Space Marine":\n'
        "  BS 4  Sv 3+  M 6\"\n"
        'weapon boltgun "Boltgun":\n'
        '  Range 24"  D D3\n'
        'squad tactical "Tactical":\n'
        "  models space_marine 5..10\n"
        "  points 70 + 14 per extra model\n"
        'formula f(S, T) "F" = (T + 4) - S\n'
        'attack shooting(shooter, weapon, target) "Shooting":\n'
        "  let n = shooter.models * weapon.A\n"
        "  hits = n each hit(shooter.BS)\n"
        "  killed = hits removes target, damage weapon.D\n"
        'open question deep_strike "Deep strike?": "Unclear."\n'
        'designer note why "Why": "Because."\n'
        'assumption "Unnamed": "Fine."\n'
        'replace rule cover "Cover": "New."\n'
        "remove cavalry\n"
        "extend shooting:\n"
        '  modifier light "Light cover": -1 BS when cover is light\n'
    )
    assert kind(src, "ruleset") is Keyword.Declaration
    assert kind(src, "my-skirmish") is Name.Namespace
    assert kind(src, "version") is Keyword
    assert kind(src, "1.0.0") in Number
    assert kind(src, "extends") is Keyword
    assert kind(src, "classic-40k") is Name.Namespace
    assert kind(src, "^1.0.0") in Number
    assert kind(src, "2026-10-01") is Literal.Date
    assert kind(src, "include") is Keyword.Declaration
    assert kind(src, "stat") is Keyword.Declaration
    assert kind(src, "BS") is Name.Constant
    assert kind(src, "unit") is Keyword.Declaration
    assert kind(src, "space_marine") is Name.Class
    assert kind(src, "weapon") is Keyword.Declaration
    assert kind(src, "boltgun") is Name.Class
    assert kind(src, "squad") is Keyword.Declaration
    assert kind(src, "tactical") is Name.Class
    assert kind(src, "formula") is Keyword.Declaration
    assert kind(src, "f") is Name.Function
    assert kind(src, "attack") is Keyword.Declaration
    assert kind(src, "shooting") is Name.Function
    assert kind(src, "let") is Keyword.Declaration
    assert kind(src, "n") is Name.Variable
    assert kind(src, "hits") is Name.Variable
    # open question / designer note are declaration keywords of two words
    assert kind(src, "open") is Keyword.Declaration
    assert kind(src, "question") is Keyword.Declaration
    assert kind(src, "deep_strike") is Name.Constant
    assert kind(src, "designer") is Keyword.Declaration
    assert kind(src, "note") is Keyword.Declaration
    assert kind(src, "assumption") is Keyword.Declaration
    assert kind(src, "replace") is Keyword.Declaration
    assert kind(src, "rule") is Keyword.Declaration
    assert kind(src, "cover") is Name.Constant
    assert kind(src, "remove") is Keyword.Declaration
    assert kind(src, "cavalry") is Name.Constant
    assert kind(src, "extend") is Keyword.Declaration
    assert kind(src, "modifier") is Keyword.Declaration
    assert kind(src, "light") is Name.Constant
    # profile lines: keywords, targets, distances, dice
    assert kind(src, "models") is Keyword
    assert kind(src, "points") is Keyword
    assert kind(src, "per") is Keyword
    assert kind(src, "3+") in Number
    assert kind(src, '6"') in Number
    assert kind(src, '24"') in Number
    assert kind(src, "D3") in Number
    # declaration keywords used as names mid-line stay names
    assert kind(src, "weapon", 1) is Name  # the parameter
    assert kind(src, "weapon", 2) is Name  # weapon.A
    assert kind(src, "target") is Name
    assert kind(src, ".") is Punctuation
    assert kind(src, "A") is Name.Attribute
    assert kind(src, "models", 1) is Name.Attribute  # shooter.models
    assert kind(src, "removes") is Keyword
    assert kind(src, "damage") is Keyword


def test_stat_types_are_keywords_only_after_a_title():
    src = (
        'stat Sv "Save" target: "The roll."\n'
        'stat M "Move" distance\n'
        'stat BS "BS" 0..10 unclamped: "Low."\n'
        'formula far(distance: 0..120) "Far" = distance > 24"\n'
    )
    assert kind(src, "target") is Keyword
    assert kind(src, "distance") is Keyword
    assert kind(src, "unclamped") is Keyword
    assert kind(src, "distance", 1) is Name
    assert kind(src, "distance", 2) is Name


def test_tests_dice_builtins_and_operators():
    src = (
        'test save(Sv, AP) "Armour save":\n'
        "  roll d6 >= Sv + AP\n"
        "  natural 1 or 2 fails\n"
        "  never better than 2+\n"
        "  modifiers between -1 and 1\n"
        "  reroll 1s\n"
        "test morale(Ld) = roll 2D6 <= Ld, reroll failures\n"
        'example e "E":\n'
        "  let r = shooting(5 space_marine, boltgun, 10 ork_boy) with cover = soft, charged\n"
        "  expect mean(r.killed) = 25/18\n"
        "  expect P(r.killed >= 2) ~ 0.35 ± 0.01\n"
        "  expect to_wound(3, 6) = 6 then 4+\n"
        "  expect max(natural(d6), 3-) != explode(d6, 6, 5)\n"
        "  expect x is none or y in 1..10 and not true\n"
    )
    assert kind(src, "test") is Keyword.Declaration
    assert kind(src, "save") is Name.Function
    assert kind(src, "morale") is Name.Function
    for word in ("roll", "natural", "fails", "better", "than", "modifiers",
                 "between", "and", "reroll", "failures", "with", "expect",
                 "then", "is", "or", "in", "not"):
        assert kind(src, word) in Keyword, word
    assert kind(src, "never") in Keyword
    assert kind(src, "none") in Keyword
    assert kind(src, "true") in Keyword
    assert kind(src, "1s") in Keyword
    assert kind(src, "d6") in Number
    assert kind(src, "2D6") in Number
    assert kind(src, "0.35") is Number.Float
    assert kind(src, "25") is Number.Integer
    assert kind(src, "3-") in Number
    assert kind(src, "4+") in Number
    for op in (">=", "<=", "=", "/", "~", "±", "..", "!=", "+", "-"):
        assert kind(src, op) is Operator, op
    for builtin in ("mean", "P", "max", "natural", "explode"):
        found = [t for t, v in visible(src) if v == builtin]
        assert Name.Builtin in found, builtin
    assert kind(src, "shooting") is Name.Function  # a call of a user function
    assert kind(src, "killed") is Name.Attribute
    assert kind(src, "cover") is Name  # a keyword argument / setting


def test_grid_ability_and_game_lines():
    src = (
        'table printed(S, T) "Printed":\n'
        "  grid S by T:\n"
        "    T: 1  2  3\n"
        "    1: 4+ 5+ -\n"
        "    2: 3+ 4+ never\n"
        'ability sustained_hits(N: 1..3) "Sustained Hits": "Extra hits."\n'
        "  on natural 6 to hit: N extra hits\n"
        "  on each damage: roll d6, ignored on X+\n"
        "  stacking highest\n"
        'army standard "Army":\n'
        '  require reserve_points <= points / 2: "Half."\n'
        'game battle "Battle":\n'
        "  turns 4\n"
        "  activation alternating_units\n"
        '  phase shooting "Shooting":\n'
        '    step pick "Pick": "All fire."\n'
        '  score objective "Objective": 2 per objective\n'
        '  victory win "Win": "Ten points."\n'
        'die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3\n'
    )
    assert kind(src, "grid") is Keyword.Declaration
    assert kind(src, "by") is Keyword
    assert kind(src, "5+") in Number
    assert kind(src, "never") in Keyword
    assert kind(src, "ability") is Keyword.Declaration
    assert kind(src, "sustained_hits") is Name.Function
    for word in ("on", "to", "extra", "each", "damage", "ignored", "stacking",
                 "highest", "require", "turns", "activation", "per", "as"):
        assert kind(src, word) in Keyword, word
    assert kind(src, "army") is Keyword.Declaration
    assert kind(src, "standard") is Name.Class
    assert kind(src, "game") is Keyword.Declaration
    assert kind(src, "battle") is Name.Class
    for decl, ident in (("phase", "shooting"), ("step", "pick"),
                        ("score", "objective"), ("victory", "win")):
        assert kind(src, decl) is Keyword.Declaration, decl
        assert kind(src, ident) is Name.Constant, ident
    assert kind(src, "die") is Keyword.Declaration
    assert kind(src, "D3") in Number


# ---------------------------------------------------------------------------
# robustness
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", RULES_FILES, ids=[str(p.relative_to(ROOT)) for p in RULES_FILES]
)
def test_every_rules_file_lexes_cleanly(path):
    src = path.read_text(encoding="utf-8")
    toks = spans(src)
    errors = [(src.count("\n", 0, i) + 1, v) for i, t, v in toks if t is Error]
    assert errors == [], f"Error tokens (line, text): {errors[:10]}"
    assert "".join(v for _, _, v in toks) == src
    # offsets are contiguous
    pos = 0
    for i, _, v in toks:
        assert i == pos
        pos += len(v)


def test_there_are_rules_files_to_lex():
    assert len(RULES_FILES) >= 10
    assert any("fixtures" in p.relative_to(ROOT).parts for p in RULES_FILES)
    assert any(p.relative_to(ROOT).parts[0] == "rules" for p in RULES_FILES)


def test_language_reference_fences_lex_cleanly():
    md = (ROOT / "site" / "language.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```warscribe\n(.*?)```", md, re.S)
    assert len(blocks) >= 10
    for block in blocks:
        assert [v for t, v in visible(block) if t is Error] == []


@pytest.mark.parametrize(
    "src",
    [
        "",
        '"unterminated\nrule r "R": "x"\n',
        '"""never closed\n[[link',
        "[[ not a link ]] @ $ % { } ' ;",
        "\\\n",
        "\r\n\r\n",
        "table t(",
        "é ü 日本",
    ],
)
def test_odd_input_never_raises(src):
    toks = spans(src)
    assert "".join(v for _, _, v in toks) == src
    # get_tokens (with its newline handling) and highlight work too
    list(WarscribeLexer().get_tokens(src))
    highlight(src, WarscribeLexer(), HtmlFormatter())


def test_unterminated_string_ends_at_end_of_line():
    src = '"open\nrule r "R": "x"\n'
    assert kind(src, "rule") is Keyword.Declaration
    assert kind(src, "r") is Name.Constant


def test_genuinely_odd_characters_are_errors():
    assert kind("x @ y", "@") is Error
    assert kind("x ; y", ";") is Error


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('ab dD0123456789+-."#:=()[]|\n\\_ \té±')),
               max_size=80))
def test_fuzz_round_trip(src):
    toks = spans(src)
    assert "".join(v for _, _, v in toks) == src
    bad = [v for _, t, v in toks if t is Error]
    # only characters outside the language may be errors
    assert all(v in "é\\|" for v in bad), bad


# ---------------------------------------------------------------------------
# registration and HTML output
# ---------------------------------------------------------------------------


def test_entry_point_registered():
    eps = entry_points(group="pygments.lexers")
    assert any(ep.name == "warscribe" and ep.value == "compiler.syntax.lexer:WarscribeLexer"
               for ep in eps)
    assert get_lexer_by_name("warscribe").__class__.__name__ == "WarscribeLexer"
    assert get_lexer_by_name("rules").name == "warscribe"
    assert get_lexer_for_filename("x.rules").name == "warscribe"
    assert get_lexer_for_mimetype("text/x-warscribe").name == "warscribe"


def test_attributes():
    assert WarscribeLexer.name == "warscribe"
    assert WarscribeLexer.aliases == ["warscribe", "rules"]
    assert WarscribeLexer.filenames == ["*.rules"]
    assert WarscribeLexer.mimetypes == ["text/x-warscribe"]


def test_html_formatter_spans():
    html = highlight(WOUND_CHART, get_lexer_by_name("warscribe"), HtmlFormatter())
    assert '<span class="kd">table</span>' in html
    assert '<span class="nf">to_wound</span>' in html
    assert '<span class="o">-&gt;</span>' in html
    assert re.search(r'<span class="m\w*">2\+</span>', html)
    assert re.search(r'<span class="s\w*">', html)
    # keywords get a "k…" class that material's CSS colours
    assert re.findall(r'<span class="(k\w*)">', html)


def test_markdown_fence_is_highlighted():
    markdown = pytest.importorskip("markdown")
    pytest.importorskip("pymdownx")
    src = "```warscribe\n" + WOUND_CHART + "```\n"
    html = markdown.markdown(
        src,
        extensions=["pymdownx.highlight", "pymdownx.superfences"],
        extension_configs={"pymdownx.highlight": {"pygments_lang_class": True}},
    )
    assert "language-warscribe" in html  # not the silent language-text fallback
    assert '<span class="kd">table</span>' in html
    assert '<span class="nf">to_wound</span>' in html
