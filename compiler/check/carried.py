"""The carried pass: every stat a battle reads for a unit is on the profile of each unit that meets it (W866).

A battle works out many expressions for one unit at a time — a move's ``up to M``, a charge's
``M + d6``, ``tests steady(Ld)`` at the end of a turn, a reaction's or an action's test, the dice
of an activation, what a counter rises by, a derived situation's condition, ``foe.PC`` while
engaged, a score per surviving model — and each reads its stats from the unit's profile; so do
the attack sequences it fires, of the unit that makes the attack (``shooter.BS``) and of the one
it is aimed at (``target.T``).  A unit whose profile has no value of a stat read so (or has one
that is a roll, ``D6``, which such an expression cannot read) would stop the battle when it is
worked out, or never be shot at.  So each scenario's units
are matched against the expressions of the game it plays, and each stat read is refused where it
is written, naming the units that lack it.  (A combat's ``in order of I`` and an objective held
``by OC`` read a missing stat as 0, as the reference says.)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.diagnostics import Diagnostic, Sink, Span
from compiler.model.ruleset import Ruleset

#: The names through which a unit expression reads another profile's stats: ``unit`` (its own
#: profile) and ``foe`` (the enemy it is engaged with, in ``while engaged`` conditions).
PROFILE_NAMES: tuple[str, ...] = ("unit", "foe")


@dataclass(frozen=True)
class _Source:
    """An expression a battle works out reading one unit's profile: through ``me`` (``unit``, or an
    attack's role), and, when ``bare``, by bare stat names too (not those ``hidden``: local names);
    reached only by the units that meet ``guard``; ``what`` says whose stat it is, in words."""

    expr: A.Expr
    me: str
    bare: bool
    hidden: frozenset[str]
    guard: A.Expr | None
    what: str
    armed: bool = False  # only a unit with a weapon reaches it (it makes an attack with a weapon role)


@dataclass
class _Lack:
    """Who lacks one stat read at one place: profile id -> (the scenario unit's span, where)."""

    stat: str
    span: Span
    via: str | None = None  # the callable that reads it of the unit handed to it
    what: str = "for each unit"  # whose stat it is: "for each unit", "of each target of attack 'x'"
    units: dict[str, tuple[Span, str, str]] = field(default_factory=dict)


def check_carried(ctx: Context) -> None:
    """Pass: each stat read by a game's unit expressions is carried by every unit of each scenario
    that plays the game (W866), located at the reading.

    >>> from compiler.driver import compile_text
    >>> text = '''ruleset demo "Demo":
    ...   version 1.0.0
    ... stat M "Move" 1..12
    ... stat W "Wounds" 1..10 role wounds
    ... unit trooper "Trooper":
    ...   M 6  W 1
    ... unit drone "Drone":
    ...   W 1
    ... game hold "Hold":
    ...   phase move "Movement":
    ...     action advance "Advance": move up to M toward the enemy
    ...   victory wipe "Wipe" by annihilation
    ... scenario field "A field":
    ...   distance 24"
    ...   side red "Red":
    ...     5 trooper
    ...   side blue "Blue":
    ...     5 drone
    ... '''
    >>> [(d.code, d.span.line, d.message) for d in compile_text(text).diagnostics]
    [('W866', 11, "a battle reads 'M' for each unit here, but the profile of 'drone' (scenario 'field', side 'blue') has no M")]
    """
    found: dict[tuple[Span, str], _Lack] = {}
    for sc in ctx.ruleset.of_type(A.Scenario):
        _collect(ctx.ruleset, sc, found)
    _report_all(ctx, found)


def carried_in(ruleset: Ruleset, scenario: A.Scenario) -> tuple[Diagnostic, ...]:
    """W866 for one scenario as it will be played — with the army lists a command line gave its
    sides (``simulate --army blue=list.txt``), which ``check`` never saw."""
    ctx = Context(ruleset, Sink())
    found: dict[tuple[Span, str], _Lack] = {}
    _collect(ruleset, scenario, found)
    _report_all(ctx, found)
    return ctx.sink.items


def _collect(rs: Ruleset, sc: A.Scenario, found: dict[tuple[Span, str], _Lack]) -> None:
    """Add to ``found`` each stat the game ``sc`` plays reads of one of its units that lacks it."""
    games = rs.of_type(A.Game)
    game = rs.get(sc.game) if sc.game is not None else (games[0] if len(games) == 1 else None)
    if not isinstance(game, A.Game):
        return
    stats = {s.id for s in rs.of_type(A.Stat)}
    squads = {q.id: q for q in rs.of_type(A.Squad)}
    steps = frozenset(s.name for a in rs.of_type(A.Attack) for s in a.steps)
    exprs = list(_sources(rs, game, steps))
    for side in sc.sides:
        for entry in side.units:
            squad = squads.get(entry.name)
            profile = rs.profiles.get(squad.unit if squad is not None and squad.unit else entry.name)
            if profile is None or profile.kind != "unit":
                continue  # an unknown unit is refused by the battles pass
            armed = bool(entry.weapons or (squad.weapons if squad is not None else ()) or profile.weapons)
            reached = [src for src in exprs if (armed or not src.armed)
                       and (src.guard is None or _decided(rs, src.guard, profile, "unit") is not False)]
            for stat, span, via, what in {r for src in reached for r in _reads(rs, src, stats, profile)}:
                sv = profile.stat(stat)
                if sv is not None and sv.kind != "dice":
                    continue
                lack = found.setdefault((span, stat), _Lack(stat, span, via, what))
                lack.units.setdefault(profile.id, (entry.span, sc.id, side.id))


def _report_all(ctx: Context, found: dict[tuple[Span, str], _Lack]) -> None:
    for key in sorted(found, key=lambda k: (k[0].file, k[0].line, k[0].column, k[1])):
        _report(ctx, found[key])


def _report(ctx: Context, lack: _Lack) -> None:
    rs = ctx.ruleset
    parts = []
    for pid, (_, sc, side) in sorted(lack.units.items()):
        sv = rs.profiles[pid].stat(lack.stat)
        what = f"its {lack.stat} is a roll ({sv.text}), which a battle cannot read for a unit" if sv is not None \
            else f"has no {lack.stat}"
        parts.append(f"the profile of '{pid}' (scenario '{sc}', side '{side}') {what}")
    shown = parts[:3] + ([f"{len(parts) - 3} more"] if len(parts) > 3 else [])
    first = sorted(lack.units)[0]
    through = f" (through '{lack.via}')" if lack.via else ""
    ctx.sink.error(codes.STAT_NOT_CARRIED, f"a battle reads '{lack.stat}' {lack.what} here{through}, but "
                   + "; ".join(shown), lack.span,
                   f"give '{first}' a value of {lack.stat}, or field only units that have one in the scenario",
                   related=tuple((span, f"'{pid}' is fielded here") for pid, (span, _, _) in sorted(lack.units.items()))[:3])


def _reads(rs: Ruleset, src: _Source, stats: set[str], profile: A.Profile,
           seen: set[tuple[str, str]] | None = None) -> Iterator[tuple[str, Span, str | None, str]]:
    """The stats ``src`` reads from ``profile``'s unit when it is worked out for it (a bare stat in a
    unit expression, ``unit.M``, ``foe.PC``, an attack's ``target.T``, a formula's ``u.Inv`` when it
    is called with the unit for ``u``), each with where it is read.  A part the unit never reaches
    is skipped: the other branch of ``if unit has fearless then … else …``, what follows a false
    ``unit has …`` before ``and`` (a true one before ``or``)."""
    names = (src.me, "foe") if src.bare else (src.me,)
    seen = set() if seen is None else seen  # the (callable, parameter) pairs looked into
    stack = [src.expr]
    while stack:
        e = stack.pop()
        if isinstance(e, A.Name):
            if src.bare and e.id in stats and e.id not in src.hidden:
                yield e.id, e.span, None, src.what
            continue
        if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) and e.obj.id in names:
            if e.name in stats:
                yield e.name, e.span, None, src.what
            continue
        if isinstance(e, A.Call):
            for at, arg in list(enumerate(e.args)) + list(e.kwargs):
                if isinstance(arg, A.Name) and arg.id in names:
                    yield from ((stat, arg.span, e.func, src.what)
                                for stat in sorted(_through(rs, e.func, at, stats, profile, seen)))
        if isinstance(e, A.IfElse):
            decided = _decided(rs, e.cond, profile, src.me)
            if decided is not None:  # the condition is worked out, then one branch only
                stack.extend((e.then if decided else e.otherwise, e.cond))
                continue
        if isinstance(e, A.Binary) and e.op in ("and", "or"):
            decided = _decided(rs, e.left, profile, src.me)
            if decided is not None and decided == (e.op == "or"):
                stack.append(e.left)  # the right side is never worked out for this unit
                continue
        stack.extend(reversed(A.children(e)))


