"""Checks that what the resolver works out is what the author meant (no silent wrong answers).

* W411 (error): inside an attack, a test that ability hooks act on (``on natural 6 to hit``,
  ``wound automatically``) is counted inside a larger expression, or over a count that is
  not an earlier step: its hooks would be lost.  Give it its own step.
* W412 (error): an attack ``removes`` models, but no stat is declared ``role wounds``.
* W413 (error): ``on each damage: ignored on 5+`` does not say which die it rolls.
* W414 (error): a stat some profile writes ``-`` (none) reaches arithmetic (``Def + AP`` with
  ``AP -``) without being asked ``AP is none`` first: the sum would be none and the roll
  against it would silently never succeed.
"""
from __future__ import annotations

from typing import Iterable, Iterator, Protocol

from compiler import codes
from compiler import ast as A
from compiler.diagnostics import Fix, Sink
from compiler.check.nones import Fact, facts, none_in_attack, reads_none
from compiler.model.ruleset import Ruleset


class CheckContext(Protocol):
    """What a pass reads: the ruleset and the sink (the check stage's Context)."""

    ruleset: Ruleset
    sink: Sink


def hooked_tests(rs: Ruleset) -> dict[str, str]:
    """Tests some ability's hooks act on → the ability's id."""
    out: dict[str, str] = {}
    for ab in rs.of_type(A.Ability):
        for hook in ab.hooks:
            if hook.test is not None:
                out.setdefault(hook.test, ab.id)
            for eff in hook.effects:
                if eff.kind in ("pass", "fail", "modify") and eff.test is not None:
                    out.setdefault(eff.test, ab.id)
    return out


EVERY_STEP = "*"  # the key of flag_sources for what reaches every later step (``+1 D``, mortal wounds)


