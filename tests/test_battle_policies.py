"""The policies, each answering choices directly: the greedy pick (first of equals, no estimate
asked of a choice of one), a script's answers and its errors, a person's answers read and asked
again, whole numbers read strictly, random picks from a stream of their own."""
from __future__ import annotations

import random

import pytest

from compiler.battle.policies import (POLICIES, Choice, GreedyPolicy, HumanPolicy, Option, RandomPolicy, ScriptedPolicy,
                                      ScriptError, whole_number)


def choice(n: int, values: list[float] | None = None) -> Choice:
    return Choice("target", 1, "Orks", "Shoot which unit?", tuple(Option(f"Unit {i}", i) for i in range(n)),
                  None if values is None else (lambda: values))


def test_greedy_takes_the_highest_estimate_and_the_first_of_equals() -> None:
    g = GreedyPolicy()
    assert g.choose(choice(3, [0.5, 2.0, 1.0])) == 1
    assert g.choose(choice(3, [2.0, 0.5, 2.0])) == 0
    assert g.choose(choice(3, [-1.0, -0.5, -2.0])) == 1
    assert g.choose(choice(3)) == 0  # no estimates: the first
    one = choice(1, [])
    assert g.choose(one) == 0  # a choice of one option asks no estimate (an empty list would fail)


def test_a_script_answers_in_order_then_hands_over_or_says_it_ran_out() -> None:
    s = ScriptedPolicy([2, 0])
    assert (s.choose(choice(3)), s.choose(choice(3)), s.position) == (2, 0, 2)
    with pytest.raises(ScriptError, match="the script has no answer left for: Shoot which unit"):
        s.choose(choice(3))
    then = ScriptedPolicy([1], after=GreedyPolicy())
    assert [then.choose(choice(2, [0.0, 5.0])), then.choose(choice(2, [5.0, 0.0]))] == [1, 0]
    for bad in (3, -1):
        with pytest.raises(ScriptError, match=rf"scripted answer {bad} is not an option of: Shoot which unit\? \(0 to 2\)"):
            ScriptedPolicy([bad]).choose(choice(3))
    assert ScriptedPolicy([0]).choose(choice(1)) == 0


def test_a_person_is_shown_the_options_and_asked_until_an_answer_fits() -> None:
    said: list[str] = []
    asked: list[str] = []
    answers = iter(["0", "4", "x", "1", " 3 "])

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)
    human = HumanPolicy(ask, said.append)
    assert human.choose(choice(3)) == 0  # "1": the first option
    assert said[:4] == ["Orks: Shoot which unit?", "  1. Unit 0", "  2. Unit 1", "  3. Unit 2"]
    assert said[4:] == ["Please enter a number from 1 to 3, or q to quit."] * 3 and asked == ["Choose 1-3 (q quits)"] * 4
    assert human.choose(choice(3)) == 2  # " 3 ": the last
    quiet: list[str] = []
    assert HumanPolicy(ask, quiet.append).choose(choice(1)) == 0 and quiet == []  # nothing to ask


def test_whole_numbers_are_read_strictly() -> None:
    assert [whole_number(t) for t in ("0", "12", "123456789")] == [0, 12, 123456789]
    assert [whole_number(t) for t in ("1234567890", "-1", "1.5", "²", "", " 1")] == [None] * 6
    assert whole_number("1234567890", digits=10) == 1234567890


def test_random_picks_come_from_the_policys_own_seeded_stream() -> None:
    picks = [RandomPolicy(7).choose(choice(5)) for _ in range(3)]
    stream = random.Random(7)
    assert picks == [stream.randrange(5)] * 3
    p = RandomPolicy(7)
    many = [p.choose(choice(4)) for _ in range(200)]
    assert set(many) == {0, 1, 2, 3}
    assert isinstance(POLICIES["greedy"](3), GreedyPolicy)
    named = POLICIES["random"](7)
    assert [named.choose(choice(4)) for _ in range(200)] == many
