"""A walk's kept transitions as flat arrays, and many games walked over them at once.

:mod:`compiler.battle.walk` keeps, per position, the chance nodes the engine met and what
followed each outcome, as objects.  :class:`Flat` mirrors them in NumPy arrays as they are kept
— a row per chance node: its cumulative chances, their total, its last outcome's index, and per
outcome the code of what followed (the next chance node's row, passing over the positions in
between, which draw nothing; the end of the battle; or nothing kept yet) — so that
:meth:`Flat.walk` can play many games at once: each round, every game still going draws its
next number from its own stream (:func:`~compiler.battle.streams.draws_at`, bit for bit the
stream's), finds its outcome in its node's cumulative chances exactly as
:meth:`~compiler.battle.rules.Law.index` does (the count of cumulative chances at most the draw
times their total, at most the last index), and moves to what followed.  A game that reaches an
outcome with nothing kept after it is handed back, for the engine to play
(:meth:`~compiler.battle.walk.Walk.play_many`); the others end where the engine would end them.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from compiler.battle.streams import draws, draws_at

#: The code of an outcome with nothing kept after it; codes below it are ends (``-2 - end``).
UNKNOWN = -1


class Flat:
    """The rows of a walk's kept chance nodes; the ends it kept, by code."""

    def __init__(self, rows: int = 64, width: int = 8) -> None:
        self.size = 0
        self.cumulative = np.full((rows, width), np.inf)
        self.total = np.ones(rows)
        self.last = np.zeros(rows, dtype=np.int64)
        self.child = np.full((rows, width), UNKNOWN, dtype=np.int64)
        self.nodes: list[Any] = []  # the chance node of each row
        self.ends: list[Any] = []  # the battle's ends kept, by their index
        self._end_codes: dict[int, int] = {}  # id of an end kept → its code
        self.depth = 1  # the most draws a game walked here has made

    def step(self, node: object, cumulative: Sequence[float]) -> int:
        """A new row for chance node ``node`` with these cumulative chances."""
        row = self.size
        self.nodes.append(node)
        width = len(cumulative)
        rows, have = self.child.shape
        if row >= rows or width > have:
            self._grow(2 * rows if row >= rows else rows, max(have, width))
        self.size = row + 1
        self.cumulative[row, :width] = cumulative
        self.total[row] = cumulative[-1]
        self.last[row] = width - 1
        return row

    def _grow(self, rows: int, width: int) -> None:
        old = self.child.shape
        total, last = np.ones(rows), np.zeros(rows, dtype=np.int64)
        cumulative, child = np.full((rows, width), np.inf), np.full((rows, width), UNKNOWN, dtype=np.int64)
        total[:old[0]], last[:old[0]] = self.total, self.last
        cumulative[:old[0], :old[1]], child[:old[0], :old[1]] = self.cumulative, self.child
        self.total, self.last, self.cumulative, self.child = total, last, cumulative, child

    def end(self, outcome: object) -> int:
        """The code of an end of the battle (kept on first use)."""
        code = self._end_codes.get(id(outcome))
        if code is None:
            code = self._end_codes[id(outcome)] = -2 - len(self.ends)
            self.ends.append(outcome)
        return code

    def link(self, row: int, index: int, code: int) -> None:
        """What followed outcome ``index`` of chance node ``row``: a row, an end's code (positions
        in between are passed over: the code is what follows them)."""
        self.child[row, index] = code

    def walk(self, seeds: np.ndarray, at: np.ndarray,
             drawn: np.ndarray | None = None) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
        """Games with these ``seeds`` (unsigned 64-bit) walked from the codes ``at`` (each game's
        own, after the draws ``drawn``; None: none yet): the games each end kept ended (counts, by
        end), and the games handed back — they met an outcome with nothing kept after it — each as
        (its index, the row, the outcome drawn there, the draws it made; row -1: at ``at``)."""
        games = np.arange(len(seeds))
        ended: list[np.ndarray] = []
        back: list[tuple[int, int, int, int]] = []
        k = 0 if drawn is None else drawn.copy()  # the draws each game still going has made
        ahead = draws(seeds, self.depth) if drawn is None else None  # the first draws of all at once
        at, games, k = self._aside(at, np.full(len(at), -1), games, -1, k, ended, back)
        while games.size:
            if ahead is not None and isinstance(k, int) and k < ahead.shape[1]:
                u = ahead[games, k]
            else:
                u = draws_at(seeds[games], k)
            x = u * self.total[at]
            i = np.count_nonzero(self.cumulative[at] <= x[:, None], axis=1)
            np.minimum(i, self.last[at], out=i)
            k = k + 1
            at, games, k = self._aside(self.child[at, i], at, games, i, k, ended, back)
        if isinstance(k, int):
            self.depth = max(self.depth, k)
        codes = np.concatenate(ended) if ended else np.zeros(0, dtype=np.int64)
        return np.bincount(-2 - codes, minlength=len(self.ends)), back

    @staticmethod
    def _aside(following: np.ndarray, at: np.ndarray, games: np.ndarray, i: np.ndarray | int,
               k: np.ndarray | int, ended: list[np.ndarray], back: list[tuple[int, int, int, int]]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | int]:
        """The games going on to ``following`` from row ``at`` (outcome ``i`` there, ``k`` draws
        made): those that reached an end counted, those that reached nothing kept handed back;
        the rest: where they are, which games, their draws."""
        gone = following < 0
        if not gone.any():
            return following, games, k
        codes = following[gone]
        ended.append(codes[codes != UNKNOWN])
        lost = following == UNKNOWN
        if lost.any():
            count = int(lost.sum())
            outcome = i[lost].tolist() if isinstance(i, np.ndarray) else [i] * count
            drawn = k[lost].tolist() if isinstance(k, np.ndarray) else [k] * count
            back.extend(zip(games[lost].tolist(), at[lost].tolist(), outcome, drawn))
        stay = ~gone
        return following[stay], games[stay], (k[stay] if isinstance(k, np.ndarray) else k)
