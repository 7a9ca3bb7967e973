"""The Battles page of a ruleset: each scenario, its simulated outcome, a sample battle report.

Everything on the page is computed at build time from the rules model by :mod:`compiler.battle`,
and reproducible: :data:`GAMES` games with the run seed :data:`SEED` (greedy policies on every
side), and the sample report is game 0 of that run, played again with its events kept.  A fixed
number of games (not a time limit) keeps the page byte-identical from build to build; results
are cached per process and in warscribe's cache folder, keyed by the declarations of the ruleset
and of its bases without their readers' text (titles, definitions, prose), so a rebuild that
changed none of them pays nothing.  Every rate is shown with its 95% interval and the number of games.  For an
overlay whose base has the same scenario, the change in each side's win rate is shown too.
"""
from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from functools import partial
from typing import Any, Mapping

from compiler import ast as A
from compiler.ast.cached import remembered
from compiler.battle import POLICIES, Battle, Rules, Tally, game_seed
from compiler.battle.ran import not_played
from compiler.battle.simulate import against, play_games
from compiler.battle.stats import wilson
from compiler.diagnostics import Span
from compiler.model.armies import listed_units
from compiler.model.ruleset import Ruleset
from compiler.site.balance import BalanceSetting, BalanceView, balance_view
from compiler.words import agree, plural

#: Games simulated per scenario for the page, and the run's seed.
GAMES = 400
#: The policy both sides play when the build affords no stronger one (and for the table's setting).
POLICY = "greedy"
#: CPU seconds a scenario's run may take on the page: each scenario is played by the strongest
#: player whose estimated work fits (:func:`compiler.battle.budget.strongest`), and the page names it.
#: Half a second keeps a first build of the bundled site from growing further (bench/README.md): the
#: bundled scenarios' searching players are estimated at 0.85 CPU s and more, so greedy plays them.
SITE_BUDGET = 0.5
SEED = 1

_CACHE: dict[tuple[str, str, str, str], Tally] = {}


@dataclass(frozen=True)
class Rate:
    """A rate with its interval and the games it comes from."""

    label: str
    count: int
    games: int
    rate: float
    low: float
    high: float


@dataclass(frozen=True)
class Change:
    """One side's win rate under the base and under the overlay, and the change with its interval."""

    label: str
    base: float
    overlay: float
    change: float
    low: float
    high: float

    @property
    def verdict(self) -> str:
        """How sure the change is: "more wins" or "fewer wins" when its 95% interval leaves out 0,
        else "no clear change"."""
        return "more wins" if self.low > 0 else "fewer wins" if self.high < 0 else "no clear change"


@dataclass(frozen=True)
class ReportTurn:
    """One player turn of the sample battle: whose it was and what happened (text, rule id or '')."""

    heading: str
    lines: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ScenarioView:
    scenario: A.Scenario
    sides: tuple[tuple[str, tuple[str, ...]], ...]  # side title, its units in words
    deployment: str
    first: str
    turns: int
    rates: tuple[Rate, ...]
    turns_mean: float
    report: tuple[ReportTurn, ...]
    result: str
    changes: tuple[Change, ...]
    base_title: str | None
    ends: tuple[Rate, ...] = ()  # how the games ended: a victory condition met, or the last turn played
    policy: str = POLICY
    balance: BalanceView | None = None  # the Balance section, where the site opts the scenario in


#: Fields of a declaration written for readers (titles, definitions, prose, cross-references, the
#: header's history and credits): no rule reads them while a battle is played, so editing one keeps
#: the games already simulated.  Spans go too: a line added above moves every declaration.
TEXT_FIELDS = frozenset({"span", "title", "short", "prose", "aka", "see", "authors", "history", "licence",
                         "source", "summary"})
_TEXT_NODES = (A.Prose, A.ProseBlock, A.Note, Span)
_MEANING_FIELDS: dict[type, tuple[str, ...]] = {}  # per node class: its fields but TEXT_FIELDS


def rules_key(rs: Ruleset) -> str:
    """A digest of what the games of ``rs`` are played from: every declaration of it and of its
    bases, without the text written for readers (:data:`TEXT_FIELDS`), so that correcting a
    definition while ``warscribe serve`` runs does not simulate the battles again."""
    digest = hashlib.blake2b(digest_size=16)
    layer: Ruleset | None = rs
    while layer is not None:
        digest.update(layer.id.encode() + b"\1")
        _feed(digest, layer.items)
        layer = layer.base
    return digest.hexdigest()


