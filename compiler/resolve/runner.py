"""Examples, properties and claims, run as tests.

Each ``expect`` line is checked by :mod:`compiler.resolve.expect`.
A property is checked for every combination of its ranges when there are at
most :data:`EXHAUSTIVE_LIMIT` of them; when there are more, at the corners of the
ranges and at :data:`SAMPLED_EXAMPLES` points drawn by a seeded ``random.Random`` (the
same points on every run), and a counterexample is then shrunk towards the low ends.
No third-party library is needed at run time.  A claim is judged at every point of its
grid instead (:mod:`compiler.resolve.claims`).

Both ``warscribe test`` and the pytest plugin use :func:`run_ruleset`.
"""
from __future__ import annotations

import dataclasses
import itertools
import random
import time
from fractions import Fraction
from typing import Any, Iterable

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.resolve.claims import run_claim
from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist
from compiler.resolve.expect import FAST_TOLERANCE, Failure, Result, check_expect
from compiler.model.static import int_range
from compiler.words import number_words

EXHAUSTIVE_LIMIT = 2_000
SAMPLED_EXAMPLES = 300
SAMPLE_SEED = 20_000  # any fixed number: the sampled points are the same on every run


__all__ = ["EXHAUSTIVE_LIMIT", "FAST_TOLERANCE", "Failure", "Result", "check_expect", "fmt_number",
           "run_example", "run_property", "run_ruleset"]

fmt_number = number_words  # the old name of compiler.words.number_words, which other stages import


def run_example(model: Ruleset, ex: A.Example, exact: bool = True) -> Result:
    """Run one example: bind its ``let`` names and check each ``expect`` line.

    >>> from pathlib import Path
    >>> import compiler
    >>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
    >>> example = next(e for e in model.of_type(A.Example) if e.id == "first_move")
    >>> result = run_example(model, example)
    >>> result.passed, result.values[:2]
    (True, (('line 33', '30'), ('line 34', '36')))
    """
    start = time.perf_counter()
    ev = Evaluator(model, exact=exact)
    env: dict[str, Any] = {}
    failures: list[Failure] = []
    values: list[tuple[str, str]] = []
    try:
        for let in ex.lets:
            ev.bind_let(let, env)
    except ResolveError as err:
        failures.append(Failure(err.span or ex.span, err.message, hint=err.hint))
        return Result("example", ex.id, ex.title, ex.span, tuple(failures), 0, time.perf_counter() - start)
    if exact:
        model.__dict__.setdefault("_bound_lets", {})[id(ex)] = (ex, dict(env))
    truncated = Fraction(0)
    try:
        for let in ex.lets:
            truncated = max(truncated, _truncation(env.get(let.name)))
    except ResolveError:
        pass  # a step that cannot be worked out: the expectation that reads it reports why
    for expect in ex.expects:
        failure, shown = check_expect(ev, expect, env)
        values.append((f"line {expect.span.line}", shown))
        if failure is not None:
            failures.append(failure)
    truncated = max(truncated, Fraction(ev.cut_off))  # what P(…) and mean(…) left out
    return Result("example", ex.id, ex.title, ex.span, tuple(failures), len(ex.expects),
                  time.perf_counter() - start, truncated, tuple(values))


def bound_lets(model: Ruleset, ex: A.Example) -> dict[str, Any] | None:
    """The values :func:`run_example` bound to ``ex``'s ``let`` names (exactly), if it ran it:
    a page that charts them need not work them out again.  None if it did not, or failed."""
    found = model.__dict__.get("_bound_lets", {}).get(id(ex))
    return dict(found[1]) if found is not None and found[0] is ex else None


def _truncation(v: Any) -> Fraction:
    if is_dist(v):
        return Fraction(v.truncated)
    if isinstance(v, AttackResult):
        return max((Fraction(d.truncated) for d in v.steps.values() if is_dist(d)), default=Fraction(0))
    return Fraction(0)


