"""The catalogue of mechanics (tests/catalogue) against independent oracles.

Each mechanic of the catalogue ruleset is asked of the resolver, and the whole exact
distribution it gives is compared with an oracle written here from the mechanic's meaning:
a brute-force enumeration of every die (``itertools.product`` with exact Fractions) or
icepool. The oracles share nothing with warscribe but the rules as stated in words.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

import icepool
import pytest

from compiler.driver import compile_paths
from compiler.resolve.evaluator import Evaluator, is_dist, parse_expression, unwrap

CATALOGUE = Path(__file__).parent / "catalogue"

Dist = dict[Any, Fraction]
D6 = range(1, 7)
D20 = range(1, 21)


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_paths([str(CATALOGUE)])
    assert result.ok, [str(d.message) for d in result.diagnostics]
    assert not result.diagnostics, [str(d.message) for d in result.diagnostics]
    return result.rulesets[0]


def ask(model: Any, question: str) -> Any:
    return Evaluator(model).evaluate(parse_expression(question))


def as_map(value: Any) -> Dist:
    """The resolver's answer as {outcome: probability}; yes/no as 1/0."""
    if not is_dist(value):
        return {_key(unwrap(value)): Fraction(1)}
    out: Dist = {}
    for o, p in value.probabilities().items():
        key = _key(unwrap(o))
        out[key] = out.get(key, Fraction(0)) + p
    return {k: p for k, p in out.items() if p}


