"""A step of an attack called in the expression itself, asked again: dispatched once.

``shooting(10 shooter, gun_d3, 1 target).damage`` is, once its call has been worked out, the
sum of 10 copies of one attack's damage.  The first time, the expression goes the general way
(the arguments evaluated, the attack's plan found or made, its steps laid out); the model's
memo then keeps what that step is a sum *of* — the per-attack distribution, on the
evaluator's backend, and the number of attacks — for this expression node, situation,
attackers and backend.  Asked again, the expression goes straight to the sum, which is worked
out at every call (no answer is kept).

Registered over the plain handler of :class:`~compiler.ast.Attr` (which it calls for every
other attribute, and for a step that is not such a sum).  While what is used is being
recorded (:mod:`compiler.trace`), every expression goes the general way.

>>> from compiler.driver import compile_text
>>> from compiler.resolve import Evaluator, parse_expression
>>> model = compile_text('''ruleset d "D":
...   version 1.0.0
... stat Q "Quality" 1..6: "q"
... test hit(Q) = roll d6 >= Q
... attack volley(shooter) "Volley":
...   attacks = shooter.models
...   hits = attacks each hit(shooter.Q)
... unit gunner "Gunner":
...   Q 4
... ''').rulesets[0]
>>> question = parse_expression("volley(3 gunner).hits")
>>> [Evaluator(model).evaluate(question).p(3) for _ in range(2)]
[Fraction(1, 8), Fraction(1, 8)]
"""
from __future__ import annotations

from typing import Any

from compiler import ast as A
from compiler.resolve.plan import aggregate
from compiler.resolve.steps import LazySteps
from compiler.resolve.core import AttackResult
from compiler.resolve.evaluator import Env, Evaluator, expression
from compiler.resolve.expressions import attr, eval_attr
from compiler.trace import active as tracing


@expression(A.Attr)
def eval_step_of_call(ev: Evaluator, e: A.Attr, env: Env) -> Any:
    """``attack(…).step``: the sum the step is made of, once the call is known; else ``eval_attr``."""
    if env or not isinstance(e.obj, A.Call) or tracing() \
            or not isinstance(ev.model.callables.get(e.obj.func), A.Attack):
        return eval_attr(ev, e, env)
    memo = ev.memo
    key = ("step-of-call", id(e), ev.memo_key(), ev.exact, ev.depth)
    known = memo.get(key)
    if known is not None and known[0] is e:  # the same node, not one that took its id later
        _, per_attack, attacks, span = known
        return aggregate(ev, per_attack, attacks, span)  # ev's backend is the call's: the key holds it
    result = ev.eval(e.obj, env)
    value = attr(ev, result, e.name, None, e.span)
    steps = result.steps if isinstance(result, AttackResult) else None
    if isinstance(steps, LazySteps) and e.name in steps.sums:
        sub, per_attack, src, span = steps.sums[e.name]
        if len(memo) > 20_000:  # one entry per expression node asked: bounded like the tests' entries
            memo.clear()
        memo[key] = (e, sub.to_backend(per_attack), steps[src], span)
    return value
