"""Answers of the resolver as text and JSON: distributions, tables, test results.

Shared by the command line and the pytest plugin.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Iterable, Sequence

from compiler import ast as A
from compiler.check.passes import param_domain
from compiler.limits import MAX_TABLE_POINTS
from compiler.model.ruleset import Ruleset
from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist, unwrap
from compiler.resolve.runner import Result
from compiler.model.values import TargetValue
from compiler.words import fraction_json, number_words, value_words


fraction_text = fraction_json  # the old name of compiler.words.fraction_json, which other stages import

def value_text(v: Any) -> str:
    """An outcome in words (a test's pass/fail, a custom die's value, a pool's count)."""
    return value_words(unwrap(v))


def distribution_rows(d: Any) -> list[tuple[Any, Any, Any]]:
    """(value, P(value), P(at least value)) rows, in value order."""
    probs = d.probabilities()
    merged: dict[Any, Any] = {}
    for o, p in probs.items():
        merged[unwrap(o)] = merged.get(unwrap(o), 0) + p
    items = list(merged.items())
    try:
        items.sort(key=lambda kv: (kv[0] is None, kv[0]))
    except TypeError:
        items.sort(key=lambda kv: (type(kv[0]).__name__, str(kv[0])))
    numeric = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v, _ in items)
    tails = at_least_column([p for _, p in items]) if numeric else [None] * len(items)
    return [(v, p, t) for (v, p), t in zip(items, tails)]


