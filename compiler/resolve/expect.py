"""Expectations: one ``expect`` line checked against what the resolver works out, and the
record of a run (:class:`Result`, :class:`Failure`) shared by examples, properties and claims.

``expect`` lines compare a value with what the author expects: exactly (``=``,
fractions are exact), approximately (``~ x ± tol``) or by order (``>=``…).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist, unwrap
from compiler.model.values import TargetValue
from compiler.words import full_number_words, number_words, value_words

FAST_TOLERANCE = 1e-9

@dataclass(frozen=True)
class Failure:
    """One expectation that did not hold (or could not be worked out)."""

    span: Span
    message: str
    expected: str | None = None
    actual: str | None = None
    hint: str | None = None


@dataclass(frozen=True)
class Result:
    kind: str  # "example", "property" or "claim"
    id: str
    title: str
    span: Span
    failures: tuple[Failure, ...] = ()
    checked: int = 0  # expectations checked (times points, for properties)
    seconds: float = 0.0
    truncated: Fraction = Fraction(0)
    values: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (expectation, actual) for reports

    @property
    def passed(self) -> bool:
        return not self.failures


def _compare(op: str, actual: Any, expected: Any, tolerance: Any, exact: bool) -> bool:
    a, e = unwrap(actual), unwrap(expected)
    if op == "~":
        tol = tolerance if tolerance is not None else Fraction(1, 10**9)
        return bool(abs(_as_num(a) - _as_num(e)) <= _as_num(tol))
    if op in ("=", "!="):
        if isinstance(a, (int, Fraction, float)) and isinstance(e, (int, Fraction, float)) \
                and not isinstance(a, bool) and not isinstance(e, bool):
            same = (a == e) if exact and not isinstance(a, float) else abs(float(a) - float(e)) <= FAST_TOLERANCE
        elif isinstance(a, TargetValue) and isinstance(e, TargetValue):
            same = a == e
        else:
            same = a == e and type(a) is type(e) or (a is None and e is None)
        return same if op == "=" else not same
    x, y = _as_num(a), _as_num(e)
    slack = 0 if exact and not isinstance(x, float) and not isinstance(y, float) else FAST_TOLERANCE
    if op == ">=":
        return bool(x >= y - slack)
    if op == "<=":
        return bool(x <= y + slack)
    if op == ">":
        return bool(x > y - slack)
    if op == "<":
        return bool(x < y + slack)
    raise ResolveError(f"unknown comparison {op}")


def _as_num(v: Any) -> Any:
    if isinstance(v, TargetValue) and v.as_number is not None:
        return v.as_number
    if isinstance(v, bool) or not isinstance(v, (int, Fraction, float)):
        raise ResolveError(f"{value_words(v)} is not a number")
    return v


def check_expect(ev: Evaluator, ex: A.Expect, env: dict[str, Any]) -> tuple[Failure | None, str]:
    """Check one expectation; return a failure (or None) and the actual value in words."""
    try:
        actual = ev.eval(ex.subject, dict(env))
        if isinstance(actual, AttackResult):
            raise ResolveError("this is a whole attack; expect one of its steps, e.g. mean(r.killed)",
                               ex.subject.span)
        if is_dist(actual):
            raise ResolveError("this is a distribution, not a number", ex.subject.span,
                               "compare its mean(…) or a probability P(…)")
        expected = ev.eval(ex.expected, dict(env))
        if is_dist(expected):
            raise ResolveError("the expected value must not be random", ex.expected.span)
        tol = ev.eval(ex.tolerance, dict(env)) if ex.tolerance is not None else None
        ok = _compare(ex.op, actual, expected, tol, ev.exact)
    except ResolveError as err:
        return Failure(err.span or ex.span, err.message, hint=err.hint), "error"
    shown = number_words(unwrap(actual))
    if ok:
        return None, shown
    # A failure shows the values in full, so that they can be pasted back.
    want = full_number_words(unwrap(expected))
    if ex.op == "~":
        want += f" ± {full_number_words(unwrap(tol)) if tol is not None else '1e-9'}"
    elif ex.op not in ("=",):
        want = f"{ex.op} {want}"
    return Failure(ex.span, "expectation does not hold", want, full_number_words(unwrap(actual))), shown
