"""Whose status a situation is in a volley: the attacker's or the unit attacked.

A status that is also a situation (``status gone_to_ground`` and ``situation gone_to_ground``) is
set while the resolver works for a unit that holds it.  In a volley two units meet, and the rules
say by what the situation changes whose status it is: a modifier whose ``when`` reads it and that
changes a roll or a stat of the side attacked (``+1 to save when gone_to_ground``, where the attack
calls ``save(target.Sv)``; ``+1 T of target when …``; an ability's ``when attacked:`` effects)
describes the unit attacked; one that changes the attacker's rolls or stats (``-1 to hit when
ran``, a hook on the attacker's hit) describes the attacker.  A modifier on a roll or stat no attack
makes (a unit's own test) fits either.

The reading is followed through what the attacks call: a test, formula or table called in a step
(``save(target.Sv - cover(target))``, a ``cover`` formula that reads the situation) reads it for the
side whose profile its arguments carry (here the target), the innermost call that carries one
deciding; a call that carries none reads it for the side of the call it is inside, and a read
outside every call (``shots = if ran then 1 else 2``) is the attacker's.  A modifier's ``when`` may
read the situation through a formula too.  A test called with no profile at all (``save(5)``) is the
unit attacked's when the attack carries its failures on toward the removal (``unsaved = wounds each
not save(5)``: the unit attacked rolls to stop the wounds) and the attacker's when it carries its
successes (``hits = shots each hit(4)``); elsewhere it takes the side its other calls give it, and
a status read for such a roll whose side nothing tells is *unknown*, which ``check`` refuses (W868).

A situation the game works out for a unit (``situation posture is prone when gone_to_ground``)
reads the statuses of its condition for whatever reads it.  A counter or an order is a value the
battle keeps for each unit, and a volley is worked out with the shooter's: one read for the unit
attacked is listed (:attr:`Sides.values`) for ``check`` to refuse (W869).

:func:`status_sides` sorts the statuses so: those only the attacked side's rolls read are
*defending* (in a volley they come from the target's statuses, not the shooter's), and those read
by both sides are conflicts, which ``check`` refuses (W867): one situation cannot be both units'.

For instance ``+1 to save when gone_to_ground``, with an attack that calls ``save(target.Sv)``, makes
``gone_to_ground`` defending: a volley at a unit that holds it is worked out with it set.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset

ATTACKER, DEFENDER, OWN, UNKNOWN = "attacker", "defender", "own", "unknown"
BOTH = "both"  # a roll (or stat) some calls make for the attacker and others for the unit attacked
_Callee = A.Test | A.Formula | A.Table


@dataclass(frozen=True, slots=True)
class Reader:
    """A declaration that reads a status's situation, and the side of a volley it reads it for."""

    name: str  # the modifier or ability (or attack) that reads it
    span: Span
    side: str  # ATTACKER, DEFENDER, OWN or UNKNOWN
    #: for a side UNKNOWN: the call of a test whose side nothing tells (``save(5)`` in a ``let``)
    call: Span | None = None


@dataclass(frozen=True, slots=True)
class Sides:
    """The statuses read only for the side attacked, those read for both sides, and those read for
    a roll whose side cannot be told; and the unit's values (a counter, an order) read for the
    side attacked, which a volley takes from the shooter."""

    defending: frozenset[str] = frozenset()
    #: status → its readers, for a status that some read for the attacked side and others for the attacker
    conflicts: dict[str, tuple[Reader, ...]] = field(default_factory=dict)
    #: status (or value) → its readers whose side is UNKNOWN
    unknown: dict[str, tuple[Reader, ...]] = field(default_factory=dict)
    #: a counter or order → its readers for the side attacked
    values: dict[str, tuple[Reader, ...]] = field(default_factory=dict)


def _side(carried: set[str]) -> str:
    """The side of a call whose arguments carry these sides' profiles (``wound(weapon.S, target.T)``,
    both: the attacker's roll)."""
    return DEFENDER if carried == {DEFENDER} else ATTACKER


