"""The distribution engine against brute-force oracles, icepool, and itself (exact vs fast)."""

from __future__ import annotations

import doctest
import itertools
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool
import pytest

import compiler.resolve.dist
import compiler.resolve.dist_base
import compiler.resolve.dist_exact
import compiler.resolve.dist_fast
from compiler.resolve.dist import Dist, FastDist, agree

D2, D3, D4, D6 = range(1, 3), range(1, 4), range(1, 5), range(1, 7)
CUT = object()  # an oracle returns CUT for a branch that an explicit bound cuts off


def oracle(f: Callable[..., Any], *dice: range) -> tuple[dict[Any, Fraction], Fraction]:
    """Exact distribution of f(*faces) over every equally likely combination of faces."""
    counts = Counter(f(*faces) for faces in itertools.product(*dice))
    total = sum(counts.values())
    cut = Fraction(counts.pop(CUT, 0), total)
    return {o: Fraction(c, total) for o, c in counts.items()}, cut


def explode_faces(faces: tuple[int, ...], trigger: int) -> Any:
    """Sum of rolls up to and including the first that is not `trigger`; CUT if none."""
    total = 0
    for f in faces:
        total += f
        if f != trigger:
            return total
    return CUT


def first_kept(faces: tuple[int, ...], reroll: Callable[[int], bool]) -> int:
    """Rerolls: the first face that is not rerolled, else the last face."""
    for f in faces[:-1]:
        if not reroll(f):
            return f
    return faces[-1]


def bust(faces: tuple[int, ...]) -> Any:
    """Gemini-style activation: a die succeeds on 3 or less; 2+ failures is a bust."""
    failures = sum(f > 3 for f in faces)
    return "bust" if failures >= 2 else len(faces) - failures