def flag_sources(rs: Ruleset) -> dict[str, list[tuple[str, str]]]:
    """Test → the (test, ability) whose hooks change how it goes for one attack (``wound
    automatically`` on a natural 6 to hit: wound → [(hit, lethal_hits)]); under
    :data:`EVERY_STEP`, the hooks whose effects reach every later step (``+1 D``, ``mortal wounds``)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for ab in rs.of_type(A.Ability):
        for hook in ab.hooks:
            for eff in hook.effects:
                if hook.test is None or eff.kind not in ("pass", "fail", "modify", "mortal"):
                    continue
                key = eff.test if eff.test is not None else EVERY_STEP
                if (hook.test, ab.id) not in out.get(key, []):
                    out.setdefault(key, []).append((hook.test, ab.id))
    return out


def _check_flags(ctx: CheckContext, attack: A.Attack, sources: dict[str, list[tuple[str, str]]]) -> None:
    """A flag set by a hook (``wound automatically``) travels only through steps of the form
    ``next = previous each test(…)``; a step in between that is any other expression drops it."""
    tests = {t.id for t in ctx.ruleset.of_type(A.Test)}
    reach: dict[str, set[str]] = {}  # step → the tests its attacks have been through
    fresh: dict[str, str] = {}  # step → the step that started its attacks afresh
    spans = {s.name: s.span for s in attack.steps}
    tested: set[str] = set()  # tests of earlier steps

    def lost(start: str, through: set[str], what: str, keys: tuple[str, ...], span: A.Span) -> None:
        for key in keys:
            for test, ability in sources.get(key, []):
                if test in tested and test not in through:
                    origin = fresh[start]
                    ctx.sink.error(codes.HOOKS_LOST, f"'{origin}' starts fresh attacks, so what '{ability}' "
                                   f"does on '{test}' cannot reach this {what}", span,
                                   f"keep the attacks as they are: {origin} = … each becomes … capped at …, "
                                   f"or count it straight after the step that rolls '{test}'",
                                   related=((spans[origin], "the fresh attacks start here"),) if origin in spans
                                   else ())
                    return

    for step in attack.steps:
        value = step.value
        if step.removes_from is not None:
            if step.removes_from in reach:
                lost(step.removes_from, reach[step.removes_from], "removal", (EVERY_STEP,), step.span)
            continue
        kept = _kept_sources(value, reach) if isinstance(value, A.IfElse) else None
        if kept:  # each branch keeps the attacks of an earlier step (``… else hits``)
            reach[step.name] = set.intersection(*(reach[name] for name in kept))
            fresh[step.name] = fresh[kept[0]]
            continue
        if isinstance(value, A.Each) and isinstance(value.count, A.Name) and value.count.id in reach:
            through = set(reach[value.count.id])
            fresh[step.name] = fresh[value.count.id]
            if value.becomes:  # each becomes several like it: nothing is lost
                pass
            elif isinstance(value.item, A.Call) and value.item.func in tests:
                lost(value.count.id, through, f"'{value.item.func}'", (value.item.func, EVERY_STEP), value.span)
                through.add(value.item.func)
                tested.add(value.item.func)
            else:
                lost(value.count.id, through, "amount", (EVERY_STEP,), value.span)
            reach[step.name] = through
        else:
            reach[step.name] = set()
            fresh[step.name] = step.name


def _kept_sources(value: A.Expr, reach: dict[str, set[str]]) -> list[str] | None:
    """The earlier steps whose attacks a step keeps as they are, when every branch of it does:
    a step by name, or ``step each becomes …``; None when a branch starts fresh attacks."""
    if isinstance(value, A.IfElse):
        then, other = _kept_sources(value.then, reach), _kept_sources(value.otherwise, reach)
        return then + other if then is not None and other is not None else None
    if isinstance(value, A.Name) and value.id in reach:
        return [value.id]
    if isinstance(value, A.Each) and value.becomes and isinstance(value.count, A.Name) and value.count.id in reach:
        return [value.count.id]
    return None


def _check_extra_words(ctx: CheckContext, attack: A.Attack) -> None:
    """``1 extra wounds`` on a natural 6 to hit: the extra tokens join the step ``wounds`` —
    which must follow the step that rolls ``hit`` attack by attack (or be that step)."""
    names = [s.name for s in attack.steps]
    for i, step in enumerate(attack.steps):
        v = step.value
        if not (isinstance(v, A.Each) and isinstance(v.item, A.Call)):
            continue
        chain, current = {step.name}, step.name
        for later in attack.steps[i + 1:]:
            lv = later.value
            if isinstance(lv, A.Each) and isinstance(lv.count, A.Name) and lv.count.id == current \
                    and (isinstance(lv.item, A.Call) or lv.becomes):
                chain.add(later.name)
                current = later.name
        for ab in ctx.ruleset.of_type(A.Ability):
            for hook in ab.hooks:
                if hook.test != v.item.func:
                    continue
                for eff in hook.effects:
                    if eff.kind == "extra" and eff.word in names and eff.word not in chain:
                        ctx.sink.error(codes.HOOKS_LOST, f"the extra {eff.word} of '{ab.id}' on '{hook.test}' cannot "
                                       f"join step '{eff.word}' of '{attack.id}': it does not follow step "
                                       f"'{step.name}' attack by attack", eff.span,
                                       f"name this step ({step.name}) or one counted from it, e.g. "
                                       f"next = {step.name} each test(…)", related=((step.span, "the test is rolled here"),))


def _check_attack(ctx: CheckContext, attack: A.Attack, hooked: dict[str, str]) -> None:
    earlier: set[str] = set()
    for step in attack.steps:
        exprs = [e for e in (step.value, step.removes_target, step.damage) if e is not None]
        for expr in exprs:
            for sub in A.sub_expressions(expr):
                if not (isinstance(sub, A.Each) and isinstance(sub.item, A.Call) and sub.item.func in hooked):
                    continue
                whole = sub is step.value
                counted = isinstance(sub.count, A.Name) and sub.count.id in earlier
                if whole and counted:
                    continue
                ability = hooked[sub.item.func]
                where = "inside a larger expression" if not whole else "over a count that is not an earlier step"
                hint = (f"give it its own step, e.g. {step.name} = attacks each {sub.item.func}(…), "
                        f"then use {step.name} in the next step" if not whole
                        else "give the count its own step first, e.g. attacks = shooter.models * weapon.A")
                ctx.sink.error(codes.HOOKS_LOST, f"'{sub.item.func}' is counted {where}: the hooks of '{ability}' on it "
                               "would not apply here", sub.span, hint)
        earlier.add(step.name)


ARITHMETIC = ("+", "-", "*", "/")


def _operands_of(subs: Iterable[A.Expr]) -> Iterator[A.Expr]:
    """The operands of the arithmetic among ``subs``."""
    for sub in subs:
        if isinstance(sub, A.Binary) and sub.op in ARITHMETIC:
            yield sub.left
            yield sub.right
        elif isinstance(sub, A.Unary) and sub.op == "-":
            yield sub.operand


def arithmetic_params(rs: Ruleset) -> dict[str, set[int]]:
    """Callable → positions of the parameters it does arithmetic on (directly or by passing them
    on), unless it asks ``p is none`` somewhere."""
    decls = {k: d for k, d in rs.callables.items() if isinstance(d, (A.Test, A.Table, A.Formula))}
    bodies = {k: rs.sub_expressions(d) for k, d in decls.items()}
    out: dict[str, set[int]] = {k: set() for k in decls}
    guarded: dict[str, set[str]] = {k: {s.operand.id for s in subs
                                        if isinstance(s, A.IsNone) and isinstance(s.operand, A.Name)}
                                    for k, subs in bodies.items()}
    changed = True
    while changed:
        changed = False
        for k, d in decls.items():
            names = {p.name: i for i, p in enumerate(d.params)}
            hit: set[str] = set()
            hit |= {o.id for o in _operands_of(bodies[k]) if isinstance(o, A.Name)}
            for s in bodies[k]:
                if isinstance(s, A.Call) and s.func in out:
                    hit |= {a.id for i, a in enumerate(s.args) if isinstance(a, A.Name) and i in out[s.func]}
            new = {names[n] for n in hit if n in names and n not in guarded[k]}
            if not new <= out[k]:
                out[k] |= new
                changed = True
    return out


def _guarded(expr: A.Expr, known: frozenset[Fact] = frozenset()) -> Iterator[tuple[A.Expr, frozenset[Fact]]]:
    """Each sub-expression of ``expr`` with what the branches around it know
    (``if weapon has blast then hits * weapon.blast else hits``: the value is there in the
    first branch)."""
    yield expr, known
    if isinstance(expr, A.IfElse):
        yield from _guarded(expr.cond, known)
        yield from _guarded(expr.then, known | facts(expr.cond, True))
        yield from _guarded(expr.otherwise, known | facts(expr.cond, False))
        return
    for child in A.children(expr):
        yield from _guarded(child, known)


def _none_reaching_arithmetic(rs: Ruleset, expr: A.Expr,
                              arith: dict[str, set[int]]) -> Iterator[tuple[A.Attr, str, frozenset[Fact]]]:
    """``role.Stat`` reads inside ``expr`` that end in arithmetic, with why and what the
    branches around them know."""
    for sub, known in _guarded(expr):
        if isinstance(sub, A.Call) and sub.func in arith:
            callee = rs.callables[sub.func]
            names = [p.name for p in getattr(callee, "params", ())]
            for i, a in enumerate(sub.args):
                if i in arith[sub.func] and isinstance(a, A.Attr):
                    yield a, f"'{sub.func}' does arithmetic on its {names[i]}", known
        for o in _operands_of((sub,)):
            if isinstance(o, A.Attr):
                yield o, "it is added, subtracted, multiplied or divided", known


def _group_profile(arg: A.Expr, rs: Ruleset) -> str | None:
    if isinstance(arg, A.Group):
        return arg.profile
    if isinstance(arg, A.Name) and arg.id in rs.profiles:
        return arg.id
    return None


def _check_none_arithmetic(ctx: CheckContext) -> None:
    """Where check can see the profiles — an attack called with them in an example, a
    property or another declaration — a stat written '-' must not reach arithmetic.  (The
    resolver refuses it anywhere else, W800.)"""
    rs = ctx.ruleset
    valued = {a.id for a in rs.of_type(A.Ability) if a.params}
    if not any(sv.kind == "none" for prof in rs.profiles.values() for sv in prof.stats) and not valued:
        return
    arith = arithmetic_params(rs)
    for decl in rs.walk():
        for call in rs.sub_expressions(decl):
            attack = rs.callables.get(call.func) if isinstance(call, A.Call) else None
            if not isinstance(call, A.Call) or not isinstance(attack, A.Attack):
                continue
            roles = {p.name: _group_profile(a, rs) for p, a in zip(attack.params, call.args)}
            reported: set[tuple[str, str]] = set()
            for step in attack.steps:
                for part in (step.value, step.removes_target, step.damage):
                    if part is None:
                        continue
                    for attr, why, known in _none_reaching_arithmetic(rs, part, arith):
                        role = attr.obj.id if isinstance(attr.obj, A.Name) else None
                        if (role, attr.name, True) in known:
                            continue  # in a branch taken only when the value is there
                        prof = rs.profiles.get(roles.get(role or "") or "")
                        if prof is None or (prof.id, attr.name) in reported or not reads_none(rs, prof, attr.name):
                            continue
                        reported.add((prof.id, attr.name))
                        has = f"has '{attr.name} -' (none)" if prof.stat(attr.name) is not None else \
                            f"does not have the ability '{attr.name}' (so its value is none)"
                        give = f"or give '{prof.id}' a number for {attr.name}" if prof.stat(attr.name) is not None \
                            else f"or give '{prof.id}' the ability: {attr.name}(…)"
                        ctx.sink.error(codes.NONE_IN_ARITHMETIC, f"'{prof.id}' {has}, and in step "
                                       f"'{step.name}' of '{attack.id}' {why}: the result would be none",
                                       call.span, f"ask first (if {attr.name} is none then … else …), " + give,
                                       related=((attr.span, f"{role}.{attr.name} is read here"),))
            if not reported:
                _report_followed(ctx, rs, attack, call)


def _report_followed(ctx: CheckContext, rs: Ruleset, attack: A.Attack, call: A.Call) -> None:
    """A none that reaches arithmetic further away than a step's own arithmetic or a
    callable's parameter (compiler.check.nones), where those reads found none."""
    followed = none_in_attack(rs, attack, call)
    if followed is None:
        return
    step, found = followed
    prof_id, name = found.source
    prof = rs.profiles[prof_id]
    has = f"has '{name} -' (none)" if prof.stat(name) is not None else \
        f"does not have the ability '{name}' (so its value is none)"
    give = f"or give '{prof_id}' a number for {name}" if prof.stat(name) is not None \
        else f"or give '{prof_id}' the ability: {name}(…)"
    where = f"step '{step.name}'" if step is not None else "a let line"
    inside = f" (in '{found.inside}')" if found.inside else ""
    ctx.sink.error(codes.NONE_IN_ARITHMETIC, f"'{prof_id}' {has}, and in {where} of '{attack.id}' it reaches "
                   f"arithmetic{inside}: the result would be none", call.span,
                   f"ask first (if {name} is none then … else …), " + give,
                   related=((found.span, "the arithmetic is here"),))


