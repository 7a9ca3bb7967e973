"""A plain sampling interpreter of the language: the reference (site/language.md) made executable.

It shares only the syntax tree (:mod:`compiler.ast`) with the resolver and answers one question by
playing it out once, every die rolled one by one, each modifier and hook applied as the
reference words it: nothing is summed, convolved, cached or worked out in advance.  Sampled
many times, its answers are the law the resolver must compute exactly
(``tests/test_differential.py``, ``bench/differential.py``).

What it covers is what the differential generator writes: stats (ranges, targets, dice, a role),
situations, keywords, custom dice, tables (case lists and keyed rows), formulas, tests (high
and low rolls, tables' targets, chained targets, ``never``/``always``, natural rules, caps,
``modifiers between``, re-rolls), modifiers (roll, stat, ``better by``/``worse by``, ``needs``,
caps, re-rolls, ``ignore modifiers``, ``when``, groups), abilities (values, stacking, ``when``,
plain effects, ``when attacked:`` effects, test hooks, damage hooks, ``role wounds``), attack
sequences (``each`` steps over tests and amounts, ``each becomes`` with ``capped at``, a branch
that names an earlier step, ``removes``, steps over totals) and model counts worked out from an
earlier result.  ``tests/batch_interpreter.py`` repeats these steps over arrays of plays.  Anything else raises :class:`Unsupported`, never a guess.

Where the reference reads two ways the choice made is written beside the code.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from compiler import ast as A

__all__ = ["PlainInterpreter", "Unsupported", "names_in"]


class Unsupported(Exception):
    """A form of the language this interpreter does not play out."""


def names_in(e: Any) -> set[str]:
    """Every name an expression reads."""
    if isinstance(e, A.Name):
        return {e.id}
    if isinstance(e, (list, tuple)):
        return set().union(*(names_in(x) for x in e))
    if isinstance(e, A.Expr):
        return set().union(*(names_in(getattr(e, f)) for f in e.__dataclass_fields__ if f != "span"))
    return set()


@dataclass(frozen=True)
class Tgt:
    """A target: ``high`` (4+), ``low`` (3-), ``never``, ``always``, or ``chain`` (6 then 4+)."""

    kind: str
    n: int = 0
    then: Tgt | None = None


@dataclass(frozen=True)
class DiceValue:
    """A stat written as dice (``D3+1``): rolled each time it is read."""

    count: int
    die: str  # "d6" or a custom die's id
    sides: int
    bonus: int


@dataclass
class Unit:
    profile: A.Profile
    models: int


@dataclass
class Token:
    """One attack going through the steps, with what hooks did to it."""

    mortal: bool = False
    spill: bool = False
    auto_pass: set[str] = field(default_factory=set)
    auto_fail: set[str] = field(default_factory=set)
    effects: list[tuple[A.Effect, dict[str, Any]]] = field(default_factory=list)
    joins: str | None = None  # ``1 extra wounds``: on its way to the later step it joins, in its place

    def copy(self) -> Token:
        return Token(self.mortal, self.spill, set(self.auto_pass), set(self.auto_fail), list(self.effects),
                     self.joins)


FRESH = Token()


def counted(tokens: list[Token]) -> int:
    """The attacks a step counts: not those on their way to a later step."""
    return sum(t.joins is None for t in tokens)


@dataclass
class Ctx:
    """Where an expression is evaluated: the attack's roles, the situation, the attack being rolled."""

    situation: dict[str, Any]
    roles: dict[str, Unit] = field(default_factory=dict)
    target_role: str | None = None
    token: Token = field(default_factory=lambda: FRESH)
    # what does not change while one attack is rolled (which abilities and modifiers count)
    memo: dict[Any, Any] = field(default_factory=dict)


