"""The battles pass: a game's actions, combats, end-of-turn tests and reactions, and scenarios.

What the battle engine (:mod:`compiler.battle`) will execute must name things of the right kind:
an ``attack`` effect an attack sequence, a status a declared status or situation, a combat's order
a stat, a scenario's sides unit profiles or squads with their weapons.  Expressions that the engine
works out for one unit (``move up to max_move()``, ``each unit with below_half(models, started)``,
``points per surviving model``) see the unit's stats and :data:`UNIT_NAMES`.
"""
from __future__ import annotations

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context, Scope
from compiler.check.engagements import (check_casualties, check_engaged_statuses, check_given, check_weapon_role,
                                        check_without)
from compiler.check.expressions import check_expr
from compiler.check.fighting import OWN_TURNS, check_close_combat, check_rest, check_warlord
from compiler.check.ground import Ground
from compiler.check.sure import check_sure
from compiler.diagnostics import Span, did_you_mean
from compiler.limits import MAX_COUNT, MAX_SCENARIO_UNITS, MAX_TABLE_INCHES, MAX_TERRAIN_AREAS, MAX_TURNS
from compiler.model.armies import Violation, check_army, listed_units

#: What the engine knows about a unit while it works out an expression for it.
#: ``unit`` is the unit's profile, read as any profile is: ``unit has fearless``, ``unit.Ld``.
UNIT_NAMES: frozenset[str] = frozenset({"models", "started", "points", "distance_to_enemy", "lost_this_turn",
                                       "marked", "unit"})

#: The events a reaction can answer (``when charged: …``).
EVENTS: tuple[str, ...] = ("charged", "shot", "left")
#: The events that may clear a counter (``cleared when engaged``): also a new engagement, for both units.
CLEARING_EVENTS: tuple[str, ...] = EVENTS + ("engaged",)

#: The activation schemes the battle engine runs (None: the default, whole_army).
PLAYABLE: tuple[str | None, ...] = (None, "whole_army", "alternating_units", "activation_rolls",
                                     "alternating_activations", "alternating_detachments")

#: What ``first`` may say besides a side's id.
FIRST_RANDOM = "random"


def check_battles(ctx: Context) -> None:
    """Pass: the executable parts of each game and each scenario (W101, W861, W863, W864, W870)."""
    for game in ctx.ruleset.of_type(A.Game):
        _game(ctx, game)
    games = ctx.ruleset.of_type(A.Game)
    for sc in ctx.ruleset.of_type(A.Scenario):
        _scenario(ctx, sc, games)


def unit_scope(ctx: Context, owner: str) -> Scope:
    """The names an expression worked out for one unit may read: its stats, :data:`UNIT_NAMES` and
    the statuses (yes while the unit holds one)."""
    stats = {s.id for s in ctx.ruleset.of_type(A.Stat)}
    return Scope(ctx, owner, stats | UNIT_NAMES | _statuses(ctx))


def _statuses(ctx: Context) -> set[str]:
    rs = ctx.ruleset
    return set(rs.situations) | {e.id for e in rs.of_type(A.Entry) if e.kind == "status"}


def _unknown(ctx: Context, what: str, name: str, span: Span, pool: set[str], hint: str) -> None:
    close = did_you_mean(name, pool)
    ctx.sink.error(codes.UNKNOWN_NAME, f"unknown {what} '{name}'", span,
                   f"did you mean '{close}'?" if close else hint)


def _status(ctx: Context, name: str, span: Span) -> None:
    if name not in _statuses(ctx):
        _unknown(ctx, "status", name, span, _statuses(ctx), "declare it as a status or a situation")


def _attack(ctx: Context, name: str, span: Span) -> None:
    decl = ctx.ruleset.get(name)
    if decl is None:
        attacks = {a.id for a in ctx.ruleset.of_type(A.Attack)}
        _unknown(ctx, "attack sequence", name, span, attacks, "name an attack sequence of the ruleset")
    elif not isinstance(decl, A.Attack):
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{name}' is not an attack sequence", span,
                       "an attack effect or a combat resolves an `attack` declaration")
    elif len(decl.params) < 2:
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"attack '{name}' needs an attacker and a target", span,
                       "its first role is the unit that acts and its last the enemy unit")
    elif not any(s.removes_from is not None for s in decl.steps):
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"attack '{name}' removes no models, so a battle cannot use it", span,
                       "end it with a step such as: killed = unsaved removes target")


