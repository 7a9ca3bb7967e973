"""Claims judged over a grid: at every point of the ``for`` ranges, exactly, and the share where they hold.

A property must hold everywhere; a claim is what an author says about their rules, and
is judged rather than enforced.  :func:`judge_claim` works the claim's ``let`` lines and
expectations out at *every* point of its grid (no sampling: at most
:data:`CLAIM_GRID_LIMIT` points), and keeps, for each point, the value of the claim's
*measure* — the left-hand side of its first ``expect`` — and whether every expectation
held there.  The verdict is "holds" (every point), "fails" (none) or "holds in N%".

A judgement is worked out once per ruleset and claim (the site and ``warscribe test``
share it).

>>> from compiler.driver import compile_text
>>> rs = compile_text('ruleset d "D":\\n  version 1.0.0\\nstat BS "BS" 1..10: "Aim."\\n'
...                   'test hit(BS) "Hit" = roll d6 <= BS\\n'
...                   'claim half "Half the time":\\n  for BS in 1..6\\n'
...                   '  expect P(hit(BS)) ~ 1/2 ± (1/6)\\n').rulesets[0]
>>> j = judge_claim(rs, rs.of_type(A.Claim)[0])
>>> j.held, j.size, j.verdict
(3, 6, 'holds in 50% of the grid (3 of 6 points)')
>>> [str(p.measure) for p in j.points]
['1/6', '1/3', '1/2', '2/3', '5/6', '1']
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.model.static import int_range
from compiler.model.values import TargetValue
from compiler.resolve.evaluator import Evaluator, ResolveError, unwrap
from compiler.resolve.expect import Failure, Result, check_expect

CLAIM_GRID_LIMIT = 20_000  # points of one claim's grid; a larger grid is refused, not sampled


@dataclass(frozen=True)
class ClaimPoint:
    at: tuple[int, ...]  # the value of each binding, in the order of the ``for`` line
    measure: Fraction | float | None  # the first expectation's left-hand side (None: not a number)
    held: bool


@dataclass(frozen=True)
class Judgement:
    """A claim worked out at every point of its grid."""

    id: str
    axes: tuple[tuple[str, tuple[int, ...]], ...]  # (binding name, its values)
    points: tuple[ClaimPoint, ...]
    error: Failure | None = None
    seconds: float = 0.0

    @property
    def size(self) -> int:
        return len(self.points)

    @property
    def held(self) -> int:
        return sum(1 for p in self.points if p.held)

    @property
    def share(self) -> Fraction:
        return Fraction(self.held, self.size) if self.size else Fraction(0)

    @property
    def status(self) -> str:
        """``holds``, ``holds in part``, ``fails`` or ``error``."""
        if self.error is not None:
            return "error"
        if self.size and self.held == self.size:
            return "holds"
        return "fails" if self.held == 0 else "holds in part"

    @property
    def verdict(self) -> str:
        if self.error is not None:
            return f"cannot be judged: {self.error.message}"
        if self.status == "holds":
            return f"holds at every point of the grid ({self.size} points)"
        if self.status == "fails":
            return f"fails at every point of the grid ({self.size} points)"
        pct = round(float(self.share) * 100)
        pct = min(max(pct, 1), 99)  # "0%" or "100%" would misstate a partial verdict
        return f"holds in {pct}% of the grid ({self.held} of {self.size} points)"

    @property
    def measure_range(self) -> tuple[float, float] | None:
        values = [float(p.measure) for p in self.points if p.measure is not None]
        return (min(values), max(values)) if values else None


def _number(v: Any) -> Fraction | float | None:
    v = unwrap(v)
    if isinstance(v, TargetValue):
        v = v.as_number
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, (Fraction, float)):
        return v
    return None


def judge_claim(model: Ruleset, claim: A.Claim, exact: bool = True) -> Judgement:
    """Work a claim out at every point of its grid (memoised per ruleset, claim and mode)."""
    cache: dict[tuple[str, bool], Judgement] = model.__dict__.setdefault("_claim_judgements", {})
    key = (claim.id, exact)
    if key not in cache:
        cache[key] = _judge(model, claim, exact)
    return cache[key]


def _judge(model: Ruleset, claim: A.Claim, exact: bool) -> Judgement:
    start = time.perf_counter()
    axes: list[tuple[str, tuple[int, ...]]] = []
    for b in claim.bindings:
        ends = int_range(b.range, model)
        if ends is None:
            return Judgement(claim.id, (), (), Failure(b.span, "a claim ranges over whole numbers, such as 1..10"))
        axes.append((b.name, tuple(range(ends[0], ends[1] + 1))))
    size = 1
    for _, values in axes:
        size *= len(values)
    if size > CLAIM_GRID_LIMIT:
        return Judgement(claim.id, tuple(axes), (), Failure(
            claim.span, f"its grid has {size} points, more than the {CLAIM_GRID_LIMIT} a claim is judged at",
            hint="narrow the ranges of its 'for' line"))
    if not claim.expects:
        return Judgement(claim.id, tuple(axes), (), Failure(claim.span, "a claim needs an 'expect' line to judge"))
    ev = Evaluator(model, exact=exact)
    points: list[ClaimPoint] = []
    for at in itertools.product(*(values for _, values in axes)):
        env: dict[str, Any] = {name: v for (name, _), v in zip(axes, at)}
        try:
            for let in claim.lets:
                ev.bind_let(let, env)
            measure = _number(ev.eval(claim.expects[0].subject, dict(env)))
        except ResolveError as err:
            where = ", ".join(f"{n} = {v}" for (n, _), v in zip(axes, at))
            return Judgement(claim.id, tuple(axes), tuple(points),
                             Failure(err.span or claim.span, f"{err.message} for {where}", hint=err.hint))
        held = True
        for expect in claim.expects:
            failure, _ = check_expect(ev, expect, env)
            if failure is not None:
                if failure.expected is None:  # not a comparison that failed: the expression broke
                    where = ", ".join(f"{n} = {v}" for (n, _), v in zip(axes, at))
                    return Judgement(claim.id, tuple(axes), tuple(points),
                                     Failure(failure.span, f"{failure.message} for {where}", hint=failure.hint))
                held = False
                break
        points.append(ClaimPoint(tuple(at), measure, held))
    return Judgement(claim.id, tuple(axes), tuple(points), None, time.perf_counter() - start)


def run_claim(model: Ruleset, claim: A.Claim, exact: bool = True) -> Result:
    """A claim as a test result: it passes when it can be judged (whatever its verdict); the
    verdict is its one reported value."""
    j = judge_claim(model, claim, exact)
    return Result("claim", claim.id, claim.title, claim.span, (j.error,) if j.error else (),
                  j.size * len(claim.expects), j.seconds, values=(("verdict", j.verdict),))
