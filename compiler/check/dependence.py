"""Results of one attack combined as if they were independent rolls (W415).

The resolver works out each step of an attack (``r.hits``, ``r.killed``) as a distribution of
its own.  Combined in one question — ``P(r.killed - r.hits == 0)``, or ``r.killed`` with the
result of an attack whose number of models was worked out from it (``(10 - r.killed)
ork_boy``) — two such results would be treated as independent rolls, and the answer would be
silently wrong.  This pass refuses that, in examples and properties:

* each ``P(…)`` or ``mean(…)`` (which read a whole roll), each ``let`` value and the rest of
  an expectation is one *question*;
* in one question, the steps read (``r.killed``), the ``let`` names bound to something read
  from an attack (``let k = r.killed``: one roll, however often it is named) and the
  attacks called whose profiles were worked out from a result are its *units*; each unit
  depends on the attacks it was worked out from;
* two units of one question that depend on one attack are refused.

A number of models worked out from a result is not a unit of the question around it: the
attack is worked out for each number exactly.  Its own expression is a question, and the
numbers of models of one call are one more (each is mixed over on its own, so two worked out
from one attack, ``(r.killed) trooper, (1 - r.killed) trooper``, are refused).
"""
from __future__ import annotations

from typing import Iterator

from compiler import ast as A
from compiler import codes
from compiler.check.semantics import CheckContext
from compiler.model.ruleset import Ruleset
from compiler.syntax.builtins import BUILTINS

_WHOLE_ROLL = frozenset(b.name for b in BUILTINS.values() if b.aggregate)

Unit = tuple[str, frozenset[str], A.Span]  # shown as, the attacks it depends on, where


def _attack_call(rs: Ruleset, expr: A.Expr) -> A.Call | None:
    while isinstance(expr, A.With):
        expr = expr.expr
    if isinstance(expr, A.Call) and isinstance(rs.callables.get(expr.func), A.Attack):
        return expr
    return None


class _Lets:
    """What each ``let`` of one example or property depends on."""

    def __init__(self, rs: Ruleset) -> None:
        self.rs = rs
        self.attacks: dict[str, frozenset[str]] = {}  # let bound to an attack's result → attacks
        self.values: dict[str, frozenset[str]] = {}  # let bound to a value read from attacks → attacks

    def depends(self, expr: A.Expr) -> frozenset[str]:
        """The attacks ``expr`` depends on (not looking inside P(…) and mean(…))."""
        out: set[str] = set()
        for unit in self.units(expr, questions=None):
            out |= unit[1]
        return frozenset(out)

    def units(self, expr: A.Expr, questions: list[list[Unit]] | None) -> list[Unit]:
        """The units of the question ``expr`` is in; nested questions go to ``questions``."""
        out: list[Unit] = []
        self._walk(expr, out, questions, set())
        return out

    def _walk(self, e: A.Expr, out: list[Unit], questions: list[list[Unit]] | None, named: set[str]) -> None:
        if isinstance(e, A.Call) and e.func in _WHOLE_ROLL and e.func not in self.rs.callables:
            if questions is not None:
                for arg in e.args:
                    questions.append(self.units(arg, questions))
            return
        call = _attack_call(self.rs, e)
        if call is not None:
            needs: set[str] = set()
            counts: list[Unit] = []  # the numbers of models worked out from results, one each
            for arg in call.args + tuple(v for _, v in call.kwargs):
                for sub in A.sub_expressions(arg):
                    if isinstance(sub, A.Group) and sub.computed is not None:
                        depends = self.depends(sub.computed)
                        needs |= depends
                        counts.append((f"the number of {sub.profile}", depends, sub.span))
                        if questions is not None:
                            questions.append(self.units(sub.computed, questions))
            if questions is not None and len(counts) > 1:
                # Each number of models is mixed over on its own: two from one result would
                # count as independent rolls.
                questions.append(counts)
            if needs:
                out.append((f"{call.func}(…)", frozenset(needs), call.span))
            return
        if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) and e.obj.id in self.attacks:
            out.append((f"{e.obj.id}.{e.name}", self.attacks[e.obj.id], e.span))
            return
        if isinstance(e, A.Name) and self.values.get(e.id):
            if e.id not in named:
                named.add(e.id)
                out.append((e.id, self.values[e.id], e.span))
            return
        for child in A.children(e):
            self._walk(child, out, questions, named)

    def bind(self, let: A.Let) -> None:
        call = _attack_call(self.rs, let.value)
        if call is not None:
            needs: set[str] = {let.name}
            for arg in call.args + tuple(v for _, v in call.kwargs):
                for sub in A.sub_expressions(arg):
                    if isinstance(sub, A.Group) and sub.computed is not None:
                        needs |= self.depends(sub.computed)
            self.attacks[let.name] = frozenset(needs)
        else:
            self.values[let.name] = self.depends(let.value)


