"""Army data written as a ruleset folder: the header, the lexicon, the datasheets, the army rules.

:func:`ruleset_files` returns the files' text by name, already in the formatter's layout
(``warscribe fmt --check`` finds nothing to change).  Every value from the data is written
as the language writes it: a target ``3+``, a distance ``6"``, a roll ``D3+1``, ``-`` for
none, anything else as quoted text; names and texts pass through :func:`quote` and
:func:`prose`, so no text from a catalogue can end a string, open a block or link to a rule.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from compiler.battlescribe.data import DICE, DISTANCE, TARGET, ArmyData, StatDef, is_none
from compiler.battlescribe.ids import Ids
from compiler.battlescribe.xmlfile import DataError


@dataclass(frozen=True)
class Base:
    """The ruleset an import extends: its id, version and the stats and keywords it declares."""

    id: str
    version: str
    stats: dict[str, str]  # stat id -> kind ("target", "distance", "dice", "range", "number", "text")
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)  # a range stat's bounds


def one_line(text: str) -> str:
    """Text on one line of printable characters: a comment of the generated files cannot end early.

    >>> one_line("Orks\\n unit evil \\x1b[2J")
    'Orks unit evil [2J'
    """
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def quote(text: str) -> str:
    r"""Text as a one-line string of the language (control characters become spaces).

    >>> print(quote('Say "hi"\\ \n now'))
    "Say \"hi\"\\ now"
    """
    one_line = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return '"' + one_line.replace("\\", "\\\\").replace('"', '\\"') + '"'


def prose(text: str, indent: str) -> str:
    """Text as a triple-quoted block at ``indent``: no ``\"\"\"`` inside, no ``[[link]]``."""
    body = text.replace("\r\n", "\n").replace("\r", "\n").replace('"""', '"\u200b""').replace("[[", "[\u200b[")
    body = "".join(c if c.isprintable() or c == "\n" else " " for c in body)
    lines = [line.rstrip() for line in body.strip().split("\n")]
    out = [indent + line if line else "" for line in lines]
    return '"""\n' + "\n".join(out) + "\n" + indent + '"""'


def text_value(text: str, indent: str) -> str:
    """A definition: a one-line string when the text is short and on one line, else a block."""
    clean = text.strip()
    if "\n" not in clean and len(clean) <= 100:
        return quote(clean)
    return prose(clean, indent)


def value(raw: str, kind: str) -> str:
    """A stat value as the language writes it, for a stat of ``kind``.

    >>> [value(v, k) for v, k in (("3+", "target"), ("6''", "distance"), ("D3+1", "dice"), ("-", "range"),
    ...  ("Rapid Fire", "text"), ("7", "number"))]
    ['3+', '6"', 'D3+1', '-', '"Rapid Fire"', '7']
    """
    v = raw.strip()
    if is_none(v):
        return "-"
    if kind == "target" and TARGET.match(v):
        return v
    if kind == "distance" and DISTANCE.match(v):
        m = DISTANCE.match(v)
        assert m is not None
        return m.group(1) + '"'
    if kind in ("range", "number", "dice") and re.fullmatch(r"-?\d+", v):
        return v
    if kind == "dice" and DICE.match(v):
        return v.upper().replace("D", "D")
    return quote(v)


def _stat_decl(s: StatDef) -> list[str]:
    lines: list[str] = []
    if s.note:
        lines.append(f"  # {one_line(s.title)}: {one_line(s.note)}")
    kind = {"range": f" {s.low}..{s.high}", "target": " target", "distance": " distance", "dice": " dice"}.get(s.kind, "")
    lines.append(f"  stat {s.id} {quote(s.title)}{kind}")
    return lines


def _profile(kind: str, u_id: str, title: str, stats: tuple[tuple[str, str], ...], kinds: dict[str, str],
             keywords: tuple[str, ...] = (), abilities: tuple[str, ...] = (), weapons: tuple[str, ...] = (),
             points: int | None = None, notes: tuple[str, ...] = ()) -> list[str]:
    lines = [f"  {kind} {u_id} {quote(title)}:"]
    if notes:
        lines.append("    " + prose("Imported as text, since the base's stat cannot hold it: "
                                    + "; ".join(notes) + ".", "    "))
    line = "  ".join(f"{sid} {value(v, kinds.get(sid, 'text'))}" for sid, v in stats)
    if line:
        lines.append("    " + line)
    if keywords:
        lines.append("    keywords " + ", ".join(keywords))
    if abilities:
        lines.append("    abilities " + ", ".join(abilities))
    if weapons:
        lines.append("    weapons " + ", ".join(weapons))
    if points is not None:
        lines.append(f"    points {points}")
    if len(lines) == 1:
        lines.append('    """No characteristics."""')
    return lines