def _feed(digest: Any, value: object) -> None:
    """Feed ``value`` (AST nodes, tuples, plain values) to ``digest``, readers' text left out."""
    if isinstance(value, _TEXT_NODES):
        digest.update(b"-")
    elif isinstance(value, tuple):
        digest.update(b"(")
        for item in value:
            _feed(digest, item)
        digest.update(b")")
    elif isinstance(value, (frozenset, set)):
        digest.update(repr(sorted(repr(v) for v in value)).encode("utf-8", "surrogateescape"))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        names = _MEANING_FIELDS.get(cls)
        if names is None:
            names = _MEANING_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(value) if f.name not in TEXT_FIELDS)
        digest.update(cls.__name__.encode() + b"{")
        for name in names:
            digest.update(name.encode() + b"=")
            _feed(digest, getattr(value, name))
        digest.update(b"}")
    else:
        digest.update(repr(value).encode("utf-8", "surrogateescape") + b";")


def _tally(rs: Ruleset, rules: Rules, sc: A.Scenario, key: str, policy: str) -> Tally:
    """The run of :data:`GAMES` games under ``policy``, kept per process and in the cache folder
    between builds (keyed by the sources, the scenario, the policy, the games and the seed;
    warscribe's own fingerprint is added by :func:`~compiler.ast.cached.remembered`)."""
    found = _CACHE.get((rs.id, key, sc.id, policy))
    if found is None:
        stored = f"{rs.id}\0{sc.id}\0{key}\0{GAMES}\0{SEED}\0{policy}".encode()
        found = remembered("battles", stored, partial(play_games, rules, sc, policy, SEED, 0, GAMES),
                           lambda t: isinstance(t, Tally) and t.games == GAMES)
        _CACHE[(rs.id, key, sc.id, policy)] = found
    return found


def page_policy(rs: Ruleset, rules: Rules, sc: A.Scenario, key: str) -> str:
    """The player of ``sc``'s games on the page: the strongest whose estimated work for
    :data:`GAMES` games fits :data:`SITE_BUDGET` (kept in the cache folder like the games).  An
    overlay's scenario that its base shares is played by the base page's player, so that the
    change between them is made under one player (and the base's run is played once)."""
    from compiler.battle.budget import STRONGEST_FIRST, strongest

    base = rs.base
    shared = base.get(sc.id) if base is not None else None
    if base is not None and isinstance(shared, A.Scenario):
        return page_policy(base, Rules(base), shared, rules_key(base))
    stored = f"{rs.id}\0{sc.id}\0{key}\0{GAMES}\0{SITE_BUDGET}".encode()
    return remembered("battles-policy", stored, lambda: strongest(rules, sc, GAMES, SITE_BUDGET, sides=1).policy,
                      lambda p: p in STRONGEST_FIRST)


def play_shared(rulesets: Mapping[str, Ruleset]) -> None:
    """Play here the games that two of ``rulesets``' Battles pages show: an overlay's page compares
    each scenario it shares with its base with the base's own run, which the base's page shows too.
    Rendered by two forked workers, each page would play them (and each worker would work out the
    base's volleys again); played before the workers fork, both find them kept."""
    for rs in rulesets.values():
        base = rs.base
        if base is None or rulesets.get(base.id) is not base:
            continue
        shared = [s for s in (base.get(sc.id) for sc in rs.of_type(A.Scenario)) if isinstance(s, A.Scenario)]
        if shared:
            rules, key = Rules(base), rules_key(base)
            for sc in shared:
                _tally(base, rules, sc, key, page_policy(base, rules, sc, key))


def _rates(sc: A.Scenario, t: Tally) -> tuple[Rate, ...]:
    out = []
    for k, side in enumerate(sc.sides):
        lo, hi = wilson(t.wins[k], t.games)
        out.append(Rate(f"{side.title} win", t.wins[k], t.games, t.wins[k] / t.games, lo, hi))
    lo, hi = wilson(t.draws, t.games)
    out.append(Rate("Draw", t.draws, t.games, t.draws / t.games, lo, hi))
    return tuple(out)


