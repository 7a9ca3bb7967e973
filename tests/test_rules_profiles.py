"""The bundled rulesets answer from the profiles alone.

Each case is a question a reader would ask with nothing set but what a profile
cannot know (cover, being locked in combat), and the exact answer worked out by
hand from the dice. They go through the command line (`warscribe eval --json`), as
a reader would ask them, so they do not depend on how the compiler package is laid
out inside; the command runs in this process (the console script as a process of
its own is proved in test_console_script.py and test_cli_resolver.py).
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import warscribe

RULES = Path(__file__).resolve().parent.parent / "rules"

CASES = [
    # A frag missile carries `blast`: hard cover gives +2 T. BS 4 - 2 hits on
    # 5+ (1/3), S 4 against T 3 + 2 wounds on 5+ (1/3).
    ("dark-millennia", "shooting(1 space_marine, frag_missile, 10 guardsman).wounds", ["target_cover = hard"], "1/9"),
    # A Carnifex carries `monstrous_creature`: hard cover counts as soft, so
    # BS 4 - 1 hits on 4+: 15 shots x 1/2.
    ("dark-millennia", "shooting(5 space_marine, heavy_bolter, 1 carnifex).hits", ["target_cover = hard"], "15/2"),
    # Rough Riders carry `mounted`: +1 BS, BS 4 hits on 3+: 10 x 2/3.
    ("dark-millennia", "shooting(10 guardsman, lasgun, 10 rough_rider).hits", [], "20/3"),
    # A locked squad fires nothing.
    ("console-40k", "shooting(5 space_marine, boltgun, 10 ork_boy).killed", ["locked"], "0"),
    # Not locked, the same squad kills 5 x 2/3 x 1/2 x 5/6 = 25/18.
    ("console-40k", "shooting(5 space_marine, boltgun, 10 ork_boy).killed", [], "25/18"),
    # A combat blade has the Extra rule: the charge bonus does not reach it.
    ("40k-s", "melee(5 armoured_trooper, combat_blade, 10 line_trooper).attacks", ["order = charge", "moved_into_combat"], "5"),
    ("40k-s", "melee(5 armoured_trooper, armoured_fists, 10 line_trooper).attacks", ["order = charge", "moved_into_combat"], "10"),
    # Gemini-ARAP: a squad shoots a squad. BS 3 hits on 3 or less (1/2), S 3
    # against T 3 wounds on 4+ (1/2), the 5+ armour fails 2/3: 10 x 1/6.
    ("gemini-arap", "volley(10 trooper, rifle, 10 trooper).killed", [], "5/3"),
    # A laser ignores the fast-target penalty read from the weapon's keyword.
    ("gemini-arap", "volley(10 trooper, laser_rifle, 10 trooper).hits", ["target_moved = 25"], "5"),
    ("gemini-arap", "volley(10 trooper, rifle, 10 trooper).hits", ["target_moved = 25"], "5/3"),
]


def _mean(ruleset: str, expression: str, situations: list[str]) -> Fraction:
    args = ["eval", str(RULES / ruleset), expression, "--json"]
    for situation in situations:
        args += ["--with", situation]
    out = warscribe(*args)
    assert out.returncode == 0, out
    return Fraction(json.loads(out.stdout)["mean"])


@pytest.mark.parametrize(("ruleset", "expression", "situations", "expected"), CASES)
def test_profiles_alone_give_the_answer(ruleset: str, expression: str, situations: list[str], expected: str) -> None:
    assert _mean(ruleset, expression, situations) == Fraction(expected)


@pytest.mark.parametrize(
    ("ruleset", "name"),
    [("dark-millennia", "target_kind"), ("dark-millennia", "blast_shot"), ("40k-s", "extra_profile"), ("gemini-arap", "laser_fire")],
)
def test_situations_that_profiles_answer_are_gone(ruleset: str, name: str) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in (RULES / ruleset).glob("*.rules"))
    assert f"situation {name} " not in text
