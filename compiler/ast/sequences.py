"""Modifiers, abilities with their hooks on steps, and attack sequences with their steps.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from compiler.ast.common import Decl, Let, Param, Prose
from compiler.ast.expr import Call, Each, Expr, IfElse, Name
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class Effect:
    """What a modifier or ability does.

    kind: "roll" (+1 to hit), "stat" (-1 BS of shooter), "needs" (hit needs 5+),
    "reroll" (reroll 1s to hit), "never_better" / "never_worse" (save never better than 4+),
    "ignore_modifiers" (ignore modifiers to hit), "better" / "worse" (Sv of target better by 1: a
    target value made easier or harder whatever way it is rolled), "natural_succeeds" (put on an
    attack by a hook that ``succeeds``).
    """

    span: Span
    kind: str
    value: Expr | None = None
    test: str | None = None  # the test it affects (roll, needs, reroll)
    stat: str | None = None  # the stat it affects
    role: str | None = None  # whose stat: a parameter name such as "target"
    reroll: str | None = None


@dataclass(frozen=True, slots=True)
class Modifier(Decl):
    """A named modifier: what it changes, when, and its stacking group."""

    title: str
    effects: tuple[Effect, ...]
    when: Expr | None = None
    group: str | None = None
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class HookEffect:
    """What a hook does to the one attack whose roll triggered it: extra hits, an automatic
    pass or fail of a later test, a modifier on its later steps (``+1 D``, ``-1 AP``,
    ``reroll failures to save``), or mortal wounds (later tests skipped)."""

    span: Span
    kind: str  # "extra", "pass", "fail", "modify", "mortal", "succeed"
    test: str | None = None
    amount: Expr | None = None
    word: str | None = None  # "hits" in "N extra hits"
    effect: Effect | None = None  # for "modify": the modifier, on this attack's later steps only
    spill: bool = False  # for "mortal": damage beyond a model's last wound goes on to the next


@dataclass(frozen=True, slots=True)
class Hook:
    """``on natural 6 to hit: 1 extra hits``; ``on each damage: ignored on 5+``."""

    span: Span
    test: str | None  # None for damage hooks
    natural: int | None
    natural_from: bool  # ``natural 5+`` (True) or exactly ``natural 6`` (False)
    effects: tuple[HookEffect, ...] = ()
    ignore_damage_on: Expr | None = None
    damage_die: Expr | None = None  # the die of ``on each damage: roll d6, ignored on 5+``
    natural_param: str | None = None  # ``natural X+``: the face is the ability's value X

    def face(self, value: int | None) -> int | None:
        """The natural face the hook triggers on, with the ability's value for ``natural X+``."""
        return value if self.natural_param is not None else self.natural


