"""The engine's kept work: typed caches, each with one owner.

A battle is played thousands of times from the same few states, so what the rules say about a
state (a volley's law, an action's estimate, the greedy policy's pick) is worked out once per
process and kept.  Each kind of answer has its own :class:`Memo`, named and typed, held by the
one object that fills it (:class:`~compiler.battle.estimates.EstimateMemos` for the estimates,
:class:`~compiler.battle.setup.Prepared` for the engine's own picks); none is shared by key
prefixes.  A state's signature is asked under several of them: :class:`Numbered` gives it a
number once, and they are keyed by it.

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


class Numbered(dict[K, int]):
    """Keys numbered as they are first met: a state's signature (a long tuple, whose hash Python
    works out afresh at each look-up, and which is compared element by element on a hit) asked
    under several memos while the state holds is looked up here once, and the memos are keyed by
    its number, a small int.  Equal keys get one number; a number is never given to another key,
    not even after the table starts again past :data:`LIMIT` entries (a key met again then gets a
    new number: what was kept under the old one is never found, not wrongly found).

    >>> ids: Numbered[tuple[str, int]] = Numbered()
    >>> ids.number(("ogre", 2)), ids.number(("gunner", 5)), ids.number(("ogre", 2))
    (0, 1, 0)
    """

    __slots__ = ("next",)

    def __init__(self) -> None:
        super().__init__()
        self.next = 0

    def number(self, key: K) -> int:
        """``key``'s number (a new one for a key not met since the table last started again)."""
        found = self.get(key)
        if found is None:
            if len(self) >= LIMIT:
                self.clear()
            found = self[key] = self.next
            self.next += 1
        return found