def _effects(ctx: Context, owner: str, effects: tuple[A.ActionEffect, ...], engages: bool = True) -> None:
    for e in effects:
        if e.kind == "attack" and e.name is not None:
            _attack(ctx, e.name, e.span)
            stats = {s.id for s in ctx.ruleset.of_type(A.Stat)}
            if e.stat is not None and e.stat not in stats:
                _unknown(ctx, "stat", e.stat, e.span, stats, "a weapon reaches as far as one of its stats: within Range")
            if e.without and e.stat is not None:
                check_weapon_role(ctx, e.name, e.stat, e.span)
            if e.spares is not None:
                _status(ctx, e.spares, e.span)
            if e.engaged_only and not e.without and not engages:
                ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{owner}' attacks only engaged enemies, but nothing in "
                               "the game engages", e.span, 'add an action such as: action charge "Charge": '
                               'engage within 12" as engaged')
        elif e.kind == "disengage" and not engages:
            ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{owner}' disengages, but nothing in the game engages", e.span,
                           'add an action such as: action charge "Charge": engage within 12" as engaged')
        elif e.kind in ("sets", "engage", "clears") and e.name is not None:
            _status(ctx, e.name, e.span)
            for name in e.also:
                _status(ctx, name, e.span)
        elif e.kind == "lowers" and e.name is not None:
            _counter(ctx, e.name, e.span)
        if e.value is not None:
            check_expr(e.value, unit_scope(ctx, owner))
        if e.until is not None:
            check_expr(e.until, unit_scope(ctx, owner))


def _turns(ctx: Context, owner: str, turns: int | None, span: Span) -> None:
    """A game's or scenario's ``turns``: from 1 to :data:`~compiler.limits.MAX_TURNS` (W864)."""
    if turns is not None and not 1 <= turns <= MAX_TURNS:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"{owner} has turns {turns:,}; a battle is played over 1 to "
                       f"{MAX_TURNS:,} game turns", span, f"write turns 1 to turns {MAX_TURNS:,}")


def _game(ctx: Context, game: A.Game) -> None:
    _turns(ctx, f"game '{game.id}'", game.turns, game.turns_span or game.span)
    stats = {s.id for s in ctx.ruleset.of_type(A.Stat)}
    engages = any(e.kind == "engage" for p in game.phases for a in p.actions for e in a.effects) or \
        any(e.kind == "engage" for r in game.reactions for e in r.effects)
    for phase in game.phases:
        for act in phase.actions:
            _effects(ctx, act.id, act.effects, engages)
            for name in act.unless:
                _status(ctx, name, act.span)
        _orders(ctx, game, phase)
        for c in phase.combats:
            _attack(ctx, c.attack, c.span)
            if c.without is not None:
                check_without(ctx, c.attack, c.without, c.span)
            if c.order not in stats:
                _unknown(ctx, "stat", c.order, c.span, stats, "combatants strike in the order of a stat")
    for end in game.at_end:
        scope = unit_scope(ctx, game.id)
        if end.condition is not None:
            check_expr(end.condition, scope)
        check_expr(end.test, scope)
        if end.failing is not None and end.failing.name is not None:
            _status(ctx, end.failing.name, end.failing.span)
        if end.takes:
            _takes(ctx, game, end)
    for r in game.reactions:
        if r.event not in EVENTS:
            _unknown(ctx, "event", r.event, r.span, set(EVENTS), "use one of: " + ", ".join(EVENTS))
        _effects(ctx, game.id, r.effects, engages)
        for name in ((r.requires,) if r.requires is not None else ()) + r.unless:
            _status(ctx, name, r.span)
    check_close_combat(ctx, game)
    check_rest(ctx, game)
    _scoring(ctx, game, stats)
    for counter in game.counters:
        _counter(ctx, counter.situation, counter.span)
        if counter.event not in EVENTS:
            _unknown(ctx, "event", counter.event, counter.span, set(EVENTS), "use one of: " + ", ".join(EVENTS))
        for event in counter.cleared:
            if event not in CLEARING_EVENTS:
                _unknown(ctx, "event", event, counter.span, set(CLEARING_EVENTS),
                         "use one of: " + ", ".join(CLEARING_EVENTS))
        _rise(ctx, game, counter)
    for k in game.terrain:
        for said in (k.inside, k.through):
            if said is not None:
                _status(ctx, said, k.span)
        if k.cost < 1:
            ctx.sink.error(codes.BATTLE_WRONG_KIND, f"terrain '{k.id}' costs {k.cost} inches per inch", k.span,
                           "an inch of ground takes at least an inch of move")
    if game.activation_dice is not None:
        check_expr(game.activation_dice.test, unit_scope(ctx, game.id))
        for _, name in game.activation_dice.fewer:
            _status(ctx, name, game.activation_dice.span)
    if game.initiative is not None:
        check_expr(game.initiative.roll, Scope(ctx, game.id))
    _activation(ctx, game)
    check_casualties(ctx, game)
    check_engaged_statuses(ctx, game, unit_scope(ctx, game.id))
    check_sure(ctx, game)