def _ends(game: A.Game | None, t: Tally) -> tuple[Rate, ...]:
    """How the games ended: each victory condition met (by its title), or the turn limit."""
    titles = {v.id: v.title for v in game.victories} if game is not None else {}
    out = []
    for reason, k in t.ends:
        lo, hi = wilson(k, t.games)
        label = titles.get(reason) or ("Undecided when the last game turn ended" if reason == "turn limit" else reason)
        out.append(Rate(label, k, t.games, k / t.games, lo, hi))
    return tuple(out)


def _line(event: dict[str, Any], titles: Mapping[str, str]) -> tuple[str, str] | None:
    kind = event["event"]
    if kind == "move" and "objective" in event:
        return (f"{event['unit']} moves {event['inches']}\"; {event['objective']} is {event['distance']:g}\" away.", "")
    if kind == "move":
        return (f"{event['unit']} moves {event['inches']}\"; the enemy is {event['distance']:g}\" away.", "")
    if kind == "volley":
        weapon = f" with {titles.get(event['weapon'], event['weapon'])}" if event.get("weapon") else ""
        return (f"{event['unit']} ({plural(event['models'], 'model')}) {agree(event['unit'], 'strikes', 'strike')[len(event['unit']) + 1:]} "
                f"{event['target']}{weapon}: {event['removed']} removed (expected {event['mean']:.2f}), {event['left']} left.",
                event["rule"])
    if kind == "test" and event.get("result") is not None:  # a roll with several outcomes (``takes``)
        return (f"{event['unit']} takes a test: {event['result']} (chance {event['chance']:.1%}).", event["rule"])
    if kind == "test":
        return (f"{event['unit']} {'passes' if event['passed'] else 'fails'} a test "
                f"(chance {event['chance']:.1%}).", event["rule"])
    if kind == "charge_roll":
        short = "" if event["rolled"] >= event["distance"] else ": short, so it moves that far and stops"
        return (f"{event['unit']} charges {event['target']}, {event['distance']:g}\" away, and rolls "
                f"{event['rolled']}\"{short}.", "")
    if kind == "engage":
        return (f"{event['unit']} engages {event['target']}.", "")
    if kind == "left_melee":
        return (f"{event['unit']} leaves the melee.", "")
    if kind == "rest":
        return (f"{event['unit']}: {titles.get(event['weapon'], event['weapon'])} rests for "
                f"{plural(event['turns'], 'turn')}.", event["rule"])
    if kind == "activation":
        verdict = "goes bust, and the turn passes" if event["bust"] else f"scores {plural(event['successes'], 'action')}"
        return (f"{event['unit']} rolls {plural(event['dice'], 'activation die', 'activation dice')} and {verdict}.",
                event["rule"])
    if kind == "reaction":
        return (f"{event['unit']} reacts to {event['cause']} ({event['reaction']}).", "")
    if kind == "destroyed":
        return (f"{event['unit']} is destroyed.", "")
    if kind == "status" and event.get("until") != "now":
        return (f"{event['unit']} is now {event['status']}.", "")
    if kind == "activated":
        return (f"{event['title']} activates {event['unit']}.", "")
    if kind == "order":
        return (f"{event['unit']} gets {event['title']}.", "")
    return None


def _report(rs: Ruleset, rules: Rules, sc: A.Scenario, policy: str) -> tuple[tuple[ReportTurn, ...], str]:
    seed = game_seed(SEED, 0)
    battle = Battle(rules, sc, [POLICIES[policy](seed + k + 1) for k in range(len(sc.sides))], seed)
    out = battle.run()
    titles = {d.id: getattr(d, "title", d.id) for d in rs.walk() if d.id}
    turns: list[ReportTurn] = []
    heading = "Deployment"
    lines: list[tuple[str, str]] = []
    for e in battle.events:
        if e["event"] == "turn":
            if lines:
                turns.append(ReportTurn(heading, tuple(lines)))
            heading, lines = f"Game turn {e['turn']}: {e['title']}", []
            continue
        line = _line(e, titles)
        if line is not None:
            lines.append(line)
    if lines:
        turns.append(ReportTurn(heading, tuple(lines)))
    st = battle.state
    winner = "a draw" if out.winner is None else f"a win for {st.side_titles[out.winner]}"
    scores = ", ".join(f"{t} {s:g}" for t, s in zip(st.side_titles, out.scores))
    return tuple(turns), f"The battle ends in {winner} after {out.turns} game turns (scores: {scores})."


