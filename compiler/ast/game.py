"""The game's structure: phases and their steps, scoring, victory, the activation scheme —
and what makes it playable: actions, combats, end-of-turn tests, reactions and scenarios
(executed by :mod:`compiler.battle`).
"""
from __future__ import annotations

from dataclasses import dataclass

from compiler.ast.common import Decl, Prose
from compiler.ast.expr import Expr
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class PhaseStep:
    """A step within a phase of the game."""

    span: Span
    id: str
    title: str
    text: str | None


@dataclass(frozen=True, slots=True)
class Order:
    """``on advance "Advance orders": move and shoot unless pinned``: an order a unit may be given.

    The unit takes the phase's ``actions`` named, in that order (``then``) or in the order its
    player picks (``and``: ``any_order``); ``unless`` a status bars the order, ``requires`` (``if
    pinned``) a status it needs.
    """

    span: Span
    id: str
    title: str
    actions: tuple[str, ...]
    any_order: bool = False
    unless: tuple[str, ...] = ()
    requires: str | None = None


@dataclass(frozen=True, slots=True)
class Phase:
    """A phase of a turn, with its steps."""

    span: Span
    id: str
    title: str
    text: str | None
    steps: tuple[PhaseStep, ...] = ()
    prose: tuple[Prose, ...] = ()
    actions: tuple["Action", ...] = ()
    combats: tuple["Combat", ...] = ()
    orders: tuple[Order, ...] = ()


@dataclass(frozen=True, slots=True)
class ActionEffect:
    """One thing an action or a reaction does.

    ``kind`` is ``move`` (up to ``value`` toward its ``goal``: ``enemy``, the nearest enemy;
    ``away``, away from it; ``nearest objective``; ``objective``, the one ``name``; ``nearest corner``, of
    the table, see :mod:`compiler.battle.corners`), ``attack`` (the attack
    sequence ``name`` against an enemy unit, each weapon only within its ``stat``, if given, or,
    ``without``, only the weapons with no value of that stat, at an enemy the unit is engaged with;
    only at enemies it is engaged with when ``engaged_only``, never at one holding the status
    ``spares``),
    ``engage`` (an enemy within ``value``; both get the status ``name`` and the ``also`` statuses
    while engaged), ``disengage`` (the unit leaves every engagement), ``lowers`` (the counter
    ``name`` by the whole number ``value``), ``sets`` (the status
    ``name`` on the acting unit, until the end of ``period`` if given; ``own turn``: the end of the
    unit's side's next player turn), ``clears`` (the status
    ``name`` ends), ``tests`` (the test ``value``; on a failure the rest does not happen) or,
    after ``failing:``, ``destroyed``.
    """

    span: Span
    kind: str
    name: str | None = None
    value: Expr | None = None
    period: str | None = None
    stat: str | None = None
    until: Expr | None = None  # ``sets pinned until passed rally(Ld)``: the test that ends the status
    goal: str = "enemy"  # a move's goal (see above)
    #: ``attack NAME without Range``: only the weapons with no ``stat`` (close-combat weapons), at an
    #: enemy the unit is engaged with
    without: bool = False
    engaged_only: bool = False  # ``attack melee at engaged enemies``
    spares: str | None = None  # ``attack shooting at enemies not fire_locked``: a status whose holders are no target
    also: tuple[str, ...] = ()  # ``engage within 6" as engaged and pinned``: the further statuses an engagement sets

    @property
    def reach(self) -> str | None:
        """Which weapons an attack uses, as the engine keys it: None (all), ``STAT`` (those whose
        ``STAT`` reaches the target) or ``-STAT`` (those without one, at an enemy in contact)."""
        return None if self.stat is None else "-" + self.stat if self.without else self.stat


@dataclass(frozen=True, slots=True)
class Action:
    """``action shoot "Shoot": attack shooting unless ran``: something a unit may do in a phase."""

    span: Span
    id: str
    title: str
    effects: tuple[ActionEffect, ...]
    unless: tuple[str, ...] = ()
    must: bool = False  # ``must action …``: a unit offered it may not do nothing


@dataclass(frozen=True, slots=True)
class Initiative:
    """``initiative each game turn: roll d6, ties reroll``: who goes first is rolled for at the
    start of each game turn, the higher roll first; ``ties`` is ``reroll``, ``keep`` (the order of
    the turn before) or ``swap`` (the other player than the turn before goes first)."""

    span: Span
    roll: Expr
    ties: str


@dataclass(frozen=True, slots=True)
class TerrainKind:
    """``terrain woods "Woods": sets in_cover for units in it, blocks sight, costs 2 inches per inch``:
    what a kind of terrain does, in the rules' own words.

    ``inside`` is the situation set while a unit in it is shot at (cover); ``through`` the one set
    when the line of fire crosses it; ``blocks`` whether it blocks sight through it; ``cost`` the
    inches of move an inch through it takes (1: open ground); ``impassable`` whether no unit may
    enter it.
    """

    span: Span
    id: str
    title: str
    inside: str | None = None
    through: str | None = None
    blocks: bool = False
    cost: int = 1
    impassable: bool = False


