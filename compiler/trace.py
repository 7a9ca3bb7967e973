"""Which declarations a computation used: the record behind ``warscribe test --coverage``.

The resolver calls :func:`note` with a declaration's id each time it uses one: a test, a table,
a formula or an attack called, a modifier or an ability that changed a number.  Nothing is
recorded unless a caller asked for it with :func:`recording`, so the cost elsewhere is one
context-variable lookup per call.

The resolver keeps what it worked out in a memo shared by every question asked of a ruleset,
so a second example asking what a first one did would use nothing at all.  While recording,
the resolver uses a :class:`TracedMemo` instead, which keeps with each entry the ids noted
while it was worked out, and notes them again each time the entry is read.

>>> with recording() as used:
...     note("to_wound")
>>> sorted(used)
['to_wound']
>>> note("outside")  # not recording: ignored
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Container, Iterable, Iterator

_USED: ContextVar[set[str] | None] = ContextVar("warscribe_used", default=None)


def note(decl_id: str) -> None:
    """Record that ``decl_id`` took part in the computation under way (if one is being recorded)."""
    used = _USED.get()
    if used is not None:
        used.add(decl_id)


def note_held(held: Container[str], names: Iterable[str]) -> None:
    """Record each of ``names`` that ``held`` holds: the statuses of a unit that took effect (an
    action they bar, a reaction they allow, an expression worked out for the unit that reads them).

    >>> with recording() as used:
    ...     note_held({"pinned": ""}, ["pinned", "routed"])
    >>> sorted(used)
    ['pinned']
    """
    used = _USED.get()
    if used is not None and held:
        used.update(n for n in names if n in held)


@contextmanager
def recording() -> Iterator[set[str]]:
    """Record, into the set it yields, the ids of the declarations used inside the block."""
    used: set[str] = set()
    token = _USED.set(used)
    try:
        yield used
    finally:
        _USED.reset(token)


def active() -> bool:
    """Whether a computation is being recorded."""
    return _USED.get() is not None


class TracedMemo(dict[Any, Any]):
    """A memo that remembers, for each entry, the declarations used to work it out.

    The resolver's memo sites all read the same way: look the key up (``key in memo`` or
    ``memo.get(key)``); on a miss, work the value out and store it (``memo[key] = value``).
    A miss opens a frame that collects what is noted until the key is stored; a hit notes
    the entry's declarations again.

    >>> memo = TracedMemo()
    >>> with recording() as first:
    ...     if "k" not in memo:
    ...         note("hit")
    ...         memo["k"] = 1
    >>> with recording() as second:
    ...     memo.get("k")
    1
    >>> sorted(first), sorted(second)
    (['hit'], ['hit'])
    """

    def __init__(self) -> None:
        super().__init__()
        self.uses: dict[Any, frozenset[str]] = {}
        self._frames: list[tuple[Any, set[str] | None]] = []

    def _miss(self, key: Any) -> None:
        outer = _USED.get()
        frame: set[str] = set()
        self._frames.append((key, outer))
        _USED.set(frame)

    def _hit(self, key: Any) -> None:
        for decl_id in self.uses.get(key, ()):
            note(decl_id)

    def __contains__(self, key: object) -> bool:
        present = dict.__contains__(self, key)
        if present:
            self._hit(key)
        else:
            self._miss(key)
        return present

    def get(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            self._hit(key)
            return dict.__getitem__(self, key)
        self._miss(key)
        return default

    def __setitem__(self, key: Any, value: Any) -> None:
        used: set[str] = set()
        if any(k == key for k, _ in self._frames):  # a value stored without a miss opens no frame
            while self._frames:  # frames left open by an error inside are closed with this one
                frame_key, outer = self._frames.pop()
                current = _USED.get()
                if current is not None:
                    used |= current
                _USED.set(outer)
                if frame_key == key:
                    break
        self.uses[key] = frozenset(used)
        for decl_id in used:
            note(decl_id)
        dict.__setitem__(self, key, value)

    def clear(self) -> None:
        self.uses.clear()
        dict.clear(self)
