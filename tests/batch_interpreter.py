"""The plain interpreter's steps over many plays at once: one NumPy lane per play (or per attack).

:class:`BatchInterpreter` plays a question ``plays`` times together.  Each step of
:class:`plain_interpreter.PlainInterpreter` is kept, in its words, but over arrays: a die is an
array of independent rolls (one per lane, every die still rolled on its own), a test passes or
fails lane by lane, the attacks of a step are lanes that know the play they belong to
(``Tokens.owner``) and carry what hooks did to them as masks, a sum over attacks is a
``bincount`` by play, and models are taken off attack by attack in each play's order.  Nothing
is convolved or worked out in advance: sampled, it is the same law as the one-at-a-time
interpreter (``tests/test_differential.py`` compares them), only about a hundred times cheaper.

What differs between plays is an array; what cannot (a profile, the situation, whether an
ability's ``when`` holds) stays a plain value, and a form that would need it to differ (a table
looked up with a random value, a ``needs`` set by a hook) raises :class:`Unsupported` rather than
guess.
"""
from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from plain_interpreter import Ctx, DiceValue, PlainInterpreter, Tgt, Unit, Unsupported, names_in

from compiler import ast as A

__all__ = ["BatchInterpreter", "Tokens"]

Mask = Any  # a bool array over the lanes, or None for every lane


@dataclass
class Tokens:
    """The attacks of a step, one lane each, sorted by the play they belong to, each with its state."""

    owner: np.ndarray
    mortal: np.ndarray
    spill: np.ndarray
    auto_pass: dict[str, np.ndarray] = field(default_factory=dict)
    auto_fail: dict[str, np.ndarray] = field(default_factory=dict)
    effects: list[tuple[A.Effect, dict[str, Any], np.ndarray]] = field(default_factory=list)
    joins: dict[str, np.ndarray] = field(default_factory=dict)  # on its way to the later step named

    @staticmethod
    def fresh(owner: np.ndarray, joins: str | None = None) -> Tokens:
        n = len(owner)
        return Tokens(owner, np.zeros(n, bool), np.zeros(n, bool),
                      joins={} if joins is None else {joins: np.ones(n, bool)})

    def take(self, idx: np.ndarray) -> Tokens:
        return Tokens(self.owner[idx], self.mortal[idx], self.spill[idx],
                      {k: v[idx] for k, v in self.auto_pass.items()}, {k: v[idx] for k, v in self.auto_fail.items()},
                      [(e, env, m[idx]) for e, env, m in self.effects], {k: v[idx] for k, v in self.joins.items()})

    def pending(self) -> np.ndarray:
        """The lanes on their way to a later step: not counted, rolled or dealt before it."""
        out = np.zeros(len(self.owner), bool)
        for m in self.joins.values():
            out |= m
        return out

    def joined(self, step: str) -> Tokens:
        """The same lanes, those on their way to ``step`` now in it."""
        return dataclasses.replace(self, joins={k: v for k, v in self.joins.items() if k != step})

    @staticmethod
    def concat(parts: list[Tokens]) -> Tokens:
        def flags(name: str) -> dict[str, np.ndarray]:
            keys = dict.fromkeys(k for p in parts for k in getattr(p, name))
            return {k: np.concatenate([getattr(p, name).get(k, np.zeros(len(p.owner), bool)) for p in parts])
                    for k in keys}
        effects = []
        for i, p in enumerate(parts):  # an effect holds on its own attacks only
            for e, env, m in p.effects:
                effects.append((e, env, np.concatenate(
                    [m if j == i else np.zeros(len(q.owner), bool) for j, q in enumerate(parts)])))
        return Tokens(np.concatenate([p.owner for p in parts]), np.concatenate([p.mortal for p in parts]),
                      np.concatenate([p.spill for p in parts]), flags("auto_pass"), flags("auto_fail"), effects,
                      flags("joins"))


@dataclass
class BCtx(Ctx):
    """A :class:`Ctx` over ``n`` lanes; ``tokens`` the attacks the lanes are, inside a step."""

    n: int = 1
    tokens: Tokens | None = None


