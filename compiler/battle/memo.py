"""The engine's kept work: typed caches, each with one owner.

A battle is played thousands of times from the same few states, so what the rules say about a
state (a volley's law, an action's estimate, the greedy policy's pick) is worked out once per
process and kept.  Each kind of answer has its own :class:`Memo`, named and typed, held by the
one object that fills it (:class:`~compiler.battle.estimates.EstimateMemos` for the estimates,
:class:`~compiler.battle.setup.Prepared` for the engine's own picks); none is shared by key
prefixes.

>>> seen: Memo[tuple[str, int], float] = Memo("expected volleys")
>>> seen[("bolter", 5)] = 1.5
>>> seen.get(("bolter", 5)), seen.name
(1.5, 'expected volleys')
"""
from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: Entries a memo keeps before it starts again (a long run meets few distinct states; a bound
#: keeps a pathological one from filling memory).
LIMIT = 500_000


class Memo(dict[K, V]):
    """A cache of answers of one kind (a dict, so that a look-up costs what a dict's does)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def keep(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` (starting again past :data:`LIMIT` entries) and return it."""
        if len(self) >= LIMIT:
            self.clear()
        self[key] = value
        return value

    def __repr__(self) -> str:
        return f"Memo({self.name!r}, {len(self)} entries)"


class Hashed:
    """A key whose hash is worked out once: a state's signature (a tuple of tuples, whose hash
    Python works out afresh at each look-up) asked under several memos while the state holds.
    Equal to another ``Hashed`` of an equal key, and to nothing else.

    >>> a, b = Hashed(("ogre", (1, 2.5))), Hashed(("ogre", (1, 2.5)))
    >>> a == b, hash(a) == hash(("ogre", (1, 2.5))), a == ("ogre", (1, 2.5))
    (True, True, False)
    >>> Hashed(-1) == Hashed(-2), hash(Hashed(-1)) == hash(Hashed(-2))  # one hash, two keys
    (False, True)
    """

    __slots__ = ("key", "hash")

    def __init__(self, key: object) -> None:
        self.key = key
        self.hash = hash(key)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Hashed) and self.hash == other.hash and self.key == other.key)

    def __repr__(self) -> str:
        return f"Hashed({self.key!r})"
