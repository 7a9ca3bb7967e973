"""Grammar-aware hypothesis strategies: valid rulesets built from pieces, and mutations of them.

:func:`rulesets` draws a whole, valid ruleset — a header, stats with ranges,
situations, a custom die, tables whose rows range over those stats (case
lists, keyed rows and grids), tests that roll against them, formulas calling
earlier ones, modifiers, abilities with hooks, units and weapons whose stat
lines fit the ranges, squads, an attack sequence, an army, a game, sections
with prose and links, notes, comments, examples and properties — as text.
Titles and prose mix ordinary words with hostile text (HTML, template
markers, Markdown that smuggles links, right-to-left marks, emoji, very long
words).  Every generated ruleset checks without errors and its examples
pass.

The examples' expectations are computed here, independently of warscribe, not
copied from the text (``expect f(1) = f(1)`` would only test for crashes): a
formula's value by evaluating a Python twin of its generated body, a table's
target by matching its rows in Python, a dice total's chance by enumerating
every roll of the generated dice (:func:`brute_force_at_least`).

:func:`mutated` takes such a text and damages it the way a half-written draft
is damaged: lines cut, swapped, doubled or re-indented, names misspelt or
pointed at each other, numbers made huge, junk pasted in.  The result need
not be valid; warscribe must answer it with diagnostics, never an exception.

Used by ``tests/test_fuzz_grammar.py`` and ``tests/test_fmt.py``, and by the
long run ``bench/fuzz.py``.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from hypothesis import strategies as st

# ---------------------------------------------------------------------------
# Text: ordinary words and hostile ones
# ---------------------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">click</a>',
    "{{ 7 * 7 }}",
    "{% raw %}{{ config }}{% endraw %}",
    "{# comment #}",
    "[click](javascript:alert(1))",
    "![x](javascript:alert(1))",
    "<!-- hidden -->",
    "&amp; &lt; &#x3C;",
    "\u202eright-to-left override\u202c",
    "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",
    "🎲🎲 dice and 🛡️ shields",
    "a" * 300,
    "Supercalifragilisticexpialidocious" * 8,
    "*emphasis* _under_ `code` | pipe |",
    "---",
    "# not a heading in a title",
    "back\\slash",
    "tab\there",
    "'single' quotes",
]

WORDS = ["Roll", "to", "hit", "the", "Marine", "fires", "a", "bolt", "into", "cover", "Orks", "charge",
         "d6", "4+", "wound", "save", "é", "ü", "ß", "—", "…", "50%", "x2", "(note)"]

_safe_char = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters='"\\\n\r\u2028\u2029')


@st.composite
def words(draw: st.DrawFn, hostile: bool = True) -> str:
    """A short text: words, odd characters, now and then something hostile."""
    parts = draw(st.lists(st.one_of(st.sampled_from(WORDS), st.text(_safe_char, min_size=1, max_size=8)),
                          min_size=1, max_size=6))
    if hostile and draw(st.integers(0, 4)) == 0:
        parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from(HOSTILE)))
    return " ".join(parts).strip() or "x"


def quoted(text: str) -> str:
    """A STRING token for ``text`` (escapes for quotes, backslashes and tabs)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'