@dataclass(frozen=True, slots=True)
class Ability(Decl):
    """A unit or weapon ability: hooks on steps, effects, conditions."""

    params: tuple[Param, ...]
    title: str
    short: str | None
    hooks: tuple[Hook, ...] = ()
    effects: tuple[Effect, ...] = ()
    when: Expr | None = None
    stacking: str | None = None
    prose: tuple[Prose, ...] = ()
    aka: tuple[str, ...] = ()
    see: tuple[tuple[str, Span], ...] = ()
    defence: tuple[Effect, ...] = ()  # ``when attacked: -1 to hit``: for attacks against the carrier
    role: str | None = None  # ``role wounds``: the ability's value is the stat the engine needs
    role_default: int | None = None  # ``role wounds, 1 without it``: a profile without the ability
    role_span: Span | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One step of an attack sequence: ``hits = shots each hit(shooter)``, or a removal of models."""

    span: Span
    name: str
    value: Expr | None  # for ordinary steps
    removes_from: str | None = None  # for ``killed = unsaved removes target, damage weapon.D``
    removes_target: Expr | None = None
    damage: Expr | None = None


@dataclass(frozen=True, slots=True)
class Attack(Decl):
    """An attack sequence: its parameters and steps."""

    params: tuple[Param, ...]
    title: str | None
    steps: tuple[Step, ...]
    lets: tuple[Let, ...] = ()
    prose: tuple[Prose, ...] = ()

    def defender(self) -> str | None:
        """The parameter attacked: the one a removal takes models off, else the last."""
        for step in self.steps:
            if step.removes_from is not None and isinstance(step.removes_target, Name):
                return step.removes_target.id
        return self.params[-1].name if self.params else None

    def counted_chain(self, tests: Collection[str]) -> tuple[str, ...]:
        """The steps the attack counts on its way to its last removal, from the removal back: each
        passes the dice of the one before through one of ``tests`` (``hits = shots each hit(…)``),
        and the last named counts the first dice.  A volley can be drawn with any of these counts."""
        by_name = {s.name: s for s in self.steps}
        removal = [s for s in self.steps if s.removes_from is not None]
        out: list[str] = []
        name = removal[-1].removes_from if removal else None
        while name is not None and name in by_name and name not in out:
            out.append(name)
            value = by_name[name].value
            if not isinstance(value, Each) or not isinstance(value.count, Name) or value.becomes \
                    or value.cap is not None or not isinstance(value.item, Call) or value.item.func not in tests:
                break
            name = value.count.id
        return tuple(out)

    def uncounted(self, step: str, tests: Collection[str],
                  hooks: Collection[Hook]) -> tuple[str, Hook | None] | None:
        """Why a volley of this attack cannot be drawn with the count of ``step``, and the hook to
        blame if one is (None when it can be drawn); ``hooks``: the hooks on tests of the abilities
        that may act for the attacking profiles.

        The step must lie on :meth:`counted_chain`.  Its count is drawn whatever made it (extra
        hits, ``each becomes``), and the count the removal takes from it, die by die along the
        chain: each of its dice must go on alone, with the same chance, so no hook may be on a
        test of the chain after it, and none on a test its dice passed may change them one by one
        (``+1 D``, ``mortal wounds``, an automatic pass or fail of a later test of the chain, extra
        dice that join a step after it)."""
        chain = self.counted_chain(tests)
        if step not in chain:
            return f"attack '{self.id}' does not count '{step}' on its way to the models removed", None
        by_name = {s.name: s for s in self.steps}
        order = [s.name for s in self.steps]
        onward = chain[:chain.index(step)]  # the chain's steps after ``step``, to the removal's count
        onward_tests: dict[str, str] = {}
        for name in onward:
            value = by_name[name].value
            assert isinstance(value, Each) and isinstance(value.item, Call)  # a step of the chain
            onward_tests.setdefault(value.item.func, name)
        value = by_name[step].value
        if onward and isinstance(value, (Each, IfElse)) and _follows(value, set(by_name) - {step}) is not None \
                and not (isinstance(value, Each) and (value.becomes or isinstance(value.item, Call)
                                                      and value.item.func in tests)):
            return f"its dice at '{step}' are not followed one by one toward the removal", None
        for test, name in onward_tests.items():
            on = next((h for h in hooks if h.test == test), None)
            if on is not None:
                return f"an ability acts on its test '{test}' (at '{name}')", on
        feeding = self._feeding(step, by_name)
        for name in feeding:
            value = by_name[name].value
            if not isinstance(value, Each) or not isinstance(value.item, Call) or value.item.func not in tests:
                continue
            later = set(order[order.index(name) + 1:]) - set(feeding)  # extra dice joining it come plain
            for hook in hooks:
                if hook.test == value.item.func and any(
                        e.kind in ("modify", "mortal") or e.kind == "extra" and e.word in later
                        or e.kind in ("pass", "fail") and e.test in onward_tests for e in hook.effects):
                    return (f"a hook on its test '{hook.test}' (at '{name}') changes the dice it passes one by "
                            + ("one, so that the models removed are not decided by their count" if not onward
                               else "one, so that they do not go on to the removal each with the same chance")), hook
        return None

    @staticmethod
    def _feeding(name: str, by_name: dict[str, Step]) -> list[str]:
        """The step ``name`` and the earlier steps whose dice it carries on."""
        out = [name]
        for current in out:
            for expr in _carried(by_name[current].value):
                earlier = _follows(expr, set(by_name))
                if earlier is not None and earlier not in out:
                    out.append(earlier)
        return out


def _carried(value: Expr | None) -> list[Expr]:
    """A step's value and, in an ``if``, each of its branches."""
    if isinstance(value, IfElse):
        return _carried(value.then) + _carried(value.otherwise)
    return [] if value is None else [value]


def _follows(value: Expr | None, steps: set[str]) -> str | None:
    """The earlier step whose dice a step's value carries on (``hits each becomes 2``, ``hits``, an
    amount ``hits each weapon.D``, either branch of an ``if``), if it carries any on."""
    if isinstance(value, IfElse):
        return _follows(value.then, steps) or _follows(value.otherwise, steps)
    if isinstance(value, Name) and value.id in steps:
        return value.id
    if isinstance(value, Each) and isinstance(value.count, Name) and value.count.id in steps:
        return value.count.id
    return None