def _derived(model: Ruleset) -> dict[str, tuple[A.Expr, ...]]:
    """Each situation a game works out for a unit (``situation exposed is yes when not
    gone_to_ground``) → the conditions it is worked out from: what reads it reads them."""
    out: dict[str, tuple[A.Expr, ...]] = {}
    for game in model.of_type(A.Game):
        for d in game.derived:
            out[d.situation] = out.get(d.situation, ()) + (d.condition,)
    return out


class _Reads:
    """Which statuses a test, formula, table or derived situation reads, through what it calls."""

    def __init__(self, model: Ruleset, statuses: set[str]) -> None:
        self.callables: dict[str, _Callee] = {d.id: d for d in model.of_type(A.Test)}
        self.callables.update((d.id, d) for d in model.of_type(A.Formula))
        self.callables.update((d.id, d) for d in model.of_type(A.Table))
        self.statuses = statuses
        self.derived = _derived(model)
        self._of: dict[str, frozenset[str]] = {}

    def expr(self, expr: A.Expr | None, shadow: frozenset[str] = frozenset()) -> set[str]:
        out: set[str] = set()
        if expr is None:
            return out
        for e in A.sub_expressions(expr):
            if isinstance(e, A.Name) and e.id in self.statuses and e.id not in shadow:
                out.add(e.id)
            elif isinstance(e, A.Name) and e.id in self.derived and e.id not in shadow:
                out |= self.callable("situation " + e.id)
            elif isinstance(e, A.Call) and e.func in self.callables:
                out |= self.callable(e.func)
        return out

    def callable(self, name: str) -> frozenset[str]:
        found = self._of.get(name)
        if found is None:
            self._of[name] = frozenset()  # a circle (refused by check, W401) reads nothing more
            if name.startswith("situation "):
                found = frozenset(s for x in self.derived[name[10:]] for s in self.expr(x))
            else:
                decl = self.callables[name]
                shadow = frozenset(p.name for p in decl.params)
                found = frozenset(s for x in A.expressions_in(decl) for s in self.expr(x, shadow))
            self._of[name] = found
        return found


