"""The engine's memos: each keeps what it is given, under its name, and starts again once full."""
from __future__ import annotations

import pytest

from compiler.battle import memo
from compiler.battle.memo import Memo


def test_a_memo_keeps_each_answer_and_starts_again_past_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "LIMIT", 3)
    seen: Memo[str, int] = Memo("volleys")
    assert [seen.keep(k, v) for k, v in (("a", 1), ("b", 2), ("c", 3))] == [1, 2, 3]
    assert dict(seen) == {"a": 1, "b": 2, "c": 3} and repr(seen) == "Memo('volleys', 3 entries)"
    assert seen.keep("d", 4) == 4
    assert dict(seen) == {"d": 4}  # full at 3: it started again
    seen.keep("d", 5)
    assert seen.get("d") == 5 and seen.name == "volleys" and not hasattr(seen, "__dict__")


def test_a_memo_keeps_500_000_entries_and_starts_again_at_the_next() -> None:
    """The documented bound, at exactly the bound: the 500,000th answer is kept with all the
    others, the 500,001st finds the memo full and starts it again."""
    seen: Memo[int, int] = Memo("picks")
    for k in range(500_000):
        seen.keep(k, k)
    assert len(seen) == 500_000 and seen[0] == 0 and seen[499_999] == 499_999
    assert seen.keep(-1, 7) == 7
    assert dict(seen) == {-1: 7}


def test_a_hashed_key_is_hashed_once_and_equal_only_to_an_equal_key() -> None:
    from compiler.battle.memo import Hashed

    class Counted(tuple):  # type: ignore[type-arg]
        calls = 0

        def __hash__(self) -> int:
            Counted.calls += 1
            return tuple.__hash__(self)
    key = Hashed(Counted(("ogre", 2, (3.5, 4.0))))
    seen: Memo[Hashed, int] = Memo("moves")
    seen.keep(key, 1)
    assert seen.get(key) == 1 and seen.get(Hashed(("ogre", 2, (3.5, 4.0)))) == 1  # an equal key built anew
    assert Counted.calls == 1  # worked out when made, never at a look-up
    assert hash(key) == hash(("ogre", 2, (3.5, 4.0))) and key != ("ogre", 2, (3.5, 4.0))
    assert seen.get(Hashed(("ogre", 2, (3.5, 4.5)))) is None
    assert hash(-1) == hash(-2) and Hashed(-1) != Hashed(-2)  # one hash, two keys: kept apart
    seen.keep(Hashed(-1), 7)
    assert seen.get(Hashed(-2)) is None and seen.get(Hashed(-1)) == 7
    assert not hasattr(key, "__dict__") and repr(Hashed(3)) == "Hashed(3)"
