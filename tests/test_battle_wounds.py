"""Wounds that stay: battles of multi-wound models against an exact Markov chain written here.

The chain's state is, per side, (models left, wounds on the damaged model); a volley is a
binomial number of unsaved hits, each dealing its damage to the damaged model first (damage
beyond a model's last wound is lost).  The engine's final states over many games must follow
the chain's exact law (chi-square, p > 0.001), and the same sample must reject the law of a
battle where wounds that do not kill are forgotten (the engine's old behaviour).
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import pytest

from compiler.battle import CHANCE, TERMINAL, Node, Rules, chi_square, chi_square_critical
from compiler.battle.walk import Walk
from compiler.driver import compile_text
from compiler.model.values import ProfileRef
from compiler.resolve import Evaluator, ResolveError, parse_expression
from compiler.resolve.casualties import casualties

# Two sides fire in turn (whole armies), the first side first, for up to TURNS game turns;
# a side with no model left loses at once; else a draw.
DUEL = '''
ruleset duel "Duel":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat D "Damage" dice
stat Sv "Save" target
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
test save(Sv) = roll d6 >= Sv
attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each weapon.A
  hits = shots each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed = unsaved removes target, damage weapon.D
unit ogre "Ogre":
  BS 4  W 3  Sv 5+
  weapons cleaver
unit gunner "Gunner":
  BS 4  W 1  Sv 6+
  weapons pistol
unit brute "Brute":
  BS 3  W 2  Sv 4+
  weapons maul
unit trooper "Trooper":
  BS 4  W 2  Sv 5+
  weapons lance
weapon cleaver "Cleaver":
  A 2  D 1
weapon pistol "Pistol":
  A 1  D 1
weapon maul "Maul":
  A 1  D d3
weapon lance "Lance":
  A 1  D 2
game duel "A firefight":
  turns 4
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wipe_out "Annihilation" by annihilation: "A side with no model left loses."
scenario ogres "Two ogres against six gunners":
  game duel
  distance 12"
  first ogres
  side ogres "Ogres":
    2 ogre
  side gunners "Gunners":
    6 gunner
scenario brutes "Three brutes against three troopers":
  game duel
  distance 12"
  first brutes
  side brutes "Brutes":
    3 brute
  side troopers "Troopers":
    3 trooper
'''

# per side: shots per model, chance a shot is unsaved (its to-hit × the enemy's failed save), its
# weapon's damage law, its models' wounds
SIDES = {
    "ogres": (2, Fraction(3, 6) * Fraction(5, 6), {1: Fraction(1)}, 3),   # cleaver at gunners (W1, Sv6+)
    "gunners": (1, Fraction(3, 6) * Fraction(4, 6), {1: Fraction(1)}, 1),  # pistol at ogres (W3, Sv5+)
    "brutes": (1, Fraction(4, 6) * Fraction(4, 6), {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}, 2),
    "troopers": (1, Fraction(3, 6) * Fraction(3, 6), {2: Fraction(1)}, 2),
}
PAIRS = {"ogres": ("ogres", "gunners", 2, 6), "brutes": ("brutes", "troopers", 3, 3)}
TURNS = 4

Side = tuple[int, int]  # models left, wounds on the damaged model
Law = dict[Side, Fraction]


def hits_law(models: int, shots: int, p: Fraction) -> dict[int, Fraction]:
    n = models * shots
    return {k: comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)}


def take(side: Side, hits: int, damage: dict[int, Fraction], wounds: int, keep: bool) -> Law:
    """The law of ``side`` after ``hits`` unsaved hits, each of ``damage``; with ``keep`` False a
    wound that did not kill is forgotten after the volley (the old engine)."""
    law: Law = {side: Fraction(1)}
    for _ in range(hits):
        nxt: Law = {}
        for (m, w), p in law.items():
            if m == 0:
                nxt[(m, w)] = nxt.get((m, w), 0) + p
                continue
            for d, q in damage.items():
                after = (m - 1, 0) if w + d >= wounds else (m, w + d)
                nxt[after] = nxt.get(after, 0) + p * q
        law = nxt
    if not keep:
        forgotten: Law = {}
        for (m, w), p in law.items():
            forgotten[(m, 0)] = forgotten.get((m, 0), 0) + p
        law = forgotten
    return law


def chain(scenario: str, keep: bool, turns: int = TURNS) -> dict[tuple[Side, Side], Fraction]:
    """The exact law of the final state (first side, second side) of a scenario's battle."""
    first, second, m1, m2 = PAIRS[scenario]
    states: dict[tuple[Side, Side], Fraction] = {((m1, 0), (m2, 0)): Fraction(1)}
    for _ in range(turns):
        for shooter in (first, second):
            shots, p, damage, _ = SIDES[shooter]
            victim = second if shooter == first else first
            wounds = SIDES[victim][3]
            nxt: dict[tuple[Side, Side], Fraction] = {}
            for (a, b), q in states.items():
                if a[0] == 0 or b[0] == 0:  # annihilation: the battle is over
                    nxt[(a, b)] = nxt.get((a, b), 0) + q
                    continue
                me, foe = (a, b) if shooter == first else (b, a)
                for n, pn in hits_law(me[0], shots, p).items():
                    for after, pa in take(foe, n, damage, wounds, keep).items():
                        key = (a, after) if shooter == first else (after, b)
                        nxt[key] = nxt.get(key, 0) + q * pn * pa
            states = nxt
    return states


