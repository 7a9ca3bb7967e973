"""Author text on a terminal is shown, never obeyed: escape sequences in titles, names, table
results and source lines print escaped from check, eval, test, simulate and play; Rich markup in
author text prints as written and never crashes play (compiler/terminal.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.diagnostics import Sink, Span, render
from compiler.terminal import shown
from conftest import warscribe

ESC, BEL = "\x1b", "\x07"
TITLE = f"{ESC}]0;pwned{BEL}"  # sets the terminal's title
CLIPBOARD = f"{ESC}]52;c;ZWNobyBwd25lZA=={BEL}"  # writes the clipboard
CLEAR, HIDE, RLO = f"{ESC}[2J", f"{ESC}[8m", "\u202e"

RULES = f'''\
ruleset term "Term {TITLE} title":
  version 1.0.0

stat BS "Ballistic {CLIPBOARD} [link=https://x.invalid]click[/link]" 1..10: "Aim."
stat W "Wounds" 1..10 role wounds
stat Sv "Save" target

table outcome(roll: 1..2) "Outcome":
  1 -> "ok {CLEAR}{TITLE}"
  2 -> "[bold]bold[/bold] [/] {RLO}evil"

test hit(BS) = roll d6 >= 7 - BS
test save(Sv) = roll d6 >= Sv

attack shooting(shooter, target) "Shooting {HIDE}[bold]":
  hits = shooter.models each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed = unsaved removes target, damage 1

unit marine "Marine {TITLE} [/bold]":
  BS 4  W 1  Sv 3+
unit ork "Ork [link=https://x.invalid]o[/link]":
  BS 2  W 1  Sv 6+

game skirmish "Skirmish [red]":
  turns 1
  activation whole_army
  phase fire "Fire [/]":
    action shoot "Shoot {HIDE}": attack shooting

scenario clash "Clash {TITLE} [bold]":
  game skirmish
  distance 20"
  side marines "Marines {HIDE} hidden [/bold]":
    5 marine
  side orks "Orks [link=https://x.invalid]x[/link] :skull:":
    10 ork

example e1 "Fails {TITLE}":
  expect P(hit(4)) = 1/3
'''

RAW = (ESC, BEL, RLO, "\x9b")
COLOR = {"NO_COLOR": "", "FORCE_COLOR": "1"}  # a terminal that takes colours (and hyperlinks)


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("term") / "term"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(RULES, encoding="utf-8")
    return folder


def assert_shown(out: str) -> None:
    """Nothing raw reaches the terminal (but the colours of play's own words, under FORCE_COLOR);
    what was there is shown escaped."""
    out = re.sub(r"\x1b\[[0-9;]*m", "", out)
    for raw in RAW:
        assert raw not in out, (raw, out)
    assert "\\u001b]0;pwned\\u0007" in out or "\\u001b[" in out, out


@pytest.mark.parametrize("args", [
    ("eval", "{rules}", "outcome(d2)"),
    ("eval", "{rules}", "outcome(d2)", "--json"),
    ("test", "{rules}"),
    ("simulate", "{rules}", "--games", "2"),
    ("simulate", "{rules}", "--games", "2", "--json"),
    ("table", "{rules}", "outcome"),
    ("play", "{rules}", "--auto", "--seed", "1"),
])
def test_escape_sequences_in_author_text_are_shown_escaped(rules: Path, args: tuple[str, ...]) -> None:
    ran = warscribe(*(a.format(rules=rules) for a in args), env=COLOR)
    assert ran.returncode in (0, 1), ran  # test: the example fails on purpose
    assert_shown(ran.stdout + ran.stderr)


def test_diff_shows_escape_sequences_escaped_and_keeps_its_own_colours(rules: Path, tmp_path: Path) -> None:
    old = tmp_path / "term"
    old.mkdir()
    (old / "ruleset.rules").write_text(RULES.replace(f'1 -> "ok {CLEAR}{TITLE}"', '1 -> "ok"')
                                       .replace(f"Marine {TITLE}", "Marine"), encoding="utf-8")
    ran = warscribe("diff", str(old), str(rules), env=COLOR)
    assert ran.returncode == 0, ran
    assert f"{ESC}[1m" in ran.stdout or f"{ESC}[33m" in ran.stdout  # the report's own colours
    assert_shown(ran.stdout)
    assert "ok \\u001b[2J\\u001b]0;pwned\\u0007" in ran.stdout, ran.stdout


def test_play_prints_rich_markup_in_author_text_as_written(rules: Path) -> None:
    # A terminal that takes colours and hyperlinks: the events' own styles are there, but a
    # `[link=…]` in a title is no hyperlink (no OSC 8), an unbalanced `[/bold]` no crash.
    ran = warscribe("play", str(rules), "--seed", "1", stdin="1\n1\n1\n1\n", env=COLOR)
    assert ran.returncode == 0, ran
    out = ran.stdout
    assert f"{ESC}[1m" in out  # the events' own bold
    assert f"{ESC}]" not in out  # no operating system command: no hyperlink, no title
    for literal in ("Orks [link=https://x.invalid]x[/link] :skull:", "Ork [link=https://x.invalid]o[/link]",
                    "Marine \\u001b]0;pwned\\u0007 [/bold]", "Shoot \\u001b[8m", "Fire [/]"):
        assert literal in out, (literal, out)
    assert_shown(out)


def test_play_on_a_table_shows_the_map_legend_escaped(tmp_path: Path) -> None:
    from test_battle_table import RULES as TABLE

    folder = tmp_path / "field"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(TABLE.format(terrain="", red='10", 24"', blue='40", 24"').replace(
        'unit trooper "Trooper"', f'unit trooper "Trooper {TITLE} [link=https://x.invalid]t[/link]"'), encoding="utf-8")
    ran = warscribe("play", str(folder), "--auto", "--seed", "1", env=COLOR)
    assert ran.returncode == 0, ran
    assert "+------" in ran.stdout  # the map was drawn, with its legend
    assert_shown(ran.stdout)
    assert "Trooper \\u001b]0;pwned\\u0007 [link=https://x.invalid]t[/link] (4)" in ran.stdout, ran.stdout


def test_check_shows_a_control_character_in_a_source_line_with_the_caret_under_the_span(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(f'ruleset bad "Bad":\n  version 1.0.0\nformula f = {TITLE} + Sv\n',
                                          encoding="utf-8")
    ran = warscribe("check", str(folder))
    assert ran.returncode == 1, ran
    assert_shown(ran.stderr)
    sink = Sink()
    source = f"formula f = {TITLE} + Sv\n"
    column = source.index("Sv") + 1
    sink.error("W101", f"unknown name 'Sv{TITLE}'", Span("x.rules", 1, column, 1, column + 2), f"did you mean {CLEAR}?")
    text = render(sink.items[0], {"x.rules": source})
    assert_shown(text)
    line, caret = text.splitlines()[2:4]
    assert line[caret.index("^"):caret.index("^") + 2] == "Sv", text


def test_shown_keeps_text_and_escapes_every_control() -> None:
    assert shown("Orks — 🎲 שלום\tand\nmore") == "Orks — 🎲 שלום\tand\nmore"
    assert shown("a\tb\nc", lines=False) == "a\\u0009b\\u000ac"
    every = "".join(map(chr, [*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0), 0x202a, 0x202e, 0x2066, 0x2069]))
    assert all(c not in shown(every) for c in every)