class PlainInterpreter:
    def __init__(self, items: tuple[A.Decl, ...], rng: random.Random) -> None:
        self.rng = rng
        self.decls: dict[str, A.Decl] = {d.id: d for d in A.walk_decls(items) if getattr(d, "id", None)}
        self.stats = {k: d for k, d in self.decls.items() if isinstance(d, A.Stat)}
        self.modifiers = [d for d in self.decls.values() if isinstance(d, A.Modifier)]
        self.extras: list[tuple[str | None, int]] = []  # fresh attacks the hooks of one roll made

    # -- dice ---------------------------------------------------------------------------------

    def roll_die(self, name: str, sides: int) -> int:
        die = self.decls.get(name)
        if isinstance(die, A.Die):  # a custom die: a face of its base die, read as the die says
            face = die.faces[self.rng.randint(1, die.base_sides) - 1]
            if not isinstance(face, int):
                raise Unsupported("a symbol die")
            return face
        return self.rng.randint(1, sides)

    def roll_dice(self, d: A.Dice) -> int:
        name = d.name.lstrip("0123456789")
        return sum(self.roll_die(name, d.sides) for _ in range(d.count))

    # -- expressions --------------------------------------------------------------------------

    def ev(self, e: A.Expr, env: dict[str, Any], ctx: Ctx) -> Any:
        if isinstance(e, A.Int):
            return e.value
        if isinstance(e, A.Decimal):
            return e.value
        if isinstance(e, A.Dice):
            return self.roll_dice(e)
        if isinstance(e, A.Const):
            if e.value in ("never", "always"):
                return Tgt(e.value)
            if e.value in ("true", "yes"):
                return True
            if e.value in ("false", "no"):
                return False
            raise Unsupported(f"constant {e.value}")
        if isinstance(e, A.Target):
            v = self.number(self.ev(e.value, env, ctx))
            if v is None:
                return Tgt("never")  # a target made from none is never
            return Tgt("high" if e.direction == "high" else "low", int(v))
        if isinstance(e, A.Chain):
            first = self.ev(e.first, env, ctx)
            then = self.ev(e.then, env, ctx)
            return Tgt("chain", int(self.number(first)), then)
        if isinstance(e, A.Name):
            if e.id in env:
                return env[e.id]
            if e.id in ctx.situation:
                return ctx.situation[e.id]
            if e.id in ctx.roles:
                return ctx.roles[e.id]
            decl = self.decls.get(e.id)
            if isinstance(decl, A.Situation):
                return self.situation_default(decl)
            if isinstance(decl, A.Profile):
                return Unit(decl, 1)
            raise Unsupported(f"name {e.id}")
        if isinstance(e, A.Unary):
            v = self.ev(e.operand, env, ctx)
            return (not v) if e.op == "not" else -self.number(v, strict=True)
        if isinstance(e, A.Binary):
            return self.binary(e, env, ctx)
        if isinstance(e, A.IfElse):
            return self.ev(e.then if self.ev(e.cond, env, ctx) else e.otherwise, env, ctx)
        if isinstance(e, A.InRange):
            v = self.number(self.ev(e.operand, env, ctx))
            lo, hi = self.ev(e.range.low, env, ctx), self.ev(e.range.high, env, ctx)
            return v is not None and lo <= v <= hi
        if isinstance(e, A.IsNone):
            return self.ev(e.operand, env, ctx) is None
        if isinstance(e, A.Has):
            unit = self.ev(e.operand, env, ctx)
            p = unit.profile
            return (e.keyword in {k for k, _ in p.keywords} or e.keyword in {a.ability for a in p.abilities}
                    or p.klass == e.keyword)
        if isinstance(e, A.Attr):
            return self.attr(e, env, ctx)
        if isinstance(e, A.Each):
            n = self.number(self.ev(e.count, env, ctx), strict=True)
            total = 0
            for _ in range(int(n)):
                v = self.ev(e.item, env, ctx)
                if e.becomes:
                    total += self.becomes(e, v, env, ctx)
                elif isinstance(v, bool):
                    total += int(v != e.negate)
                else:
                    total += self.number(v, strict=True)
            return total
        if isinstance(e, A.Call):
            return self.call(e, env, ctx)
        if isinstance(e, A.Group):
            n = e.count if e.computed is None else self.number(self.ev(e.computed, env, ctx), strict=True)
            if n != int(n) or n < 0:
                raise Unsupported("a model count that is no number of models")
            profile = self.decls[e.profile]
            assert isinstance(profile, A.Profile)
            return Unit(profile, int(n))
        if isinstance(e, A.With):
            inner = Ctx(dict(ctx.situation), ctx.roles, ctx.target_role, ctx.token)  # a memo of its own
            for s in e.settings:
                inner.situation[s.name] = (not s.negated) if s.value is None else self.setting(s)
            return self.ev(e.expr, env, inner)
        raise Unsupported(type(e).__name__)

    def becomes(self, e: A.Each, v: Any, env: dict[str, Any], ctx: Ctx) -> int:
        """How many one becomes (``each becomes weapon.blast capped at target.models``): no more than the cap."""
        n = int(self.number(v, strict=True))
        if e.cap is not None:
            n = min(n, int(self.number(self.ev(e.cap, env, ctx), strict=True)))
        if n < 0:
            raise Unsupported("becomes fewer than none")
        return n

    def setting(self, s: A.Setting) -> Any:
        if isinstance(s.value, A.Name):
            return s.value.id  # a choice
        if isinstance(s.value, A.Int):
            return s.value.value
        raise Unsupported("a setting")

    def situation_default(self, decl: A.Situation) -> Any:
        # Unset, a yes/no situation is no, a list takes its first choice and a number its lowest value.
        if decl.choices:
            return decl.choices[0]
        if decl.range is not None:
            return self.ev(decl.range.low, {}, Ctx({}))
        return False

    @staticmethod
    def number(v: Any, strict: bool = False) -> Any:
        """A target stands for its number in arithmetic; none stays none (or is refused)."""
        if isinstance(v, Tgt):
            if v.kind in ("high", "low"):
                return v.n
            raise Unsupported(f"arithmetic on a {v.kind} target")
        if v is None and strict:
            raise Unsupported("arithmetic on none")
        if isinstance(v, bool):
            return int(v)
        return v

    def binary(self, e: A.Binary, env: dict[str, Any], ctx: Ctx) -> Any:
        if e.op == "and":
            return bool(self.ev(e.left, env, ctx)) and bool(self.ev(e.right, env, ctx))
        if e.op == "or":
            return bool(self.ev(e.left, env, ctx)) or bool(self.ev(e.right, env, ctx))
        a, b = self.number(self.ev(e.left, env, ctx)), self.number(self.ev(e.right, env, ctx))
        if e.op in ("==", "!=", ">=", "<=", ">", "<"):
            if a is None or b is None:
                return False  # comparing none is false
            return {"==": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[e.op]
        if a is None or b is None:
            raise Unsupported("arithmetic on none")
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        if e.op == "/":
            return Fraction(a, b)
        raise Unsupported(f"operator {e.op}")

    # -- profiles -----------------------------------------------------------------------------

    def raw_stat(self, unit: Unit, stat: str) -> Any:
        for sv in unit.profile.stats:
            if sv.stat == stat:
                if sv.kind == "int":
                    return sv.value
                if sv.kind in ("high", "low"):
                    return Tgt(sv.kind, int(sv.value))  # type: ignore[arg-type]
                if sv.kind == "dice":
                    assert sv.dice is not None
                    return DiceValue(sv.dice.count, sv.dice.name.lstrip("0123456789"), sv.dice.sides, sv.dice_bonus)
                if sv.kind == "none":
                    return None
                raise Unsupported(f"a stat of kind {sv.kind}")
        return None

    def ability_value(self, unit: Unit, ability: str) -> Any:
        uses = [u for u in unit.profile.abilities if u.ability == ability]
        if not uses:
            return None
        decl = self.decls[ability]
        assert isinstance(decl, A.Ability)
        values = [u.arg for u in uses if u.arg is not None]
        if not values:
            return None
        # Listed twice on one profile, the values add up under stacking sum; the higher counts otherwise.
        return sum(values) if decl.stacking == "sum" else max(values)

    def attr(self, e: A.Attr, env: dict[str, Any], ctx: Ctx) -> Any:
        obj = self.ev(e.obj, env, ctx)
        if isinstance(obj, dict):  # an attack's result: its steps by name
            return obj[e.name]
        if not isinstance(obj, Unit):
            raise Unsupported("an attribute of a value")
        if e.name == "models":
            return obj.models
        if isinstance(self.decls.get(e.name), A.Ability):
            return self.ability_value(obj, e.name)
        role = e.obj.id if isinstance(e.obj, A.Name) and e.obj.id in ctx.roles else None
        return self.read_stat(self.raw_stat(obj, e.name), e.name, role, env, ctx)

    def read_stat(self, value: Any, stat: str, role: str | None, env: dict[str, Any], ctx: Ctx) -> Any:
        """A stat as read: every stat modifier that applies (of this role, or of none) added once."""
        if value is None:
            return None
        delta, better = 0, 0
        for eff, eenv in self.active_effects(ctx):
            if eff.stat != stat or (eff.role is not None and eff.role != role):
                continue
            amount = self.number(self.ev(eff.value, eenv, ctx), strict=True) if eff.value is not None else 1
            if eff.kind == "stat":
                delta += amount
            elif eff.kind == "better":
                better += amount
            elif eff.kind == "worse":
                better -= amount
        delta_grouped = delta  # groups are settled in active_effects
        if isinstance(value, DiceValue):
            return self.roll_dice_value(DiceValue(value.count, value.die, value.sides, value.bonus + delta_grouped))
        if isinstance(value, Tgt):
            # better by moves a high roll's number down and a low roll's up; a plain + adds to the number
            if value.kind == "high":
                return Tgt("high", value.n + delta_grouped - better)
            if value.kind == "low":
                return Tgt("low", value.n + delta_grouped + better)
            return value
        v = value + delta_grouped
        decl = self.stats.get(stat)
        if decl is not None and isinstance(decl.type, A.RangeExpr) and decl.clamped:
            lo, hi = self.ev(decl.type.low, {}, ctx), self.ev(decl.type.high, {}, ctx)
            v = max(lo, min(hi, v))  # modifiers never take a ranged stat outside its range
        return v

    def roll_dice_value(self, d: DiceValue) -> int:
        return sum(self.roll_die(d.die, d.sides) for _ in range(d.count)) + d.bonus

    # -- what applies -------------------------------------------------------------------------

    def abilities_of(self, unit: Unit, ctx: Ctx) -> list[tuple[A.Ability, dict[str, Any]]]:
        """The abilities a profile carries whose ``when`` holds, each with its value bound to its parameter."""
        key = ("of", id(unit))
        if key not in ctx.memo:
            ctx.memo[key] = self._abilities_of(unit, ctx)
        return ctx.memo[key]  # type: ignore[no-any-return]

    def _abilities_of(self, unit: Unit, ctx: Ctx) -> list[tuple[A.Ability, dict[str, Any]]]:
        out: list[tuple[A.Ability, dict[str, Any]]] = []
        for aid in dict.fromkeys(u.ability for u in unit.profile.abilities):
            decl = self.decls[aid]
            assert isinstance(decl, A.Ability)
            env = {decl.params[0].name: self.ability_value(unit, aid)} if decl.params else {}
            if decl.when is None or self.ev(decl.when, {}, ctx):
                out.append((decl, env))
        return out

    def attacking_abilities(self, ctx: Ctx) -> list[tuple[A.Ability, dict[str, Any]]]:
        """The abilities of every role but the target, one of each: stacking highest (or sum) of values."""
        if "attacking" not in ctx.memo:
            ctx.memo["attacking"] = self._attacking_abilities(ctx)
        return ctx.memo["attacking"]  # type: ignore[no-any-return]

    def _attacking_abilities(self, ctx: Ctx) -> list[tuple[A.Ability, dict[str, Any]]]:
        found: dict[str, tuple[A.Ability, list[dict[str, Any]]]] = {}
        target = ctx.roles.get(ctx.target_role or "")
        for role, unit in ctx.roles.items():
            if role == ctx.target_role or (target is not None and unit.profile is target.profile):
                continue  # the same profile on both sides is helped only as the target
            for decl, env in self.abilities_of(unit, ctx):
                found.setdefault(decl.id, (decl, []))[1].append(env)
        out = []
        for decl, envs in found.values():
            if decl.params:
                name = decl.params[0].name
                values = [e[name] for e in envs if e[name] is not None]
                value = (sum(values) if decl.stacking == "sum" else max(values)) if values else None
                out.append((decl, {name: value}))
            else:
                out.append((decl, {}))
        return out

    def active_effects(self, ctx: Ctx) -> list[tuple[A.Effect, dict[str, Any]]]:
        """Every effect that counts now; of a named group only the largest (by size) counts."""
        if "effects" not in ctx.memo:
            ctx.memo["effects"] = self._active_effects(ctx)
        return ctx.memo["effects"] + ctx.token.effects  # type: ignore[no-any-return]

    def _active_effects(self, ctx: Ctx) -> list[tuple[A.Effect, dict[str, Any]]]:
        plain: list[tuple[A.Effect, dict[str, Any]]] = []
        grouped: dict[tuple[str, str, str | None, str | None], tuple[A.Effect, dict[str, Any], Any]] = {}
        for decl in self.modifiers:
            if decl.when is None or self.ev(decl.when, {}, ctx):
                for eff in decl.effects:
                    if decl.group is None:
                        plain.append((eff, {}))
                    else:
                        key = (decl.group, eff.kind, eff.test, eff.stat)
                        size = abs(self.number(self.ev(eff.value, {}, ctx))) if eff.value is not None else 0
                        if key not in grouped or size > grouped[key][2]:
                            grouped[key] = (eff, {}, size)
        plain.extend((e, env) for e, env, _ in grouped.values())
        if ctx.roles:
            for decl, env in self.attacking_abilities(ctx):
                plain.extend((eff, env) for eff in decl.effects)
            target = ctx.roles.get(ctx.target_role or "")
            if target is not None:
                for decl, env in self.abilities_of(target, ctx):
                    plain.extend((eff, env) for eff in decl.defence)
        return plain

    # -- calls --------------------------------------------------------------------------------

    def call(self, e: A.Call, env: dict[str, Any], ctx: Ctx) -> Any:
        decl = self.decls.get(e.func)
        if decl is None:
            return self.builtin(e, env, ctx)
        if isinstance(decl, A.Attack):
            return self.attack(decl, [self.ev(a, env, ctx) for a in e.args], ctx)
        params = getattr(decl, "params", ())
        if len(params) != len(e.args) or e.kwargs:
            raise Unsupported("a call's arguments")
        bound: dict[str, Any] = {}
        for p, arg in zip(params, e.args):
            v = self.ev(arg, env, ctx)
            if p.name in self.stats and not isinstance(arg, (A.Attr, A.Name)):
                # a value handed to a parameter named after a stat takes that stat's modifiers (once)
                v = self.read_stat(v, p.name, None, env, ctx)
            bound[p.name] = v
        if isinstance(decl, A.Test):
            return self.test(decl, bound, ctx)
        if isinstance(decl, A.Table):
            return self.table(decl, bound, ctx)
        if isinstance(decl, A.Formula):
            for let in decl.lets:
                bound[let.name] = self.ev(let.value, bound, ctx)
            assert decl.result is not None
            return self.ev(decl.result, bound, ctx)
        raise Unsupported(f"a call of {type(decl).__name__}")

    def builtin(self, e: A.Call, env: dict[str, Any], ctx: Ctx) -> Any:
        args = [self.ev(a, env, ctx) for a in e.args]
        if e.func in ("min", "max"):
            values = [self.number(a) for a in args if a is not None]  # none is skipped
            return (min if e.func == "min" else max)(values) if values else None
        if e.func == "abs":
            return abs(self.number(args[0], strict=True))
        raise Unsupported(f"built-in {e.func}")

    def table(self, decl: A.Table, bound: dict[str, Any], ctx: Ctx) -> Any:
        for let in decl.lets:
            bound[let.name] = self.ev(let.value, bound, ctx)
        if decl.formula is not None:
            return self.ev(decl.formula, bound, ctx)
        if decl.grid is not None:
            raise Unsupported("a grid")
        key = self.number(next(iter(bound.values()))) if len(bound) == 1 else None
        for row in decl.rows:  # the first row whose case holds gives the result
            if row.pattern is None:
                return self.ev(row.result, bound, ctx)
            if isinstance(row.pattern, A.RangeExpr):
                lo, hi = self.ev(row.pattern.low, bound, ctx), self.ev(row.pattern.high, bound, ctx)
                if key is not None and lo <= key <= hi:
                    return self.ev(row.result, bound, ctx)
                continue
            v = self.ev(row.pattern, bound, ctx)
            if isinstance(v, bool) and v or (not isinstance(v, bool) and key is not None and v == key):
                return self.ev(row.result, bound, ctx)
        raise Unsupported("a table with a gap")

    # -- tests --------------------------------------------------------------------------------

    def test(self, decl: A.Test, bound: dict[str, Any], ctx: Ctx) -> bool:
        """One test, rolled as the reference's "How a test resolves" and "The order things happen in"."""
        token = ctx.token
        if decl.id in token.auto_pass:
            return True
        if decl.id in token.auto_fail:
            return False
        roll = decl.roll
        assert roll is not None
        raw = self.ev(roll.target, bound, ctx)
        if roll.op == ">=":
            need = Tgt("high", int(self.number(raw, strict=True)))
        elif roll.op == "<=":
            need = Tgt("low", int(self.number(raw, strict=True)))
        else:
            need = raw if isinstance(raw, Tgt) else Tgt("high", int(self.number(raw, strict=True)))
        effects = [(e, env) for e, env in self.active_effects(ctx) if e.test == decl.id]
        needs = [self.ev(e.value, env, ctx) for e, env in effects if e.kind == "needs" and e.value is not None]
        if needs:  # a target set by needs replaces the test's; the hardest wins
            need = max(needs, key=self.hardness)
        ignore = any(e.kind == "ignore_modifiers" for e, _ in effects)
        mods = 0 if ignore else sum(self.number(self.ev(e.value, env, ctx), strict=True)
                                    for e, env in effects if e.kind == "roll" and e.value is not None)
        if decl.modifier_cap is not None:
            mods = max(decl.modifier_cap[0], min(decl.modifier_cap[1], mods))
        better = [decl.never_better] if decl.never_better is not None else []
        worse = [decl.never_worse] if decl.never_worse is not None else []
        better_caps = [self.ev(x, bound, ctx) for x in better] + [
            self.ev(e.value, env, ctx) for e, env in effects if e.kind == "never_better" and e.value is not None]
        worse_caps = [self.ev(x, bound, ctx) for x in worse] + [
            self.ev(e.value, env, ctx) for e, env in effects if e.kind == "never_worse" and e.value is not None]
        fails = set(decl.natural_fails)
        succeeds = set(decl.natural_succeeds)
        for e, env in effects:
            if e.kind == "natural_succeeds" and e.value is not None:
                succeeds |= self.faces(self.ev(e.value, env, ctx))
        for ability, aenv in self.attacking_abilities(ctx) if ctx.roles else []:
            for hook in ability.hooks:
                if hook.test == decl.id and any(h.kind == "succeed" for h in hook.effects):
                    succeeds |= {f for f in range(1, 61) if self.face_matches(hook, f, aenv)}
        rerolls = set(decl.rerolls) | {e.reroll for e, _ in effects if e.kind == "reroll" and e.reroll}

        def once() -> tuple[int, bool]:
            natural = self.roll_dice(roll.dice) if isinstance(roll.dice, A.Dice) else self.number(
                self.ev(roll.dice, bound, ctx), strict=True)
            if natural in fails:  # natural rules beat every modifier, and always too
                return natural, False
            if natural in succeeds:
                return natural, True
            return natural, self.passes(natural, need, mods, better_caps, worse_caps, roll.dice)

        natural, ok = once()
        if self.wants_reroll(rerolls, natural, ok):  # a die is never re-rolled twice
            natural, ok = once()
        if ok:
            self.fire_hooks(decl.id, natural, ctx)
        return ok

    @staticmethod
    def faces(v: Any) -> set[int]:
        if isinstance(v, Tgt) and v.kind == "high":
            return set(range(v.n, 61))
        return {int(v)}

    @staticmethod
    def hardness(t: Any) -> float:
        if isinstance(t, Tgt):
            return {"never": 1e9, "always": -1e9}.get(t.kind, t.n if t.kind == "high" else -t.n)
        return float(t)

    def passes(self, natural: int, need: Tgt, mods: int, better: list[Any], worse: list[Any], dice: A.Expr) -> bool:
        if need.kind == "never":
            return False
        if need.kind == "always":
            return True
        if need.kind == "chain":
            # the first die needs a natural face, which no modifier changes; the roll modifiers and
            # the caps count for the second die (6 then 4+ with +1 is a natural 6, then 3+)
            if natural != need.n:
                return False
            assert need.then is not None and isinstance(dice, A.Dice)
            return self.passes(self.roll_dice(dice), need.then, mods, better, worse, dice)
        if need.kind == "high":
            eff = need.n - mods  # +1 to hit: a 3 counts as a 4
            for cap in better:  # never better than 3+: never easier than 3+
                eff = max(eff, self.number(cap))
            for cap in worse:
                eff = min(eff, self.number(cap))
            return natural >= eff
        eff = need.n + mods  # a low roll: +1 raises the number the roll must not exceed
        for cap in better:
            eff = min(eff, self.number(cap))
        for cap in worse:
            eff = max(eff, self.number(cap))
        return natural <= eff

    @staticmethod
    def wants_reroll(rerolls: set[str], natural: int, ok: bool) -> bool:
        for kind in rerolls:
            if kind == "1s" and natural == 1:
                return True
            if kind == "failures" and not ok:
                return True
            if kind.startswith("natural:") and natural in {int(f) for f in kind[8:].split(",")}:
                return True
        return False

    def face_matches(self, hook: A.Hook, natural: int, aenv: dict[str, Any]) -> bool:
        face = aenv.get(hook.natural_param) if hook.natural_param else hook.natural
        if face is None:
            return False
        return natural >= face if hook.natural_from or hook.natural_param else natural == face

    def fire_hooks(self, test: str, natural: int, ctx: Ctx) -> None:
        """A passed test: each hook whose natural face matches the kept die fires, on this attack only."""
        if not ctx.roles or ctx.token is FRESH:
            return
        token = ctx.token
        for ability, aenv in self.attacking_abilities(ctx):
            for hook in ability.hooks:
                if hook.test != test or not self.face_matches(hook, natural, aenv):
                    continue
                for h in hook.effects:
                    if h.kind == "extra":
                        assert h.amount is not None
                        n = int(self.number(self.ev(h.amount, aenv, ctx), strict=True))
                        self.extras.append((h.word, n))
                    elif h.kind == "pass":
                        token.auto_pass.add(h.test or "")
                    elif h.kind == "fail":
                        token.auto_fail.add(h.test or "")
                    elif h.kind == "modify":
                        assert h.effect is not None
                        token.effects.append((h.effect, aenv))
                    elif h.kind == "mortal":
                        token.mortal = True
                        token.spill = token.spill or h.spill
                    elif h.kind == "succeed":
                        pass  # worked out before the roll was decided
                    else:
                        raise Unsupported(f"hook effect {h.kind}")

    # -- attack sequences ---------------------------------------------------------------------

    def attack(self, decl: A.Attack, args: list[Any], outer: Ctx) -> dict[str, Any]:
        if decl.lets:
            raise Unsupported("an attack's lets")
        roles = {p.name: a for p, a in zip(decl.params, args)}
        removes = [s.removes_target for s in decl.steps if s.removes_target is not None]
        target_role = removes[0].id if removes and isinstance(removes[0], A.Name) else decl.params[-1].name
        ctx = Ctx(outer.situation, roles, target_role)
        tokens: dict[str, list[Token]] = {}
        totals: dict[str, Any] = {}
        later = {s.name for s in decl.steps}
        dealt: set[str] = set()  # steps whose totals are points that met the damage hooks already
        for step in decl.steps:
            later.discard(step.name)
            if step.removes_from is not None:
                totals[step.name] = self.remove(tokens[step.removes_from], step, ctx, step.removes_from in dealt)
                tokens[step.name] = [Token() for _ in range(totals[step.name])]
                continue
            value = step.value
            assert value is not None
            if self.is_amount(value, tokens) or dealt & names_in(value):
                dealt.add(step.name)  # an amount, or worked out from one: each point met each hook once
            kept = self.kept_form(value, totals, ctx, tokens)
            if isinstance(kept, A.Name):  # a branch naming an earlier step: its attacks as they are
                tokens[step.name], totals[step.name] = tokens[kept.id], totals[kept.id]
                continue
            if isinstance(kept, A.Each):  # each attack becomes several, each a copy keeping its state
                assert isinstance(kept.count, A.Name)
                copies: list[Token] = []
                for token in tokens[kept.count.id]:
                    if token.joins is not None:  # ``1 extra blasted``: one more here, in its place
                        copies.append(Token() if token.joins == step.name else token)
                        continue
                    tctx = Ctx(ctx.situation, roles, target_role, token, ctx.memo)
                    times = self.becomes(kept, self.ev(kept.item, dict(totals), tctx), dict(totals), tctx)
                    copies += [token.copy() for _ in range(times)]
                tokens[step.name], totals[step.name] = copies, counted(copies)
                continue
            if isinstance(value, A.Each) and isinstance(value.count, A.Name) and value.count.id in tokens:
                out: list[Token] = []
                amount = 0
                for token in tokens[value.count.id]:
                    tctx = Ctx(ctx.situation, roles, target_role, token, ctx.memo)
                    self.extras = []
                    if token.joins is not None:  # joins this step without its roll, or goes on waiting
                        if self.is_test(value.item):
                            out.append(Token() if token.joins == step.name else token)
                        continue
                    if self.is_test(value.item):
                        if token.mortal:  # a mortal attack skips every later test, in each and each not
                            out.append(token)
                            continue
                        passed = self.ev(value.item, {}, tctx)
                        if passed != value.negate:
                            out.append(token)
                        for word, n in self.extras:  # fresh attacks right after it: here, or for the later step named
                            out.extend(Token(joins=word if word in later else None) for _ in range(n))
                    else:
                        points = self.number(self.ev(value.item, {}, tctx), strict=True)
                        amount += points if value.count.id in dealt else self.damage(points, ctx)
                if self.is_test(value.item):
                    tokens[step.name] = out
                    totals[step.name] = counted(out)
                else:
                    totals[step.name] = amount
                    tokens[step.name] = [Token() for _ in range(int(amount))]
                continue
            total = self.ev(value, dict(totals), ctx)  # a step over totals: fresh attacks
            totals[step.name] = total
            tokens[step.name] = [Token() for _ in range(int(self.number(total, strict=True)))]
        return totals

    def kept_form(self, value: A.Expr, totals: dict[str, Any], ctx: Ctx, tokens: dict[str, Any]) -> A.Expr | None:
        """A step that keeps its attacks as they are: the branch of an ``if`` the profiles settle, an
        earlier step by name, or ``hits each becomes …``; else None (a step over totals)."""
        while isinstance(value, A.IfElse):
            value = value.then if self.ev(value.cond, dict(totals), ctx) else value.otherwise
        if isinstance(value, A.Name) and value.id in tokens:
            return value
        if isinstance(value, A.Each) and value.becomes and isinstance(value.count, A.Name) and value.count.id in tokens:
            return value
        return None

    def is_amount(self, value: A.Expr, tokens: dict[str, Any]) -> bool:
        """``damage = unsaved each weapon.D``: an amount per attack of an earlier step, added up."""
        return (isinstance(value, A.Each) and isinstance(value.count, A.Name) and value.count.id in tokens
                and not value.negate and not value.becomes and not self.is_test(value.item))

    def is_test(self, e: A.Expr) -> bool:
        return isinstance(e, A.Call) and isinstance(self.decls.get(e.func), A.Test)

    def damage(self, points: int, ctx: Ctx) -> int:
        """Points of damage the target takes: each point meets each of the target's damage hooks."""
        target = ctx.roles[ctx.target_role or ""]
        kept = 0
        hooks = [(h, env) for a, env in self.abilities_of(target, ctx) for h in a.hooks if h.test is None]
        for _ in range(int(points)):
            ignored = False
            for hook, env in hooks:
                if hook.damage_die is None or hook.ignore_damage_on is None:
                    raise Unsupported("a damage hook without its die")
                face = self.ev(hook.damage_die, env, ctx)
                need = self.ev(hook.ignore_damage_on, env, ctx)
                if self.passes(face, need, 0, [], [], hook.damage_die):
                    ignored = True
            kept += not ignored
        return kept

    def wounds_per_model(self, target: Unit, ctx: Ctx) -> Any:
        """The wounds of each of the target's models: the stat declared ``role wounds`` (with its
        modifiers), or the value of the ability declared so (its default for a profile without it)."""
        for d in self.decls.values():
            if isinstance(d, A.Stat) and d.role == "wounds":
                return self.read_stat(self.raw_stat(target, d.id), d.id, ctx.target_role, {}, ctx)
            if isinstance(d, A.Ability) and d.role == "wounds":
                value = self.ability_value(target, d.id)
                if value is None and d.role_default is None:
                    raise Unsupported("a model without the wounds ability and no default")
                return d.role_default if value is None else value
        raise Unsupported("no stat or ability with role wounds")

    def remove(self, tokens: list[Token], step: A.Step, ctx: Ctx, dealt: bool = False) -> int:
        """Models taken off the target: each attack's damage to the current model, the excess lost;
        damage that spills over added up and dealt after the rest, from model to model.  From points
        that met the damage hooks already (``dealt``), the points are taken as the hooks left them."""
        target = ctx.roles[ctx.target_role or ""]
        per_model = self.wounds_per_model(target, ctx)
        left, hurt, killed = target.models, 0, 0
        spill = 0
        for token in tokens:  # in their order: each attack where the one it came from stood
            if token.joins is not None:
                continue
            tctx = Ctx(ctx.situation, ctx.roles, ctx.target_role, token, ctx.memo)
            d = 1 if step.damage is None else self.number(self.ev(step.damage, {}, tctx), strict=True)
            d = d if dealt else self.damage(d, ctx)
            if token.mortal and token.spill:
                spill += d
                continue
            if left == 0:
                continue
            hurt += d
            if hurt >= per_model:
                killed, left, hurt = killed + 1, left - 1, 0
        while spill > 0 and left > 0:
            take = min(spill, per_model - hurt)
            spill -= take
            hurt += take
            if hurt >= per_model:
                killed, left, hurt = killed + 1, left - 1, 0
        return killed

    # -- a question ---------------------------------------------------------------------------

    def sample(self, question: A.Expr, situation: dict[str, Any] | None = None) -> Any:
        """One play of the question: its value."""
        return self.number(self.ev(question, {}, Ctx(dict(situation or {}))))
