"""One attack's tokens, passed through the tests of an attack's steps.

Each attack is followed on its own as a bag of *tokens*, each kind with its flags (a State:
see :mod:`compiler.resolve.shape`) and count.  :func:`advance` passes every token of every
bag through one test step: a token that passes goes on (or, for ``not save(…)``, one that
fails), and the hooks of the attackers' abilities act on the natural roll — a flag for a
later step (*Lethal Hits*: passes the wound roll), modifiers for the token's attack from then
on (``+1 D``), mortal wounds, extra tokens that join a later step (*Sustained Hits*).
Without hooks, a step is a function of the bags, the test's chance to pass and which side
goes on (kept for the process, :mod:`compiler.resolve.pure`); through a closed test it is
kept for the ruleset (:mod:`compiler.resolve.closed`).
"""
from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any, Callable, TypeAlias

from compiler import ast as A
from compiler.resolve import pure
from compiler.resolve.closed import MAX_KEPT, closed_outcomes, closed_step_key
from compiler.resolve.core import ResolveError, Roll, fast_to_exact, hashable, is_dist, num_int, plain_ints, unwrap
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.effects import bind_param
from compiler.resolve.evaluator import Evaluator
from compiler.resolve.expressions import each
from compiler.resolve.plain import read_args
from compiler.resolve.pure import pass_chance
from compiler.resolve.shape import State, flag_kinds
from compiler.trace import active as tracing
from compiler.trace import note

Bag: TypeAlias = tuple[tuple[State, int], ...]  # ((state, count), ...) in the order the tokens deal damage
# A test a step passes tokens through, as the plan reads it whatever the profiles: the test, the
# call, whether failures go on (``not save(…)``), the call's arguments when each is a profile's
# stat under its own name (plain.stat_reads), whether the test is closed (compiler.resolve.closed).
TestCall: TypeAlias = "tuple[A.Test, A.Call, bool, tuple[tuple[str, str, Any], ...] | None, bool]"

MAX_TOKENS_PER_ATTACK = 64
ONE_TOKEN = Dist.const(((frozenset(), 1),))  # each attack, before its first step: one plain token


def as_exact(v: Any) -> Any:
    """``v`` on the exact backend: per-attack work stays exact."""
    return fast_to_exact(v) if isinstance(v, FastDist) else v


def bag_size(bag: Bag) -> int:
    """The tokens a bag counts at its step: a token on its way to a later step (``1 extra
    wounds`` on a natural 6 to hit) is not counted before it joins that step."""
    return sum(c for state, c in bag if not pending(state))


def pending(state: State) -> bool:
    """Whether the token is on its way to a later step it joins (``1 extra wounds``)."""
    return any(flag[0] == "joins" for flag in state)


def sizes(ev: Evaluator, bags: Any) -> Any:
    """How many tokens each attack has: a function of the bags alone, kept on them (a
    distribution is immutable; bags kept for the process are asked again and again)."""
    if tracing():  # the general way, as everything while what is used is recorded
        return bags.map(bag_size)
    counts = bags.__dict__.get("_sizes")
    if counts is None:
        counts = bags.__dict__["_sizes"] = bags.map(bag_size)
    return counts


def merge(a: Bag, b: Bag) -> Bag:
    """The tokens of ``a`` then those of ``b``, in their order: an attack deals its damage in
    the order its tokens stand (each where the one it came from stood, the extra ones a hook
    made right after it), so a bag is a sequence, not a multiset; runs of one state are one entry."""
    if not a:
        return b
    if not b:
        return a
    (last, n), (first, m) = a[-1], b[0]
    if last == first:
        return a[:-1] + ((last, n + m),) + b[1:]
    return a + b


def hook_mods(state: State) -> tuple[A.Effect, ...]:
    """The modifiers hooks put on this token's attack (``+1 D``), for its later steps."""
    for flag in state:
        if flag[0] == "mods":
            return tuple(flag[1])
    return ()


def mortal_of(state: State) -> str | None:
    """``spill`` or ``keep`` for a token of mortal wounds, else None."""
    for flag in state:
        if flag[0] == "mortal":
            return str(flag[1])
    return None


