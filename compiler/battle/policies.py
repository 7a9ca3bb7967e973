"""Choice points and the policies that answer them.

The engine never decides for a player: every decision — which unit acts next, which action it
takes, how far it moves, which enemy it targets, whether it reacts — is a :class:`Choice` handed
to the side's :class:`Policy`, which returns the index of one option.

* :class:`RandomPolicy` — uniformly at random, from its own seeded stream (never the dice's);
* :class:`GreedyPolicy` — the option with the highest expected value, from the exact laws the
  resolver computes (the engine supplies the estimates; ties go to the first option): a move of
  0" is worth less than holding still, and holding a status for a reaction is worth the reaction's
  fire less the fire the status bars (:mod:`compiler.battle.estimates`);
* :class:`ScriptedPolicy` — answers given in advance (a scenario's script, a battle log being
  replayed, a test), then another policy when they run out;
* :class:`HumanPolicy` — a person at the terminal.

>>> c = Choice("target", 0, "Space Marines", "Shoot which unit?", (Option("Orks 1", 0), Option("Orks 2", 1)),
...            lambda: [0.5, 1.5])
>>> GreedyPolicy().choose(c), ScriptedPolicy([0]).choose(c)
(1, 0)
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence


@dataclass(frozen=True, slots=True)
class Option:
    """One answer to a choice: what the person reads and what the engine gets."""

    label: str
    value: Any


@dataclass(slots=True)
class Choice:
    """A decision one side must take; ``estimates`` gives each option's expected value."""

    kind: str  # "unit", "action", "move", "target", "react"
    side: int
    unit: str
    prompt: str
    options: tuple[Option, ...]
    estimates: Callable[[], Sequence[float]] | None = field(default=None, compare=False)


class Policy(Protocol):
    """Whatever answers choice points: returns the index of the chosen option."""

    def choose(self, choice: Choice) -> int: ...


class RandomPolicy:
    """Every option equally likely, drawn from the policy's own seeded stream."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, choice: Choice) -> int:
        return self.rng.randrange(len(choice.options))


class GreedyPolicy:
    """The option with the highest expected value; the first of equals."""

    def choose(self, choice: Choice) -> int:
        if choice.estimates is None or len(choice.options) == 1:
            return 0
        values = choice.estimates()
        return values.index(max(values))


class ScriptedPolicy:
    """Answers given in advance, in order; then ``after`` (an error without one)."""

    def __init__(self, answers: Sequence[int], after: Policy | None = None) -> None:
        self.answers = list(answers)
        self.position = 0
        self.after = after

    def choose(self, choice: Choice) -> int:
        if self.position < len(self.answers):
            answer = self.answers[self.position]
            self.position += 1
            if not 0 <= answer < len(choice.options):
                raise ScriptError(f"scripted answer {answer} is not an option of: {choice.prompt} "
                                  f"(0 to {len(choice.options) - 1})")
            return answer
        if self.after is None:
            raise ScriptError(f"the script has no answer left for: {choice.prompt}")
        return self.after.choose(choice)


class ScriptError(ValueError):
    """A scripted answer does not fit the choice it was given to."""


class Quit(Exception):
    """The person at the terminal answered ``q`` (or ``quit``): the battle stops there."""


#: The answers that leave a battle at any prompt.
QUIT_WORDS = ("q", "quit")


def wants_to_quit(answer: str) -> bool:
    """Is ``answer`` one of :data:`QUIT_WORDS` (any case, spaces around it)?

    >>> wants_to_quit(" Quit "), wants_to_quit("q"), wants_to_quit("1")
    (True, True, False)
    """
    return answer.strip().casefold() in QUIT_WORDS


class HumanPolicy:
    """A person at the terminal: the options are listed and a number is read; ``q`` or ``quit``
    raises :class:`Quit`."""

    def __init__(self, ask: Callable[[str], str], say: Callable[[str], None]) -> None:
        self.ask = ask
        self.say = say

    def choose(self, choice: Choice) -> int:
        if len(choice.options) == 1:
            return 0
        self.say(f"{choice.unit}: {choice.prompt}")
        for i, o in enumerate(choice.options, 1):
            self.say(f"  {i}. {o.label}")
        while True:
            answer = self.ask(f"Choose 1-{len(choice.options)} (q quits)").strip()
            if wants_to_quit(answer):
                raise Quit
            number = whole_number(answer)
            if number is not None and 1 <= number <= len(choice.options):
                return number - 1
            self.say(f"Please enter a number from 1 to {len(choice.options)}, or q to quit.")


def whole_number(text: str, digits: int = 9) -> int | None:
    """``text`` as a whole number when it is one of at most ``digits`` ASCII digits, else None
    (a 5,000-digit answer, or "²", which ``str.isdigit`` accepts and ``int`` refuses).

    >>> whole_number("12"), whole_number("9" * 5000), whole_number("²"), whole_number("-1")
    (12, None, None, None)
    """
    return int(text) if text.isascii() and text.isdigit() and len(text) <= digits else None


#: The policies ``--policy`` can name, each made from a per-game seed.
POLICIES: dict[str, Callable[[int], Policy]] = {
    "greedy": lambda seed: GreedyPolicy(),
    "random": lambda seed: RandomPolicy(seed),
}