def _through(rs: Ruleset, func: str, at: int | str, stats: set[str], profile: A.Profile,
             seen: set[tuple[str, str]]) -> set[str]:
    """The stats a callable reads of ``profile``, given as its argument ``at`` (a position or a
    name): ``p.STAT`` in its body, and what the callables it hands ``p`` on to read of it, but not
    in a part ``p``'s profile keeps it from (as :func:`_reads`)."""
    decl = rs.callables.get(func)
    names = [p.name for p in getattr(decl, "params", ())]
    name = names[at] if isinstance(at, int) and at < len(names) else at if at in names else None
    if decl is None or not isinstance(name, str) or (func, name) in seen:
        return set()
    seen.add((func, name))
    return {stat for expr in rs.expressions(decl)
            for stat, _, _, _ in _reads(rs, _Source(expr, name, False, frozenset(), None, ""), stats, profile, seen)}


def _decided(rs: Ruleset, cond: A.Expr, profile: A.Profile, me: str, depth: int = 0) -> bool | None:
    """Whether ``cond``, read through ``me``, holds for every unit of ``profile`` when its profile
    alone decides it, as the resolver works it out (``unit has fearless``, ``Inv is none``, ``not``
    of such, ``and``/``or`` whose left side decides or whose both sides do, a formula of one
    result called with the unit: ``never_pinned(unit)``); None otherwise."""
    if depth > 8:
        return None
    if isinstance(cond, A.Has) and isinstance(cond.operand, A.Name) and cond.operand.id == me:
        return (cond.keyword in {k for k, _ in profile.keywords}
                or cond.keyword in {a.ability for a in profile.abilities} or profile.klass == cond.keyword)
    if isinstance(cond, A.IsNone):
        op = cond.operand
        stat = op.id if isinstance(op, A.Name) and me == "unit" else op.name if isinstance(op, A.Attr) and \
            isinstance(op.obj, A.Name) and op.obj.id == me else None
        sv = profile.stat(stat) if stat is not None else None
        return None if sv is None or sv.kind == "dice" else sv.kind == "none"
    if isinstance(cond, A.Unary) and cond.op == "not":
        inner = _decided(rs, cond.operand, profile, me, depth + 1)
        return None if inner is None else not inner
    if isinstance(cond, A.Binary) and cond.op in ("and", "or"):
        left = _decided(rs, cond.left, profile, me, depth + 1)
        if left is None or left == (cond.op == "or"):
            return left  # undecided, or decided before the right side is worked out
        return _decided(rs, cond.right, profile, me, depth + 1)
    if isinstance(cond, A.Call):
        decl = rs.callables.get(cond.func)
        if isinstance(decl, A.Formula) and not decl.lets and decl.result is not None:
            for param, arg in zip(decl.params, cond.args):
                if isinstance(arg, A.Name) and arg.id == me:
                    found = _decided(rs, decl.result, profile, param.name, depth + 1)
                    if found is not None:
                        return found
    return None