def special_tokens(bags: Any) -> bool:
    """Whether some token carries modifiers or is mortal: then its damage is its own."""
    kinds = flag_kinds(bags)
    return "mods" in kinds or "mortal" in kinds


def per_attack_sum(ev: Evaluator, sizes: Any, amount: Any, span: Any) -> Any:
    """The sum of ``amount`` over each attack's tokens: a function of the two distributions alone
    when both are over plain whole numbers, then kept for the process."""
    if tracing() or not (isinstance(sizes, Dist) and isinstance(amount, Dist) and plain_ints(sizes)
                         and plain_ints(amount)):
        return as_exact(each(ev, sizes, amount, False, span))
    return pure.kept(("sum", sizes, amount), lambda: as_exact(each(ev, sizes, amount, False, span)))


def bag_amount(ev: Evaluator, amount_of: Callable[[Evaluator], Any], span: Any, bag: Bag) -> Any:
    """The amount one attack's tokens add up to, each read with its own modifiers."""
    total: Any = Dist.const(0)
    for state, count in bag:
        if pending(state):
            continue
        mods = hook_mods(state)
        one = amount_of(ev.with_hook_effects(mods) if mods else ev)
        one = as_exact(one) if is_dist(one) else Dist.const(num_int(unwrap(one), span))
        total = total.binary("+", one.map(lambda o: num_int(unwrap(o), span)).convolve_power(count))
    return total


def multiply(bags: Any, times: Any, step: str, span: Any) -> Any:
    """The bags after the step ``step = … each becomes …``: each token (not one on its way to a
    later step) becomes ``times`` tokens like it (a distribution over whole numbers, rolled for
    each token), each keeping what it carries; a token that joins ``step`` (``1 extra blasted``)
    joins it as one token."""
    times = as_exact(times) if is_dist(times) else Dist.const(num_int(unwrap(times), span))
    joining = ("joins", step)

    def one_bag(bag: Bag) -> Any:
        total: Any = Dist.const(())
        for state, count in bag:
            if pending(state):
                if joining in state:
                    state = state - {joining}
                total = total.binary(merge, Dist.const(((state, count),)))
                continue
            copies = times.map(lambda n: num_int(unwrap(n), span)).convolve_power(count)
            total = total.binary(merge, copies.map(lambda n, s=state: ((s, n),) if n else ()))
        if bag_size_all(total) > MAX_TOKENS_PER_ATTACK:
            raise ResolveError(f"one attack makes more than {MAX_TOKENS_PER_ATTACK} tokens here", span)
        return total
    return bags.bind(one_bag)


def bag_size_all(bags: Any) -> int:
    """The most tokens any bag of ``bags`` (a distribution: never without outcomes) holds."""
    most: int = max(sum(c for _, c in bag) for bag in bags.outcomes())
    return most


def hooks_for(ev: Evaluator, test_id: str) -> list[tuple[A.Hook, Any, str]]:
    """Hooks of the attacking profiles' abilities on this test: (hook, ability value, param name)."""
    out = []
    for ability, arg in ev.effects.attacker_abilities():
        if not ev.effects.ability_holds(ability, arg):
            continue
        for hook in ability.hooks:
            if hook.test == test_id:
                note(ability.id)
                pname = ability.params[0].name if ability.params else ""
                out.append((hook, arg, pname))
    return out


def hooked_tests(ev: Evaluator) -> frozenset[str]:
    """The tests some hook of the attacking profiles' abilities (that hold now) is on."""
    return frozenset(hook.test for hook in held_hooks(ev) if hook.test is not None)


def held_hooks(ev: Evaluator) -> tuple[A.Hook, ...]:
    """The hooks on tests of the attacking profiles' abilities that hold now."""
    abilities = ev.effects.attacker_abilities()
    return tuple(hook for ability, arg in abilities if ev.effects.ability_holds(ability, arg)
                 for hook in ability.hooks if hook.test is not None)