class _Volleys:
    """Walk the attacks' steps through what they call: the sides each test is called for, each stat
    read of a role's profile (as ``.Sv``), and each status read with the side it is read for."""

    def __init__(self, model: Ruleset, statuses: set[str], roled: dict[str, set[str]]) -> None:
        reads = _Reads(model, statuses)
        self.callables, self.derived = reads.callables, reads.derived
        self.statuses = statuses
        self.roled = roled  # test → the sides of its calls whose arguments carry a profile
        self.tests: dict[str, set[str]] = {}  # test or ".stat" → the sides it is called (read) for
        self.with_roles: dict[str, set[str]] = {}
        self.unknown: dict[str, Span] = {}  # test → a call of it whose side nothing tells
        self.reads: list[tuple[str, str, Span, str, Span | None]] = []  # (status, side, span, attack, call)
        self._attack = ""
        self._chain: dict[int, str] = {}  # id of a test call in the attack's chain → its side
        self._seen: set[tuple[Any, ...]] = set()

    def attack(self, attack: A.Attack) -> None:
        self._attack = attack.id
        defender = attack.defender()
        env = {p.name: frozenset({DEFENDER if p.name == defender else ATTACKER}) for p in attack.params}
        lets = {let.name: let.value for let in attack.lets}
        tests = [n for n, d in self.callables.items() if isinstance(d, A.Test)]
        chain = set(attack.counted_chain(tests))
        self._chain = {}
        for step in attack.steps:
            v = step.value
            if step.name in chain and isinstance(v, A.Each) and isinstance(v.item, A.Call):
                self._chain[id(v.item)] = DEFENDER if v.negate else ATTACKER
            for part in (step.value, step.damage):
                if part is not None:
                    self.expr(part, env, lets, None, None)

    def carried(self, expr: A.Expr, env: dict[str, frozenset[str]], lets: dict[str, A.Expr],
                depth: int = 0) -> set[str]:
        """The sides whose profiles ``expr`` carries (``target.Sv``: the defender's)."""
        out: set[str] = set()
        for e in A.sub_expressions(expr):
            if isinstance(e, A.Name):
                if e.id in env:
                    out |= env[e.id]
                elif e.id in lets and depth < 8:
                    out |= self.carried(lets[e.id], env, lets, depth + 1)
        return out

    def expr(self, e: A.Expr, env: dict[str, frozenset[str]], lets: dict[str, A.Expr], side: str | None,
             call: Span | None, depth: int = 0) -> None:
        """Walk ``e``: read for ``side`` (None outside every call: the attacker's), where ``call``
        is the call of unknown side it is inside, if any."""
        if isinstance(e, A.Name):
            if e.id in env:
                return
            if e.id in lets and depth < 8:
                self.expr(lets[e.id], env, lets, side, call, depth + 1)
            elif e.id in self.derived and depth < 8:  # worked out from its conditions, for the same side
                for cond in self.derived[e.id]:
                    self.expr(cond, {}, {}, side, call, depth + 1)
            elif e.id in self.statuses:
                self.reads.append((e.id, side or ATTACKER, e.span, self._attack, call))
            return
        if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) and e.obj.id in env:
            self.tests.setdefault("." + e.name, set()).update(env[e.obj.id])
        if isinstance(e, A.With):  # ``… with gone_to_ground``: set there, not read of a unit
            inner = {**env, **{s.name: frozenset() for s in e.settings}}
            self.expr(e.expr, inner, lets, side, call, depth)
            for s in e.settings:
                if s.value is not None:
                    self.expr(s.value, env, lets, side, call, depth)
            return
        if isinstance(e, A.Call):
            self.call(e, env, lets, side, call, depth)
            return
        for c in A.children(e):
            self.expr(c, env, lets, side, call, depth)

    def call(self, c: A.Call, env: dict[str, frozenset[str]], lets: dict[str, A.Expr], side: str | None,
             call: Span | None, depth: int) -> None:
        decl = self.callables.get(c.func)
        args = list(c.args) + [v for _, v in c.kwargs]
        if decl is None:  # a builtin (``min``, ``clamp``) or an attack: its arguments are read where it is
            for a in args:
                self.expr(a, env, lets, side, call, depth)
            return
        carried = [frozenset(self.carried(a, env, lets)) for a in args]
        every = set().union(*carried)
        own: str | None
        if every:
            own = _side(every)
        elif isinstance(decl, A.Test):
            own = side or self._chain.get(id(c))
            if own is None:
                known = self.roled.get(c.func, set())
                own = _side(known) if known else UNKNOWN
        else:
            own = side
        if own == UNKNOWN:
            self.unknown.setdefault(c.func, c.func_span)
            call = call or c.func_span
        if isinstance(decl, A.Test):
            self.tests.setdefault(c.func, set()).add(own or ATTACKER)
            if every:
                self.with_roles.setdefault(c.func, set()).add(_side(every))
        for a in args:
            self.expr(a, env, lets, own, call, depth)
        binding = dict(zip((p.name for p in decl.params), carried))
        binding.update((k, frozenset(self.carried(v, env, lets))) for k, v in c.kwargs)
        inner = {p.name: binding.get(p.name, frozenset()) for p in decl.params}
        key = (c.func, tuple(sorted(inner.items())), own, call)
        if key in self._seen:
            return
        self._seen.add(key)
        inner_lets = {let.name: let.value for let in getattr(decl, "lets", ())}
        body = {**inner, **{n: frozenset(self.carried(v, inner, inner_lets)) for n, v in inner_lets.items()}}
        for x in A.expressions_in(decl):
            if not isinstance(x, A.RangeExpr):  # a parameter's type
                self.expr(x, body, {}, own, call)


def _walk(model: Ruleset, statuses: set[str]) -> _Volleys:
    """The attacks walked twice: a test called with no profile (``save(5)``) outside the chain of
    an attack takes the sides its calls with one give it, known after the first walk."""
    first = _Volleys(model, statuses, {})
    for attack in model.of_type(A.Attack):
        first.attack(attack)
    walk = _Volleys(model, statuses, first.with_roles)
    for attack in model.of_type(A.Attack):
        walk.attack(attack)
    return walk


