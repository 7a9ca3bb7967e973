"""Hostile text through check, fmt, eval, table, test and export: kept literally, never a crash.

HTML, ``{{ }}`` and ``{% %}``, Markdown that smuggles raw HTML or ``javascript:``
links, very long words, right-to-left text and emoji — in every place author
text lands (titles, short definitions, prose, table cells, notes, history,
example titles).  The command-line tools must pass it through as data: the
JSON export and the table JSON hold it byte for byte, the formatter keeps it,
the diagnostics quote it without breaking.  (What the website makes of it is
tested with the site.)
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.driver import compile_paths
from compiler.syntax.fmt import format_text
from strategies import HOSTILE, quoted
from conftest import Ran, warscribe

ROOT = Path(__file__).resolve().parent.parent

# Texts that must come out exactly as they went in (a STRING cannot hold a newline).
CORPUS = [h for h in HOSTILE if "\n" not in h] + [
    "</textarea><svg onload=alert(1)>",
    "{{ self.__init__.__globals__ }}",
    "{% for x in range(10**9) %}x{% endfor %}",
    "[[hit]] but [text](  javascript:alert(document.cookie)  ) and [[hit|<b onclick=x>bold</b>]]",
    "<iframe src='data:text/html,<script>alert(1)</script>'>",
    "\u200f\u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u2067isolate\u2069",
    "👩‍👩‍👧‍👦 🏳️‍🌈 🇫🇷",
    "W" * 4000,  # twice on a line stays under the 10,000-character line limit
    "\x1b[31mterminal escape\x1b[0m",
]


def ruleset(text: str) -> str:
    """One ruleset with ``text`` in every place author text can go."""
    q = quoted(text)
    prose = text.replace('"""', "'''")
    return f'''ruleset hostile {q}:
  version 1.0.0
  authors {q}
  source {q}
  summary: {q}
  history:
    1.0.0 2026-01-01: {q}
  """{prose}"""

stat BS {q} 1..6: {q}
  """{prose}"""
keyword kw {q}: {q}
term tm {q}: {q}
  aka {q}
situation sit {q} one of open, shut
die D3 {q} = d6 as 1, 1, 2, 2, 3, 3

section sec {q}:
  """{prose}"""

  rule r {q}: {q}

  table label(BS, col: 1..1) {q}:
    grid BS by col:
      col: 1
      1: {q}
      2: {q}
      3: {q}
      4: {q}
      5: {q}
      6: {q}

  table need(BS) {q}:
    BS >= 4 -> 3+
    otherwise -> 5+

  test hit(BS) {q}:
    roll d6 against need(BS)
    natural 1 fails
    """{prose}"""

  modifier m {q}: -1 to hit when sit is shut
  ability ab {q}: {q}

  assumption a {q}:
    """{prose}"""
  open question oq {q}: {q}
  designer note dn {q}: {q}

unit u {q}:
  BS 4
  points 1
  """{prose}"""

example e {q}:
  expect P(hit(4)) = 2/3
'''


def run(*args: str, cwd: Path) -> Ran:
    """warscribe in this process; tests/test_console_script.py runs the real console script."""
    return warscribe(*args, cwd=cwd)


@pytest.fixture(params=range(len(CORPUS)), ids=lambda i: f"hostile{i}")
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    text = CORPUS[request.param]
    folder = tmp_path / "rules" / "hostile"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(ruleset(text), encoding="utf-8")
    return text, folder


def test_hostile_text_checks_and_is_kept_in_the_model(hostile: tuple[str, Path]) -> None:
    text, folder = hostile
    result = compile_paths([str(folder)])
    assert result.ok, [(d.code, d.message) for d in result.diagnostics if d.is_error]
    model = result.rulesets[0]
    assert model.header.title == text
    assert model.stats["BS"].title == text and model.stats["BS"].short == text


def test_hostile_text_survives_the_formatter(hostile: tuple[str, Path]) -> None:
    text, folder = hostile
    source = (folder / "ruleset.rules").read_text(encoding="utf-8")
    once = format_text(source, "hostile.rules")
    assert format_text(once, "hostile.rules") == once
    assert once.count(quoted(text)) == source.count(quoted(text))


# The command line is slower to drive: all the short texts at once, then the longest.
JOINED = " ".join(t for t in CORPUS if len(t) < 1000)
LONGEST = max(CORPUS, key=len)


@pytest.mark.parametrize("text", [JOINED, LONGEST], ids=["all-at-once", "longest"])
def test_hostile_text_through_the_command_line(text: str, tmp_path: Path) -> None:
    folder = tmp_path / "rules" / "hostile"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(ruleset(text), encoding="utf-8")
    project = tmp_path
    r = run("check", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    r = run("test", cwd=project)
    assert r.returncode == 0 and "1 passed, 0 failed" in r.stdout, r.stdout + r.stderr
    r = run("eval", str(folder), "label(2, 1)", "--json", cwd=project)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["distribution"][0]["value"] == text
    r = run("table", str(folder), "label", "--json", cwd=project)
    assert r.returncode == 0, r.stderr
    assert {c["result"] for c in json.loads(r.stdout)["cells"]} == {text}
    r = run("export", str(folder), cwd=project)
    assert r.returncode == 0, r.stderr
    exported = json.loads(r.stdout)
    assert json.dumps(exported, ensure_ascii=False).count(json.dumps(text, ensure_ascii=False)[1:-1]) >= 10
    r = run("fmt", "--check", cwd=project)
    assert r.returncode == 0, r.stdout


def test_hostile_text_in_a_mistake_is_quoted_in_the_diagnostic(tmp_path: Path) -> None:
    folder = tmp_path / "rules" / "bad"
    folder.mkdir(parents=True)
    lines = [f'stat S{i} {quoted(t)} 1..6: "[[missing_{i}]] {t.replace(chr(34), "")[:40]}"'
             for i, t in enumerate(CORPUS)]
    (folder / "ruleset.rules").write_text('ruleset bad "Bad":\n  version 1.0.0\n' + "\n".join(lines) + "\n",
                                          encoding="utf-8")
    r = run("check", cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    assert r.stderr.count("error[W107]") >= len(CORPUS)
    r = run("check", "--format", "json", cwd=tmp_path)
    assert len(json.loads(r.stdout)["diagnostics"]) >= len(CORPUS)