def run_property(model: Ruleset, prop: A.Property, exact: bool = True) -> Result:
    """Check a property for every combination of its ranges (or a Hypothesis sample of them).

    >>> from pathlib import Path
    >>> import compiler
    >>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
    >>> prop = next(p for p in model.of_type(A.Property) if p.id == "more_strength")
    >>> run_property(model, prop).passed
    True
    """
    start = time.perf_counter()
    ranges: list[tuple[str, int, int]] = []
    for b in prop.bindings:
        ends = int_range(b.range, model)
        if ends is None:
            return Result("property", prop.id, prop.title, prop.span,
                          (Failure(b.span, "a property ranges over whole numbers, such as 1..10"),))
        ranges.append((b.name, ends[0], ends[1]))
    ev = Evaluator(model, exact=exact)
    size = 1
    for _, lo, hi in ranges:
        size *= max(0, hi - lo + 1)

    def check(point: tuple[int, ...]) -> Failure | None:
        env: dict[str, Any] = {name: v for (name, _, _), v in zip(ranges, point)}
        try:
            for let in prop.lets:
                ev.bind_let(let, env)
        except ResolveError as err:
            return Failure(err.span or prop.span, err.message, hint=err.hint)
        for expect in prop.expects:
            failure, _ = check_expect(ev, expect, env)
            if failure is not None:
                where = ", ".join(f"{n} = {v}" for (n, _, _), v in zip(ranges, point))
                return Failure(failure.span, f"{failure.message} for {where}", failure.expected,
                               failure.actual, failure.hint)
        return None

    checked = 0
    failure: Failure | None = None
    if size <= EXHAUSTIVE_LIMIT:
        for point in itertools.product(*(range(lo, hi + 1) for _, lo, hi in ranges)):
            checked += 1
            failure = check(point)
            if failure is not None:
                break
    else:
        failure, checked = _sample(ranges, check)
    return Result("property", prop.id, prop.title, prop.span, (failure,) if failure else (),
                  checked * max(1, len(prop.expects)), time.perf_counter() - start)


def _sample(ranges: list[tuple[str, int, int]], check: Any) -> tuple[Failure | None, int]:
    """Check the corners and :data:`SAMPLED_EXAMPLES` seeded random points; shrink a failure.

    Deterministic: the seed is fixed, so a run finds the same counterexample every time.
    """
    rng = random.Random(SAMPLE_SEED)
    calls = 0

    def fails(point: tuple[int, ...]) -> bool:
        nonlocal calls
        calls += 1
        return check(point) is not None

    lows = tuple(lo for _, lo, _ in ranges)
    highs = tuple(hi for _, _, hi in ranges)
    candidates = [lows, highs] + [tuple(rng.randint(lo, hi) for _, lo, hi in ranges)
                                  for _ in range(SAMPLED_EXAMPLES - 2)]
    found = next((p for p in candidates if fails(p)), None)
    if found is None:
        return None, calls
    return check(_shrink(found, lows, fails)), calls


def _shrink(point: tuple[int, ...], lows: tuple[int, ...], fails: Any) -> tuple[int, ...]:
    """Lower each coordinate of a failing point by bisection, keeping the point failing."""
    current = list(point)
    for i, low in enumerate(lows):
        ok, bad = low - 1, current[i]  # bad fails; ok passed (or lies below the range)
        while bad - ok > 1:
            mid = (ok + bad) // 2
            if fails(tuple(current[:i] + [mid] + current[i + 1:])):
                bad = mid
            else:
                ok = mid
        current[i] = bad  # bad only ever takes failing values
    return tuple(current)


def run_ruleset(model: Ruleset, exact: bool = True, only: Iterable[str] | None = None) -> list[Result]:
    """Run every example, property and claim of a ruleset, in document order.

    >>> from pathlib import Path
    >>> import compiler
    >>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
    >>> results = run_ruleset(model)
    >>> len(results) > 10, all(r.passed for r in results)
    (True, True)
    """
    wanted = set(only) if only else None
    results: list[Result] = []
    for d in model.walk():
        if wanted is not None and d.id not in wanted:
            continue
        if isinstance(d, A.Example):
            results.append(run_example(model, d, exact))
        elif isinstance(d, A.Claim):
            results.append(run_claim(model, d, exact))
        elif isinstance(d, A.Property):
            results.append(run_property(model, d, exact))
    return [_inherited(model, r) for r in results]


def _inherited(model: Ruleset, result: Result) -> Result:
    """A failure of an example, property or claim that an overlay inherits from its base says
    how to change it in the overlay (its base's files are not the overlay author's to edit)."""
    if result.passed or model.base is None or model.origin.get(result.id) != "base":
        return result
    kind = result.kind  # example, property or claim: the word that starts its declaration
    where = f"'{result.id}' comes from the base ruleset '{model.base.id}'"
    how = (f"if this ruleset's house rules change it on purpose, write in this ruleset "
           f"'replace {kind} {result.id} \"{result.title}\":' with what now holds, or 'remove {result.id}'")
    first, *rest = result.failures
    hint = f"{where}; {how}" + (f" ({first.hint})" if first.hint else "")
    return dataclasses.replace(result, failures=(dataclasses.replace(first, hint=hint), *rest))
