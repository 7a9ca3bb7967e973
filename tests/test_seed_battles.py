"""Battle-level worked examples of the bundled seed rulesets: their battles play as the
documents say (scoring and victory, turn by turn)."""
from __future__ import annotations

from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

import compiler
from compiler.battle import Battle, GreedyPolicy, Node, Rules
from compiler.model.ruleset import Ruleset

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nuceria() -> Ruleset:
    return compiler.compile_paths([ROOT / "rules" / "nuceria-rts"]).rulesets[0]


def test_a_nuceria_game_ends_on_the_turn_a_side_reaches_ten_points(nuceria: Ruleset) -> None:
    """First to 10 wins at once: the battle stops at the scoring moment a side's total reaches 10,
    that side wins, and until then nobody had 10 (no invented limit of activations decides it)."""
    rules = Rules(nuceria)
    reached = 0
    for seed in range(12):
        battle = Battle(rules, nuceria.get("line_skirmish"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
        outcome = battle.run()
        scores = [e for e in battle.events if e["event"] == "score"]
        totals: dict[str, float] = {}
        over_at = None
        for n, e in enumerate(scores):
            totals[e["to"]] = e["total"]
            if over_at is None and max(totals.values()) >= 10:
                over_at = n
        end = battle.events[-1]
        assert end["event"] == "end"
        if outcome.reason == "first_to_ten":
            reached += 1
            assert over_at is not None
            last = scores[over_at]
            # the battle ended in the very turn the 10th point came, and the side at 10 won: a
            # player scores objectives at the end of their own turn, so two never reach it together
            assert outcome.turns == last["turn"] and end["turn"] == last["turn"]
            assert max(totals.values()) >= 10 and all(e["turn"] <= last["turn"] for e in battle.events)
            assert sorted(totals.values())[0] < 10 and end["winner"] == last["to"] == max(totals, key=lambda s: totals[s])
        else:
            assert outcome.reason == "wiped_out" and over_at is None
            assert max(outcome.scores) < 10
    assert reached >= 3  # the points, not the clock, decide many of them


def test_a_nuceria_stalker_charges_rolls_m_plus_d6_and_strikes_with_its_claws(nuceria: Ruleset) -> None:
    """The ambush: the pack goes first; a Stalker Beast (M 8") charges the Line Troopers 12" away.
    Its reach is 8 + d6, so it lands on a 4+; then it strikes with its Rending Claws only: three
    attack dice, Power 5 against Toughness 4 hitting on 3+, a natural 6 scoring two more hits
    (Sustained Hits 2 of the claws beats the beast's own Sustained Hits 1), each hit saved on 4+."""
    root = Node.root(Rules(nuceria, exact=True), nuceria.get("ambush"))
    assert [p for _, p in root.chance_outcomes()] == [Fraction(1, 2), Fraction(1, 2)]
    pack = root.child(1)
    labels = [o.label for o in pack.choice().options]  # type: ignore[union-attr]
    node = pack.child(labels.index("Stalker Beast (battle) 2"))
    labels = [o.label for o in node.choice().options]  # type: ignore[union-attr]
    node = node.child(labels.index("Charge, then melee attack"))
    labels = [o.label for o in node.choice().options]  # type: ignore[union-attr]
    roll = node.child(labels.index("Line Trooper (battle) 2"))
    law = roll.law()
    assert roll.chance_kind() == "charge" and law is not None
    assert list(zip(law.values, law.probabilities)) == [(8 + k, Fraction(1, 6)) for k in range(1, 7)]
    short, landed = roll.child(law.values.index(11)), roll.child(law.values.index(12))
    beast = short.state().units[4]
    assert beast.position == 1.0 and not beast.engaged  # 11" of the 12: it stops 1" short
    beast, troopers = landed.state().units[4], landed.state().units[1]
    assert beast.engaged == [troopers.uid] and troopers.statuses == {"locked_in_combat": ""}
    # the claws' law, worked out here: hits per die 0 (1-2), 1 (3-5) or 3 (a 6); each unsaved on 1-3
    per_die = {0: Fraction(2, 6), 1: Fraction(3, 6), 3: Fraction(1, 6)}
    hits: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(3):
        hits = _add(hits, per_die)
    kills = [sum((p * comb(h, k) * Fraction(1, 2) ** h for h, p in hits.items() if h >= k), Fraction(0))
             for k in range(10)]
    assert landed.chance_kind() == "volley"
    assert [p for _, p in landed.chance_outcomes()] == [p for p in kills if p]


def _add(law: dict[int, Fraction], die: dict[int, Fraction]) -> dict[int, Fraction]:
    """The law of a sum: ``law`` plus one more die of law ``die``."""
    out: dict[int, Fraction] = {}
    for a, p in law.items():
        for b, q in die.items():
            out[a + b] = out.get(a + b, Fraction(0)) + p * q
    return out


def test_40k_s_victory_points_decide_a_battle_still_going_after_five_turns() -> None:
    """40K-S: the armies stand 24" apart, the initiative is rolled each turn, each unit wiped out
    gives its enemy the victory points it is worth (five for a stand-in squad of five), each
    objective counter controlled when the game ends is worth one, and after five turns the side
    with more victory points wins."""
    model = compiler.compile_paths([ROOT / "rules" / "40k-s"]).rulesets[0]
    rules = Rules(model)
    scenario = model.get("rifle_line")
    assert scenario.distance == 24
    decided = 0
    for seed in range(10):
        battle = Battle(rules, scenario, [GreedyPolicy(), GreedyPolicy()], seed=seed)
        outcome = battle.run()
        turns_rolled = {e["turn"] for e in battle.events if e["event"] == "initiative"}
        assert turns_rolled == set(range(1, outcome.turns + 1))
        vp = {"armoured": 0.0, "line": 0.0}
        holders: dict[str, str | None] = {}
        for e in battle.events:
            if e["event"] == "control":
                holders = e["holders"]
            if e["event"] == "score" and e["score"] == "objective_points":
                # counted once, at the end of the fifth turn, for the counters held then
                assert outcome.reason != "wiped_out" and e["turn"] == 5 and e["points"] == 1
                assert holders[{o.title: o.oid for o in battle.state.objectives}[e["why"]]] == e["to"]
            elif e["event"] == "score":
                assert e["score"] == "kill_points" and e["points"] == 5
            if e["event"] == "score":
                vp[e["to"]] += e["points"]
        if outcome.reason == "after_five_turns":
            assert sum(h is not None for h in holders.values()) == sum(
                e["points"] for e in battle.events if e["event"] == "score" and e["score"] == "objective_points")
        assert list(outcome.scores) == [vp["armoured"], vp["line"]]
        if outcome.reason == "after_five_turns":
            decided += 1
            assert outcome.turns == 5 and vp[battle.events[-1]["winner"]] == max(vp.values())
            assert vp["armoured"] != vp["line"]
        elif outcome.reason == "turn limit":
            assert vp["armoured"] == vp["line"]  # equal points after five turns: a draw
    assert decided >= 3


def test_dark_millennia_overwatch_is_not_offered_after_a_move_and_a_failed_test_costs_nothing() -> None:
    """Modified overwatch as the document has it: a unit that moved this turn may not try; one that
    tries and fails its Leadership test still fires with the rest; one that passes holds its fire."""
    from compiler.battle import RandomPolicy

    model = next(rs for rs in compiler.compile_paths([ROOT / "rules" / "dark-millennia"]).rulesets
                 if rs.id == "dark-millennia")
    rules = Rules(model)
    failed_then_fired = passed = 0
    for seed in range(30):
        battle = Battle(rules, model.get("firefight"), [RandomPolicy(seed), RandomPolicy(seed + 50)], seed=seed)
        battle.run()
        done: dict[tuple[int, str], list[dict]] = {}
        for e in battle.events:
            if e["event"] in ("action", "test"):
                done.setdefault((e["turn"], e["unit"]), []).append(e)
        for (turn, unit), events in done.items():
            actions = [e["action"] for e in events if e["event"] == "action"]
            if "hold_fire" not in actions:
                continue
            assert "advance" not in actions[:actions.index("hold_fire")], (turn, unit, actions)
            test = next(e for e in events if e["event"] == "test")
            later = actions[actions.index("hold_fire") + 1:]
            if test["passed"]:
                passed += 1
                assert "shoot" not in later  # on overwatch: it holds its fire
            elif "shoot" in later:
                failed_then_fired += 1
    assert failed_then_fired and passed


def _models(name: str) -> Ruleset:
    return next(rs for rs in compiler.compile_paths([ROOT / "rules" / name]).rulesets if rs.id == name)


def _binomial_capped(n: int, p: Fraction, cap: int) -> list[Fraction]:
    """The chance of each number of models lost, 0..cap, when n shots each kill with chance p."""
    law = [Fraction(comb(n, k)) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    return law[:cap] + [sum(law[cap:], Fraction(0))]


@pytest.mark.parametrize("name, per_shot", [
    # base: hit 5+ (BS 2), wound 4+ (S4 v T4), 3+ armour; the trench's 4+ cover save is no better
    ("classic-40k", Fraction(1, 3) * Fraction(1, 2) * Fraction(1, 3)),
    # house rules: hard cover takes BS 2 to 0, held at 1 (hit on 6s), T 4 to 5 (wound on 5+), armour kept
    ("dark-millennia", Fraction(1, 6) * Fraction(1, 3) * Fraction(1, 3)),
])
def test_an_ork_volley_at_marines_in_the_trench_line_has_the_law_of_hard_cover(name: str, per_shot: Fraction) -> None:
    """The prepared position: the Marines stand in the trench line, so the table puts them in hard
    cover; ten Orks' twenty shoota shots kill each Marine-wound with the chance the cover rules give."""
    model = _models(name)
    rules = Rules(model, exact=True)
    battle = Battle(rules, model.get("prepared_position"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    marines, orks = battle.state.units
    assert battle.state.cover(orks, marines) == ("dug_in",) and battle.state.cover(marines, orks) == ()
    attack = model.get("shooting")
    situation = rules.situation(orks, 18.0, battle.state.cover(orks, marines))
    assert ("target_cover", "hard") in situation
    law = rules.volley(attack, orks, "shoota", marines, situation)
    assert [p for (_, _), p in law.outcomes()] == _binomial_capped(20, per_shot, 5)


def test_gemini_arap_melee_rounds_follow_the_charge_and_replace_activation() -> None:
    """Gemini-ARAP: a charge locks both units in melee; from then on neither rolls activation dice,
    moves or shoots, and each player's activation phase ends with a melee round of every unit in
    melee, each fighter's blows worked out with the law of the WS comparison, the wound roll and
    the save (10 Genestealers, A 2, against 10 troopers: 20 blows, each killing with chance
    4/6 x 4/6 x 4/6; the troopers' 10 blows back each with 2/6 x 2/6 x 4/6)."""
    model = _models("gemini-arap")
    rules = Rules(model, exact=True)
    scenario = model.get("stealer_rush")
    probe = Battle(rules, scenario, [GreedyPolicy(), GreedyPolicy()], seed=1)
    troopers, stealers = probe.state.units[0], probe.state.units[2]
    melee = model.get("melee_round")
    for fighter, foe, blows, p in ((stealers, troopers, 20, Fraction(8, 27)), (troopers, stealers, 10, Fraction(2, 27))):
        fighter.statuses["close_quarters"] = ""
        law = rules.volley(melee, fighter, None, foe, rules.situation(fighter, 0.0))
        assert [q for (_, _), q in law.outcomes()] == _binomial_capped(blows, p, 10)
    charges = rounds = 0
    for seed in range(6):
        battle = Battle(rules, scenario, [GreedyPolicy(), GreedyPolicy()], seed=seed)
        battle.run()
        pairs: set[frozenset[str]] = set()  # the units locked together, until one of them is wiped out
        for e in battle.events:
            locked = {u for pair in pairs for u in pair}
            if e["event"] == "engage":
                charges += 1
                assert e["unit"] not in locked
                pairs.add(frozenset((e["unit"], e["target"])))
            elif e["event"] in ("activation", "move", "action"):
                assert e["unit"] not in locked, e  # no dice, no move, no shot while in melee
            elif e["event"] == "volley" and e["rule"] == "melee_round":
                assert frozenset((e["unit"], e["target"])) in pairs
                rounds += 1
            if e["event"] == "volley" and e["left"] == 0:
                pairs = {pair for pair in pairs if e["target"] not in pair}
    assert charges and rounds


def test_dark_millennia_consolidation_is_a_short_move_for_units_that_held_still() -> None:
    """Universal unit consolidation: after the assault phase a unit that did not move may close up
    to 3" on the nearest enemy, never to within 1" of it; a unit that moved this turn is not offered it."""
    from compiler.battle import Choice

    class Asked:
        """Takes the first action offered and the longest move; remembers the moves it was offered."""

        def __init__(self) -> None:
            self.moves: list[int] = []

        def choose(self, choice: Choice) -> int:
            if choice.kind == "move":
                self.moves.append(len(choice.options) - 1)
                return len(choice.options) - 1
            return 0

    model = _models("dark-millennia")
    phase = next(p for p in model.get("battle").phases if p.id == "phase_consolidate")
    for gap, most in ((30, 3), (4, 3), (3, 2), (2, 1), (1, 0)):
        asked = Asked()
        battle = Battle(Rules(model), model.get("firefight"), [asked, asked], seed=1)
        marines, orks = battle.state.units
        orks.position = marines.position + gap
        assert battle.act(marines, phase) and asked.moves == ([most] if most else [])
        assert battle.state.distance(marines, orks) == gap - most and (gap == 1 or gap - most >= 1)
        moved = Battle(Rules(model), model.get("firefight"), [asked, asked], seed=1)
        moved.state.units[0].statuses["moved"] = "turn"
        assert not moved.act(moved.state.units[0], phase)  # it moved this turn: nothing is offered
