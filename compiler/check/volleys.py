"""Pass: whose status a volley reads (W867, W868, W869).

A status that is also a situation is set from one unit of a volley, the shooter or its target, by
what reads it (:func:`compiler.model.sides.status_sides`): this pass refuses what cannot be read
so — a status read for both units, one read for a roll whose side nothing tells, and a counter or
an order (which a volley takes from the shooter) read for the unit attacked.
"""
from __future__ import annotations

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.model.sides import ATTACKER, DEFENDER, Reader, status_sides


def check_volley_sides(ctx: Context) -> None:
    """A status that is a situation, read by one declaration for the side of a volley attacked and
    by another for the attacker (W867): a battle sets it from one unit only, so one of them would
    read the wrong unit's status.  And one read for a roll whose side nothing tells (W868): a test
    called with no profile outside the chain of steps that leads to the removal.  A counter or an
    order read for the unit attacked (W869): a volley holds the shooter's."""
    if not ctx.ruleset.of_type(A.Game):
        return
    sides = status_sides(ctx.ruleset)
    for status, readers in sides.conflicts.items():
        split = next((r for r in readers if r.side == DEFENDER and Reader(r.name, r.span, ATTACKER, r.call) in readers),
                     None)
        if split is not None:  # one modifier on a roll some attacks make for each side
            ctx.sink.error(codes.STATUS_BOTH_SIDES,
                           f"the status '{status}' is read by '{split.name}' for a roll the attacks make both for "
                           f"the unit attacked and for the attacker: a volley cannot take it from both units",
                           split.span, "give each side's roll a test of its own (a `save` the target makes, a "
                           "`hazard` the shooter makes), or read the status for one of them only")
            continue
        defence = next(r for r in readers if r.side == DEFENDER)
        attack = next(r for r in readers if r.side == ATTACKER)
        ctx.sink.error(codes.STATUS_BOTH_SIDES,
                       f"the status '{status}' is read by '{defence.name}' for the unit attacked and by "
                       f"'{attack.name}' for the attacker: a volley cannot take it from both units", defence.span,
                       f"read it for one side only: give the other reading a situation of its own "
                       f"(a status '{status}' is set from the target when a roll or stat of the unit "
                       f"attacked reads it, from the attacker otherwise)",
                       related=((attack.span, f"'{status}' read for the attacker"),))
    for status, readers in sides.unknown.items():
        first = readers[0]
        where = first.call or first.span
        ctx.sink.error(codes.STATUS_SIDE_UNKNOWN,
                       f"the status '{status}' is read by '{first.name}' for a roll that no profile tells "
                       f"the side of: a volley cannot tell whether it is the attacker's or the target's",
                       where, "give the roll the profile of the unit that makes it (`save(target.Sv)`, "
                       "`hit(shooter.BS)`), or make it a step of the attack: `unsaved = wounds each not "
                       "save(5)` is the unit attacked's roll, `hits = shots each hit(4)` the attacker's",
                       related=tuple((r.span, f"'{status}' read here") for r in readers[:3] if r.span != where))
    for name, readers in sides.values.items():
        first = readers[0]
        ctx.sink.error(codes.VALUE_OF_TARGET,
                       f"'{name}' is read by '{first.name}' for the unit attacked, but a volley is worked out "
                       f"with the shooter's '{name}': the target's would never count", first.span,
                       f"read '{name}' for the unit's own rolls or the attacker's; to mark the unit "
                       f"attacked, give it a status (`sets {name}_marked`) that is a situation too: a "
                       f"volley reads such a status of its target")
