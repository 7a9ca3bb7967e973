"""The builder's part for profiles and armies: unit and weapon profiles with their stat values,
keywords, abilities and weapons; squads with their sizes and points; army construction.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from lark import Token

from compiler import codes
from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, dice_parts, die_key, unquote, with_meta


class ProfilesBuilder(BuilderBase):
    """Builds units, weapons, squads and armies."""

    # -- units and weapons ----------------------------------------------------------

    def _profile(self, meta: Any, kind: str, c: list[Any]) -> A.Profile:
        name, title = str(c[0]), unquote(str(c[1]))
        items = self._flat(c[2:])
        stats = tuple(x for x in items if isinstance(x, A.StatValue))
        seen: dict[str, A.StatValue] = {}
        for s in stats:
            if s.stat in seen:
                self.sink.error(codes.DUPLICATE, f"{kind} '{name}' gives '{s.stat}' twice", s.stat_span,
                                "keep one value", related=[(seen[s.stat].stat_span, "first given here")])
            seen[s.stat] = s
        points = self._items(items, "points")
        klass = self._items(items, "class")
        return A.Profile(self.span(meta), name, kind, title, stats,
                         tuple(k for g in self._items(items, "keywords") for k in g),
                         tuple(a for g in self._items(items, "abilities") for a in g),
                         tuple(w for g in self._items(items, "weapons") for w in g),
                         points[0] if points else None, klass[0] if klass else None,
                         self._prose(items))

    @with_meta
    def unit(self, meta: Any, c: list[Any]) -> A.Profile:
        return self._profile(meta, "unit", c)

    @with_meta
    def weapon(self, meta: Any, c: list[Any]) -> A.Profile:
        return self._profile(meta, "weapon", c)

    def stat_line(self, c: list[Any]) -> list[A.StatValue]:
        return list(c)

    @with_meta
    def stat_pair(self, meta: Any, c: list[Any]) -> A.StatValue:
        tok: Token = c[0]
        kind, value, dice, bonus = c[1]
        return A.StatValue(self.span(meta), str(tok), self.tspan(tok), kind, value, dice, bonus)

    def v_int(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("int", c[0], None, 0)

    def v_high(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("high", int(str(c[0])), None, 0)

    def v_low(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("low", int(str(c[0])), None, 0)

    def v_inches(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("inches", Fraction(str(c[0])[:-1]), None, 0)

    def v_dice(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        tok: Token = c[0]
        count, sides = dice_parts(str(tok))
        dice = A.Dice(self.tspan(tok), count, sides, die_key(str(tok), keep_count=True))
        bonus = 0
        if len(c) > 2 and c[1] is not None:
            bonus = c[1] * int(str(c[2]))
        return ("dice", None, dice, bonus)

    def v_none(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("none", None, None, 0)

    def v_text(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("text", unquote(str(c[0])), None, 0)

    @with_meta
    def keywords(self, meta: Any, c: list[Any]) -> Item:
        return Item("keywords", self.span(meta), self._names(c))

    @with_meta
    def weapons(self, meta: Any, c: list[Any]) -> Item:
        return Item("weapons", self.span(meta), self._names(c))

    @with_meta
    def abilities(self, meta: Any, c: list[Any]) -> Item:
        return Item("abilities", self.span(meta), tuple(c))

    @with_meta
    def ability_use(self, meta: Any, c: list[Any]) -> A.AbilityUse:
        arg = c[1] if len(c) > 1 else None
        return A.AbilityUse(self.span(meta), str(c[0]), arg)

    @with_meta
    def points(self, meta: Any, c: list[Any]) -> Item:
        return Item("points", self.span(meta), int(str(c[0])))

    @with_meta
    def profile_class(self, meta: Any, c: list[Any]) -> Item:
        return Item("class", self.span(meta), str(c[0]))

    # -- squads ---------------------------------------------------------------------

    @with_meta
    def squad(self, meta: Any, c: list[Any]) -> A.Squad:
        name, title = str(c[0]), unquote(str(c[1]))
        items = self._flat(c[2:])
        models = self._items(items, "models")
        unit = lo = hi = None
        unit_span = None
        if models:
            unit, unit_span, lo, hi = models[0]
        pts = self._items(items, "squad_points")
        points, per = (pts[0] if pts else (None, None))
        return A.Squad(self.span(meta), name, title, unit, unit_span, lo, hi, points, per,
                       tuple(k for g in self._items(items, "keywords") for k in g),
                       tuple(a for g in self._items(items, "abilities") for a in g),
                       tuple(w for g in self._items(items, "weapons") for w in g),
                       bool(self._items(items, "special")), self._prose(items))

    @with_meta
    def squad_models(self, meta: Any, c: list[Any]) -> Item:
        rng: A.RangeExpr = c[1]
        lo = rng.low.value if isinstance(rng.low, A.Int) else None
        hi = rng.high.value if isinstance(rng.high, A.Int) else None
        if lo is None or hi is None:
            self.sink.error(codes.WRONG_KIND, "a squad's size is a range of whole numbers such as 5..10", rng.span)
        return Item("models", self.span(meta), (str(c[0]), self.tspan(c[0]), lo, hi))

    @with_meta
    def squad_models_fixed(self, meta: Any, c: list[Any]) -> Item:
        n = int(str(c[1]))
        return Item("models", self.span(meta), (str(c[0]), self.tspan(c[0]), n, n))

    @with_meta
    def squad_points(self, meta: Any, c: list[Any]) -> Item:
        per = int(str(c[1])) if len(c) > 1 and c[1] is not None else None
        return Item("squad_points", self.span(meta), (int(str(c[0])), per))

    @with_meta
    def special(self, meta: Any, c: list[Any]) -> Item:
        return Item("special", self.span(meta), True)

    # -- army construction ----------------------------------------------------------

    @with_meta
    def army(self, meta: Any, c: list[Any]) -> A.Army:
        items = self._flat(c[2:])
        points = tuple(p for x in items if isinstance(x, Item) and x.tag == "army_points" for p in x.data)
        reqs = tuple(x for x in items if isinstance(x, A.Requirement) and not x.each)
        each = tuple(x for x in items if isinstance(x, A.Requirement) and x.each)
        return A.Army(self.span(meta), str(c[0]), unquote(str(c[1])), points, reqs, self._prose(items), each)

    @with_meta
    def army_points(self, meta: Any, c: list[Any]) -> Item:
        return Item("army_points", self.span(meta), tuple(int(str(t)) for t in c))

    @with_meta
    def require(self, meta: Any, c: list[Any]) -> A.Requirement:
        msg = unquote(str(c[1])) if len(c) > 1 and c[1] is not None else None
        return A.Requirement(self.span(meta), c[0], msg)

    @with_meta
    def require_each(self, meta: Any, c: list[Any]) -> A.Requirement:
        msg = unquote(str(c[1])) if len(c) > 1 and c[1] is not None else None
        return A.Requirement(self.span(meta), c[0], msg, each=True)