def _effect_side(effect: A.Effect, walk: _Volleys, defenders: set[str]) -> tuple[str, Span | None]:
    if effect.role is not None:
        return (DEFENDER if effect.role in defenders else ATTACKER), None
    key = effect.test if effect.test is not None else None if effect.stat is None else "." + effect.stat
    if key is None:
        return OWN, None
    sides = walk.tests.get(key)
    if sides is None:
        return OWN, None  # a roll or stat no attack makes: the unit's own (``+1 Sv`` wherever read)
    if UNKNOWN in sides:
        return UNKNOWN, walk.unknown.get(key)
    if sides == {DEFENDER, ATTACKER}:  # ``save(target.Sv)`` in one attack, ``save(shooter.Sv)`` in another
        return BOTH, None
    return (DEFENDER if sides == {DEFENDER} else ATTACKER), None


def held_statuses(model: Ruleset) -> set[str]:
    """The names a unit may hold as statuses in a battle: the declared statuses, and whatever the
    games' effects set (``sets ran``, ``engage … as locked``)."""
    out = {e.id for e in model.of_type(A.Entry) if e.kind == "status"}
    stack: list[Any] = list(model.of_type(A.Game))
    while stack:
        x = stack.pop()
        if isinstance(x, A.ActionEffect) and x.kind in ("sets", "engage") and x.name:
            out.add(x.name)
            out |= set(getattr(x, "also", ()) or ())
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif is_dataclass(x) and not isinstance(x, (A.Expr, Span)):
            stack.extend(getattr(x, f.name) for f in fields(x))
    return out


def unit_values(model: Ruleset) -> set[str]:
    """The situations a battle holds a value of for each unit, its counters and its order: a volley
    is worked out with the shooter's."""
    out = {c.situation for g in model.of_type(A.Game) for c in g.counters}
    out |= {g.order_situation for g in model.of_type(A.Game) if g.order_situation is not None}
    return out & set(model.situations)


def status_readers(model: Ruleset) -> dict[str, list[Reader]]:
    """Each status that is a situation, and each value a battle keeps of a unit (:func:`unit_values`)
    → the declarations that read it in a volley, with the side each reads it for."""
    statuses = (held_statuses(model) & set(model.situations)) | unit_values(model)
    if not statuses:
        return {}
    reads = _Reads(model, statuses)
    walk = _walk(model, statuses)
    defenders = {d for a in model.of_type(A.Attack) if (d := a.defender()) is not None}
    readers: dict[str, list[Reader]] = {s: [] for s in sorted(statuses)}

    def add(read: set[str], name: str, span: Span, side: tuple[str, Span | None]) -> None:
        for status in sorted(read):
            for one in ((DEFENDER, ATTACKER) if side[0] == BOTH else (side[0],)):
                readers[status].append(Reader(name, span, one, side[1]))

    for mod in model.of_type(A.Modifier):
        for eff in mod.effects:
            add(reads.expr(mod.when) | reads.expr(eff.value), mod.id, mod.span, _effect_side(eff, walk, defenders))
    for ab in model.of_type(A.Ability):
        shadow = frozenset(p.name for p in ab.params)
        read = reads.expr(ab.when, shadow)
        for eff in ab.effects:
            add(read | reads.expr(eff.value, shadow), ab.id, ab.span, _effect_side(eff, walk, defenders))
        for eff in ab.defence:
            add(read | reads.expr(eff.value, shadow), ab.id, ab.span, (DEFENDER, None))
        for hook in ab.hooks:  # a test hook is the attacker's (its profiles drive them), a damage hook the target's
            add(read, ab.id, ab.span, (ATTACKER if hook.test is not None else DEFENDER, None))
    for status, side, span, attack, call in walk.reads:
        readers[status].append(Reader(attack, span, side, call))
    return readers


def status_sides(model: Ruleset) -> Sides:
    """Sort the statuses that are situations by the side of a volley the rules read them for."""
    defending, conflicts, unknown, values = set(), {}, {}, {}
    kept = unit_values(model)
    for status, found in status_readers(model).items():
        sides = {r.side for r in found} - {OWN, UNKNOWN}
        if any(r.side == UNKNOWN for r in found):
            unknown[status] = tuple(r for r in found if r.side == UNKNOWN)
        if status in kept:
            if DEFENDER in sides:
                values[status] = tuple(r for r in found if r.side == DEFENDER)
        elif sides == {DEFENDER}:
            defending.add(status)
        elif sides == {DEFENDER, ATTACKER}:
            conflicts[status] = tuple(found)
    return Sides(frozenset(defending), conflicts, unknown, values)
