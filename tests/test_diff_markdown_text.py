"""``warscribe diff --markdown`` goes into pull-request comments: author text in it (titles,
definitions, table results, example names) is shown as written and stays inert there — no
link, image or HTML, no @mention or issue reference that would notify anyone, no bare link."""
from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from compiler.driver import compile_text
from compiler.review.diff import diff_models, impact
from compiler.review.report import diff_markdown

HOSTILE = ("[click](https://evil.invalid/x) ![pixel](https://evil.invalid/p.gif) <img src=x onerror=alert(1)> "
           "@octocat @org/team #1 owner/repo#2 https://evil.invalid www.evil.invalid *em* `code` a|b <!-- c -->")

RULES = '''\
ruleset hostile "Hostile {title}":
  version {version}

stat BS "Skill {title}" 1..10: "{definition}"

section s "Section {title}":
  table outcome(roll: 1..2) "Outcome {title}":
    1 -> "{result}"
    2 -> "ok"

  test hit(BS) = roll d6 >= {target}

example e "Example {title}":
  expect P(hit(4)) = {chance}
'''


def model(version: str, title: str, definition: str, result: str, target: int, chance: str):  # type: ignore[no-untyped-def]
    result_ = compile_text(RULES.format(version=version, title=title, definition=definition, result=result,
                                        target=target, chance=chance))
    assert result_.ok, result_.diagnostics
    return result_.rulesets[0]


def test_author_text_in_diff_markdown_is_inert_and_shown_as_written() -> None:
    old = model("1.0.0", "old", "Aim.", "plain", 4, "1/2")
    new = model("1.1.0", HOSTILE, HOSTILE, HOSTILE, 5, "1/2")
    text = diff_markdown(diff_models(old, new), impact(old, new))
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<a " not in rendered and "<img" not in rendered, rendered
    assert "<em>" not in rendered and "<code>code</code>" not in rendered, rendered
    tags = set(re.findall(r"<([a-z0-9]+)", rendered))
    assert tags <= {"h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "strong", "br"}, tags
    # The changed source lines are in a fenced block, which a forge shows as it is (no mention,
    # no link there); everywhere else, nothing a forge acts on by itself: a mention, an issue
    # reference, a bare link.
    code = re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", rendered, flags=re.S)
    assert any("@octocat" in c for c in code), rendered
    shown = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<pre>.*?</pre>", "", rendered, flags=re.S)))
    assert not re.search(r"@\w|#\d|https?://|www\.", shown), shown
    # …and what the reader sees is the text as written (the word joiners are invisible).
    assert shown.replace("\u2060", "").count(HOSTILE) >= 10, shown
