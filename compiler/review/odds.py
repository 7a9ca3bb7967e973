"""What a change does to the game: examples and standard matchups worked out under both versions.

:func:`impact` evaluates two versions of a ruleset: every example present in
both, each ``expect`` subject's value before and after (:class:`ExampleImpact`),
and the *standard matchups* (:class:`MatchupImpact`): every attack sequence an
example ``let`` calls with profiles, worked out under both versions, with the
mean of its last step (the casualties) before and after and the relative
change; plus any expression the caller names (``warscribe diff --matchup EXPR``).
:func:`changed_examples` is the same question asked by ``warscribe check``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator, Sequence

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.review.cells import exact_text
from compiler.syntax.unparse import expr_text


@dataclass(frozen=True)
class ValueChange:
    """One ``expect`` subject of an example, worked out under each version.

    ``old``/``new`` are the values in words (``25/18 (≈ 1.38889)``), None where
    the side has no such expectation; ``old_exact``/``new_exact`` the exact values
    (``25/18``, ``4+``, ``yes``), or ``error: …`` when the value cannot be worked out.
    """

    subject: str
    old: str | None
    new: str | None
    old_exact: str | None
    new_exact: str | None
    expected: str | None = None  # the new side's expectation, e.g. "= 25/18" or "~ 0.35 ± 0.01"
    old_holds: bool | None = None  # did the expectation hold (each side's own)?
    new_holds: bool | None = None

    @property
    def changed(self) -> bool:
        return self.old_exact != self.new_exact


@dataclass(frozen=True)
class ExampleImpact:
    """One example present in both versions, with each ``expect`` subject's value before and after."""

    id: str
    title: str
    values: tuple[ValueChange, ...]

    @property
    def changed(self) -> bool:
        return any(v.changed for v in self.values)


@dataclass(frozen=True)
class MatchupImpact:
    """A matchup worked out under both versions: the mean of its result before and after.

    For an attack sequence the reported value is the mean of its last step
    (``step``, usually the casualties); for any other expression its mean (a
    yes/no expression: its probability).  ``sources`` says which example lets
    the matchup comes from (``example_id.let``); ``explicit`` marks one the
    caller asked for.
    """

    expression: str
    label: str
    step: str | None
    old_mean: Fraction | float | None
    new_mean: Fraction | float | None
    old_error: str | None = None
    new_error: str | None = None
    explicit: bool = False
    sources: tuple[str, ...] = ()

    @property
    def relative(self) -> float | None:
        """``(new - old) / old``; None when either is missing or old is 0."""
        if self.old_mean is None or self.new_mean is None or self.old_mean == 0:
            return None
        return float((self.new_mean - self.old_mean) / self.old_mean)

    @property
    def changed(self) -> bool:
        return (self.old_mean != self.new_mean or (self.old_error is None) != (self.new_error is None))

    def summary(self) -> str:
        """``"mean killed 1.39 → 1.11, -20%"``."""
        what = f"mean {self.step}" if self.step else "mean"
        old = _dec(self.old_mean) if self.old_mean is not None else "n/a"
        new = _dec(self.new_mean) if self.new_mean is not None else "n/a"
        rel = self.relative
        tail = f", {percent(rel)}" if rel is not None else ""
        return f"{what} {old} → {new}{tail}"


@dataclass(frozen=True)
class Impact:
    """What a change did to the odds: examples whose results changed, and the matchups."""

    examples: tuple[ExampleImpact, ...]
    matchups: tuple[MatchupImpact, ...]

    @property
    def changed(self) -> bool:
        return any(e.changed for e in self.examples) or any(m.changed for m in self.matchups)



def percent(rel: float) -> str:
    """A relative change as a reader likes it.

    >>> percent(-0.2), percent(0.004), percent(0.0), percent(1.5)
    ('-20%', '+0.4%', '0%', '+150%')
    """
    pct = rel * 100
    if pct == 0:
        return "0%"
    if abs(pct) < 1:
        return f"{pct:+.1f}%"
    return f"{pct:+.0f}%"


def _dec(v: Fraction | float) -> str:
    return f"{float(v):.2f}"


@dataclass(frozen=True)
class ExpectValue:
    """One ``expect`` line of an example worked out under one version."""

    subject: str
    words: str  # "25/18 (≈ 1.38889)", or "error: …"
    exact: str  # "25/18", or "error: …"
    expected: str  # "= 25/18"
    holds: bool


