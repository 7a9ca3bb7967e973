"""What the battles of a ruleset play of its rules, and what they leave out.

Generated from the ruleset, never typed on a page: :func:`fidelity` runs the coverage of
:mod:`compiler.resolve.coverage` with the declarations a few traced games of each scenario used
(:func:`compiler.battle.ran.ran_in_battle`), and sorts every rule into one of three standings:

* ``played`` — something the rule declares or links was used while the battles were played;
* ``odds only`` — the resolver works out its numbers (an example exercises them), but no
  battle uses them;
* ``prose only`` — nothing runs it; the reason is the rule's ``prose only`` note (or, if it has
  none, that nothing it links ran).

The overview page shows the whole table; the Battles page lists what is not played.  A scenario
the engine cannot play (:func:`compiler.battle.ran.not_played`) is named on both, with its located
reason: the rules only it would have played are then not "played" for want of a battle, not of a rule.
"""
from __future__ import annotations

from dataclasses import dataclass

from compiler import ast as A
from compiler.battle.ran import not_played, ran_in_battle
from compiler.model.ruleset import Ruleset
from compiler.resolve.coverage import coverage

PLAYED, ODDS_ONLY, PROSE_ONLY = "played", "odds only", "prose only"
#: What each standing means, in the words the pages use.
WORDS = {PLAYED: "played in the simulated battles",
         ODDS_ONLY: "its odds are worked out, but the simulated battles do not use it",
         PROSE_ONLY: "not played"}
UNMARKED_REASON = "nothing it declares or links is run, and it does not say why"


@dataclass(frozen=True)
class Standing:
    """One rule and how the battles treat it."""

    rule: A.Rule
    status: str  # PLAYED, ODDS_ONLY or PROSE_ONLY
    reason: str  # for PROSE_ONLY: why nothing plays it


def fidelity(rs: Ruleset) -> tuple[Standing, ...]:
    """Every rule of ``rs`` in document order with its standing (none when no scenario is played)."""
    if not rs.of_type(A.Scenario):
        return ()
    cov = coverage(rs, ran_in_battle(rs))
    battle, driving = set(cov.in_battle), set(cov.driving)
    reasons = {i: r for i, kind, r in cov.prose_only if kind == "rule"}
    out = []
    for rule in rs.of_type(A.Rule):
        if rule.id in battle:
            out.append(Standing(rule, PLAYED, ""))
        elif rule.id in driving:
            out.append(Standing(rule, ODDS_ONLY, ""))
        else:
            out.append(Standing(rule, PROSE_ONLY, reasons.get(rule.id, UNMARKED_REASON)))
    return tuple(out)


def left_out(rs: Ruleset) -> tuple[Standing, ...]:
    """The rules the simulated battles do not play: prose only first, then those whose odds only
    the resolver works out."""
    rows = fidelity(rs)
    return tuple(s for s in rows if s.status == PROSE_ONLY) + tuple(s for s in rows if s.status == ODDS_ONLY)


def unplayed(rs: Ruleset) -> tuple[tuple[str, str], ...]:
    """The scenarios of ``rs`` the engine cannot play: (scenario id, its located reason)."""
    return not_played(rs) if rs.of_type(A.Scenario) else ()
