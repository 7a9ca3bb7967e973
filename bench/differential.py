"""The long differential run: generated rulesets answered exactly and by the plain interpreter.

    .venv/bin/python bench/differential.py                                # 10,000 programs, 20,000 samples each
    .venv/bin/python bench/differential.py --programs 300 --samples 5000 --jobs 2 --seed 7

Each worker draws ``--programs / --jobs`` programs from ``tests/differential.py``'s
``programs()`` (its own seed, derived from ``--seed``), judges each (``check --strict``, then
``eval``'s exact law against ``--samples`` plays of ``tests/plain_interpreter.py``, chi-square at
``--alpha`` divided by the number of programs) and the run ends with the counts: programs tried,
refused by check, agreements, disagreements (by the known case of issue 26 they show, or
"new"), eval refusals and forms the plain interpreter does not play.  Each disagreement and
each eval refusal is written to ``--out`` (a temporary folder by default) as a ``.rules`` file
with its question in a comment, to reproduce with ``warscribe eval``.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def _worker(job: tuple[int, int, int, float, str, bool]) -> tuple[Counter[str], list[str]]:
    count, seed, samples, alpha, out, known = job
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    from differential import Program, judge, programs
    from plain_interpreter import Unsupported

    tally: Counter[str] = Counter()
    notes: list[str] = []

    @hseed(seed)
    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(programs(known=known))
    def run(p: Program) -> None:
        tally["tried"] += 1
        try:
            v = judge(p, samples, alpha, seed=tally["tried"])
        except Unsupported as err:
            tally["unsupported"] += 1
            notes.append(f"unsupported: {err}")
            return
        outcome = v.outcome
        if outcome == "disagree":
            outcome += ":" + (",".join(sorted(p.known)) or "new")
        tally[outcome] += 1
        if v.outcome in ("disagree", "unresolved"):
            path = Path(out) / f"{v.outcome}-{seed}-{tally['tried']}.rules"
            path.write_text(f"# {p.question}\n# {v.detail}\n# known: {sorted(p.known)}\n{p.text}", encoding="utf-8")
            notes.append(f"{outcome}: {path} {v.detail}")
        elif v.outcome == "refused":
            notes.append(f"refused: {v.detail[:200]}")
        if tally["tried"] % 250 == 0:  # progress, so that a run cut short still says what it found
            print(f"[{seed}] {dict(sorted(tally.items()))} CPU {time.process_time():.0f} s", file=sys.stderr, flush=True)

    run()
    return tally, notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--alpha", type=float, default=0.01, help="the family-wise level (default 0.01)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--without-known", action="store_true",
                        help="leave out the forms of issue 26's listed cases (as the suite does)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="differential-"))
    out.mkdir(parents=True, exist_ok=True)
    per = [args.programs // args.jobs + (1 if i < args.programs % args.jobs else 0) for i in range(args.jobs)]
    jobs = [(n, args.seed * 1000 + i, args.samples, args.alpha / args.programs, str(out), not args.without_known)
            for i, n in enumerate(per) if n]
    start, wall = time.process_time(), time.time()
    tally: Counter[str] = Counter()
    notes: list[str] = []
    with ProcessPoolExecutor(len(jobs)) as pool:
        for t, n in pool.map(_worker, jobs):
            tally += t
            notes += n
    refused = Counter(n.split(": ", 1)[1][:60] for n in notes if n.startswith("refused"))
    for n in notes:
        if not n.startswith("refused"):
            print(n)
    print(f"\nprograms tried {tally['tried']}, samples each {args.samples}, family-wise alpha {args.alpha}")
    for key in sorted(tally):
        if key != "tried":
            print(f"  {key:<24} {tally[key]}")
    if refused:
        print("refused by check --strict, most common first:")
        for reason, n in refused.most_common(8):
            print(f"  {n:>5}  {reason}")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - start + children.ru_utime + children.ru_stime
    print(f"files: {out}; CPU {cpu:.1f} s (this process and its workers), {time.time() - wall:.0f} s of wall time")
    return 1 if any(k.startswith(("disagree", "unresolved")) for k in tally) else 0


if __name__ == "__main__":
    sys.exit(main())