@st.composite
def prose(draw: st.DrawFn, indent: str, links: list[str]) -> str:
    """A prose block at ``indent``, perhaps linking to some of ``links``."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        line = draw(words())
        if links and draw(st.booleans()):
            target = draw(st.sampled_from(links))
            line += f" [[{target}]]" if draw(st.booleans()) else f" [[{target}|{draw(words(hostile=False))}]]"
        lines.append(line.replace('"', "'"))
    if draw(st.booleans()):
        body = "\n".join(indent + line for line in lines)
        return f'{indent}"""\n{body}\n{indent}"""\n'
    return f'{indent}"""{" ".join(lines)}"""\n'


@st.composite
def comment(draw: st.DrawFn) -> str:
    return "# " + draw(st.text(_safe_char, max_size=30)).rstrip()


# ---------------------------------------------------------------------------
# The pieces of a ruleset
# ---------------------------------------------------------------------------

RANGE_STATS = ["BS", "WS", "S", "T", "W", "Ld", "I"]


@dataclass
class Spec:
    """What has been declared so far: later pieces refer to earlier ones (never the other way: no cycles)."""

    stats: dict[str, tuple[int, int]] = field(default_factory=dict)  # range stats
    target_stats: list[str] = field(default_factory=list)
    dice_stats: list[str] = field(default_factory=list)
    situations: dict[str, list[str] | tuple[int, int] | None] = field(default_factory=dict)
    tables: dict[str, list[str]] = field(default_factory=dict)  # id -> params (stat names)
    tests: dict[str, list[str]] = field(default_factory=dict)
    formulas: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # id -> parameter ranges
    keywords: list[str] = field(default_factory=list)
    abilities: list[str] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    weapons: list[str] = field(default_factory=list)
    attacks: list[tuple[str, str, list[str]]] = field(default_factory=list)  # id, stat, steps
    ids: list[str] = field(default_factory=list)  # everything a [[link]] may name
    custom_die: bool = False
    # Python twins, for expectations computed without warscribe:
    formula_py: dict[str, tuple[list[str], str]] = field(default_factory=dict)  # id -> params, body
    table_py: dict[str, tuple[list[str], list[tuple[str, str]]]] = field(default_factory=dict)  # id -> params, rows
    modified_stats: set[str] = field(default_factory=set)  # stats a modifier changes

    def formula_functions(self) -> dict[str, Callable[..., int]]:
        """Each generated formula as a Python function (bodies only call earlier formulas)."""
        functions: dict[str, Callable[..., int]] = {}
        for fid, (params, body) in self.formula_py.items():
            functions[fid] = eval(f"lambda {', '.join(params)}: {body}", {"F": functions, "min": min, "max": max})
        return functions

    def table_target(self, tid: str, args: list[int]) -> str:
        """The target the first matching row of a generated table gives (its ``otherwise`` is ``True``)."""
        params, rows = self.table_py[tid]
        env = dict(zip(params, args))
        return next(target for condition, target in rows if eval(condition, {}, dict(env)))

    def name(self, prefix: str) -> str:
        n = f"{prefix}{len(self.ids)}"
        self.ids.append(n)
        return n


def _cond(draw: st.DrawFn, spec: Spec, params: list[str]) -> tuple[str, str]:
    """A case over the table's parameters, and its Python twin."""
    p = draw(st.sampled_from(params))
    lo, hi = spec.stats[p]
    kind = draw(st.integers(0, 3))
    if kind == 0 or len(params) == 1:
        op = draw(st.sampled_from([">=", "<=", "==", ">", "<", "!="]))
        text = f"{p} {op} {draw(st.integers(lo, hi))}"
        return text, text
    if kind == 1:
        a = draw(st.integers(lo, hi))
        b = draw(st.integers(a, hi))
        return f"{p} in {a}..{b}", f"{a} <= {p} <= {b}"
    q = draw(st.sampled_from([x for x in params if x != p] or params))
    op = draw(st.sampled_from([">=", "<=", "==", ">", "<"]))
    text = f"{q} - {p} {op} {draw(st.integers(-3, 3))}"
    return text, text