def _effects(effects: tuple[A.ActionEffect, ...]) -> Iterator[A.Expr]:
    for e in effects:
        if e.value is not None:
            yield e.value
        if e.until is not None:
            yield e.until


def _unit_expressions(game: A.Game, steps: frozenset[str]) -> Iterator[tuple[A.Expr, frozenset[str], A.Expr | None]]:
    """Every expression the battle works out for one unit, with the local names that hide stats in
    it (what a counter rises by when shot reads the volley's steps: ``hits``) and the condition a
    unit must meet to reach it (``each unit with COND tests …``)."""
    none: frozenset[str] = frozenset()
    for phase in game.phases:
        for act in phase.actions:
            yield from ((e, none, None) for e in _effects(act.effects))
    for r in game.reactions:
        yield from ((e, none, None) for e in _effects(r.effects))
    for end in game.at_end:
        if end.condition is not None:
            yield end.condition, none, None
        tested = [end.test] + list(_effects(((end.failing,) if end.failing is not None else ()) + end.effects))
        tested += [e for _, effects in end.cases for e in _effects(effects)]
        yield from ((e, none, end.condition) for e in tested)
    for counter in game.counters:
        yield counter.rises, steps if counter.event == "shot" else none, None
    if game.activation_dice is not None:
        yield game.activation_dice.test, none, None
    for d in game.derived:
        yield d.condition, none, None
    for es in game.engaged_statuses:
        yield es.condition, none, None
    for s in game.scores:
        if s.surviving or s.destroyed:
            yield s.value, none, None


def _sources(rs: Ruleset, game: A.Game, steps: frozenset[str]) -> Iterator[_Source]:
    """What ``game`` reads of each unit: its unit expressions, and the attacks it fires (actions,
    reactions, combats) read through their first role (the unit that attacks) and their last (the
    unit attacked); a middle role is a weapon, which an attack may leave unused when it lacks a stat."""
    for expr, hidden, guard in _unit_expressions(game, steps):
        yield _Source(expr, "unit", True, hidden, guard, "for each unit")
    fired = [e.name for p in game.phases for a in p.actions for e in a.effects if e.kind == "attack"]
    fired += [e.name for r in game.reactions for e in r.effects if e.kind == "attack"]
    fired += [c.attack for p in game.phases for c in p.combats]
    for name in dict.fromkeys(n for n in fired if n):
        attack = rs.get(name)
        if not isinstance(attack, A.Attack) or len(attack.params) < 2:
            continue  # refused by the battles pass
        armed = len(attack.params) > 2  # a middle role: the attack is made with each weapon
        roles = ((attack.params[0].name, f"of each unit that makes attack '{name}'", armed),
                 (attack.params[-1].name, f"of each unit attack '{name}' is aimed at", False))
        for expr in rs.expressions(attack):
            for role, what, needs in roles:
                yield _Source(expr, role, False, frozenset(), None, what, needs)
