"""Structure passes: the header, ids defined twice, definitions calling each other in a circle,
situations, attack sequences and notes.

Each pass is a function of the :class:`~compiler.check.context.Context`; :data:`compiler.check.CHECKS`
runs them in order.  The cycle pass reads the call graph the names pass filled in, so it runs
after it.
"""
from __future__ import annotations

from packaging.version import Version

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.check.names import report_unknown
from compiler.diagnostics import Span
from compiler.model.ruleset import GamePart, game_parts, kind_of, parse_version
from compiler.words import a_or_an


def check_header(ctx: Context) -> None:
    """Pass: a version, and a history that lists it and nothing newer (W405–W407)."""
    h = ctx.ruleset.header
    if h.version is None:
        ctx.sink.warning(codes.NO_VERSION, f"ruleset '{h.id}' has no version", h.span,
                         "add a line such as: version 1.0.0")
    versions = [e.version for e in h.history]
    if h.version and versions and h.version not in versions:
        ctx.sink.warning(codes.HISTORY_MISMATCH, f"the history does not mention the current version {h.version}",
                         h.span)
    if len(set(versions)) != len(versions):
        ctx.sink.warning(codes.HISTORY_MISMATCH, "the history lists a version twice", h.span)
    newest = max(versions, key=_order, default=None)
    if h.version and newest and h.version in versions and _order(newest) > _order(h.version):
        entry = next(e for e in h.history if e.version == newest)
        ctx.sink.warning(codes.HISTORY_NEWER, f"the history lists version {newest}, newer than the current "
                         f"version {h.version}", entry.span,
                         f"set 'version {newest}' in the header, or correct the history line")


def _order(v: str) -> tuple[bool, Version]:
    """A version's place in order (``1.2.10`` after ``1.2.9``); text that is no version comes first."""
    parsed = parse_version(v)
    return (parsed is not None, parsed or Version("0"))


def check_duplicates(ctx: Context) -> None:
    """Pass: every id is defined once (W102), game parts and dice included."""
    seen: dict[str, A.Decl | GamePart] = {}
    everything: list[A.Decl | GamePart] = []
    for decl in ctx.ruleset.walk():
        everything.append(decl)
        if isinstance(decl, A.Game):
            everything.extend(game_parts(decl))
    for d in everything:
        if isinstance(d, (A.ProseBlock, A.Replace, A.Remove, A.Extend)) or not d.id:
            continue
        if d.id in seen:
            first = seen[d.id]
            kind = kind_of(first)
            ctx.sink.error(codes.DUPLICATE, f"'{d.id}' is already defined (as {a_or_an(kind)})", d.span,
                           "every rule, table, term, unit and weapon needs its own id",
                           related=[(first.span, "first defined here")])
        else:
            seen[d.id] = d
    dice: dict[str, A.Die] = {}
    for die in ctx.ruleset.of_type(A.Die):
        if die.id in dice:
            ctx.sink.error(codes.DUPLICATE, f"die {die.id} is already defined", die.span,
                           related=[(dice[die.id].span, "first defined here")])
        dice[die.id] = die


def check_cycles(ctx: Context) -> None:
    """Pass: no table, formula or test depends on itself through the calls it makes (W401)."""
    graph = ctx.calls
    state: dict[str, int] = {}  # absent: not seen; 1: on the current path; 2: done
    reported: set[frozenset[str]] = set()

    def visit(node: str, path: list[tuple[str, Span]]) -> None:
        state[node] = 1
        for callee, span in graph.get(node, []):
            if state.get(callee) == 1:
                names = [n for n, _ in path] + [node]
                start = names.index(callee) if callee in names else 0
                cycle = names[start:] + [callee]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    ctx.sink.error(codes.CYCLE, "these definitions call each other in a circle: "
                                   + " → ".join(cycle), span, "a table, formula or test cannot depend on itself")
            elif state.get(callee) is None:
                visit(callee, path + [(node, span)])
        state[node] = 2

    for node in sorted(graph):
        if state.get(node) is None:
            visit(node, [])


def check_situations(ctx: Context) -> None:
    """Pass: a situation lists each choice once; an attack starts by counting, not removing (W102, W201)."""
    rs = ctx.ruleset
    for sit in rs.of_type(A.Situation):
        if len(set(sit.choices)) != len(sit.choices):
            ctx.sink.error(codes.DUPLICATE, f"situation '{sit.id}' lists a choice twice", sit.span)
    for att in rs.of_type(A.Attack):
        if att.steps and att.steps[0].removes_from is not None:
            ctx.sink.error(codes.WRONG_KIND, "an attack starts by counting its attacks, not by removing models",
                           att.steps[0].span)


def check_notes(ctx: Context) -> None:
    """Pass: notes name defined examples and declarations; open questions are listed (W101, W501)."""
    rs = ctx.ruleset
    examples = {d.id for d in rs.of_type(A.Example)} | {d.id for d in rs.of_type(A.Property)}
    for n in rs.of_type(A.Note):
        for name, span in n.pinned_by:
            if name not in examples:
                report_unknown(ctx, name, span, examples, "example")
        for name, span in n.see:
            if name not in rs.symbols:
                report_unknown(ctx, name, span, rs.symbols, "name")
        if n.kind == "open question":
            ctx.sink.note(codes.OPEN_QUESTION, f"open question: {n.title}", n.span)
    for d in rs.walk():
        for name, span in getattr(d, "see", ()) or ():
            if not isinstance(d, A.Note) and name not in rs.symbols:
                report_unknown(ctx, name, span, rs.symbols, "name")
