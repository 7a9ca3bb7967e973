"""The matchup calculator's data: every attack a ruleset allows, worked out exactly ahead of time.

A calculator answers "what do N of these, with this weapon, do to M of those?" from a table, with
no server: this module works the table out with the resolver (:func:`calculator_data`) when the
site is built, for each ruleset the site's ``calculator_models`` names, and splits it into JSON
documents a page loads as a reader picks (:func:`calculator_documents`: the form's index, then one
document per attacker and target).  The documents are kept in the cache folder under the rules'
meaning (:func:`semantic_key`), so only a first build, or an edit that changes an answer, works
them out.

Where the time goes, and what keeps it down: each matchup is one resolver question, asked with
its expression parsed once per unit, weapon and target (the counts written into the tree); the
resolver plans the per-attack work once for every count of a matchup unless something the plan
evaluates reads ``.models``; what is left per question is the sum over the attacks and the
removal of models (about 0.1–0.3 ms each).  The cost grows with the square of the model count.

What is worked out (the *budget*, per ruleset):

* every attack whose parameters are an attacking unit, a weapon and a target (``shooting(shooter,
  weapon, target)``), answered at its last step (``killed``);
* every unit that carries weapons × each of its weapons × every unit as a target, leaving out the
  units written for the worked examples;
* every number of attacking models from 1 to the unit's squad maximum (``MAX_MODELS`` without a
  squad, never more than ``MAX_MODELS``), and the same for the target;
* the situations the attack reads: each yes/no or one-of situation of the ruleset that changes at
  least one answer of the attack at two models against two (a situation that changes nothing is
  not offered).  All their combinations are worked out when there are at most
  ``COMBINATION_BUDGET`` of them; past that, each situation changed alone (``every`` is false in the
  attack's entry: a page must say that a combination of two or more is outside the budget and
  give the ``warscribe eval`` line, :func:`expression` and :func:`with_text`, that answers it).  Situations that are numbers (a distance, a count) stay at their low end.

A matchup the resolver refuses (a weapon the target's rules cannot take) is left out (a page must
say so); a weapon with no answer against any target is not offered, nor a target no attack can be
resolved against.  Each distribution is stored as its lowest value, a common denominator and one numerator
per value, as decimal strings when they pass JavaScript's exact integers (for a page to read as
BigInt), so the fractions a page shows can be exactly the resolver's.
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, fields, is_dataclass, replace
from fractions import Fraction
from math import lcm
from typing import Any, Mapping

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.resolve import Evaluator, ResolveError, parse_expression
from compiler.resolve.core import AttackResult
from compiler.resolve.evaluator import unwrap

#: The largest model count worked out on either side, unless the site says otherwise.  The budget
#: of the bundled site (mkdocs.yml): at most about 2 CPU s per ruleset on a first build and no
#: document over 100 KB.  Measured cost of :func:`calculator_data` (CPU seconds; the largest
#: document a page loads; all documents) at the counts it gives: console-40k at 10 0.08 s, 8 KB,
#: 20 KB; classic-40k at 7 0.76 s, 35 KB, 0.25 MB; dark-millennia at 6 0.71 s, 20 KB, 0.14 MB;
#: gemini-arap at 4 1.5 s, 25 KB, 0.22 MB; 40k-s at 4 1.6 s, 20 KB, 0.18 MB; nuceria-rts at 3
#: 0.73 s, 54 KB, 0.37 MB: 5.3 s in all at load average 7 (6.3 s before each two-against-two answer
#: that decides which situations an attack reads was worked out once, not once per situation).
#: At 10 a side: classic-40k 1.8 s, dark-millennia 2.4 s, gemini-arap 7.9 s (largest document
#: 432 KB), 40k-s 9.5 s (271 KB); nuceria-rts at 5 2.4 s (320 KB).  (Before the expression was
#: parsed once and the plan shared across counts: classic-40k 6.2 s at 10, gemini-arap 26 s, 40k-s
#: 30 s, nuceria-rts over 500 s.)
MAX_MODELS = 10
COMBINATION_BUDGET = 24
_JS_EXACT = 2 ** 53 - 1


@dataclass(frozen=True)
class CalculatorSituation:
    id: str
    title: str
    values: tuple[Any, ...]  # the default first

    def shown(self) -> list[str]:
        return [("yes" if v else "no") if isinstance(v, bool) else str(v) for v in self.values]


def calculator_attacks(rs: Ruleset) -> list[A.Attack]:
    """The attacks the calculator offers: those of a unit, a weapon and a target."""
    return [a for a in rs.of_type(A.Attack) if len(a.params) == 3]


def expression(attack: A.Attack, attackers: int, unit: str, weapon: str, targets: int, target: str) -> str:
    """The ``warscribe eval`` expression of one matchup."""
    return f"{attack.id}({attackers} {unit}, {weapon}, {targets} {target}).{attack.steps[-1].name}"


def with_text(sits: dict[str, Any]) -> str:
    """The situations as ``warscribe eval --with`` takes them (``cover = soft``)."""
    return "; ".join(f"{k} = {('yes' if v else 'no') if isinstance(v, bool) else v}" for k, v in sorted(sits.items()))


def _call(attack: A.Attack, unit: str, weapon: str, target: str) -> Any:
    """A maker of the parsed expression of one matchup for any two counts (parsed once, then each
    count written into it: the same tree :func:`expression`'s text parses to)."""
    tree = parse_expression(expression(attack, 1, unit, weapon, 1, target), "<calculator>")
    assert isinstance(tree, A.Attr) and isinstance(tree.obj, A.Call)
    call = tree.obj
    first, last = call.args[0], call.args[2]
    assert isinstance(first, A.Group) and isinstance(last, A.Group)

    def at(attackers: int, targets: int) -> Any:
        args = (replace(first, count=attackers), call.args[1], replace(last, count=targets))
        return replace(tree, obj=replace(call, args=args))
    return at


def _exact(ev: Evaluator, tree: Any) -> dict[int, Fraction] | None:
    try:
        value = ev.evaluate(tree)
    except ResolveError:
        return None
    if isinstance(value, AttackResult):
        value = list(value.steps.values())[-1]
    if not hasattr(value, "probabilities"):
        return None
    merged: dict[Any, Any] = {}  # as distribution_rows merges outcomes that unwrap alike, without its tails
    for o, p in value.probabilities().items():
        merged[unwrap(o)] = merged.get(unwrap(o), 0) + p
    out: dict[int, Fraction] = {}
    for v, p in merged.items():
        if isinstance(v, bool) or not isinstance(v, int):
            return None
        out[v] = Fraction(p)
    return out


def _packed(dist: dict[int, Fraction]) -> list[Any]:
    """[lowest value, denominator, numerator of each value from the lowest]: exact, compact."""
    lo, hi = min(dist), max(dist)
    den = lcm(*(p.denominator for p in dist.values()))
    nums = [dist.get(v, Fraction(0)) * den for v in range(lo, hi + 1)]
    return [lo] + [n if n <= _JS_EXACT else str(n) for n in [den] + [int(x) for x in nums]]


def _squad_max(rs: Ruleset) -> dict[str, int]:
    out: dict[str, int] = {}
    for sq in rs.of_type(A.Squad):
        if sq.unit and sq.max_models:
            out[sq.unit] = max(out.get(sq.unit, 0), sq.max_models)
    return out


def _units(rs: Ruleset) -> list[A.Profile]:
    from compiler.site.pages import sample_profile

    units = [p for p in rs.of_type(A.Profile) if p.kind == "unit"]
    played = [p for p in units if not sample_profile(rs, p)]
    return played if any(p.weapons for p in played) else units


def _situations(rs: Ruleset) -> list[CalculatorSituation]:
    defaults = Evaluator(rs).situation
    out = []
    for s in rs.situations.values():
        if s.range is not None:
            continue
        values: tuple[Any, ...] = s.choices if s.choices else (False, True)
        first = defaults.get(s.id, values[0])
        out.append(CalculatorSituation(s.id, s.title, (first,) + tuple(v for v in values if v != first)))
    return out


def calculator_data(rs: Ruleset, max_models: int = MAX_MODELS) -> dict[str, Any] | None:
    """The calculator's data for one ruleset (None when it has no attack of a unit, a weapon and a target);
    ``max_models`` caps the model counts (the budget's largest side)."""
    attacks = calculator_attacks(rs)
    units = _units(rs)
    armed = [u for u in units if u.weapons]
    if not attacks or not armed:
        return None
    most = _squad_max(rs)
    size = {u.id: min(most.get(u.id, max_models), max_models) for u in units}
    weapons = {p.id: p for p in rs.of_type(A.Profile) if p.kind == "weapon"}
    base = Evaluator(rs)
    tables: dict[str, Any] = {}
    offered: list[dict[str, Any]] = []
    for attack in attacks:
        pairs = [(u, w) for u in armed for w, _ in u.weapons if w in weapons]
        # Which situations this attack reads: those that change an answer at two models against two.
        calls = {(u.id, w, t.id): _call(attack, u.id, w, t.id) for u, w in pairs for t in units}
        two = {(u.id, w, t.id): _exact(base, calls[u.id, w, t.id](2, 2)) for u, w in pairs for t in units}
        valid = [(u, w, t) for u, w in pairs for t in units if two[u.id, w, t.id] is not None]
        if not valid:
            continue
        read = []
        for sit in _situations(rs):
            for v in sit.values[1:]:
                ev = Evaluator(rs, situation={sit.id: v})
                if any(_exact(ev, calls[u.id, w, t.id](2, 2)) != two[u.id, w, t.id] for u, w, t in valid):
                    read.append(sit)
                    break
        combos = 1
        for sit in read:
            combos *= len(sit.values)
        every = combos <= COMBINATION_BUDGET
        settings: list[dict[str, Any]] = [{}]
        if every:
            settings = [{s.id: v for s, v in zip(read, vs) if v != s.values[0]}
                        for vs in itertools.product(*(s.values for s in read))]
        else:
            settings += [{s.id: v} for s in read for v in s.values[1:]]
        for sits in settings:
            ev = Evaluator(rs, situation=sits) if sits else base
            for u, w, t in valid:
                at = calls[u.id, w, t.id]
                grid = [[_exact(ev, at(a, m))
                         for m in range(1, size[t.id] + 1)] for a in range(1, size[u.id] + 1)]
                if any(d is None for row in grid for d in row):
                    continue
                tables[_key(attack.id, u.id, w, t.id, sits)] = [[_packed(d) for d in row if d is not None]
                                                               for row in grid]
        offered.append({"id": attack.id, "title": attack.title or attack.id, "result": attack.steps[-1].name,
                        "every": every,
                        "situations": [{"id": s.id, "title": s.title, "values": s.shown()} for s in read]})
    if not offered:
        return None
    # A weapon is offered when some matchup of it has an answer (one the rules refuse against every
    # target, such as a close-combat weapon in a shooting attack, is not).
    # the same for a target: a unit no attack can be resolved against (no save written…) is not offered.
    answered = {tuple(key.split("|")[1:3]) for key in tables}
    targets = {key.split("|")[3] for key in tables}
    return {
        "ruleset": rs.id,
        "attacks": offered,
        "units": [{"id": u.id, "title": u.title, "max": size[u.id], "target": u.id in targets,
                   "weapons": [[w, weapons[w].title] for w, _ in u.weapons if w in weapons and (u.id, w) in answered]}
                  for u in units],
        "tables": tables,
    }


def _key(attack: str, unit: str, weapon: str, target: str, sits: dict[str, Any]) -> str:
    shown = ",".join(f"{k}={('yes' if v else 'no') if isinstance(v, bool) else v}" for k, v in sorted(sits.items()))
    return f"{attack}|{unit}|{weapon}|{target}|{shown}"


def calculator_json(data: dict[str, Any]) -> str:
    """The data as the page loads it: compact JSON, nothing in it read as markup."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"), sort_keys=True)


def calculator_documents(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The data as the page loads it, in parts, as (file name, JSON): ``calculator.json``, what the
    form needs (the attacks; the units, each with its number ``n`` and, for an attacking unit, the
    numbers of the targets it has answers for); then ``calculator-A-T.json`` for each attacker A
    and target T, their distributions, loaded when a reader picks that pair (a page loads only
    what it shows)."""
    number = {u["id"]: i for i, u in enumerate(data["units"], 1)}
    parts: dict[tuple[int, int], dict[str, Any]] = {}
    for key, grid in data["tables"].items():
        _, unit, _, target, _ = key.split("|")
        parts.setdefault((number[unit], number[target]), {})[key] = grid
    index = {k: v for k, v in data.items() if k != "tables"}
    index["units"] = [{**u, "n": number[u["id"]],
                       "targets": sorted(t for a, t in parts if a == number[u["id"]])} for u in data["units"]]
    return [("calculator.json", calculator_json(index))] + \
        [(f"calculator-{a}-{t}.json", calculator_json({"tables": parts[a, t]})) for a, t in sorted(parts)]


def calculator_files(rs: Ruleset, sitemap: Any, sources: Any, site: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The calculator page of a ruleset and the data it loads, as (path, title, text): none when
    the site gives the ruleset no calculator (``calculator_models``) or it has no attack to offer.
    The data is ``calculator.json`` and a ``calculator-A-T.json`` per attacker and target
    (:func:`calculator_documents`)."""
    from compiler.site.markup import plain

    models = int((site.get("calculator_models") or {}).get(rs.id, 0))
    if not offers_calculator(rs, models):
        return []
    texts = calculator_texts(rs, models)
    if not texts:  # every matchup refused by the rules: the page (linked already) says so
        return [(f"{rs.id}/calculator.md", "Matchup calculator", "\n".join([
            "# Matchup calculator", "", f"{plain(rs.title)} has no matchup of a unit, a weapon and a target that its "
            "rules can resolve, so there is nothing to pick here.", ""]))]
    page = "\n".join([
        "# Matchup calculator", "",
        f"What one unit's attack does to another under {plain(rs.title)}: pick the attacker and how many "
        "models, its weapon, the target and how many, and the situations the attack reads. The chances are "
        "exact, worked out by the same resolver as `warscribe eval` when this site was built.", "",
        f"Worked out for up to {models} models a side (fewer where a squad is smaller); situations that are "
        "numbers stay at their low end. Other matchups: `warscribe eval` with the line shown under the chart.", "",
        "[The calculator's data](calculator.json){ #ws-calc-data }", "",
        '<div class="ws-calc" id="ws-calc" markdown="0"></div>', ""])
    return [(f"{rs.id}/calculator.md", "Matchup calculator", page)] + \
        [(f"{rs.id}/{name}", "Matchup calculator data", text) for name, text in texts]


def offers_calculator(rs: Ruleset, models: int) -> bool:
    """Does the ruleset get a calculator page at ``models`` a side (its overview and the home page
    link it): an attack of a unit, a weapon and a target, and a unit with a weapon."""
    return models > 0 and bool(calculator_attacks(rs)) and any(u.weapons for u in _units(rs))


def calculator_texts(rs: Ruleset, models: int) -> tuple[tuple[str, str], ...]:
    """The calculator's JSON documents for ``rs`` at ``models`` a side (none when it offers nothing),
    kept in the cache folder under the ruleset's meaning (:func:`semantic_key`): an edit to its prose,
    its notes or its examples, or a line moved, finds them there; an edit to a rule or a profile works
    them out again."""
    from compiler.ast.cached import keep, recall

    key = f"{models}\0".encode() + semantic_key(rs)
    found = recall("calculator", key, lambda v: isinstance(v, tuple) and all(
        isinstance(t, tuple) and len(t) == 2 and all(isinstance(x, str) for x in t) for t in v))
    if found is not None:
        return found[0]  # type: ignore[return-value]
    data = calculator_data(rs, models)
    texts = tuple(calculator_documents(data)) if data is not None else ()
    keep("calculator", key, texts)
    return texts


#: What the calculator reads only the presence of: where a declaration is (its spans), the prose
#: written around the rules, notes, worked examples and properties (they check answers, they do not
#: make them; a section that holds examples marks its units as samples).
_UNREAD: tuple[type, ...] = (A.Span, A.Prose, A.ProseBlock, A.Note, A.Example, A.Property)


def semantic_key(rs: Ruleset) -> bytes:
    """A digest of what the ruleset's answers depend on: every declaration (its base's too) but
    what the calculator does not read (:data:`_UNREAD`)."""
    digest = hashlib.sha256()

    def walk(value: Any) -> None:
        if isinstance(value, _UNREAD):  # that it is there, not what it says (a unit beside examples is a sample)
            digest.update(type(value).__qualname__.encode() + b";")
        elif is_dataclass(value) and not isinstance(value, type):
            digest.update(type(value).__qualname__.encode() + b"(")
            for f in fields(value):
                digest.update(f.name.encode() + b"=")
                walk(getattr(value, f.name))
            digest.update(b")")
        elif isinstance(value, (tuple, list, frozenset, set)):
            items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
            digest.update(b"[")
            for item in items:
                walk(item)
                digest.update(b",")
            digest.update(b"]")
        elif isinstance(value, Mapping):
            digest.update(b"{")
            for k in sorted(value, key=repr):
                walk(k)
                digest.update(b":")
                walk(value[k])
            digest.update(b"}")
        else:
            digest.update(f"{type(value).__name__}:{value!r};".encode("utf-8", "surrogateescape"))

    model: Ruleset | None = rs
    while model is not None:
        digest.update(model.id.encode() + b"\0" + model.title.encode() + b"\0")
        walk(model.items)
        walk(tuple(sorted(model.removed)))
        model = model.base
    return digest.digest()