def _takes(ctx: Context, game: A.Game, end: A.AtEnd) -> None:
    """``each unit … takes VALUE`` and its ``on "…":`` cases: their effects, and each case a value
    the roll can give (a word the formula it calls gives, "passed"/"failed" for a test) (W861)."""
    _effects(ctx, game.id, end.effects)
    seen: set[str] = set()
    for value, effects in end.cases:
        _effects(ctx, game.id, effects)
        if value in seen:
            ctx.sink.error(codes.BATTLE_WRONG_KIND, f'the case "{value}" is given twice', end.span,
                           "give each value one case")
        seen.add(value)
    if not isinstance(end.test, A.Call):
        return  # an expression other than a call: its values are not known before the battle
    called = end.test.func
    decl = ctx.ruleset.get(called)
    if isinstance(decl, A.Test):
        words = {"passed", "failed"}
    elif isinstance(decl, A.Formula):
        parts = [let.value for let in decl.lets] + ([decl.result] if decl.result is not None else [])
        words = {e.text for p in parts for e in A.sub_expressions(p) if isinstance(e, A.Label)}
        if not words:
            return  # a formula of numbers or tests: its values are not known before the battle
    else:
        return  # another expression: its values are not known before the battle
    for value, effects in end.cases:
        if value not in words:
            close = did_you_mean(value, words)
            ctx.sink.error(codes.BATTLE_WRONG_KIND, f'"{value}" is never a value of {called}',
                           effects[0].span if effects else end.span,
                           f'did you mean "{close}"?' if close else "a case names a value it gives: "
                           + ", ".join(f'"{w}"' for w in sorted(words)))


