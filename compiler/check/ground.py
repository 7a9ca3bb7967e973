"""The ground units can walk to on a table: the free ground around impassable terrain.

Impassable areas are closed rectangles (their edges included), as the battle has them.  The
table is cut along every edge of an impassable area into pieces: open cells, the open stretches
of the cutting lines between them, and the points where those lines cross (a compressed grid:
an even index is a cut, an odd index the open stretch between two cuts).  Each piece lies wholly
inside some impassable area or wholly outside all of them, and two pieces touch exactly when
their indices differ by one in one direction; so the free ground reachable from a point is a
flood fill of that grid, exact for any set of rectangles.

>>> ground = Ground(48, 48, [(20, 20, 28, 21), (20, 27, 28, 28), (20, 20, 21, 28), (27, 20, 28, 28)])
>>> walled = (24, 24)   # inside a square wall: nobody outside can come nearer than 3" or so
>>> ground.near([(0, 0)], *walled, 3), ground.near([(0, 0)], *walled, 4), ground.near([walled], *walled, 0)
(False, True, True)
"""
from __future__ import annotations

import bisect
from collections import deque
from typing import Sequence

import numpy as np

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1


class Ground:
    """A table of ``width`` by ``depth`` inches with impassable rectangles ``blocks``."""

    def __init__(self, width: float, depth: float, blocks: Sequence[Rect]) -> None:
        clip = [(max(0.0, min(x0, width)), max(0.0, min(y0, depth)), max(0.0, min(x1, width)),
                 max(0.0, min(y1, depth))) for x0, y0, x1, y1 in blocks]
        self.xs = sorted({0.0, float(width)} | {v for r in clip for v in (r[0], r[2])})
        self.ys = sorted({0.0, float(depth)} | {v for r in clip for v in (r[1], r[3])})
        self.blocked = np.zeros((2 * len(self.xs) - 1, 2 * len(self.ys) - 1), dtype=bool)
        for x0, y0, x1, y1 in clip:
            i0, i1 = 2 * self.xs.index(x0), 2 * self.xs.index(x1)
            j0, j1 = 2 * self.ys.index(y0), 2 * self.ys.index(y1)
            self.blocked[i0:i1 + 1, j0:j1 + 1] = True

    @staticmethod
    def _piece(cuts: list[float], v: float) -> int:
        """The index of the piece of one direction that holds ``v`` (a cut, or the stretch after one)."""
        k = bisect.bisect_left(cuts, v)
        if k < len(cuts) and cuts[k] == v:
            return 2 * k
        return max(0, min(2 * k - 1, 2 * len(cuts) - 2))

    def reached(self, starts: Sequence[tuple[float, float]]) -> np.ndarray:
        """The pieces reachable from any of ``starts`` without entering impassable ground."""
        seen = np.zeros_like(self.blocked)
        todo: deque[tuple[int, int]] = deque()
        for x, y in starts:
            p = (self._piece(self.xs, x), self._piece(self.ys, y))
            if not self.blocked[p] and not seen[p]:
                seen[p] = True
                todo.append(p)
        n, m = self.blocked.shape
        while todo:
            i, j = todo.popleft()
            for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
                if 0 <= a < n and 0 <= b < m and not seen[a, b] and not self.blocked[a, b]:
                    seen[a, b] = True
                    todo.append((a, b))
        return seen

    def near(self, starts: Sequence[tuple[float, float]], x: float, y: float, reach: float) -> bool:
        """Whether a unit setting out from one of ``starts`` can come within ``reach`` inches of (x, y)."""
        seen = self.reached(starts)
        dx = np.array([_gap(self.xs, i, x) for i in range(seen.shape[0])])
        dy = np.array([_gap(self.ys, j, y) for j in range(seen.shape[1])])
        return bool((seen & (np.hypot(dx[:, None], dy[None, :]) <= reach)).any())


def _gap(cuts: list[float], i: int, v: float) -> float:
    """How far ``v`` is from piece ``i`` (its closure) of one direction."""
    lo, hi = cuts[i // 2], cuts[(i + 1) // 2]
    return max(0.0, lo - v, v - hi)
