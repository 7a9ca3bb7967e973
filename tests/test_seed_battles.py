"""Battle-level worked examples of the bundled seed rulesets: their battles play as the
documents say (scoring and victory, turn by turn)."""
from __future__ import annotations

from pathlib import Path

import pytest

import compiler
from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.model.ruleset import Ruleset

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nuceria() -> Ruleset:
    return compiler.compile_paths([ROOT / "rules" / "nuceria-rts"]).rulesets[0]


def test_a_nuceria_game_ends_on_the_turn_a_side_reaches_ten_points(nuceria: Ruleset) -> None:
    """First to 10 wins at once: the battle stops at the scoring moment a side's total reaches 10,
    that side wins, and until then nobody had 10 (no invented limit of activations decides it)."""
    rules = Rules(nuceria)
    reached = 0
    for seed in range(12):
        battle = Battle(rules, nuceria.get("line_skirmish"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
        outcome = battle.run()
        scores = [e for e in battle.events if e["event"] == "score"]
        totals: dict[str, float] = {}
        over_at = None
        for n, e in enumerate(scores):
            totals[e["to"]] = e["total"]
            if over_at is None and max(totals.values()) >= 10:
                over_at = n
        end = battle.events[-1]
        assert end["event"] == "end"
        if outcome.reason == "first_to_ten":
            reached += 1
            assert over_at is not None
            last = scores[over_at]
            # the battle ended in the very turn the 10th point came, and the side at 10 won
            assert outcome.turns == last["turn"] and end["turn"] == last["turn"]
            assert end["winner"] == max(totals, key=lambda s: totals[s]) and max(totals.values()) >= 10
            assert all(e["turn"] <= last["turn"] for e in battle.events)
        else:
            assert outcome.reason == "wiped_out" and over_at is None
            assert max(outcome.scores) < 10
    assert reached >= 3  # the points, not the clock, decide many of them