def _rise(ctx: Context, game: A.Game, counter: A.Counter) -> None:
    """What a counter rises by: worked out for the unit; when it rises on ``shot``, a name that is a
    step of an attack the game fires is that volley's count, which must be one the engine can draw
    with the models removed: a step on the chain of tests that leads to the removal (W863), one
    :meth:`~compiler.ast.Attack.uncounted` finds drawable with the hooks of every profile's
    abilities (W870)."""
    steps: set[str] = set()
    if counter.event == "shot":
        fired = [e.name for p in game.phases for a in p.actions for e in a.effects if e.kind == "attack"]
        fired += [e.name for r in game.reactions for e in r.effects if e.kind == "attack"]
        attacks = [a for a in (ctx.ruleset.get(n or "") for n in fired) if isinstance(a, A.Attack)]
        named = {e.id for e in A.sub_expressions(counter.rises) if isinstance(e, A.Name)}
        for attack in attacks:
            steps |= {s.name for s in attack.steps}
        tests = {k for k, v in ctx.ruleset.callables.items() if isinstance(v, A.Test)}
        if len(named & steps) > 1:
            ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{counter.situation}' rises by the counts of several steps ("
                           + ", ".join(sorted(named & steps)) + "), but a volley is drawn with one", counter.span,
                           "read one step's count, e.g. hits")
        hooked = _hooked(ctx)
        for name in sorted(named & steps):
            for attack in attacks:
                if name not in attack.counted_chain(tests):
                    ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{counter.situation}' rises by the count of '{name}', "
                                   f"which attack '{attack.id}' does not count on its way to the models removed",
                                   counter.span, "name a step of every attack the game fires that passes its dice "
                                   "through a test toward the removal, e.g. hits = shots each hit(shooter.BS)")
                    continue
                refused = attack.uncounted(name, tests, list(hooked))
                if refused is not None:
                    why, hook = refused
                    ctx.sink.error(codes.COUNT_NOT_DRAWN, f"'{counter.situation}' rises by the count of '{name}', "
                                   f"which a volley of attack '{attack.id}' cannot be drawn with: {why}"
                                   + (f" ({hooked[hook]})" if hook is not None else ""), counter.rises.span,
                                   "read the count the removal takes (killed = wounds removes target: wounds), "
                                   "which no hook after it can change, or let the counter rise by a number "
                                   "(rises by 1)")
    stats = {s.id for s in ctx.ruleset.of_type(A.Stat)}
    check_expr(counter.rises, Scope(ctx, game.id, stats | UNIT_NAMES | steps))


def _hooked(ctx: Context) -> dict[A.Hook, str]:
    """The hooks on tests of the abilities of a profile that may attack (any unit or weapon, whether
    or not the ability's ``when`` holds): hook → which ability of which profile."""
    abilities = {a.id: a for a in ctx.ruleset.of_type(A.Ability)}
    out: dict[A.Hook, str] = {}
    for profile in ctx.ruleset.profiles.values():
        for use in profile.abilities:
            for hook in abilities[use.ability].hooks if use.ability in abilities else ():
                if hook.test is not None:
                    out.setdefault(hook, f"the ability '{use.ability}' of '{profile.id}' has it")
    return out


def _counter(ctx: Context, name: str, span: Span) -> None:
    """A counter is a numeric situation (``situation suppression "Suppression" 0..6``)."""
    sit = ctx.ruleset.situations.get(name)
    if sit is None:
        numeric = {s.id for s in ctx.ruleset.situations.values() if s.range is not None}
        _unknown(ctx, "counter", name, span, numeric, f'declare it as a numeric situation: situation {name} "Title" 0..6')
    elif sit.range is None:
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{name}' is not a numeric situation, so it cannot count", span,
                       f'declare it with a range: situation {name} "{sit.title}" 0..6')


def _scoring(ctx: Context, game: A.Game, stats: set[str]) -> None:
    """Scores the engine counts, who controls an objective, and the victories that read them."""
    for s in game.scores:
        if s.surviving or s.destroyed:
            check_expr(s.value, unit_scope(ctx, s.id))  # worked out for the unit left (or destroyed)
        elif s.held_at is not None:
            check_expr(s.value, Scope(ctx, s.id))
            if game.control is None and s.corners is None:
                ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"game '{game.id}' scores objectives held but does not say "
                               "who holds one", s.span, 'add a line such as: control within 3" by models')
            if s.own and game.activation not in OWN_TURNS:
                ctx.sink.error(codes.BATTLE_WRONG_KIND, f"game '{game.id}' activates by '{game.activation}', where a "
                               "turn is not one player's, so no player has an own turn to score at the end of", s.span,
                               "score at the end of the game turn instead: … " + ("of every corner" if s.corners else
                                                                                 "for each objective held")
                               + " at end of game turn")
    control = game.control
    if control is not None and control.by not in ("models", "presence") and control.by not in stats:
        _unknown(ctx, "stat", control.by, control.span, stats | {"models", "presence"},
                 "an objective is held by the side with more models near it (by models), more of a stat (by OC), "
                 "or the only side with a model near it (by presence)")
    counted = [s for s in game.scores if s.surviving or s.destroyed or s.held_at is not None]
    for v in game.victories:
        if v.kind in ("reaching", "highest_score") and not counted:
            ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"victory '{v.id}' is decided on points, but game '{game.id}' "
                           "counts none", v.span, "add a score such as: score kills \"Kills\": 1 for each enemy unit "
                           "destroyed")