WOUNDS_NAMES = ("w", "wounds", "hp", "hit points")


def _wounds_fix(rs: Ruleset) -> tuple[Fix, ...]:
    """``role wounds`` added to the one stat that holds a model's wounds (named or titled W,
    Wounds, HP or Hit points, a range, written without ``unclamped``): certain only then."""
    found = [s for s in rs.stats.values()
             if (s.id.lower() in WOUNDS_NAMES or s.title.lower() in WOUNDS_NAMES)
             and isinstance(s.type, A.RangeExpr) and s.clamped and s.role is None]
    if len(found) != 1:
        return ()
    end = found[0].type.span  # type: ignore[union-attr]
    at = A.Span(end.file, end.end_line, end.end_column, end.end_line, end.end_column)
    return (Fix(at, " role wounds", None, f"declare stat {found[0].id} role wounds"),)


def _wounds_role(ctx: CheckContext) -> bool:
    """Whether a stat or an ability is declared ``role wounds``; an ability's role is checked
    here (only ``wounds``, on an ability with a value, and declared once)."""
    rs = ctx.ruleset
    declared = [f"stat {s.id}" for s in rs.stats.values() if getattr(s, "role", None) == "wounds"]
    for ab in rs.of_type(A.Ability):
        if ab.role is None:
            continue
        span = ab.role_span or ab.span
        if ab.role != "wounds":
            ctx.sink.error(codes.UNKNOWN_NAME, f"unknown role '{ab.role}'; an ability can be the wounds: role wounds",
                           span, "role wounds, 1 without it")
        elif not ab.params:
            ctx.sink.error(codes.WRONG_KIND, f"'{ab.id}' has no value to be a model's wounds", span,
                           f"give it one: ability {ab.id}(X: 1..10) …")
            declared.append(f"ability {ab.id}")  # meant as the wounds: no second error for it
        elif declared:
            ctx.sink.error(codes.DUPLICATE, f"'role wounds' is declared twice: by {declared[0]} and by "
                           f"ability {ab.id}", span, "keep one of them")
        else:
            declared.append(f"ability {ab.id}")
    return bool(declared)


