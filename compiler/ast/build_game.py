"""The builder's part for the game's structure: turns, the activation scheme, phases and their
steps, scoring and victory.
"""
from __future__ import annotations

from typing import Any

from lark import Token, v_args

from compiler import codes
from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, Text, unquote


class GameBuilder(BuilderBase):
    """Builds the game's structure."""

    @v_args(meta=True)
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
                      self._prose(items))

    @v_args(meta=True)
    def turns(self, meta: Any, c: list[Any]) -> Item:
        return Item("turns", self.span(meta), int(str(c[0])))

    @v_args(meta=True)
    def activation(self, meta: Any, c: list[Any]) -> Item:
        return Item("activation", self.span(meta), str(c[0]))

    @v_args(meta=True)
    def phase(self, meta: Any, c: list[Any]) -> A.Phase:
        rest = self._flat(c[2:])
        text = next((x.text for x in rest if isinstance(x, Text)), None)
        steps = tuple(x for x in rest if isinstance(x, A.PhaseStep))
        return A.Phase(self.span(meta), str(c[0]), unquote(str(c[1])), text, steps, self._prose(rest))

    @v_args(meta=True)
    def phase_step(self, meta: Any, c: list[Any]) -> A.PhaseStep:
        text = next((x.text for x in c[2:] if isinstance(x, Text)), None)
        return A.PhaseStep(self.span(meta), str(c[0]), unquote(str(c[1])), text)

    @v_args(meta=True)
    def score(self, meta: Any, c: list[Any]) -> A.Score:
        per = str(c[3]) if len(c) > 3 and isinstance(c[3], Token) else None
        _, prose, _, _ = self._entry_parts([x for x in c[3:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], per, prose)

    @v_args(meta=True)
    def victory(self, meta: Any, c: list[Any]) -> A.Victory:
        short, prose, _, _ = self._entry_parts(c[2:])
        return A.Victory(self.span(meta), str(c[0]), unquote(str(c[1])), short, prose)
