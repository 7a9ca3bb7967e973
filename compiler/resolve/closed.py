"""Closed tests: a test whose roll is a function of its argument values alone.

``test wound(S, T) = roll d6 against to_wound(S, T), natural 1 fails`` reads nothing but its
parameters, a table that reads nothing but its own, and a die: for given values of ``S`` and
``T`` its outcome is the same in every situation, for every attacker, on every question asked of
the ruleset — unless an effect names the test (a roll modifier, ``needs 3+``, a cap, a re-roll,
``ignores modifiers``, a natural success from a hook).  Such a test is worked out once per
ruleset and argument values (:func:`closed_outcomes`, kept on the model, which is immutable)
instead of once per question; so is a step of an attack that passes tokens through such a test
when the test has no hooks (:func:`closed_step_key`).

What counts as closed (:func:`is_closed`): every expression of the test's roll, target and caps
is made of numbers, labels, constants, dice, arithmetic, comparisons, ranges, targets, chains,
``if … else``, the test's parameters, and calls of tables that are closed in the same sense
(case rows, a grid or a formula, no ``let``), each argument of a call to a table whose
parameter is a stat being that stat's name (any other would take the stat's modifiers, which
depend on the situation).  Anything else — a profile's stat, a situation's value, a formula, a
``let`` — is not closed, and the test goes the general way at every question.

>>> from compiler.driver import compile_text
>>> model = compile_text('''ruleset d "D":
...   version 1.0.0
... stat BS "Ballistic Skill" 1..6
... table to_hit(BS) "To hit":
...   1..3 -> 4+
...   otherwise -> 3+
... test hit(BS) = roll d6 against to_hit(BS), natural 1 fails
... situation range "Range" 0..24 default 12
... test far(BS) = roll d6 >= BS + range
... ''').rulesets[0]
>>> is_closed(model, model.callables["hit"]), is_closed(model, model.callables["far"])
(True, False)
"""
from __future__ import annotations

from typing import Any

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.model.values import TargetValue
from compiler.resolve.evaluator import Evaluator
from compiler.resolve.shape import flag_kinds
from compiler.trace import active as tracing

# Nodes that evaluate the same way whatever the situation (names and calls are checked apart).
_PLAIN = (A.Int, A.Decimal, A.Label, A.Const, A.Dice, A.Unary, A.Binary, A.RangeExpr, A.InRange, A.Target,
          A.Chain, A.IfElse)

MAX_KEPT = 20_000  # outcomes kept per ruleset; past it, the store starts again


def is_closed(model: Ruleset, test: A.Test) -> bool:
    """Whether ``test``'s outcome depends on its argument values alone (memoised per model)."""
    known: dict[str, bool] = model.__dict__.setdefault("_closed_tests", {})
    answer = known.get(test.id)
    if answer is None:
        answer = test.roll is not None and all(
            _closed_expr(model, e, {p.name for p in test.params}, set())
            for e in (test.roll.dice, test.roll.target, test.never_better, test.never_worse) if e is not None)
        known[test.id] = answer
    return answer


def closed_outcomes(model: Ruleset) -> dict[Any, Any]:
    """What is kept for ``model``: ("test", test id, exact, argument values) → a closed test's
    outcome; ("step", that key, negate, bags) → bags after a step through it.  (What depends
    on values alone is kept for the process: compiler.resolve.pure.)"""
    kept: dict[Any, Any] = model.__dict__.setdefault("_closed_test_outcomes", {})
    return kept


def closed_key(test: A.Test, args: list[Any], exact: bool) -> tuple[Any, ...] | None:
    """The key of a closed test's outcome for these argument values, or None when one of them is
    not a plain number or target (a profile, a roll): then the general way is taken."""
    key: list[Any] = ["test", test.id, exact]
    for a in args:
        t = type(a)
        if t is not int and t is not TargetValue:
            return None
        key.append(t)
        key.append(a)
    return tuple(key)


def _closed_expr(model: Ruleset, expr: A.Expr, params: set[str], visiting: set[str]) -> bool:
    for e in A.sub_expressions(expr):
        if isinstance(e, A.Name):
            if e.id not in params:
                return False
        elif isinstance(e, A.Call):
            if not _closed_call(model, e, visiting):
                return False
        elif not isinstance(e, _PLAIN):
            return False
    return True


def _closed_call(model: Ruleset, call: A.Call, visiting: set[str]) -> bool:
    table = model.callables.get(call.func)
    if not isinstance(table, A.Table) or call.kwargs or table.lets or table.id in visiting \
            or len(call.args) != len(table.params):
        return False
    for p, arg in zip(table.params, call.args):
        stat = model.param_stat(p)
        if stat in model.stats and not (isinstance(arg, A.Name) and arg.id == stat):
            return False
    inner = {p.name for p in table.params}
    exprs: list[A.Expr] = []
    if table.formula is not None:
        exprs.append(table.formula)
    for row in table.rows:
        exprs.extend(e for e in (row.pattern, row.result) if e is not None)
    if table.grid is not None:
        exprs.extend(cell for _, cells in table.grid.rows for cell in cells)
    return all(_closed_expr(model, e, inner, visiting | {table.id}) for e in exprs)


def closed_step_key(ev: Evaluator, bags: Any, test: A.Test, args: list[Any], negate: bool,
                    hooked: bool) -> tuple[Any, ...] | None:
    """The key, in :func:`closed_outcomes`, of a step of an attack that passes the tokens of
    ``bags`` through a closed test: then what the step gives depends on the bags, the test's
    outcome and ``negate`` alone.  None (the general way) when the test has hooks (``hooked``),
    an effect names it, a token carries modifiers from an earlier hook (its roll is its own), an
    argument is not a plain number or target, or what is used is being recorded."""
    if hooked or tracing() or not is_closed(ev.model, test) or ev.effects.names_test(test.id):
        return None
    if {"mods", "joins"} & flag_kinds(bags):
        return None
    key = closed_key(test, args, ev.exact)
    return None if key is None else ("step", key, negate, bags)
