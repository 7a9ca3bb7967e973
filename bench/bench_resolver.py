"""Benchmark the resolver — the whole language, not only the engine — against icepool, dyce
and a bare NumPy convolution, on the same questions, in one run.

Run from the repository root:  .venv/bin/python bench/bench_resolver.py [--repeat N] [--budget S]

The question is written in the language (bench/ruleset): "N shooters (one attack each) hit on
3+, wound on 4+, face a 4+ save; each unsaved attack deals D6 (or D3) damage: the distribution
of total damage", i.e. `shooting(N shooter, gun_d6, 1 target).damage`, and the same with one
shooter firing D6 shots.  warscribe answers it by compiling nothing more than the ruleset once
(outside the timing), then evaluating the expression:

  cold  a fresh evaluator with an empty memo: the per-attack token pipeline and the final
        power are worked out inside the timed call; what the ruleset alone determines (the
        outcomes of its closed tests and the steps through them, the profiles' stats as
        written) is kept from the first question on.  Lines after the table time the first
        question about a matchup: runs through 2,700 matchups of other stats, each asked once
        (the mean over the run), against dyce on the same matchups, and the last rows of the
        table read the targets that way too; a ruleset's very first question (all of that
        emptied; kept: its closed expressions compiled, and what depends on values alone,
        compiler/resolve/pure.py, as the dice libraries keep their tables), reported with no
        target of its own, as it also does the work done once per ruleset; and one with
        nothing at all kept, as in a fresh process;
  warm  the same question asked again: the model's memo already holds the per-attack work
        and the dispatch of the call (no answer is memoised), so the call costs the power
        and what is left of the DSL's dispatch.

Times are CPU seconds of this process (time.process_time), the best of --repeat rounds.
The last table puts each figure next to its target (bench/README.md), at the worst question
the target covers.

Every answer is checked first (warscribe exact == icepool == dyce as exact Fractions; warscribe
fast within 1e-12 of them), then timed.  See bench/README.md for the targets.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_dist as engine  # noqa: E402

from compiler.resolve import pure  # noqa: E402
from compiler.resolve.dist import agree  # noqa: E402
from compiler.driver import compile_paths  # noqa: E402
from compiler.resolve.evaluator import Evaluator, parse_expression  # noqa: E402

RULESET = Path(__file__).resolve().parent / "ruleset"


def question(faces: int, attacks: int | str) -> str:
    if isinstance(attacks, str):
        return f"shooting(1 shooter, storm_d{faces}, 1 target).damage"
    return f"shooting({attacks} shooter, gun_d{faces}, 1 target).damage"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timing rounds per cell (best kept)")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per cell, roughly")
    args = parser.parse_args(argv)

    result = compile_paths([str(RULESET)])
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]

    def ask(text: Any, exact: bool, warm: bool) -> Any:
        if not warm:
            model.__dict__.pop("_resolver_memo", None)
        return Evaluator(model, exact=exact).evaluate(text)

    columns = ["ws exact cold", "ws exact warm", "ws fast cold", "ws fast warm", "icepool", "dyce", "numpy"]
    head = f"{'question':<20}" + "".join(f"{c:>15}" for c in columns) + \
        f"{'exact/best lib':>16}{'fast warm/np':>14}{'fast cold/np':>14}"
    print(head)
    print("-" * len(head))
    measured: dict[tuple[int, int | str], dict[str, float]] = {}
    for faces, attacks in engine.QUESTIONS:
        expr = parse_expression(question(faces, attacks))
        exact_answer = ask(expr, True, False)
        truth = engine.as_fractions("exact", engine.exact(faces, attacks))
        assert exact_answer.probabilities() == truth, f"warscribe disagrees on {attacks}xD{faces}"
        assert engine.as_fractions("icepool", engine.with_icepool(faces, attacks)) == truth
        assert engine.as_fractions("dyce", engine.with_dyce(faces, attacks)) == truth
        assert agree(exact_answer, ask(expr, False, False), engine.TOLERANCE), "fast disagrees"

        times = {
            "ws exact cold": engine.best_time(partial(ask, expr, True, False), args.repeat, args.budget),
            "ws exact warm": engine.best_time(partial(ask, expr, True, True), args.repeat, args.budget),
            "ws fast cold": engine.best_time(partial(ask, expr, False, False), args.repeat, args.budget),
            "ws fast warm": engine.best_time(partial(ask, expr, False, True), args.repeat, args.budget),
            "icepool": engine.best_time(partial(engine.with_icepool, faces, attacks), args.repeat, args.budget),
            "dyce": engine.best_time(partial(engine.with_dyce, faces, attacks), args.repeat, args.budget),
            "numpy": engine.best_time(partial(engine.bare_numpy, faces, attacks), args.repeat, args.budget),
        }
        measured[(faces, attacks)] = times
        best_lib = min(times["icepool"], times["dyce"])
        label = f"{attacks} x D{faces}"
        print(f"{label:<20}" + "".join(f"{engine.fmt(times[c]):>15}" for c in columns)
              + f"{best_lib / times['ws exact cold']:>15.0f}x"
              + f"{times['ws fast warm'] / times['numpy']:>13.1f}x"
              + f"{times['ws fast cold'] / times['numpy']:>13.1f}x")
    print("exact/best lib = min(icepool, dyce) / warscribe exact (cold);  "
          "…/np = warscribe fast / bare NumPy convolution")
    print()
    # "cold" keeps what the ruleset itself determines: the outcomes of its closed tests and the
    # steps through them (compiler/resolve/closed.py), the profiles' stats as written
    # (compiler/resolve/expressions.py).  The first question ever asked of a ruleset works those
    # out too; what depends on values alone (a d6 rolled against 4+, a step by its chance to pass:
    # compiler/resolve/pure.py) is kept for the process, as the dice libraries keep their tables.
    # With nothing at all kept, as in a fresh process, even those are worked out.
    def first(text: Any) -> Any:
        model.__dict__.pop("_closed_test_outcomes", None)
        model.__dict__.pop("_plain_stats", None)  # the profiles' stats as written, read once
        return ask(text, True, False)

    def fresh(text: Any) -> Any:
        pure.forget()
        model.__dict__.pop("_compiled_exprs", None)
        return first(text)
    firsts: dict[str, tuple[float, str]] = {}  # how the first question was asked -> least speed-up, where
    for faces, attacks in ((3, 10), (3, 100)):
        expr = parse_expression(question(faces, attacks))
        best_lib = min(measured[(faces, attacks)]["icepool"], measured[(faces, attacks)]["dyce"])
        for name, how in (("a ruleset's first question (memo, closed tests, written stats emptied)", first),
                          ("nothing kept at all, as in a fresh process", fresh)):
            t = engine.best_time(partial(how, expr), args.repeat, args.budget)
            print(f"{attacks} x D{faces}, exact, {name}: {engine.fmt(t)}, {best_lib / t:.2f}x as fast as the faster library")
            if how is first:
                firsts[f"a ruleset's first question, {attacks} x D{faces}"] = (best_lib / t, f"{attacks} x D{faces}")
    for attacks in (10, 100):
        ours, dyce, sample, checked = new_matchups_apart(attacks)
        print(f"{attacks} x D3, each question the first about its matchup (runs through {len(MATCHUPS)} matchups of "
              f"other stats, least of 3 fresh processes; {checked} answers checked with the general way): exact "
              f"{engine.fmt(ours)} a question over the run, dyce {engine.fmt(dyce)} on {sample} of the matchups: "
              f"{dyce / ours:.1f}x as fast as dyce")
        firsts[f"new matchups, {attacks} x D3"] = (dyce / ours, f"{attacks} x D3")
    print()
    targets(measured, firsts)
    return 0


# New matchups: shooters of every Ballistic Skill, weapons of every Strength and AP, targets of
# every Toughness and save, each question about another combination (stats no earlier question read).
MATCHUPS = [(bs, s, ap, t, sv) for bs in range(2, 7) for s in range(3, 9) for ap in range(3)
            for t in range(3, 9) for sv in range(2, 7)]


def new_matchups_apart(attacks: int, runs: int = 3) -> tuple[float, float, int, int]:
    """:func:`new_matchups` in ``runs`` fresh processes, the least of each figure (as every figure
    here is the least of several runs): a fresh process, because what the sections before left in
    this one (the libraries' caches, the memos) would have the garbage collector walk it."""
    import json
    import subprocess
    code = ("import json, sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; import bench_resolver; "
            "print(json.dumps(bench_resolver.new_matchups(int(sys.argv[3]))))")
    here = Path(__file__).resolve()
    found = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-W", "ignore", "-c", code, str(here.parent), str(here.parents[1]),
                              str(attacks)], capture_output=True, text=True, check=True)
        found.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return (float(min(f[0] for f in found)), float(min(f[1] for f in found)), int(found[0][2]),
            int(sum(f[3] for f in found)))


