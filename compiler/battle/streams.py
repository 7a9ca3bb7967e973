"""The draws of a battle's chance nodes: each game's own stream of uniform numbers, from its seed.

A stream is SplitMix64 (Steele, Lea and Flood, *Fast splittable pseudorandom number generators*,
OOPSLA 2014; Java's ``SplittableRandom``): a 64-bit state that steps by a fixed odd constant, each
step's state mixed into 64 well-spread bits, the top 53 of them read as a float in [0, 1).  A
chance node draws one, and finds its outcome in its law's cumulative chances (:meth:`~compiler.battle.engine.Battle.chance`).  Seeding costs nothing —
a Mersenne Twister costs ~4 µs to seed, more than a whole small game — so every game has its own
stream, and game *i* of a run (:func:`game_seed`) is the same game however the run is spread
over processes or machines.

The draws of many games are made at once with NumPy (:func:`first_draws`, :func:`draws_at`),
bit for bit those of each game's :class:`Stream`; the walk over kept transitions
(:mod:`compiler.battle.walk`, :mod:`compiler.battle.flat`) plays many games at once on them.

>>> s = Stream(game_seed(7, 0))
>>> a, b = s.random(), s.random()
>>> 0 <= a < 1 and a != b
True
>>> first_draws([game_seed(7, 0)], 2) == [[a, b]]
True

Battle logs of version 1 were played on Python's Mersenne Twister seeded with the log's seed;
:func:`stream` gives that one for them, so that they replay as they were played.
"""
from __future__ import annotations

import hashlib
import random
from functools import lru_cache
from typing import Protocol

import numpy as np

GAMMA = 0x9E3779B97F4A7C15  # the step: 2**64 over the golden ratio, odd
_M1, _M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB  # the mix's multipliers (Stafford's variant 13)
_MASK = (1 << 64) - 1
_UNIT = 2.0 ** -53


class Draws(Protocol):
    """Whatever a battle draws its chance nodes from: uniform floats in [0, 1)."""

    def random(self) -> float: ...


def mix(z: int) -> int:
    """SplitMix64's output function: 64 bits in, 64 well-spread bits out."""
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


class Stream:
    """A game's stream of uniform draws (an iterator of them, too), from its 64-bit seed;
    ``skip`` draws already made."""

    __slots__ = ("state",)

    def __init__(self, seed: int, skip: int = 0) -> None:
        self.state = (seed + skip * GAMMA) & _MASK

    def random(self) -> float:
        """The next draw, in [0, 1)."""
        self.state = state = (self.state + GAMMA) & _MASK
        return (mix(state) >> 11) * _UNIT

    def peek(self) -> float:
        """The next draw, left to be drawn."""
        return (mix((self.state + GAMMA) & _MASK) >> 11) * _UNIT

    def __iter__(self) -> Stream:
        return self

    def __next__(self) -> float:
        return self.random()


def _mixed(z: np.ndarray) -> np.ndarray:
    """:func:`mix` of each element (NumPy's unsigned 64-bit arithmetic wraps as the stream's does);
    ``z`` is overwritten."""
    z ^= z >> np.uint64(30)
    z *= np.uint64(_M1)
    z ^= z >> np.uint64(27)
    z *= np.uint64(_M2)
    z ^= z >> np.uint64(31)
    return z


def first_draws(seeds: list[int], k: int) -> list[list[float]]:
    """The first ``k`` draws of each seed's :class:`Stream`, made at once."""
    if not seeds:
        return []
    out: list[list[float]] = draws(np.array(seeds, dtype=np.uint64), k).tolist()
    return out


def draws_at(seeds: np.ndarray, k: int | np.ndarray) -> np.ndarray:
    """Draw ``k`` (counting from 0; one for all, or one per seed) of each seed's :class:`Stream`
    (``seeds``: unsigned 64-bit), made at once: what the ``k+1``-th :meth:`Stream.random` of
    each gives, bit for bit."""
    if isinstance(k, np.ndarray):
        z = _mixed(seeds + (k.astype(np.uint64) + np.uint64(1)) * np.uint64(GAMMA))
    else:
        z = _mixed(seeds + np.uint64(((k + 1) * GAMMA) & _MASK))
    z >>= np.uint64(11)
    return z.astype(np.float64) * _UNIT


def draws(seeds: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` draws of each seed's :class:`Stream` (``seeds``: unsigned 64-bit), made at
    once: a row per seed."""
    z = _mixed(seeds[:, None] + np.arange(1, k + 1, dtype=np.uint64)[None, :] * np.uint64(GAMMA))
    z >>= np.uint64(11)
    return z.astype(np.float64) * _UNIT


@lru_cache(maxsize=64)
def _base(seed: int) -> int:
    digest = hashlib.blake2b(f"warscribe-battle/{seed}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed``: the ``index``-th output of a SplitMix64
    stream started from a hash of ``seed`` (independent of the schedule).

    >>> game_seed(7, 0) == game_seed(7, 0), game_seed(7, 0) == game_seed(7, 1)
    (True, False)
    >>> game_seeds(7, 3, 5) == [game_seed(7, 3), game_seed(7, 4)]
    True
    """
    return mix((_base(seed) + (index + 1) * GAMMA) & _MASK)


def game_seeds(seed: int, start: int, stop: int) -> list[int]:
    """:func:`game_seed` of games ``start`` to ``stop - 1``, made at once."""
    out: list[int] = game_seed_array(seed, start, stop).tolist()
    return out


def game_seed_array(seed: int, start: int, stop: int) -> np.ndarray:
    """:func:`game_seeds` as an array of unsigned 64-bit integers."""
    if stop <= start:
        return np.zeros(0, dtype=np.uint64)
    return _mixed(np.uint64(_base(seed)) + np.arange(start + 1, stop + 1, dtype=np.uint64) * np.uint64(GAMMA))


def stream(seed: int, version: int = 2) -> Draws:
    """The draws of a battle seeded ``seed``: its :class:`Stream`; for a battle log of version 1,
    Python's Mersenne Twister seeded with it, as those battles were played."""
    return random.Random(seed) if version == 1 else Stream(seed)
