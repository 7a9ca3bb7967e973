"""The reference's examples of abilities, hooks and attack sequences are real rules.

Each fenced ``warscribe`` block of the "Abilities" and "Attack sequences" sections of
``site/language.md`` is checked on top of a small prelude (the stats and tests the examples
name): it must parse and check without an error, so the reference cannot show a form the
language does not have.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.driver import compile_text

REFERENCE = Path(__file__).resolve().parent.parent / "site" / "language.md"

PRELUDE = '''ruleset ref "Reference":
  version 1.0.0

stat BS "Ballistic Skill" 1..6: "b"
stat S "Strength" 1..10: "s"
stat T "Toughness" 1..10: "t"
stat A "Attacks" 1..10: "a"
stat AP "AP" 0..6: "ap"
stat D "Damage" dice: "d"
stat Sv "Save" target: "sv"
stat W "Wounds" 1..10 role wounds: "w"

die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3

test hit(BS) = roll d6 >= BS
test wound(S, T) = roll d6 >= clamp(T - S + 4, 2, 6)
test save(Sv, AP) = roll d6 >= Sv + AP
'''


def sections(*titles: str) -> list[str]:
    text = REFERENCE.read_text(encoding="utf-8")
    blocks: list[str] = []
    for title in titles:
        start = text.index(f"\n## {title}\n")
        end = text.index("\n## ", start + 1)
        blocks += re.findall(r"```warscribe\n(.*?)```", text[start:end], re.S)
    return blocks


BLOCKS = sections("Abilities", "Attack sequences")


def test_the_sections_have_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("block", BLOCKS, ids=[b.split("\n")[0][:40] for b in BLOCKS])
def test_each_example_checks(block: str) -> None:
    result = compile_text(PRELUDE + "\n" + block)
    errors = [f"{d.code} {d.message}" for d in result.diagnostics if d.severity.name == "ERROR"]
    assert errors == []