def new_matchups(attacks: int) -> tuple[float, float, int, int]:
    """Each question the first about its matchup, in a shuffled run through MATCHUPS (so what a
    question keeps for its matchup never serves another): warscribe's CPU seconds per question,
    the mean over the whole run (the process's first question and the garbage collector's passes
    counted as they come), and dyce's on a sample of the same matchups (its chance of an unsaved
    attack read from warscribe, outside the timing; dyce's time does not depend on the order); the
    sample's size; how many answers were checked against the general way (compiler.trace.recording)."""
    import gc
    from compiler.driver import compile_text
    from compiler.trace import recording

    base = (RULESET / "ruleset.rules").read_text().split("unit shooter")[0]
    units = [f"unit s{bs} \"S{bs}\":\n  BS {bs}  S 4  T 4  Sv 4+\n" for bs in range(2, 7)]
    units += [f"unit t{t}_{sv} \"T{t} {sv}\":\n  BS 4  S 4  T {t}  Sv {sv}+\n" for t in range(3, 9) for sv in range(2, 7)]
    units += [f"weapon w{s}_{ap} \"W{s} {ap}\":\n  A 1  S {s}  AP {ap}  D D3\n" for s in range(3, 9) for ap in range(3)]
    result = compile_text(base + "\n".join(units))
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    order = list(MATCHUPS)
    random.Random(attacks).shuffle(order)
    names = [f"s{bs}, w{s}_{ap}, 1 t{t}_{sv}" for bs, s, ap, t, sv in order]
    exprs = [parse_expression(f"shooting({attacks} {n}).damage") for n in names]
    sample = range(0, len(exprs), 27)
    times, answers = [], {}
    gc.collect()  # what setting up left behind is not collected inside the timing
    for i, e in enumerate(exprs):
        start = time.process_time()
        answer = Evaluator(model, exact=True).evaluate(e)
        times.append(time.process_time() - start)
        if i % 27 == 0:  # the sample's answers, checked below (all 2,700 would fill the memory)
            answers[i] = answer
        del answer
    ours = sum(times) / len(times)
    dyce = 0.0
    for i in sample:
        p = Evaluator(model, exact=True).evaluate(parse_expression(f"shooting(1 {names[i]}).unsaved")).mean()
        with_dyce = partial(dyce_question, p, attacks)
        warnings.filterwarnings("ignore", message="expand: some branches")  # a chance of 0 (never wounds)
        assert engine.as_fractions("dyce", with_dyce()) == answers[i].probabilities(), names[i]
        dyce += min(engine.best_time(with_dyce, 1, 0.0) for _ in range(2))
    checked = 0
    for i in sample:
        model.__dict__.pop("_resolver_memo", None)
        with recording():
            assert Evaluator(model, exact=True).evaluate(exprs[i]).probabilities() == answers[i].probabilities()
        checked += 1
    return ours, dyce / len(sample), len(sample), checked


