"""The action effects: what each word after ``action NAME "Title":`` does to the state.

Each effect is a function ``(battle, unit, effect, action) -> bool`` registered with
:func:`~compiler.battle.engine.effect` under the ``kind`` of the
:class:`~compiler.ast.ActionEffect` it carries out; it changes ``battle.state``, reports what
happened with ``battle.emit(...)``, and returns False when the rest of the action cannot happen.
Its choices go through ``battle.choose`` and its dice through ``battle.chance``.
"""
from __future__ import annotations

from compiler import ast as A
from compiler.battle.engine import EFFECTS, Battle, effect
from compiler.battle.estimates import reached
from compiler.battle.moves import move_elsewhere, reach
from compiler.battle.policies import Choice, Option
from compiler.battle.estimates import engagement, picky, target_of
from compiler.battle.rules import Law, bernoulli, law_of
from compiler.battle.state import Unit
from compiler.battle.turns import amount, change_counter, clear_counter, counters_on, refresh_engaged
from compiler.trace import note_held
from compiler.resolve.core import is_dist


@effect("move")
def move(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``move up to X toward the enemy``: the unit closes in on the nearest enemy by as many whole
    inches as its side chooses (0 to X), never past it.  Nothing happens with no enemy left, nor
    for a unit engaged with one (in contact already).
    Toward an objective, or away from the enemy: :func:`~compiler.battle.moves.move_elsewhere`,
    after :func:`leave_melee` for a unit engaged with an enemy."""
    if effect.goal != "enemy":
        if unit.engaged and not leave_melee(battle, unit):
            return False
        return move_elsewhere(battle, unit, effect)
    if unit.engaged:
        return False  # already in contact: a unit locked with an enemy does not walk on toward one
    st = battle.state
    est = battle.estimates
    foe, gap = est.nearest(unit)
    if foe is None or effect.value is None:
        return False
    rolled = reach(battle, effect.value, unit, gap) if is_dist(battle.rules.value(effect.value, unit, gap)) else None
    if rolled is not None:  # a rolled move (2d6): drawn, then its side picks how far, up to it
        steps = list(range(rolled + 1))
        values = est.moves(unit, gap, steps)
        step = steps[battle.choose(Choice("move", unit.side, unit.label, f"How far does {unit.label} move (0-{rolled}\")?",
                                          tuple(Option(f'{d}"', d) for d in steps), lambda: values))]
    elif battle.greedy(unit.side):  # the pick worked out for the action's worth, or kept per state
        found = est.stepped(unit, effect.value)
        if found is None:
            key = (id(effect), unit.started, est.numbered(unit))
            found = battle.memos.steps.get(key)
            if found is None:
                found = battle.memos.steps.keep(key, est.step(unit, effect.value))
        i, step = found
        if i is not None:
            battle.choices.append(i)
    else:
        most = max(0, int(battle.rules.number(effect.value, unit, gap)))
        offer = battle.memos.move_options.get(most)
        if offer is None:
            offer = battle.memos.move_options.keep(most, (list(range(0, most + 1)),
                                                          tuple(Option(f'{d}"', d) for d in range(0, most + 1))))
        steps = offer[0]
        step = steps[battle.choose(Choice("move", unit.side, unit.label, f"How far does {unit.label} move (0-{most}\")?",
                                          offer[1], lambda: est.moves(unit, gap, steps)))]
    if st.table is None:
        d = min(float(step), gap)
        unit.position += d if foe.position > unit.position else -d
    else:  # straight at the enemy, each inch costing what the ground costs, stopping at impassable ground
        unit.position, unit.y = st.table.move((unit.position, unit.y), (foe.position, foe.y), float(step))
    if battle.record:
        battle.emit("move", unit=unit.label, inches=step, distance=round(st.distance(unit, foe), 3))
    battle.referee.watch()  # sticky control: a unit that walks onto an objective takes it
    return True


def leave_melee(battle: Battle, unit: Unit) -> bool:
    """An engaged unit moves off: each enemy it was locked with may answer (``when left: …``, its
    attacks at the unit, which still stands in contact), then the engagement ends.  False when the
    unit did not live through it (or the battle ended)."""
    if not answer_leaving(battle, unit):
        return False
    battle.state.disengage(unit)
    if battle.record:
        battle.emit("left_melee", unit=unit.label)
    return True


def answer_leaving(battle: Battle, unit: Unit) -> bool:
    """``unit`` leaves its melee (a move off, or ``disengages``): each enemy it was locked with may
    answer (``when left``), then its counters that rise or clear on ``left`` do.  False when the
    unit did not live through it (or the battle ended)."""
    st = battle.state
    for uid in list(unit.engaged):
        foe = st.unit(uid)
        if foe.alive:
            react(battle, "left", foe, unit)
        if not unit.alive or st.over:
            return False
    if battle.game.counters:
        counters_on(battle, unit, "left")
    return True


@effect("attack")
def attack(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``attack NAME [within STAT]``: the unit resolves the attack sequence against an enemy unit
    its side chooses among those some weapon can reach; nothing happens with none in reach.
    ``attack NAME without STAT``: with the weapons that have no STAT (close-combat weapons), at an
    enemy the unit is engaged with."""
    return attack_target(battle, unit, effect, None)


def attack_target(battle: Battle, unit: Unit, effect: A.ActionEffect, target: Unit | None) -> bool:
    """The attack of ``effect`` against ``target`` (or, None, an enemy chosen among those in reach).
    A shooting attack at a given target (a reaction's, at the unit that caused it) is not made when a
    terrain area that blocks sight stands between them."""
    attack = battle.rules.attacks.get(effect.name or "")
    assert isinstance(attack, A.Attack)
    est = battle.estimates
    reach = effect.reach
    if target is None:
        st = battle.state  # (no view among the locals: the exact solver keys positions by them)
        # on a table states seldom recur: each enemy in sight, the weapons that reach it and the
        # volley's worth, are read from the view (as are the enemies in sight)
        viewed = st.table is not None and not effect.without and not picky(effect)
        if effect.without:  # close-combat weapons: at an enemy the unit is engaged with
            foes = [f for f in (st.unit(i) for i in unit.engaged) if f.alive]
        else:
            foes = st.enemies(unit) if st.table is None else [f for f, _ in est.view(unit).seen]
        if picky(effect):  # only enemies it is engaged with, or none holding a status
            foes = [f for f in foes if target_of(unit, f, effect)]
        if not foes:
            if battle.record and picky(effect):  # none it is engaged with, or every one holds the status
                battle.emit("no_target", unit=unit.label)
            elif battle.record and st.table is not None:
                battle.emit("out_of_sight", unit=unit.label)
            return False
        worth: list[float] | None = None
        if viewed:
            volleys = est.volleys(unit, attack, reach)
            reached: tuple[int, ...] | None = tuple([k for k, (w, _) in enumerate(volleys) if w])
            assert reached is not None
            worth = [volleys[k][1] for k in reached]
        else:
            key = (attack.id, reach, picky(effect) and tuple(f.uid for f in foes), est.signature(unit))
            reached = battle.memos.reached.get(key)
            if reached is None:  # the enemies some weapon reaches, kept per state
                reached = battle.memos.reached.keep(key, tuple(k for k, f in enumerate(foes)
                                                               if est.weapons(attack, unit, f, reach)))
        foes = [foes[k] for k in reached]
        if not foes:
            if battle.record:
                battle.emit("out_of_reach", unit=unit.label, reach=None)
            return False
        if len(foes) == 1:
            i = 0
        elif battle.greedy(unit.side) and worth is not None:  # the best volley (the first of equals)
            i = worth.index(max(worth))
            battle.choices.append(i)
        elif battle.greedy(unit.side):  # the pick is kept per state
            pick = (attack.id, reach, picky(effect) and tuple(f.uid for f in foes), unit.started, unit.points,
                    est.signature(unit))
            found = battle.memos.targets.get(pick)
            if found is None:
                values = [est.expected(attack, unit, f, reach=reach) for f in foes]
                found = battle.memos.targets.keep(pick, values.index(max(values)))
            i = found
            battle.choices.append(i)
        else:
            i = battle.choose(Choice("target", unit.side, unit.label, f"{attack.title}: which enemy unit?",
                                     tuple(Option(f"{f.label} ({battle.state.distance(unit, f):g}\")", f.uid)
                                           for f in foes),
                                     lambda: [est.expected(attack, unit, f, reach=reach) for f in foes]))
        target = foes[i]
    elif not effect.without and not battle.state.in_sight(unit, target):  # a reaction's fire: never at an unseen enemy
        if battle.record:
            battle.emit("out_of_sight", unit=unit.label)
        return False
    if not effect.without and battle.shot_reaction and not battle.reacting:
        react(battle, "shot", target, unit)  # before the volley: ``when shot`` (no answer to a reaction's fire)
        if not unit.alive or battle.state.over:
            return True  # the shooter fell to the answer: its volley is not made
    battle.strike(attack, unit, target, reach, shot=not effect.without)  # blows of close combat profiles are no shots
    return True


@effect("engage")
def engage(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``engage within X [as STATUS]``: the unit charges an enemy unit within X (its side's
    choice), which may react (``when charged``); then both are locked together (each holding
    STATUS while engaged) and the unit stands where its target stands.  A reach that is rolled
    (``M + d6``) offers the enemies within the most it can roll; the roll (a chance node with its
    exact law) is made once the target is chosen, and one that falls short of it moves the unit
    that far toward it, not engaged, and ends the action.  On a table "within X" is X inches of
    move (:meth:`~compiler.battle.state.State.travel`): round impassable ground, paying for
    difficult ground, as the unit then goes."""
    st = battle.state
    gap = st.nearest_enemy(unit)
    law = reach_law(battle, unit, effect, st.distance(unit, gap) if gap else None)
    reach = law.values[-1]
    ways = {f.uid: st.travel(unit, f) for f in st.enemies(unit)}
    foes = [f for f in st.enemies(unit) if ways[f.uid] <= reach]
    if not foes:
        battle.emit("out_of_reach", unit=unit.label, reach=reach)
        return False
    names = engagement(effect)
    extra = tuple(e.name for e in (action.effects if action else ()) if e.kind == "sets" and e.name) + names
    est = battle.estimates

    def worth(f: Unit) -> float:  # the chance to reach it, times what the engagement is worth
        return reached(law, ways[f.uid]) * (est.charge(unit, f, extra, names) + est.blows(unit, f, action))
    i = 0 if len(foes) == 1 else battle.choose(
        Choice("target", unit.side, unit.label, f"Engage which enemy unit (within {reach:g}\")?",
               tuple(Option(f.label, f.uid) for f in foes), lambda: [worth(f) for f in foes]))
    target = foes[i]
    if len(law.values) > 1:
        rolled = law.values[battle.chance(law, "charge")]
        distance = ways[target.uid]  # (kept to a thousandth of an inch, as every distance)
        if battle.record:
            battle.emit("charge_roll", unit=unit.label, target=target.label, rolled=rolled, distance=distance)
        if rolled < distance:  # short: the unit moves as far as it rolled, toward its target (on its way)
            if st.table is None:
                unit.position += rolled if target.position > unit.position else -rolled
            else:
                unit.position, unit.y = st.table.move((unit.position, unit.y), (target.position, target.y), float(rolled))
            battle.referee.watch()
            return False
    battle.emit("engage", unit=unit.label, target=target.label, status=effect.name)
    if battle.game.counters:
        counters_on(battle, target, "charged")
    react(battle, "charged", target, unit)
    if not unit.alive or st.over:
        return False
    for a, b in ((unit, target), (target, unit)):
        if b.uid not in a.engaged:
            a.engaged.append(b.uid)
        for name in names:
            a.statuses[name] = ""
        a.engaged_as = a.engaged_as + tuple(n for n in names if n not in a.engaged_as)
        if battle.game.counters:
            counters_on(battle, a, "engaged")
    unit.position, unit.y = target.position, target.y
    if battle.game.engaged_statuses:
        refresh_engaged(battle)
    return True


@effect("disengage")
def disengage(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``disengages``: the unit leaves every engagement (its foes too, as far as it is concerned),
    first taking the answer of each enemy it leaves (``when left``) as a unit that moves off does;
    each unit engaged with nobody now no longer holds the statuses its engagements set.  Nothing
    happens (and the action goes on) when the unit is engaged with nobody; the action ends when
    the unit does not live through the answers."""
    if unit.engaged:
        if not answer_leaving(battle, unit):
            return False
        foes = [battle.state.unit(uid).label for uid in unit.engaged]
        battle.state.disengage(unit)
        if battle.game.engaged_statuses:
            refresh_engaged(battle)
        if battle.record:
            battle.emit("disengage", unit=unit.label, foes=foes)
    return True


def reach_law(battle: Battle, unit: Unit, effect: A.ActionEffect, gap: float | None) -> Law:
    """The law of how far ``unit`` reaches with ``effect`` (one value when nothing is rolled); kept."""
    key = (id(effect), unit.profile, unit.models, tuple(unit.statuses), gap)
    found = battle.memos.reaches.get(key)
    if found is None:
        value = battle.rules.value(effect.value, unit, gap) if effect.value is not None else 0
        found = battle.memos.reaches.keep(key, law_of(value))
    return found


@effect("sets")
def sets(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``sets STATUS [until end of PERIOD | until passed TEST]``: the unit holds the status until the
    period ends, until it passes the test (taken each time it is about to act), or until something
    clears it."""
    name = effect.name or ""
    if effect.until is not None:
        unit.statuses[name] = "passed"
        unit.until[name] = effect.until
    else:
        unit.statuses[name] = effect.period or ""
        unit.until.pop(name, None)
    if effect.period:
        battle.state.timed = True
    if battle.record:
        battle.emit("status", unit=unit.label, status=effect.name, until=effect.period)
    return True


@effect("destroyed")
def destroyed(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``destroyed`` (a failed test's outcome): the unit is removed whole; the rest of the action
    does not happen."""
    battle.emit("destroyed", unit=unit.label, models=unit.models)
    battle.state.destroy(unit)
    if battle.game.engaged_statuses:
        refresh_engaged(battle)
    battle.referee.settle()
    return False


@effect("tests")
def test(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``tests TEST``: the unit takes the test (a chance node with its exact chance); on a failure
    the rest of the action does not happen."""
    assert effect.value is not None
    foe = battle.state.nearest_enemy(unit)
    p = battle.rules.odds(effect.value, unit, battle.state.distance(unit, foe) if foe else None)
    passed = battle.chance(bernoulli(p), "test") == 0
    if battle.record:
        rule = effect.value.func if isinstance(effect.value, A.Call) else ""
        battle.emit("test", rule=rule, unit=unit.label, chance=round(float(p), 6), passed=passed)
    return passed


@effect("lowers")
def lowers(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``lowers COUNTER by N``: the unit's counter comes down by N (not below its lowest value); N
    may be a roll (``by d6``), drawn from its exact law."""
    value = effect.value
    assert value is not None  # the sentence has its ``by N``
    n = value.value if isinstance(value, A.Int) else amount(battle, value, unit, {}, "counter")
    change_counter(battle, unit, effect.name or "", -n, action.id if action is not None else "")
    return True


@effect("clears")
def clears(battle: Battle, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
    """``clears STATUS``: the unit no longer holds the status; ``clears COUNTER``: the counter goes
    back to its lowest value."""
    name = effect.name or ""
    if any(c.situation == name for c in battle.game.counters):
        clear_counter(battle, unit, name, action.id if action is not None else "cleared")
    elif unit.statuses.pop(name, None) is not None and battle.record:
        battle.emit("status", unit=unit.label, status=effect.name, until="now")
    return True


def automatic(reaction: A.Reaction) -> bool:
    """Whether a reaction simply happens, with nothing for the unit's side to decide: it only sets
    or clears statuses and does not spend the unit's action (``when charged unless engaged: sets
    charged_this_turn until end of game turn``)."""
    return reaction.spends is None and all(e.kind in ("sets", "clears") for e in reaction.effects)


def react(battle: Battle, event: str, unit: Unit, cause: Unit) -> None:
    """``unit`` may answer ``event`` (caused by ``cause``) with the game's reaction to it (its side
    chooses whether to), unless a status bars it or it has spent its action; its attacks go at
    ``cause``.  A reaction ``spending its action`` (``on a failure``: when one of its tests fails)
    leaves the unit unable to act again this game turn."""
    reaction = battle.reactions.get(event)
    if reaction is None or not unit.alive or (reaction.requires is not None and not unit.has(reaction.requires)) \
            or unit.spent:
        return
    note_held(unit.statuses, reaction.unless + ((reaction.requires,) if reaction.requires else ()))  # coverage
    if any(unit.has(s) for s in reaction.unless):
        return
    if not automatic(reaction):
        options = (Option("Yes", True), Option("No", False))
        attacks = [battle.rules.model.get(e.name or "") for e in reaction.effects if e.kind == "attack"]
        reach = next((e.reach for e in reaction.effects if e.kind == "attack"), None)
        est = battle.estimates
        what = {"left": f"{cause.label} leaves the melee with {unit.label}",
                "shot": f"{cause.label} shoots at {unit.label}"}.get(event, f"{cause.label} engages {unit.label}")
        i = battle.choose(Choice("react", unit.side, unit.label, f"{what}: react ({event})?",
                                 options, lambda: [sum(est.expected(a, unit, cause, reach=reach) for a in attacks
                                                       if isinstance(a, A.Attack)), 0.0]))
        if i != 0:
            return
    battle.emit("reaction", unit=unit.label, reaction=event, cause=cause.label)
    failed = False
    battle.reacting = True  # a reaction's fire is answered by no reaction
    try:
        for e in reaction.effects:
            done = attack_target(battle, unit, e, cause) if e.kind == "attack" else EFFECTS[e.kind](battle, unit, e, None)
            if not done:
                failed = e.kind == "tests"
                break
            if not cause.alive or battle.state.over:
                break
    finally:
        battle.reacting = False
    if reaction.spends == "always" or (reaction.spends == "failure" and failed):
        unit.spent = True  # it does not act again this game turn
        battle.emit("spent", unit=unit.label, reaction=event)