def scenario_views(rs: Ruleset, balance: Mapping[str, BalanceSetting] | None = None) -> list[ScenarioView]:
    """The Battles page's view of every scenario of ``rs`` the engine can play (one it cannot is
    named apart, :func:`compiler.battle.ran.not_played`); a scenario named in ``balance`` (by its
    id) gets a Balance section swept with those settings."""
    scenarios = rs.of_type(A.Scenario)
    if not scenarios:
        return []
    rules, key = Rules(rs), rules_key(rs)
    base = rs.base
    base_rules = Rules(base) if base is not None else None
    unplayable = {i for i, _ in not_played(rs)}  # named apart on the page, with why
    views = []
    for sc in scenarios:
        if sc.id in unplayable:
            continue
        game = rs.get(sc.game) if sc.game else next(iter(rs.of_type(A.Game)), None)
        turns = sc.turns or (game.turns if isinstance(game, A.Game) and game.turns else 1)
        sides = tuple((side.title, tuple(_unit_words(rs, side))) for side in sc.sides)
        policy = page_policy(rs, rules, sc, key)
        t = _tally(rs, rules, sc, key, policy)
        report, result = _report(rs, rules, sc, policy)
        changes: tuple[Change, ...] = ()
        if base is not None and base_rules is not None and isinstance(base.get(sc.id), A.Scenario):
            bt = _tally(base, base_rules, sc, rules_key(base), policy)
            changes = tuple(Change(side.title, c["base_win_rate"], c["overlay_win_rate"], c["change"],
                                   c["ci95"][0], c["ci95"][1])
                            for side, c in zip(sc.sides, against(sc, t, bt)))
        first = "chosen at random" if sc.first in (None, "random") else next(
            s.title for s in sc.sides if s.id == sc.first)
        views.append(ScenarioView(sc, sides, _deployment(rules, sc, game), first, turns, _rates(sc, t),
                                  t.turns / t.games, report, result, changes,
                                  base.title if changes and base is not None else None,
                                  _ends(game if isinstance(game, A.Game) else None, t), policy,
                                  balance_view(rs, rules, sc, key, balance[sc.id], SEED)
                                  if balance and sc.id in balance else None))
    return views


def _unit_words(rs: Ruleset, side: A.Side) -> list[str]:
    out = []
    for u in listed_units(rs, side):
        weapons = ", ".join(getattr(rs.get(w), "title", w) for w in u.weapons)
        title = getattr(rs.get(u.squad or u.profile), "title", u.profile)
        out.append(f"{u.models} × {title}" + (f" ({weapons})" if weapons else "") + (f", {u.points} points" if u.points else ""))
    return out


def _deployment(rules: Rules, sc: A.Scenario, game: object) -> str:
    """Where the sides stand, in words: so many inches apart on one line; on a table, its size, how
    far apart the nearest enemies start and each terrain area with its kind.

    >>> from pathlib import Path
    >>> import compiler
    >>> rs = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "classic-40k"]).rulesets[0]
    >>> print(_deployment(Rules(rs), rs.get("prepared_position"), rs.get("battle")))
    on a table 24" by 36", the nearest enemies 29" apart; terrain: The trench line (Fortification), 0" to 24" across and 2" to 6" up
    """
    if sc.table is None:
        return f'the sides stand {sc.distance or 0:g}" apart'
    st = Battle(rules, sc, [POLICIES[POLICY](0) for _ in sc.sides], SEED, record=False).state
    gap = min((st.distance(a, b) for a in st.units for b in st.units if a.side < b.side), default=0.0)
    kinds = {k.id: k.title for k in game.terrain} if isinstance(game, A.Game) else {}
    areas = [f'{t.title} ({kinds.get(t.kind, t.kind)}), {t.corners[0]}" to {t.corners[2]}" across and '
             f'{t.corners[1]}" to {t.corners[3]}" up' for t in sc.terrain]
    return (f'on a table {sc.table[0]}" by {sc.table[1]}", the nearest enemies {gap:g}" apart'
            + ("; terrain: " + "; ".join(areas) if areas else ""))
