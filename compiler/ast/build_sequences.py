"""The builder's part for what changes a roll and what an attack does: modifiers and their
effects, abilities with their hooks on steps, attack sequences and their steps.
"""
from __future__ import annotations

from typing import Any

from lark import Token

from compiler import codes
from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, Text, dice_parts, die_key, unquote, with_meta


class SequencesBuilder(BuilderBase):
    """Builds modifiers, abilities with their hooks, and attack sequences."""

    # -- modifiers ------------------------------------------------------------------

    def sign(self, c: list[Any]) -> int:
        return -1 if str(c[0]) == "-" else 1

    def _signed(self, sign: int, value: A.Expr) -> A.Expr:
        if sign > 0:
            return value
        if isinstance(value, A.Int):
            return A.Int(value.span, -value.value)
        return A.Unary(value.span, "-", value)

    @with_meta
    def effect_roll(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "roll", value=self._signed(c[0], c[1]), test=str(c[2]))

    @with_meta
    def effect_stat(self, meta: Any, c: list[Any]) -> A.Effect:
        role = str(c[3]) if len(c) > 3 and c[3] is not None else None
        return A.Effect(self.span(meta), "stat", value=self._signed(c[0], c[1]), stat=str(c[2]), role=role)

    @with_meta
    def effect_needs(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "needs", value=c[1], test=str(c[0]))

    @with_meta
    def effect_reroll(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "reroll", test=str(c[1]), reroll=c[0])

    @with_meta
    def effect_cap_better(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "never_better", value=c[1], test=str(c[0]))

    @with_meta
    def effect_cap_worse(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "never_worse", value=c[1], test=str(c[0]))

    @with_meta
    def effect_ignore(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "ignore_modifiers", test=str(c[0]))

    @with_meta
    def effect_better(self, meta: Any, c: list[Any]) -> A.Effect:
        role = str(c[1]) if len(c) > 2 and c[1] is not None else None
        return A.Effect(self.span(meta), "better", value=c[-1], stat=str(c[0]), role=role)

    @with_meta
    def effect_worse(self, meta: Any, c: list[Any]) -> A.Effect:
        role = str(c[1]) if len(c) > 2 and c[1] is not None else None
        return A.Effect(self.span(meta), "worse", value=c[-1], stat=str(c[0]), role=role)

    @with_meta
    def when(self, meta: Any, c: list[Any]) -> Item:
        return Item("when", self.span(meta), c[0])

    @with_meta
    def mod_group(self, meta: Any, c: list[Any]) -> Item:
        return Item("group", self.span(meta), str(c[0]))

    def modifier_block(self, c: list[Any]) -> list[Any]:
        return list(c)

    def _modifier(self, meta: Any, name: str, title: str, items: list[Any]) -> A.Modifier:
        effects = tuple(x for x in items if isinstance(x, A.Effect))
        whens = [x for x in items if isinstance(x, Item) and x.tag == "when"]
        groups = [x for x in items if isinstance(x, Item) and x.tag == "group"]
        if len(whens) > 1:
            self.sink.error(codes.REPEATED_PART, f"modifier '{name}' has more than one 'when'", whens[1].span,
                            "join the conditions with 'and'")
        if not effects:
            self.sink.error(codes.MISSING_PART, f"modifier '{name}' does not say what it changes", self.span(meta),
                            "add a line such as: -1 to hit")
        return A.Modifier(self.span(meta), name, title, effects, whens[0].data if whens else None,
                          groups[0].data if groups else None, self._prose(items))

    @with_meta
    def modifier(self, meta: Any, c: list[Any]) -> A.Modifier:
        items = self._flat(c[2:])
        return self._modifier(meta, str(c[0]), unquote(str(c[1])), items)

    @with_meta
    def modifier_block_only(self, meta: Any, c: list[Any]) -> A.Modifier:
        return self._modifier(meta, str(c[0]), unquote(str(c[1])), self._flat(c[2:]))

    def stacking_kind(self, c: list[Any]) -> str:
        return str(c[0])

    @with_meta
    def stacking(self, meta: Any, c: list[Any]) -> Item:
        return Item("stacking", self.span(meta), c[0])

    @with_meta
    def ability_role(self, meta: Any, c: list[Any]) -> Item:
        """``role wounds, 1 without it``: the ability's value is the stat the engine needs."""
        return Item("role", self.span(meta), (str(c[0]), int(str(c[1])) if len(c) > 1 else None))

    # -- abilities and their hooks --------------------------------------------------

    def ability_block(self, c: list[Any]) -> list[Any]:
        return list(c)

    @with_meta
    def ability(self, meta: Any, c: list[Any]) -> A.Ability:
        name = str(c[0])
        if isinstance(c[1], Token):
            params: tuple[A.Param, ...] = ()
            title, rest = unquote(str(c[1])), self._flat(c[2:])
        else:
            params, title, rest = tuple(c[1] or ()), unquote(str(c[2])), self._flat(c[3:])
        short = next((x.text for x in rest if isinstance(x, Text)), None)
        hooks = tuple(x for x in rest if isinstance(x, A.Hook))
        effects = tuple(x for x in rest if isinstance(x, A.Effect))
        whens = [x for x in rest if isinstance(x, Item) and x.tag == "when"]
        stack = [x for x in rest if isinstance(x, Item) and x.tag == "stacking"]
        aka = tuple(a for x in rest if isinstance(x, Item) and x.tag == "aka" for a in x.data)
        see = tuple(a for x in rest if isinstance(x, Item) and x.tag == "see" for a in x.data)
        defence = tuple(e for x in rest if isinstance(x, Item) and x.tag == "attacked" for e in x.data)
        role = next((x for x in rest if isinstance(x, Item) and x.tag == "role"), None)
        return A.Ability(self.span(meta), name, params, title, short, hooks, effects,
                         whens[0].data if whens else None, stack[0].data if stack else None,
                         self._prose(rest), aka, see, defence,
                         role.data[0] if role else None, role.data[1] if role else None,
                         role.span if role else None)

    @with_meta
    def when_attacked(self, meta: Any, c: list[Any]) -> Item:
        return Item("attacked", self.span(meta), tuple(x for x in c if isinstance(x, A.Effect)))

    @with_meta
    def hook(self, meta: Any, c: list[Any]) -> A.Hook:
        natural, natural_from = c[0]
        test = str(c[1])
        effects = tuple(x for x in c[2:] if isinstance(x, A.HookEffect))
        if isinstance(natural, str):  # ``natural X+``: the ability's value
            return A.Hook(self.span(meta), test, None, natural_from, effects, natural_param=natural)
        return A.Hook(self.span(meta), test, natural, natural_from, effects)

    @with_meta
    def hook_damage(self, meta: Any, c: list[Any]) -> A.Hook:
        die: A.Dice | None = None
        if len(c) == 2:
            s = str(c[0])
            count, sides = dice_parts(s)
            die = A.Dice(self.tspan(c[0]), count, sides, die_key(s))
        return A.Hook(self.span(meta), None, None, False, (), c[-1], die)

    def crit_exact(self, c: list[Any]) -> tuple[int, bool]:
        return int(str(c[0])), False

    def crit_from(self, c: list[Any]) -> tuple[int, bool]:
        return int(str(c[0])), True

    def crit_exact_param(self, c: list[Any]) -> tuple[str, bool]:
        return str(c[0]), False

    def crit_from_param(self, c: list[Any]) -> tuple[str, bool]:
        return str(c[0]), True

    @with_meta
    def hook_succeeds(self, meta: Any, c: list[Any]) -> A.HookEffect:
        return A.HookEffect(self.span(meta), "succeed")

    @with_meta
    def extra(self, meta: Any, c: list[Any]) -> A.HookEffect:
        word = str(c[1]) if len(c) > 1 and c[1] is not None else None
        return A.HookEffect(self.span(meta), "extra", amount=c[0], word=word)

    @with_meta
    def auto_pass(self, meta: Any, c: list[Any]) -> A.HookEffect:
        return A.HookEffect(self.span(meta), "pass", test=str(c[0]))

    @with_meta
    def auto_fail(self, meta: Any, c: list[Any]) -> A.HookEffect:
        return A.HookEffect(self.span(meta), "fail", test=str(c[0]))

    @with_meta
    def hook_modifier(self, meta: Any, c: list[Any]) -> A.HookEffect:
        effect: A.Effect = c[0]
        return A.HookEffect(self.span(meta), "modify", test=effect.test, effect=effect)

    def spill_over(self, c: list[Any]) -> bool:
        return True

    @with_meta
    def mortal(self, meta: Any, c: list[Any]) -> A.HookEffect:
        return A.HookEffect(self.span(meta), "mortal", spill=bool(c and c[0]))

    # -- attack sequences -----------------------------------------------------------

    @with_meta
    def attack(self, meta: Any, c: list[Any]) -> A.Attack:
        name, params, title, rest = self._head(c)
        steps = tuple(x for x in rest if isinstance(x, A.Step))
        lets = tuple(x for x in rest if isinstance(x, A.Let))
        return A.Attack(self.span(meta), name, params, title, steps, lets, self._prose(rest))

    @with_meta
    def step(self, meta: Any, c: list[Any]) -> A.Step:
        return A.Step(self.span(meta), str(c[0]), c[1])

    @with_meta
    def removal(self, meta: Any, c: list[Any]) -> A.Step:
        damage = c[3] if len(c) > 3 else None
        return A.Step(self.span(meta), str(c[0]), None, str(c[1]), c[2], damage)
