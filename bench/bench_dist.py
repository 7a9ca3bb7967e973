"""Benchmark the distribution engine against icepool, dyce and a bare NumPy convolution.

Run from the repository root:  .venv/bin/python bench/bench_dist.py [--repeat N] [--budget S]

Every tool answers the same questions, built from scratch inside the timed call:
  "N attacks, each hits on 3+, wounds on 4+, fails a 4+ save; each unsaved attack deals
   D6 (or D3) damage: the distribution of total damage", and the same with D6 attacks.
Before timing, the answers are checked: exact backend == icepool == dyce (exact Fractions),
fast backend and NumPy baseline within 1e-12 of the exact answer. See bench/README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:
    import dyce
    import icepool
    from dyce import H
    from dyce.evaluation import expand
except ImportError as missing:  # the dice libraries compared with come with the bench extra
    sys.exit(f"{Path(__file__).name} compares warscribe with other dice libraries; {missing.name} is not installed: "
             f"pip install -e \".[bench]\"")

from compiler.resolve.dist import Dist, FastDist, agree  # noqa: E402

warnings.filterwarnings("ignore", message="`expand` is experimental")  # dyce's dependent-roll idiom

P_UNSAVED = Fraction(2, 3) * Fraction(1, 2) * Fraction(1, 2)  # hit 3+, wound 4+, save 4+ fails
TOLERANCE = 1e-12


# --- one builder per tool: (damage die faces, attacks: int or "D6") -> distribution ---------


def exact(faces: int, attacks: int | str) -> Dist:
    per_attack = Dist.mixture([(1 - P_UNSAVED, 0), (P_UNSAVED, Dist.die(faces))])
    if isinstance(attacks, str):  # "D6"
        return per_attack.sum_of_random(Dist.die(6))
    return per_attack.convolve_power(attacks)


def fast(faces: int, attacks: int | str) -> FastDist:
    p = float(P_UNSAVED)
    per_attack = FastDist.mixture([(1 - p, 0), (p, FastDist.die(faces))])
    if isinstance(attacks, str):  # "D6"
        return per_attack.sum_of_random(FastDist.die(6))
    return per_attack.convolve_power(attacks)


def with_icepool(faces: int, attacks: int | str) -> Any:
    p = P_UNSAVED
    per_attack = icepool.Die([icepool.d(faces), 0], times=[p.numerator, p.denominator - p.numerator])
    if isinstance(attacks, str):  # "D6"
        return icepool.d6 @ per_attack
    return attacks @ per_attack


def with_dyce(faces: int, attacks: int | str) -> Any:
    p = P_UNSAVED
    unsaved = H({True: p.numerator, False: p.denominator - p.numerator})
    per_attack = expand(lambda r: H(faces) if r.outcome else 0, unsaved)
    if isinstance(attacks, str):  # "D6"
        return expand(lambda n: n.outcome @ per_attack, H(6))
    return attacks @ per_attack


def _np_power(a: np.ndarray, n: int) -> np.ndarray:
    result, base = None, a
    while True:
        if n & 1:
            result = base if result is None else np.convolve(result, base)
        n >>= 1
        if not n:
            return result if result is not None else np.ones(1)
        base = np.convolve(base, base)


def bare_numpy(faces: int, attacks: int | str) -> np.ndarray:
    """Probability array indexed by damage: the per-attack array, convolved by squaring."""
    p = float(P_UNSAVED)
    per_attack = np.full(faces + 1, p / faces)
    per_attack[0] = 1 - p
    if not isinstance(attacks, str):
        return _np_power(per_attack, attacks)
    out = np.zeros(6 * faces + 1)
    power = np.ones(1)
    for _ in range(6):  # powers incrementally, mixed by the count's weights
        power = np.convolve(power, per_attack)
        out[:power.size] += power / 6
    return out


TOOLS: dict[str, Callable[[int, int | str], Any]] = {
    "exact": exact, "fast": fast, "icepool": with_icepool, "dyce": with_dyce, "numpy": bare_numpy,
}
QUESTIONS = [(6, n) for n in (10, 50, 100, 200)] + [(3, n) for n in (10, 50, 100, 200)] + [
    (6, "D6"), (3, "D6")]


# --- checking and timing ---------------------------------------------------------------


def as_fractions(tool: str, answer: Any) -> dict[Any, Fraction]:
    if tool == "exact":
        return answer.probabilities()
    if tool == "icepool":
        return dict(zip(answer.outcomes(), answer.probabilities()))
    if tool == "dyce":
        return dict(answer.probability_items())
    raise ValueError(tool)


def check(faces: int, attacks: int | str) -> None:
    """Raise AssertionError unless every tool gives the same distribution."""
    answers = {tool: build(faces, attacks) for tool, build in TOOLS.items()}
    truth = as_fractions("exact", answers["exact"])
    assert abs(sum(truth.values()) - 1) == 0 and answers["exact"].truncated == 0
    for tool in ("icepool", "dyce"):
        assert as_fractions(tool, answers[tool]) == truth, f"{tool} disagrees on {attacks}xD{faces}"
    assert agree(answers["exact"], answers["fast"], TOLERANCE), "fast backend disagrees"
    arr = answers["numpy"]
    assert arr.size == max(truth) + 1 and all(
        abs(float(truth.get(v, 0)) - arr[v]) <= TOLERANCE for v in range(arr.size)), "numpy disagrees"


def best_time(build: Callable[[], Any], repeat: int, budget: float) -> float:
    """Best of `repeat` rounds of CPU time (this process: a busy machine stretches it less than
    wall time); each round runs enough calls to fill `budget`/`repeat` CPU seconds."""
    start = time.process_time()
    build()
    once = time.process_time() - start
    calls = max(1, int(budget / repeat / max(once, 1e-6)))
    best = once
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(calls):
            build()
        best = min(best, (time.process_time() - start) / calls)
    return best


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} us"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timing rounds per cell (best kept)")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per cell, roughly")
    args = parser.parse_args(argv)

    print(f"icepool {icepool.__version__}, dyce {getattr(dyce, '__version__', '?')}, "
          f"numpy {np.__version__}, python {sys.version.split()[0]}")
    head = (f"{'question':<22}" + "".join(f"{t:>11}" for t in TOOLS)
            + f"{'exact speedup':>15}{'fast/numpy':>12}")
    print(head)
    print("-" * len(head))
    for faces, attacks in QUESTIONS:
        check(faces, attacks)
        times = {t: best_time(partial(b, faces, attacks), args.repeat, args.budget)
                 for t, b in TOOLS.items()}
        speedup = min(times["icepool"], times["dyce"]) / times["exact"]
        label = f"{attacks} attacks x D{faces}"
        print(f"{label:<22}" + "".join(f"{fmt(times[t]):>11}" for t in TOOLS)
              + f"{speedup:>14.0f}x{times['fast'] / times['numpy']:>11.2f}x")
    print("exact speedup = min(icepool, dyce) / exact;  fast/numpy = fast / bare NumPy baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
