"""The table pass: gaps, rows that are never used, values listed twice, grids that do not fit.

A table of cases is checked by working it out for every combination of its parameters' values
(and of the situations its rows ask about): a combination no row matches is a gap (W301), a row
that never matches first is unused (W302).  :func:`param_domain` says which values a parameter
ranges over; the resolver's reports and ``warscribe diff`` use it too.  Tables too large to work
through are refused or skipped with W907, before any of the work.
"""
from __future__ import annotations

from itertools import islice, product
from typing import Any, Iterable, Sequence

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.diagnostics import Span
from compiler.limits import MAX_GRID_CELLS, MAX_TABLE_POINTS, MAX_TABLE_ROWS, MAX_TABLE_WORK, LongRange
from compiler.model.ruleset import Ruleset
from compiler.model.static import NotStatic, StaticError, evaluate, int_range, row_matches
from compiler.model.values import TargetValue


def _values(ends: tuple[int, int]) -> Sequence[int]:
    """The whole numbers of a range: a list, or a lazy range when it is too long to list."""
    lo, hi = ends
    return list(range(lo, hi + 1)) if hi - lo < MAX_TABLE_POINTS else LongRange(lo, hi)


def param_domain(rs: Ruleset, p: A.Param) -> Sequence[Any] | None:
    """The values a parameter ranges over, when the ruleset says.

    >>> from compiler.driver import compile_text
    >>> model = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\nstat BS "BS" 1..6\\n').rulesets[0]
    >>> param_domain(model, A.Param(A.Span.point("x"), "BS", None))
    [1, 2, 3, 4, 5, 6]
    """
    t = p.type
    if isinstance(t, A.RangeExpr):
        ends = int_range(t)
        return _values(ends) if ends else None
    stat = rs.stats.get(t if isinstance(t, str) else p.name)
    if stat is not None:
        if isinstance(stat.type, A.RangeExpr):
            ends = int_range(stat.type)
            return _values(ends) if ends else None
        if stat.type == "target":
            return [TargetValue.high(n) for n in range(2, 7)] + [None]
        return None
    sit = rs.situations.get(t if isinstance(t, str) else p.name)
    if sit is not None:
        return situation_domain(sit)
    return None


def situation_domain(sit: A.Situation) -> Sequence[Any]:
    """The values a situation can take: its choices, its range, or no and yes."""
    if sit.choices:
        return list(sit.choices)
    if sit.range is not None:
        ends = int_range(sit.range)
        return _values(ends) if ends else [0]
    return [False, True]


def _situations_used(exprs: Iterable[A.Expr | None], rs: Ruleset, params: set[str]) -> list[A.Situation]:
    used: dict[str, A.Situation] = {}
    for e in exprs:
        if e is None:
            continue
        for sub in A.sub_expressions(e):
            if isinstance(sub, A.Name) and sub.id not in params and sub.id in rs.situations:
                used[sub.id] = rs.situations[sub.id]
    return [used[k] for k in sorted(used)]


def _show(v: Any) -> str:
    if v is None:
        return "none"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)