def _orders(ctx: Context, game: A.Game, phase: A.Phase) -> None:
    """An order takes actions of its own phase, and its id is a choice of the ``orders set`` situation."""
    actions = {a.id for a in phase.actions}
    sit = ctx.ruleset.situations.get(game.order_situation) if game.order_situation else None
    if game.order_situation is not None and (sit is None or not sit.choices):
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{game.order_situation}' is not a situation with choices",
                       game.span, "orders set a situation such as: situation order \"Order\" one of advance, charge")
        sit = None
    for o in phase.orders:
        for name in o.actions:
            if name not in actions:
                _unknown(ctx, "action", name, o.span, actions, f"an order takes actions of its phase '{phase.id}'")
        for name in o.unless + ((o.requires,) if o.requires else ()):
            _status(ctx, name, o.span)
        if sit is not None and o.id not in sit.choices:
            ctx.sink.error(codes.UNKNOWN_NAME, f"order '{o.id}' is not a choice of the situation '{sit.id}'", o.span,
                           f"an order's id is the value it gives '{sit.id}': one of " + ", ".join(sit.choices))


def _activation(ctx: Context, game: A.Game) -> None:
    """The situations the game works out for each acting unit (``situation … is … when …``)."""
    for d in game.derived:
        sit = ctx.ruleset.situations.get(d.situation)
        if sit is None or not sit.choices:
            ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{d.situation}' is not a situation with choices", d.span,
                           "work out a situation declared with `one of …`")
        elif not d.choice:
            check_given(ctx, d, sit.id, sit.choices)
        else:
            for choice in (d.choice, d.otherwise):
                if choice not in sit.choices:
                    ctx.sink.error(codes.UNKNOWN_NAME, f"'{choice}' is not a choice of the situation '{sit.id}'",
                                   d.span, "use one of: " + ", ".join(sit.choices))
        check_expr(d.condition, unit_scope(ctx, game.id))


