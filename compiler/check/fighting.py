"""Checks of what a battle's fights, resting weapons and warlords need (part of the battles pass,
:mod:`compiler.check.battles`).

* ``attack … without Range`` strikes an enemy the unit is engaged with: the game must engage
  somewhere, and a reaction to a charge (made before the engagement) or to being shot cannot use it;
* ``weapons rest after firing by cooldown`` names an ability with a value, in a game whose turns
  are one player's;
* a scenario's side names one warlord at most, and one when its game scores killing it.
"""
from __future__ import annotations

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.diagnostics import Span, did_you_mean

#: The activation schemes in which a turn is one player's (``… held at end of own turn`` scores then,
#: and resting weapons count their player's turns).
OWN_TURNS: tuple[str | None, ...] = (None, "whole_army", "activation_rolls", "alternating_activations")


def unknown(ctx: Context, what: str, name: str, span: Span, pool: set[str], hint: str) -> None:
    close = did_you_mean(name, pool)
    ctx.sink.error(codes.UNKNOWN_NAME, f"unknown {what} '{name}'", span,
                   f"did you mean '{close}'?" if close else hint)


def check_close_combat(ctx: Context, game: A.Game) -> None:
    """``attack … without Range`` strikes an enemy the unit is engaged with: the game must engage
    somewhere, and a reaction to a charge (made before the engagement) or to being shot cannot use it."""
    acts = [e for p in game.phases for a in p.actions for e in a.effects]
    engages = any(e.kind == "engage" for e in acts)
    for e in acts:
        if e.kind == "attack" and e.without and not engages:
            ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"'attack {e.name} without {e.stat}' strikes only an enemy the "
                           f"unit is engaged with, but game '{game.id}' never engages one", e.span,
                           "add an action that engages, such as: action charge \"Charge\": engage within 6\" as locked")
    for r in game.reactions:
        for e in r.effects if r.event in ("charged", "shot") else ():
            if e.kind == "attack" and e.without:
                what = "a charge comes before the engagement" if r.event == "charged" else "being shot answers a shooter"
                ctx.sink.error(codes.BATTLE_WRONG_KIND, f"a reaction to {what}, so "
                               f"'attack {e.name} without {e.stat}' would find no enemy in contact", e.span,
                               f"fire with a reach instead: attack {e.name} within {e.stat}")


def check_rest(ctx: Context, game: A.Game) -> None:
    """``weapons rest after firing by cooldown``: an ability with a value (its turns), counted in
    its player's own turns."""
    if game.rest_by is None or game.rest_span is None:
        return
    ability = ctx.ruleset.get(game.rest_by)
    if not isinstance(ability, A.Ability):
        unknown(ctx, "ability", game.rest_by, game.rest_span, {a.id for a in ctx.ruleset.of_type(A.Ability)},
                 "name a weapon ability with a value: ability cooldown(N: 0..3) \"Cooldown\"")
    elif not ability.params:
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"ability '{ability.id}' has no value, so it cannot say how long a "
                       "weapon rests", game.rest_span, f"give it one: ability {ability.id}(N: 0..3)")
    if game.activation not in OWN_TURNS:
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"game '{game.id}' activates by '{game.activation}', where a turn is "
                       "not one player's, so a resting weapon has no turns of its player to wait out", game.rest_span,
                       "use an activation in which each player has turns: whole_army, activation_rolls or "
                       "alternating_activations")


def check_warlord(ctx: Context, side: A.Side, game: A.Game | None) -> None:
    """A side names one warlord at most; it must name one when the game scores killing it (W864)."""
    named = [u for u in side.units if u.warlord]
    for extra in named[1:]:
        ctx.sink.error(codes.SCENARIO_UNPLAYABLE, f"side '{side.id}' names a second warlord", extra.span,
                       f"a side has one warlord: keep `as warlord` on one line (line {named[0].span.line} has it)")
    scored = [s for s in game.scores if s.warlord] if game is not None else []
    if game is not None and scored and not named:
        ctx.sink.error(codes.SCENARIO_INCOMPLETE, f"side '{side.id}' names no warlord, but game '{game.id}' scores "
                       f"killing one ({scored[0].id})", side.span,
                       "add `as warlord` to the line of the unit that leads it: 1 captain as warlord")