def _point_words(env: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {_show(v)}" for k, v in env.items())


def check_tables(ctx: Context) -> None:
    """Pass: every table of cases or grid (W301–W303, W907; W201 when a row cannot be worked out)."""
    for t in ctx.ruleset.of_type(A.Table):
        if t.formula is not None:
            continue
        if len(t.rows) > MAX_TABLE_ROWS:
            ctx.sink.error(codes.TABLE_TOO_LARGE, f"table '{t.id}' has {len(t.rows):,} rows; the limit is "
                           f"{MAX_TABLE_ROWS:,}", t.span, "split it into several tables, or write it as a formula")
        elif t.grid is not None:
            cells = sum(len(cells) for _, cells in t.grid.rows)
            if cells > MAX_GRID_CELLS:
                ctx.sink.error(codes.TABLE_TOO_LARGE, f"the grid of table '{t.id}' has {cells:,} cells; the limit is "
                               f"{MAX_GRID_CELLS:,}", t.span, "split it into several tables")
            else:
                check_grid(ctx, t)
        else:
            check_cases(ctx, t)


def check_cases(ctx: Context, t: A.Table) -> None:
    """A table of cases, worked out for every combination of values: gaps and unused rows."""
    rs = ctx.ruleset
    domains = [param_domain(rs, p) for p in t.params]
    if not t.rows or any(d is None for d in domains):
        return
    names = [p.name for p in t.params]
    sits = _situations_used([r.pattern for r in t.rows] + [let.value for let in t.lets], rs, set(names))
    sit_domains = [situation_domain(s) for s in sits]
    total = 1
    for dom in [*domains, *sit_domains]:  # (+1: a parameter may be none)
        assert dom is not None
        total *= len(dom) + 1
    if total > MAX_TABLE_POINTS or total * len(t.rows) > MAX_TABLE_WORK:
        ctx.sink.warning(codes.TABLE_TOO_LARGE, f"table '{t.id}' is too large to check for gaps and unused rows "
                         f"({len(t.rows):,} rows over {total:,} combinations of values)", t.span,
                         f"the check works through at most {MAX_TABLE_POINTS:,} combinations; "
                         "give the parameters smaller ranges")
        return
    asks_none = {sub.operand.id for r in t.rows if r.pattern is not None
                 for sub in A.sub_expressions(r.pattern)
                 if isinstance(sub, A.IsNone) and isinstance(sub.operand, A.Name)}
    axes: list[Sequence[Any]] = []
    for p, dom in zip(t.params, domains):
        assert dom is not None
        axes.append([*dom, None] if p.name in asks_none and None not in dom else dom)
    keys = names + [s.id for s in sits]
    first_hits = [0] * len(t.rows)
    ever_holds = [False] * len(t.rows)
    gaps: list[dict[str, Any]] = []
    for values in product(*axes, *sit_domains):
        env = dict(zip(keys, values))
        try:
            for let in t.lets:
                env[let.name] = evaluate(let.value, env, rs)
            matched = None
            for i, row in enumerate(t.rows):
                if row_matches(t, row, env, rs):
                    ever_holds[i] = True
                    if matched is None:
                        matched = i
        except NotStatic:
            return
        except StaticError as e:
            ctx.sink.error(codes.WRONG_KIND, f"table '{t.id}' cannot be worked out for {_point_words(env)}: {e}",
                           t.span)
            return
        if matched is None:
            gaps.append({k: env[k] for k in keys})
        else:
            first_hits[matched] += 1
    if gaps:
        shown = "; ".join(_point_words(g) for g in gaps[:3])
        more = f" … and {len(gaps) - 3} more" if len(gaps) > 3 else ""
        ctx.sink.warning(codes.TABLE_GAP, f"table '{t.id}' says nothing for {shown}{more}", t.span,
                         "add a row for these values, or an 'otherwise' row")
    _unused_rows(ctx, t, names, first_hits, ever_holds, check_repeated_keys(ctx, t))


def _unused_rows(ctx: Context, t: A.Table, names: list[str], first_hits: list[int], ever_holds: list[bool],
                 repeated: set[int]) -> None:
    for i, row in enumerate(t.rows):
        if first_hits[i] != 0 or i in repeated:
            continue
        if not ever_holds[i]:
            ctx.sink.warning(codes.UNUSED_ROW, f"this row of table '{t.id}' never applies: its case is false "
                             f"for every value of {', '.join(names)}", row.span,
                             "check the case against the parameters' ranges and choices")
            continue
        earlier = [r for r in t.rows[:i] if r.pattern is not None]
        ctx.sink.warning(codes.UNUSED_ROW, f"this row of table '{t.id}' can never be used: the rows above it "
                         "already cover every case it matches", row.span,
                         "rows are tried in order and the first match wins: move this row up, "
                         "or narrow the rows above",
                         related=[(r.span, "an earlier row") for r in earlier[-1:]])


def check_repeated_keys(ctx: Context, t: A.Table) -> set[int]:
    """Keyed rows (``2 -> 5+``) that name a value an earlier row already named (W303); their indexes."""
    repeated: set[int] = set()
    if len(t.params) != 1:
        return repeated
    keyed: dict[Any, int] = {}
    for i, row in enumerate(t.rows):
        if row.pattern is None or isinstance(row.pattern, A.RangeExpr):
            continue
        try:
            key = evaluate(row.pattern, {}, ctx.ruleset)
        except (NotStatic, StaticError):
            continue
        if isinstance(key, bool):
            continue
        if key in keyed:
            repeated.add(i)
            ctx.sink.warning(codes.REPEATED_KEY, f"table '{t.id}' lists {key} twice", row.span,
                             related=[(t.rows[keyed[key]].span, "first listed here")])
        keyed.setdefault(key, i)
    return repeated


def check_grid(ctx: Context, t: A.Table) -> None:
    """A grid: rows and columns listed once, every value of both parameters and no other."""
    g = t.grid
    assert g is not None
    rs = ctx.ruleset
    by_name = {p.name: p for p in t.params}
    seen_rows: dict[int, Span] = {}
    for (key, _), span in zip(g.rows, g.row_spans or (g.span,) * len(g.rows)):
        if key in seen_rows:
            ctx.sink.warning(codes.REPEATED_KEY, f"grid of table '{t.id}' has row {key} twice", span,
                             related=[(seen_rows[key], "first row")])
        seen_rows[key] = span
    if len(set(g.columns)) != len(g.columns):
        ctx.sink.warning(codes.REPEATED_KEY, f"grid of table '{t.id}' repeats a column", g.span)
    for pname, present in ((g.row_param, set(seen_rows)), (g.col_param, set(g.columns))):
        p = by_name.get(pname)
        dom = param_domain(rs, p) if p is not None else None
        if dom is None:
            continue
        missing = list(islice((v for v in dom if v not in present), 6))  # a range may be very long
        extra = sorted(v for v in present if v not in dom)
        if missing:
            ctx.sink.warning(codes.TABLE_GAP, f"the grid of table '{t.id}' has no {pname} = "
                             + ", ".join(str(m) for m in missing[:5]) + (" …" if len(missing) > 5 else ""),
                             g.span, f"{pname} ranges over {dom[0]}..{dom[-1]}")
        if extra:
            ctx.sink.warning(codes.OUT_OF_RANGE, f"the grid of table '{t.id}' has {pname} = "
                             + ", ".join(str(m) for m in extra[:5]) + f", outside the range of {pname}", g.span)