def check_semantics(ctx: CheckContext) -> None:
    """Attack sequences and damage hooks the resolver would otherwise answer wrongly."""
    rs = ctx.ruleset
    hooked = hooked_tests(rs)
    sources = flag_sources(rs)
    has_wounds = _wounds_role(ctx)
    wounds_fix = _wounds_fix(rs) if not has_wounds else ()
    for attack in rs.of_type(A.Attack):
        _check_attack(ctx, attack, hooked)
        _check_flags(ctx, attack, sources)
        _check_extra_words(ctx, attack)
        for step in attack.steps:
            if step.removes_from is not None and not has_wounds:
                ctx.sink.error(codes.NO_WOUNDS_ROLE, "'removes' takes wounds off models, but no stat is declared 'role wounds'",
                               step.span, 'declare the wounds stat: stat W "Wounds" 1..10 role wounds (or an '
                               'ability\'s value: role wounds, 1 without it)', fixes=wounds_fix)
    _check_none_arithmetic(ctx)
    for ab in rs.of_type(A.Ability):
        if len(ab.params) > 1:  # a profile gives an ability one value: blast(2)
            ctx.sink.error(codes.WRONG_ARITY, f"ability '{ab.id}' takes one value, not {len(ab.params)}",
                           ab.params[1].span, f"keep one: ability {ab.id}({ab.params[0].name}: …); "
                           "a second number is a second ability")
        for hook in ab.hooks:
            if hook.ignore_damage_on is not None and hook.damage_die is None:
                # The die 0.1.0 rolled: a d6.
                ctx.sink.error(codes.HOOK_DIE_UNSAID, "say which die this rolls", hook.span,
                               "on each damage: roll d6, ignored on 5+",
                               fixes=(Fix(hook.span, "damage: roll d6, ignored", "damage: ignored",
                                          "say the die: roll d6"),))
