"""A walk's kept transitions as flat arrays, and many games walked over them at once.

:mod:`compiler.battle.walk` keeps, per position, the chance nodes the engine met and what
followed each outcome, as objects.  :class:`Flat` mirrors them in NumPy arrays as they are kept
— a row per node (a chance node or a position): its cumulative chances, their total, its last
outcome's index, and per outcome the code of what followed (a node's row, the end of the battle,
or nothing kept yet) — so that :meth:`Flat.walk` can play many games at once: each round, every
game still going draws its next number from its own stream (:func:`~compiler.battle.streams.draws_at`,
bit for bit the stream's), finds its outcome in its node's cumulative chances exactly as
:meth:`~compiler.battle.rules.Law.index` does (the count of cumulative chances at most the draw
times their total, at most the last index), and moves to what followed.  A game that reaches an
outcome with nothing kept after it is handed back, for the engine to play (the walk's own
:meth:`~compiler.battle.walk.Walk.play`); the others end where the engine would end them.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from compiler.battle.streams import draws_at

#: The code of an outcome with nothing kept after it; codes below it are ends (``-2 - end``).
UNKNOWN = -1


class Flat:
    """The rows of a walk's kept nodes; the ends it kept, by code."""

    def __init__(self, rows: int = 64, width: int = 8) -> None:
        self.size = 0
        self.chance = np.zeros(rows, dtype=bool)  # a chance node (else a position: its one successor)
        self.cumulative = np.full((rows, width), np.inf)
        self.total = np.ones(rows)
        self.last = np.zeros(rows, dtype=np.int64)
        self.child = np.full((rows, width), UNKNOWN, dtype=np.int64)
        self.ends: list[Any] = []  # the battle's ends kept, by their index
        self._end_codes: dict[int, int] = {}  # id of an end kept → its code

    def node(self, cumulative: Sequence[float] | None) -> int:
        """A new row: a chance node with these cumulative chances, or (None) a position."""
        row = self.size
        width = 1 if cumulative is None else len(cumulative)
        rows, have = self.child.shape
        if row >= rows or width > have:
            self._grow(max(rows, 2 * row if row >= rows else rows), max(have, width))
        self.size = row + 1
        if cumulative is not None:
            self.chance[row] = True
            self.cumulative[row, :width] = cumulative
            self.total[row] = cumulative[-1]
            self.last[row] = width - 1
        return row

    def _grow(self, rows: int, width: int) -> None:
        old = self.child.shape
        chance, total, last = np.zeros(rows, dtype=bool), np.ones(rows), np.zeros(rows, dtype=np.int64)
        cumulative, child = np.full((rows, width), np.inf), np.full((rows, width), UNKNOWN, dtype=np.int64)
        chance[:old[0]], total[:old[0]], last[:old[0]] = self.chance, self.total, self.last
        cumulative[:old[0], :old[1]], child[:old[0], :old[1]] = self.cumulative, self.child
        self.chance, self.total, self.last, self.cumulative, self.child = chance, total, last, cumulative, child

    def end(self, outcome: object) -> int:
        """The code of an end of the battle (kept on first use)."""
        code = self._end_codes.get(id(outcome))
        if code is None:
            code = self._end_codes[id(outcome)] = -2 - len(self.ends)
            self.ends.append(outcome)
        return code

    def link(self, row: int, index: int, code: int) -> None:
        """What followed outcome ``index`` of node ``row`` (a position's successor: index 0)."""
        self.child[row, index] = code

    def walk(self, seeds: np.ndarray, root: int) -> tuple[np.ndarray, np.ndarray]:
        """Games with these ``seeds`` (unsigned 64-bit) walked from row ``root``: the games each
        end kept ended (counts, by end) and the indices of the games handed back (they met an
        outcome with nothing kept after it)."""
        games = np.arange(len(seeds))
        at = np.full(len(seeds), root, dtype=np.int64)
        ended: list[np.ndarray] = []
        back: list[np.ndarray] = []
        k = 0  # the draws every game still going has made
        at, games = self._settle(at, games, ended, back)
        while games.size:
            u = draws_at(seeds[games], k)
            k += 1
            x = u * self.total[at]
            i = np.count_nonzero(self.cumulative[at] <= x[:, None], axis=1)
            np.minimum(i, self.last[at], out=i)
            at, games = self._settle(self.child[at, i], games, ended, back)
        codes = np.concatenate(ended) if ended else np.zeros(0, dtype=np.int64)
        counts = np.bincount(-2 - codes, minlength=len(self.ends))
        return counts, (np.concatenate(back) if back else np.zeros(0, dtype=np.int64))

    def _settle(self, at: np.ndarray, games: np.ndarray, ended: list[np.ndarray],
                back: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The games at a chance node: those at a position moved on to what followed it, those at
        an end or at nothing kept set aside."""
        while True:
            gone = at < 0
            if gone.any():
                codes = at[gone]
                ended.append(codes[codes != UNKNOWN])
                back.append(games[gone][codes == UNKNOWN])
                stay = ~gone
                at, games = at[stay], games[stay]
            position = ~self.chance[at]
            if not position.any():
                return at, games
            at[position] = self.child[at[position], 0]
