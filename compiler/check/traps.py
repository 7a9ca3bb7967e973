"""Sentences ``check`` accepts but that an author most likely means otherwise: warnings with a hint.

* W416: an ability whose plain effects (``-1 to hit``) count for the attacks its carrier makes,
  on a profile that the rules only ever attack, or a plain penalty (``-1 to hit``) on a profile
  attacked in some question: the author meant attacks against it (``when attacked: -1 to hit``).
* W417: a roll set to ``always`` succeed on a test whose natural rule (``natural 1 fails``) still
  fails it on that face.
* W418: ``skill + 4 each d3`` reads as ``(skill + 4) each d3``: ``each`` binds more loosely than
  arithmetic, so brackets must say which is meant.
* W419: a stat modifier on a target value (``-1 BS`` on ``BS 3+``) moves its number: 3+ becomes
  2+, an easier roll.
"""
from __future__ import annotations

from typing import Iterator

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset
from compiler.syntax.unparse import effect_text, expr_text

_ARITHMETIC = ("+", "-", "*", "/")


def all_effects(rs: Ruleset) -> Iterator[A.Effect]:
    """Every effect a modifier, an ability (also ``when attacked:``) or a hook carries."""
    for m in rs.of_type(A.Modifier):
        yield from m.effects
    for ab in rs.of_type(A.Ability):
        yield from ab.effects
        yield from ab.defence
        for hook in ab.hooks:
            yield from (e.effect for e in hook.effects if e.effect is not None)


def _profile_of(arg: A.Expr, rs: Ruleset) -> str | None:
    if isinstance(arg, A.Group):
        return arg.profile if arg.profile in rs.profiles else None  # an unknown name is reported elsewhere
    if isinstance(arg, A.Name) and arg.id in rs.profiles:
        return arg.id
    return None


def _attack_calls(rs: Ruleset) -> Iterator[tuple[A.Call, A.Attack]]:
    for decl in rs.walk():
        for call in rs.sub_expressions(decl):
            attack = rs.callables.get(call.func) if isinstance(call, A.Call) else None
            if isinstance(call, A.Call) and isinstance(attack, A.Attack):
                yield call, attack


def check_own_attacks_only(ctx: Context) -> None:
    """W416: an attacked profile whose ability's effects count only for its own attacks: any
    effect when it never attacks, a penalty on a roll (``-1 to hit``) when it also does."""
    rs = ctx.ruleset
    attacked: dict[str, tuple[A.Call, str]] = {}
    attacking: set[str] = set()
    for call, attack in _attack_calls(rs):
        defender = attack.defender()
        for p, arg in zip(attack.params, call.args):
            prof = _profile_of(arg, rs)
            if prof is None:
                continue
            if p.name == defender:
                attacker = next((q.name for q in attack.params if q.name != defender), "shooter")
                attacked.setdefault(prof, (call, attacker))
            else:
                attacking.add(prof)
    abilities = {a.id: a for a in rs.of_type(A.Ability)}
    for prof_id, (call, attacker) in attacked.items():
        for use in rs.profiles[prof_id].abilities:
            ab = abilities.get(use.ability)
            if ab is None or not ab.effects:
                continue
            penalties = [e for e in ab.effects if _penalty(e)]
            if prof_id in attacking and not penalties:
                continue
            said = ", ".join(effect_text(e) for e in (ab.effects if prof_id not in attacking else penalties))
            why = "is only ever attacked" if prof_id not in attacking else "is attacked here"
            what = "the effects" if prof_id not in attacking else "the penalty"
            ctx.sink.warning(codes.OWN_ATTACKS_ONLY, f"'{prof_id}' {why}, but {what} of its ability '{ab.id}' "
                             f"({said}) count only for attacks '{prof_id}' makes", call.span,
                             f"for attacks against the unit that carries it, write in '{ab.id}': when attacked: "
                             f"{said}; for a penalty on its own rolls, write a modifier: "
                             f"{said} when {attacker} has {ab.id}",
                             related=(((penalties or ab.effects)[0].span, "the effect is here"),))


