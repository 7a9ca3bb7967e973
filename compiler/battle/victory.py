"""Scores and victory: who holds each objective, the points scored, and how the battle ends.

The :class:`Referee` is the battle's collaborator that reads the game's ``control``, ``score``,
``victory`` and ``if undecided`` lines:

* ``control within 3" by models`` — at each scoring moment an objective is held by the side
  whose units within that many inches of it have more models (``by OC``: more of that stat times
  their models; ``by presence``: the only side with a model there); on a tie nobody holds it; ``, sticky`` — an objective nobody holds by that count
  stays with the side that last held it while no enemy of that side is within reach (so the models
  that took it may walk away);
* ``score … for each objective held at end of turn`` (``phase``, ``game turn``, ``game``) — each
  side scores the value for each objective it holds then; ``… at end of own turn`` — when a
  player's turn ends, that player alone scores for each objective it holds (so two players never
  score objectives at one moment); ``score … for units within 12" of every corner at end of …``
  — then, each side (or the player whose turn ends) with a unit within that reach of each of the
  table's four corners scores the value once; ``score … for each enemy unit destroyed`` — the value, worked
  out for the destroyed unit (``points * started`` is its cost), goes to each of its enemies;
  ``… for each enemy warlord destroyed`` — the same, for a unit its side names ``as warlord``; ``score … per surviving model`` — counted when the battle ends;
* ``victory … by annihilation`` — a side with no models left loses at once; ``by reaching N`` —
  a side whose score reaches N at a scoring moment wins at once (the higher score if two do; with
  equal scores the game's undecided result, the end still reported under the condition's id);
  ``by highest_score`` — when the last turn ends, the higher score wins;
* ``if undecided: draw`` (the default), ``first player wins`` or ``second player wins`` — the
  result when no condition decides (equal scores, or no condition that counts them); such an end
  is reported as ``"turn limit"`` (or, when two sides reached ``by reaching N`` together, as that
  condition's id).
"""
from __future__ import annotations

from typing import Any, Callable

from compiler import ast as A
from compiler.battle import corners
from compiler.battle.rules import Rules
from compiler.battle.state import State

Emit = Callable[..., None]

#: How a battle that no victory condition decided is reported.
TURN_LIMIT = "turn limit"