def _scenario(ctx: Context, sc: A.Scenario, games: tuple[A.Game, ...]) -> None:
    rs = ctx.ruleset
    _turns(ctx, f"scenario '{sc.id}'", sc.turns, sc.turns_span or sc.span)
    played = rs.get(sc.game) if sc.game is not None else (games[0] if len(games) == 1 else None)
    if isinstance(played, A.Game) and played.activation not in PLAYABLE:
        ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"scenario '{sc.id}' plays game '{played.id}', whose activation "
                       f"'{played.activation}' the battle engine cannot run", sc.span,
                       "use one of: " + ", ".join(a for a in PLAYABLE if a))
    if isinstance(played, A.Game) and played.activation == "activation_rolls" and played.activation_dice is None:
        ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"game '{played.id}' activates by rolls but does not say how", sc.span,
                       "add a line such as: activation dice 1..3 of activation_die(I), bust on 2 failures")
    if sc.game is not None:
        decl = rs.get(sc.game)
        if not isinstance(decl, A.Game):
            _unknown(ctx, "game", sc.game, sc.span, {g.id for g in games}, "name the ruleset's `game` declaration")
    elif len(games) != 1:
        ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"scenario '{sc.id}' does not say which game it plays",
                       sc.span, "add a line such as: game battle")
    if sc.army is not None and not isinstance(rs.get(sc.army), A.Army):
        _unknown(ctx, "army", sc.army, sc.span, {a.id for a in rs.of_type(A.Army)}, "name an `army` declaration")
    if isinstance(played, A.Game) and played.initiative is not None and len(sc.sides) != 2:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"game '{played.id}' rolls for the initiative between two players, "
                       f"but scenario '{sc.id}' has {len(sc.sides)} sides", sc.span, "play it with two sides")
    if len(sc.sides) < 2:
        ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"scenario '{sc.id}' needs two sides, not {len(sc.sides)}",
                       sc.span, 'add `side NAME "Title":` blocks, each with its army list')
    sides = {s.id for s in sc.sides}
    if sc.first is not None and sc.first != FIRST_RANDOM and sc.first not in sides:
        _unknown(ctx, "side", sc.first, sc.span, sides, "say `first random` or name a side")
    _placement(ctx, sc, played if isinstance(played, A.Game) else None)
    squads = {q.id for q in rs.of_type(A.Squad)}
    units = {p.id for p in rs.profiles.values() if p.kind == "unit"}
    weapons = {p.id for p in rs.profiles.values() if p.kind == "weapon"}
    for side in sc.sides:
        if not side.units:
            ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"side '{side.id}' has no units", side.span,
                           "list its units, one a line: 5 space_marine with boltgun")
        for u in side.units:
            if u.name not in units | squads:
                _unknown(ctx, "unit or squad", u.name, u.span, units | squads, "name a unit profile or a squad")
            if u.count < 1:
                ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"a unit of {u.count} models cannot fight", u.span,
                               "give it at least one model")
            for w in u.weapons:
                if w not in weapons:
                    _unknown(ctx, "weapon", w, u.span, weapons, "name a weapon profile")
        check_warlord(ctx, side, played if isinstance(played, A.Game) else None)
        total = sum(max(u.count, 0) for u in side.units)
        if total > MAX_COUNT:
            ctx.sink.error(codes.TOO_MANY_DICE, f"side '{side.id}' fields {total:,} models; a battle counts at most "
                           f"{MAX_COUNT:,} models a side", side.span, "field fewer models on this side")
    army = rs.get(sc.army) if sc.army is not None else None
    known = all(u.name in units | squads and u.count >= 1 for side in sc.sides for u in side.units)
    if isinstance(army, A.Army) and known:
        for side in sc.sides:
            for v in check_army(rs, army, listed_units(rs, side)):
                ctx.sink.error(codes.ARMY_RULE_BROKEN, f"side '{side.id}' breaks the army rules: {v.message}",
                               side.span, cite(ctx, v))


def _placement(ctx: Context, sc: A.Scenario, game: A.Game | None) -> None:
    """The battlefield's size, and what stands on it (W864): within the limits, on the line or on
    the table, out of impassable ground."""
    count = sum(len(side.units) for side in sc.sides)
    if count > MAX_SCENARIO_UNITS:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"{count:,} units is more than warscribe plays in one battle "
                       f"({MAX_SCENARIO_UNITS:,})", sc.span, "field fewer, larger units")
    if sc.table is not None:
        _table(ctx, sc, game, sc.table)
    else:
        _line(ctx, sc)
    seen: set[str] = set()
    for o in sc.objectives:
        if o.id in seen:
            ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"objective '{o.id}' is placed twice", o.span,
                           "give each objective its own id")
        seen.add(o.id)
    if game is not None:
        _objective_moves(ctx, sc, game)
    if sc.objectives and game is not None and game.control is None:
        ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"scenario '{sc.id}' places objectives, but game '{game.id}' does "
                       "not say who holds one", sc.objectives[0].span, 'add to the game: control within 3" by models')


