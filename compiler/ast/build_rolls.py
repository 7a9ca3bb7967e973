"""The builder's part for dice and tests: custom dice and their faces, tests with their roll,
natural results, caps and re-rolls.
"""
from __future__ import annotations

from typing import Any

from lark import Token

from compiler import codes
from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, Text, dice_parts, die_key, unquote, with_meta


class RollsBuilder(BuilderBase):
    """Builds custom dice and tests."""

    # -- custom dice ----------------------------------------------------------------

    @with_meta
    def die(self, meta: Any, c: list[Any]) -> A.Decl:
        dice_tokens = self._tokens(c, "DICE")
        name_tok, base_tok = dice_tokens[0], dice_tokens[1]
        title = None
        strings = [x for x in c if isinstance(x, Token) and x.type == "STRING"]
        if strings and (strings[0].start_pos or 0) < (base_tok.start_pos or 0):
            title = unquote(str(strings[0]))
        faces = tuple(x for x in c if isinstance(x, Item) and x.tag == "face")
        rest = [x for x in c if isinstance(x, (Text, list))]
        short, prose, _, _ = self._entry_parts(rest)
        count, sides = dice_parts(str(base_tok))
        if count != 1:
            self.sink.error(codes.BAD_DIE, f"a custom die is made from one die, not {base_tok}", self.tspan(base_tok),
                            "write the base as d6 or d10")
        name_count, _ = dice_parts(str(name_tok))
        if name_count != 1:
            self.sink.error(codes.BAD_DIE, f"a custom die's name is a single die such as D3, not {name_tok}",
                            self.tspan(name_tok))
        return A.Die(self.span(meta), die_key(str(name_tok)), title, sides, self.tspan(base_tok),
                     tuple(f.data for f in faces), short, prose)

    @with_meta
    def face(self, meta: Any, c: list[Any]) -> Item:
        x = c[0]
        if isinstance(x, Token) and x.type == "STRING":
            return Item("face", self.span(meta), unquote(str(x)))
        return Item("face", self.span(meta), x)

    def signed_int(self, c: list[Any]) -> int:
        value = int(str(c[-1]))
        return -value if len(c) == 2 else value

    # -- tests ----------------------------------------------------------------------

    def _test(self, meta: Any, c: list[Any]) -> A.Test:
        name = str(c[0])
        params = c[1] or ()
        title = None
        rest = c[2:]
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            title = unquote(str(rest[0]))
            rest = rest[1:]
        roll = None
        fields: dict[str, Any] = {"natural_fails": (), "natural_succeeds": (), "rerolls": ()}
        prose = []
        spans = []
        for item in rest:
            if isinstance(item, A.Prose):
                prose.append(item)
                continue
            if not isinstance(item, Item):
                continue
            spans.append(item.span)
            if item.tag == "roll":
                if roll is not None:
                    self.sink.error(codes.REPEATED_PART, "a test rolls once: this is its second roll line", item.span,
                                    "write a second test and combine them in a formula")
                roll = item.data
            elif item.tag in ("natural_fails", "natural_succeeds", "rerolls"):
                fields[item.tag] = fields[item.tag] + tuple(item.data)
            else:
                if item.tag in fields:
                    self.sink.error(codes.REPEATED_PART, f"this test already says '{item.tag.replace('_', ' ')}'",
                                    item.span)
                fields[item.tag] = item.data
        if roll is None:
            self.sink.error(codes.MISSING_PART, f"test '{name}' never says what it rolls", self.span(meta),
                            "add a line such as: roll d6 >= 4")
        return A.Test(self.span(meta), name, tuple(params), title, roll,
                      tuple(fields["natural_fails"]), tuple(fields["natural_succeeds"]),
                      fields.get("never_better"), fields.get("never_worse"), fields.get("modifier_cap"),
                      tuple(fields["rerolls"]), tuple(prose), tuple(spans))

    @with_meta
    def test(self, meta: Any, c: list[Any]) -> A.Test:
        return self._test(meta, c)

    @with_meta
    def test_line(self, meta: Any, c: list[Any]) -> A.Test:
        return self._test(meta, c)

    def cmp_op(self, c: list[Any]) -> str:
        op = str(c[0])
        return {"≥": ">=", "≤": "<=", "≠": "!="}.get(op, op)

    @with_meta
    def roll_cmp(self, meta: Any, c: list[Any]) -> Item:
        span = self.span(meta)
        if c[1] not in (">=", "<="):
            self.sink.error(codes.WRONG_KIND, f"a roll is compared with >= (a high roll) or <= (a low roll), not {c[1]}",
                            span, "write: roll d6 >= 4  or  roll d6 <= BS")
        return Item("roll", span, A.Roll(span, c[0], c[1], c[2]))

    @with_meta
    def roll_against(self, meta: Any, c: list[Any]) -> Item:
        span = self.span(meta)
        return Item("roll", span, A.Roll(span, c[0], "against", c[1]))

    @with_meta
    def natural_fails(self, meta: Any, c: list[Any]) -> Item:
        return Item("natural_fails", self.span(meta), c[0])

    @with_meta
    def natural_succeeds(self, meta: Any, c: list[Any]) -> Item:
        return Item("natural_succeeds", self.span(meta), c[0])

    @with_meta
    def never_better(self, meta: Any, c: list[Any]) -> Item:
        return Item("never_better", self.span(meta), c[0])

    @with_meta
    def never_worse(self, meta: Any, c: list[Any]) -> Item:
        return Item("never_worse", self.span(meta), c[0])

    @with_meta
    def modifier_cap(self, meta: Any, c: list[Any]) -> Item:
        return Item("modifier_cap", self.span(meta), (c[0], c[1]))

    @with_meta
    def reroll(self, meta: Any, c: list[Any]) -> Item:
        return Item("rerolls", self.span(meta), (c[0],))

    def int_list(self, c: list[Any]) -> tuple[int, ...]:
        return tuple(int(str(t)) for t in c)

    def reroll_kind(self, c: list[Any]) -> str:
        first = str(c[0])
        if first == "natural":
            return "natural:" + ",".join(str(n) for n in c[1])
        return first