def advance(ev: Evaluator, bags: Any, test_call: TestCall, env: dict[str, Any], step: A.Step,
            later: tuple[str, ...], hooked_tests: frozenset[str] | None,
            args: list[Any] | None = None) -> Any:
    """Pass every token of every bag through one test step (memoised per model: the same
    question asked for 10 or 200 attacks shares this work).  ``hooked_tests`` is None while what
    is used is being recorded: then everything is looked up the general way.  ``args``: the
    test's arguments, when the caller has read them already (as ``call_args`` gives them)."""
    test, call, negate, reads, closed_test = test_call
    # Stats passed under their own names are read directly (what ``call_args`` gives them then).
    if args is None and hooked_tests is not None and reads is not None:
        args = read_args(ev, reads, env)
    if args is None:
        args = ev.call_args(test, call, env)
    hooked = test.id in hooked_tests if hooked_tests is not None else bool(hooks_for(ev, test.id))
    closed = closed_step_key(ev, bags, test, args, negate, hooked) if closed_test else None
    if closed is not None:  # the same in every situation: kept once per ruleset
        kept = closed_outcomes(ev.model)
        known = kept.get(closed)
        if known is None:
            if len(kept) > MAX_KEPT:
                kept.clear()
            known = kept[closed] = _through(ev, bags, test, args, call, negate, env, step, later, hooked)
        return known
    key = ("advance", bags, test.id, tuple(hashable(a) for a in args), negate, ev.memo_key(), later, step.name)
    memo = ev.memo
    if key in memo:
        return memo[key]
    result = _through(ev, bags, test, args, call, negate, env, step, later, hooked)
    memo[key] = result
    return result


def _through(ev: Evaluator, bags: Any, test: A.Test, args: list[Any], call: A.Call, negate: bool,
             env: dict[str, Any], step: A.Step, later: tuple[str, ...], hooked: bool) -> Any:
    """The bags after the step.  Without hooks, and with no token carrying modifiers of its
    own, that is a function of the bags, the test's chance to pass and ``negate`` alone: kept
    for the process (compiler.resolve.pure), so a new matchup whose test passes as often as
    one met before takes its steps as they are."""
    if not hooked and not tracing() and not {"mods", "joins"} & flag_kinds(bags):
        chance = pass_chance(as_exact(ev.apply(test, args, call.span)))
        if chance is not None:
            # The chance as its numerator and denominator: a fraction hashes ten times slower.
            return pure.kept(("step", bags, (chance.numerator, chance.denominator), negate, test.id),
                             partial(_advance_uncached, ev, bags, test, args, call, negate, env, step, later))
    return _advance_uncached(ev, bags, test, args, call, negate, env, step, later)


