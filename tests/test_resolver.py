"""The resolver against independent oracles: icepool (exactly) and brute-force enumeration.

Each question is asked of a small ruleset (tests/fixtures/mechanics) and of an
oracle built without warscribe; the distributions must be identical.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import icepool
import pytest

from compiler.resolve.dist import Dist, agree
from compiler.driver import compile_paths
from compiler.resolve.evaluator import Evaluator, ResolveError, is_dist, parse_expression, unwrap

FIXTURE = Path(__file__).parent / "fixtures" / "mechanics"
d6 = icepool.d6


@pytest.fixture(scope="module")
def model():  # type: ignore[no-untyped-def]
    result = compile_paths([str(FIXTURE)])
    assert result.ok, [d.message for d in result.diagnostics]
    return result.rulesets[0]


def ask(model, text: str, exact: bool = True):  # type: ignore[no-untyped-def]
    return Evaluator(model, exact=exact).evaluate(parse_expression(text))


BUST, DROWNED = -1, 0  # icepool cannot mix text and numbers: labels stand as numbers here
LABELS = {"bust": BUST, "drowned": DROWNED}


def as_map(v) -> dict:  # type: ignore[no-untyped-def]
    if is_dist(v):
        out: dict = {}
        for o, p in v.probabilities().items():
            key = unwrap(o)
            key = int(key) if isinstance(key, bool) else LABELS.get(key, key)
            out[key] = out.get(key, 0) + p
        return {k: p for k, p in out.items() if p}
    return {unwrap(v): Fraction(1)}


def ice_map(die) -> dict:  # type: ignore[no-untyped-def]
    die = icepool.Die(die) if not isinstance(die, icepool.Die) else die
    out = {}
    denominator = die.denominator()
    for o, q in die.items():
        key = int(o) if isinstance(o, bool) else o
        out[key] = out.get(key, 0) + Fraction(q, denominator)
    return {k: p for k, p in out.items() if p}


def bern(p: Fraction) -> icepool.Die:
    return icepool.Die({1: p.numerator, 0: p.denominator - p.numerator})


def test_bernoulli_helper() -> None:
    assert ice_map(bern(Fraction(1, 3))) == {1: Fraction(1, 3), 0: Fraction(2, 3)}


hit3 = d6.map(lambda x: x >= 3)            # BS4: 3+
wound4 = d6.map(lambda x: x >= 4)          # S4 v T4
unsaved3 = d6.map(lambda x: x < 3)         # a 3+ save fails
D3 = d6.map(lambda x: x if x <= 3 else x - 3)

CASES = {
    # tests and targets
    "hit(4)": hit3,
    "hit(1)": d6.map(lambda x: x == 6),
    "hit_rr1(4)": d6.reroll([1], depth=1).map(lambda x: x >= 3),
    "hit_rrf(3)": d6.reroll(lambda x: x < 4, depth=1).map(lambda x: x >= 4),
    "wound(3, 6)": d6.map(lambda x: x == 6),
    "wound(3, 7)": icepool.Die([False]),
    "save(3, 0)": d6.map(lambda x: x >= 3),
    "save(3, 2)": d6.map(lambda x: x >= 5),
    "save(2, 0) with cover = hard": d6.map(lambda x: x >= 2),  # never better than 2+; natural 1 fails
    "save(6, 1)": icepool.Die([False]),
    "best_save(3, 3, 5+)": d6.map(lambda x: x >= 5),
    "best_save(2, 1, 4+)": d6.map(lambda x: x >= 3),
    "hit(4) with cover = soft": d6.map(lambda x: x >= 4),
    "hit(4) with cover = hard": d6.map(lambda x: x >= 5),
    "low_hit(4)": d6.map(lambda x: x <= 4),
    "low_hit(7)": d6.map(lambda x: x <= 5),
    "low_hit(4) with cover = hard": d6.map(lambda x: x <= 2),
    "leadership(7)": (2 @ d6).map(lambda x: x <= 7),
    # extended and mirrored targets (chained rolls)
    "ext_wound(3, 6)": icepool.map(lambda a, b: a == 6 and b >= 4, d6, d6),
    "ext_wound(3, 7) with close": icepool.map(lambda a, b: a == 6 and b >= 5, d6, d6),
    "ext_wound(3, 7)": icepool.Die([False]),
    "low_target(0)": icepool.map(lambda a, b: a == 1 and b <= 3, d6, d6),
    "low_target(-2)": icepool.map(lambda a, b: a == 1 and b == 1, d6, d6),
    "low_target(-3)": icepool.Die([False]),
    # dice
    "D3": D3,
    "2D3 + 1": (2 @ D3) + 1,
    "reroll(d6, 1)": d6.reroll([1], depth=1),
    "highest(2, d6)": icepool.map(lambda a, b: max(a, b), d6, d6),
    "lowest(3, d6)": icepool.map(lambda a, b, c: min(a, b, c), d6, d6, d6),
    "if d6 >= 4 then d6 else 0": d6.map(lambda x: d6 if x >= 4 else 0),
    "4 each d6": 4 @ d6,
    "d3 each d6": icepool.d3 @ d6,
    # counting successes among dice
    "5 each hit(4)": 5 @ hit3.map(lambda b: int(b)),
    "d6 each hit(4)": d6 @ hit3.map(lambda b: int(b)),
    "3 each not save(3, 0)": 3 @ unsaved3.map(lambda b: int(b)),
    "activation(4, 3)": (3 @ d6.map(lambda x: 1 if x <= 4 else 0)).map(
        lambda s: BUST if 3 - s >= 2 else s),
    "activation(5, 2)": (2 @ d6.map(lambda x: 1 if x <= 5 else 0)).map(
        lambda s: BUST if 2 - s >= 2 else s),
    # let: one roll, used twice
    "scatter(4)": icepool.map(lambda a, b: 0 if a == b else max(0, a + b - 4), d6, d6),
    "short_scatter()": icepool.map(lambda a, b: abs(a - b), d6, d6),
    "doubled()": d6.map(lambda x: 2 * x),
    "swim()": d6.map(lambda x: DROWNED if x == 1 else (x if x <= 3 else x - 3) + 1),
}


@pytest.mark.parametrize("question", sorted(CASES))
def test_against_icepool(model, question: str) -> None:  # type: ignore[no-untyped-def]
    assert as_map(ask(model, question)) == ice_map(CASES[question])


def per_attack(hit_ok, wound_ok, save_fails) -> icepool.Die:  # type: ignore[no-untyped-def]
    """Unsaved wounds from one attack, by enumeration of its three dice."""
    return icepool.map(lambda h, w, s: int(hit_ok(h) and wound_ok(w) and save_fails(s)), d6, d6, d6)


ATTACKS = {
    # 5 marines with bolters at orks: hit 3+, wound 4+, save 6+
    ("shooting(5 marine, bolter, 10 ork)", "unsaved"): 5 @ per_attack(
        lambda h: h >= 3, lambda w: w >= 4, lambda s: s < 6),
    ("shooting(5 marine, bolter, 10 ork)", "hits"): 5 @ hit3.map(lambda b: int(b)),
    # D6 shots: random number of attacks
    ("shooting(1 marine, storm, 10 ork)", "unsaved"): d6 @ per_attack(
        lambda h: h >= 3, lambda w: w >= 4, lambda s: s < 6),
    # sustained hits 1: a natural 6 to hit scores one extra hit, which must wound on its own
    ("shooting(1 marine, sus_gun, 10 marine)", "wounds"): 2 @ d6.map(
        lambda h: 0 if h < 3 else (2 @ wound4.map(lambda b: int(b)) if h == 6 else wound4.map(lambda b: int(b)))),
    # lethal hits: a natural 6 to hit wounds automatically (no extra hits)
    ("shooting(1 marine, lethal_gun, 10 marine)", "wounds"): 2 @ d6.map(
        lambda h: 0 if h < 3 else (1 if h == 6 else wound4.map(lambda b: int(b)))),
    # devastating wounds: a natural 6 to wound skips the save
    ("shooting(1 marine, dev_gun, 10 marine)", "unsaved"): 2 @ icepool.map(
        lambda h, w, s: int(h >= 3 and w >= 4 and (w == 6 or s < 3)), d6, d6, d6),
    # the unit's Sustained Hits 2 and the weapon's 1: the higher counts
    ("shooting(1 sarge, sus_gun, 10 marine)", "hits"): 2 @ d6.map(lambda h: 0 if h < 3 else (3 if h == 6 else 1)),
}


def combo_unsaved() -> icepool.Die:
    """Sustained 1 + lethal + devastating on one attack, followed token by token."""
    def wound_then_save(auto: bool) -> icepool.Die:
        if auto:  # a lethal hit: wound automatically, then a normal save
            return unsaved3.map(lambda b: int(b))
        return icepool.map(lambda w, s: int(w >= 4 and (w == 6 or s < 3)), d6, d6)

    def attack(h: int):  # type: ignore[no-untyped-def]
        if h < 3:
            return 0
        if h == 6:  # the critical hit wounds automatically; the extra hit rolls normally
            return wound_then_save(True) + wound_then_save(False)
        return wound_then_save(False)
    return 2 @ d6.map(attack)


ATTACKS[("shooting(1 marine, combo_gun, 10 marine)", "unsaved")] = combo_unsaved()


@pytest.mark.parametrize("question, step", sorted(ATTACKS))
def test_attack_steps_against_icepool(model, question: str, step: str) -> None:  # type: ignore[no-untyped-def]
    result = ask(model, question)
    assert as_map(result.steps[step]) == ice_map(ATTACKS[(question, step)])


def killed_oracle(n: int, hit: int, wound: int, save: int, faces: list[int], wounds: int, models: int,
                  fnp: int | None = None) -> dict[int, Fraction]:
    """Exact distribution of models killed, by enumeration with weights."""
    p_unsaved = Fraction(sum(1 for h, w, s in itertools.product(range(1, 7), repeat=3)
                             if h >= hit and w >= wound and s < save), 216)
    dmg: dict[int, Fraction] = {}
    for f in faces:
        if fnp is None:
            dmg[f] = dmg.get(f, 0) + Fraction(1, len(faces))
        else:
            for kept in range(f + 1):  # binomial: points not ignored
                from math import comb
                p_keep = Fraction(fnp - 1, 6)
                pr = comb(f, kept) * p_keep ** kept * (1 - p_keep) ** (f - kept)
                dmg[kept] = dmg.get(kept, 0) + Fraction(1, len(faces)) * pr
    out: dict[int, Fraction] = {}
    for flags in itertools.product([True, False], repeat=n):
        pf = Fraction(1)
        for f in flags:
            pf *= p_unsaved if f else 1 - p_unsaved
        k = sum(flags)
        for ds in itertools.product(list(dmg.items()), repeat=k):
            pd = pf
            for _, q in ds:
                pd *= q
            killed, left = 0, wounds
            for d, _ in ds:
                if killed >= models:
                    break
                if d >= left:
                    killed += 1
                    left = wounds
                elif d > 0:
                    left -= d
            out[killed] = out.get(killed, 0) + pd
    return {k: v for k, v in out.items() if v}


def test_casualties_multi_wound_models_no_spill_over(model) -> None:  # type: ignore[no-untyped-def]
    # 2 marines with the heavy gun (3 shots, S5 AP1 D3) at 2 brutes (T5 W3 Sv4+ → 5+ after AP)
    result = ask(model, "shooting(2 marine, heavy, 2 brute)")
    assert as_map(result.steps["killed"]) == killed_oracle(6, 3, 4, 5, [1, 2, 3, 1, 2, 3], 3, 2)


def test_casualties_with_feel_no_pain(model) -> None:  # type: ignore[no-untyped-def]
    result = ask(model, "shooting(1 marine, heavy, 2 tough_brute)")
    assert as_map(result.steps["killed"]) == killed_oracle(3, 3, 4, 5, [1, 2, 3, 1, 2, 3], 3, 2, fnp=5)


def test_casualties_never_exceed_the_models(model) -> None:  # type: ignore[no-untyped-def]
    result = ask(model, "shooting(10 marine, bolter, 2 ork)")
    killed = as_map(result.steps["killed"])
    assert max(killed) == 2 and sum(killed.values()) == 1


def test_explode_is_cut_and_reported(model) -> None:  # type: ignore[no-untyped-def]
    d = ask(model, "explode(d6, 6, 2)")
    assert d.truncated == Fraction(1, 216)
    exact = ice_map(d6.explode([6], depth=2))
    ours = as_map(d)
    # icepool keeps the last branch as an outcome; ours cuts it off and says so
    assert {k: v for k, v in exact.items() if k < 18} == ours
    assert sum(ours.values()) == 1 - d.truncated


def test_modifier_conditions_can_ask_about_keywords(model) -> None:  # type: ignore[no-untyped-def]
    # ``+1 to hit when target has vehicle``: applies against the tank, not against the ork,
    # and not at all outside an attack (there is no target there).
    tank = ask(model, "shooting(6 marine, bolter, 1 tank)")
    ork = ask(model, "shooting(6 marine, bolter, 1 ork)")
    assert as_map(tank.steps["hits"]) == ice_map(6 @ d6.map(lambda x: int(x >= 2)))
    assert as_map(ork.steps["hits"]) == ice_map(6 @ d6.map(lambda x: int(x >= 3)))
    assert ask(model, "P(hit(4))") == Fraction(2, 3)


def test_natural_face_of_the_same_roll(model) -> None:  # type: ignore[no-untyped-def]
    # A test keeps its natural roll: natural(hit(4)) is the die, not a second roll.
    assert as_map(ask(model, "natural(hit(4))")) == ice_map(d6)


def test_p_and_mean(model) -> None:  # type: ignore[no-untyped-def]
    assert ask(model, "P(hit(4))") == Fraction(2, 3)
    assert ask(model, "mean(2D3 + 1)") == 5
    assert ask(model, "mean(shooting(5 marine, bolter, 10 ork).killed)") == Fraction(25, 18)


def test_fast_backend_agrees(model) -> None:  # type: ignore[no-untyped-def]
    for question in ["5 each hit(4)", "d6 each hit(4)", "shooting(5 marine, bolter, 10 ork).killed",
                     "shooting(2 marine, heavy, 2 brute).killed", "4 each d6", "d3 each d6"]:
        exact = ask(model, question)
        fast = ask(model, question, exact=False)
        assert is_dist(fast)
        ex = as_map(exact)
        fa: dict = {}
        for o, p in fast.probabilities().items():
            fa[unwrap(o)] = fa.get(unwrap(o), 0) + p
        assert set(k for k in ex) == set(k for k, p in fa.items() if p > 1e-15)
        for k, p in ex.items():
            assert abs(float(p) - fa[k]) < 1e-12, (question, k)


@pytest.mark.parametrize("text, message, column", [
    ("hit(4) + d6 > 2", "a yes/no value is not a number", 1),
    ("P(d6)", "P(…) needs a yes/no condition", 3),
    ("mean(hit)", "unknown name 'hit'", 6),
    ("to_wound(4)", "'to_wound' takes 2 values", 1),
    ("2000d6", "more than warscribe rolls", 1),
])
def test_resolver_errors_are_located(model, text: str, message: str, column: int) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ResolveError) as info:  # any other exception is a bug, and fails the test too
        ask(model, text)
    assert message in info.value.message
    span = info.value.span
    assert span is not None, f"{text}: the error has no span"
    assert (span.line, span.column) == (1, column), span


def test_an_argument_outside_its_stat_range_is_refused(model) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ResolveError) as info:
        ask(model, "to_wound(4, 11)")
    assert "T = 11" in info.value.message and "1..10" in info.value.message
    with pytest.raises(ResolveError):
        ask(model, "to_wound(4, 99)")


# --- one table interpreter -------------------------------------------------------------------

RULES = Path(__file__).resolve().parent.parent / "rules"


def _table_points(rs, table):  # type: ignore[no-untyped-def]
    from compiler.check.passes import param_domain
    domains = [param_domain(rs, p) for p in table.params]
    if not table.params or any(d is None for d in domains):
        return []
    return list(itertools.product(*domains))[:400]


@pytest.mark.parametrize("ruleset", sorted(p.name for p in RULES.iterdir() if p.is_dir()))
def test_checker_and_resolver_read_every_table_alike(ruleset: str) -> None:
    """The checker's lookup (model.static) and the resolver's give the same value at every point
    of every table's domain (or both refuse it)."""
    from compiler import ast as A
    from compiler.model.static import NotStatic, StaticError, table_lookup

    comp = compile_paths([RULES / ruleset])
    checked = 0
    for rs in comp.rulesets:
        ev = Evaluator(rs)
        for table in rs.of_type(A.Table):
            for point in _table_points(rs, table):
                try:
                    static = table_lookup(rs, table, list(point))
                except NotStatic:
                    continue  # a random result: only the resolver can say
                except StaticError:
                    static = "refused"
                try:
                    resolved = ev.apply(table, list(point), table.span)
                except ResolveError:
                    resolved = "refused"
                assert resolved == static, (table.id, point)
                checked += 1
    assert checked > 0


def test_a_random_row_case_is_refused_by_the_resolver() -> None:
    from compiler.driver import compile_text

    text = 'ruleset d "D":\n  version 1.0.0\ntable t(x):\n  x + d6 >= 5 -> 1\n  otherwise -> 2\n'
    model = compile_text(text).rulesets[0]
    with pytest.raises(ResolveError, match="case must not be random"):
        Evaluator(model).evaluate(parse_expression("t(3)"))


def test_every_expression_and_declaration_kind_has_one_handler() -> None:
    """The evaluator dispatches through its registries only: every expression node class and
    every callable declaration class has a registered handler (filled by importing the package)."""
    import inspect

    from compiler import ast as A
    from compiler.resolve.evaluator import DECLARATIONS, EXPRESSIONS

    exprs = {c for c in vars(A).values() if inspect.isclass(c) and issubclass(c, A.Expr) and c is not A.Expr}
    assert exprs == set(EXPRESSIONS)
    assert set(DECLARATIONS) == {A.Test, A.Table, A.Formula, A.Attack}
    assert DECLARATIONS[A.Attack].pointwise is False and DECLARATIONS[A.Table].pointwise is True
