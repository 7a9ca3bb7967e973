"""W864 on `turns` points at the number, in a game as in a scenario, not at the declaration's
first line."""
from __future__ import annotations

import pytest
from test_new_user_mistakes import SKIRMISH

from compiler.driver import compile_text


@pytest.mark.parametrize("game_turns, scenario_turns, number", [(0, None, "0"), (3, 1001, "1001"),
                                                                 (99999999999999, None, "99999999999999")])
def test_w864_on_turns_points_at_the_number(game_turns: int, scenario_turns: int | None, number: str) -> None:
    text = SKIRMISH.format(activation="alternating_units").replace("  turns 3", f"  turns {game_turns}")
    if scenario_turns is not None:
        text = text.replace('  distance 18"\n', f'  distance 18"\n  turns {scenario_turns}\n')
    errors = [d for d in compile_text(text, "alt.rules").diagnostics if d.code == "W864"]
    assert len(errors) == 1, [d.message for d in errors]
    span = errors[0].span
    line = text.splitlines()[span.line - 1]
    assert line.strip() == f"turns {number}"
    assert (span.end_line, line[span.column - 1:span.end_column - 1]) == (span.line, number)
