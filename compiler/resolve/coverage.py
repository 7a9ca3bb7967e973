"""Executable coverage: which declarations drive the resolver, and which examples exercise each.

*Executable* declarations are the ones the resolver runs: tests, tables, formulas, modifiers,
attacks and abilities.  One is *exercised* by an example (or a property, or a claim) when
working that example out used it — a call of the test, table, formula or attack, or a
modifier or ability that changed a number — as recorded by :mod:`compiler.trace` while the
example runs (with a memo that remembers what each of its entries used, so an example that
reuses what an earlier one worked out is credited with it too).

A rule *runs in the resolver* when an executable declaration it holds or links (or a custom die
it holds) was exercised by an example, or a note it holds is pinned by one.  It *runs in battle*
when something it holds or links was used while its scenarios were played — the ids a caller
passes as ``battle`` (:func:`compiler.battle.ran_in_battle` finds them: the scenario, its game,
the phases, actions, orders, attacks, tests and scores the games used, and the statuses whose
effect was applied — one the games only set is not among them).  Either way it counts as
*driving*.  A rule that holds or links such declarations but none of them ran *only links*: it
should say why nothing plays it, with a ``prose only "reason": …`` note, like any other rule
that runs nothing; one that does not is *unmarked* (an only-linking one is listed apart).  An
ability with neither hooks nor effects (a name the army lists give a meaning to) is prose only
as well.

>>> from compiler.driver import compile_text
>>> rs = compile_text('ruleset d "D":\\n  version 1.0.0\\nstat BS "BS" 1..10: "Aim."\\n'
...                   'test hit(BS) "Hit" = roll d6 <= BS\\ntest dodge(BS) "Dodge" = roll d6 > BS\\n'
...                   'rule charge "Charge": "Run at them."\\n'
...                   'example e "E":\\n  expect P(hit(3)) = 1/2\\n').rulesets[0]
>>> c = coverage(rs)
>>> c.pinned["hit"], c.unexercised, c.unmarked
(('e',), ('dodge',), ('charge',))

A rule linking a test no example and no battle uses only links; it does not drive anything:

>>> rs = compile_text('ruleset d "D":\\n  version 1.0.0\\nstat BS "BS" 1..10: "Aim."\\n'
...                   'test dodge(BS) "Dodge" = roll d6 > BS\\n'
...                   'rule duck "Duck": "Roll [[dodge]] to duck."\\n').rulesets[0]
>>> c = coverage(rs)
>>> c.driving, c.links_only, c.unmarked
((), ('duck',), ('duck',))
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from compiler import ast as A
from compiler.model.ruleset import Ruleset, kind_of
from compiler.resolve.claims import run_claim
from compiler.resolve.expect import Result
from compiler.resolve.runner import run_example, run_property
from compiler.syntax.prose import PROSE_REF
from compiler.trace import recording

#: What the resolver runs, in the order coverage tables list them.
EXECUTABLE: tuple[type[A.Decl], ...] = (A.Table, A.Test, A.Formula, A.Modifier, A.Attack, A.Ability)
INERT_ABILITY_REASON = "an ability with no hooks and no effects: nothing for the resolver to run"


@dataclass(frozen=True)
class Coverage:
    """One ruleset's executable coverage."""

    ruleset: str
    executable: tuple[tuple[str, str], ...]  # (id, kind) in document order
    pinned: Mapping[str, tuple[str, ...]]  # executable id -> ids of the examples that exercise it
    examples: tuple[Result, ...]  # every example, property and claim, as run
    driving: tuple[str, ...]  # rules that ran: in the resolver, in battle or both
    prose_only: tuple[tuple[str, str, str], ...]  # (id, kind, reason): marked rules and inert abilities
    unmarked: tuple[str, ...] = ()  # rules that run nothing and do not say why
    in_battle: tuple[str, ...] = ()  # driving rules something of which ran in battle
    links_only: tuple[str, ...] = ()  # rules that hold or link executable or battle declarations, none of which ran
    not_played: tuple[tuple[str, str], ...] = ()  # (scenario id, located reason): scenarios the engine could not play

    @property
    def resolver_only(self) -> tuple[str, ...]:
        """The driving rules that run in the resolver but not in battle."""
        battle = set(self.in_battle)
        return tuple(r for r in self.driving if r not in battle)

    @property
    def exercised(self) -> tuple[str, ...]:
        return tuple(i for i, _ in self.executable if self.pinned.get(i))

    @property
    def unexercised(self) -> tuple[str, ...]:
        return tuple(i for i, _ in self.executable if not self.pinned.get(i))

    def by_kind(self) -> dict[str, tuple[int, int]]:
        """For each kind: (exercised, executable)."""
        out: dict[str, tuple[int, int]] = {}
        for i, kind in self.executable:
            done, total = out.get(kind, (0, 0))
            out[kind] = (done + (1 if self.pinned.get(i) else 0), total + 1)
        return out