@dataclass(frozen=True, slots=True)
class EngagedStatus:
    """``while engaged: pinned when pinned_by(PC, foe.PC)``: a unit holding the engagement status
    ``engagement`` also holds ``status`` while some enemy it is engaged with (``foe`` in
    ``condition``) meets the condition."""

    span: Span
    engagement: str
    status: str
    condition: Expr


@dataclass(frozen=True, slots=True)
class Counter:
    """``counter suppression: rises by 1 when shot, falls by 1 at end of turn``: a number kept on
    each unit (a numeric situation of that name, which the rules read), raised by an event,
    lowered at the end of a period and by the action effect ``lowers suppression by 1``.

    ``rises`` is an expression worked out for the unit the event happens to (a roll, a test: the
    rise is drawn from its exact law); for ``shot`` it may read the counts of the volley's steps
    (``hits``) and ``models`` is the unit's count before the volley.  ``cleared`` lists the events
    (``engaged``, ``charged``, ``shot``) that bring the counter back to its lowest value.
    """

    span: Span
    situation: str
    rises: Expr
    event: str
    falls: int = 0
    period: str | None = None
    cleared: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Combat:
    """``combat assault [without Range] in order of I``: every engagement fights with an attack
    sequence (``without``: only with the weapons that have no value of that stat)."""

    span: Span
    attack: str
    order: str
    without: str | None = None


