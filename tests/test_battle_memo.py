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


def test_a_numbered_key_is_looked_up_once_and_its_number_never_given_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.battle.memo import Numbered
    ids: Numbered[tuple[object, ...]] = Numbered()
    assert [ids.number(k) for k in (("ogre", 2, (3.5, 4.0)), ("ogre", 2, (3.5, 4.5)), ("ogre", 2, (3.5, 4.0)))] == [0, 1, 0]
    assert hash(-1) == hash(-2) and ids.number((-1,)) != ids.number((-2,))  # one hash, two keys: two numbers
    assert ids.number((-1,)) == 2 and len(ids) == 4 and not hasattr(ids, "__dict__")
    monkeypatch.setattr(memo, "LIMIT", 4)
    assert ids.number(("new",)) == 4  # full at 4: it started again, and the numbers go on
    assert ids.number(("ogre", 2, (3.5, 4.0))) == 5 and dict(ids) == {("new",): 4, ("ogre", 2, (3.5, 4.0)): 5}


def test_a_group_of_keys_is_kept_until_its_trial_shows_they_seldom_recur(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.battle.memo import Recurring
    monkeypatch.setattr(memo, "TRIAL", 10)
    monkeypatch.setattr(memo, "RECUR", 0.2)
    r = Recurring()
    assert r.worth("fire") and [r.found("fire", k == 0) for k in range(10)] == [True] * 9 + [False]
    assert not r.worth("fire") and r.worth("move")  # 1 found of 10 looked up: below a fifth; another group kept
    assert [r.found("move", k % 5 == 0) for k in range(10)][-1] and r.worth("move")  # 2 of 10: a fifth, kept
    assert not r.found("move", False) and not r.worth("move")  # 2 of 11: below
    assert not hasattr(r, "__dict__")


def test_with_no_trial_no_group_is_kept_and_with_one_look_up_the_first_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """TRIAL 0 keeps no group, even one never looked up (what a test sets to play with no key);
    TRIAL 1 keeps a new group and judges it on its first look-up."""
    from compiler.battle.memo import Recurring
    monkeypatch.setattr(memo, "TRIAL", 0)
    assert not Recurring().worth("fire")
    monkeypatch.setattr(memo, "TRIAL", 1)
    r = Recurring()
    assert r.worth("fire") and not r.found("fire", False) and r.found("move", True) and r.groups == {"fire": [1, 0], "move": [1, 1]}


def test_keys_numbered_at_once_on_several_threads_never_share_a_number() -> None:
    """A dask worker plays chunks on several threads, which share a scenario's memos: two keys
    numbered at the same moment must get two numbers (one shared would give one state the
    other's kept answers).  The keys here hand the thread over while they are hashed, in the
    middle of their numbering."""
    import threading
    import time

    from compiler.battle.memo import Numbered

    class Yielding(tuple):  # type: ignore[type-arg]
        def __hash__(self) -> int:
            time.sleep(0)  # another thread runs now
            return tuple.__hash__(self)
    ids: Numbered[tuple[int, int]] = Numbered()
    got: list[list[int]] = [[] for _ in range(4)]
    start = threading.Barrier(4)

    def run(t: int) -> None:
        start.wait()
        got[t].extend(ids.number(Yielding((t, k))) for k in range(300))
    threads = [threading.Thread(target=run, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    numbers = [n for row in got for n in row]
    assert len(numbers) == 1_200 and len(set(numbers)) == 1_200
    assert all(ids[Yielding((t, k))] == got[t][k] for t in range(4) for k in range(0, 300, 7))