def _report(ctx: CheckContext, units: list[Unit]) -> None:
    for i, (shown, needs, span) in enumerate(units):
        for other, other_needs, _ in units[:i]:
            common = sorted(needs & other_needs)
            if not common:
                continue
            what = f"'{shown}' is read twice" if other == shown else f"'{other}' and '{shown}' both come from " \
                f"the attack '{common[0]}'"
            ctx.sink.error(codes.DEPENDENT_RESULTS, f"{what}: each read is worked out on its own, so combined here "
                           "they would count as independent rolls", span,
                           "ask about one at a time (means add up: mean(x) + mean(y)), or bind it once "
                           "with let and name that")
            return


def _questions(rs: Ruleset, lets: tuple[A.Let, ...], exprs: Iterator[A.Expr]) -> Iterator[list[Unit]]:
    scope = _Lets(rs)
    for let in lets:
        nested: list[list[Unit]] = []
        yield scope.units(let.value, nested)
        yield from nested
        scope.bind(let)
    for expr in exprs:
        nested = []
        yield scope.units(expr, nested)
        yield from nested


def _check_steps(ctx: CheckContext, attack: A.Attack) -> None:
    """Inside an attack: a step that combines the totals of two steps that count attacks
    (``lost = hits - wounds``); one of them read twice is one roll.  (A step over a count that may or may not
    be random, ``attacks - hits``, is left to the resolver, which refuses it when it is.)"""
    counted: set[str] = set()  # steps that count attacks through a test
    earlier: set[str] = set()
    for step in attack.steps:
        v = step.value
        earlier.add(step.name)
        if isinstance(v, A.Each) and isinstance(v.count, A.Name) and isinstance(v.item, A.Call) \
                and v.count.id in earlier:
            counted.add(step.name)
            continue
        if v is None:
            continue
        reads = [e for e in A.sub_expressions(v) if isinstance(e, A.Name) and e.id in counted]
        names = list(dict.fromkeys(e.id for e in reads))
        if len(names) > 1:  # one total read twice is one roll (``if … then hits * 2 else hits``)
            what = " and ".join(f"'{n}'" for n in names)
            second = next(e for e in reads if e.id != names[0])
            ctx.sink.error(codes.DEPENDENT_RESULTS, f"step '{step.name}' combines {what}, totals that depend on "
                           "each other: each is worked out on its own, so they would count as independent rolls",
                           second.span, "count what you need as a step of its own, e.g. misses = attacks each "
                           "not hit(…)")


def check_dependent_results(ctx: CheckContext) -> None:
    """Two results that depend on one attack, combined in one question (W415)."""
    rs = ctx.ruleset
    if not any(True for _ in rs.of_type(A.Attack)):
        return
    for attack in rs.of_type(A.Attack):
        _check_steps(ctx, attack)
    for decl in rs.walk():
        if isinstance(decl, (A.Example, A.Property)):
            exprs = (x for e in decl.expects for x in (e.subject, e.expected) if x is not None)
            for units in _questions(rs, decl.lets, exprs):
                _report(ctx, units)