def example_values(model: Ruleset, ex: A.Example) -> list[ExpectValue]:
    """Each ``expect`` of an example with its subject's value under ``model``.

    A value that cannot be worked out is ``error: …`` (both in words and exact).
    """
    from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist, unwrap
    from compiler.resolve.runner import check_expect, fmt_number

    ev = Evaluator(model)
    env: dict[str, Any] = {}
    failure: str | None = None
    try:
        for let in ex.lets:
            ev.bind_let(let, env)
    except ResolveError as err:
        failure = f"error: {err.message}"
    out: list[ExpectValue] = []
    for e in ex.expects:
        subject = expr_text(e.subject)
        expected = f"{e.op} {expr_text(e.expected)}" + (f" ± {expr_text(e.tolerance)}" if e.tolerance else "")
        if failure is not None:
            out.append(ExpectValue(subject, failure, failure, expected, False))
            continue
        try:
            v = ev.eval(e.subject, dict(env))
            if isinstance(v, AttackResult) or is_dist(v):
                raise ResolveError("not a single value")
            v = unwrap(v)
            holds = check_expect(ev, e, env)[0] is None
            out.append(ExpectValue(subject, fmt_number(v), exact_text(v), expected, holds))
        except ResolveError as err:
            out.append(ExpectValue(subject, f"error: {err.message}", f"error: {err.message}", expected, False))
    return out


def _example_impact(old: Ruleset, new: Ruleset, id_: str) -> ExampleImpact | None:
    o, n = old.get(id_), new.get(id_)
    if not isinstance(o, A.Example) or not isinstance(n, A.Example):
        return None

    def keyed(rows: list[ExpectValue]) -> dict[tuple[str, int], ExpectValue]:
        seen: dict[str, int] = {}
        out = {}
        for row in rows:
            k = seen.get(row.subject, 0)
            seen[row.subject] = k + 1
            out[(row.subject, k)] = row
        return out
    ov, nv = keyed(example_values(old, o)), keyed(example_values(new, n))
    keys = list(nv) + [k for k in ov if k not in nv]
    values = []
    for k in keys:
        a, b = ov.get(k), nv.get(k)
        ref = b or a
        values.append(ValueChange(k[0], a.words if a else None, b.words if b else None,
                                  a.exact if a else None, b.exact if b else None,
                                  ref.expected if ref else None,
                                  a.holds if a else None, b.holds if b else None))
    return ExampleImpact(id_, n.title, tuple(values))


def _attack_call(model: Ruleset, e: A.Expr) -> A.Call | None:
    inner = e.expr if isinstance(e, A.With) else e
    if isinstance(inner, A.Call) and isinstance(model.callables.get(inner.func), A.Attack):
        return inner
    return None


def standard_matchups(*models: Ruleset) -> list[tuple[A.Expr, tuple[str, ...]]]:
    """The standard matchups of some rulesets: every example ``let`` that calls an attack sequence.

    Returned once per distinct expression (as written in the language), in the
    order first met, with the ``example.let`` names it appears under.
    """
    found: dict[str, tuple[A.Expr, list[str]]] = {}
    for model in models:
        for ex in model.of_type(A.Example):
            for let in ex.lets:
                if _attack_call(model, let.value) is None:
                    continue
                key = expr_text(let.value)
                entry = found.setdefault(key, (let.value, []))
                src = f"{ex.id}.{let.name}"
                if src not in entry[1]:
                    entry[1].append(src)
    return [(e, tuple(srcs)) for e, srcs in found.values()]


def matchup_label(expr: A.Expr, *models: Ruleset) -> str:
    """A matchup in words: ``"Shooting: 10 Imperial Guardsman, Lasgun, 10 Ork Boy (target_cover = soft)"``."""
    from compiler.syntax.unparse import setting_text

    call = None
    for m in models:
        call = _attack_call(m, expr)
        if call is not None:
            break
    if call is None:
        return expr_text(expr)
    title = next((getattr(m.callables.get(call.func), "title", None) for m in models
                  if m.callables.get(call.func) is not None), None) or call.func

    def profile_title(pid: str) -> str:
        for m in models:
            p = m.profiles.get(pid)
            if p is not None:
                return p.title
        return pid
    args = []
    for a in call.args:
        if isinstance(a, A.Group):
            args.append(f"{a.count} {profile_title(a.profile)}")
        elif isinstance(a, A.Name) and any(a.id in m.profiles for m in models):
            args.append(profile_title(a.id))
        else:
            args.append(expr_text(a))
    text = f"{title}: {', '.join(args)}"
    if isinstance(expr, A.With):
        text += f" ({', '.join(setting_text(s) for s in expr.settings)})"
    return text


