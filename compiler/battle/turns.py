"""Turn structures beyond the activation schemes: the initiative rolled each game turn, statuses
that last until a test is passed, and casualties removed at the end of the phase.

* ``initiative each game turn: roll d6, ties reroll`` (``keep the order``, ``swap the order``):
  at the start of each game turn both players roll; the higher goes first.  The roll is one chance
  node whose exact law has three outcomes — the first side higher, the second higher, a tie —
  worked out from the roll's distribution (a reroll leaves the first two, in proportion);
* ``sets pinned until passed rally(Ld)``: the status stays until the unit passes the test, which
  it takes each time it is about to act (a pass ends the status before it acts);
* ``casualties removed at end of phase``: a volley's casualties are marked, not removed, and the
  unit fights on at full strength until the phase ends; later volleys at it in the phase hit the
  models still standing;
* ``counter suppression: rises by 1 when shot, falls by 1 at end of turn``: a number on each unit,
  held as the value of the numeric situation of that name (so the rules' modifiers and tests read
  it while the unit acts or is tested), kept within the situation's range; the action effect
  ``lowers suppression by 1`` brings it down, ``clears suppression`` and ``cleared when engaged``
  back to its lowest value.  What it rises or falls by may be a roll or a test (drawn from its
  exact law); on ``shot`` it may read the volley's counts (``hits``: drawn with the models removed,
  :mod:`compiler.battle.joint`).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Protocol

from compiler import ast as A
from compiler.battle.rules import Law, Rules, bernoulli, law_over
from compiler.battle.setup import EngineMemos
from compiler.battle.state import REST, State, Unit
from compiler.battle.victory import Referee
from compiler.model.static import int_range
from compiler.resolve.core import is_dist, unwrap
from compiler.trace import active


class Battle(Protocol):
    """What these turn structures use of :class:`compiler.battle.engine.Battle`."""

    rules: Rules
    game: A.Game
    state: State
    memos: EngineMemos
    referee: Referee
    record: bool

    def chance(self, law: Law, what: str) -> int: ...

    def emit(self, kind: str, **data: Any) -> None: ...

#: The outcomes of an initiative roll, by index in its law.
FIRST_HIGHER, SECOND_HIGHER, TIE = 0, 1, 2


def initiative_law(rules: Rules, initiative: A.Initiative) -> Law:
    """The exact law of one initiative roll between two players (see the module's docstring)."""
    value = rules.evaluator(()).evaluate(initiative.roll)
    faces: dict[Any, Any] = value.probabilities() if is_dist(value) else {unwrap(value): Fraction(1)}
    items = [(unwrap(k), Fraction(p) if not isinstance(p, float) else p) for k, p in faces.items()]
    higher = sum(p * q for a, p in items for b, q in items if a > b)
    lower = sum(p * q for a, p in items for b, q in items if a < b)
    tie = 1 - higher - lower
    if initiative.ties == "reroll":
        total = higher + lower
        if not total:  # a roll that always ties: nobody can win it; the order stays
            return Law((FIRST_HIGHER, SECOND_HIGHER, TIE), (0.0, 0.0, 1.0), 0.0, (0, 0, 1))
        higher, lower, tie = higher / total, lower / total, 0 * total
    ps = (higher, lower, tie)
    cum = (float(higher), float(higher + lower), 1.0)
    return Law((FIRST_HIGHER, SECOND_HIGHER, TIE), cum, 0.0, ps)  # labels, whose mean nothing reads


def roll_initiative(battle: Battle, before: int) -> int:
    """The side that goes first this game turn (``before``: the one that went first the turn before)."""
    initiative = battle.game.initiative
    assert initiative is not None
    law = battle.memos.initiative.get(id(initiative))
    if law is None:
        law = battle.memos.initiative.keep(id(initiative), initiative_law(battle.rules, initiative))
    outcome = law.values[battle.chance(law, "initiative")]
    first = 0 if outcome == FIRST_HIGHER else 1 if outcome == SECOND_HIGHER else \
        before if initiative.ties in ("keep", "reroll") else 1 - before
    if battle.record:
        st = battle.state
        battle.emit("initiative", first=st.sides[first], first_title=st.side_titles[first],
                    tie=outcome == TIE, ties=initiative.ties)
    return first


def rally(battle: Battle, unit: Unit) -> None:
    """The unit takes the test of each status it holds ``until passed``; a pass ends the status."""
    for status, test in list(unit.until.items()):
        if status not in unit.statuses:
            del unit.until[status]
            continue
        p = battle.rules.odds(test, unit, None)
        passed = battle.chance(bernoulli(p), "test") == 0
        if battle.record:
            rule = test.func if isinstance(test, A.Call) else ""
            battle.emit("test", rule=rule, unit=unit.label, chance=round(float(p), 6), passed=passed, ends=status)
        if passed:
            del unit.statuses[status]
            del unit.until[status]
            if battle.record:
                battle.emit("status", unit=unit.label, status=status, until="now")


def refresh_engaged(battle: Battle) -> None:
    """``while engaged: pinned when pinned_by(PC, foe.PC)``: each unit holding the engagement status
    holds the status while some enemy it is engaged with meets the condition, and no longer once
    none does (an engagement made, broken, or ended by a unit wiped out)."""
    game, st = battle.game, battle.state
    for es in game.engaged_statuses:
        for u in st.units:
            holds = u.models > 0 and u.has(es.engagement) and any(
                battle.rules.against(es.condition, u, st.unit(uid)) for uid in u.engaged if st.unit(uid).models > 0)
            if holds and es.status not in u.engaged_as:  # held as part of the engagement: it ends with it
                u.statuses[es.status] = ""
                u.engaged_as += (es.status,)
            elif not holds and es.status in u.engaged_as:
                u.statuses.pop(es.status, None)
                u.engaged_as = tuple(n for n in u.engaged_as if n != es.status)


def remove_marked(battle: Battle, only: Unit | None = None) -> None:
    """The phase ends (or ``only`` has acted, under ``casualties removed after the unit acts``): the
    casualties marked in it (on ``only``) are removed."""
    st = battle.state
    for u in st.units if only is None else [only]:
        if u.doomed:
            n, u.doomed = u.doomed, 0
            removed = st.remove_models(u, n)
            if battle.record:
                battle.emit("removed", unit=u.label, removed=removed, left=u.models, **({"acted": True} if only else {}))
    if battle.game.engaged_statuses:
        refresh_engaged(battle)
    battle.referee.settle()


def counter_range(battle: Battle, name: str) -> tuple[int, int]:
    """The lowest and highest value of the counter ``name``: its situation's range (``check``
    refuses a counter that is no situation with a range of whole numbers)."""
    rng = battle.rules.model.situations[name].range
    ends = int_range(rng) if rng is not None else None
    assert ends is not None
    return ends


def change_counter(battle: Battle, unit: Unit, name: str, by: int, why: str) -> None:
    """Add ``by`` to the unit's counter ``name``, within its range."""
    low, high = counter_range(battle, name)
    before = int(unit.values.get(name, low))
    after = max(low, min(high, before + by))
    if after == before:
        return
    unit.values[name] = after
    if battle.record:
        battle.emit("counter", unit=unit.label, counter=name, value=after, change=after - before, why=why)


def counters_on(battle: Battle, unit: Unit, event: str, bound: dict[str, int] | None = None) -> None:
    """``event`` happened to ``unit``: the counters cleared by it go back to their lowest value,
    then those that rise on it rise, by their amount worked out for the unit (``bound``: the
    volley's counts and the models it was shot at with, for ``shot``)."""
    for c in battle.game.counters:
        if unit.models <= 0:
            return
        if event in c.cleared:
            clear_counter(battle, unit, c.situation, event)
        if c.event == event:
            by = c.rises.value if isinstance(c.rises, A.Int) else rise(battle, c, unit, bound or {})
            change_counter(battle, unit, c.situation, by, event)


def clear_counter(battle: Battle, unit: Unit, name: str, why: str) -> None:
    """The unit's counter ``name`` goes back to its lowest value."""
    low = counter_range(battle, name)[0]
    change_counter(battle, unit, name, low - int(unit.values.get(name, low)), why)


def rise(battle: Battle, counter: A.Counter, unit: Unit, bound: dict[str, int]) -> int:
    """What ``counter`` rises by for ``unit``: drawn from the exact law of its amount."""
    return amount(battle, counter.rises, unit, bound, "counter")


def amount(battle: Battle, expr: A.Expr, unit: Unit, bound: dict[str, int], what: str) -> int:
    """A whole number worked out for ``unit`` (its stats, ``models``, its situations, ``bound``):
    one chance node with its exact law when it is a roll."""
    law = amount_law(battle, expr, unit, bound)
    return law.values[battle.chance(law, what)] if len(law.values) > 1 else law.values[0]


def amount_law(battle: Battle, expr: A.Expr, unit: Unit, bound: dict[str, int]) -> Law:
    """The exact law of the whole number ``expr`` for ``unit`` (see :func:`amount`), kept per state."""
    key = (id(expr), unit.profile, unit.models, unit.started, tuple(unit.statuses),
           tuple(unit.values.items()) if unit.values else (), tuple(sorted(bound.items())))
    law = battle.memos.amounts.get(key)
    if law is None:
        faces = _faces(battle, expr, unit, bound)
        items = sorted((_whole(unwrap(k)), p) for k, p in faces.items() if p)
        law = battle.memos.amounts.keep(key, law_over(tuple(k for k, _ in items), tuple(p for _, p in items)))
    return law


def _faces(battle: Battle, expr: A.Expr, unit: Unit, bound: dict[str, int]) -> dict[Any, Any]:
    """Each value ``expr`` may take for ``unit`` in its situation, with its exact chance (the
    statuses and counters it reads noted for coverage)."""
    rules = battle.rules
    if (unit.statuses or unit.values) and active():
        rules.note_read(expr, unit)
    ev = rules.evaluator(rules.situation(unit, None))
    value = ev.evaluate(expr, {**rules.env_in(ev, unit, None), **bound})
    return value.probabilities() if is_dist(value) else {unwrap(value): Fraction(1)}


def _whole(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, Fraction)) or int(v) != v:
        raise ValueError(f"a counter changes by whole numbers, not by {v!r}")
    return int(v)