@st.composite
def table(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    params = draw(st.lists(st.sampled_from(sorted(spec.stats)), min_size=1, max_size=2, unique=True))
    tid = spec.name("tbl")
    head = f"{indent}table {tid}({', '.join(params)}) {quoted(draw(words()))}:\n"
    inner = indent + "  "
    target = st.integers(2, 6).map(lambda n: f"{n}+")
    small = all(spec.stats[p][1] - spec.stats[p][0] <= 5 for p in params)
    shape = draw(st.sampled_from(["cases", "keyed", "grid"] if small else ["cases", "keyed"]))
    lines = []
    if shape == "keyed" and len(params) == 1:
        lo, hi = spec.stats[params[0]]
        keys = sorted(set(draw(st.lists(st.integers(lo, hi), min_size=1, max_size=4))))
        rows = [(f"{params[0]} == {k}", draw(target)) for k in keys] + [("True", draw(target))]
        lines = [f"{inner}{cond.split(' == ')[1]} -> {t}" for cond, t in rows[:-1]]
        lines.append(f"{inner}otherwise -> {rows[-1][1]}")
        spec.table_py[tid] = (params, rows)
    elif shape == "grid" and len(params) == 2:
        (r, c) = params
        rows = range(spec.stats[r][0], spec.stats[r][1] + 1)
        cols = range(spec.stats[c][0], spec.stats[c][1] + 1)
        cell = st.one_of(target, st.sampled_from(["-", "never", "always"]))
        lines.append(f"{inner}grid {r} by {c}:")
        lines.append(f"{inner}  {c}: " + " ".join(str(v) for v in cols))
        for v in rows:
            lines.append(f"{inner}  {v}: " + " ".join(draw(cell) for _ in cols))
    else:
        rows = []
        for _ in range(draw(st.integers(0, 4))):
            arrow = "->" if draw(st.integers(0, 3)) else "   ->"
            text, py = _cond(draw, spec, params)
            rows.append((py, draw(target)))
            lines.append(f"{inner}{text} {arrow} {rows[-1][1]}")
        rows.append(("True", draw(st.one_of(target, st.just('never')))))
        lines.append(f"{inner}otherwise -> {rows[-1][1]}")
        spec.table_py[tid] = (params, rows)
    spec.tables[tid] = params
    return head + "\n".join(lines) + "\n"


@st.composite
def test_decl(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    tid = spec.name("tst")
    usable = [t for t, ps in spec.tables.items() if len(ps) == 1]
    if usable and draw(st.booleans()):
        tbl = draw(st.sampled_from(usable))
        params = spec.tables[tbl]
        roll = f"roll d6 against {tbl}({', '.join(params)})"
    else:
        params = [draw(st.sampled_from(sorted(spec.stats)))]
        dice = draw(st.sampled_from(["d6", "2d6", "d10", "D3"] if spec.custom_die else ["d6", "2d6", "d10"]))
        roll = f"roll {dice} {draw(st.sampled_from(['>=', '<=']))} {params[0]}"
        if draw(st.booleans()):
            roll += f" + {draw(st.integers(0, 2))}"
    clauses = [roll]
    ones = "2d6" not in roll  # two dice never total 1: a natural 1 there is a warning (W202)
    if ones and draw(st.booleans()):
        clauses.append("natural 1 fails")
    if ones and draw(st.integers(0, 3)) == 0:
        clauses.append("reroll 1s")
    if "against" not in roll and ">=" in roll and draw(st.integers(0, 3)) == 0:
        clauses.append("never better than 2+")
    spec.tests[tid] = params
    title = quoted(draw(words()))
    if draw(st.booleans()):
        return f"{indent}test {tid}({', '.join(params)}) {title} = {', '.join(clauses)}\n"
    body = "".join(f"{indent}  {c}\n" for c in clauses)
    return f"{indent}test {tid}({', '.join(params)}) {title}:\n{body}"


@st.composite
def expr(draw: st.DrawFn, spec: Spec, names: list[str], depth: int = 0) -> str:
    """A numeric expression over ``names``, earlier formulas and small numbers."""
    return draw(expr_pair(spec, names, depth))[0]


@st.composite
def expr_pair(draw: st.DrawFn, spec: Spec, names: list[str], depth: int = 0) -> tuple[str, str]:
    """:func:`expr` and its Python twin (formula calls go through ``F[id]``)."""
    options = ["int", "name"] if depth >= 3 else ["int", "name", "bin", "bin", "call", "paren", "minmax", "if"]
    kind = draw(st.sampled_from(options))
    if kind == "int" or (kind == "name" and not names):
        n = str(draw(st.integers(0, 12)))
        return n, n
    if kind == "name":
        name = draw(st.sampled_from(names))
        return name, name
    if kind == "bin":
        op = draw(st.sampled_from(["+", "-", "*"]))
        (a, pa), (b, pb) = draw(expr_pair(spec, names, depth + 1)), draw(expr_pair(spec, names, depth + 1))
        return f"{a} {op} {b}", f"{pa} {op} {pb}"
    if kind == "paren":
        a, pa = draw(expr_pair(spec, names, depth + 1))
        return f"({a})", f"({pa})"
    if kind == "minmax":
        fn = draw(st.sampled_from(["min", "max"]))
        (a, pa), (b, pb) = draw(expr_pair(spec, names, depth + 1)), draw(expr_pair(spec, names, depth + 1))
        return f"{fn}({a}, {b})", f"{fn}({pa}, {pb})"
    if kind == "if":
        c, pc = draw(expr_pair(spec, names, 3))
        n = draw(st.integers(0, 6))
        (a, pa), (b, pb) = draw(expr_pair(spec, names, depth + 1)), draw(expr_pair(spec, names, depth + 1))
        return f"(if {c} >= {n} then {a} else {b})", f"(({pa}) if ({pc}) >= {n} else ({pb}))"
    if spec.formulas:
        f = draw(st.sampled_from(sorted(spec.formulas)))
        args = [str(draw(st.integers(lo, hi))) for lo, hi in spec.formulas[f]]
        return f"{f}({', '.join(args)})", f"F[{f!r}]({', '.join(args)})"
    n = str(draw(st.integers(0, 9)))
    return n, n


@st.composite
def formula(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    fid = spec.name("frm")
    params = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=1, max_size=2, unique=True))
    ranges = {p: draw(st.integers(0, 3)) for p in params}
    body, py = draw(expr_pair(spec, params))
    spec.formulas[fid] = [(lo, lo + 5) for lo in ranges.values()]
    spec.formula_py[fid] = (params, py)
    sig = ", ".join(f"{p}: {lo}..{lo + 5}" for p, lo in ranges.items())
    if draw(st.booleans()):
        return f"{indent}formula {fid}({sig}) {quoted(draw(words()))} = {body}\n"
    return (f"{indent}formula {fid}({sig}) {quoted(draw(words()))}:\n"
            f"{indent}  let tmp = {body}\n{indent}  result tmp + 0\n")


@st.composite
def situation(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    sid = spec.name("sit")
    kind = draw(st.integers(0, 2))
    title = quoted(draw(words()))
    if kind == 0:
        spec.situations[sid] = None
        return f"{indent}situation {sid} {title}\n"
    if kind == 1:
        choices = [f"{sid}_c{i}" for i in range(draw(st.integers(2, 4)))]
        spec.situations[sid] = choices
        return f"{indent}situation {sid} {title} one of {', '.join(choices)}\n"
    hi = draw(st.integers(1, 6))
    spec.situations[sid] = (0, hi)
    return f"{indent}situation {sid} {title} 0..{hi}\n"


def _when(draw: st.DrawFn, spec: Spec) -> str:
    if not spec.situations:
        return ""
    sid = draw(st.sampled_from(sorted(spec.situations)))
    kind = spec.situations[sid]
    if kind is None:
        return f" when {sid}" if draw(st.booleans()) else f" when not {sid}"
    if isinstance(kind, list):
        return f" when {sid} is {draw(st.sampled_from(kind))}"
    return f" when {sid} >= {draw(st.integers(kind[0], kind[1]))}"


@st.composite
def modifier(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    mid = spec.name("mod")
    options = []
    if spec.tests:
        t = draw(st.sampled_from(sorted(spec.tests)))
        options += [f"{draw(st.sampled_from(['-', '+']))}1 to {t}", f"reroll 1s to {t}"]
    stat = draw(st.sampled_from(sorted(spec.stats)))
    options.append(f"{draw(st.sampled_from(['-', '+']))}{draw(st.integers(1, 2))} {stat}")
    effect = draw(st.sampled_from(options))
    if effect.endswith(f" {stat}"):
        spec.modified_stats.add(stat)  # the stat's value, and so a table over it, depends on the modifier
    group = draw(st.integers(0, 3)) == 0
    title = quoted(draw(words()))
    if group:
        return f"{indent}modifier {mid} {title}:\n{indent}  {effect}\n{indent}  group g1\n"
    return f"{indent}modifier {mid} {title}: {effect}{_when(draw, spec)}\n"


@st.composite
def ability(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    aid = spec.name("abl")
    spec.abilities.append(aid)
    head = f"{indent}ability {aid} {quoted(draw(words()))}: {quoted(draw(words()))}\n"
    if spec.tests and draw(st.booleans()):
        t = draw(st.sampled_from(sorted(spec.tests)))
        head += f"{indent}  on natural 6 to {t}: {draw(st.integers(1, 2))} extra hits\n"
    return head


def _stat_line(draw: st.DrawFn, spec: Spec) -> str:
    pairs = [f"{s} {draw(st.integers(lo, hi))}" for s, (lo, hi) in sorted(spec.stats.items())]
    pairs += [f"{s} {draw(st.integers(2, 6))}+" for s in spec.target_stats]
    pairs += [f"{s} {draw(st.sampled_from(['1', '2', 'D3', 'D6', 'D3+1', '2D3']))}" for s in spec.dice_stats]
    gap = "  " if draw(st.booleans()) else " "
    return gap.join(pairs)


@st.composite
def profile(draw: st.DrawFn, spec: Spec, indent: str, kind: str) -> str:
    pid = spec.name("unt" if kind == "unit" else "wpn")
    lines = [f"{indent}{kind} {pid} {quoted(draw(words()))}:", f"{indent}  {_stat_line(draw, spec)}"]
    if spec.keywords and draw(st.booleans()):
        lines.append(f"{indent}  keywords {draw(st.sampled_from(spec.keywords))}")
    if kind == "unit" and spec.abilities and draw(st.booleans()):
        lines.append(f"{indent}  abilities {draw(st.sampled_from(spec.abilities))}")
    if kind == "unit" and spec.weapons and draw(st.booleans()):
        lines.append(f"{indent}  weapons {draw(st.sampled_from(spec.weapons))}")
    lines.append(f"{indent}  points {draw(st.integers(0, 300))}")
    (spec.units if kind == "unit" else spec.weapons).append(pid)
    return "\n".join(lines) + "\n"


@st.composite
def attack(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    one_stat = [(t, ps[0]) for t, ps in spec.tests.items() if len(ps) == 1 and ps[0] in spec.stats]
    if not one_stat:
        return ""
    aid = spec.name("atk")
    steps = ["shots = shooter.models * 2"]
    prev = "shots"
    names = []
    for i in range(draw(st.integers(1, 3))):
        t, stat = draw(st.sampled_from(one_stat))
        name = f"step{i}"
        neg = "not " if draw(st.integers(0, 3)) == 0 else ""
        role = draw(st.sampled_from(["shooter", "target"]))
        steps.append(f"{name} = {prev} each {neg}{t}({role}.{stat})")
        prev = name
        names.append(name)
    if "W" in spec.stats and draw(st.booleans()):
        steps.append(f"killed = {prev} removes target")
        names.append("killed")
    spec.attacks.append((aid, "", names))
    body = "".join(f"{indent}  {s}\n" for s in steps)
    return f"{indent}attack {aid}(shooter, weapon, target) {quoted(draw(words()))}:\n{body}"


@st.composite
def example(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    eid = spec.name("exm")
    lines = [f"{indent}example {eid} {quoted(draw(words()))}:"]
    checks = []
    for t, params in sorted(spec.tests.items()):
        args = ", ".join(str(draw(st.integers(*spec.stats[p]))) for p in params)
        checks.append(f"expect P({t}({args})) >= 0")
        checks.append(f"expect P({t}({args})) <= 1")
    functions = spec.formula_functions()
    for f, ranges in sorted(spec.formulas.items()):
        values = [draw(st.integers(lo, hi)) for lo, hi in ranges]
        checks.append(f"expect mean({f}({', '.join(map(str, values))})) = {functions[f](*values)}")
    for tb, params in sorted(spec.tables.items()):
        values = [draw(st.integers(*spec.stats[p])) for p in params]
        args = ", ".join(map(str, values))
        # Grids have no Python twin (their "-" cells); a modified stat shifts the lookup: no expectation.
        if tb in spec.table_py and not spec.modified_stats & set(params):
            checks.append(f"expect {tb}({args}) = {spec.table_target(tb, values)}")
    if spec.attacks and len(spec.units) >= 1 and spec.weapons:
        aid, _, names = spec.attacks[0]
        shooter, target = draw(st.sampled_from(spec.units)), draw(st.sampled_from(spec.units))
        lines.append(f"{indent}  let r = {aid}({draw(st.integers(1, 4))} {shooter}, {spec.weapons[0]}, "
                     f"{draw(st.integers(1, 4))} {target})")
        checks.append(f"expect mean(r.{names[-1]}) >= 0")
    if spec.situations and spec.tests:
        sid = draw(st.sampled_from(sorted(spec.situations)))
        t = draw(st.sampled_from(sorted(spec.tests)))
        args = ", ".join(str(draw(st.integers(*spec.stats[p]))) for p in spec.tests[t])
        kind = spec.situations[sid]
        setting = sid if kind is None else (f"{sid} = {kind[0]}" if isinstance(kind, list) else f"{sid} = {kind[1]}")
        lines.append(f"{indent}  let w = {t}({args}) with {setting}")
        checks.append("expect P(w) >= 0")
    dice = draw(dice_total())
    checks.append(f"expect P({dice.text} >= {dice.at_least}) = {brute_force_at_least(dice)}")
    chosen = draw(st.lists(st.sampled_from(checks), min_size=1, max_size=5, unique=True))
    lines += [f"{indent}  {c}" for c in chosen]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class DiceTotal:
    """A generated total of dice and a constant (``2d6 - d4 + 1``), and a threshold to reach."""

    terms: tuple[tuple[int, int, int], ...]  # (sign, count, sides)
    constant: int
    at_least: int

    @property
    def text(self) -> str:
        parts = []
        for i, (sign, count, sides) in enumerate(self.terms):
            die = f"{count if count > 1 else ''}d{sides}"
            parts.append(die if i == 0 else f"{'+' if sign > 0 else '-'} {die}")
        if self.constant:
            parts.append(f"+ {self.constant}")
        return " ".join(parts)


@st.composite
def dice_total(draw: st.DrawFn) -> DiceTotal:
    """At most three dice in all, so that enumerating every roll stays small (8**3 rolls)."""
    terms: list[tuple[int, int, int]] = []
    left = 3
    while left and (not terms or draw(st.booleans())):
        count = draw(st.integers(1, min(2, left)))
        terms.append((1 if not terms else draw(st.sampled_from([1, -1])), count, draw(st.sampled_from([4, 6, 8]))))
        left -= count
    constant = draw(st.integers(0, 3))
    low = sum(s * (c if s > 0 else c * n) for s, c, n in terms) + constant
    high = sum(s * (c * n if s > 0 else c) for s, c, n in terms) + constant
    return DiceTotal(tuple(terms), constant, draw(st.integers(low - 1, high + 1)))


def brute_force_at_least(dice: DiceTotal) -> Fraction:
    """The chance that the total reaches ``dice.at_least``, by listing every roll of every die."""
    faces = [(sign, range(1, sides + 1)) for sign, count, sides in dice.terms for _ in range(count)]
    rolls = list(itertools.product(*(r for _, r in faces)))
    hits = sum(1 for roll in rolls
               if sum(sign * v for (sign, _), v in zip(faces, roll)) + dice.constant >= dice.at_least)
    return Fraction(hits, len(rolls))


@st.composite
def property_decl(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    """A property that holds by arithmetic, not by construction of its text.

    Either a dice total's chance to reach ``n`` never grows with ``n``, or (over a test's
    parameter) its chance lies in [0, 1]; both must hold at every point of the range.
    """
    pid = spec.name("prp")
    title = quoted(draw(words()))
    if not spec.tests or draw(st.booleans()):
        dice = draw(dice_total())
        lo, hi = dice.at_least - 2, dice.at_least + 2
        return (f"{indent}property {pid} {title}:\n{indent}  for n in {lo}..{hi}\n"
                f"{indent}  expect P({dice.text} >= n) >= P({dice.text} >= n + 1)\n")
    t = draw(st.sampled_from(sorted(spec.tests)))
    params = spec.tests[t]
    binds = [f"v{i} in {spec.stats[p][0]}..{min(spec.stats[p][1], spec.stats[p][0] + 4)}" for i, p in enumerate(params)]
    args = ", ".join(f"v{i}" for i in range(len(params)))
    return (f"{indent}property {pid} {title}:\n{indent}  for {', '.join(binds)}\n"
            f"{indent}  expect P({t}({args})) >= 0\n{indent}  expect P({t}({args})) <= 1\n")


@st.composite
def note(draw: st.DrawFn, spec: Spec, indent: str) -> str:
    nid = spec.name("nte")
    kind = draw(st.sampled_from(["assumption", "open question", "designer note"]))
    if draw(st.booleans()):
        return f"{indent}{kind} {nid} {quoted(draw(words()))}: {quoted(draw(words()))}\n"
    return f"{indent}{kind} {nid} {quoted(draw(words()))}:\n" + draw(prose(indent + "  ", spec.ids[:-1]))


@st.composite
def rulesets(draw: st.DrawFn) -> str:
    """A whole, valid ruleset as text."""
    spec = Spec()
    out: list[str] = []
    rid = draw(st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True))
    out.append(f"ruleset {rid} {quoted(draw(words()))}:\n  version {draw(st.integers(0, 3))}.{draw(st.integers(0, 9))}.0\n")
    if draw(st.booleans()):
        out.append(f"  authors {quoted(draw(words()))}, {quoted(draw(words()))}\n")
    if draw(st.booleans()):
        out.append(f"  summary: {quoted(draw(words()))}\n")
    if draw(st.booleans()):
        out.append(draw(prose("  ", [])))
    if draw(st.booleans()):
        out.append(draw(comment()) + "\n")
    # The lexicon.
    for s in draw(st.lists(st.sampled_from(RANGE_STATS), min_size=1, max_size=4, unique=True)):
        lo = draw(st.integers(0, 2))
        hi = draw(st.integers(lo + 1, lo + 9))
        spec.stats[s] = (lo, hi)
        spec.ids.append(s)
        role = " role wounds" if s == "W" else ""
        out.append(f"stat {s} {quoted(draw(words()))} {lo}..{hi}{role}: {quoted(draw(words()))}\n")
    if draw(st.booleans()):
        spec.target_stats.append("Sv")
        spec.ids.append("Sv")
        out.append(f'stat Sv {quoted(draw(words()))} target\n')
    if draw(st.booleans()):
        spec.dice_stats.append("D")
        spec.ids.append("D")
        out.append('stat D "Damage" dice\n')
    if draw(st.booleans()):
        spec.custom_die = True
        out.append("die D3 \"D3\" = d6 as 1, 1, 2, 2, 3, 3\n")
    for _ in range(draw(st.integers(0, 2))):
        kw = spec.name("kwd")
        kind = draw(st.sampled_from(["keyword", "status", "term"]))
        if kind == "keyword":
            spec.keywords.append(kw)
        out.append(f"{kind} {kw} {quoted(draw(words()))}: {quoted(draw(words()))}\n")
    for _ in range(draw(st.integers(0, 2))):
        out.append(draw(situation(spec, "")))
    # The rulebook, in sections or not.
    pieces = [table, table, test_decl, test_decl, formula, formula, modifier, ability, note]
    for _ in range(draw(st.integers(1, 3))):
        in_section = draw(st.booleans())
        indent = "  " if in_section else ""
        chunk = []
        if in_section:
            sid = spec.name("sec")
            chunk.append(f"section {sid} {quoted(draw(words()))}:\n")
            chunk.append(draw(prose(indent, spec.ids[:-1])))
        for make in draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=5)):
            if make in (test_decl, modifier) and not spec.stats:
                continue
            if draw(st.integers(0, 5)) == 0:
                chunk.append(indent + draw(comment()) + "\n")
            if draw(st.integers(0, 4)) == 0:
                chunk.append("\n")
            chunk.append(draw(make(spec, indent)))
        out.append("".join(chunk))
    # Profiles and the rest.
    for _ in range(draw(st.integers(0, 2))):
        out.append(draw(profile(spec, "", "weapon")))
    for _ in range(draw(st.integers(0, 2))):
        out.append(draw(profile(spec, "", "unit")))
    if spec.units and draw(st.booleans()):
        sq = spec.name("sqd")
        out.append(f"squad {sq} {quoted(draw(words()))}:\n  models {spec.units[0]} 1..{draw(st.integers(1, 10))}\n"
                   f"  points {draw(st.integers(0, 99))} + {draw(st.integers(0, 9))} per extra model\n")
    if draw(st.booleans()):
        out.append(draw(attack(spec, "")))
    if draw(st.booleans()):
        aid = spec.name("arm")
        out.append(f"army {aid} {quoted(draw(words()))}:\n  points {draw(st.integers(100, 2000))}\n"
                   f"  require squads >= 0: {quoted(draw(words()))}\n")
    if draw(st.booleans()):
        gid = spec.name("gme")
        out.append(f"game {gid} {quoted(draw(words()))}:\n  turns {draw(st.integers(1, 8))}\n"
                   f"  phase {gid}_p1 {quoted(draw(words()))}: {quoted(draw(words()))}\n")
    for _ in range(draw(st.integers(0, 2))):
        out.append(draw(example(spec, "")))
    if draw(st.booleans()):
        out.append(draw(property_decl(spec, "")))
    if draw(st.booleans()):
        out.append(draw(prose("", spec.ids)))
    return "".join(out)


# ---------------------------------------------------------------------------
# Mutations: what half-written drafts look like
# ---------------------------------------------------------------------------

JUNK = ["->", "4+", "3-", "otherwise", ":", "(", ")", ",", "each", "then", "never", "d6", "2D6", "1000000d1000000",
        '"', '"""', "..", "=", "with", "expect", "P(", "#", "\t", "é", "🎲", "{{", "}}", "<b>", "\\", "\r\n",
        "(" * 50, "-" * 200, "1" * 30, "not " * 60, "tbl0(tbl0(tbl0(1)))", "frm1(frm1(1))", "    ", "\n\n\n"]


class DrawPicker:
    """Choices made by hypothesis (so that failures shrink)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, options: list[str]) -> str:
        return self.draw(st.sampled_from(options))

    def text(self, most: int) -> str:
        return self.draw(st.text(max_size=most))


class RandomPicker:
    """Choices made by a seeded ``random.Random`` (fast: for the long run in bench/fuzz.py)."""

    ALPHABET = "abcXYZ019 _-+*/=<>()[]{}:,.#\"\\\t\n\r'é🎲\u202e\x00\x0b"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options: list[str]) -> str:
        return self.rng.choice(options)

    def text(self, most: int) -> str:
        return "".join(self.rng.choice(self.ALPHABET) for _ in range(self.rng.randint(0, most)))


MUTATIONS = ["delete", "insert", "truncate", "duplicate", "swap", "indent", "rename", "number", "cycle", "nest"]


def mutate(text: str, pick: DrawPicker | RandomPicker) -> str:
    """Damage ``text`` with one to four edits, as a half-written draft is damaged."""
    import re

    for _ in range(pick.integer(1, 4)):
        lines = text.split("\n")
        kind = pick.choice(MUTATIONS)
        n = len(text)
        if kind == "delete" and n:
            a = pick.integer(0, n - 1)
            text = text[:a] + text[pick.integer(a, min(n, a + 40)):]
        elif kind == "insert":
            a = pick.integer(0, n)
            piece = pick.choice(JUNK) if pick.integer(0, 1) else pick.text(10)
            text = text[:a] + piece + text[a:]
        elif kind == "truncate" and n:
            text = text[: pick.integer(0, n)]
        elif kind in ("duplicate", "swap", "indent") and len(lines) > 1:
            i = pick.integer(0, len(lines) - 2)
            if kind == "duplicate":
                lines.insert(i, lines[i])
            elif kind == "swap":
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
            else:
                lines[i] = pick.choice(["", " ", "   ", "\t", "      "]) + lines[i].lstrip()
            text = "\n".join(lines)
        elif kind == "rename":
            names = sorted(set(re.findall(r"\b(?:tbl|tst|frm|sit|unt|wpn|abl|atk)\d+\b", text)))
            if len(names) >= 2:
                a, b = pick.choice(names), pick.choice(names)
                text = text.replace(a, b, pick.integer(1, 3))
        elif kind == "number":
            spots = [m.span() for m in re.finditer(r"\b\d+\b", text)]
            if spots:
                at, end = spots[pick.integer(0, len(spots) - 1)]
                text = text[:at] + pick.choice(["0", "1000000", "99999999999999999999", "-5"]) + text[end:]
        elif kind == "cycle":
            m = re.search(r"formula (frm\d+)\(([^)]*)\)([^=\n]*)= ", text)
            if m:
                args = ", ".join("1" for _ in m.group(2).split(","))
                text = text[:m.end()] + f"{m.group(1)}({args}) + " + text[m.end():]
        elif kind == "nest":
            depth = pick.integer(50, 400)
            text += f'formula deep() "Deep" = {"(1 + " * depth}1{")" * depth}\n'
    return text


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[str] | None = None) -> str:
    """A generated ruleset, damaged by one to four edits."""
    return mutate(draw(base if base is not None else rulesets()), DrawPicker(draw))


# ---------------------------------------------------------------------------
# What every fuzz input goes through
# ---------------------------------------------------------------------------


def exercise(text: str, path: str = "fuzz.rules") -> bool:
    """Check, render, run the examples of and format ``text``; True when it checked without errors.

    Anything raised here but an AssertionError about the result is a crash: warscribe must answer
    every input with diagnostics.
    """
    import json

    from compiler.diagnostics import Diagnostic, render
    from compiler.driver import compile_text
    from compiler.syntax.fmt import FormatError, format_text
    from compiler.resolve.runner import run_ruleset

    result = compile_text(text, path)
    for d in result.diagnostics:
        assert isinstance(d, Diagnostic) and d.span.file == path
        render(d, dict(result.sources))
    json.dumps([d.to_json() for d in result.diagnostics])
    if result.ok and result.rulesets:
        run_ruleset(result.rulesets[0])  # failed expectations are results, not exceptions
    try:
        once = format_text(text, path)
    except FormatError as err:
        assert all(d.code != "W910" for d in err.diagnostics), err.diagnostics[0].message
        assert not result.ok or any(d.code.startswith("W9") for d in err.diagnostics), \
            "a ruleset that checks must format"
    else:
        assert format_text(once, path) == once, "formatting twice changed the text again"
    return result.ok