@pytest.fixture(scope="module")
def duel():  # type: ignore[no-untyped-def]
    result = compile_text(DUEL, "duel.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    return result.rulesets[0]


def final_states(model, scenario: str, games: int, seed: int) -> dict[tuple[Side, Side], int]:  # type: ignore[no-untyped-def]
    """The final states of ``games`` greedy battles, walked over the engine's kept transitions
    (each the game the engine plays with its seed: tests/test_battle_walk.py)."""
    sc = model.get(scenario)
    walk = Walk(Rules(model), sc, ["greedy", "greedy"])
    counts: dict[tuple[Side, Side], int] = {}
    for g in range(games):
        final = walk.play(seed * 1_000_003 + g).final
        assert final is not None
        a, b = final.units
        key = ((a.models, a.wounds), (b.models, b.wounds))
        counts[key] = counts.get(key, 0) + 1
    return counts


def chi2(counts: dict[tuple[Side, Side], int], law: dict[tuple[Side, Side], Fraction]) -> tuple[float, float]:
    """Pearson's statistic over the final states (rare cells pooled) and its critical value at p = 0.001."""
    games = sum(counts.values())
    if not set(counts) <= set(law):
        return float("inf"), 0.0  # a final state that the law rules out was reached
    cells = sorted(law)
    stat, df = chi_square([counts.get(k, 0) for k in cells], [float(law[k]) * games for k in cells])
    return stat, chi_square_critical(df, 0.001)


@pytest.mark.parametrize("scenario,seed", [("ogres", 1), ("ogres", 2), ("brutes", 3)])
def test_wounds_stay_on_a_model_as_the_exact_chain_says(duel, scenario: str, seed: int) -> None:  # type: ignore[no-untyped-def]
    counts = final_states(duel, scenario, 20_000, seed)
    stat, critical = chi2(counts, chain(scenario, keep=True))
    assert stat < critical, (stat, critical)
    # the same sample rejects a battle where a wound that does not kill is forgotten
    # (the states it can reach: wounds on the damaged models dropped)
    stat_old, critical_old = chi2(_forget(counts), chain(scenario, keep=False))
    assert stat_old > critical_old, (stat_old, critical_old)


def _forget(counts: dict[tuple[Side, Side], int]) -> dict[tuple[Side, Side], int]:
    out: dict[tuple[Side, Side], int] = {}
    for (a, b), n in counts.items():
        key = ((a[0], 0), (b[0], 0))
        out[key] = out.get(key, 0) + n
    return out


def test_the_chain_of_the_duel_is_a_law() -> None:
    for scenario in PAIRS:
        for keep in (True, False):
            assert sum(chain(scenario, keep).values()) == 1


# -- the resolver's removal from a damaged model, against enumeration ------------------------

def removal_oracle(hits: int, damage: dict[int, Fraction], wounds: int, models: int, start: int) -> dict[Side, Fraction]:
    """(models killed, wounds on the damaged model) after exactly ``hits`` damage rolls, every
    sequence of rolls enumerated."""
    out: dict[Side, Fraction] = {}
    for rolls in itertools.product(list(damage.items()), repeat=hits):
        p = Fraction(1)
        killed, taken = 0, start
        for d, q in rolls:
            p *= q
            if killed >= models:
                continue
            if taken + d >= wounds:
                killed, taken = killed + 1, 0
            else:
                taken += d
        key = (killed, 0 if killed >= models else taken)
        out[key] = out.get(key, 0) + p
    return out


@pytest.mark.parametrize("hits,wounds,models,start", [(0, 3, 2, 2), (1, 3, 2, 2), (3, 3, 2, 1), (4, 2, 3, 1),
                                                       (5, 4, 2, 3), (2, 1, 3, 0), (6, 3, 1, 2)])
def test_removal_from_a_damaged_model_matches_enumeration(duel, hits: int, wounds: int, models: int,  # type: ignore[no-untyped-def]
                                                           start: int) -> None:
    from compiler.resolve.dist import Dist
    ev = Evaluator(duel, exact=True)
    damage = {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
    got = casualties(ev, hits, Dist.from_weights(damage), wounds, models, None, start=start, joint=True)
    assert got == removal_oracle(hits, damage, wounds, models, start)
    marginal = casualties(ev, hits, Dist.from_weights(damage), wounds, models, None, start=start)
    killed: dict[int, Fraction] = {}
    for (k, _), p in got.items():
        killed[k] = killed.get(k, 0) + p
    assert marginal.probabilities() == killed


def test_an_attack_on_a_damaged_unit_is_resolved_from_its_wounds(duel) -> None:  # type: ignore[no-untyped-def]
    ev = Evaluator(duel, exact=True)
    call = parse_expression("shooting(shooter, weapon, target)")
    # three brutes (W2) shoot at two troopers (W2), one of which has taken a wound already
    for start in (0, 1):
        env = {"shooter": ProfileRef("brute", 3), "weapon": ProfileRef("maul"),
               "target": ProfileRef("trooper", 2, start)}
        steps = ev.evaluate(call, env).steps
        p = Fraction(4, 6) * Fraction(4, 6)  # hit on 3+, the trooper's save fails on 1-4
        law: dict[Side, Fraction] = {}
        for n, pn in hits_law(3, 1, p).items():
            for (m, w), q in take((2, start), n, SIDES["brutes"][2], 2, True).items():
                law[(2 - m, w)] = law.get((2 - m, w), 0) + pn * q
        assert steps.removal_state("killed") == {k: v for k, v in law.items() if v}
        assert steps["killed"].probabilities() == {k: sum(v for (kk, _), v in law.items() if kk == k)
                                                   for k in {k for k, _ in law}}
    with pytest.raises(ResolveError, match="cannot have taken 2"):
        ev.evaluate(call, {"shooter": ProfileRef("brute", 3), "weapon": ProfileRef("maul"),
                           "target": ProfileRef("trooper", 2, 2)}).steps["killed"]


# -- the battle as a game tree ------------------------------------------------------------------

def test_the_game_tree_of_a_short_duel_is_the_exact_chain(duel) -> None:  # type: ignore[no-untyped-def]
    """Every node of a two-turn duel walked, each side always shooting: the law of the final
    states, from the chance nodes' exact laws, is the Markov chain's, fraction for fraction."""
    rules = Rules(duel, exact=True)
    sc = duel.get("brutes")
    law: dict[tuple[Side, Side], Fraction] = {}
    kinds: set[str] = set()
    todo = [(Node.root(rules, sc), Fraction(1))]
    while todo:
        node, p = todo.pop()
        player = node.current_player()
        if player == TERMINAL:
            a, b = node.state().units
            key = ((a.models, a.wounds), (b.models, b.wounds))
            law[key] = law.get(key, 0) + p
            assert node.returns() == ([1.0, -1.0] if b.models == 0 else [-1.0, 1.0] if a.models == 0 else [0.0, 0.0])
        elif player == CHANCE:
            kinds.add(node.chance_kind())
            outcomes = node.chance_outcomes()
            assert sum(q for _, q in outcomes) == 1
            todo += [(node.child(i), p * q) for i, q in outcomes]
        else:
            choice = node.choice()
            assert choice is not None and choice.side == player and choice.kind == "action"
            assert [o.label for o in choice.options] == ["Shoot", "Nothing"]
            todo.append((node.child(0), p))
    assert kinds == {"volley"}
    assert law == chain("brutes", keep=True, turns=TURNS)


def test_a_node_is_its_history_played_again(duel) -> None:  # type: ignore[no-untyped-def]
    rules = Rules(duel, exact=True)
    root = Node.root(rules, duel.get("ogres"))
    assert root.current_player() == 0 and root.legal_actions() == [0, 1]  # the ogres: shoot or not
    idle = root.child(1)  # the ogres do nothing: the gunners' turn
    assert idle.current_player() == 1 and [u.models for u in idle.state().units] == [2, 6]
    shot = root.child(0)
    assert shot.is_chance_node() and shot.chance_kind() == "volley"
    # the ogres' four shots (hit 4+, the gunners' save 6+ fails on 1-5): killed 0..4, each exact
    p = SIDES["ogres"][1]
    assert [q for _, q in shot.chance_outcomes()] == [comb(4, k) * p ** k * (1 - p) ** (4 - k) for k in range(5)]
    after = shot.child(3)
    assert [u.models for u in after.state().units] == [2, 3] and after.history == (0, 3)
    with pytest.raises(ValueError, match="not a legal answer"):
        shot.child(9)


def test_every_action_effect_is_registered_with_what_it_does() -> None:
    from compiler.battle import EFFECTS
    assert {"move", "attack", "engage", "sets", "destroyed", "tests", "clears"} <= set(EFFECTS)
    assert all(fn.__doc__ and fn.__doc__.strip() for fn in EFFECTS.values())
