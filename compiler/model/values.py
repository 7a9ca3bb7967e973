"""Plain values of the language that are not random: targets, profiles, groups.

A *target* is what a roll needs: ``4+`` (a high roll: 4 or more), ``3-`` (a low
roll: 3 or less), ``never``, ``always`` or a chain ``6 then 4+`` (a 6 on one
die, then 4+ on another).  In arithmetic a target stands for its number, so
``Sv + AP`` with ``Sv = 3+`` and ``AP = 1`` is 4.

>>> TargetValue.high(4), TargetValue.low(3), TargetValue.chain(TargetValue.exactly(6), TargetValue.high(4))
(4+, 3-, 6 then 4+)
>>> TargetValue.high(4).probability(6)
Fraction(1, 2)
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True, order=True)
class TargetValue:
    """What a single roll needs.  ``kind``: high, low, exactly, never, always, chain."""

    kind: str
    number: int | None = None
    first: "TargetValue | None" = None
    second: "TargetValue | None" = None

    @classmethod
    def high(cls, n: int) -> "TargetValue":
        return cls("high", n)

    @classmethod
    def low(cls, n: int) -> "TargetValue":
        return cls("low", n)

    @classmethod
    def exactly(cls, n: int) -> "TargetValue":
        return cls("exactly", n)

    @classmethod
    def never(cls) -> "TargetValue":
        return cls("never")

    @classmethod
    def always(cls) -> "TargetValue":
        return cls("always")

    @classmethod
    def chain(cls, first: "TargetValue", second: "TargetValue") -> "TargetValue":
        return cls("chain", None, first, second)

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        if self.kind == "high":
            return f"{self.number}+"
        if self.kind == "low":
            return f"{self.number}-"
        if self.kind == "exactly":
            return f"{self.number}"
        if self.kind == "chain":
            return f"{self.first} then {self.second}"
        return self.kind

    def words(self) -> str:
        """The target in words for a reader: ``4+`` → "4 or more"."""
        if self.kind == "high":
            return f"{self.number}+"
        if self.kind == "low":
            return f"{self.number} or less"
        if self.kind == "exactly":
            return f"exactly {self.number}"
        if self.kind == "chain":
            assert self.first is not None and self.second is not None
            return f"{self.first.words()}, then {self.second.words()}"
        return self.kind

    def passes(self, face: int) -> bool:
        """Does one die showing ``face`` meet this (non-chained) target?"""
        if self.kind == "high":
            assert self.number is not None
            return face >= self.number
        if self.kind == "low":
            assert self.number is not None
            return face <= self.number
        if self.kind == "exactly":
            return face == self.number
        if self.kind == "always":
            return True
        if self.kind == "never":
            return False
        raise ValueError("a chained target needs two dice")

    def probability(self, sides: int = 6) -> Fraction:
        """The chance that fair ``sides``-sided dice meet this target, natural rolls only."""
        if self.kind == "chain":
            assert self.first is not None and self.second is not None
            return self.first.probability(sides) * self.second.probability(sides)
        hits = sum(1 for f in range(1, sides + 1) if self.passes(f))
        return Fraction(hits, sides)

    @property
    def as_number(self) -> int | None:
        return self.number if self.kind in ("high", "low", "exactly") else None


@dataclass(frozen=True, slots=True)
class ProfileRef:
    """A unit or weapon profile used as a value (``boltgun``), with a model count and the wounds
    already taken by its damaged model (a battle's unit that a volley left wounded: the next
    damage goes to that model first)."""

    id: str
    models: int = 1
    damaged: int = 0

    def __str__(self) -> str:
        text = f"{self.models} {self.id}" if self.models != 1 else self.id
        return f"{text} ({self.damaged} wounds on one)" if self.damaged else text