def broadcast(v: Any, n: int, dtype: Any = np.int64) -> np.ndarray:
    return np.broadcast_to(np.asarray(v, dtype=dtype), (n,)).copy()


def uniform(v: Any) -> Any:
    """An array whose lanes all hold one value, as that value; else the array."""
    if isinstance(v, np.ndarray) and v.size and (v == v.flat[0]).all():
        return v.flat[0].item()
    return v


class BatchInterpreter(PlainInterpreter):
    def __init__(self, items: tuple[A.Decl, ...], rng: np.random.Generator) -> None:
        super().__init__(items, None)  # type: ignore[arg-type]
        self.np_rng = rng
        self.batch_extras: list[tuple[str | None, np.ndarray]] = []

    # -- lanes --------------------------------------------------------------------------------

    @staticmethod
    def relane(ctx: BCtx, idx: np.ndarray, tokens: Tokens | None) -> BCtx:
        """The context of lanes that each stand for lane ``idx[i]`` of ``ctx``."""
        roles = {k: Unit(u.profile, u.models[idx] if isinstance(u.models, np.ndarray) else u.models)
                 if isinstance(u, Unit) else u for k, u in ctx.roles.items()}
        return BCtx(ctx.situation, roles, ctx.target_role, memo=ctx.memo, n=len(idx), tokens=tokens)

    def cond(self, e: A.Expr, env: dict[str, Any], ctx: BCtx) -> bool:
        """A condition the profiles and the situation settle, the same in every play."""
        v = uniform(self.ev(e, env, ctx))
        if isinstance(v, np.ndarray):
            raise Unsupported("a condition that differs between plays")
        return bool(v)

    # -- dice ---------------------------------------------------------------------------------

    def roll_die_n(self, name: str, sides: int, n: int) -> np.ndarray:
        die = self.decls.get(name)
        if isinstance(die, A.Die):
            if not all(isinstance(f, int) for f in die.faces):
                raise Unsupported("a symbol die")
            return np.asarray(die.faces, dtype=np.int64)[self.np_rng.integers(0, die.base_sides, n)]
        return self.np_rng.integers(1, sides + 1, n)

    def roll_dice_n(self, d: A.Dice, n: int) -> np.ndarray:
        name = d.name.lstrip("0123456789")
        return sum((self.roll_die_n(name, d.sides, n) for _ in range(d.count)), np.zeros(n, np.int64))

    # -- expressions --------------------------------------------------------------------------

    def ev(self, e: A.Expr, env: dict[str, Any], ctx: Any) -> Any:
        if isinstance(e, A.Dice):
            return self.roll_dice_n(e, ctx.n)
        if isinstance(e, A.Target):
            v = self.number(self.ev(e.value, env, ctx))
            return Tgt("never") if v is None else Tgt("high" if e.direction == "high" else "low", v)
        if isinstance(e, A.Chain):
            first = uniform(self.number(self.ev(e.first, env, ctx)))
            if isinstance(first, np.ndarray):
                raise Unsupported("a chain whose first face differs between plays")
            return Tgt("chain", int(first), self.ev(e.then, env, ctx))
        if isinstance(e, A.Unary):
            v = self.ev(e.operand, env, ctx)
            if e.op == "not":
                return np.logical_not(v) if isinstance(v, np.ndarray) else not v
            return -self.number(v, strict=True)
        if isinstance(e, A.IfElse):
            c = uniform(self.ev(e.cond, env, ctx))
            if not isinstance(c, np.ndarray):
                return self.ev(e.then if c else e.otherwise, env, ctx)
            a, b = self.ev(e.then, env, ctx), self.ev(e.otherwise, env, ctx)
            if any(v is None or isinstance(v, (Tgt, Unit, dict)) for v in (a, b)):
                raise Unsupported("an if over plays between values that are not numbers")
            return np.where(c, a, b)
        if isinstance(e, A.InRange):
            v = self.number(self.ev(e.operand, env, ctx))
            if v is None:
                return False
            lo, hi = self.ev(e.range.low, env, ctx), self.ev(e.range.high, env, ctx)
            return (lo <= v) & (v <= hi)
        if isinstance(e, A.Each):
            return self.each(e, env, ctx)
        if isinstance(e, A.Group):
            n = e.count if e.computed is None else self.number(self.ev(e.computed, env, ctx), strict=True)
            if np.any(np.asarray(n) != np.floor(n)) or np.any(np.asarray(n) < 0):
                raise Unsupported("a model count that is no number of models")
            profile = self.decls[e.profile]
            assert isinstance(profile, A.Profile)
            return Unit(profile, n.astype(np.int64) if isinstance(n, np.ndarray) else int(n))
        if isinstance(e, A.With):
            inner = BCtx(dict(ctx.situation), ctx.roles, ctx.target_role, memo={}, n=ctx.n, tokens=ctx.tokens)
            for s in e.settings:
                inner.situation[s.name] = (not s.negated) if s.value is None else self.setting(s)
            return self.ev(e.expr, env, inner)
        if isinstance(e, A.Binary):
            return self.binary(e, env, ctx)
        return super().ev(e, env, ctx)  # names, constants, attributes, calls: as one play

    def each(self, e: A.Each, env: dict[str, Any], ctx: BCtx) -> Any:
        """``n each item``: the item played once per one of ``n``, lane by lane, added up per lane."""
        if ctx.tokens is not None:
            raise Unsupported("an each inside the item of a step")
        n = self.number(self.ev(e.count, env, ctx), strict=True)
        sub = np.repeat(np.arange(ctx.n), broadcast(n, ctx.n))
        inner, inner_env = self.relane(ctx, sub, None), {k: self.lane(x, sub) for k, x in env.items()}
        v = self.ev(e.item, inner_env, inner)
        if e.becomes:
            v = self.becomes(e, v, inner_env, inner)
        elif isinstance(v, (bool, np.bool_)) or (isinstance(v, np.ndarray) and v.dtype == bool):
            v = np.not_equal(v, e.negate)
        v = broadcast(self.number(v, strict=True), len(sub))
        return np.bincount(sub, weights=v, minlength=ctx.n).astype(np.int64)

    @staticmethod
    def lane(x: Any, idx: np.ndarray) -> Any:
        return x[idx] if isinstance(x, np.ndarray) else x

    def becomes(self, e: A.Each, v: Any, env: dict[str, Any], ctx: BCtx) -> np.ndarray:
        """How many each one becomes: a whole number, no more than the cap (the same in every play)."""
        n = broadcast(self.number(v, strict=True), ctx.n)
        if e.cap is not None:
            cap = self.number(self.ev(e.cap, env, ctx), strict=True)
            n = np.minimum(n, cap)
        if (n < 0).any():
            raise Unsupported("becomes fewer than none")
        return n

    @staticmethod
    def number(v: Any, strict: bool = False) -> Any:
        if isinstance(v, np.ndarray) and v.dtype == bool:
            return v.astype(np.int64)
        return PlainInterpreter.number(v, strict)

    def binary(self, e: A.Binary, env: dict[str, Any], ctx: Any) -> Any:
        if e.op in ("and", "or"):
            a = self.ev(e.left, env, ctx)
            if not isinstance(a, np.ndarray) and bool(a) == (e.op == "or"):
                return bool(a)  # settled by the left, as one play would be
            b = self.ev(e.right, env, ctx)
            return (np.logical_and if e.op == "and" else np.logical_or)(a, b)
        a, b = self.number(self.ev(e.left, env, ctx)), self.number(self.ev(e.right, env, ctx))
        if (a is None or b is None) and e.op in ("==", "!=", ">=", "<=", ">", "<"):
            return False  # comparing none is false
        compare = {"==": np.equal, "!=": np.not_equal, ">=": np.greater_equal, "<=": np.less_equal,
                   ">": np.greater, "<": np.less}.get(e.op)
        if compare is not None:  # over plays, an array of yes and no; else a plain yes or no
            r = compare(a, b)
            return r if isinstance(r, np.ndarray) else bool(r)
        if a is None or b is None:
            raise Unsupported("arithmetic on none")
        if e.op == "/":
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                raise Unsupported("a division over plays")
            return Fraction(a, b)
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        raise Unsupported(f"operator {e.op}")

    def builtin(self, e: A.Call, env: dict[str, Any], ctx: Any) -> Any:
        args = [self.ev(a, env, ctx) for a in e.args]
        if e.func in ("min", "max"):
            values = [self.number(a) for a in args if a is not None]
            return functools.reduce(np.minimum if e.func == "min" else np.maximum, values) if values else None
        if e.func == "abs":
            return np.abs(self.number(args[0], strict=True))
        raise Unsupported(f"built-in {e.func}")

    def table(self, decl: A.Table, bound: dict[str, Any], ctx: Any) -> Any:
        """A table looked up as one play would, once for each set of values the plays hold."""
        bound = {k: uniform(v) for k, v in bound.items()}
        varying = [k for k, v in bound.items() if isinstance(v, np.ndarray)]
        if not varying:
            return uniform(super().table(decl, bound, ctx))
        keys, where = np.unique(np.stack([bound[k] for k in varying], axis=1), axis=0, return_inverse=True)
        look = super().table
        rows = [uniform(look(decl, bound | {k: int(x) for k, x in zip(varying, key)}, ctx)) for key in keys]
        if all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) for r in rows):
            return np.asarray(rows, dtype=np.int64)[where.reshape(-1)]
        if all(isinstance(r, Tgt) and r.kind == rows[0].kind in ("high", "low") and isinstance(r.n, int) for r in rows):
            return Tgt(rows[0].kind, np.asarray([r.n for r in rows], dtype=np.int64)[where.reshape(-1)])
        raise Unsupported("a table whose answers over the plays are not numbers of one kind")

    # -- stats and what applies -----------------------------------------------------------------

    def effects_now(self, ctx: BCtx) -> list[tuple[A.Effect, dict[str, Any], Mask]]:
        """Every effect that counts, each with the lanes it counts on (None: all of them)."""
        if "effects" not in ctx.memo:
            ctx.memo["effects"] = self._active_effects(ctx)
        static = [(e, env, None) for e, env in ctx.memo["effects"]]
        return static + (list(ctx.tokens.effects) if ctx.tokens is not None else [])

    def abilities_of(self, unit: Unit, ctx: Any) -> list[tuple[A.Ability, dict[str, Any]]]:
        key = ("of", id(unit.profile))  # a profile's abilities: the same in every play
        if key not in ctx.memo:
            out = []
            for aid in dict.fromkeys(u.ability for u in unit.profile.abilities):
                decl = self.decls[aid]
                assert isinstance(decl, A.Ability)
                env = {decl.params[0].name: self.ability_value(unit, aid)} if decl.params else {}
                if decl.when is None or self.cond(decl.when, {}, ctx):
                    out.append((decl, env))
            ctx.memo[key] = out
        return ctx.memo[key]  # type: ignore[no-any-return]

    def read_stat(self, value: Any, stat: str, role: str | None, env: dict[str, Any], ctx: Any) -> Any:
        if value is None:
            return None
        delta: Any = 0
        better: Any = 0
        for eff, eenv, mask in self.effects_now(ctx):
            if eff.stat != stat or (eff.role is not None and eff.role != role):
                continue
            amount = self.number(self.ev(eff.value, eenv, ctx), strict=True) if eff.value is not None else 1
            if mask is not None:
                amount = np.where(mask, amount, 0)
            if eff.kind == "stat":
                delta = delta + amount
            elif eff.kind == "better":
                better = better + amount
            elif eff.kind == "worse":
                better = better - amount
        if isinstance(value, DiceValue):
            rolled = sum(self.roll_die_n(value.die, value.sides, ctx.n) for _ in range(value.count))
            return rolled + value.bonus + delta
        if isinstance(value, Tgt):
            if value.kind == "high":
                return Tgt("high", value.n + delta - better)
            if value.kind == "low":
                return Tgt("low", value.n + delta + better)
            return value
        v = value + delta
        decl = self.stats.get(stat)
        if decl is not None and isinstance(decl.type, A.RangeExpr) and decl.clamped:
            lo, hi = self.ev(decl.type.low, {}, ctx), self.ev(decl.type.high, {}, ctx)
            v = np.clip(v, lo, hi) if isinstance(v, np.ndarray) else max(lo, min(hi, v))
        return v

    # -- tests --------------------------------------------------------------------------------

    def test(self, decl: A.Test, bound: dict[str, Any], ctx: Any) -> Any:
        """One test on every lane, rolled as the reference's "How a test resolves"."""
        n, roll = ctx.n, decl.roll
        assert roll is not None
        raw = self.ev(roll.target, bound, ctx)
        if roll.op == ">=":
            need = Tgt("high", self.number(raw, strict=True))
        elif roll.op == "<=":
            need = Tgt("low", self.number(raw, strict=True))
        else:
            need = raw if isinstance(raw, Tgt) else Tgt("high", self.number(raw, strict=True))
        effects = [(e, env, m) for e, env, m in self.effects_now(ctx) if e.test == decl.id]
        needs = [(self.ev(e.value, env, ctx), m) for e, env, m in effects if e.kind == "needs" and e.value is not None]
        if needs:
            if any(m is not None or isinstance(getattr(v, "n", 0), np.ndarray) for v, m in needs):
                raise Unsupported("a needs that differs between plays")
            need = max((v for v, _ in needs), key=self.hardness)
        ignore = np.zeros(n, bool)
        mods: Any = 0
        better: list[tuple[Any, Mask]] = [(self.ev(decl.never_better, bound, ctx), None)] if decl.never_better is not None else []
        worse: list[tuple[Any, Mask]] = [(self.ev(decl.never_worse, bound, ctx), None)] if decl.never_worse is not None else []
        succeeds: list[tuple[set[int], Mask]] = [(set(decl.natural_succeeds), None)]
        rerolls: list[tuple[str, Mask]] = [(r, None) for r in decl.rerolls]
        for e, env, m in effects:
            on = np.ones(n, bool) if m is None else m
            if e.kind == "ignore_modifiers":
                ignore |= on
            elif e.kind == "roll" and e.value is not None:
                mods = mods + np.where(on, self.number(self.ev(e.value, env, ctx), strict=True), 0)
            elif e.kind == "never_better" and e.value is not None:
                better.append((self.ev(e.value, env, ctx), m))
            elif e.kind == "never_worse" and e.value is not None:
                worse.append((self.ev(e.value, env, ctx), m))
            elif e.kind == "natural_succeeds" and e.value is not None:
                v = self.ev(e.value, env, ctx)
                v = Tgt(v.kind, uniform(v.n), v.then) if isinstance(v, Tgt) else uniform(self.number(v))
                if isinstance(getattr(v, "n", v), np.ndarray):
                    raise Unsupported("natural faces that differ between plays")
                succeeds.append((self.faces(v), m))
            elif e.kind == "reroll" and e.reroll:
                rerolls.append((e.reroll, m))
        mods = np.where(ignore, 0, mods)
        if decl.modifier_cap is not None:
            mods = np.clip(mods, *decl.modifier_cap)
        for ability, aenv in self.attacking_abilities(ctx) if ctx.roles else []:
            for hook in ability.hooks:
                if hook.test == decl.id and any(h.kind == "succeed" for h in hook.effects):
                    succeeds.append(({f for f in range(1, 61) if self.face_matches(hook, f, aenv)}, None))
        fails = sorted(decl.natural_fails)

        def once() -> tuple[np.ndarray, np.ndarray]:
            if isinstance(roll.dice, A.Dice):
                natural = self.roll_dice_n(roll.dice, n)
            else:
                natural = broadcast(self.number(self.ev(roll.dice, bound, ctx), strict=True), n)
            ok = self.passes_n(natural, need, mods, better, worse, roll.dice, n)
            for faces, m in succeeds:  # natural rules beat every modifier; a natural fail beats all
                hit = np.isin(natural, sorted(faces))
                ok |= hit if m is None else hit & m
            return natural, ok & ~np.isin(natural, fails)

        natural, ok = once()
        want = self.wants_reroll_n(rerolls, natural, ok)
        if want.any():  # a die is never re-rolled twice
            natural2, ok2 = once()
            natural, ok = np.where(want, natural2, natural), np.where(want, ok2, ok)
        tokens = ctx.tokens
        if tokens is None:
            return ok
        auto_pass = tokens.auto_pass.get(decl.id, np.zeros(n, bool))
        auto_fail = tokens.auto_fail.get(decl.id, np.zeros(n, bool)) & ~auto_pass
        self.fire_hooks_n(decl.id, natural, ok & ~auto_pass & ~auto_fail, ctx)
        return (ok | auto_pass) & ~auto_fail

    def passes_n(self, natural: np.ndarray, need: Tgt, mods: Any, better: list[tuple[Any, Mask]],
                 worse: list[tuple[Any, Mask]], dice: A.Expr, n: int) -> np.ndarray:
        if need.kind == "never":
            return np.zeros(n, bool)
        if need.kind == "always":
            return np.ones(n, bool)
        if need.kind == "chain":  # a natural face, then the second die with the modifiers and caps
            assert need.then is not None and isinstance(dice, A.Dice)
            second = self.passes_n(self.roll_dice_n(dice, n), need.then, mods, better, worse, dice, n)
            return np.asarray(natural == need.n) & second
        high = need.kind == "high"
        eff = need.n - mods if high else need.n + mods
        for caps, easier in ((better, high), (worse, not high)):
            for cap, m in caps:  # never better than 3+: never easier than 3+
                c = self.number(cap)
                capped = np.maximum(eff, c) if easier else np.minimum(eff, c)
                eff = capped if m is None else np.where(m, capped, eff)
        return np.asarray(natural >= eff if high else natural <= eff)

    @staticmethod
    def wants_reroll_n(rerolls: list[tuple[str, Mask]], natural: np.ndarray, ok: np.ndarray) -> np.ndarray:
        want = np.zeros(len(natural), bool)
        for kind, m in rerolls:
            if kind == "1s":
                w = natural == 1
            elif kind == "failures":
                w = ~ok
            elif kind.startswith("natural:"):
                w = np.isin(natural, [int(f) for f in kind[8:].split(",")])
            else:
                continue
            want |= w if m is None else w & m
        return want

    def fire_hooks_n(self, test: str, natural: np.ndarray, fired: np.ndarray, ctx: BCtx) -> None:
        """The lanes that passed on their own die: each hook whose natural face matches fires there."""
        tokens = ctx.tokens
        assert tokens is not None
        for ability, aenv in self.attacking_abilities(ctx):
            for hook in ability.hooks:
                if hook.test != test:
                    continue
                face = aenv.get(hook.natural_param) if hook.natural_param else hook.natural
                if face is None:
                    continue
                match = fired & (natural >= face if hook.natural_from or hook.natural_param else natural == face)
                if not match.any():
                    continue
                for h in hook.effects:
                    if h.kind == "extra":
                        assert h.amount is not None
                        amount = self.number(self.ev(h.amount, aenv, ctx), strict=True)
                        self.batch_extras.append((h.word, np.where(match, amount, 0).astype(np.int64)))
                    elif h.kind in ("pass", "fail"):
                        flags = tokens.auto_pass if h.kind == "pass" else tokens.auto_fail
                        flags[h.test or ""] = flags.get(h.test or "", np.zeros(ctx.n, bool)) | match
                    elif h.kind == "modify":
                        assert h.effect is not None
                        tokens.effects.append((h.effect, aenv, match))
                    elif h.kind == "mortal":
                        tokens.mortal |= match
                        if h.spill:
                            tokens.spill |= match
                    elif h.kind != "succeed":
                        raise Unsupported(f"hook effect {h.kind}")

    # -- attack sequences ---------------------------------------------------------------------

    def attack(self, decl: A.Attack, args: list[Any], outer: Any) -> dict[str, Any]:
        if decl.lets:
            raise Unsupported("an attack's lets")
        roles = {p.name: a for p, a in zip(decl.params, args)}
        removes = [s.removes_target for s in decl.steps if s.removes_target is not None]
        target_role = removes[0].id if removes and isinstance(removes[0], A.Name) else decl.params[-1].name
        plays = outer.n
        ctx = BCtx(outer.situation, roles, target_role, memo={}, n=plays)
        every = np.arange(plays)
        tokens: dict[str, Tokens] = {}
        totals: dict[str, Any] = {}
        later = {s.name for s in decl.steps}
        dealt: set[str] = set()  # steps whose totals are points that met the damage hooks already

        def count(t: Tokens) -> np.ndarray:
            return np.bincount(t.owner[~t.pending()], minlength=plays).astype(np.int64)

        for step in decl.steps:
            later.discard(step.name)
            if step.removes_from is not None:
                totals[step.name] = self.remove(tokens[step.removes_from], step, ctx, step.removes_from in dealt)
                tokens[step.name] = Tokens.fresh(np.repeat(every, totals[step.name]))
                continue
            value = step.value
            assert value is not None
            if self.is_amount(value, tokens) or dealt & names_in(value):
                dealt.add(step.name)  # an amount, or worked out from one: each point met each hook once
            kept = self.kept_form(value, totals, ctx, tokens)
            if isinstance(kept, A.Name):  # a branch naming an earlier step: its attacks as they are
                tokens[step.name], totals[step.name] = tokens[kept.id], totals[kept.id]
                continue
            if isinstance(kept, A.Each):  # each one becomes several, each keeping its state
                assert isinstance(kept.count, A.Name)
                src = tokens[kept.count.id]
                tctx = self.relane(ctx, src.owner, src)
                env = {k: self.lane(x, src.owner) for k, x in totals.items()}
                times = broadcast(self.becomes(kept, self.ev(kept.item, env, tctx), env, tctx), len(src.owner))
                times[src.pending()] = 1  # ``1 extra blasted``: one more here, in its place; others wait
                tokens[step.name] = src.take(np.repeat(np.arange(len(src.owner)), times)).joined(step.name)
                totals[step.name] = count(tokens[step.name])
                continue
            if isinstance(value, A.Each) and isinstance(value.count, A.Name) and value.count.id in tokens:
                src = tokens[value.count.id]
                if self.is_test(value.item):
                    out = self.test_step(src, value, ctx, later).joined(step.name)
                    tokens[step.name], totals[step.name] = out, count(out)
                else:
                    src = src.take(np.flatnonzero(~src.pending()))
                    tctx = self.relane(ctx, src.owner, src)
                    amount = broadcast(self.number(self.ev(value.item, {}, tctx), strict=True), tctx.n)
                    kept_points = amount if value.count.id in dealt else self.damage_n(amount, tctx)
                    totals[step.name] = np.bincount(src.owner, weights=kept_points, minlength=plays).astype(np.int64)
                    tokens[step.name] = Tokens.fresh(np.repeat(every, totals[step.name]))
                continue
            total = broadcast(self.number(self.ev(value, dict(totals), ctx), strict=True), plays)
            tokens[step.name] = Tokens.fresh(np.repeat(every, total))  # a step over totals: fresh attacks
            totals[step.name] = total
        return totals

    def kept_form(self, value: A.Expr, totals: dict[str, Any], ctx: BCtx, tokens: dict[str, Tokens]) -> A.Expr | None:
        """The branch of a settled ``if`` that names an earlier step or makes each attack several."""
        while isinstance(value, A.IfElse):
            value = value.then if self.cond(value.cond, dict(totals), ctx) else value.otherwise
        if isinstance(value, A.Name) and value.id in tokens:
            return value
        if isinstance(value, A.Each) and value.becomes and isinstance(value.count, A.Name) and value.count.id in tokens:
            return value
        return None

    def test_step(self, src: Tokens, value: A.Each, ctx: BCtx, later: set[str]) -> Tokens:
        """Each attack rolls the test; those that pass (or fail, ``each not``) go on, in their order,
        each followed by the fresh attacks its hooks made (here, or on their way to a later step);
        a mortal attack skips the test, and so does one on its way to a step (here or later)."""
        skip = src.mortal | src.pending()
        live_idx, dead_idx = np.flatnonzero(~skip), np.flatnonzero(skip)
        live = src.take(live_idx)
        self.batch_extras = []
        passed = broadcast(self.ev(value.item, {}, self.relane(ctx, live.owner, live)), len(live_idx), bool)
        keep = passed != value.negate
        parts, where, sub = [src.take(dead_idx), live.take(np.flatnonzero(keep))], [dead_idx, live_idx[keep]], [0, 0]
        for word, counts in self.batch_extras:
            parts.append(Tokens.fresh(np.repeat(live.owner, counts), word if word in later else None))
            where.append(np.repeat(live_idx, counts))
            sub.append(1)
        out = Tokens.concat(parts)
        position = np.concatenate(where)
        rank = np.concatenate([np.full(len(w), s) for w, s in zip(where, sub)])
        return out.take(np.lexsort((rank, position)))

    def damage_n(self, points: np.ndarray, ctx: BCtx) -> np.ndarray:
        """Points of damage kept, lane by lane: each point meets each of the target's damage hooks."""
        target = ctx.roles[ctx.target_role or ""]
        hooks = [(h, env) for a, env in self.abilities_of(target, ctx) for h in a.hooks if h.test is None]
        if not hooks:
            return points
        sub = np.repeat(np.arange(ctx.n), points)
        inner = self.relane(ctx, sub, None)
        ignored = np.zeros(len(sub), bool)
        for hook, env in hooks:
            if hook.damage_die is None or hook.ignore_damage_on is None:
                raise Unsupported("a damage hook without its die")
            face = broadcast(self.ev(hook.damage_die, env, inner), len(sub))
            need = self.ev(hook.ignore_damage_on, env, inner)
            ignored |= self.passes_n(face, need, 0, [], [], hook.damage_die, len(sub))
        return np.bincount(sub, weights=~ignored, minlength=ctx.n).astype(np.int64)

    def remove(self, tokens: Tokens, step: A.Step, ctx: Any, dealt: bool = False) -> np.ndarray:
        """Models taken off the target in each play: each attack's damage to the current model, the
        excess lost, attack by attack in the play's order; spilling damage added up and dealt last
        (points that met the damage hooks already, ``dealt``, as the hooks left them)."""
        plays = ctx.n
        target = ctx.roles[ctx.target_role or ""]
        per_model = broadcast(self.wounds_per_model(target, ctx), plays)
        tokens = tokens.take(np.flatnonzero(~tokens.pending()))
        tctx = self.relane(ctx, tokens.owner, tokens)
        d = broadcast(1 if step.damage is None else self.number(self.ev(step.damage, {}, tctx), strict=True), tctx.n)
        d = d if dealt else self.damage_n(d, self.relane(ctx, tokens.owner, None))
        spills = tokens.mortal & tokens.spill
        spill = np.bincount(tokens.owner[spills], weights=d[spills], minlength=plays).astype(np.int64)
        owner, dealt = tokens.owner[~spills], d[~spills]
        left = broadcast(target.models, plays)
        hurt, killed = np.zeros(plays, np.int64), np.zeros(plays, np.int64)
        position = np.arange(len(owner)) - np.searchsorted(owner, owner)  # the attack's place in its play
        order = np.argsort(position, kind="stable")
        bounds = np.cumsum(np.bincount(position, minlength=1))
        for k in range(len(bounds)):  # the k-th attack of every play at once
            sel = order[(bounds[k - 1] if k else 0):bounds[k]]
            who, dk = owner[sel], dealt[sel]
            alive = left[who] > 0
            who, dk = who[alive], dk[alive]
            h = hurt[who] + dk
            dead = h >= per_model[who]
            killed[who] += dead
            left[who] -= dead
            hurt[who] = np.where(dead, 0, h)
        while True:
            on = (spill > 0) & (left > 0)
            if not on.any():
                return killed
            take = np.where(on, np.minimum(spill, per_model - hurt), 0)
            spill -= take
            hurt += take
            dead = on & (hurt >= per_model)
            killed += dead
            left -= dead
            hurt[dead] = 0

    # -- a question ---------------------------------------------------------------------------

    def sample_many(self, question: A.Expr, plays: int, situation: dict[str, Any] | None = None) -> np.ndarray:
        """``plays`` independent plays of the question: their values."""
        ctx = BCtx(dict(situation or {}), n=plays)
        v = self.number(self.ev(question, {}, ctx))
        if v is None or isinstance(v, (Tgt, Unit, dict)):
            raise Unsupported("a question whose answer is not a number")
        return broadcast(v, plays, None)