def counters_fall(battle: Battle, period: str) -> None:
    """``period`` ends: the counters that fall then fall, on every unit."""
    for c in battle.game.counters:
        if c.period == period and c.falls:
            for u in battle.state.units:
                if u.models > 0 and c.situation in u.values:
                    change_counter(battle, u, c.situation, -c.falls, f"end of {period}")


def outcome_law(battle: Battle, expr: A.Expr, unit: Unit) -> tuple[tuple[Any, ...], Law]:
    """The values ``expr`` may take for ``unit`` (yes/no for a test) and the exact law of their
    indices, kept per state."""
    key = ("outcomes", id(expr), unit.profile, unit.models, unit.started, tuple(unit.statuses),
           tuple(unit.values.items()) if unit.values else (), unit.lost_this_turn)
    found = battle.memos.outcomes.get(key)
    if found is None:
        faces = _faces(battle, expr, unit, {})
        merged: dict[Any, Any] = {}
        for k, p in faces.items():
            label = _label(k)
            merged[label] = merged.get(label, 0) + p
        items = sorted(((k, p) for k, p in merged.items() if p), key=lambda kp: str(kp[0]))
        law = law_over(tuple(range(len(items))), tuple(p for _, p in items), mean=0.0)
        found = battle.memos.outcomes.keep(key, (tuple(k for k, _ in items), law))
    return found