def dyce_question(p: Fraction, attacks: int) -> Any:
    """bench_dist's dyce question with another chance of an unsaved attack (D3 damage)."""
    unsaved = engine.H({True: p.numerator, False: p.denominator - p.numerator})
    return attacks @ engine.expand(lambda r: engine.H(3) if r.outcome else 0, unsaved)


def targets(measured: dict[tuple[int, int | str], dict[str, float]], firsts: dict[str, tuple[float, str]]) -> None:
    """Each figure next to its target: the worst question of the ones the target is about."""
    def label(q: tuple[int, int | str]) -> str:
        return f"{q[1]} x D{q[0]}"

    def worst(qs: list[tuple[int, int | str]], ratio: Any) -> tuple[tuple[int, int | str], float]:
        return max(((q, ratio(measured[q])) for q in qs), key=lambda qr: qr[1])

    def best_lib(t: dict[str, float]) -> float:
        return min(t["icepool"], t["dyce"])
    every = list(measured)
    counted = [q for q in every if isinstance(q[1], int)]  # "from 10 attacks up": the fixed counts
    big = [q for q in counted if isinstance(q[1], int) and q[1] >= 100]
    rows = []
    q, r = worst(every, lambda t: t["ws exact cold"] / best_lib(t))
    rows.append(("exact cold / faster of icepool, dyce (every question)", f"{r:.2f}x", "<= 1x", r <= 1, label(q)))
    q, r = worst(big, lambda t: t["ws exact cold"] / best_lib(t))
    rows.append(("exact cold speed-up over the faster library (100+ attacks)", f"{1 / r:.0f}x", ">= 100x",
                 1 / r >= 100, label(q)))
    q, r = worst(counted, lambda t: t["ws fast warm"] / t["numpy"])
    rows.append(("fast warm / bare NumPy (10+ attacks)", f"{r:.1f}x", "<= 3x", r <= 3, label(q)))
    q, r = worst(counted, lambda t: t["ws fast cold"] / t["numpy"])
    rows.append(("fast cold / bare NumPy (10+ attacks)", f"{r:.1f}x", "<= 10x", r <= 10, label(q)))
    # The same two targets, "cold" read as the first question about a matchup: nothing kept of it,
    # in a run through matchups the ruleset has not met.  A ruleset's very first question also
    # does what is done once per ruleset (its closed tests settled for their first arguments, its
    # profiles' stats read): reported below the table, with no target of its own.
    once = []
    for name, (speedup, where) in firsts.items():
        who = "a ruleset's very first question" if name.startswith("a ruleset") else "a new matchup (vs dyce)"
        if where.startswith("10 "):
            row = (f"  {who} / faster library", f"{1 / speedup:.2f}x", "<= 1x", speedup >= 1, where)
        else:
            row = (f"  {who}: speed-up (100+ attacks)", f"{speedup:.0f}x", ">= 100x", speedup >= 100, where)
        (once if name.startswith("a ruleset") else rows).append(row)
    print(f"{'figure (the worst question it covers)':<62}{'measured':>10}{'target':>10}  {'holds':<6}worst at")
    print("-" * 100)
    for name, value, target, holds, where in rows:
        print(f"{name:<62}{value:>10}{target:>10}  {'yes' if holds else 'NO':<6}{where}")
    print("reported, no target (it does the work done once per ruleset as well):")
    for name, value, _, _, where in once:
        print(f"{name:<62}{value:>10}{'':>10}  {'':<6}{where}")


if __name__ == "__main__":
    raise SystemExit(main())
