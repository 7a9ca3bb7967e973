"""The long fuzz run: 100,000 inputs through check, the examples and the formatter — and through
the other doors from outside (battle logs, army lists, command lines) — with a report.

    .venv/bin/python bench/fuzz.py                       # 100,000 rules inputs, all cores
    .venv/bin/python bench/fuzz.py --inputs 5000 --jobs 1 # a quick one
    .venv/bin/python bench/fuzz.py --kinds io             # 100,000 logs, army lists and command lines
    .venv/bin/python bench/fuzz.py --kinds all            # both, half each

Inputs, per worker:

* ``--bases`` valid rulesets drawn from the grammar-aware hypothesis strategy
  (``tests/strategies.py``: ``rulesets()``); each must check without errors,
  pass its own examples and format idempotently;
* the rest: one of those rulesets damaged by one to four edits (``mutate``:
  lines cut, doubled, swapped, re-indented, names pointed at each other,
  numbers made huge, deep nesting, junk pasted in), 10% token soup, 5% random
  text.  Each must give diagnostics only.

With ``--kinds io`` (``bench/fuzz_io.py``) the inputs are instead, a third each: a real battle
log damaged by one to three edits (fields given hostile values — wrong types, huge numbers,
deep nesting, markup, escapes — lines cut, doubled, swapped, replaced by junk, bytes flipped),
replayed with ``play --replay``; an army list (odd counts, unknown names, junk, binary) given to
``army check``; and a command line (a command, its arguments, up to three of its options with odd
values, read from the CLI's own option definitions) run in process.  Each must end in an exit
status with at most a usage error or a diagnostic.

Every rules input goes through ``exercise``: check, render every diagnostic, run the
examples when the rules check, format (twice).  A *crash* is any exception
there (or running for more than a minute: a hang); a *slow* input is one that
takes more than a second.  Crashing and slow
inputs are saved under ``--out`` (default: a temporary folder) to reproduce
with ``warscribe check``.  The exit status is 1 if anything crashed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

SLOW = 1.0  # CPU seconds (a busy machine stretches wall time, not CPU time)
HANG = 60  # CPU seconds after which an input counts as a hang (a crash) and the run goes on
MEMORY = 4 * 1024**3  # bytes a worker may use: a blow-up becomes a MemoryError (a crash), not the OOM killer


def _bases(count: int, seed: int) -> list[str]:
    try:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as hseed
    except ImportError:
        sys.exit("--bases draws rulesets with hypothesis, which is not installed: pip install -e \".[bench]\"")
    from strategies import rulesets

    out: list[str] = []

    @hseed(seed)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(rulesets())
    def collect(text: str) -> None:
        out.append(text)

    collect()
    return out


def _soup(rng: random.Random) -> str:
    from strategies import JUNK

    words = JUNK + ["ruleset", "section", "table", "test", "roll", "natural", "fails", "unit", "BS", "4",
                    "\n", "  ", "expect", "example", "formula", "let", "result", "grid", "by", "attack"]
    return 'ruleset x "X":\n  version 1.0.0\n' + " ".join(rng.choice(words) for _ in range(rng.randint(0, 80)))


def _random_text(rng: random.Random) -> str:
    from strategies import RandomPicker

    return RandomPicker(rng).text(400)


class Hang(BaseException):
    """An input ran for more than HANG seconds."""


def _hang(signum: int, frame: Any) -> None:
    raise Hang(f"still running after {HANG} s")


#: Inputs done by all the workers so far (shared memory, set in each worker by ``_share``): what
#: the progress bar shows.
DONE: Any = None


def _share(done: Any) -> None:
    global DONE
    DONE = done


def _tick() -> None:
    if DONE is not None:
        with DONE.get_lock():
            DONE.value += 1


def worker(index: int, inputs: int, bases: int, seed: int, out: str, kinds: str = "rules") -> dict[str, Any]:
    from compiler.driver import compile_text
    from strategies import RandomPicker, exercise, mutate

    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    except (ImportError, ValueError, OSError):
        pass
    signal.signal(signal.SIGPROF, _hang)  # a hang counted in CPU time: a loaded machine is not a hang
    rng = random.Random(seed * 1000 + index)
    stats: dict[str, Any] = {"inputs": 0, "valid": 0, "mutated": 0, "soup": 0, "random": 0, "checked_clean": 0,
                             "log": 0, "army": 0, "command": 0,
                             "crashes": [], "slow": [], "valid_with_errors": [], "slowest": 0.0, "seconds": 0.0}
    folder = Path(out)
    current = folder / f"current-{index}.rules"
    start = time.perf_counter()

    def run(text: str, kind: str, must_be_clean: bool = False) -> None:
        stats["inputs"] += 1
        _tick()
        stats[kind] += 1
        current.write_text(text, encoding="utf-8")  # left behind if the worker dies on it
        t0 = time.process_time()
        try:
            signal.setitimer(signal.ITIMER_PROF, HANG)
            try:
                clean = exercise(text)
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            stats["checked_clean"] += int(clean)
            if must_be_clean and not clean:
                errors = [(d.code, d.message) for d in compile_text(text).diagnostics if d.is_error][:3]
                name = folder / f"valid-{index}-{stats['inputs']}.rules"
                name.write_text(text, encoding="utf-8")
                stats["valid_with_errors"].append({"file": str(name), "errors": errors})
        except (Exception, MemoryError, RecursionError, Hang) as e:  # noqa: BLE001 — counting crashes is the point
            name = folder / f"crash-{index}-{stats['inputs']}.rules"
            name.write_text(text, encoding="utf-8")
            stats["crashes"].append({"file": str(name), "kind": kind, "error": f"{type(e).__name__}: {e}"[:300],
                                     "where": traceback.format_exc().strip().splitlines()[-3:]})
        took = time.process_time() - t0
        stats["slowest"] = max(stats["slowest"], took)
        if took > SLOW:
            name = folder / f"slow-{index}-{stats['inputs']}.rules"
            name.write_text(text, encoding="utf-8")
            stats["slow"].append({"file": str(name), "kind": kind, "seconds": round(took, 2)})

    def run_io(kind: str, data: bytes | list[str]) -> None:
        from fuzz_io import exercise_io

        stats["inputs"] += 1
        _tick()
        stats[kind] += 1
        saved = json.dumps(data) if isinstance(data, list) else data.decode("utf-8", "replace")
        current.write_text(saved, encoding="utf-8")
        t0 = time.process_time()
        try:
            signal.setitimer(signal.ITIMER_PROF, HANG)
            try:
                exercise_io(kind, data, scratch)
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
        except (Exception, MemoryError, RecursionError, Hang) as e:  # noqa: BLE001 — counting crashes is the point
            name = folder / f"crash-{index}-{stats['inputs']}.{kind}"
            name.write_bytes(data if isinstance(data, bytes) else saved.encode())
            stats["crashes"].append({"file": str(name), "kind": kind, "error": f"{type(e).__name__}: {e}"[:300],
                                     "where": traceback.format_exc().strip().splitlines()[-3:]})
        took = time.process_time() - t0
        stats["slowest"] = max(stats["slowest"], took)
        if took > SLOW:
            name = folder / f"slow-{index}-{stats['inputs']}.{kind}"
            name.write_bytes(data if isinstance(data, bytes) else saved.encode())
            stats["slow"].append({"file": str(name), "kind": kind, "seconds": round(took, 2)})

    scratch = Path(tempfile.mkdtemp(prefix=f"io-{index}-", dir=folder))
    io_share = {"rules": 0.0, "io": 1.0, "all": 0.5}[kinds]
    lines: list[str] = []
    if io_share:
        sys.path.insert(0, str(ROOT / "bench"))
        from fuzz_io import log_lines, make_army, make_command, make_log, remember_compiles
        remember_compiles()
        lines = log_lines()
    pool = _bases(bases, seed * 1000 + index) if io_share < 1 else []
    exercise('ruleset warm "Warm up":\n  version 1.0.0\n')  # build the parsers first: not an input's time
    for text in pool:
        run(text, "valid", must_be_clean=True)
    picker = RandomPicker(rng)
    while stats["inputs"] < inputs:
        if rng.random() < io_share:
            which = rng.random()
            if which < 1 / 3:
                run_io("log", make_log(rng, lines))
            elif which < 2 / 3:
                run_io("army", make_army(rng))
            else:
                run_io("command", make_command(rng, scratch))
            continue
        roll = rng.random()
        if roll < 0.10:
            run(_soup(rng), "soup")
        elif roll < 0.15:
            run(_random_text(rng), "random")
        else:
            run(mutate(rng.choice(pool), picker), "mutated")
    stats["seconds"] = time.perf_counter() - start
    current.unlink(missing_ok=True)
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000, help="inputs in all (default 100,000)")
    parser.add_argument("--bases", type=int, default=500, help="valid rulesets generated per worker")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None, help="where to save crashing and slow inputs")
    parser.add_argument("--json", default=None, help="write the report as JSON here too")
    parser.add_argument("--kinds", choices=("rules", "io", "all"), default="rules",
                        help="rules files (default), io (battle logs, army lists, command lines) or all")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="warscribe-fuzz-")
    Path(out).mkdir(parents=True, exist_ok=True)
    jobs = max(1, args.jobs)
    share = [args.inputs // jobs + (1 if i < args.inputs % jobs else 0) for i in range(jobs)]
    bases = min(args.bases, max(1, args.inputs // jobs))
    print(f"fuzzing: {args.inputs:,} inputs, {jobs} worker(s), {bases} generated rulesets each, seed {args.seed}",
          file=sys.stderr)
    start = time.perf_counter()
    from concurrent.futures.process import BrokenProcessPool

    from compiler.cli.progress import progress  # the CLI's: a bar on a terminal after 2 s, else one line

    done = multiprocessing.Value("q", 0)
    try:
        with ProcessPoolExecutor(jobs, initializer=_share, initargs=(done,)) as ex, \
                progress("fuzz", args.inputs, "input") as advance:
            futures = [ex.submit(worker, i, share[i], bases, args.seed, out, args.kinds) for i in range(jobs)]
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                advance(int(done.value))
            results = [f.result() for f in futures]
    except BrokenProcessPool:
        died = sorted(Path(out).glob("current-*.rules"))
        print(f"a worker died (killed by the system?); the input it was on: {[str(p) for p in died]}")
        return 2
    wall = time.perf_counter() - start
    total: dict[str, Any] = {k: sum(r[k] for r in results) for k in
                             ("inputs", "valid", "mutated", "soup", "random", "checked_clean", "log", "army",
                              "command")}
    total.update({k: [x for r in results for x in r[k]] for k in ("crashes", "slow", "valid_with_errors")})
    total["slowest_seconds"] = round(max(r["slowest"] for r in results), 3)
    total["wall_seconds"] = round(wall, 1)
    total["inputs_per_second"] = round(total["inputs"] / wall, 1)
    total["saved_in"] = out
    print(f"inputs tried:          {total['inputs']:,} ({total['valid']:,} generated valid, "
          f"{total['mutated']:,} mutated, {total['soup']:,} token soup, {total['random']:,} random text; "
          f"{total['log']:,} battle logs, {total['army']:,} army lists, {total['command']:,} command lines)")
    print(f"crashes:               {len(total['crashes'])} (anything but a diagnostic)")
    print(f"inputs over {SLOW:.0f} s:        {len(total['slow'])} (slowest {total['slowest_seconds']} s)")
    print(f"valid with errors:     {len(total['valid_with_errors'])} (generated rulesets that did not check clean)")
    print(f"checked clean:         {total['checked_clean']:,}")
    print(f"time:                  {wall:.0f} s, {total['inputs_per_second']:.0f} inputs/s")
    for c in total["crashes"][:10]:
        print(f"  crash: {c['error']}  ({c['file']})")
    for s in total["slow"][:10]:
        print(f"  slow:  {s['seconds']} s  ({s['file']})")
    if args.json:
        Path(args.json).write_text(json.dumps(total, indent=2, ensure_ascii=False), encoding="utf-8")
    return 1 if total["crashes"] or total["valid_with_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