def ruleset_files(data: ArmyData, ruleset_id: str, ids: Ids, base: Base | None = None,
                  version: str = "1.0.0", today: str = "2000-01-01") -> dict[str, str]:
    """The text of each file of the imported ruleset, by file name."""
    def section(name: str, title: str) -> str:
        return ids.get(("section", name), title)

    base_stats = base.stats if base else {}
    kinds = {s.id: s.kind for s in data.stats}
    kinds.update(base_stats)
    files: dict[str, str] = {}

    source = "BattleScribe data: " + ", ".join(f"{name} revision {rev}" for name, rev in data.sources)
    header = [
        f"# Imported from BattleScribe data by `warscribe import battlescribe`: "
        f"{one_line(', '.join(n for n, _ in data.sources))}.",
        "# The abilities are prose only until their mechanics are written (see abilities in lexicon.rules).",
    ]
    if data.unsupported:
        header.append("# Not imported (the BattleScribe data has them; the language has no place for them yet):")
        header += [f"#   {one_line(line)}" for line in data.unsupported]
    header += [
        "",
        f"ruleset {ruleset_id} {quote(data.title)}:",
        f"  version {version}",
        '  authors "BattleScribe data authors"',
        f"  source {quote(source)}",
    ]
    if base is not None:
        header.append(f"  extends {base.id} ^{base.version}")
    header += [f"  summary: {quote('The units, weapons and army rules of ' + data.title + ', imported from BattleScribe data.')}",
               "  history:",
               f"    {version} {today}: {quote('Imported from ' + source + '.')}", ""]
    header += [f'include "{name}"' for name in ("lexicon.rules", "profiles.rules", "army.rules")]
    files["ruleset.rules"] = "\n".join(header) + "\n"

    lex: list[str] = []
    new_stats = [s for s in data.stats if s.id not in base_stats]
    if new_stats:
        lex.append(f"section {section('stats', 'Characteristics')} \"Characteristics\":")
        for s in new_stats:
            lex += _stat_decl(s)
        lex.append("")
    new_kws = [k for k in data.keywords if k.id not in ids.reused]
    if new_kws:
        lex.append(f"section {section('keywords', 'Keyword list')} \"Keywords\":")
        lex += [f"  keyword {k.id} {quote(k.title)}" for k in new_kws]
        lex.append("")
    if data.abilities:
        lex.append(f"section {section('abilities', 'Ability list')} \"Abilities and special rules\":")
        lex.append('  """')
        lex.append("  Imported with their text only: each is for a reader, not yet for the resolver, until")
        lex.append("  its mechanics are written in the language (hooks, effects, `when`).")
        lex.append('  """')
        for a in data.abilities:
            lex.append(f"  ability {a.id} {quote(a.title)}" + (f": {text_value(a.text, '    ')}" if a.text.strip() else ""))
        lex.append("")
    files["lexicon.rules"] = "\n".join(lex or ["# No characteristics, keywords or abilities of their own."]) + "\n"

    prof: list[str] = []
    if data.units or data.squads or data.weapons:
        prof.append(f"section {section('datasheets', 'Datasheets')} \"Datasheets\":")
        for u in data.units:
            prof += _profile("unit", u.id, u.title, u.stats, kinds, u.keywords, u.abilities, u.weapons, u.points,
                             u.notes)
            prof.append("")
        for q in data.squads:
            size = f"{q.low}" if q.low == q.high else f"{q.low}..{q.high}"
            prof.append(f"  squad {q.id} {quote(q.title)}:")
            prof.append(f"    models {q.model} {size}")
            extra = f" + {q.per_extra} per extra model" if q.per_extra and q.high > q.low else ""
            prof.append(f"    points {q.points}{extra}")
            if q.keywords:
                prof.append("    keywords " + ", ".join(q.keywords))
            if q.abilities:
                prof.append("    abilities " + ", ".join(q.abilities))
            prof.append("")
        for w in data.weapons:
            prof += _profile("weapon", w.id, w.title, w.stats, kinds, w.keywords, w.abilities, notes=w.notes)
            prof.append("")
    files["profiles.rules"] = "\n".join(prof or ["# No units or weapons."]).rstrip("\n") + "\n"

    army: list[str] = []
    if data.armies:
        army.append(f"section {section('armies', 'Army construction')} \"Army construction\":")
        for force in data.armies:
            army.append(f"  army {force.id} {quote(force.title)}:")
            if force.points is not None:
                army.append(f"    points {force.points}")
                army.append(f"    require points <= limit: {quote(f'At most {force.points} points.')}")
            titles = {k.id: k.title for k in data.keywords}
            for lim in force.limits:
                title = titles.get(lim.keyword, lim.keyword)
                if lim.low:
                    army.append(f"    require {lim.keyword} >= {lim.low}: {quote(f'At least {lim.low} {title}.')}")
                if lim.high is not None:
                    army.append(f"    require {lim.keyword} <= {lim.high}: {quote(f'At most {lim.high} {title}.')}")
            if len(army) and army[-1].endswith(":"):
                army.append('    """Any units may be taken."""')
            army.append("")
    files["army.rules"] = "\n".join(army or ["# No force organisation."]).rstrip("\n") + "\n"
    return {name: _formatted(text, name) for name, text in files.items()}


def _formatted(text: str, name: str) -> str:
    """``text`` in the canonical layout; :class:`DataError` when the data made a file no ruleset can
    be (a name of 20,000 letters makes a line over the limit): said in a sentence, never a traceback."""
    from compiler.syntax.fmt import FormatError, format_text

    try:
        return format_text(text, name)
    except FormatError as err:
        first = err.diagnostics[0] if err.diagnostics else None
        if first is None:
            raise DataError(f"the ruleset made from this data cannot be written ({name})") from None
        lines = text.splitlines()
        line = lines[first.span.line - 1].strip() if 0 < first.span.line <= len(lines) else ""
        raise DataError(f"the ruleset made from this data cannot be written: {name}:{first.span.line}: "
                        f"{first.message}; the data has a name or a text too long for a ruleset"
                        + (f" ({line[:60]}…)" if line else "")) from None