class Referee:
    """Keeps the score of one battle and says when, and how, it ends."""

    __slots__ = ("rules", "game", "state", "emit", "kinds", "held", "corners", "destroyed", "surviving", "reaching")

    def __init__(self, rules: Rules, game: A.Game, state: State, emit: Emit) -> None:
        self.rules, self.game, self.state, self.emit = rules, game, state, emit
        self.kinds = {v.kind: v for v in game.victories if v.kind}
        self.held = [s for s in game.scores if s.held_at is not None and s.corners is None]
        self.corners = [s for s in game.scores if s.corners is not None]
        self.destroyed = [s for s in game.scores if s.destroyed]
        self.surviving = [s for s in game.scores if s.surviving]
        self.reaching = self.kinds.get("reaching")
        if not state.scores:
            state.scores = [0.0] * len(state.sides)

    # -- while the battle goes on -------------------------------------------------------

    def settle(self) -> None:
        """Score the units destroyed since last asked; then annihilation, then a score reached."""
        st = self.state
        self.watch()
        if not st.fallen:
            return  # nobody fell: nothing is scored, and no side can have been wiped out
        fallen, st.fallen = st.fallen, []
        for uid in fallen:
            unit = st.units[uid]
            for sc in self.destroyed:
                if sc.warlord and uid not in st.warlords:
                    continue
                value = self.rules.number(sc.value, unit, None)
                for side in range(len(st.sides)):
                    if side != unit.side:
                        self.add(side, value, sc, unit.label)
        self.annihilation()
        if not st.over and self.reaching is not None:
            self.reached()

    def watch(self) -> None:
        """With sticky control, who holds each objective now: asked after every move and every
        loss, so an objective taken between two scorings stays taken (a ``control`` event when
        a holder changes)."""
        st = self.state
        control = self.game.control
        if control is None or not control.sticky or not st.objectives:
            return
        before = [o.holder for o in st.objectives]
        self.control(quiet=True)
        if any(o.holder != b for o, b in zip(st.objectives, before)):
            self.emit_holders()

    def annihilation(self) -> None:
        st = self.state
        victory = self.kinds.get("annihilation")
        if victory is None or st.over:
            return
        standing = sorted({u.side for u in st.units if u.models > 0})
        if len(standing) <= 1:
            st.over, st.reason = True, victory.id
            st.winner = standing[0] if standing else None

    def period_ends(self, period: str) -> None:
        """Objectives held at the end of ``period`` score; then a score reached ends the battle."""
        scoring = [s for s in self.held if s.held_at == period]
        perimeter = [s for s in self.corners if s.held_at == period]
        if not (scoring or perimeter) or self.state.over:
            return
        for sc in perimeter:
            for side in self.perimeter_sides(sc):
                self.add(side, self.rules.constant(sc.value), sc, "every corner")
        if scoring:
            self.control()
        for obj in self.state.objectives if scoring else ():
            if obj.holder is not None:
                for sc in scoring:
                    if sc.own and obj.holder != self.state.active:
                        continue  # held at the end of another side's turn: its holder scores at the end of its own
                    self.add(obj.holder, self.rules.constant(sc.value), sc, obj.title)
        self.settle()
        if not self.state.over and self.reaching is not None:
            self.reached()

    def perimeter_sides(self, sc: A.Score) -> list[int]:
        """The sides with a unit within ``sc``'s reach of each of the table's four corners (only the
        side whose turn ends, for ``… at end of own turn``); none on a line, which has no corners."""
        st = self.state
        if st.table is None or sc.corners is None:
            return []
        sides = [st.active] if sc.own else range(len(st.sides))
        return [side for side in sides if corners.covered(st, side, sc.corners) == 4]

    def control(self, quiet: bool = False) -> None:
        """Who holds each objective now (see the module's docstring); ``quiet``: no event."""
        control = self.game.control
        st = self.state
        if control is None:
            return
        for obj in st.objectives:
            strength = [0.0] * len(st.sides)
            for u in st.units:
                if u.models > 0 and st.distance_to(u, obj.position, obj.y) <= control.reach:
                    if control.by == "presence":
                        strength[u.side] = 1.0  # there at all: one side alone holds it, two contest it
                    else:
                        per = 1.0 if control.by == "models" else self.rules.stat(u.profile, control.by)
                        strength[u.side] += per * u.models
            best = max(strength)
            if best > 0 and strength.count(best) == 1:
                obj.holder = strength.index(best)
            elif not (control.sticky and obj.holder is not None
                      and all(s == 0 for side, s in enumerate(strength) if side != obj.holder)):
                obj.holder = None  # a tie, or nobody there (and, if sticky, an enemy of the holder is)
        if not quiet:
            self.emit_holders()

    def emit_holders(self) -> None:
        st = self.state
        self.emit("control", holders={o.oid: (None if o.holder is None else st.sides[o.holder])
                                      for o in st.objectives})

    def add(self, side: int, value: float, score: A.Score, why: str) -> None:
        if not value:
            return
        st = self.state
        st.scores[side] += value
        self.emit("score", score=score.id, to=st.sides[side], points=round(value, 6), why=why,
                  total=round(st.scores[side], 6))

    def reached(self) -> None:
        victory = self.reaching
        assert victory is not None and victory.target is not None
        scores = self.scores()
        top = max(scores)
        if top < victory.target:
            return
        st = self.state
        st.over = True
        if scores.count(top) == 1:
            st.winner, st.reason = scores.index(top), victory.id
        else:  # two sides reach it at one moment with equal scores: the points ended it, undecided
            self.undecided(victory.id)

    # -- the end -------------------------------------------------------------------------

    def scores(self) -> tuple[float, ...]:
        """Each side's score now: the points scored so far, and those its surviving models count."""
        st = self.state
        out = list(st.scores)
        for sc in self.surviving:
            for u in st.units:
                if u.models > 0:
                    out[u.side] += u.models * self.rules.number(sc.value, u, None)
        return tuple(out)

    def finish(self) -> tuple[float, ...]:
        """The last turn is over: the highest score wins (if the game says so), else the game's
        result when undecided.  The final scores."""
        st = self.state
        scores = self.scores()
        if st.over:
            return scores
        st.over = True
        victory = self.kinds.get("highest_score")
        best = max(scores)
        if victory is not None and scores.count(best) == 1:
            st.winner, st.reason = scores.index(best), victory.id
        else:
            self.undecided()
        return scores

    def undecided(self, reason: str = TURN_LIMIT) -> None:
        """No condition decides: a draw, or the first (second) player wins, as the game says; the
        end is reported as ``reason``."""
        st = self.state
        st.reason = reason
        n = len(st.sides)
        result = self.game.undecided
        st.winner = None if result == "draw" else st.first if result == "first" else (st.first + 1) % n


def outcome_fields(state: State, scores: tuple[float, ...]) -> dict[str, Any]:
    """The end's event fields: the winner, how the battle ended, survivors and scores."""
    return {"winner": None if state.winner is None else state.sides[state.winner],
            "winner_title": None if state.winner is None else state.side_titles[state.winner],
            "reason": state.reason,
            "survivors": [state.models_left(s) for s in range(len(state.sides))],
            "scores": [round(x, 6) for x in scores]}


