"""Stage 4, resolution: what the rules model means, as exact (or fast) distributions.

::

    dist ─────────── Dist / FastDist (dist_base: the shared API; dist_exact; dist_fast)
      │
    core ─────────── outcomes (Roll, Face, Pool, AttackResult, LetVar), ResolveError, helpers
      │
    effects ──────── which modifiers and abilities apply, and what they add up to
      │
    evaluator ────── Evaluator: the façade; dispatches through three registries
      ▲   ▲   ▲          EXPRESSIONS (node class), DECLARATIONS (declaration class), BUILTINS (name)
      │   │   └── expressions  (literals, dice, arithmetic, each, attributes, calls)
      │   ├────── tests · tables · attack   (tests and re-rolls; tables and formulas; attack sequences)
      │   │         closed: a test that reads only its parameters, worked out once per ruleset
      │   │         shape: what an attack's declaration says about its steps (once per declaration)
      │   ├────── calls        (a step of an attack called in the expression, asked again: dispatched once)
      │   └────── builtins     (the distribution implementations of compiler.syntax.builtins)
      │
    expect ───────── one expect line checked (check_expect), and the Result of a run
    claims ───────── claims judged at every point of their grid (judge_claim, run_claim)
    runner ───────── examples, properties and claims (run_example, run_property, run_ruleset)
    coverage ─────── what each example exercises (compiler.trace records it), prose-only rules
    report ───────── answers shaped for people and tools (text lines, JSON, table views)

The modules under the evaluator import it and register their handlers; this package imports
them all (below), so the registries are full whenever anything of :mod:`compiler.resolve` is
imported, and the evaluator never imports them back (no import cycle).

>>> from pathlib import Path
>>> import compiler
>>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
>>> Evaluator(model).probability_of(parse_expression("d6 >= 4"))
Fraction(1, 2)
"""
from compiler.resolve import attack, builtins, expressions, tables, tests  # noqa: F401  (they register)
from compiler.resolve import calls  # noqa: F401  (registers over expressions' handler of attributes)
from compiler.resolve.core import AttackResult, ResolveError
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, parse_expression
from compiler.resolve.runner import Result, run_example, run_property, run_ruleset

__all__ = ["AttackResult", "Dist", "Evaluator", "FastDist", "ResolveError", "Result", "attack", "builtins",
           "calls", "expressions", "parse_expression", "run_example", "run_property", "run_ruleset", "tables", "tests"]
