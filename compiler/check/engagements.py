"""The battles pass, continued: what close combat, casualties and worked-out situations need.

A weapon filter (``combat melee without Range``) must name a stat and an attack that takes a
weapon; ``casualties removed after the unit acts`` needs units that are used one at a time; a
situation ``given by`` a table needs a table whose rows name its choices; a status held ``while
engaged`` needs an engagement that sets that status.  Called from
:mod:`compiler.check.battles`.
"""
from __future__ import annotations

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context, Scope
from compiler.check.expressions import check_expr
from compiler.diagnostics import Span, did_you_mean


def check_without(ctx: Context, attack: str, stat: str, span: Span) -> None:
    """A combat's ``without STAT`` names a stat, and an attack that takes a weapon."""
    stats = {s.id for s in ctx.ruleset.of_type(A.Stat)}
    if stat not in stats:
        close = did_you_mean(stat, stats)
        ctx.sink.error(codes.UNKNOWN_NAME, f"unknown stat '{stat}'", span, f"did you mean '{close}'?" if close else
                       "only the weapons with no value of one of their stats strike: without Range")
    check_weapon_role(ctx, attack, stat, span)


def check_weapon_role(ctx: Context, attack: str, stat: str, span: Span) -> None:
    """``without STAT`` reads each weapon's profile: the attack must take a weapon."""
    decl = ctx.ruleset.get(attack)
    if isinstance(decl, A.Attack) and len(decl.params) < 3:
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"attack '{attack}' takes no weapon, so `without {stat}` has no "
                       "weapon profile to read", span, "give the attack a weapon role: attack melee(attacker, weapon, "
                       "defender)")


def check_casualties(ctx: Context, game: A.Game) -> None:
    """``casualties removed after the unit acts``: under a scheme that uses units one at a time,
    and not beside ``casualties removed at end of phase``."""
    if game.casualties_after is None:
        return
    if game.activation not in ("alternating_detachments", "alternating_activations"):
        ctx.sink.error(codes.BATTLE_WRONG_KIND, "casualties removed after the unit acts needs units that are "
                       f"used one at a time, but game '{game.id}' plays {game.activation or 'whole_army'}",
                       game.casualties_after, "use activation alternating_detachments or alternating_activations")
    if game.casualties_at_end:
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"game '{game.id}' removes casualties both at the end of the "
                       "phase and after the unit acts", game.casualties_after, "keep one of the two lines")


def check_given(ctx: Context, d: A.DerivedSituation, sit: str, choices: tuple[str, ...]) -> None:
    """``situation X is given by TABLE(…)``: a table whose every row names a choice of ``X``."""
    call = d.condition
    table = ctx.ruleset.get(call.func) if isinstance(call, A.Call) else None
    if not isinstance(table, A.Table) or not table.rows:
        ctx.sink.error(codes.BATTLE_WRONG_KIND, f"the situation '{sit}' is given by a table whose rows name its "
                       "choices", d.span, f"write a table whose results are {', '.join(choices)}, and call it")
        return
    for row in table.rows:
        said = row.result.text if isinstance(row.result, A.Label) else None
        if said not in choices:
            ctx.sink.error(codes.UNKNOWN_NAME, f"table '{table.id}' gives {said!r} at line {row.span.line}, which is "
                           f"not a choice of the situation '{sit}'", d.span, "use one of: " + ", ".join(choices))


def check_engaged_statuses(ctx: Context, game: A.Game, scope: Scope) -> None:
    """``while engaged: pinned when COND``: ``engaged`` is set by an engagement of the game,
    ``pinned`` is a declared status no engagement sets outright, and ``COND`` reads the unit's
    stats and ``foe``, the enemy it is engaged with (``scope``: what an expression for a unit reads)."""
    effects = [e for p in game.phases for a in p.actions for e in a.effects if e.kind == "engage"]
    effects += [e for r in game.reactions for e in r.effects if e.kind == "engage"]
    set_by = {e.name for e in effects if e.name} | {n for e in effects for n in e.also}
    statuses = set(ctx.ruleset.situations) | {e.id for e in ctx.ruleset.of_type(A.Entry) if e.kind == "status"}
    for es in game.engaged_statuses:
        if es.engagement not in set_by:
            ctx.sink.error(codes.BATTLE_WRONG_KIND, f"no engagement of game '{game.id}' sets '{es.engagement}'",
                           es.span, "name a status an engagement sets: engage within 12\" as "
                           f"{es.engagement}" if not set_by else "use one of: " + ", ".join(sorted(set_by)))
        if es.status not in statuses:
            close = did_you_mean(es.status, statuses)
            ctx.sink.error(codes.UNKNOWN_NAME, f"unknown status '{es.status}'", es.span,
                           f"did you mean '{close}'?" if close else "declare it as a status or a situation")
        elif es.status in set_by:
            ctx.sink.error(codes.BATTLE_WRONG_KIND, f"'{es.status}' is set by an engagement outright and held while "
                           "engaged under a condition", es.span, f"drop '{es.status}' from the engagement's statuses")
        check_expr(es.condition, scope.child({"foe"}))