# (name, build(backend), oracle, fast backend can hold it)
CASES: list[tuple[str, Callable[[Any], Any], Callable[[], Any], bool]] = [
    ("3d6", lambda B: B.die(6).sum_of(3), lambda: oracle(lambda a, b, c: a + b + c, D6, D6, D6), True),
    ("3 @ d6", lambda B: 3 @ B.die(6), lambda: oracle(lambda a, b, c: a + b + c, D6, D6, D6), True),
    ("d4+d6", lambda B: B.die(4) + B.die(6), lambda: oracle(lambda a, b: a + b, D4, D6), True),
    ("d6-d4", lambda B: B.die(6) - B.die(4), lambda: oracle(lambda a, b: a - b, D6, D4), True),
    ("3-d4", lambda B: 3 - B.die(4), lambda: oracle(lambda a: 3 - a, D4), True),
    ("2*d6+1", lambda B: 2 * B.die(6) + 1, lambda: oracle(lambda a: 2 * a + 1, D6), True),
    ("d4*d6", lambda B: B.die(4) * B.die(6), lambda: oracle(lambda a, b: a * b, D4, D6), True),
    ("-d6", lambda B: -B.die(6), lambda: oracle(lambda a: -a, D6), True),
    ("max 2d6", lambda B: B.die(6).max_with(B.die(6)), lambda: oracle(max, D6, D6), True),
    ("min 3d6", lambda B: B.die(6).min_with(B.die(6)).min_with(B.die(6)),
     lambda: oracle(min, D6, D6, D6), True),
    ("custom op", lambda B: B.die(6).binary(lambda a, b: abs(a - b), B.die(4)),
     lambda: oracle(lambda a, b: abs(a - b), D6, D4), True),
    ("d6 >= d4", lambda B: B.die(6) >= B.die(4), lambda: oracle(lambda a, b: a >= b, D6, D4), True),
    ("d6 == d4", lambda B: B.die(6).binary("==", B.die(4)),
     lambda: oracle(lambda a, b: a == b, D6, D4), True),
    ("d6 // d3", lambda B: B.die(6) // B.die(3), lambda: oracle(lambda a, b: a // b, D6, D3), True),
    ("D3 halve round up", lambda B: (B.die(6) + 1) // 2, lambda: oracle(lambda a: (a + 1) // 2, D6), True),
    ("D3 subtract 3", lambda B: B.from_faces([1, 2, 3, 1, 2, 3]),
     lambda: oracle(lambda a: a if a <= 3 else a - 3, D6), True),
    ("clamp 2d6", lambda B: (B.die(6) + B.die(6)).clamp(4, 10),
     lambda: oracle(lambda a, b: min(max(a + b, 4), 10), D6, D6), True),
    ("reroll 1s", lambda B: B.die(6).reroll(lambda v: v == 1),
     lambda: oracle(lambda *f: first_kept(f, lambda v: v == 1), D6, D6), True),
    ("reroll fails twice", lambda B: B.die(6).reroll(lambda v: v < 4, times=2),
     lambda: oracle(lambda *f: first_kept(f, lambda v: v < 4), D6, D6, D6), True),
    ("reroll 2d6 below 5", lambda B: B.die(6).sum_of(2).reroll(lambda v: v < 5),
     lambda: oracle(lambda a, b, c, d: a + b if a + b >= 5 else c + d, D6, D6, D6, D6), True),
    ("a 6 then 4+", lambda B: B.die(6).bind(lambda v: B.die(6) >= 4 if v == 6 else False),
     lambda: oracle(lambda a, b: a == 6 and b >= 4, D6, D6), True),
    ("chained damage", lambda B: B.die(6).then(
        lambda v: B.die(3) + 1 if v >= 5 else (B.die(3) if v >= 3 else 0)),
     lambda: oracle(lambda a, b: b + 1 if a >= 5 else (b if a >= 3 else 0), D6, D3), True),
    ("mixture 1:2", lambda B: B.mixture([(1, B.die(4)), (2, B.die(6))]),
     lambda: oracle(lambda s, a, b: a if s == 1 else b, D3, D4, D6), True),
    ("mixture fractions", lambda B: B.mixture([(Fraction(1, 4), 0), (Fraction(3, 4), B.die(3))]),
     lambda: oracle(lambda s, a: 0 if s == 1 else a, D4, D3), True),
    ("4 dice, 4+", lambda B: (B.die(6) >= 4).count_successes(4),
     lambda: oracle(lambda *f: sum(x >= 4 for x in f), D6, D6, D6, D6), True),
    ("binomial", lambda B: B.binomial(4, Fraction(1, 2)),
     lambda: oracle(lambda *f: sum(x >= 4 for x in f), D6, D6, D6, D6), True),
    ("D3 attacks x D3", lambda B: B.die(3).sum_of_random(B.die(3)),
     lambda: oracle(lambda n, *f: sum(f[:n]), D3, D3, D3, D3), True),
    ("D3 @ d3-2", lambda B: B.die(3) @ (B.die(3) - 2),
     lambda: oracle(lambda n, *f: sum(f[:n]) - 2 * n, D3, D3, D3, D3), True),
    ("D3 shots, 5+", lambda B: (B.die(6) >= 5).count_successes_random(B.die(3)),
     lambda: oracle(lambda n, *f: sum(x >= 5 for x in f[:n]), D3, D6, D6, D6), True),
    ("explode 6s depth 2", lambda B: B.die(6).explode(lambda v: v == 6, depth=2),
     lambda: oracle(lambda *f: explode_faces(f, 6), D6, D6, D6), True),
    ("exploded >= 7", lambda B: B.die(6).explode(lambda v: v == 6, depth=1) >= 7,
     lambda: oracle(lambda *f: CUT if explode_faces(f, 6) is CUT else explode_faces(f, 6) >= 7,
                    D6, D6), True),
    ("exploded + d4", lambda B: B.die(6).explode(lambda v: v == 6, depth=1) + B.die(4),
     lambda: oracle(lambda a, b, c: CUT if explode_faces((a, b), 6) is CUT
                    else explode_faces((a, b), 6) + c, D6, D6, D4), True),
    ("2 exploding d3", lambda B: B.die(3).explode(lambda v: v == 3, depth=1).sum_of(2),
     lambda: oracle(lambda a, b, c, d: CUT if CUT in (explode_faces((a, b), 3), explode_faces(
         (c, d), 3)) else explode_faces((a, b), 3) + explode_faces((c, d), 3), D3, D3, D3, D3), True),
    ("exploding count", lambda B: B.die(2).sum_of_random(B.die(2).explode(lambda v: v == 2, 1)),
     lambda: oracle(lambda a, b, *f: CUT if explode_faces((a, b), 2) is CUT
                    else sum(f[:explode_faces((a, b), 2)]), D2, D2, D2, D2, D2), True),
    ("bind on exploded", lambda B: B.die(4).explode(lambda v: v == 4, 1).bind(
        lambda v: B.die(6).explode(lambda x: x == 6, 0) if v >= 5 else v),
     lambda: oracle(lambda a, b, c: CUT if explode_faces((a, b), 4) is CUT else (
         explode_faces((c,), 6) if explode_faces((a, b), 4) >= 5 else explode_faces((a, b), 4)),
        D4, D4, D6), True),
    ("0 copies", lambda B: B.die(6).sum_of(0), lambda: ({0: Fraction(1)}, Fraction(0)), True),
    *[(f"bust among {k}", lambda B, k=k: B.die(6).map(lambda v: (1, 0) if v <= 3 else (0, 1))
       .sum_of(k).map(lambda sf: "bust" if sf[1] >= 2 else sf[0]),
       lambda k=k: oracle(lambda *f: bust(f), *[D6] * k), False) for k in (1, 2, 3)],
    ("bust, player picks 1-3 dice", lambda B: B.die(3).bind(
        lambda k: B.die(6).map(lambda v: (1, 0) if v <= 3 else (0, 1)).sum_of(k)).map(
            lambda sf: "bust" if sf[1] >= 2 else sf[0]),
     lambda: oracle(lambda k, *f: bust(f[:k]), D3, D6, D6, D6), False),
    ("joint (hits, crits)", lambda B: B.die(6).map(lambda v: (int(v >= 4), int(v == 6))).sum_of(2),
     lambda: oracle(lambda a, b: ((a >= 4) + (b >= 4), (a == 6) + (b == 6)), D6, D6), False),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, build, expected, _", CASES, ids=IDS)
def test_exact_matches_brute_force(name: str, build: Any, expected: Any, _: bool) -> None:
    probabilities, cut = expected()
    d = build(Dist)
    assert d.probabilities() == probabilities
    assert d.truncated == cut
    assert sum(d.probabilities().values()) == 1 - d.truncated


@pytest.mark.parametrize("name, build, expected, fast_ok", CASES, ids=IDS)
def test_fast_agrees_with_exact(name: str, build: Any, expected: Any, fast_ok: bool) -> None:
    if not fast_ok:
        with pytest.raises(TypeError, match="use Dist"):
            build(FastDist)
        return
    exact, fast = build(Dist), build(FastDist)
    assert agree(exact, fast)
    assert agree(exact, exact.to_fast())
    assert fast.outcomes() == exact.outcomes()
    assert [type(o) for o in fast.outcomes()] == [type(o) for o in exact.outcomes()]
    assert fast.mean() == pytest.approx(float(exact.mean()), abs=1e-12)
    assert fast.variance() == pytest.approx(float(exact.variance()), abs=1e-12)


DIST_MODULES = (compiler.resolve.dist, compiler.resolve.dist_base, compiler.resolve.dist_exact,
                compiler.resolve.dist_fast)


def test_every_public_callable_has_a_doctest() -> None:
    finder = doctest.DocTestFinder()
    tested = {t.name.rsplit(".", 1)[-1] for m in DIST_MODULES for t in finder.find(m) if t.examples}
    public = {n for cls in (Dist, FastDist) for n in dir(cls) if not n.startswith("_")}
    assert public | {"Dist", "FastDist", "agree"} <= tested | {"then", "sum_of"}  # aliases


# --- truncation --------------------------------------------------------------------------


def test_explode_truncation() -> None:
    e = Dist.die(6).explode(lambda v: v == 6, depth=3)
    # a die, then up to 3 extra rolls: the branch 6,6,6,6 would need a 4th extra roll
    assert e.truncated == Fraction(1, 6**4)
    assert sum(e.probabilities().values()) == 1 - e.truncated
    assert max(e.outcomes()) == 6 + 6 + 6 + 5
    assert e.p(23) == Fraction(1, 6**4)
    # icepool keeps the last exploding face instead of cutting it: same below 24
    ice = icepool.d6.explode([6], depth=3)
    assert {o: p for o, p in zip(ice.outcomes(), ice.probabilities()) if o < 24} == \
        e.probabilities()
    assert ice.probability(24) == e.truncated
    f = FastDist.die(6).explode(lambda v: v == 6, depth=3)
    assert agree(e, f) and f.truncated == pytest.approx(1 / 6**4, abs=1e-15)


def test_truncation_propagates() -> None:
    a = Dist.die(6).explode(lambda v: v == 6, depth=0)  # truncated 1/6
    b = Dist.die(4).explode(lambda v: v == 4, depth=0)  # truncated 1/4
    ta, tb = a.truncated, b.truncated
    assert (ta, tb) == (Fraction(1, 6), Fraction(1, 4))
    assert (a + b).truncated == 1 - (1 - ta) * (1 - tb)
    assert a.max_with(b).truncated == 1 - (1 - ta) * (1 - tb)
    assert a.map(lambda v: v % 2).truncated == ta
    assert a.sum_of(5).truncated == 1 - (1 - ta) ** 5
    assert Dist.mixture([(1, a), (3, b)]).truncated == (ta + 3 * tb) / 4
    assert Dist.die(2).bind(lambda v: a if v == 1 else b).truncated == (ta + tb) / 2
    assert a.bind(lambda v: b).truncated == 1 - (1 - ta) * (1 - tb)
    assert a.sum_of_random(Dist.die(2)).truncated == ((1 - (1 - ta)) + (1 - (1 - ta) ** 2)) / 2
    assert Dist.die(6).sum_of_random(b).truncated == tb
    assert a.reroll(lambda v: v == 1).truncated == ta + ta / 6
    assert (a >= 3).count_successes(2).truncated == 1 - (1 - ta) ** 2
    for d in (a + b, a.sum_of(5), Dist.mixture([(1, a), (3, b)]), a.sum_of_random(Dist.die(2))):
        assert sum(d.probabilities().values()) + d.truncated == 1
    assert a != Dist.die(5)  # same probabilities on 1..5, but a keeps 1/6 truncated
    assert a.probabilities() == {v: Fraction(1, 6) for v in range(1, 6)}


def test_everything_truncated() -> None:
    gone = Dist.const(6).explode(lambda v: v >= 6, depth=2)
    assert gone.truncated == 1 and len(gone) == 0 and gone.outcomes() == ()
    assert (gone + Dist.die(6)).truncated == 1
    assert Dist.mixture([(1, gone), (1, 3)]).probabilities() == {3: Fraction(1, 2)}
    fast = FastDist.const(6).explode(lambda v: v >= 6, depth=2)
    assert agree(gone, fast) and agree(gone.sum_of(3), fast.sum_of(3))


# --- icepool cross-checks (exact equality) -------------------------------------------------


def ice(die: Any) -> dict[Any, Fraction]:
    return dict(zip(die.outcomes(), die.probabilities()))


P_UNSAVED = Fraction(2, 3) * Fraction(1, 2) * Fraction(1, 2)
ICE_PER_ATTACK = icepool.Die([icepool.d6, 0], times=[1, 5])
PER_ATTACK = Dist.mixture([(1 - P_UNSAVED, 0), (P_UNSAVED, Dist.die(6))])


@pytest.mark.parametrize("ours, theirs", [
    (lambda: Dist.die(6).sum_of(3), lambda: 3 @ icepool.d6),
    (lambda: Dist.die(6).max_with(Dist.die(6)), lambda: icepool.highest(icepool.d6, icepool.d6)),
    (lambda: Dist.die(6).reroll(lambda v: v == 1), lambda: icepool.d6.reroll([1], depth=1)),
    (lambda: (Dist.die(6) >= 4).count_successes(5), lambda: 5 @ (icepool.d6 >= 4)),
    (lambda: PER_ATTACK.sum_of(40), lambda: 40 @ ICE_PER_ATTACK),
    (lambda: PER_ATTACK.sum_of_random(Dist.die(6)), lambda: icepool.d6 @ ICE_PER_ATTACK),
    (lambda: Dist.die(3).sum_of_random(2 @ Dist.die(6)), lambda: (2 @ icepool.d6) @ icepool.d3),
], ids=["3d6", "max", "reroll 1s", "count 4+", "40 attacks D6 dmg", "D6 attacks", "2D6 x D3"])
def test_matches_icepool(ours: Any, theirs: Any) -> None:
    assert ours().probabilities() == ice(theirs())


def test_large_power_is_exact_and_fast_agrees() -> None:
    exact = PER_ATTACK.sum_of(200)
    assert len(exact) == 1201 and exact.mean() == 200 * P_UNSAVED * Fraction(7, 2)
    assert exact.p(1200) == (P_UNSAVED / 6) ** 200
    assert exact.variance() == 200 * (P_UNSAVED * Fraction(91, 6) - (P_UNSAVED * Fraction(7, 2)) ** 2)
    fast = FastDist.mixture([(1 - P_UNSAVED, 0), (P_UNSAVED, FastDist.die(6))]).sum_of(200)
    assert agree(exact, fast)


@pytest.mark.parametrize("build", [
    lambda: PER_ATTACK.sum_of(50),
    lambda: Dist.die(3).sum_of(4) - Dist.die(6),
    lambda: (Dist.from_weights({0: 4, 2: 2}) + Dist.from_weights({0: 2, 4: 6})),  # a common factor to take out
    lambda: Dist.die(3).sum_of_random(Dist.die(4)),
    lambda: Dist.die(6).explode(lambda v: v == 6, depth=1).sum_of(3),
])
def test_sums_keep_weights_in_the_polynomial_with_the_same_answers(build: Any) -> None:
    lazy, again = build(), build()
    assert "_items" not in lazy.__dict__  # nothing read yet
    twin = Dist._new(list(again._items), again._trunc, presorted=True)  # the eager construction
    assert lazy == twin and hash(lazy) == hash(twin) and twin == lazy
    assert lazy.total_weight == twin.total_weight and lazy.truncated == twin.truncated
    assert lazy.probabilities() == twin.probabilities() and lazy.mean() == twin.mean()
    assert lazy.outcomes() == twin.outcomes() and repr(lazy) == repr(twin)
    assert (lazy + Dist.die(2)) == (twin + Dist.die(2)) and lazy.sum_of(3) == twin.sum_of(3)
    # reduced like every other distribution: the weights share no factor with the truncation
    import math
    assert math.gcd(lazy._trunc, *(w for _, w in lazy._items)) == 1


# --- API behaviour -----------------------------------------------------------------------


@pytest.mark.parametrize("B", [Dist, FastDist])
def test_no_truth_value(B: Any) -> None:
    with pytest.raises(TypeError, match=r"\.p\(True\)"):
        bool(B.die(6) >= 4)
    with pytest.raises(TypeError):
        if B.die(6):
            pass
    assert isinstance(B.die(6) >= 4, B) and (B.die(6) >= 4).outcomes() == (False, True)
    assert (B.die(6) < 3).p(True) == pytest.approx(1 / 3)


def test_structural_equality_and_hash() -> None:
    assert Dist.die(6) == Dist.die(6) and Dist.from_weights({1: 2, 2: 2}) == Dist.die(2)
    assert Dist.from_faces([1, 1, 2]) != Dist.die(2)
    assert Dist.die(2) != 1 and Dist.die(2) != FastDist.die(2)
    assert len({Dist.die(3), Dist.from_faces([3, 2, 1]), Dist.die(6).map(lambda v: (v + 1) // 2)}) == 1
    assert len({FastDist.die(3), FastDist.from_faces([3, 2, 1])}) == 1
    assert FastDist.die(3) == FastDist.from_weights({1: 1, 2: 1, 3: 1})
    assert Dist.die(6).total_weight == 6 and PER_ATTACK.total_weight == 36
    assert FastDist.die(6).total_weight == 1.0


def test_immutable() -> None:
    d = Dist.die(6)
    with pytest.raises(AttributeError):
        d._denom = 3  # type: ignore[misc]
    with pytest.raises(TypeError, match="die"):
        Dist()
    probabilities = d.probabilities()
    probabilities[1] = Fraction(1)
    assert d.p(1) == Fraction(1, 6)


def test_sorted_outcomes_with_mixed_types() -> None:
    weights = {"bust": 1, 2: 1, (1, "a"): 1, "a": 1, 0: 1, (0, 5): 1, None: 1}
    d1 = Dist.from_weights(weights)
    d2 = Dist.from_weights(dict(reversed(list(weights.items()))))
    assert d1.outcomes() == d2.outcomes() == (0, 2, None, "a", "bust", (0, 5), (1, "a"))
    assert repr(d1) == repr(d2)


def test_queries() -> None:
    d = Dist.die(6).sum_of(3)
    assert d.mean() == Fraction(21, 2) and d.variance() == Fraction(35, 4)
    assert d.p_at_least(16) == Fraction(10, 216) and d.p_at_most(4) == Fraction(4, 216)
    assert d.p_where(lambda v: v % 2 == 0) == Fraction(1, 2)
    assert d.p(2) == 0 and len(d) == 16 and d.outcomes()[0] == 3
    f = FastDist.die(6).sum_of(3)
    assert f.p_at_least(16) == pytest.approx(10 / 216) and f.mean() == pytest.approx(10.5)
    assert repr(Dist.die(2)) == "Dist.from_weights({1: 1, 2: 1})"
    assert "truncated 1/6" in repr(Dist.die(6).explode(lambda v: v == 6, 0))
    assert repr(d.sum_of(20)).startswith("<Dist: 301 outcomes 60..360>")


def test_sparse_and_negative_outcomes_take_the_generic_path() -> None:
    sparse = Dist.from_weights({0: 1, 10**6: 1})
    assert sparse._poly is None
    assert sparse.sum_of(3).probabilities() == {k * 10**6: Fraction(c, 8)
                                                for k, c in enumerate((1, 3, 3, 1))}
    neg = Dist.from_weights({-5: 1, 3: 2})
    assert agree(neg.sum_of(4), FastDist.from_weights({-5: 1, 3: 2}).sum_of(4))
    assert (neg - neg).probabilities() == oracle_weights({-5: 1, 3: 2}, 2, lambda a, b: a - b)


def oracle_weights(weights: dict[int, int], n: int, f: Callable[..., int]) -> dict[int, Fraction]:
    faces = [o for o, w in weights.items() for _ in range(w)]
    counts = Counter(f(*r) for r in itertools.product(faces, repeat=n))
    return {o: Fraction(c, len(faces) ** n) for o, c in counts.items()}


@pytest.mark.parametrize("make, error, match", [
    (lambda: Dist.from_weights({1: 0.5}), TypeError, "FastDist"),  # type: ignore[dict-item]
    (lambda: Dist.from_weights({1: -1, 2: 2}), ValueError, "non-negative"),
    (lambda: Dist.from_weights({1: 0}), ValueError, "positive"),
    (lambda: FastDist.from_weights({1: 0}), ValueError, "positive"),
    (lambda: Dist.die(0), ValueError, "face"),
    (lambda: Dist.bernoulli(Fraction(3, 2)), ValueError, "between 0 and 1"),
    (lambda: Dist.mixture([(0, 1), (0, 2)]), ValueError, "positive sum"),
    (lambda: FastDist.mixture([(-1, 1), (2, 2)]), ValueError, "non-negative"),
    (lambda: FastDist.const((1, 2)), TypeError, "use Dist"),
    (lambda: FastDist.from_weights({0: 1, 10**8: 1}), ValueError, "use Dist"),
    (lambda: Dist.die(6) + FastDist.die(6), TypeError, "to_fast"),
    (lambda: Dist.die(6).count_successes(3), TypeError, "True/False"),
    (lambda: Dist.die(6).sum_of(-1), ValueError, ">= 0"),
    (lambda: Dist.die(6).sum_of_random(Dist.die(6) - 2), ValueError, ">= 0"),
    (lambda: Dist.die(6).binary("^", 2), ValueError, "unknown operator"),
    (lambda: Dist.die(6) // (Dist.die(3) - 1), ZeroDivisionError, "by zero"),
    (lambda: FastDist.die(6) // (FastDist.die(3) - 1), ZeroDivisionError, "by zero"),
    (lambda: Dist.die(6).explode(lambda v: v == 6, -1), ValueError, "depth"),
    (lambda: Dist.const((1, 2)) + Dist.const((1, 2, 3)), ValueError, "sizes"),
])
def test_errors_say_what_to_do(make: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        make()


def test_agree_detects_differences() -> None:
    assert not agree(Dist.die(6), FastDist.die(5))
    assert not agree(Dist.die(6).explode(lambda v: v == 6, 0), FastDist.die(6))
    assert agree(Dist.die(6), FastDist.die(6), tol=0.0)


def test_ordered_dataclass_outcomes_sort_as_their_own_comparison_does() -> None:
    from compiler.resolve.core import Face, Roll
    from compiler.resolve.dist_base import sorted_pairs
    rolls = [Roll(s, n) for n in (6, 1, 3, 2, 5, 4) for s in (True, False)]
    assert [o for o, _ in sorted_pairs((r, 1) for r in rolls)] == sorted(rolls)
    faces = [Face("skull", 1), Face(2, 3), Face("axe", 2)]  # values that do not compare: the repr order
    expected = sorted(faces, key=lambda f: repr(f))
    assert [o for o, _ in sorted_pairs((f, 1) for f in faces)] == expected
    assert Dist.from_weights(dict.fromkeys(rolls, 1)).outcomes() == tuple(sorted(rolls))


@pytest.mark.parametrize("make", [
    lambda: Dist.from_weights({0: 15, 1: 1, 2: 1, 3: 1}),  # an attack's damage: most attacks do none
    lambda: Dist.from_weights({-2: 3, 0: 1, 5: 2}),  # below zero, with gaps
    lambda: Dist.from_weights({1: 1, 2: 1, 3: 2}) + Dist.die(4),  # weights still in the polynomial
    lambda: Dist.die(6).explode(lambda v: v == 6, depth=1),  # some weight cut off
    lambda: Dist.die(3).explode(lambda v: v == 3, depth=0) - 1,
])
@pytest.mark.parametrize("n", [2, 3, 7, 40])
def test_power_is_the_sum_of_copies(make: Any, n: int) -> None:
    """The polynomial power (its total weight taken from the base's, not summed again) against
    adding the copies one by one: the same weights, the same cut-off mass, the same total."""
    d = make()
    power = d.convolve_power(n)
    copies = d
    for _ in range(n - 1):
        copies = copies.binary("+", d)
    assert power.probabilities() == copies.probabilities()
    assert power.truncated == copies.truncated
    assert power.total_weight == power._denom == sum(w for _, w in power._items) + power._trunc
    assert power.outcomes() == copies.outcomes() == tuple(power.probabilities())
