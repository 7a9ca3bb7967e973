"""What an effect aims at: the statuses an engagement sets, the targets an attack may pick, the
chance a charge's reach comes to a gap (read by the greedy estimates and by the effects alike)."""
from __future__ import annotations

from typing import Sequence

from compiler import ast as A
from compiler.battle.rules import Law
from compiler.battle.state import Unit
from compiler.trace import note


def engagement(effect: A.ActionEffect) -> tuple[str, ...]:
    """The statuses an ``engage`` effect sets on both units (``as engaged and pinned``)."""
    return ((effect.name,) if effect.name else ()) + effect.also


def picky(effect: A.ActionEffect) -> bool:
    """Whether an attack effect chooses its targets by more than reach (``at engaged enemies``,
    ``at enemies not STATUS``)."""
    return effect.engaged_only or effect.spares is not None


def target_of(unit: Unit, foe: Unit, effect: A.ActionEffect) -> bool:
    """Whether ``foe`` may be a target of ``unit``'s attack ``effect``: one it is engaged with, for
    ``at engaged enemies``; one not holding the status, for ``at enemies not STATUS``."""
    if effect.engaged_only and foe.uid not in unit.engaged:
        return False
    if effect.spares is not None and effect.spares in foe.statuses:
        note(effect.spares)  # coverage: the status spared the enemy
        return False
    return True


def targeted(unit: Unit, foe: Unit, effects: Sequence[A.ActionEffect]) -> tuple[bool, ...]:
    """Which of ``effects`` (those that pick targets by more than reach) may aim at ``foe``."""
    return tuple(target_of(unit, foe, e) for e in effects if e.kind == "attack" and picky(e))


def reached(law: Law, gap: float) -> float:
    """The chance that a reach of law ``law`` comes to ``gap`` inches or more."""
    return sum(float(p) for v, p in zip(law.values, law.probabilities) if v >= gap)
