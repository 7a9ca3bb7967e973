"""The bundled rulesets: clean under check, every example passes, and both backends agree."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from compiler import ast as A
from compiler.driver import compile_paths
from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist, unwrap
from compiler.resolve.runner import run_ruleset

RULES = Path(__file__).resolve().parent.parent / "rules"
SEEDS = ["nuceria-rts", "console-40k", "40k-s", "gemini-arap", "dark-millennia"]


@pytest.fixture(scope="module")
def compiled():  # type: ignore[no-untyped-def]
    return compile_paths([str(RULES)])


def test_every_seed_has_a_ruleset(compiled) -> None:  # type: ignore[no-untyped-def]
    ids = {r.id for r in compiled.rulesets}
    assert set(SEEDS) <= ids
    assert compiled.get("dark-millennia").base.id == "classic-40k"


def test_rules_are_clean(compiled) -> None:  # type: ignore[no-untyped-def]
    problems = [(d.code, str(d.span), d.message) for d in compiled.diagnostics if d.severity.value != "note"]
    assert problems == []


@pytest.mark.parametrize("ruleset", SEEDS + ["classic-40k"])
def test_examples_pass(compiled, ruleset: str) -> None:  # type: ignore[no-untyped-def]
    model = compiled.get(ruleset)
    results = run_ruleset(model)
    assert len(results) >= 5
    failed = [(r.id, [f.message for f in r.failures]) for r in results if not r.passed]
    assert failed == []


@pytest.mark.parametrize("ruleset", SEEDS + ["classic-40k"])
def test_fast_and_exact_agree_on_every_example(compiled, ruleset: str) -> None:  # type: ignore[no-untyped-def]
    model = compiled.get(ruleset)
    compared = 0
    for ex in model.of_type(A.Example):
        envs = []
        for exact in (True, False):
            ev = Evaluator(model, exact=exact)
            env: dict = {}
            for let in ex.lets:
                ev.bind_let(let, env)
            envs.append((ev, env))
        for expect in ex.expects:
            values = []
            for ev, env in envs:
                try:
                    values.append(unwrap(ev.eval(expect.subject, dict(env))))
                except ResolveError:
                    values.append(None)
            exact_v, fast_v = values
            if isinstance(exact_v, Fraction) and isinstance(fast_v, (float, Fraction, int)):
                assert abs(float(exact_v) - float(fast_v)) <= 1e-12, (ex.id, expect.span.line)
                compared += 1
    assert compared >= 5
