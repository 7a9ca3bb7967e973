"""How fast the limits of compiler/limits.py refuse: the timings tests/test_limits.py no longer asserts.

The tests assert the behaviour (refused, with the right code, before the work); this script
measures how long a refusal takes, as CPU time (``time.process_time``: user + system of this
process), which a machine shared with other work stretches far less than wall time.
Each case is the best of ``--repeat`` runs.

    .venv/bin/python bench/bench_limits.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import time
from typing import Any, Callable

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression

HEADER = 'ruleset demo "Demo":\n  version 1.0.0\n'
BASE = HEADER + ('stat BS "Ballistic Skill" 1..10\ntest hit(BS) = roll d6 >= BS, natural 1 fails\n'
                 'unit grunt "Grunt":\n  BS 4\n')

CHECKS = {
    "check: 1000000d1000000 (W903)": BASE + 'formula f() "F" = 1000000d1000000\n',
    "check: 200,019-character line (W904)": BASE + 'formula f() "F" = ' + "1 + " * 50_000 + "1\n",
    "check: 2,000 nested brackets (W901)": HEADER + 'formula f() "F" = ' + "(1 + " * 2000 + "1" + ")" * 2000 + "\n",
    "check: table over 10^9 x 10^9 (W907)": HEADER + ('table t(x: 1..1000000000, y: 1..1000000000) "T":\n'
                                                       '  x > y -> 4+\n  otherwise -> 5+\n'),
}
RESOLVES = ["1000000d1000000", "d1000000", "1000d1000", "1000 each 1000d6", "100000 each hit(3)",
            "highest(100, 100d6)", "d1000 * d1000", "20000 grunt"]


def cpu_seconds(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    compile_text(BASE)  # build the parser's tables once
    print(f"{'case':45} {'CPU ms (best of ' + str(args.repeat) + ')':>22}")
    for name, text in CHECKS.items():
        print(f"{name:45} {cpu_seconds(lambda: compile_text(text), args.repeat) * 1000:22.2f}")
    model = compile_text(BASE).rulesets[0]
    for expr in RESOLVES:
        def refuse(expr: str = expr) -> None:
            try:
                Evaluator(model).evaluate(parse_expression(expr))
            except ResolveError:
                return
            raise SystemExit(f"{expr} was not refused")
        print(f"{'resolve: ' + expr:45} {cpu_seconds(refuse, args.repeat) * 1000:22.2f}")


if __name__ == "__main__":
    main()