def _objective_moves(ctx: Context, sc: A.Scenario, game: A.Game) -> None:
    """Each move toward an objective finds one in the scenario (W101 for an objective it does not
    place, W864 for a move toward the nearest objective where there is none)."""
    ids = {o.id for o in sc.objectives}
    moves = [e for p in game.phases for a in p.actions for e in a.effects if e.kind == "move"]
    moves += [e for r in game.reactions for e in r.effects if e.kind == "move"]
    for e in moves:
        if e.goal == "objective" and e.name not in ids:
            close = did_you_mean(e.name or "", ids)
            ctx.sink.error(codes.UNKNOWN_NAME, f"unknown objective '{e.name}': scenario '{sc.id}', which plays game "
                           f"'{game.id}', places no such objective", e.span,
                           f"did you mean '{close}'?" if close else "name an objective the scenario places",
                           related=((sc.span, f"scenario '{sc.id}'"),))
        elif e.goal == "nearest objective" and not ids:
            ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"scenario '{sc.id}' places no objective, but game '{game.id}' "
                           "moves toward the nearest one", e.span, 'place one in the scenario: objective ID "Title" at X"',
                           related=((sc.span, f"scenario '{sc.id}'"),))


def _off(ctx: Context, what: str, where: str, span: Span, board: str, hint: str) -> None:
    ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"{what} at {where} is off the battlefield, {board}", span, hint)


def _line(ctx: Context, sc: A.Scenario) -> None:
    """The one-line battlefield: everything between 0" and the scenario's distance."""
    length = sc.distance or 0
    if length > MAX_TABLE_INCHES:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"a battlefield of {length:,} inches is larger than warscribe plays "
                       f"({MAX_TABLE_INCHES:,})", sc.span, "set the sides closer")
        return
    board = f'which runs from 0" to {length}"'
    for side in sc.sides:
        if side.zone is not None:
            ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"side '{side.id}' has a deployment zone, but the battlefield "
                           "is one line", side.span, 'give the scenario a table: table 48" by 48"')
    for t in sc.terrain:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"terrain '{t.id}' needs a table", t.span,
                       'say how large the table is: table 48" by 48"')
    for side in sc.sides:
        for u in side.units:
            if u.at_y is not None:
                ctx.sink.error(codes.SCENARIO_UNPLAYABLE, "a unit is placed across the table, but the battlefield "
                               "is one line", u.span, 'place it along the line (at 12"), or give the scenario a table')
            elif u.at is not None and u.at > length:
                _off(ctx, "a unit placed", f'{u.at}"', u.span, board, "place it between the sides")
    for o in sc.objectives:
        if len(o.at) != 1:
            ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"objective '{o.id}' is placed across the table, but the "
                           "battlefield is one line", o.span, f'place it along the line, between 0" and {length}": at 12"')
        elif o.at[0] > length:
            _off(ctx, f"objective '{o.id}'", f'{o.at[0]}"', o.span, board, "place it between the sides")


