"""Where the user waits: start-up, `check`, answers printed — CPU seconds against their targets.

    .venv/bin/python bench/bench_startup.py              # about a minute
    .venv/bin/python bench/bench_startup.py --runs 3     # quicker, noisier

Each command runs as a fresh process, ``--runs`` times after one warm-up run; a figure is the
least CPU time (user + system, from ``getrusage(RUSAGE_CHILDREN)``) of those runs, so a busy
machine stretches it less than wall time. Two columns: with ``.pyc`` files written and read
(what a user's ``pip install`` gives) and with none (``PYTHONDONTWRITEBYTECODE=1`` and an empty
``PYTHONPYCACHEPREFIX``: every module, the dependencies' too, compiled from source at each start —
worse than this project's development environment, where only the package's own modules are).

``warscribe check`` keeps each file's AST in the user's cache folder (``compiler/ast/cached.py``):
the warm-up run fills it, so the ``check`` row is a re-check of unchanged files, and the row
below it is the same command with the cache off (``WARSCRIBE_CACHE=0``), as a first run pays.

Ratios are to something measured in the same run: ``python -c pass`` for start-up, the engine's
own work for the answers (the same question evaluated in this process, least of ``--runs``).
Nothing here is asserted by the tests: timings belong to benchmarks.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTION = "shooting(200 shooter, gun_d6, 1 target).damage"
WARSCRIBE = str(Path(sys.executable).with_name("warscribe"))


def child_cpu(argv: list[str], env: dict[str, str], runs: int) -> float:
    """Least CPU seconds of ``runs`` runs of ``argv`` (after one warm-up run)."""
    best = float("inf")
    for i in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[-500:]}")
        if i:
            best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def own_cpu(work: Callable[[], object], runs: int) -> float:
    """Least CPU seconds of ``runs`` calls of ``work`` in this process."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def engine_seconds(runs: int) -> float:
    """The engine alone on the 200-attack question: a fresh evaluator (cold), the ruleset compiled once."""
    from compiler.driver import compile_paths
    from compiler.resolve.evaluator import Evaluator, parse_expression

    model = compile_paths([str(ROOT / "bench" / "ruleset")]).rulesets[0]
    expr = parse_expression(QUESTION)

    def cold() -> object:
        model.__dict__.pop("_resolver_memo", None)  # as bench_resolver.py's "cold": an empty memo
        return Evaluator(model, exact=True).evaluate(expr)
    return own_cpu(cold, runs)


def printing_seconds(runs: int) -> tuple[int, float, float]:
    """A 10,000-value exact distribution (the sum of 101 d100) printed as text and as JSON."""
    from compiler.resolve.dist import Dist
    from compiler.resolve.report import value_json, value_lines

    d = Dist.die(100).convolve_power(101)
    text = own_cpu(lambda: "\n".join(value_lines(d)), runs)
    as_json = own_cpu(lambda: json.dumps(value_json("101d100", d), indent=2, ensure_ascii=False), runs)
    return len(d), text, as_json


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="timed runs per figure (least is kept)")
    args = ap.parse_args()

    with_pyc = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    # No .pyc read or written: an empty cache folder that nothing is written to.
    no_pyc = {**with_pyc, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": tempfile.mkdtemp(prefix="ws-nopyc-")}
    envs = (with_pyc, no_pyc)

    def both(argv: list[str], extra: dict[str, str] | None = None) -> tuple[float, float]:
        a, b = (child_cpu(argv, {**env, **(extra or {})}, args.runs) for env in envs)
        return a, b

    python = both([sys.executable, "-c", "pass"])
    commands = [
        ("warscribe version", [WARSCRIBE, "version"], 0.15),
        ("warscribe --help", [WARSCRIBE, "--help"], 0.30),
        ("warscribe check rules/", [WARSCRIBE, "check", "rules/"], 0.80),
        ("  the same, AST cache off (cold)", [WARSCRIBE, "check", "rules/"], 0.80),
        ("eval 200 attacks: mean", [WARSCRIBE, "eval", "bench/ruleset", f"mean({QUESTION})"], None),
        ("eval 200 attacks: text", [WARSCRIBE, "eval", "bench/ruleset", QUESTION], 1.00),
        ("eval 200 attacks: --json", [WARSCRIBE, "eval", "bench/ruleset", QUESTION, "--json"], 1.00),
    ]
    engine = engine_seconds(args.runs)
    size, text_s, json_s = printing_seconds(args.runs)

    print(f"CPU seconds (user+sys), least of {args.runs} runs after a warm-up; "
          f"python -c pass: {python[0]:.3f} s (.pyc) / {python[1]:.3f} s (no .pyc)")
    print(f"{'figure':<34}{'.pyc':>8}{'no .pyc':>9}{'target':>9}  {'holds':<6}ratio")
    print("-" * 96)
    for name, argv, target in commands:
        pyc, nopyc = both(argv, {"WARSCRIBE_CACHE": "0"} if "cache off" in name else None)
        holds = "" if target is None else ("yes" if pyc <= target else "NO")
        if name.startswith("eval"):
            ratio = f"{pyc / engine:,.0f}x the engine ({engine * 1000:.1f} ms); start-up incl."
        else:
            ratio = f"{pyc / python[0]:.1f}x python -c pass"
        print(f"{name:<34}{pyc:>8.3f}{nopyc:>9.3f}{'' if target is None else f'{target:.2f}':>9}  {holds:<6}{ratio}")
    for name, seconds in ((f"print {size:,} values: text", text_s), (f"print {size:,} values: JSON", json_s)):
        print(f"{name:<34}{seconds:>8.3f}{'':>9}{0.5:>9.2f}  {'yes' if seconds <= 0.5 else 'NO':<6}in process")
    print("Builds and serve: bench/bench_site.py.")


if __name__ == "__main__":
    main()