def _label(k: Any) -> Any:
    """A value's label for a case: a test's outcome as "passed"/"failed", a word as itself."""
    success = getattr(k, "success", None)
    if isinstance(success, bool):
        return "passed" if success else "failed"
    v = unwrap(k)
    return ("yes" if v else "no") if isinstance(v, bool) else str(v)


def rest_turns(rules: Rules, game: A.Game) -> dict[str, int]:
    """``weapons rest after firing by cooldown``: each weapon with ``cooldown(N)``, N at least 1,
    and its N."""
    if game.rest_by is None:
        return {}
    out: dict[str, int] = {}
    for p in rules.model.profiles.values():
        for use in p.abilities:
            if p.kind == "weapon" and use.ability == game.rest_by and use.arg:
                out[p.id] = use.arg
    return out


def rest(battle: Battle, unit: Unit, weapon: str, turns: int) -> None:
    """``weapon`` has fired: it rests until ``turns`` more of its player's turns have ended (the
    turn it fired in ends first, so it is kept one more)."""
    unit.values[REST + weapon] = turns + 1
    if battle.record:
        battle.emit("rest", unit=unit.label, weapon=weapon, turns=turns, rule=battle.game.rest_by or "")


def cool_down(state: State) -> None:
    """A player's turn ends: each of the player's resting weapons has one turn fewer to wait."""
    for u in state.units:
        if u.side == state.active and u.values:
            for k in [k for k in u.values if k.startswith(REST)]:
                if u.values[k] <= 1:
                    del u.values[k]
                else:
                    u.values[k] -= 1
