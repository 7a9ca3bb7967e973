"""The profiles pass: units, weapons and squads — their stats, keywords, abilities and weapons.

A stat value must fit the stat's declared type (a number in the stat's range, a target, a
distance, dice); keywords, abilities and weapons must be defined; an ability that takes a value
gets one in its range; a squad says which unit it is made of and how many models it has.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.check.names import report_unknown
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset
from compiler.model.static import int_range


def _weapons(rs: Ruleset) -> set[str]:
    return {p.id for p in rs.profiles.values() if p.kind == "weapon"}


def check_profiles(ctx: Context) -> None:
    """Pass: every unit, weapon and squad (W101, W106, W201, W202, W203)."""
    rs = ctx.ruleset
    keywords = {d.id for d in rs.of_type(A.Entry) if d.kind == "keyword"}
    abilities = {d.id: d for d in rs.of_type(A.Ability)}
    for prof in rs.of_type(A.Profile):
        check_profile(ctx, prof, keywords, abilities)
    for sq in rs.of_type(A.Squad):
        check_squad(ctx, sq, keywords, abilities)


def check_profile(ctx: Context, prof: A.Profile, keywords: set[str], abilities: Mapping[str, A.Ability]) -> None:
    """One unit or weapon profile."""
    rs = ctx.ruleset
    for sv in prof.stats:
        stat = rs.stats.get(sv.stat)
        if stat is None:
            report_unknown(ctx, sv.stat, sv.stat_span, rs.stats, "stat")
            continue
        check_stat_value(ctx, stat, sv, prof)
    _check_refs(ctx, prof.keywords, keywords, "keyword")
    _check_abilities(ctx, prof.abilities, abilities)
    for w, span in prof.weapons:
        other = rs.profiles.get(w)
        if other is None:
            report_unknown(ctx, w, span, _weapons(rs), "weapon")
        elif other.kind != "weapon":
            ctx.sink.error(codes.WRONG_KIND, f"'{w}' is a unit, not a weapon", span)
    if prof.points is not None and prof.points < 0:
        ctx.sink.error(codes.OUT_OF_RANGE, "points cannot be negative", prof.span)


def check_squad(ctx: Context, sq: A.Squad, keywords: set[str], abilities: Mapping[str, A.Ability]) -> None:
    """One squad: its unit, its size, keywords, abilities and weapons."""
    rs = ctx.ruleset
    if sq.unit is not None:
        unit = rs.profiles.get(sq.unit)
        if unit is None:
            report_unknown(ctx, sq.unit, sq.unit_span or sq.span,
                           {p.id for p in rs.profiles.values() if p.kind == "unit"}, "unit")
        elif unit.kind != "unit":
            ctx.sink.error(codes.WRONG_KIND, f"'{sq.unit}' is a weapon; a squad is made of units",
                           sq.unit_span or sq.span)
    else:
        ctx.sink.error(codes.MISSING_PART, f"squad '{sq.id}' does not say which models it has", sq.span,
                       "add a line such as: models space_marine 5..10")
    if sq.min_models is not None and sq.max_models is not None:
        if sq.min_models > sq.max_models:
            ctx.sink.error(codes.OUT_OF_RANGE, f"squad '{sq.id}' has at least {sq.min_models} but at most "
                           f"{sq.max_models} models", sq.span)
        if sq.min_models < 1:
            ctx.sink.error(codes.OUT_OF_RANGE, f"squad '{sq.id}' needs at least one model", sq.span)
    _check_refs(ctx, sq.keywords, keywords, "keyword")
    _check_abilities(ctx, sq.abilities, abilities)
    for w, span in sq.weapons:
        other = rs.profiles.get(w)
        if other is None or other.kind != "weapon":
            report_unknown(ctx, w, span, _weapons(rs), "weapon")


def _check_refs(ctx: Context, refs: tuple[tuple[str, Span], ...], pool: set[str], what: str) -> None:
    for name, span in refs:
        if name not in pool:
            report_unknown(ctx, name, span, pool, what)


def _check_abilities(ctx: Context, uses: tuple[A.AbilityUse, ...], abilities: Mapping[str, A.Ability]) -> None:
    for use in uses:
        ab = abilities.get(use.ability)
        if ab is None:
            report_unknown(ctx, use.ability, use.span, abilities, "ability")
            continue
        if ab.params and use.arg is None:
            ctx.sink.error(codes.WRONG_ARITY, f"ability '{ab.id}' needs a value: {ab.id}({ab.params[0].name})",
                           use.span)
        elif not ab.params and use.arg is not None:
            ctx.sink.error(codes.WRONG_ARITY, f"ability '{ab.id}' takes no value", use.span)
        elif ab.params and use.arg is not None and isinstance(ab.params[0].type, A.RangeExpr):
            ends = int_range(ab.params[0].type)
            if ends and not ends[0] <= use.arg <= ends[1]:
                ctx.sink.error(codes.OUT_OF_RANGE, f"{ab.title} {use.arg} is outside {ends[0]}..{ends[1]}", use.span)


def check_stat_value(ctx: Context, stat: A.Stat, sv: A.StatValue, prof: A.Profile) -> None:
    """One stat value of a profile against the stat's declared type."""
    t = stat.type
    where = f"{prof.title}'s {stat.id}"
    if sv.kind == "none":
        return
    if isinstance(t, A.RangeExpr):
        if sv.kind != "int":
            ctx.sink.error(codes.WRONG_KIND, f"{where} is a number from the stat's range, not {sv.text}", sv.span,
                           f"stat {stat.id} is declared as a whole number")
            return
        ends = int_range(t)
        if ends is None:
            return
        lo, hi = ends
        if isinstance(sv.value, (int, Fraction)) and not lo <= sv.value <= hi:
            ctx.sink.error(codes.OUT_OF_RANGE, f"{where} is {sv.value}, outside its range {lo}..{hi}", sv.span,
                           f"stat {stat.id} is declared as {lo}..{hi}", related=[(stat.span, "declared here")])
    elif t == "target":
        if sv.kind not in ("high", "low"):
            ctx.sink.error(codes.WRONG_KIND, f"{where} is a target such as 3+, not {sv.text}", sv.span,
                           f"write {sv.text}+ for a roll of {sv.text} or more" if sv.kind == "int" else None)
    elif t == "distance":
        if sv.kind not in ("inches", "int"):
            ctx.sink.error(codes.WRONG_KIND, f'{where} is a distance such as 6", not {sv.text}', sv.span)
    elif t == "dice":
        if sv.kind not in ("dice", "int"):
            ctx.sink.error(codes.WRONG_KIND, f"{where} is a number of dice such as D6 or 2, not {sv.text}", sv.span)
    elif t == "number":
        if sv.kind != "int":
            ctx.sink.error(codes.WRONG_KIND, f"{where} is a number, not {sv.text}", sv.span)