@dataclass(frozen=True, slots=True)
class AtEnd:
    """``at end of game turn: each unit with … tests morale(Ld), failing: destroyed``."""

    span: Span
    period: str
    condition: Expr | None
    test: Expr
    failing: ActionEffect | None = None
    #: ``takes casualty_test(Ld), clears s_points`` then ``on "pinned": sets pinned``: the value is drawn
    #: from its exact law, ``effects`` follow whatever it is, and the case of that value after them
    takes: bool = False
    effects: tuple[ActionEffect, ...] = ()
    cases: tuple[tuple[str, tuple[ActionEffect, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class Reaction:
    """``when charged: attack overwatch``: what a unit does when an event happens to it."""

    span: Span
    event: str
    effects: tuple[ActionEffect, ...]
    requires: str | None = None  # ``when charged if on_overwatch``: only a unit with this status reacts
    unless: tuple[str, ...] = ()  # ``unless moved``: a unit holding one of these statuses does not react
    spends: str | None = None  # "always" (``, spending its action``) or "failure" (``… on a failure``)


@dataclass(frozen=True, slots=True)
class ActivationDice:
    """``activation dice 1..3 of activation_die(activation_value(I)), bust on 2 failures``.

    The player picks how many dice to roll for a unit (``low``..``high``); each die is the test
    ``test``; each success is an action the unit may take; ``bust`` failures end the player's
    activations.
    """

    span: Span
    low: int
    high: int
    test: Expr
    bust: int
    fewer: tuple[tuple[int, str], ...] = ()  # ``, 2 fewer actions when pinned``: a status costs actions


@dataclass(frozen=True, slots=True)
class Score:
    """A way to score: a value, counted per something if given."""

    span: Span
    id: str
    title: str
    value: Expr
    per: str | None = None
    prose: tuple[Prose, ...] = ()
    surviving: bool = False  # ``per surviving model``: the value is counted for each model left
    held_at: str | None = None  # ``for each objective held at end of turn``: scored then, per objective held
    destroyed: bool = False  # ``for each enemy unit destroyed``: the value (for the unit) goes to its enemies
    own: bool = False  # ``… held at end of own turn``: only the side whose turn ends scores
    warlord: bool = False  # ``for each enemy warlord destroyed``: ``destroyed``, for a side's warlord only
    corners: float | None = None  # ``for units within 12" of every corner at end of …``: the reach (``held_at`` says when)


@dataclass(frozen=True, slots=True)
class Victory:
    """A victory condition, in words, and how it is decided (``by annihilation``)."""

    span: Span
    id: str
    title: str
    text: str | None
    prose: tuple[Prose, ...] = ()
    kind: str | None = None
    target: int | None = None  # ``by reaching 10``: the score that wins at once


@dataclass(frozen=True, slots=True)
class Control:
    """``control within 3" by models``: who holds an objective — the side whose units within that
    many inches of it have more models (or more of a stat, times their models: ``by OC``; or that
    is the only side with a model there: ``by presence``); on a tie, nobody.  ``, sticky``: an objective that no side holds by that count stays with the side
    that last held it while no enemy of that side is within reach."""

    span: Span
    reach: int
    by: str  # "models", or a stat's id
    sticky: bool = False


@dataclass(frozen=True, slots=True)
class DerivedSituation:
    """``situation range_band is long when COND, otherwise short``: a situation the battle works out
    for each unit as it acts (``COND`` sees the unit's stats, its order and the distance).

    ``situation damage_state is given by damage_status(models, marked)`` (``choice`` and
    ``otherwise`` empty): the situation takes the value of the expression ``condition`` (a table
    whose rows name the situation's choices)."""

    span: Span
    situation: str
    choice: str
    condition: Expr
    otherwise: str


ACTIVATIONS = ("alternating_units", "alternating_detachments", "whole_army", "activation_rolls",
               "alternating_activations")
#: How a victory condition can be decided by the battle engine.
VICTORY_KINDS = ("annihilation", "highest_score", "reaching")
#: What ``if undecided:`` may say: a draw, or the player who went first (second) wins.
UNDECIDED = ("draw", "first", "second")


@dataclass(frozen=True, slots=True)
class Game(Decl):
    """The game's structure: turns, activation scheme, phases, scoring and victory."""

    title: str
    turns: int | None = None
    activation: str | None = None
    activation_span: Span | None = None
    phases: tuple[Phase, ...] = ()
    scores: tuple[Score, ...] = ()
    victories: tuple[Victory, ...] = ()
    prose: tuple[Prose, ...] = ()
    at_end: tuple[AtEnd, ...] = ()
    reactions: tuple[Reaction, ...] = ()
    activation_dice: ActivationDice | None = None
    order_situation: str | None = None  # ``orders set order``: the situation that holds a unit's order
    derived: tuple[DerivedSituation, ...] = ()
    control: Control | None = None
    undecided: str = "draw"  # the result when no victory condition decides: one of UNDECIDED
    initiative: Initiative | None = None
    casualties_at_end: bool = False  # ``casualties removed at end of phase``: the hit still act until then
    terrain: tuple[TerrainKind, ...] = ()
    counters: tuple[Counter, ...] = ()
    #: ``casualties removed after the unit acts`` (where the game says so): a unit hit before it has
    #: acted this game turn keeps its casualties until it has; one that has acted loses them at once
    casualties_after: Span | None = None
    #: ``weapons rest after firing by cooldown``: a weapon with ``cooldown(N)`` may not fire again
    #: until N more of its player's turns have ended
    rest_by: str | None = None
    rest_span: Span | None = None
    engaged_statuses: tuple[EngagedStatus, ...] = ()
    turns_span: Span | None = None  # the number of ``turns N``, where W864 points


@dataclass(frozen=True, slots=True)
class Objective:
    """``objective relic "The relic" at 18"``: a marker on the table that units can hold."""

    span: Span
    id: str
    title: str
    at: tuple[int, ...]  # inches along the line (one number), or across and up the table (two)


@dataclass(frozen=True, slots=True)
class SideUnit:
    """``5 space_marine with boltgun``: a unit of an army list (a unit profile or a squad)."""

    span: Span
    count: int
    name: str
    weapons: tuple[str, ...] = ()
    at: int | None = None
    at_y: int | None = None  # on a table: inches up from the first side's edge (``at 12", 4"``)
    warlord: bool = False  # ``as warlord``: an army list or a scenario's side names it its warlord
    reserve: bool = False  # ``in reserve``: an army list holds it back in reserve
    detachment: int = 1  # ``in detachment 2``: the detachment of an army list it belongs to


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a scenario and its army list."""

    span: Span
    id: str
    title: str
    units: tuple[SideUnit, ...]
    prose: tuple[Prose, ...] = ()
    zone: tuple[int, int, int, int] | None = None  # ``deploy from X", Y" to X", Y"``: its deployment zone


@dataclass(frozen=True, slots=True)
class Scenario(Decl):
    """A battle set up to be played: the game, the sides, deployment, who goes first, turns."""

    title: str
    game: str | None = None
    army: str | None = None
    turns: int | None = None
    distance: int | None = None
    first: str | None = None
    sides: tuple[Side, ...] = ()
    prose: tuple[Prose, ...] = ()
    objectives: tuple[Objective, ...] = ()
    table: tuple[int, int] | None = None  # ``table 48" by 36"``: width and depth in inches
    terrain: tuple[TerrainArea, ...] = ()
    turns_span: Span | None = None  # the number of ``turns N``, where W864 points


@dataclass(frozen=True, slots=True)
class TerrainArea:
    """``terrain north_wood "North wood" woods from 10", 30" to 22", 40"``: an area of a kind the
    game defines, a rectangle between two corners."""

    span: Span
    id: str
    title: str
    kind: str
    corners: tuple[int, int, int, int]  # x0, y0, x1, y1