def at_least_column(ps: list[Any]) -> list[Any]:
    """``[sum(ps[i:]) for i in range(len(ps))]`` in one pass from the end.

    Exact probabilities (``Fraction``) add up exactly, so the order does not matter. Float
    probabilities (the fast backend) are added exactly as integers over a common power of two
    and each tail is rounded once, so the column is correctly rounded whatever its length.

    >>> at_least_column([Fraction(1, 6)] * 6)[::2]
    [Fraction(1, 1), Fraction(2, 3), Fraction(1, 3)]
    >>> at_least_column([0.1] * 10)[0], sum([0.1] * 10)
    (1.0, 0.9999999999999999)
    """
    if ps and all(type(p) is Fraction for p in ps):
        # Over one common denominator (a distribution's probabilities share its total weight),
        # the tails are integer sums: one big-integer addition and one Fraction per row.
        common = 1
        for p in ps:
            if common % p.denominator:
                common = math.lcm(common, p.denominator)
        weights = [p.numerator * (common // p.denominator) for p in ps]
        fraction_tails = []
        total = 0
        for w in reversed(weights):
            total += w
            fraction_tails.append(Fraction(total, common))
        fraction_tails.reverse()
        return fraction_tails
    if not all(isinstance(p, float) for p in ps):
        tails: list[Any] = []
        acc: Any = 0
        for p in reversed(ps):
            acc = p + acc
            tails.append(acc)
        tails.reverse()
        return tails
    if not all(math.isfinite(p) for p in ps):  # nan or inf: no exact sum to take
        out, acc = [], 0.0
        for p in reversed(ps):
            acc = p + acc
            out.append(acc)
        return out[::-1]
    ratios = [p.as_integer_ratio() for p in ps]  # denominators are powers of two
    shift = max((d.bit_length() - 1 for _, d in ratios), default=0)
    scale = 1 << shift
    float_tails = []
    total = 0
    for n, d in reversed(ratios):
        total += n * (scale // d)
        float_tails.append(total / scale)  # int / int is correctly rounded
    float_tails.reverse()
    return float_tails


def mean_of(d: Any) -> Any:
    try:
        return d.map(lambda o: int(unwrap(o)) if isinstance(unwrap(o), bool) else unwrap(o)).mean()
    except (TypeError, ValueError):
        return None


def distribution_json(expression: str, d: Any) -> dict[str, Any]:
    rows = distribution_rows(d)
    m = mean_of(d)
    return {
        "expression": expression,
        "mean": None if m is None else fraction_json(m),
        "mean_float": None if m is None else finite_float(m),
        "truncated": fraction_json(d.truncated) if d.truncated else "0",
        "distribution": [{"value": json_value(v), "p": fraction_json(p), "p_float": float(p),
                          "at_least": None if t is None else fraction_json(t)} for v, p, t in rows],
    }


def finite_float(x: Any) -> float | None:
    """``x`` as a float for JSON, or None (``null``) when it is beyond what a float holds (JSON has
    no infinity).

    >>> finite_float(Fraction(1, 4)), finite_float(10**400), finite_float(-Fraction(10**400, 3))
    (0.25, None, None)
    """
    try:
        f = float(x)
    except OverflowError:
        return None
    return f if f not in (float("inf"), float("-inf")) and f == f else None


def json_value(v: Any) -> Any:
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, Fraction):
        return fraction_json(v)
    return str(v)


def percent(p: Fraction | float) -> str:
    """A chance to two decimals, seven characters wide; a nonzero chance too small to show reads
    ``<0.01%`` and one short of certain ``>99.99%`` (the site's style), never ``0.00%`` or ``100.00%``.

    >>> [percent(x) for x in (Fraction(1, 2), Fraction(1, 10**6), 0, Fraction(10**6 - 1, 10**6), 1)]
    [' 50.00%', ' <0.01%', '  0.00%', '>99.99%', '100.00%']
    """
    shown = f"{float(p) * 100:6.2f}%"
    if p and shown.strip() == "0.00%":
        return " <0.01%"
    if p != 1 and shown.strip() == "100.00%":
        return ">99.99%"
    return shown


#: The longest exact chance a row of ``warscribe eval`` prints beside its percentage (``371293/1889568``
#: is 14 characters; ten scavengers' volley has fractions of 150).
MAX_SHOWN_FRACTION = 24


def distribution_text(d: Any, width: int = 40) -> list[str]:
    rows = distribution_rows(d)
    lines = []
    floats = [float(p) for _, p, _ in rows]
    names = [value_text(v) for v, _, _ in rows]
    top = max(floats, default=1.0) or 1.0
    vw = max((len(n) for n in names), default=1)
    long = False
    for (v, p, tail), fp, name in zip(rows, floats, names):
        bar = "█" * max(1, round(width * fp / top)) if p else ""
        exact = fraction_json(p) if isinstance(p, Fraction) else ""
        if len(exact) > MAX_SHOWN_FRACTION:  # a line too long to read: the percentage says it, --json exactly
            exact, long = "", True
        at_least = f"  ≥ {percent(tail)}" if tail is not None else ""
        lines.append(f"  {name:>{vw}}  {percent(p)}{at_least}  {bar}  {exact}".rstrip())
    if long:
        lines.append(f"  (chances whose fractions run over {MAX_SHOWN_FRACTION} characters: exactly in --json)")
    m = mean_of(d)
    if m is not None:
        lines.append(f"  mean {number_words(m) if isinstance(m, Fraction) else f'{float(m):.6g}'}")
    if d.truncated:
        lines.append(f"  cut off (not counted above): {number_words(Fraction(d.truncated)) if isinstance(d.truncated, Fraction) else d.truncated}")
    return lines


def value_json(expression: str, v: Any) -> dict[str, Any]:
    """The answer of ``warscribe eval --json``: a value, a distribution or an attack's steps.

    >>> from compiler.resolve.dist import Dist
    >>> value_json("d2", Dist.die(2))["distribution"][0]
    {'value': 1, 'p': '1/2', 'p_float': 0.5, 'at_least': '1'}
    """
    if isinstance(v, AttackResult):
        return {"expression": expression, "attack": v.attack,
                "steps": {k: (distribution_json(k, s) if is_dist(s) else {"value": json_value(unwrap(s))})
                          for k, s in v.steps.items()}}
    if is_dist(v):
        return distribution_json(expression, v)
    v = unwrap(v)
    return {"expression": expression, "value": json_value(v),
            "mean": fraction_json(v) if isinstance(v, Fraction) else (v if isinstance(v, int) and not isinstance(v, bool) else None),
            "distribution": [{"value": json_value(v), "p": "1/1", "p_float": 1.0}]}


def value_lines(v: Any) -> list[str]:
    """The answer of ``warscribe eval`` for a reader.

    >>> from fractions import Fraction
    >>> value_lines(Fraction(7, 2))
    ['  7/2']
    """
    if isinstance(v, AttackResult):
        lines = []
        for name, s in v.steps.items():
            if is_dist(s):
                m = mean_of(s)
                lines.append(f"{name}: mean {number_words(m) if isinstance(m, Fraction) else f'{float(m):.6g}'}")
                lines.extend(distribution_text(s))
            else:
                lines.append(f"{name}: {value_text(s)}")
        return lines
    if is_dist(v):
        return distribution_text(v)
    return [f"  {value_text(v)}"]


# ---------------------------------------------------------------------------
# Tables over their axes
# ---------------------------------------------------------------------------


def table_axes(model: Ruleset, decl: Any) -> list[tuple[str, Sequence[Any]]]:
    axes = []
    for p in decl.params:
        dom = param_domain(model, p)
        if dom is None:
            raise ResolveError(f"cannot tell which values '{p.name}' ranges over", p.span,
                               f"give it a range: ({p.name}: 1..10), or name it after a stat with a range")
        axes.append((p.name, dom))
    return axes


def target_die(model: Ruleset, table_id: str | None = None) -> int:
    """The sides of the one die the ruleset's tests roll (of those rolling against ``table_id`` when
    given and some do): what a target such as ``4+`` is read against. 6 when they roll none, or dice
    of more than one size.

    >>> from compiler.driver import compile_text
    >>> rs = compile_text('ruleset r "R":\\n  version 1.0.0\\ntest hit(x: 2..9) "Hit":\\n  roll d10 >= x\\n').rulesets[0]
    >>> target_die(rs), target_die(rs, "some_table")
    (10, 10)
    """
    def sides(tests: Iterable[A.Test]) -> set[int]:
        return {t.roll.dice.sides for t in tests
                if t.roll is not None and isinstance(t.roll.dice, A.Dice) and t.roll.dice.count == 1}
    tests = model.of_type(A.Test)
    if table_id is not None:
        found = sides(t for t in tests if t.roll is not None and t.roll.op == "against"
                      and isinstance(t.roll.target, A.Call) and t.roll.target.func == table_id)
        if len(found) == 1:
            return found.pop()
    found = sides(tests)
    return found.pop() if len(found) == 1 else 6


def _test_over(model: Ruleset, table_id: str, params: tuple[A.Param, ...]) -> A.Test | None:
    """A test that rolls against this table with its own parameters, passed straight through."""
    for t in model.of_type(A.Test):
        roll = t.roll
        if roll is None or roll.op != "against" or not isinstance(roll.target, A.Call):
            continue
        call = roll.target
        if call.func != table_id or len(call.args) != len(params):
            continue
        names = [a.id for a in call.args if isinstance(a, A.Name)]
        if len(names) == len(call.args) and sorted(names) == sorted(p.name for p in t.params):
            return t
    return None


def evaluate_table(ev: Evaluator, decl: Any) -> dict[str, Any]:
    """Every cell of a table or formula over its parameters' ranges, with the chance to pass."""
    import itertools

    model = ev.model
    axes = table_axes(model, decl)
    if math.prod(len(vals) for _, vals in axes) > MAX_TABLE_POINTS:
        raise ResolveError(f"'{decl.id}' has {math.prod(len(vals) for _, vals in axes):,} cells; warscribe works "
                           f"out at most {MAX_TABLE_POINTS:,}", decl.span, "give the parameters smaller ranges")
    test = _test_over(model, decl.id, decl.params) if isinstance(decl, A.Table) else None
    die = target_die(model, decl.id)
    cells = []
    for point in itertools.product(*(vals for _, vals in axes)):
        at = {name: v for (name, _), v in zip(axes, point)}
        value = ev.apply(decl, list(point), decl.span)
        cell: dict[str, Any] = {"at": {k: json_value(v) for k, v in at.items()}}
        if is_dist(value):
            cell["result"] = None
            cell["mean"] = fraction_json(mean_of(value)) if mean_of(value) is not None else None
            cell["p"] = None
        else:
            v = unwrap(value)
            cell["result"] = str(v) if isinstance(v, TargetValue) else json_value(v)
            p = None
            if test is not None:
                # The test passes its own parameters to the table in the table's order.
                assert test.roll is not None and isinstance(test.roll.target, A.Call)  # as _test_over found it
                given = {a.id: at[tp.name] for a, tp in zip(test.roll.target.args, decl.params) if isinstance(a, A.Name)}
                targs = [given[p_.name] for p_ in test.params]
                p = ev.probability(ev.apply(test, targs, decl.span))
            elif isinstance(v, TargetValue):
                p = v.probability(die)
            cell["p"] = fraction_json(p) if p is not None else None
            cell["p_float"] = float(p) if p is not None else None
        cells.append(cell)
    return {"table": decl.id, "title": getattr(decl, "title", None),
            "axes": [{"name": n, "values": [json_value(v) for v in vals]} for n, vals in axes],
            "p_is": f"P({test.id}) — the test that rolls against this table" if test else
                    f"the chance that one d{die} meets the target",
            "cells": cells}


def table_text(data: dict[str, Any]) -> list[str]:
    axes = data["axes"]
    cells = data["cells"]

    def cell_text(c: dict[str, Any]) -> str:
        r = c.get("result")
        if r is None:
            return f"~{float(Fraction(c['mean'])):.2f}" if c.get("mean") else "?"
        p = c.get("p_float")
        return f"{r} · {p * 100:.0f}%" if p is not None else str(r)
    lines = [f"{data['table']}: {data.get('title') or ''}".rstrip(": ")]
    if len(axes) == 2:
        rows, cols = axes[0], axes[1]
        table = {(tuple(c["at"].values())): cell_text(c) for c in cells}
        width = max([len(cell_text(c)) for c in cells] + [len(str(v)) for v in cols["values"]]) + 2
        head = f"{rows['name']}\\{cols['name']}".ljust(7) + "".join(str(v).rjust(width) for v in cols["values"])
        lines.append(head)
        for r in rows["values"]:
            lines.append(str(r).ljust(7) + "".join(table[(r, c)].rjust(width) for c in cols["values"]))
    else:
        for c in cells:
            at = ", ".join(f"{k} = {v}" for k, v in c["at"].items())
            lines.append(f"  {at}: {cell_text(c)}")
    lines.append(f"(% = {data['p_is']})")
    return lines


# ---------------------------------------------------------------------------
# Test results
# ---------------------------------------------------------------------------


def failure_lines(result: Result, sources: dict[str, str]) -> list[str]:
    lines = [f"FAILED {result.kind} {result.id} — {result.title}"]
    for f in result.failures:
        lines.append(f"  {f.span}: {f.message}")
        text = sources.get(f.span.file)
        if text is not None and 0 < f.span.line <= len(text.splitlines()):
            lines.append(f"    | {text.splitlines()[f.span.line - 1].strip()}")
        if f.expected is not None:
            lines.append(f"    expected {f.expected}")
            lines.append(f"    actual   {f.actual}")
        if f.hint:
            lines.append(f"    hint: {f.hint}")
    if result.failures and result.truncated:
        lines.append(f"  note: a roll here was cut off at its bound (explode): "
                     f"{number_words(Fraction(result.truncated))} of its chance is counted nowhere")
    return lines


def results_json(results: Iterable[tuple[Ruleset, Result]]) -> dict[str, Any]:
    out = []
    for model, r in results:
        out.append({
            "ruleset": model.id, "kind": r.kind, "id": r.id, "title": r.title, "passed": r.passed,
            "span": r.span.to_json(), "checked": r.checked, "seconds": round(r.seconds, 4),
            "failures": [{"span": f.span.to_json(), "message": f.message, "expected": f.expected,
                          "actual": f.actual, "hint": f.hint} for f in r.failures],
        })
        if r.kind == "claim":
            out[-1]["verdict"] = dict(r.values).get("verdict")
    passed = sum(1 for o in out if o["passed"])
    return {"results": out, "summary": {"passed": passed, "failed": len(out) - passed}}