def _table(ctx: Context, sc: A.Scenario, game: A.Game | None, size: tuple[int, int]) -> None:
    """A table: its size, its terrain of kinds the game defines, units and objectives on it and out
    of impassable ground."""
    width, depth = size
    if max(width, depth) > MAX_TABLE_INCHES:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f'a table of {width:,}" by {depth:,}" is larger than warscribe '
                       f"plays ({MAX_TABLE_INCHES:,} inches a side)", sc.span, "play on a smaller table")
        return
    if len(sc.terrain) > MAX_TERRAIN_AREAS:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"{len(sc.terrain):,} terrain areas is more than warscribe plays on "
                       f"one table ({MAX_TERRAIN_AREAS:,})", sc.terrain[MAX_TERRAIN_AREAS].span,
                       "merge small pieces of terrain into larger areas")
        return
    if sc.distance is not None:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"scenario '{sc.id}' has a table and a distance", sc.span,
                       "on a table distances are measured between the units: drop the distance, place the units")
    board = f'which is {width}" by {depth}"'
    kinds = {k.id: k for k in game.terrain} if game is not None else {}
    impassable: list[A.TerrainArea] = []
    for t in sc.terrain:
        kind = kinds.get(t.kind)
        if kind is None:
            _unknown(ctx, "terrain kind", t.kind, t.span, set(kinds),
                     f"the game defines its kinds: terrain {t.kind} \"Title\": sets in_cover for units in it")
        elif kind.impassable:
            impassable.append(t)
        x0, y0, x1, y1 = t.corners
        if x1 > width or y1 > depth:
            _off(ctx, f"terrain '{t.id}'", f'{x1}", {y1}"', t.span, board, "keep it on the table")

    def place(what: str, x: int, y: int, span: Span) -> None:
        if x > width or y > depth:
            _off(ctx, what, f'{x}", {y}"', span, board, "place it on the table")
        for t in impassable:
            x0, y0, x1, y1 = t.corners
            if x0 <= x <= x1 and y0 <= y <= y1:
                ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"{what} at {x}\", {y}\" stands in impassable terrain "
                               f"'{t.id}'", span, "place it outside the impassable ground")
    zoned = [side for side in sc.sides if side.zone is not None]
    for i, a in enumerate(zoned):
        assert a.zone is not None
        if a.zone[2] > width or a.zone[3] > depth:
            _off(ctx, f"the deployment zone of side '{a.id}'", f'{a.zone[2]}", {a.zone[3]}"', a.span, board,
                 "keep it on the table")
        for b in zoned[i + 1:]:
            assert b.zone is not None
            if min(a.zone[2], b.zone[2]) > max(a.zone[0], b.zone[0]) and \
                    min(a.zone[3], b.zone[3]) > max(a.zone[1], b.zone[1]):
                ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"the deployment zones of sides '{a.id}' and '{b.id}' "
                               "overlap", b.span, "give each side its own part of the table")
    starts: list[tuple[float, float]] = []
    for s, side in enumerate(sc.sides):
        for u in side.units:
            if u.at is not None and u.at_y is None:
                ctx.sink.error(codes.SCENARIO_UNPLAYABLE, "a unit on a table is placed at two numbers", u.span,
                               'say across and up: at 12", 4"')
            zone = side.zone
            x = u.at if u.at is not None else ((zone[0] + zone[2]) // 2 if zone else width // 2)
            y = u.at_y if u.at_y is not None else ((zone[1] + zone[3]) // 2 if zone else (depth if s else 0))
            place("a unit placed", x, y, u.span)
            starts.append((x, y))
            if zone is not None and u.at is not None and u.at_y is not None and \
                    not (zone[0] <= x <= zone[2] and zone[1] <= y <= zone[3]):
                ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"a unit placed at {x}\", {y}\" is outside the deployment "
                               f"zone of side '{side.id}'", u.span, "place it in its side's zone")
    for o in sc.objectives:
        if len(o.at) != 2:
            ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"objective '{o.id}' on a table is placed at two numbers",
                           o.span, 'say across and up: at 24", 24"')
        else:
            place(f"objective '{o.id}'", o.at[0], o.at[1], o.span)
    _reachable(ctx, sc, game, size, impassable, starts)


def _reachable(ctx: Context, sc: A.Scenario, game: A.Game | None, size: tuple[int, int],
               impassable: list[A.TerrainArea], starts: list[tuple[float, float]]) -> None:
    """Each objective within the control reach of ground some unit can walk to (W864): one walled
    in by impassable terrain could never be held."""
    control = game.control if game is not None else None
    if not impassable or control is None or not starts:
        return
    ground = Ground(size[0], size[1], [tuple(map(float, t.corners)) for t in impassable])  # type: ignore[misc]
    for o in sc.objectives:
        if len(o.at) == 2 and not any(t.corners[0] <= o.at[0] <= t.corners[2] and t.corners[1] <= o.at[1] <= t.corners[3]
                                      for t in impassable) and not ground.near(starts, o.at[0], o.at[1], control.reach):
            ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"objective '{o.id}' cannot be held: impassable terrain keeps every "
                           f"unit more than {control.reach}\" from it", o.span,
                           "open a way through the impassable ground, or move the objective")


def cite(ctx: Context, v: Violation) -> str:
    """The rule a violation breaks, as a hint: its title and id, and where it is written."""
    path = ctx.ruleset.section_path(v.army)
    rule = path[-1] if path else None
    where = f"{v.span.file}:{v.span.line}"
    if rule is not None:
        return f"see the rule '{rule.title}' ({rule.id}), army '{v.army_title}' ({v.army}) at {where}"
    return f"see army '{v.army_title}' ({v.army}) at {where}"