def _penalty(e: A.Effect) -> bool:
    """``-1 to hit``: a plain penalty on a roll, which an ability seldom puts on its own attacks."""
    v = e.value
    return e.kind == "roll" and (isinstance(v, A.Unary) and v.op == "-" or isinstance(v, A.Int) and v.value < 0)


def check_always_can_fail(ctx: Context) -> None:
    """W417: ``always`` on a test that a natural face still fails."""
    rs = ctx.ruleset
    tests = {t.id: t for t in rs.of_type(A.Test) if t.natural_fails}
    for t in tests.values():
        if t.roll is not None and any(isinstance(x, A.Const) and x.value == "always"
                                      for x in A.sub_expressions(t.roll.target)):
            _always(ctx, t, t.roll.target.span)
    for e in all_effects(rs):
        if e.kind == "needs" and e.test in tests and isinstance(e.value, A.Const) and e.value.value == "always":
            _always(ctx, tests[e.test], e.span)


def _always(ctx: Context, test: A.Test, span: Span) -> None:
    faces = " or ".join(str(n) for n in test.natural_fails)
    ctx.sink.warning(codes.ALWAYS_CAN_FAIL, f"'{test.id}' says natural {faces} fails, and that beats 'always': "
                     f"the roll is still made and fails on a natural {faces}", span,
                     "for a success with no roll, count it without the test (hits = attacks); "
                     "to keep the roll, write the target as 2+ instead of always")


def check_each_brackets(ctx: Context) -> None:
    """W418: an unbracketed sum or product on the left of ``each``."""
    for decl in ctx.ruleset.walk():
        for sub in ctx.ruleset.sub_expressions(decl):
            if not (isinstance(sub, A.Each) and isinstance(sub.count, A.Binary) and sub.count.op in _ARITHMETIC):
                continue
            count = sub.count
            if (count.span.line, count.span.column) != (sub.span.line, sub.span.column):
                continue  # bracketed: (skill + 4) each …
            at = Span(count.span.file, count.left.span.end_line, count.left.span.end_column,
                      count.right.span.line, count.right.span.column)
            left, right = expr_text(count.left), expr_text(count.right)
            item = expr_text(sub.item)
            item = f"({item})" if isinstance(sub.item, A.Binary) else item
            word = "each not" if sub.negate else "each"
            ctx.sink.warning(codes.EACH_UNBRACKETED, f"'{word}' binds more loosely than '{count.op}': this counts "
                             f"({left} {count.op} {right}) {word} {item}", at,
                             f"say which you mean with brackets: {left} {count.op} ({right} {word} …) or "
                             f"({left} {count.op} {right}) {word} …")


def check_target_stat_modifiers(ctx: Context) -> None:
    """W419: a stat modifier on a stat of type ``target``."""
    rs = ctx.ruleset
    for e in all_effects(rs):
        stat = rs.stats.get(e.stat or "")
        if e.kind != "stat" or stat is None or stat.type != "target":
            continue
        text, up = effect_text(e), not effect_text(e).startswith("-")
        role = f" of {e.role}" if e.role else ""
        ctx.sink.warning(codes.TARGET_STAT_MODIFIED, f"'{stat.id}' is a target value, and {text} adds to its number: "
                         f"with {e.stat} 3+ it makes {'4+, a harder' if up else '2+, an easier'} roll", e.span,
                         f"say which way you mean: {e.stat}{role} {'worse' if up else 'better'} by 1 "
                         f"(3+ becomes {'4+' if up else '2+'}), or {e.stat}{role} {'better' if up else 'worse'} by 1")


def check_traps(ctx: Context) -> None:
    """The four warnings above."""
    check_own_attacks_only(ctx)
    check_always_can_fail(ctx)
    check_each_brackets(ctx)
    check_target_stat_modifiers(ctx)
