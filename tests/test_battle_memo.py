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
