"""The builder's part for the game's structure: turns, the activation scheme, phases and their
steps, scoring and victory.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lark import Token

from compiler import codes
from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, Text, unquote, with_meta


class GameBuilder(BuilderBase):
    """Builds the game's structure."""

    @with_meta
    def game(self, meta: Any, c: list[Any]) -> A.Game:
        items = self._flat(c[2:])
        turns = [x for x in items if isinstance(x, Item) and x.tag == "turns"]
        act = [x for x in items if isinstance(x, Item) and x.tag == "activation"]
        if act and act[0].data not in A.ACTIVATIONS:
            self.sink.error(codes.UNKNOWN_NAME, f"unknown activation scheme '{act[0].data}'", act[0].span,
                            "use one of: " + ", ".join(A.ACTIVATIONS))
        return A.Game(self.span(meta), str(c[0]), unquote(str(c[1])),
                      turns[0].data if turns else None,
                      act[0].data if act else None, act[0].span if act else None,
                      tuple(x for x in items if isinstance(x, A.Phase)),
                      tuple(x for x in items if isinstance(x, A.Score)),
                      tuple(x for x in items if isinstance(x, A.Victory)),
                      self._prose(items),
                      tuple(x for x in items if isinstance(x, A.AtEnd)),
                      tuple(x for x in items if isinstance(x, A.Reaction)),
                      next((x for x in items if isinstance(x, A.ActivationDice)), None),
                      next((x.data for x in items if isinstance(x, Item) and x.tag == "orders_set"), None),
                      tuple(x for x in items if isinstance(x, A.DerivedSituation)),
                      next((x for x in items if isinstance(x, A.Control)), None),
                      next((x.data for x in items if isinstance(x, Item) and x.tag == "undecided"), "draw"),
                      next((x for x in items if isinstance(x, A.Initiative)), None),
                      any(isinstance(x, Item) and x.tag == "casualties_at_end" for x in items),
                      tuple(x for x in items if isinstance(x, A.TerrainKind)),
                      tuple(x for x in items if isinstance(x, A.Counter)),
                      next((x.span for x in items if isinstance(x, Item) and x.tag == "casualties_after"), None),
                      rest_by=next((x.data for x in items if isinstance(x, Item) and x.tag == "weapons_rest"), None),
                      rest_span=next((x.span for x in items if isinstance(x, Item) and x.tag == "weapons_rest"), None),
                      engaged_statuses=tuple(x for x in items if isinstance(x, A.EngagedStatus)),
                      turns_span=turns[0].span if turns else None)

    @with_meta
    def engaged_status(self, meta: Any, c: list[Any]) -> A.EngagedStatus:
        return A.EngagedStatus(self.span(meta), str(c[0]), str(c[1]), c[2])

    @with_meta
    def counter(self, meta: Any, c: list[Any]) -> A.Counter:
        parts = {x.tag: x.data for x in c[3:] if isinstance(x, Item)}
        falls, period = parts.get("falls", (0, None))
        return A.Counter(self.span(meta), str(c[0]), c[1], str(c[2]), falls, period, parts.get("cleared", ()))

    @with_meta
    def counter_falls(self, meta: Any, c: list[Any]) -> Item:
        return Item("falls", self.span(meta), (int(str(c[0])), c[1]))

    @with_meta
    def counter_cleared(self, meta: Any, c: list[Any]) -> Item:
        return Item("cleared", self.span(meta), tuple(str(x) for x in c))

    @with_meta
    def terrain_kind(self, meta: Any, c: list[Any]) -> A.TerrainKind:
        said: dict[str, Any] = dict(x for x in c[2:] if isinstance(x, tuple))
        return A.TerrainKind(self.span(meta), str(c[0]), unquote(str(c[1])), said.get("inside"), said.get("through"),
                             bool(said.get("blocks")), int(said.get("cost", 1)), bool(said.get("impassable")))

    def ter_in(self, c: list[Any]) -> tuple[str, Any]:
        return ("inside", str(c[0]))

    def ter_through(self, c: list[Any]) -> tuple[str, Any]:
        return ("through", str(c[0]))

    def ter_blocks(self, c: list[Any]) -> tuple[str, Any]:
        return ("blocks", True)

    def ter_cost(self, c: list[Any]) -> tuple[str, Any]:
        return ("cost", int(str(c[0])))

    def ter_impassable(self, c: list[Any]) -> tuple[str, Any]:
        return ("impassable", True)

    @with_meta
    def initiative(self, meta: Any, c: list[Any]) -> A.Initiative:
        return A.Initiative(self.span(meta), c[0], c[1])

    def tie_rule(self, c: list[Any]) -> str:
        return str(c[0])  # "reroll", "keep" or "swap"

    @with_meta
    def weapons_rest(self, meta: Any, c: list[Any]) -> Item:
        return Item("weapons_rest", self.span(meta), str(c[0]))

    @with_meta
    def casualties_at_end(self, meta: Any, c: list[Any]) -> Item:
        return Item("casualties_at_end", self.span(meta), True)

    @with_meta
    def casualties_after_acting(self, meta: Any, c: list[Any]) -> Item:
        return Item("casualties_after", self.span(meta), True)

    @with_meta
    def control(self, meta: Any, c: list[Any]) -> A.Control:
        return A.Control(self.span(meta), self._whole_inches(c[0]), str(c[1]), sticky=len(c) > 2)

    def control_sticky(self, c: list[Any]) -> bool:
        return True

    @with_meta
    def if_undecided(self, meta: Any, c: list[Any]) -> Item:
        return Item("undecided", self.span(meta), c[0])

    def undecided(self, c: list[Any]) -> str:
        words = [str(t) for t in c]
        return words[0]  # "draw", "first" or "second"

    @with_meta
    def turns(self, meta: Any, c: list[Any]) -> Item:
        return Item("turns", self.tspan(c[0]), int(str(c[0])))  # located at the number

    @with_meta
    def activation(self, meta: Any, c: list[Any]) -> Item:
        return Item("activation", self.span(meta), str(c[0]))

    @with_meta
    def activation_dice(self, meta: Any, c: list[Any]) -> A.ActivationDice:
        rng: A.RangeExpr = c[0]
        lo = rng.low.value if isinstance(rng.low, A.Int) else 1
        hi = rng.high.value if isinstance(rng.high, A.Int) else lo
        if not (isinstance(rng.low, A.Int) and isinstance(rng.high, A.Int)) or not 1 <= lo <= hi:
            self.sink.error(codes.WRONG_KIND, "the number of activation dice is a range of whole numbers such as 1..3",
                            rng.span)
        return A.ActivationDice(self.span(meta), lo, hi, c[1], int(str(c[2])),
                                tuple(x.data for x in c[3:] if isinstance(x, Item) and x.tag == "fewer"))

    @with_meta
    def fewer_actions(self, meta: Any, c: list[Any]) -> Item:
        return Item("fewer", self.span(meta), (int(str(c[0])), str(c[1])))

    @with_meta
    def derived_situation(self, meta: Any, c: list[Any]) -> A.DerivedSituation:
        return A.DerivedSituation(self.span(meta), str(c[0]), str(c[1]), c[2], str(c[3]))

    @with_meta
    def derived_given(self, meta: Any, c: list[Any]) -> A.DerivedSituation:
        return A.DerivedSituation(self.span(meta), str(c[0]), "", c[1], "")

    @with_meta
    def orders_set(self, meta: Any, c: list[Any]) -> Item:
        return Item("orders_set", self.span(meta), str(c[0]))

    @with_meta
    def order(self, meta: Any, c: list[Any]) -> A.Order:
        steps, any_order = c[2]
        unless = next((x[1] for x in c[3:] if isinstance(x, tuple) and x[0] == "unless"), ())
        requires = next((x[1] for x in c[3:] if isinstance(x, tuple) and x[0] == "if"), None)
        return A.Order(self.span(meta), str(c[0]), unquote(str(c[1])), steps, any_order, unless, requires)

    def order_unless(self, c: list[Any]) -> tuple[str, tuple[str, ...]]:
        return "unless", tuple(str(x) for x in c)

    def order_if(self, c: list[Any]) -> tuple[str, str]:
        return "if", str(c[0])

    def steps_then(self, c: list[Any]) -> tuple[tuple[str, ...], bool]:
        return tuple(str(x) for x in c), False

    def steps_and(self, c: list[Any]) -> tuple[tuple[str, ...], bool]:
        return tuple(str(x) for x in c), True

    @with_meta
    def phase(self, meta: Any, c: list[Any]) -> A.Phase:
        rest = self._flat(c[2:])
        text = next((x.text for x in rest if isinstance(x, Text)), None)
        steps = tuple(x for x in rest if isinstance(x, A.PhaseStep))
        return A.Phase(self.span(meta), str(c[0]), unquote(str(c[1])), text, steps, self._prose(rest),
                       tuple(x for x in rest if isinstance(x, A.Action)),
                       tuple(x for x in rest if isinstance(x, A.Combat)),
                       tuple(x for x in rest if isinstance(x, A.Order)))

    @with_meta
    def phase_step(self, meta: Any, c: list[Any]) -> A.PhaseStep:
        text = next((x.text for x in c[2:] if isinstance(x, Text)), None)
        return A.PhaseStep(self.span(meta), str(c[0]), unquote(str(c[1])), text)

    @with_meta
    def score(self, meta: Any, c: list[Any]) -> A.Score:
        per = str(c[3]) if len(c) > 3 and isinstance(c[3], Token) else None
        _, prose, _, _ = self._entry_parts([x for x in c[3:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], per, prose)

    @with_meta
    def score_surviving(self, meta: Any, c: list[Any]) -> A.Score:
        _, prose, _, _ = self._entry_parts([x for x in c[3:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], None, prose, True)

    @with_meta
    def score_held(self, meta: Any, c: list[Any]) -> A.Score:
        _, prose, _, _ = self._entry_parts([x for x in c[4:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], None, prose, held_at=str(c[3]))

    @with_meta
    def score_held_own(self, meta: Any, c: list[Any]) -> A.Score:
        _, prose, _, _ = self._entry_parts([x for x in c[3:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], None, prose, held_at="turn", own=True)

    @with_meta
    def score_corners(self, meta: Any, c: list[Any]) -> A.Score:
        _, prose, _, _ = self._entry_parts([x for x in c[5:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], None, prose, held_at=str(c[4]),
                       corners=self._reach(c[3]))

    @with_meta
    def score_corners_own(self, meta: Any, c: list[Any]) -> A.Score:
        _, prose, _, _ = self._entry_parts([x for x in c[4:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], None, prose, held_at="turn", own=True,
                       corners=self._reach(c[3]))

    def _whole_inches(self, tok: Any) -> int:
        """Whole inches of a scenario's measure (``36"``): a table, a position, a distance, a reach.
        A fraction of an inch (``10.5"``) is refused where written rather than cut."""
        value = float(str(tok).rstrip('"'))
        if value != int(value):
            self.sink.error(codes.BATTLE_WRONG_KIND, f"a battle's measures are whole inches: {tok} is not one",
                            self.tspan(tok), f'write whole inches, such as {round(value)}"')
        return int(value)

    def _reach(self, tok: Token) -> float:
        """The reach of a corner score: more than 0 inches (a unit stands at a point, never on a corner)."""
        reach = self._whole_inches(tok)
        if reach <= 0:
            self.sink.error(codes.BATTLE_WRONG_KIND, "a unit counts for a corner only within a reach of more than 0\"",
                            self.tspan(tok), 'say how near, as the rules do: for units within 12" of every corner')
        return float(reach)

    @with_meta
    def score_warlord(self, meta: Any, c: list[Any]) -> A.Score:
        _, prose, _, _ = self._entry_parts([x for x in c[3:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], None, prose, destroyed=True, warlord=True)

    @with_meta
    def score_destroyed(self, meta: Any, c: list[Any]) -> A.Score:
        _, prose, _, _ = self._entry_parts([x for x in c[3:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], None, prose, destroyed=True)

    @with_meta
    def victory(self, meta: Any, c: list[Any]) -> A.Victory:
        short, prose, _, _ = self._entry_parts(c[2:])
        kind = next((x for x in c[2:] if isinstance(x, Token) and x.type == "NAME"), None)
        target = next((x for x in c[2:] if isinstance(x, Token) and x.type == "INT"), None)
        if kind is not None and str(kind) not in A.VICTORY_KINDS:
            self.sink.error(codes.UNKNOWN_NAME, f"unknown way to win '{kind}'", self.tspan(kind),
                            "use one of: " + ", ".join(A.VICTORY_KINDS))
        elif kind is not None and (str(kind) == "reaching") != (target is not None):
            where = self.tspan(target) if target is not None else self.tspan(kind)
            self.sink.error(codes.BATTLE_WRONG_KIND, "only `by reaching N` takes a number" if target is not None
                            else "`by reaching` needs the score that wins", where,
                            "say: victory first_to_ten \"First to ten\" by reaching 10")
        return A.Victory(self.span(meta), str(c[0]), unquote(str(c[1])), short, prose,
                         str(kind) if kind is not None else None, int(str(target)) if target is not None else None)

    # -- what the game does -----------------------------------------------------

    @with_meta
    def action(self, meta: Any, c: list[Any]) -> A.Action:
        effects = tuple(x for x in c[2:] if isinstance(x, A.ActionEffect))
        unless = tuple(str(x) for x in c[2:] if isinstance(x, Token) and x.type == "NAME")
        return A.Action(self.span(meta), str(c[0]), unquote(str(c[1])), effects, unless)

    @with_meta
    def must_action(self, meta: Any, c: list[Any]) -> A.Action:
        effects = tuple(x for x in c[2:] if isinstance(x, A.ActionEffect))
        unless = tuple(str(x) for x in c[2:] if isinstance(x, Token) and x.type == "NAME")
        return A.Action(self.span(meta), str(c[0]), unquote(str(c[1])), effects, unless, True)

    @with_meta
    def eff_move(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "move", None, c[0])

    @with_meta
    def eff_move_away(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "move", None, c[0], goal="away")

    @with_meta
    def eff_move_nearest(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "move", None, c[0], goal="nearest objective")

    @with_meta
    def eff_move_corner(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "move", None, c[0], goal="nearest corner")

    @with_meta
    def eff_move_objective(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "move", str(c[1]), c[0], goal="objective")

    @with_meta
    def eff_attack(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        at = next((x for x in c[1:] if isinstance(x, Item)), None)
        names = [x for x in c[1:] if not isinstance(x, Item)]
        return A.ActionEffect(self.span(meta), "attack", str(c[0]), stat=str(names[0]) if names else None,
                              engaged_only=at is not None and at.tag == "engaged",
                              spares=at.data if at is not None and at.tag == "not" else None)

    @with_meta
    def eff_attack_without(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        at = next((x for x in c[2:] if isinstance(x, Item)), None)
        return A.ActionEffect(self.span(meta), "attack", str(c[0]), stat=str(c[1]), without=True,
                              engaged_only=at is not None and at.tag == "engaged",
                              spares=at.data if at is not None and at.tag == "not" else None)

    @with_meta
    def at_engaged(self, meta: Any, c: list[Any]) -> Item:
        return Item("engaged", self.span(meta), None)

    @with_meta
    def at_not(self, meta: Any, c: list[Any]) -> Item:
        return Item("not", self.span(meta), str(c[0]))

    @with_meta
    def eff_disengages(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "disengage")

    @with_meta
    def eff_test(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "tests", None, c[0])

    @with_meta
    def eff_lowers(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "lowers", str(c[0]), c[1])

    @with_meta
    def eff_clears(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "clears", str(c[0]))

    @with_meta
    def eff_engage(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "engage", str(c[1]), c[0], also=tuple(str(x) for x in c[2:]))

    @with_meta
    def eff_sets(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        until = c[1] if len(c) > 1 and isinstance(c[1], Until) else None
        period = c[1] if len(c) > 1 and isinstance(c[1], str) else None
        return A.ActionEffect(self.span(meta), "sets", str(c[0]), None, period,
                              until=until.test if until is not None else None)

    out_sets = eff_sets

    @with_meta
    def out_destroyed(self, meta: Any, c: list[Any]) -> A.ActionEffect:
        return A.ActionEffect(self.span(meta), "destroyed")

    def duration(self, c: list[Any]) -> str:
        return str(c[0])

    def until_own_turn(self, c: list[Any]) -> str:
        return "own turn"

    def until_passed(self, c: list[Any]) -> Until:
        return Until(c[0])

    def period(self, c: list[Any]) -> str:
        return " ".join(str(t) for t in c)

    @with_meta
    def combat(self, meta: Any, c: list[Any]) -> A.Combat:
        names = [str(x) for x in c]
        return A.Combat(self.span(meta), names[0], names[-1], names[1] if len(names) > 2 else None)

    @with_meta
    def at_end(self, meta: Any, c: list[Any]) -> A.AtEnd:
        exprs = [x for x in c[1:] if not isinstance(x, (A.ActionEffect, Token, str))]
        failing = next((x for x in c if isinstance(x, A.ActionEffect)), None)
        cond, test = (exprs[0], exprs[1]) if len(exprs) > 1 else (None, exprs[0])
        return A.AtEnd(self.span(meta), str(c[0]), cond, test, failing)

    @with_meta
    def at_end_takes(self, meta: Any, c: list[Any]) -> A.AtEnd:
        exprs = [x for x in c[1:] if not isinstance(x, (A.ActionEffect, Token, str, Item))]
        cond, value = (exprs[0], exprs[1]) if len(exprs) > 1 else (None, exprs[0])
        cases = tuple(x.data for x in c if isinstance(x, Item) and x.tag == "case")
        return A.AtEnd(self.span(meta), str(c[0]), cond, value, None, True,
                       tuple(x for x in c if isinstance(x, A.ActionEffect)), cases)

    @with_meta
    def at_end_case(self, meta: Any, c: list[Any]) -> Item:
        return Item("case", self.span(meta), (unquote(str(c[0])), tuple(x for x in c[1:] if isinstance(x, A.ActionEffect))))

    @with_meta
    def reaction(self, meta: Any, c: list[Any]) -> A.Reaction:
        parts = {x.tag: x.data for x in c[1:] if isinstance(x, Item)}
        return A.Reaction(self.span(meta), str(c[0]), tuple(x for x in c[1:] if isinstance(x, A.ActionEffect)),
                          parts.get("if"), parts.get("unless", ()), parts.get("spends"))

    @with_meta
    def reaction_if(self, meta: Any, c: list[Any]) -> Item:
        return Item("if", self.span(meta), str(c[0]))

    @with_meta
    def reaction_unless(self, meta: Any, c: list[Any]) -> Item:
        return Item("unless", self.span(meta), tuple(str(x) for x in c))

    @with_meta
    def reaction_spends(self, meta: Any, c: list[Any]) -> Item:
        return Item("spends", self.span(meta), "failure" if any(str(x) == "failure" for x in c) else "always")

    # -- scenarios ----------------------------------------------------------------

    @with_meta
    def scenario(self, meta: Any, c: list[Any]) -> A.Scenario:
        items = self._flat(c[2:])
        one = {x.tag: x.data for x in items if isinstance(x, Item)}
        return A.Scenario(self.span(meta), str(c[0]), unquote(str(c[1])), one.get("game"), one.get("army"),
                          one.get("turns"), one.get("distance"), one.get("first"),
                          tuple(x for x in items if isinstance(x, A.Side)), self._prose(items),
                          tuple(x for x in items if isinstance(x, A.Objective)),
                          next((x.data for x in items if isinstance(x, Item) and x.tag == "table"), None),
                          tuple(x for x in items if isinstance(x, A.TerrainArea)),
                          next((x.span for x in items if isinstance(x, Item) and x.tag == "turns"), None))

    @with_meta
    def sc_table(self, meta: Any, c: list[Any]) -> Item:
        return Item("table", self.span(meta), (self._whole_inches(c[0]), self._whole_inches(c[1])))

    @with_meta
    def sc_terrain(self, meta: Any, c: list[Any]) -> A.TerrainArea:
        x0, y0, x1, y1 = (self._whole_inches(t) for t in c[3:7])
        return A.TerrainArea(self.span(meta), str(c[0]), unquote(str(c[1])), str(c[2]),
                             (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))

    @with_meta
    def sc_objective(self, meta: Any, c: list[Any]) -> A.Objective:
        at = tuple(self._whole_inches(x) for x in c[2:] if isinstance(x, Token) and x.type == "INCHES")
        return A.Objective(self.span(meta), str(c[0]), unquote(str(c[1])), at)

    @with_meta
    def sc_game(self, meta: Any, c: list[Any]) -> Item:
        return Item("game", self.span(meta), str(c[0]))

    @with_meta
    def sc_army(self, meta: Any, c: list[Any]) -> Item:
        return Item("army", self.span(meta), str(c[0]))

    @with_meta
    def sc_turns(self, meta: Any, c: list[Any]) -> Item:
        return Item("turns", self.tspan(c[0]), int(str(c[0])))  # located at the number

    @with_meta
    def sc_distance(self, meta: Any, c: list[Any]) -> Item:
        return Item("distance", self.span(meta), self._whole_inches(c[0]))

    @with_meta
    def sc_first(self, meta: Any, c: list[Any]) -> Item:
        return Item("first", self.span(meta), str(c[0]))

    @with_meta
    def side(self, meta: Any, c: list[Any]) -> A.Side:
        rest = self._flat(c[2:])
        zone = next((x.data for x in rest if isinstance(x, Item) and x.tag == "zone"), None)
        return A.Side(self.span(meta), str(c[0]), unquote(str(c[1])),
                      tuple(x for x in rest if isinstance(x, A.SideUnit)), self._prose(rest), zone)

    @with_meta
    def side_deploy(self, meta: Any, c: list[Any]) -> Item:
        x0, y0, x1, y1 = (self._whole_inches(t) for t in c[:4])
        return Item("zone", self.span(meta), (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))

    def side_warlord(self, c: list[Any]) -> bool:
        return True

    @with_meta
    def side_unit(self, meta: Any, c: list[Any]) -> A.SideUnit:
        names = [str(x) for x in c[1:] if isinstance(x, Token) and x.type == "NAME"]
        at = [self._whole_inches(x) for x in c if isinstance(x, Token) and x.type == "INCHES"]
        warlord = any(x is True for x in c)
        return A.SideUnit(self.span(meta), int(str(c[0])), names[0], tuple(names[1:]), at[0] if at else None,
                          at[1] if len(at) > 1 else None, warlord)


@dataclass(frozen=True, slots=True)
class Until:
    """``until passed TEST``, on its way to the status effect that it ends."""

    test: A.Expr