def _executable(d: A.Decl) -> bool:
    if isinstance(d, A.Ability):
        return bool(d.hooks or d.effects)
    return isinstance(d, EXECUTABLE) and bool(d.id)


def _run_one(model: Ruleset, d: A.Decl) -> Result:
    if isinstance(d, A.Claim):
        return run_claim(model, d)
    if isinstance(d, A.Property):
        return run_property(model, d)
    assert isinstance(d, A.Example)
    return run_example(model, d)


def exercised_by(model: Ruleset) -> tuple[dict[str, tuple[str, ...]], tuple[Result, ...]]:
    """For each declaration id, the examples (properties, claims) that used it; and their results.

    Memoised per ruleset: the site's rule pages and ``warscribe test --coverage`` share it.
    """
    cached = model.__dict__.get("_exercised_by")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    found: dict[str, list[str]] = {}
    results: list[Result] = []
    judged: dict[Any, Any] = {}
    for d in model.walk():
        if not isinstance(d, (A.Example, A.Property)):
            continue
        judged.update(model.__dict__.pop("_claim_judgements", {}))  # a claim judged already would use nothing
        with recording() as used:
            results.append(_run_one(model, d))
        for decl_id in used:
            found.setdefault(decl_id, []).append(d.id)
    judged.update(model.__dict__.get("_claim_judgements", {}))
    model.__dict__["_claim_judgements"] = judged  # each judged once: the site's pages read them again
    out = ({k: tuple(v) for k, v in found.items()}, tuple(results))
    model.__dict__["_exercised_by"] = out
    return out


def results_so_far(model: Ruleset) -> tuple[Result, ...]:
    """The results of the examples, properties and claims if :func:`exercised_by` ran them
    already for ``model`` (else none): recording what a run uses changes none of its answers."""
    cached = model.__dict__.get("_exercised_by")
    return cached[1] if cached is not None else ()


def _links(items: tuple[A.Decl, ...]) -> Iterator[str]:
    for d in items:
        if isinstance(d, A.ProseBlock):
            yield from (m.group(1).strip() for m in PROSE_REF.finditer(d.text))


def _nested(items: tuple[A.Decl, ...]) -> Iterator[A.Decl]:
    for d in items:
        yield d
        if isinstance(d, (A.Section, A.Rule)):
            yield from _nested(d.body)


def played(model: Ruleset) -> set[str]:
    """The ids the battle engine may execute: every scenario, each game a scenario plays, the
    phases of those games, and their actions, orders, scores and victory conditions, the statuses
    they set or clear and the counters they keep."""
    scenarios = model.of_type(A.Scenario)
    games = {s.game for s in scenarios if s.game}
    out = {s.id for s in scenarios if s.id}
    for game in model.of_type(A.Game):
        if game.id in games or (scenarios and not games):
            out.add(game.id)
            out.update(ph.id for ph in game.phases)
            out.update(a.id for ph in game.phases for a in ph.actions)
            out.update(o.id for ph in game.phases for o in ph.orders)
            out.update(sc.id for sc in game.scores)
            out.update(v.id for v in game.victories)
            if game.rest_by:
                out.add(game.rest_by)  # the ability whose value the engine reads: how long a weapon rests
            out.update(_statuses_of(game))
    return out


