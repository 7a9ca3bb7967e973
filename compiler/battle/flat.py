"""A walk's kept transitions as flat arrays, and many games walked over them at once.

:mod:`compiler.battle.walk` keeps, per position, the chance nodes the engine met and what
followed each outcome, as objects.  :class:`Flat` mirrors them in NumPy arrays as they are kept
— a row per chance node: its cumulative chances, their total, and per
outcome the code of what followed (the next chance node's row, passing over the positions in
between, which draw nothing; the end of the battle; or nothing kept yet) — so that
:meth:`Flat.walk` can play many games at once: each round, every game still going draws its
next number from its own stream (:func:`~compiler.battle.streams.draws_at`, bit for bit the
stream's), finds its outcome in its node's cumulative chances exactly as
:meth:`~compiler.battle.rules.Law.index` does (the count of cumulative chances at most the draw
times their total), and moves to what followed.  (``Law.index`` also caps the count at the last
outcome's index; a draw is a multiple of 2⁻⁵³ below 1, and such a draw times a total rounds
below the total — exactly when the total is a power of two, by more than half its last place
otherwise — so the last cumulative chance, the total, is never counted and the cap never
applies.)  A game that reaches an
outcome with nothing kept after it is handed back, for the engine to play
(:meth:`~compiler.battle.walk.Walk.play_many`); the others end where the engine would end them.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from compiler.battle.streams import draws, draws_at

#: The code of an outcome with nothing kept after it; codes below it are ends (``-2 - end``).
UNKNOWN = -1
#: Equal slices of [0, 1) per chance node whose outcome is looked up, when one outcome holds for
#: every draw in the slice (a power of two: a draw's slice is exact); a walk of at least
#: ``2 * SLICES`` games first works out the slices of the laws kept since the last such walk
#: (fewer are not worth it: a law not sliced is looked up in its cumulative chances).
SLICES = 64
_UNIT = 2.0 ** -53


class Flat:
    """The rows of a walk's kept chance nodes, their laws (each distinct law once), and the ends
    it kept, by code."""

    def __init__(self) -> None:
        # the arrays start empty, and each grows to twice what it holds when it must (:meth:`sync`)
        self.size = 0  # rows in the arrays
        self.law = np.array([], dtype=np.int32)  # each row's law
        self.child = np.array([[]], dtype=np.int32)  # per row and outcome, what followed
        self.laws = 0  # laws in the arrays: their cumulative chances (padded) and total
        self.cumulative = np.array([[]])
        self.total = np.array([])
        #: per law and slice of [0, 1), the outcome of every draw in the slice (-1: not one)
        self.slices = np.array([[]], dtype=np.int16)
        self.sliced = 0  # the laws whose slices are worked out
        self.nodes: list[Any] = []  # the chance node of each row
        self._law_ids: dict[tuple[float, ...], int] = {}  # a law's cumulative chances → its index
        #: laws, rows and links kept since the arrays were last brought up to date (:meth:`sync`)
        self._laws: list[tuple[float, ...]] = []
        self._rows: list[int] = []
        self._links: list[tuple[int, int, int]] = []
        self.ends: list[Any] = []  # the battle's ends kept, by their index
        self._end_codes: dict[int, int] = {}  # id of an end kept → its code
        self.depth = 1  # the most draws a game walked here has made

    def step(self, node: object, cumulative: Sequence[float]) -> int:
        """A new row for chance node ``node`` with these cumulative chances (in the arrays at the
        next :meth:`sync`)."""
        key = tuple(cumulative)
        law = self._law_ids.get(key)
        if law is None:
            law = self._law_ids[key] = len(self._law_ids)
            self._laws.append(key)
        self.nodes.append(node)
        self._rows.append(law)
        return len(self.nodes) - 1

    def sync(self) -> None:
        """Bring the arrays up to date with the laws, rows and links kept since last time, at once."""
        if self._laws:
            new, start = self._laws, self.laws
            self._laws = []
            self.laws = start + len(new)
            width = max(self.cumulative.shape[1], max(len(c) for c in new))
            rows = max(self.cumulative.shape[0], 2 * self.laws)
            self.cumulative = _grown(self.cumulative, (rows, width), np.inf)
            self.total = _grown(self.total, (rows,), 1.0)
            self.slices = _grown(self.slices, (rows, SLICES), -1)
            self.cumulative[start:self.laws] = [c + (np.inf,) * (width - len(c)) for c in new]
            self.total[start:self.laws] = [c[-1] for c in new]
        if self._rows:
            new_rows, start = self._rows, self.size
            self._rows = []
            self.size = start + len(new_rows)
            shape = (max(self.child.shape[0], 2 * self.size), max(self.child.shape[1], self.cumulative.shape[1]))
            self.child, self.law = _grown(self.child, shape, UNKNOWN), _grown(self.law, shape[:1], 0)
            self.law[start:self.size] = new_rows
        if self._links:
            rows_, index, codes = zip(*self._links)
            self._links = []
            self.child[list(rows_), list(index)] = codes

    def _slice(self) -> None:
        """Work out the slices of the laws added since last time: the outcome of the slice's least
        draw and of its greatest (found as in :meth:`walk`; in between, by monotony, the outcome
        lies between the two), kept where they agree."""
        laws = slice(self.sliced, self.laws)
        b = np.arange(SLICES, dtype=np.float64)
        found = []
        for u in (b / SLICES, ((b + 1) * 2.0 ** 53 / SLICES - 1) * _UNIT):  # the least and the greatest draws
            x = u[None, :] * self.total[laws, None]
            i = np.count_nonzero(self.cumulative[laws, None, :] <= x[:, :, None], axis=2)
            found.append(i)
        least, greatest = found
        self.slices[laws] = np.where(least == greatest, least, -1)
        self.sliced = self.laws

    def end(self, outcome: object) -> int:
        """The code of an end of the battle (kept on first use)."""
        code = self._end_codes.get(id(outcome))
        if code is None:
            code = self._end_codes[id(outcome)] = -2 - len(self.ends)
            self.ends.append(outcome)
        return code

    def link(self, row: int, index: int, code: int) -> None:
        """What followed outcome ``index`` of chance node ``row``: a row, an end's code (positions
        in between are passed over: the code is what follows them); in the arrays at the next
        :meth:`sync`."""
        self._links.append((row, index, code))

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
        self.sync()
        if self.sliced < self.laws and len(seeds) >= 2 * SLICES:  # (a law not sliced has no slice)
            self._slice()
        at, games, k = self._aside(at, np.full(len(at), -1), games, -1, k, ended, back)
        while games.size:
            if ahead is not None and isinstance(k, int) and k < ahead.shape[1]:
                u = ahead[games, k]
            else:
                u = draws_at(seeds[games], k)
            law = self.law[at]
            i = self.slices[law, (u * SLICES).astype(np.int64)].astype(np.int64)
            split = np.flatnonzero(i < 0)
            if split.size:  # a draw in a slice with more than one outcome: its cumulative chances
                law = law[split]
                x = u[split] * self.total[law]
                i[split] = np.count_nonzero(self.cumulative[law] <= x[:, None], axis=1)
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


def _grown(a: np.ndarray, shape: tuple[int, ...], fill: float) -> np.ndarray:
    """``a`` in an array of ``shape`` (filled with ``fill`` past it), or ``a`` itself if it fits."""
    if a.shape == shape:
        return a
    out = np.full(shape, fill, dtype=a.dtype)
    out[tuple(slice(0, n) for n in a.shape)] = a
    return out