def _advance_uncached(ev: Evaluator, bags: Any, test: A.Test, args: list[Any], call: A.Call, negate: bool,
                      env: dict[str, Any], step: A.Step, later: tuple[str, ...]) -> Any:
    hooks = hooks_for(ev, test.id)
    succeed = tuple(A.Effect(h.span, "natural_succeeds", A.Int(h.span, face), test.id, role="from" if h.natural_from else None)
                    for h, arg, _ in hooks if (face := h.face(arg)) is not None
                    and any(e.kind == "succeed" for e in h.effects))
    if succeed:  # ``on natural X+ to wound: succeeds``: those faces pass the test itself
        ev = ev.with_hook_effects(succeed)
        args = ev.call_args(test, call, env)
    outcomes: dict[tuple[A.Effect, ...], Any] = {}
    cache: dict[State, Any] = {}

    def outcome_for(mods: tuple[A.Effect, ...]) -> Any:
        """The test's outcome for a token whose hooks changed it (its own arguments, modifiers)."""
        if mods not in outcomes:
            evm = ev.with_hook_effects(mods) if mods else ev
            out = evm.apply(test, evm.call_args(test, call, env) if mods else args, call.span)
            out = fast_to_exact(out) if isinstance(out, FastDist) else out
            outcomes[mods] = out if is_dist(out) else Dist.const(out)
        return outcomes[mods]

    def fire(r: Roll, rest: set[tuple[Any, ...]]) -> list[tuple[State, Any]]:
        """What this test's hooks do to a token that passed with natural ``r.natural``:
        flags added to ``rest``; returns the extra tokens it makes, in the order made: (state, a
        distribution of how many); ``1 extra wounds`` makes tokens that join the later step ``wounds``."""
        extra: list[tuple[State, Any]] = []
        added: list[A.Effect] = []
        for hook, arg, pname in hooks:
            face = hook.face(arg)
            if face is None:
                continue
            if not (r.natural >= face if hook.natural_from else r.natural == face):
                continue
            for eff in hook.effects:
                if eff.kind == "pass":
                    rest.add(("pass", eff.test))
                elif eff.kind == "fail":
                    rest.add(("fail", eff.test))
                elif eff.kind == "mortal":
                    rest.add(("mortal", "spill" if eff.spill else "keep"))
                elif eff.kind == "modify" and eff.effect is not None:
                    e = eff.effect
                    if pname and arg is not None and e.value is not None:
                        e = dataclasses.replace(e, value=bind_param(e.value, pname, arg))
                    added.append(e)
                elif eff.kind == "extra" and eff.amount is not None:
                    local = {pname: arg} if pname else {}
                    amount = ev.eval(eff.amount, {**env, **local})
                    span = eff.span
                    amount = as_exact(amount) if is_dist(amount) else Dist.const(amount)
                    amount = amount.map(lambda a: num_int(unwrap(a), span))
                    # ``1 extra wounds`` joins the later step ``wounds``: it skips the steps in
                    # between and is counted from that step on; ``1 extra hits``: from this one.
                    joined: State = frozenset({("joins", eff.word)}) if eff.word in later else frozenset()
                    extra.append((joined, amount))
        if added:
            old = hook_mods(frozenset(rest))
            rest.difference_update({f for f in rest if f[0] == "mods"})
            rest.add(("mods", tuple(sorted(old + tuple(added), key=repr))))
        return extra

    def token(state: State) -> Any:
        """Dist over bags produced by one token in ``state``."""
        if state in cache:
            return cache[state]
        rest = frozenset(f for f in state if not (f[0] in ("pass", "fail") and f[1] == test.id))
        if pending(state):
            # A token of ``1 extra wounds`` skips the steps before ``wounds``, and joins that
            # one without its roll, whether the step counts passes or failures.
            joins = ("joins", step.name)
            result: Any = Dist.const(((state - {joins} if joins in state else state, 1),))
        elif mortal_of(state) is not None:
            # Mortal wounds skip every later test: counted whether the step counts passes or failures.
            result = Dist.const(((state, 1),))
        elif ("pass", test.id) in state or ("fail", test.id) in state:
            success = ("pass", test.id) in state
            result = Dist.const(((rest, 1),) if success != negate else ())
        else:
            def after(roll: Any) -> Any:
                r = roll if isinstance(roll, Roll) else Roll(bool(unwrap(roll)), 0)
                new_flags = set(rest)
                extra = fire(r, new_flags) if r.success else []
                if r.success == negate:
                    return ()
                bag: Bag = ((frozenset(new_flags), 1),)
                if not extra:
                    return bag
                bags_: Any = Dist.const(bag)
                for state, counts in extra:
                    bags_ = bags_.binary(merge, counts.map(lambda n, s=state: ((s, n),) if n else ()))
                return bags_
            # Without hooks a token never makes others: each roll gives one bag, a map suffices.
            outcome = outcome_for(hook_mods(rest))
            result = outcome.bind(after) if hooks else outcome.map(after)
        cache[state] = result
        return result

    def advance_bag(bag: Bag) -> Any:
        if sum(count for _, count in bag) > MAX_TOKENS_PER_ATTACK:  # before the work, not after it
            raise ResolveError(f"one attack makes more than {MAX_TOKENS_PER_ATTACK} tokens here", step.span)
        if len(bag) == 1:  # one kind of token
            (state, count), = bag
            if count == 1:  # one token: its bags are the attack's
                return token(state)
        total: Any = Dist.const(())
        for state, count in bag:
            one = token(state)
            for _ in range(count):
                total = total.binary(merge, one)
        return total

    return bags.bind(advance_bag)
