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

import itertools
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: Look-ups of a group of keys before :class:`Recurring` judges whether they recur, and the share of
#: them that must be found for the group to be kept (a hit saves a decision's work, a miss costs
#: the key and the entry: some tenth of it).
TRIAL = 500
RECUR = 0.15
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

    __slots__ = ("_numbers",)

    def __init__(self) -> None:
        super().__init__()
        # (a counter's next is one step: games played at once on several threads never draw one number twice)
        self._numbers = itertools.count()

    def number(self, key: K) -> int:
        """``key``'s number (a new one for a key not met since the table last started again)."""
        found = self.get(key)
        if found is None:
            if len(self) >= LIMIT:
                self.clear()
            found = self[key] = next(self._numbers)
        return found


class Recurring:
    """Whether keeping answers under a kind of key pays: per group of keys (a phase in a game
    turn), how many were looked up and how many found.  A memo whose keys seldom recur (a state of
    a battle of many units, past its first game turn) costs more to key and to fill than it saves;
    a group is kept while fewer than :data:`TRIAL` of its keys were looked up, or at least
    :data:`RECUR` of them were found.  Nothing but the time depends on it: a memo's answer is the
    answer worked out afresh.

    >>> r = Recurring()
    >>> all(r.worth("move") for _ in range(TRIAL)) and [r.found("move", k % 2 == 0) for k in range(TRIAL)][-1]
    True
    >>> [r.found("fire", False) for _ in range(TRIAL)][-1], r.worth("fire"), r.worth("move")
    (False, False, True)
    """

    __slots__ = ("groups",)

    def __init__(self) -> None:
        self.groups: dict[Any, list[int]] = {}  # group → [looked up, found]; absent: kept

    def worth(self, group: object) -> bool:
        """Whether the keys of ``group`` are still worth keeping (and looking up)."""
        kept = self.groups.get(group)  # (a group counted was looked up at least once)
        return TRIAL > 0 if kept is None else kept[0] < TRIAL or kept[1] >= RECUR * kept[0]

    def found(self, group: object, hit: bool) -> bool:
        """Count a look-up of a key of ``group`` (``hit``: found); whether the group is still worth keeping."""
        kept = self.groups.get(group)
        if kept is None:
            kept = self.groups[group] = [0, 0]
        kept[0] += 1
        kept[1] += hit
        return self.worth(group)