def _statuses_of(game: A.Game) -> Iterator[str]:
    """The statuses and counters a game sets, clears or keeps (``sets pinned``, ``counter s_points``)."""
    effects = [e for ph in game.phases for a in ph.actions for e in a.effects]
    effects += [e for r in game.reactions for e in r.effects]
    for end in game.at_end:
        effects += ([end.failing] if end.failing is not None else []) + list(end.effects)
        effects += [e for _, case in end.cases for e in case]
    yield from (e.name for e in effects if e.kind in ("sets", "clears", "engage", "lowers") and e.name)
    yield from (c.situation for c in game.counters)
    if game.activation_dice is not None:
        yield from (status for _, status in game.activation_dice.fewer)


def coverage(model: Ruleset, battle: frozenset[str] | set[str] = frozenset(),
             not_played: tuple[tuple[str, str], ...] = ()) -> Coverage:
    """Run every example of a ruleset, recording what each one exercises; classify its rules.

    ``battle``: the ids its battles used (:func:`compiler.battle.ran_in_battle`); none by default.
    ``not_played``: the scenarios whose battles could not be played, each with its located reason
    (:func:`compiler.battle.ran.not_played`), kept so that what they would have used is not taken
    for rules nothing plays.
    """
    pinned, results = exercised_by(model)
    executable = tuple((d.id, kind_of(d)) for d in model.walk() if _executable(d))
    runnable = {i for i, _ in executable}
    playable = played(model)
    exercised_ids = {d.id for d in model.walk() if isinstance(d, (A.Example, A.Property))}
    ran = {i for i in runnable if pinned.get(i)}
    driving: list[str] = []
    in_battle: list[str] = []
    links_only: list[str] = []
    unmarked: list[str] = []
    prose_only: list[tuple[str, str, str]] = [(a.id, "ability", INERT_ABILITY_REASON)
                                              for a in model.of_type(A.Ability) if not _executable(a)]
    for rule in model.of_type(A.Rule):
        held = [d for d in _nested(rule.body) if d.id and (_executable(d) or isinstance(d, A.Die)
                                                            or isinstance(d, (A.Game, A.Scenario)))]
        ids = {d.id for d in held} | {n for n in _links(rule.body) if n in runnable or n in playable}
        ids |= {ph.id for d in held if isinstance(d, A.Game) for ph in d.phases}
        pinned_note = any(isinstance(d, A.Note) and any(e in exercised_ids for e, _ in d.pinned_by)
                          for d in _nested(rule.body))
        dice = any(isinstance(d, A.Die) for d in held)  # custom dice are not traced: held counts as run
        resolver = bool(ids & ran) or pinned_note or dice
        in_play = bool(ids & battle)
        reasons = [n.title for n in rule.body if isinstance(n, A.Note) and n.kind == "prose only"]
        if resolver or in_play:
            driving.append(rule.id)
            if in_play:
                in_battle.append(rule.id)
            continue
        if ids:
            links_only.append(rule.id)
        if reasons:
            prose_only.append((rule.id, "rule", "; ".join(reasons)))
        else:
            unmarked.append(rule.id)
    return Coverage(model.id, executable, {i: pinned[i] for i in runnable if i in pinned}, results,
                    tuple(driving), tuple(prose_only), tuple(unmarked), tuple(in_battle), tuple(links_only),
                    not_played)


def pins(model: Ruleset) -> dict[str, tuple[str, ...]]:
    """For each executable declaration and each rule, the examples that exercise it, in document
    order: a rule's are those of the executable declarations it holds or links to."""
    exercised, _ = exercised_by(model)
    order = {d.id: n for n, d in enumerate(model.walk())}
    out = {d.id: exercised.get(d.id, ()) for d in model.walk() if _executable(d)}
    for rule in model.of_type(A.Rule):
        ids = {d.id for d in _nested(rule.body) if _executable(d)}
        ids |= {n for n in _links(rule.body) if n in out}
        found = {e for i in ids for e in out.get(i, ())}
        out[rule.id] = tuple(sorted(found, key=lambda e: order.get(e, 0)))
    return out