def _key(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    return v


# --- oracle helpers: plain Python over exact fractions --------------------------------------

def enum(fn: Callable[..., Any], *dice: Iterable[Any]) -> Dist:
    """Every combination of faces, each equally likely; ``fn`` reads one combination."""
    faces = [list(d) for d in dice]
    weight = Fraction(1)
    for f in faces:
        weight /= len(f)
    out: Dist = {}
    for combo in itertools.product(*faces):
        k = _key(fn(*combo))
        out[k] = out.get(k, Fraction(0)) + weight
    return {k: p for k, p in out.items() if p}


def bind(dist: Dist, fn: Callable[[Any], Dist]) -> Dist:
    out: Dist = {}
    for o, p in dist.items():
        for k, q in fn(o).items():
            out[k] = out.get(k, Fraction(0)) + p * q
    return {k: p for k, p in out.items() if p}


def add(a: Dist, b: Dist) -> Dist:
    return bind(a, lambda x: {x + y: q for y, q in b.items()})


def power(d: Dist, n: int) -> Dist:
    total: Dist = {0: Fraction(1)}
    for _ in range(n):
        total = add(total, d)
    return total


def of_random(n: Dist, per: Dist) -> Dist:
    """The sum of ``n`` independent copies of ``per``, ``n`` itself random."""
    return bind(n, lambda k: power(per, k))


def bernoulli(p: Fraction) -> Dist:
    return {k: v for k, v in {1: p, 0: 1 - p}.items() if v}


def ice(die: icepool.Die) -> Dist:
    den = die.denominator()
    return {_key(o): Fraction(q, den) for o, q in die.items() if q}


def d3_face(r: int) -> int:
    return r if r <= 3 else r - 3


# --- exploding dice: every sequence of rolls, the rest cut off ----------------------------

def exploding(sides: int, times: int) -> tuple[Dist, Fraction]:
    """A die rolled again and added on its top face, at most ``times`` more rolls; the chance
    of a top face on the last allowed roll is cut off (not counted)."""
    out: Dist = {}
    cut = Fraction(0)

    def go(total: int, p: Fraction, rolls_left: int) -> None:
        nonlocal cut
        for face in range(1, sides + 1):
            q = p / sides
            if face == sides:
                if rolls_left == 0:
                    cut += q
                else:
                    go(total + face, q, rolls_left - 1)
            else:
                out[total + face] = out.get(total + face, Fraction(0)) + q

    go(0, Fraction(1), times)
    return out, cut


# --- the attack sequence of the catalogue (hit, wound, save), die by die ---------------------

def wound_need(s: int, t: int) -> int:
    if s >= 2 * t:
        return 2
    if s > t:
        return 3
    if s == t:
        return 4
    if 2 * s <= t:
        return 6
    return 5


def d6_test(need: int, mod: int = 0, nat1_fails: bool = True, nat6_passes: bool = True,
            cap: bool = True) -> Callable[[int], bool]:
    """A d6 against ``need`` with a roll modifier (capped to ±1 when ``cap``)."""
    if cap:
        mod = max(-1, min(1, mod))

    def ok(r: int) -> bool:
        if r == 1 and nat1_fails:
            return False
        if r == 6 and nat6_passes:
            return True
        return r + mod >= need
    return ok


def rolled(ok: Callable[[int], bool], reroll: str | None = None) -> list[tuple[int, bool, Fraction]]:
    """(final natural face, success, chance) of one d6 test, with at most one re-roll:
    ``"ones"`` re-rolls a 1, ``"failures"`` any failure."""
    out = []
    for r in D6:
        again = (reroll == "ones" and r == 1) or (reroll == "failures" and not ok(r))
        if again:
            out.extend((r2, ok(r2), Fraction(1, 36)) for r2 in D6)
        else:
            out.append((r, ok(r), Fraction(1, 6)))
    return out


def attack_oracle(bs: int, s: int, t: int, save_need: int, *, hit_mod: int = 0, wound_mod: int = 0,
                  sustained: int = 0, lethal: bool = False, devastating: bool = False,
                  hit_reroll: str | None = None, wound_reroll: str | None = None,
                  auto_hit: bool = False, anti: int | None = None) -> Dist:
    """One attack: joint distribution of (hits, wounds, unsaved). ``anti``: an unmodified
    roll of that much or more to wound always wounds (a critical wound)."""
    hit_ok = d6_test(bs, hit_mod)
    chart_ok = d6_test(wound_need(s, t), wound_mod)

    def wound_ok(r: int) -> bool:
        return chart_ok(r) or (anti is not None and r >= anti)

    def token(auto_wound: bool) -> Dist:  # one hit: (wounds, unsaved)
        if auto_wound:
            return {(1, u): p for u, p in enum(lambda sv: int(sv == 1 or sv < save_need), D6).items()}
        out: Dist = {}
        for w, w_ok, pw in rolled(wound_ok, wound_reroll):
            if not w_ok:
                out[(0, 0)] = out.get((0, 0), Fraction(0)) + pw
                continue
            if devastating and w == 6:
                out[(1, 1)] = out.get((1, 1), Fraction(0)) + pw
                continue
            for sv in D6:
                key = (1, int(sv == 1 or sv < save_need))
                out[key] = out.get(key, Fraction(0)) + pw / 6
        return out

    def combine(tokens: list[bool]) -> Dist:
        total: Dist = {(len(tokens), 0, 0): Fraction(1)}
        for auto in tokens:
            one = token(auto)
            total = bind(total, lambda acc, one=one: {(acc[0], acc[1] + w, acc[2] + u): q
                                                      for (w, u), q in one.items()})
        return total

    if auto_hit:
        return combine([False])
    out: Dist = {}
    for h, h_ok, ph in rolled(hit_ok, hit_reroll):
        if not h_ok:
            tokens: list[bool] = []
        elif h == 6:
            tokens = [lethal] + [False] * sustained
        else:
            tokens = [False]
        for k, q in combine(tokens).items():
            out[k] = out.get(k, Fraction(0)) + ph * q
    return out


def tuple_add(a: Dist, b: Dist) -> Dist:
    return bind(a, lambda x: {tuple(i + j for i, j in zip(x, y)): q for y, q in b.items()})


def tuple_power(d: Dist, n: int) -> Dist:
    total: Dist = {(0, 0, 0): Fraction(1)}
    for _ in range(n):
        total = tuple_add(total, d)
    return total


def step(joint: Dist, index: int) -> Dist:
    out: Dist = {}
    for k, p in joint.items():
        out[k[index]] = out.get(k[index], Fraction(0)) + p
    return out


HITS, WOUNDS, UNSAVED = 0, 1, 2


def volley(per_attack: Dist, attacks: int | Dist) -> Dist:
    if isinstance(attacks, int):
        return tuple_power(per_attack, attacks)
    return bind(attacks, lambda n: tuple_power(per_attack, n))


def killed(unsaved: Dist, damage: Dist, wounds: int, models: int) -> Dist:
    """Models removed when each unsaved attack deals its damage to the current model;
    damage beyond that model's last wound is lost."""
    out: Dist = {}
    for n, pn in unsaved.items():
        states: Dist = {(0, wounds): pn}
        for _ in range(n):
            nxt: Dist = {}
            for (dead, left), p in states.items():
                if dead == models:
                    nxt[(dead, left)] = nxt.get((dead, left), Fraction(0)) + p
                    continue
                for d, q in damage.items():
                    key = (dead + 1, wounds) if d >= left else (dead, left - d)
                    nxt[key] = nxt.get(key, Fraction(0)) + p * q
            states = nxt
        for (dead, _), p in states.items():
            out[dead] = out.get(dead, Fraction(0)) + p
    return {k: p for k, p in out.items() if p}


def after_ward(damage: Dist, ward: int) -> Dist:
    """Each point of damage rolls a d6 and is ignored on ``ward`` or more."""
    return bind(damage, lambda d: enum(lambda *rolls: sum(1 for r in rolls if r < ward), *([D6] * d))
                if d else {0: Fraction(1)})


# --- allocation: the defender tries every way of spending saves ------------------------------

@lru_cache(maxsize=None)
def least_damage(crit_hits: int, normal_hits: int, crit_saves: int, normal_saves: int,
                 normal: int, crit: int) -> int:
    best = crit_hits * crit + normal_hits * normal  # spend nothing more
    if crit_saves and crit_hits:
        best = min(best, least_damage(crit_hits - 1, normal_hits, crit_saves - 1, normal_saves, normal, crit))
    if crit_saves and normal_hits:
        best = min(best, least_damage(crit_hits, normal_hits - 1, crit_saves - 1, normal_saves, normal, crit))
    if normal_saves and normal_hits:
        best = min(best, least_damage(crit_hits, normal_hits - 1, crit_saves, normal_saves - 1, normal, crit))
    if normal_saves >= 2 and crit_hits:
        best = min(best, least_damage(crit_hits - 1, normal_hits, crit_saves, normal_saves - 2, normal, crit))
    return best


def firefight_oracle(attacks: int, bs: int, defence: int, sv: int, normal: int, crit: int) -> Dist:
    def kind(need: int) -> Callable[[int], str]:
        return lambda r: "crit" if r == 6 else ("normal" if r >= need else "miss")
    attack = enum(kind(bs), D6)
    save = enum(kind(sv), D6)
    out: Dist = {}
    for a in itertools.product(attack.items(), repeat=attacks):
        for s in itertools.product(save.items(), repeat=defence):
            p = Fraction(1)
            for _, q in a + s:
                p *= q
            faces_a = [k for k, _ in a]
            faces_s = [k for k, _ in s]
            dmg = least_damage(faces_a.count("crit"), faces_a.count("normal"),
                               faces_s.count("crit"), faces_s.count("normal"), normal, crit)
            out[dmg] = out.get(dmg, Fraction(0)) + p
    return out


# --- opposed rolls ----------------------------------------------------------------------------

def face_to_face_oracle(a: int, d: int) -> Dist:
    def outcome(x: int, y: int) -> str:
        x_ok, y_ok = x <= a, y <= d
        x_crit, y_crit = x == a, y == d
        if not x_ok and not y_ok:
            return "neither"
        if x_ok and not y_ok:
            return "attacker"
        if y_ok and not x_ok:
            return "defender"
        if x_crit and y_crit:
            return "neither"
        if x_crit:
            return "attacker"
        if y_crit:
            return "defender"
        if x == y:
            return "neither"
        return "attacker" if x > y else "defender"
    return enum(outcome, D20, D20)


# --- the catalogue: question → oracle ---------------------------------------------------------

ATTACK_FACES = ["crit", "hit", "hit", "hit", "focus", "focus", "blank", "blank"]
BLOCK_RANK = {1: 1, 2: 2, 3: 3, 4: 3, 5: 4, 6: 5}


def attack_die_oracle(focused: bool) -> Dist:
    return enum(lambda f: int(f in ("crit", "hit") or (focused and f == "focus")), ATTACK_FACES)


def _pool(n: int, die: Dist) -> Dist:
    return power(die, n)


MECHANICS: dict[str, tuple[str, Callable[[], Dist]]] = {
    # dice
    "two_d6": ("two_d6()", lambda: enum(lambda a, b: a + b, D6, D6)),
    "d3_from_a_d6_plus_one": ("d3_plus_one()", lambda: enum(lambda r: d3_face(r) + 1, D6)),
    "fate_dice": ("fate_roll(2)", lambda: enum(lambda *f: 2 + sum(f), *([(-1, 0, 1)] * 4))),
    "advantage": ("advantage()", lambda: enum(max, D20, D20)),
    "disadvantage": ("disadvantage()", lambda: enum(min, D20, D20)),
    "roll_three_keep_two": ("keep_two_of_three()", lambda: ice(icepool.d6.pool(3).highest(2).sum())),
    "four_dice_drop_the_lowest": ("ability_score()", lambda: ice(icepool.d6.pool(4).highest(3).sum())),
    "three_dice_keep_the_lowest_two": ("worst_two_of_three()", lambda: enum(
        lambda a, b, c: a + b + c - max(a, b, c), D6, D6, D6)),
    "keep_highest_of_many_d10": ("keep_highest(3, 6, d10)", lambda: ice(icepool.d10.pool(6).highest(3).sum())),
    "dice_from_an_earlier_roll": ("dice_from_a_roll()",
                                  lambda: of_random(enum(d3_face, D6), enum(lambda r: r, D6))),
    "success_pool_tens_twice": ("success_pool(3)", lambda: _pool(3, enum(
        lambda r: 2 if r == 10 else int(r >= 8), range(1, 11)))),
    "successes_that_explode_on_ten": ("ten_again_pool(3)", lambda: _pool(3, enum(
        lambda a, b, c: int(a >= 8) + (int(b >= 8) + (int(c >= 8) if b == 10 else 0) if a == 10 else 0),
        range(1, 11), range(1, 11), range(1, 11)))),
    "custom_faces_without_focus": ("attack_dice(3)", lambda: _pool(3, attack_die_oracle(False))),
    "custom_faces_chooser_focus": ("attack_dice(3) with focused", lambda: _pool(3, attack_die_oracle(True))),
    "block_dice_attacker_chooses": ("two_block_dice()",
                                    lambda: enum(lambda a, b: max(BLOCK_RANK[a], BLOCK_RANK[b]), D6, D6)),
    "reroll_a_die_on_one": ("reroll_die()", lambda: ice(icepool.d6.reroll([1], depth=1))),
    # tests
    "hit_roll": ("hit(3+)", lambda: enum(d6_test(3), D6)),
    "moving_penalty": ("hit(4+) with moved", lambda: enum(d6_test(4, -1), D6)),
    "modifier_cap": ("hit(3+) with moved, darkness", lambda: enum(d6_test(3, -2), D6)),
    "natural_six_hits_despite_penalty": ("hit(6+) with moved", lambda: bernoulli(Fraction(1, 6))),
    "morale_two_dice_under": ("morale(7)", lambda: enum(lambda a, b: a + b <= 7, D6, D6)),
    "bands_of_success": ("moves(1)", lambda: enum(
        lambda a, b: "full" if a + b + 1 >= 10 else ("partial" if a + b + 1 >= 7 else "miss"), D6, D6)),
    "shots_then_hits": ("shots_then_hits(3+)", lambda: of_random(enum(lambda r: r, D6), enum(d6_test(3), D6))),
    "morale_penalty_per_casualty": ("morale(7) with casualties = 2", lambda: enum(
        lambda a, b: a + b <= 5, D6, D6)),
    "activation_or_bust": ("activation(3)", lambda: enum(
        lambda *r: "bust" if sum(x < 3 for x in r) >= 2 else sum(x >= 3 for x in r), D6, D6, D6)),
    "scatter_on_target_with_a_double": ("scatter(4)", lambda: enum(
        lambda a, b: 0 if a == b else max(0, a + b - 4), D6, D6)),
    "roll_under_with_a_bonus": ("skill_check(12) with aiming", lambda: enum(
        lambda r: r == 1 or (r != 20 and r <= 14), D20)),
    "snap_shots_hit_on_sixes_only": ("hit(3+) with overwatch", lambda: enum(lambda r: r == 6, D6)),
    "snap_shots_after_moving": ("hit(3+) with overwatch, moved", lambda: enum(lambda r: r == 6, D6)),
    "armour_then_injury": ("armour_then_injury(8)", lambda: enum(
        lambda a, b, c, d: "standing" if a + b <= 8 else (
            "stunned" if c + d <= 7 else ("out" if c + d <= 9 else "casualty")), D6, D6, D6, D6)),
    # re-rolls
    "reroll_ones_to_hit": ("hit_reroll_ones(4+)", lambda: ice(
        icepool.d6.reroll([1], depth=1).map(lambda r: r >= 4))),
    "reroll_failed_hits": ("hit_reroll_failures(4+)", lambda: ice(
        icepool.d6.reroll(lambda r: r < 4, depth=1).map(lambda r: r >= 4))),
    "reroll_ones_and_twos_to_wound": ("wound_reroll_low(4, 5)", lambda: ice(
        icepool.d6.reroll([1, 2], depth=1).map(lambda r: r >= 5))),
    "reroll_granted_by_a_situation": ("guided_hit(4+) with darkness", lambda: ice(
        icepool.d6.reroll([1], depth=1).map(lambda r: r >= 4))),
    "no_reroll_without_the_situation": ("guided_hit(4+)", lambda: enum(lambda r: r >= 4, D6)),
    # saves
    "save_never_better_than_two": ("capped_save(2+, 0) with in_cover", lambda: enum(lambda r: r >= 2, D6)),
    "save_cover_bonus": ("capped_save(5+, 1) with in_cover", lambda: enum(lambda r: r >= 4, D6)),
    "cover_bonuses_do_not_stack": ("covered_save(5+) with in_cover, dense_cover", lambda: enum(
        lambda r: r != 1 and r + 2 >= 5, D6)),
    "light_cover_alone": ("covered_save(5+) with in_cover", lambda: enum(lambda r: r != 1 and r + 1 >= 5, D6)),
    # opposed rolls
    "opposed_d20_with_criticals": ("face_to_face(12, 10)", lambda: face_to_face_oracle(12, 10)),
    "opposed_d20_equal_attributes": ("face_to_face(15, 15)", lambda: face_to_face_oracle(15, 15)),
    "roll_off_ties_to_defender": ("roll_off(4, 3)", lambda: enum(lambda a, b: a + 4 > b + 3, D6, D6)),
    "roll_off_ties_rolled_again": ("roll_off_again(3, 4)", lambda: enum(
        lambda a, b, c, d: a + 3 > b + 4 if a + 3 != b + 4 else c + 3 > d + 4, D6, D6, D6, D6)),
    "two_dice_plus_stat_against_defence": ("two_dice_attack(5, 14)", lambda: enum(
        lambda a, b: a + b + 5 >= 14, D6, D6)),
    "boosted_third_die": ("boosted_attack(5, 14)", lambda: enum(
        lambda a, b, c: a + b + c - min(a, b, c) + 5 >= 14, D6, D6, D6)),
    "boosted_third_die_built_in": ("boosted_attack_kept(5, 14)", lambda: enum(
        lambda a, b, c: a + b + c - min(a, b, c) + 5 >= 14, D6, D6, D6)),
    # allocation
    "crits_allocated_at_best": ("firefight(3, 3+, 3, 4+, 3, 4)", lambda: firefight_oracle(3, 3, 3, 4, 3, 4)),
    "crits_allocated_at_best_heavy_crits": ("firefight(4, 4+, 2, 3+, 2, 5)",
                                            lambda: firefight_oracle(4, 4, 2, 3, 2, 5)),
}


def _attack(question: str, index: int, per_attack: Callable[[], Dist], attacks: Callable[[], int | Dist]
            ) -> tuple[str, Callable[[], Dist]]:
    return question, lambda: step(volley(per_attack(), attacks()), index)


D3 = enum(d3_face, D6)
ATTACKS: dict[str, tuple[str, Callable[[], Dist]]] = {
    # marine BS 3+, guardsman BS 4+; the rifle S4 AP1 against T4 Sv 3+ → save 4+
    "hit_wound_save": _attack("shooting(5 guardsman, bolt_rifle, 5 marine).unsaved", UNSAVED,
                              lambda: attack_oracle(4, 4, 4, 4), lambda: 10),
    "random_attacks_per_model": _attack("shooting(2 marine, storm_gun, 10 guardsman).hits", HITS,
                                        lambda: attack_oracle(3, 4, 3, 5), lambda: power(enum(lambda r: r, D6), 2)),
    "blast_per_five_models": _attack("shooting(2 marine, frag, 11 guardsman).hits", HITS,
                                     lambda: attack_oracle(3, 4, 3, 5), lambda: power(add(D3, {2: Fraction(1)}), 2)),
    "blast_below_five_models": _attack("shooting(2 marine, frag, 4 guardsman).hits", HITS,
                                       lambda: attack_oracle(3, 4, 3, 5), lambda: power(D3, 2)),
    "rapid_fire_at_half_range": _attack("shooting(3 marine, carbine, 5 guardsman).hits with half_range", HITS,
                                        lambda: attack_oracle(3, 4, 3, 5), lambda: 6),
    "rapid_fire_value_of_the_weapon": _attack("shooting(2 marine, storm_bolter, 5 guardsman).hits with half_range",
                                              HITS, lambda: attack_oracle(3, 4, 3, 5), lambda: 8),
    "no_rapid_fire_beyond_half_range": _attack("shooting(2 marine, storm_bolter, 5 guardsman).hits", HITS,
                                               lambda: attack_oracle(3, 4, 3, 5), lambda: 4),
    "heavy_stationary": _attack("shooting(2 marine, heavy_gun, 5 brute).hits", HITS,
                                lambda: attack_oracle(3, 5, 6, 5, hit_mod=1), lambda: 6),
    "heavy_after_moving": _attack("shooting(2 marine, heavy_gun, 5 brute).hits with moved", HITS,
                                  lambda: attack_oracle(3, 5, 6, 5, hit_mod=-1), lambda: 6),
    "lance_on_the_charge": _attack("shooting(2 marine, lance_blade, 5 marine).wounds with charged", WOUNDS,
                                   lambda: attack_oracle(3, 4, 4, 4, wound_mod=1), lambda: 4),
    "reroll_wounds": _attack("shooting(2 marine, twin_gun, 5 marine).wounds", WOUNDS,
                             lambda: attack_oracle(3, 4, 4, 3, wound_reroll="failures"), lambda: 4),
    "cover_improves_the_save": _attack("shooting(3 marine, bolt_rifle, 5 guardsman).unsaved with in_cover",
                                       UNSAVED, lambda: attack_oracle(3, 4, 3, 5), lambda: 6),
    "ignores_cover": _attack("shooting(3 marine, sniper, 5 guardsman).unsaved with in_cover", UNSAVED,
                             lambda: attack_oracle(3, 4, 3, 5), lambda: 3),
    "invulnerable_save": _attack("shooting(3 marine, melta_gun, 1 warded).unsaved", UNSAVED,
                                 lambda: attack_oracle(3, 9, 4, 4), lambda: 3),
    "sustained_hits_with_rerolled_misses": _attack("shooting(2 marine, sus_gun, 5 marine).wounds", WOUNDS,
                                                   lambda: attack_oracle(3, 4, 4, 3, sustained=1,
                                                                         hit_reroll="failures"), lambda: 4),
    "sustained_hits_highest_of_two": _attack("shooting(1 sergeant, sus_gun, 5 marine).hits", HITS,
                                             lambda: attack_oracle(3, 4, 4, 3, sustained=2,
                                                                   hit_reroll="failures"), lambda: 2),
    "lethal_hits_with_rerolled_ones": _attack("shooting(2 marine, lethal_gun, 5 marine).wounds", WOUNDS,
                                              lambda: attack_oracle(3, 4, 4, 3, lethal=True, hit_reroll="ones"),
                                              lambda: 4),
    "devastating_wounds_with_rerolled_wounds": _attack("shooting(2 marine, dev_gun, 5 marine).unsaved", UNSAVED,
                                                       lambda: attack_oracle(3, 4, 4, 3, devastating=True,
                                                                             wound_reroll="failures"), lambda: 4),
    "sustained_lethal_devastating_rerolled": _attack("shooting(2 marine, combo_gun, 5 marine).unsaved", UNSAVED,
                                                     lambda: attack_oracle(3, 4, 4, 4, sustained=1, lethal=True,
                                                                           devastating=True,
                                                                           hit_reroll="failures"), lambda: 4),
    "two_rerolls_never_reroll_twice": _attack("shooting(2 marine, aimed_gun, 5 marine).hits", HITS,
                                              lambda: attack_oracle(3, 4, 4, 3, hit_reroll="failures"), lambda: 4),
    "ability_values_that_add_up": _attack("shooting(1 spotter, barrage_gun, 5 marine).hits", HITS,
                                          lambda: attack_oracle(3, 4, 4, 3, sustained=3), lambda: 2),
    "critical_wounds_against_a_keyword": _attack("shooting(2 marine, anti_gun, 5 brute).wounds", WOUNDS,
                                                 lambda: attack_oracle(3, 3, 6, 7, anti=4), lambda: 4),
    "no_critical_wounds_against_other_keywords": _attack("shooting(2 marine, anti_gun, 5 walker).wounds",
                                                         WOUNDS, lambda: attack_oracle(3, 3, 6, 7), lambda: 4),
    "rerolled_misses_after_a_penalty": _attack("shooting(2 marine, sus_gun, 5 marine).wounds with moved", WOUNDS,
                                               lambda: attack_oracle(3, 4, 4, 3, sustained=1, hit_mod=-1,
                                                                     hit_reroll="failures"), lambda: 4),
    "heavy_bonus_cancels_night_penalty": _attack("shooting(2 marine, heavy_gun, 5 brute).hits with darkness", HITS,
                                                 lambda: attack_oracle(3, 5, 6, 5), lambda: 6),
    "lance_bonus_and_moving_penalty": _attack(
        "shooting(2 marine, lance_blade, 5 marine).unsaved with charged, moved", UNSAVED,
        lambda: attack_oracle(3, 4, 4, 4, hit_mod=-1, wound_mod=1), lambda: 4),
    "harder_to_hit_a_stealthy_target": _attack("shooting(2 marine, bolt_rifle, 5 scout).hits", HITS,
                                               lambda: attack_oracle(3, 4, 4, 5, hit_mod=-1), lambda: 4),
    "stealth_and_moving_capped_at_one": _attack("shooting(2 marine, bolt_rifle, 5 scout).hits with moved", HITS,
                                                lambda: attack_oracle(3, 4, 4, 5, hit_mod=-2), lambda: 4),
    "a_stealthy_shooter_is_not_penalised": _attack("shooting(2 scout, bolt_rifle, 5 marine).hits", HITS,
                                                   lambda: attack_oracle(3, 4, 4, 4), lambda: 4),
    "hits_that_ignore_modifiers": _attack("shooting(2 marine, unerring_gun, 5 marine).hits with moved, darkness",
                                          HITS, lambda: attack_oracle(3, 4, 4, 3), lambda: 4),
    "a_six_to_hit_ignores_cover": ("shooting(3 marine, searching_gun, 5 guardsman).unsaved with in_cover",
                                   lambda: power(enum(lambda h, w, sv: int(
                                       h >= 3 and w >= 3 and (sv == 1 or sv + (0 if h == 6 else 1) < 5)),
                                       D6, D6, D6), 3)),
    "strength_bonus_on_the_charge": _attack("shooting(2 marine, charge_axe, 5 champion).wounds with charged",
                                            WOUNDS, lambda: attack_oracle(3, 5, 5, 3), lambda: 4),
    "automatic_hits": _attack("torrent_shooting(2 marine, flamer, 5 guardsman).hits", HITS,
                              lambda: attack_oracle(3, 4, 3, 5, auto_hit=True),
                              lambda: power(enum(lambda r: r, D6), 2)),
    "automatic_hits_ignore_cover": _attack("torrent_shooting(1 marine, flamer, 5 guardsman).unsaved with in_cover",
                                           UNSAVED, lambda: attack_oracle(3, 4, 3, 5, auto_hit=True),
                                           lambda: enum(lambda r: r, D6)),
}


def _killed(question: str, per_attack: Callable[[], Dist], attacks: int, damage: Callable[[], Dist],
            wounds: int, models: int, ward: int | None = None) -> tuple[str, Callable[[], Dist]]:
    def oracle() -> Dist:
        dmg = damage() if ward is None else after_ward(damage(), ward)
        return killed(step(volley(per_attack(), attacks), UNSAVED), dmg, wounds, models)
    return question, oracle


ATTACKS.update({
    # the heavy blade: S6 AP1 D3 damage against brutes T6 W3 Sv 4+ → 5+
    "damage_does_not_spill_over": _killed("shooting(3 marine, heavy_blade, 2 brute).killed",
                                          lambda: attack_oracle(3, 6, 6, 5), 9, lambda: D3, 3, 2),
    "damage_reduced_by_one_never_below_one": _killed("durable_shooting(3 marine, heavy_blade, 2 ogre).killed",
                                                     lambda: attack_oracle(3, 6, 6, 5), 9,
                                                     lambda: enum(lambda r: max(1, d3_face(r) - 1), D6), 3, 2),
    "full_damage_against_others": _killed("durable_shooting(3 marine, heavy_blade, 2 brute).killed",
                                          lambda: attack_oracle(3, 6, 6, 5), 9, lambda: D3, 3, 2),
    "ward_save_after_damage": _killed("shooting(2 marine, heavy_blade, 2 hardy_brute).killed",
                                      lambda: attack_oracle(3, 6, 6, 5), 6, lambda: D3, 3, 2, ward=5),
    "extra_damage_at_half_range": _killed("shooting(2 marine, melta_gun, 2 brute).killed with half_range",
                                          lambda: attack_oracle(3, 9, 6, 7), 2,
                                          lambda: add(D3, {2: Fraction(1)}), 3, 2),
    "no_extra_damage_beyond_half_range": _killed("shooting(2 marine, melta_gun, 2 brute).killed",
                                                 lambda: attack_oracle(3, 9, 6, 7), 2, lambda: D3, 3, 2),
    "damage_amount_at_half_range": ("shooting(2 marine, melta_gun, 2 brute).damage with half_range",
                                    lambda: of_random(step(volley(attack_oracle(3, 9, 6, 7), 2), UNSAVED),
                                                      add(D3, {2: Fraction(1)}))),
    "hits_capped_at_the_target_models": ("volley(5 marine, bolt_rifle, 3 guardsman).wounds", lambda: bind(
        power(enum(d6_test(3), D6), 10), lambda h: power(enum(d6_test(wound_need(4, 3)), D6), min(h, 3)))),
    "survivors_fire_back": ("return_fire()", lambda: bind(
        killed(step(volley(attack_oracle(3, 4, 3, 6), 10), UNSAVED), {1: Fraction(1)}, 1, 10),
        lambda k: step(volley(attack_oracle(4, 4, 4, 4), 2 * (10 - k)), UNSAVED))),
    "hazard_roll_after_firing": ("shooting(3 marine, plasma, 5 guardsman).hazards",
                                 lambda: power(enum(lambda r: int(r == 1), D6), 3)),
})


def spill_oracle(attacks: int, damage: int, wounds: int, models: int, *, wound: int = 4, save: int = 3,
                 ward: int = 7) -> Dist:
    """Marines hitting on 3+: a natural 6 to wound is mortal wounds equal to the damage, no
    save; ordinary damage is allocated first, one attack at a time, and what a model cannot
    take is lost; the mortal wounds come after and go on from model to model. With a ward,
    each point of either kind is ignored on ``ward`` or more."""
    def one(h: int, w: int, sv: int) -> tuple[int, int]:  # (ordinary unsaved, mortal)
        if h < 3 or w < wound:
            return (0, 0)
        if w == 6:
            return (0, 1)
        return (int(sv == 1 or sv < save), 0)
    per = enum(one, D6, D6, D6)
    kept = bernoulli(Fraction(ward - 1, 6))  # a point of damage that the ward roll does not stop
    out: Dist = {}
    for combo in itertools.product(per.items(), repeat=attacks):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        ordinary = sum(o[0] for o, _ in combo)
        mortal = sum(o[1] for o, _ in combo)
        states: Dist = {(0, wounds): p}
        for _ in range(ordinary):
            nxt: Dist = {}
            for (dead, left), pp in states.items():
                for d, q in ({0: Fraction(1)} if dead == models else power(kept, damage)).items():
                    key = (dead + 1, wounds) if 0 < d >= left else (dead, left - d)
                    nxt[key] = nxt.get(key, Fraction(0)) + pp * q
            states = nxt
        for (dead_before, left_before), pp in states.items():
            for spill, q in power(kept, damage * mortal).items():
                dead, left = dead_before, left_before
                while spill and dead < models:
                    take = min(spill, left)
                    spill, left = spill - take, left - take
                    if left == 0:
                        dead, left = dead + 1, wounds
                out[dead] = out.get(dead, Fraction(0)) + pp * q
    return {k: v for k, v in out.items() if v}


def rending_oracle(attacks: int) -> Dist:
    """Hit 3+, wound 4+, save 3+ with damage 1; a natural 6 to wound needs a 5+ save and deals 2."""
    def one(h: int, w: int, sv: int) -> int:
        if h < 3 or w < 4:
            return 0
        crit = w == 6
        saved = sv != 1 and sv >= (5 if crit else 3)
        return 0 if saved else (2 if crit else 1)
    return power(enum(one, D6, D6, D6), attacks)


def rending_killed_oracle(attacks: int, wounds: int, models: int) -> Dist:
    """Each attack's own damage (0, 1, or 2 after a 6 to wound) to the models in turn, excess lost."""
    per = rending_oracle(1)
    out: Dist = {}
    for combo in itertools.product(per.items(), repeat=attacks):
        p = Fraction(1)
        dead, left = 0, wounds
        for d, q in combo:
            p *= q
            if d and dead < models:
                dead, left = (dead + 1, wounds) if d >= left else (dead, left - d)
        out[dead] = out.get(dead, Fraction(0)) + p
    return out


def sustained_d3_oracle(attacks: int) -> Dist:
    per = bind(enum(lambda h: h, D6), lambda h: {0: Fraction(1)} if h < 3 else (
        add({1: Fraction(1)}, D3) if h == 6 else {1: Fraction(1)}))
    return power(per, attacks)


ATTACKS.update({
    "mortal_wounds_spill_over": ("shooting(2 marine, mortal_gun, 3 marine).killed",
                                 lambda: spill_oracle(4, 3, 2, 3)),
    "ward_against_mortal_wounds": ("shooting(2 marine, mortal_gun, 2 hardy_brute).killed",
                                   lambda: spill_oracle(4, 3, 3, 2, wound=5, save=4, ward=5)),
    "a_six_to_wound_kills_with_its_own_damage": ("shooting(2 marine, rending_claw, 3 marine).killed",
                                                 lambda: rending_killed_oracle(4, 2, 3)),
    "random_extra_hits_on_a_six": ("shooting(1 marine, sus_d3_gun, 3 marine).hits", lambda: sustained_d3_oracle(2)),
    "a_six_to_wound_changes_ap_and_damage": ("shooting(2 marine, rending_claw, 3 marine).damage",
                                             lambda: rending_oracle(4)),
})

MECHANICS.update(ATTACKS)


@pytest.mark.parametrize("mechanic", sorted(MECHANICS))
def test_mechanic_matches_its_oracle(model: Any, mechanic: str) -> None:
    question, oracle = MECHANICS[mechanic]
    assert as_map(ask(model, question)) == oracle()


def test_exploding_six_is_cut_off_after_three_more_rolls(model: Any) -> None:
    value = ask(model, "exploding_d6()")
    reached, cut = exploding(6, 3)
    assert as_map(value) == reached
    assert value.truncated == cut == Fraction(1, 6 ** 4)


def test_trait_die_and_wild_die_keep_the_higher(model: Any) -> None:
    value = ask(model, "trait_and_wild()")
    trait, trait_cut = exploding(8, 2)
    wild, wild_cut = exploding(6, 2)
    reached: Dist = {}
    for x, p in trait.items():
        for y, q in wild.items():
            reached[max(x, y)] = reached.get(max(x, y), Fraction(0)) + p * q
    assert as_map(value) == reached
    # either die running past its last allowed roll leaves the result unknown
    assert value.truncated == 1 - (1 - trait_cut) * (1 - wild_cut)


@pytest.mark.parametrize("chart", ["wound", "old_wound"])
def test_wound_charts_over_every_strength_and_toughness(model: Any, chart: str) -> None:
    for s in range(1, 11):
        for t in range(1, 11):
            if chart == "wound":
                expected = enum(d6_test(wound_need(s, t)), D6)
            else:
                need = t - s + 4
                if need <= 6:
                    expected = enum(lambda r: r >= max(need, 2), D6)
                elif need <= 8:
                    expected = enum(lambda a, b: a == 6 and b >= need - 3, D6, D6)
                else:
                    expected = {0: Fraction(1)}
            assert as_map(ask(model, f"{chart}({s}, {t})")) == expected, (s, t)


def test_skill_check_on_a_d20(model: Any) -> None:
    for skill in (1, 8, 19, 20):
        expected = enum(lambda r: r == 1 or (r != 20 and r <= skill), D20)
        assert as_map(ask(model, f"skill_check({skill})")) == expected, skill



def test_the_fast_backend_agrees_on_every_mechanic(model: Any) -> None:
    # `--fast` works in floating point; it must give the same answers within rounding, and must
    # not fail where the exact backend answers (a roll bound with `let` whose branches roll more
    # dice used to mix the two backends and crash).
    for name, (question, _) in sorted(MECHANICS.items()):
        exact = as_map(ask(model, question))
        value = Evaluator(model, exact=False).evaluate(parse_expression(question))
        fast: dict[Any, float] = {}
        for o, p in (value.probabilities().items() if is_dist(value) else [(value, 1.0)]):
            fast[_key(unwrap(o))] = fast.get(_key(unwrap(o)), 0.0) + float(p)
        for k in set(exact) | set(fast):
            assert abs(float(exact.get(k, 0)) - fast.get(k, 0.0)) < 1e-9, (name, k)


def test_every_mechanic_of_the_catalogue_is_asked(model: Any) -> None:
    # A formula, test or attack of the catalogue that no question reaches (directly, or through
    # another declaration) would be a mechanic nobody checks against an oracle.
    import re

    from compiler import ast as A

    questions = " ".join(q for q, _ in MECHANICS.values()) + " exploding_d6() trait_and_wild() wound() old_wound() skill_check()"
    text = " ".join(p.read_text(encoding="utf-8") for p in CATALOGUE.glob("*.rules"))
    for kind in (A.Formula, A.Test, A.Attack):
        for decl in model.of_type(kind):
            used = re.search(rf"\b{decl.id}\(", questions) or len(re.findall(rf"\b{decl.id}\(", text)) > 1
            assert used, decl.id