def _matchup_value(model: Ruleset, expr: A.Expr) -> tuple[str | None, Fraction | float | None, str | None]:
    """(step, mean, error) of one matchup under one model."""
    from compiler.resolve.report import mean_of
    from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist, unwrap

    try:
        v = Evaluator(model).evaluate(expr)
        step = None
        if isinstance(v, AttackResult):
            if not v.steps:
                return None, None, "the attack has no steps"
            step = list(v.steps)[-1]
            v = v.steps[step]
        if is_dist(v):
            m = mean_of(v)
        else:
            u = unwrap(v)
            m = Fraction(int(u)) if isinstance(u, bool) else u
        if isinstance(m, int) and not isinstance(m, bool):
            m = Fraction(m)
        if not isinstance(m, (Fraction, float)):
            return step, None, f"{m} is not a number"
        return step, m, None
    except ResolveError as err:
        return None, None, err.message
    except (TypeError, ValueError) as err:  # a value that has no mean
        return None, None, str(err)


def impact(old: Ruleset, new: Ruleset, matchups: Sequence[str | A.Expr] = (), *,
           standard: bool = True, examples: bool = True, unchanged: bool = False) -> Impact:
    """What going from ``old`` to ``new`` does to the results: examples and matchups.

    * ``examples``: every example present (by id) in both, each ``expect``
      subject's value under its own version; only the examples with a changed
      value are kept unless ``unchanged``.
    * ``standard``: the standard matchups (:func:`standard_matchups` of both
      sides), each worked out under both versions; ``matchups``: more
      expressions (text or parsed), always kept.  A standard matchup whose mean
      did not change is kept only with ``unchanged``.

    Raises :class:`~compiler.resolve.evaluator.ResolveError` for an explicit matchup that
    cannot be read.

    >>> from compiler.driver import compile_text
    >>> head = 'ruleset d "D":\\n  version 1.0.0\\ntest hit(BS: 1..6) = roll d6 >= BS\\n'
    >>> old = compile_text(head + 'example e "E":\\n  expect P(hit(4)) = 1/2\\n').rulesets[0]
    >>> new = compile_text(head.replace(">= BS", ">= BS + 1") + 'example e "E":\\n  expect P(hit(4)) = 1/3\\n').rulesets[0]
    >>> [(v.subject, v.old_exact, v.new_exact) for v in impact(old, new).examples[0].values]
    [('P(hit(4))', '1/2', '1/3')]
    >>> impact(old, new, ["P(hit(3))"]).matchups[0].summary()
    'mean 0.67 → 0.50, -25%'
    """
    from compiler.resolve.evaluator import parse_expression

    ex_out: list[ExampleImpact] = []
    if examples:
        for ex in new.of_type(A.Example):
            item = _example_impact(old, new, ex.id)
            if item is not None and (unchanged or item.changed):
                ex_out.append(item)
    wanted: list[tuple[A.Expr, tuple[str, ...], bool]] = []
    for m in matchups:
        expr = parse_expression(m) if isinstance(m, str) else m
        wanted.append((expr, (), True))
    if standard:
        explicit = {expr_text(e) for e, _, _ in wanted}
        wanted.extend((e, srcs, False) for e, srcs in standard_matchups(old, new) if expr_text(e) not in explicit)
    mu_out: list[MatchupImpact] = []
    for expr, srcs, is_explicit in wanted:
        os_, om, oe = _matchup_value(old, expr)
        ns_, nm, ne = _matchup_value(new, expr)
        mu = MatchupImpact(expr_text(expr), matchup_label(expr, new, old), ns_ or os_, om, nm, oe, ne,
                           is_explicit, srcs)
        if is_explicit or unchanged or mu.changed:
            mu_out.append(mu)
    # The caller's matchups first, then those worked out on both sides, then the one-sided ones.
    mu_out.sort(key=lambda m: (not m.explicit, m.old_mean is None or m.new_mean is None))
    return Impact(tuple(ex_out), tuple(mu_out))


def changed_examples(old: Ruleset, new: Ruleset) -> Iterator[ExampleImpact]:
    """The examples (present in both) whose results differ — what ``warscribe check`` warns about."""
    for ex in new.of_type(A.Example):
        item = _example_impact(old, new, ex.id)
        if item is not None and item.changed:
            yield item
