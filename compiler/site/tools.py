"""``r``: the helpers a template uses to put author text and links on one page.

Every method returns Markdown that is safe to place on the page (a
:class:`~markupsafe.Markup`, so autoescaping leaves it alone).  A helper is
bound to one page of one ruleset, which is what makes its links relative.
"""
from __future__ import annotations

import re
import textwrap
from typing import Any, Callable, Iterable, Mapping

from markupsafe import Markup

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.model.armies import is_melee_range
from compiler.model.ruleset import Ruleset, kind_of
from compiler.site.markup import plain, prose
from compiler.site.sitemap import SiteMap, relative, ruleset_pages

KIND_WORDS = {
    "stat": "characteristic", "keyword": "keyword", "ability": "ability", "status": "status",
    "term": "term", "situation": "situation", "die": "die", "unit": "unit", "weapon": "weapon",
    "squad": "squad", "example": "example", "property": "property", "table": "table", "test": "test",
    "formula": "formula", "modifier": "modifier", "attack": "attack sequence", "army": "army",
    "game": "game", "rule": "rule", "section": "section", "assumption": "assumption",
    "open question": "open question", "designer note": "designer's note", "prose only": "prose only", "phase": "phase",
    "step": "step", "score": "score", "victory condition": "victory condition",
}


class PageTools:
    """Helpers bound to one page (``page``) of one ruleset (``rs``, or None for site pages)."""

    def __init__(self, page: str, rs: Ruleset | None, sitemap: SiteMap, sources: Mapping[str, str],
                 uses: Mapping[str, tuple[str, ...]] | None = None,
                 pins: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.page = page
        self.rs = rs
        self.sitemap = sitemap
        self.sources = sources
        self._uses = uses or {}
        self._pins = pins or {}

    # -- text ---------------------------------------------------------------

    def plain(self, text: Any) -> Markup:
        """Plain author text, shown exactly as written."""
        return Markup(plain(None if text is None else str(text)))

    def text(self, text: str | None) -> Markup:
        """A one-line author text (a definition) that may hold ``[[links]]``: inline Markdown."""
        if not text:
            return Markup("")
        return Markup(prose(" ".join(text.split()), self._ref))

    def prose(self, d: Any) -> Markup:
        """The prose of a declaration (or a Prose, or a string) as safe Markdown with links."""
        if d is None:
            return Markup("")
        if isinstance(d, str):
            texts = [d]
        elif isinstance(d, A.Prose):
            texts = [d.text]
        elif isinstance(d, A.ProseBlock):
            texts = [d.text]
        elif isinstance(d, A.Header):
            texts = [p.text for p in d.prose]
        else:
            texts = [p.text for p in (getattr(d, "prose", ()) or ())]
        parts = [prose(textwrap.dedent(t).strip("\n"), self._ref) for t in texts if t and t.strip()]
        return Markup("\n\n".join(p.strip() for p in parts))

    def _ref(self, ref: str, words: str | None) -> str:
        if self.rs is None:
            return plain(words or ref)
        shown = None if words is None else prose(words, lambda r, w: plain(w or r))
        return self.sitemap.link(self.page, self.rs.id, ref, words_markdown=shown)

    # -- links and anchors -----------------------------------------------------

    def link(self, decl_id: str, words: str | None = None) -> Markup:
        """A link to a declaration of this ruleset (its title, or ``words``) with its definition as a tooltip."""
        assert self.rs is not None
        if words is None:
            place = self.sitemap.get(self.rs.id, decl_id)
            words = place.title if place is not None else decl_id
        return Markup(self.sitemap.link(self.page, self.rs.id, decl_id, words))

    def links(self, ids: Iterable[str], sep: str = ", ") -> Markup:
        return Markup(sep.join(self.link(i) for i in ids))

    def link_any(self, decl_id: str, words: str | None = None, rs_id: str | None = None) -> Markup:
        """A link to a declaration of this ruleset (or of ``rs_id``) when the site has it, else its words as text."""
        rid = rs_id or (self.rs.id if self.rs else "")
        place = self.sitemap.get(rid, decl_id)
        if place is None:
            return Markup(plain(words or decl_id))
        return Markup(self.sitemap.link(self.page, rid, decl_id, words or place.title))

    def url(self, decl_id: str) -> str:
        assert self.rs is not None
        return self.sitemap.url(self.page, self.rs.id, decl_id)

    def page_url(self, role: str, rs_id: str | None = None) -> str:
        """A link to one of a ruleset's pages: overview, lexicon, quickref, datasheets, examples, notes."""
        rid = rs_id or (self.rs.id if self.rs else "")
        return relative(self.page, ruleset_pages(rid)[role]) or "#"

    def has_page(self, role: str) -> bool:
        """Does this ruleset have the page of ``role`` that only some have (``army``, ``battles``, ``house_rules``)?"""
        rs = self.rs
        if rs is None:
            return False
        return {"army": bool(rs.of_type(A.Army)), "battles": bool(rs.of_type(A.Scenario)),
                "house_rules": rs.base is not None}.get(role, role in ruleset_pages(rs.id))

    def to(self, path: str) -> str:
        """A relative link to any page of the tree, given by its path."""
        return relative(self.page, path) or "#"

    def heading(self, level: int, d: Any, title: str | None = None) -> Markup:
        """``### Title { #id }``: a heading anchored at the declaration's stable id."""
        text = title if title is not None else (getattr(d, "title", None) or d.id)
        return Markup(f"{'#' * max(1, min(6, level))} {plain(text)} {{ #{d.id} }}")

    def anchor(self, decl_id: str) -> Markup:
        """An attr_list anchor for a paragraph: put ``{: #id }`` on the line after it."""
        return Markup(f"{{: #{decl_id} }}")

    def kind(self, d: Any) -> str:
        return KIND_WORDS.get(kind_of(d), kind_of(d))

    def decls(self, ids: Iterable[Any]) -> list[Any]:
        """The declarations of some ids (or ``(id, span)`` pairs) that this ruleset has."""
        if self.rs is None:
            return []
        found = (self.rs.get(i[0] if isinstance(i, tuple) else i) for i in ids)
        return [d for d in found if d is not None]

    def stat_columns(self, profiles: Iterable[Any]) -> list[str]:
        """The stats some profiles give, in the order the lexicon declares them."""
        used = {s.stat for p in profiles if p is not None for s in p.stats}
        declared = list(self.rs.stats) if self.rs is not None else []
        return [s for s in declared if s in used] + sorted(used - set(declared))

    def weapon_groups(self, ids: Iterable[str]) -> list[tuple[str, list[Any], list[str]]]:
        """A card's weapons as players read them: (heading, weapons, stat columns) for the ranged
        weapons (a Range of a distance) and the melee ones (a Range of ``-`` or "melee"), each with
        every stat its weapons give (melee without Range); one group "Weapon" when none has a Range."""
        ws = [w for w in self.decls(list(ids)) if w is not None]
        cols = self.stat_columns(ws)
        reach = next((s for s in cols if s.casefold() == "range"), None)
        if reach is None:
            return [("Weapon", ws, cols)] if ws else []

        def ranged(w: Any) -> bool:
            sv = next((v for v in w.stats if v.stat == reach), None)
            return sv is not None and not is_melee_range(sv)
        far, near = [w for w in ws if ranged(w)], [w for w in ws if not ranged(w)]
        out: list[tuple[str, list[Any], list[str]]] = []
        if far:
            out.append(("Ranged weapon", far, self.stat_columns(far)))
        if near:
            out.append(("Melee weapon", near, [s for s in self.stat_columns(near) if s != reach]))
        return out

    def stat_text(self, profile: Any, stat: str) -> str:
        """A profile's value of a stat as written, or "-" when it has none."""
        for sv in profile.stats:
            if sv.stat == stat:
                return str(sv.text)
        return "-"

    def used_in(self, decl_id: str) -> tuple[str, ...]:
        return self._uses.get(decl_id, ())

    def pinned_by(self, decl_id: str) -> tuple[str, ...]:
        """The examples that exercise a rule or an executable declaration (``warscribe test --coverage``)."""
        return self._pins.get(decl_id, ())

    def origin(self, decl_id: str) -> str:
        """"added", "replaced", "base" or "own": what an overlay did to a declaration."""
        if self.rs is None:
            return "own"
        return self.rs.origin.get(decl_id, "own")

    # -- source text -----------------------------------------------------------

    def source(self, d: Any, prose_too: bool = False) -> str:
        """The declaration as the author wrote it (prose left out), dedented, for a code block."""
        return source_text(d.span, self.sources, prose_too)

    def expr(self, e: Any) -> Markup:
        """An expression as written, as inline code."""
        if e is None:
            return Markup("")
        return Markup(code_span(expression_text(e, self.sources)))

    def words_expr(self, e: Any) -> Markup:
        """An expression in a reader's words: plain text, ``snake_case`` names as words, ``"text"`` unquoted."""
        if e is None:
            return Markup("")
        text = expression_text(e, self.sources)
        text = re.sub(r'"([^"]*)"', r"\1", text)
        text = re.sub(r"\b[A-Za-z]\w*_\w*\b", lambda m: m.group(0).replace("_", " "), text)
        return Markup(plain(text))

    def lexicon_facts(self, d: Any) -> Markup:
        """The facts of a lexicon entry after its kind: a stat's range, a situation's choices, aliases."""
        facts: list[str] = []
        if isinstance(d, A.Stat):
            if isinstance(d.type, A.RangeExpr):
                facts.append(f"from {plain(expression_text(d.type, self.sources)).replace('..', ' to ')}"
                             + ("" if d.clamped else ", may go beyond"))
            elif d.type:
                facts.append({"target": "a target such as `4+`", "distance": "a distance in inches",
                              "dice": "a number or dice such as `D6`", "number": "a number"}.get(d.type, plain(d.type)))
        elif isinstance(d, A.Situation):
            if d.choices:
                facts.append("one of " + ", ".join(f"*{plain(c.replace('_', ' '))}*" for c in d.choices))
            elif d.range is not None:
                facts.append(f"a number from {plain(expression_text(d.range, self.sources)).replace('..', ' to ')}")
            else:
                facts.append("yes or no")
        elif isinstance(d, A.Die):
            faces = ", ".join(str(f) for f in d.faces)
            facts.append(f"a d{d.base_sides} read as {code_span(faces)}")
        elif isinstance(d, A.Ability) and d.params:
            facts.append("takes " + ", ".join(code_span(p.name) for p in d.params))
        aka = getattr(d, "aka", ()) or ()
        if aka:
            facts.append("also called " + ", ".join(f"*{plain(a)}*" for a in aka))
        return Markup("".join(f" · {f}" for f in facts))

    def test_rules(self, t: A.Test) -> list[Markup]:
        """What a test rolls and the rules that decide it, as short sentences."""
        return [Markup(x) for x in test_rules(t, self.sources, self.say)]

    def say(self, e: Any) -> str:
        """An expression for a sentence: a table or test looked up reads as a link to it by its
        title ("the Ballistic Skill chart"), dice as dice ("D6"), anything else in words."""
        if isinstance(e, A.Call) and self.rs is not None and self.rs.get(e.func) is not None:
            return f"the {self.link(e.func)}"
        text = expression_text(e, self.sources)
        if re.fullmatch(r"\d*[dD]\d+", text):
            return text.upper() if text[0] in "dD" else text.upper()
        return str(self.words_expr(e))

    def step_text(self, s: A.Step) -> Markup:
        """One step of an attack sequence in words: what it works out, or whose models it removes."""
        if s.value is not None:
            return self.words_expr(s.value)
        target = self.words_expr(s.removes_target) if s.removes_target is not None else "the target"
        text = f"{plain((s.removes_from or '').replace('_', ' '))}: removes models of {target}"
        if s.damage is not None:
            text += f", each dealing {self.words_expr(s.damage)} damage"
        return Markup(text)

    def expectation(self, e: A.Expect) -> Markup:
        """An example's ``expect`` line without the word ``expect``, as inline code."""
        text = expression_text(e, self.sources)
        return Markup(code_span(text[len("expect"):].strip() if text.startswith("expect") else text))

    def code(self, text: str) -> Markup:
        """Any text as inline code."""
        return Markup(code_span(text))

    def fence(self, text: str, lang: str = "warscribe") -> Markup:
        """A fenced code block long enough not to be closed by the text inside it."""
        longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
        ticks = "`" * max(3, longest + 1)
        return Markup(f"{ticks}{lang}\n{text}\n{ticks}")


def code_span(text: str) -> str:
    """Inline code for any text (backticks inside are handled as Markdown wants)."""
    text = " ".join(text.split())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    text = text.replace("|", "\\|")  # inside a table a pipe would end the cell
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _lines(span: Span, sources: Mapping[str, str]) -> list[str]:
    text = sources.get(span.file)
    if text is None or span.line <= 0:
        return []
    return text.split("\n")[span.line - 1:span.end_line]


def expression_text(e: Any, sources: Mapping[str, str]) -> str:
    span: Span = e.span
    lines = _lines(span, sources)
    if not lines:
        return ""
    if len(lines) == 1:
        return lines[0][span.column - 1:span.end_column - 1].strip()
    lines[0] = lines[0][span.column - 1:]
    lines[-1] = lines[-1][:span.end_column - 1]
    return " ".join(line.strip() for line in lines)


def source_text(span: Span, sources: Mapping[str, str], prose_too: bool = False) -> str:
    """A declaration's source lines: dedented, without its prose and trailing comments."""
    lines = _lines(span, sources)
    if not lines:
        return ""
    indent = span.column - 1
    first = lines[0][indent:]
    rest = lines[1:]
    if span.end_line > span.line and rest:
        rest[-1] = rest[-1][:max(0, span.end_column - 1)] if span.end_column - 1 < len(rest[-1]) else rest[-1]
    out = [first]
    in_prose = False
    for line in rest:
        stripped = line.strip()
        if not prose_too:
            if in_prose:
                if '"""' in stripped:
                    in_prose = False
                continue
            if stripped.startswith('"""'):
                if stripped.count('"""') == 1:
                    in_prose = True
                continue
        out.append(line[indent:] if line[:indent].strip() == "" else line.strip())
    # Trailing blank lines, and comments standing at the declaration's own indentation, belong to what follows.
    while len(out) > 1 and (not out[-1].strip() or (out[-1].lstrip().startswith("#")
                                                       and len(out[-1]) - len(out[-1].lstrip()) == 0)):
        out.pop()
    return "\n".join(line.rstrip() for line in out)


def test_rules(t: A.Test, sources: Mapping[str, str], say: Callable[[Any], str] | None = None) -> list[str]:
    """A test's rules in words, as inline Markdown (expressions as code, or as ``say`` words them)."""
    def code(e: Any) -> str:
        return say(e) if say is not None else code_span(expression_text(e, sources))
    out: list[str] = []
    if t.roll is not None:
        dice = code(t.roll.dice)
        if t.roll.op == "against":
            out.append(f"Roll {dice}; it needs {code(t.roll.target)}.")
        elif t.roll.op == ">=":
            out.append(f"Roll {dice}; it needs {code(t.roll.target)} or more.")
        else:
            out.append(f"Roll {dice}; it needs {code(t.roll.target)} or less.")
    if t.natural_fails:
        out.append(f"A natural {' or '.join(map(str, t.natural_fails))} always fails.")
    if t.natural_succeeds:
        out.append(f"A natural {' or '.join(map(str, t.natural_succeeds))} always succeeds.")
    if t.never_better is not None:
        out.append(f"Never better than {code(t.never_better)}.")
    if t.never_worse is not None:
        out.append(f"Never worse than {code(t.never_worse)}.")
    if t.modifier_cap is not None:
        lo, hi = t.modifier_cap
        out.append(f"Modifiers add up to between {lo:+d} and {hi:+d} at most.")
    for rr in t.rerolls:
        if rr == "1s":
            out.append("Re-roll natural 1s once.")
        elif rr == "failures":
            out.append("Re-roll a failed test once.")
        elif rr.startswith("natural:"):
            out.append(f"Re-roll a natural {' or '.join(rr.split(':', 1)[1].split(','))} once.")
    return out

