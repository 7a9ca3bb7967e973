"""Generated rulesets and questions, answered twice: exactly by the resolver and by sampling the
plain interpreter (``tests/plain_interpreter.py``); the two laws must agree.

:func:`programs` draws a well-typed ruleset across the language — stats with ranges, targets,
dice and a role; a custom die; a wound table (case list, sometimes a chained ``6 then 4+`` row)
and a keyed table of the save's AP; hit tests rolled high or low with natural rules, caps,
``modifiers between`` and re-rolls; modifiers (roll, stat, ``better by``, ``needs``, caps,
re-rolls, ``ignore modifiers``, a group, ``when``); abilities with values and hooks (extra
hits, ``1 extra wounds`` or ``1 extra blasted`` joining a later step, automatic wounds, no save,
``+N D``, mortal wounds that spill over, ``succeeds`` on ``natural X+``), sometimes carried by
both attacking profiles (the higher value, or ``stacking sum``); plain, ``when attacked:`` and
damage-hook abilities of the target; a model's wounds as a stat or as an ability's value
(``role wounds``, with or without a default); an attack sequence with ``each`` steps, each hit
becoming several (``each becomes``, ``capped at`` or not, or only for a weapon that has the
ability: an ``if`` whose other branch names the step before), an amount, a cap over totals,
``removes`` (from the attacks, or from the points summed), a cap over the points counted one by
one — and one question about one step, with a situation, sometimes with a number of models
worked out from an earlier result.

:func:`judge` compiles it; a ruleset ``check --strict`` does not pass is *refused* (counted: the
callers bound the share, so the property cannot pass by refusing everything).  Otherwise
``eval`` must resolve it, and the exact law must agree with ``samples`` plays of the plain
interpreter (drawn all at once by ``tests/batch_interpreter.py``, or one at a time): a sampled
value the law gives no chance is a disagreement at once; else a
chi-square test over the values (those expected fewer than five times pooled) at the level
``alpha`` the caller has already divided by the number of programs (Bonferroni).

A program's ``known`` names the forms of issue 26's listed wrong answers it holds (``cleave``:
extra tokens that join a later step, case 2; a chained target with roll modifiers, case 4), so
that a run can tell a known case from a new one; ``programs(known=False)`` leaves out
``cleave``.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from batch_interpreter import BatchInterpreter
from hypothesis import strategies as st

from compiler.diagnostics import Severity
from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression
from plain_interpreter import PlainInterpreter

__all__ = ["Program", "Verdict", "judge", "plays", "programs", "chi_square_p", "two_sample_p"]


@dataclass(frozen=True)
class Program:
    text: str
    question: str
    known: frozenset[str] = frozenset()


@dataclass
class Verdict:
    outcome: str  # "refused", "agree", "disagree", "unresolved", "unsupported"
    detail: str = ""
    law: dict[Any, Fraction] = field(default_factory=dict)
    observed: Counter[Any] = field(default_factory=Counter)


HEADER = '''ruleset gen "Generated":
  version 1.0.0

stat Q "Quality" 1..6: "q"
stat S "Strength" 1..8: "s"
stat T "Toughness" 1..8: "t"
stat Def "Defence" target: "d"
stat AP "Armour piercing" 0..3: "ap"
stat A "Attacks" dice: "a"
stat D "Damage" dice: "d"
stat HP "Hit points" 1..4 role wounds: "w"
situation cover "In cover"
keyword infantry "Infantry": "k"
die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3
'''

ABILITIES = {
    "sustained": 'ability sustained(N: 1..2) "Sustained": "s"\n  on natural 6 to hit: N extra hits\n',
    "lethal": 'ability lethal "Lethal": "l"\n  on natural 6 to hit: wound automatically\n',
    "devastating": 'ability devastating "Devastating": "d"\n  on natural 6 to wound: no save\n',
    "rend": 'ability rend(N: 1..2) "Rend": "r"\n  on natural 6 to wound: +N D, +1 AP\n',
    "mortal": 'ability mortal "Mortal": "m"\n  on natural 6 to wound: mortal wounds{spill}\n',
    "anti": 'ability anti(X: 2..6) "Anti": "a"\n  when target has infantry\n  on natural X+ to wound: succeeds\n',
    "precise": 'ability precise "Precise": "p"\n  on natural 5+ to hit: +1 to wound, reroll failures to wound\n',
    "sunder": 'ability sunder "Sunder": "s"\n  on natural 6 to hit: save never better than 5+, ignore modifiers to save\n',
    "cleave": 'ability cleave "Cleave": "c"\n  on natural 6 to hit: 1 extra {joins}\n',
    "aim": 'ability aim "Aim": "a"\n  +1 to hit\n',
    "keen": 'ability keen "Keen": "k"\n  when cover\n  reroll 1s to wound\n',
}
# the target's: a penalty against its attackers, and a damage hook
DEFENCES = {
    "stealth": 'ability stealth "Stealth": "s"\n  when attacked: -1 to hit\n',
    "ward": 'ability ward(X: 2..6) "Ward": "w"\n  on each damage: roll d6, ignored on X+\n',
    "tough": 'ability tough "Tough": "t"\n  when attacked: +1 T of target\n',
}
WITH_VALUE = {"sustained": (1, 2), "rend": (1, 2), "anti": (2, 6), "ward": (3, 6)}

MODIFIERS = [
    '-1 to hit when cover',
    '+1 to hit',
    '+1 to wound when cover',
    'hit needs 5+ when cover',
    'reroll 1s to wound',
    '+1 T of target when cover',
    '-1 S of weapon',
    'save never better than 4+',
    'ignore modifiers to hit when cover',
    '+1 to save when cover',
    '-1 to save',
    'Def of target better by 1 when cover',
    'Def of target worse by 1',
    'reroll failures to hit when cover',
    '+1 AP when cover',
]
WOUND_MODIFIERS = {'+1 to wound when cover'}


@st.composite
def programs(draw: st.DrawFn, known: bool = True) -> Program:
    marks: set[str] = set()
    text = HEADER
    # the wound chart: thresholds on T - S, sometimes a chained last row
    chained = draw(st.booleans())
    lo = draw(st.integers(-3, -1))
    text += ('\ntable to_wound(S, T) "Wound chart":\n'
             f'  T - S <= {lo} -> 2+\n  T - S <= 0 -> {draw(st.sampled_from(["3+", "4+"]))}\n'
             f'  T - S <= 2 -> {draw(st.sampled_from(["5+", "6+"]))}\n')
    text += "  otherwise -> 6 then 4+\n" if chained else f"  otherwise -> {draw(st.sampled_from(['6+', 'never']))}\n"
    low = draw(st.integers(0, 3)) == 0
    hit = ["roll d6 <= Q" if low else "roll d6 >= Q"]
    hit += draw(st.sampled_from([[], ["natural 1 fails"], ["natural 6 fails" if low else "natural 6 succeeds"]]))
    hit += draw(st.sampled_from([[], ["never better than 5" if low else "never better than 2+"]]))
    hit += draw(st.sampled_from([[], ["modifiers between -1 and 1"]]))
    hit += draw(st.sampled_from([[], ["reroll 1s"], ["reroll failures"], ["reroll natural 1 or 2"]]))
    text += '\ntest hit(Q) "Hit":\n' + "".join(f"  {c}\n" for c in hit)
    text += '\ntest wound(S, T) "Wound":\n  roll d6 against to_wound(S, T)\n'
    text += draw(st.sampled_from(["", "  natural 1 fails\n"]))
    # the save: AP added, or looked up in a keyed table (a hook's +1 AP makes it differ attack by attack)
    if draw(st.booleans()):
        text += '\ntable ap_bonus(AP) "AP bonus":\n  0 -> 0\n  1..2 -> 1\n  3 -> 2\n'
        text += '\ntest save(Def, AP) "Save":\n  roll d6 >= Def + ap_bonus(AP)\n'
    else:
        text += '\ntest save(Def, AP) "Save":\n  roll d6 >= Def + AP\n'
    text += draw(st.sampled_from(["", "  natural 1 fails\n", "  natural 1 fails\n  never better than 3+\n"]))
    mods = draw(st.lists(st.sampled_from(MODIFIERS), max_size=3, unique=True))
    for i, m in enumerate(mods):
        text += f'\nmodifier mod{i} "Modifier {i}": {m}\n'
    if draw(st.integers(0, 4)) == 0:  # two penalties in one group: only the larger counts
        text += '\nmodifier pen1 "Penalty": -1 to hit when cover\n  group pen\n'
        text += '\nmodifier pen2 "Heavy penalty": -2 to hit\n  group pen\n'
        mods.append("group")
    attacker = draw(st.lists(st.sampled_from(sorted(ABILITIES)), max_size=3, unique=True))
    defence = draw(st.lists(st.sampled_from(sorted(DEFENCES)), max_size=2, unique=True))
    if not known and "cleave" in attacker:
        attacker.remove("cleave")
    if chained and (any(m in WOUND_MODIFIERS for m in mods) or "precise" in attacker):
        marks.add("case4")
    if "cleave" in attacker:
        marks.add("case2")
    spill = draw(st.sampled_from(["", " spill over"]))
    # each hit becoming several (Blast), capped at the target's models or not, maybe only for a weapon that has it
    blast = draw(st.sampled_from(["", "", "if", "plain", "capped"]))
    if blast == "if" and "cleave" in attacker:  # W411 cannot see extra attacks through the if (either word)
        blast = "plain"
    # ``1 extra wounds`` joins a later step; with Blast, ``1 extra blasted`` is one more there
    # (not in the if form: where the weapon has no Blast, the step is hits itself, W411)
    joins = "blasted" if blast in ("plain", "capped") and draw(st.booleans()) else "wounds"
    for a in attacker:
        text += "\n" + ABILITIES[a].replace("{spill}", spill).replace("{joins}", joins)
        if a in WITH_VALUE and draw(st.integers(0, 3)) == 0:  # carried twice, the values add up
            text += "  stacking sum\n"
    for a in defence:
        text += "\n" + DEFENCES[a]

    def uses(names: list[str]) -> str:
        out = []
        for n in names:
            if n in WITH_VALUE:
                out.append(f"{n}({draw(st.integers(*WITH_VALUE[n]))})")
            else:
                out.append(n)
        return ", ".join(out)

    # a model's wounds: the stat HP, or an ability's value (Tough(X)), with or without a default
    hardy = draw(st.integers(0, 3)) == 0
    hardy_default = draw(st.sampled_from([None, 1, 2])) if hardy else None
    if hardy:
        text = text.replace('1..4 role wounds: "w"', '1..4: "w"')
        text += ('\nability hardy(X: 1..4) "Hardy": "h"\n  role wounds'
                 + (f", {hardy_default} without it" if hardy_default else "") + "\n")
    if blast:
        text += '\nability blast(N: 1..3) "Blast": "b"\n'

    def hardy_use() -> list[str]:
        # without a default, every profile that can be attacked carries it (else eval refuses, as it says)
        return [f"hardy({draw(st.integers(1, 3))})"] if hardy and (hardy_default is None or draw(st.booleans())) else []

    on_unit = [a for a in attacker if draw(st.booleans())]
    # sometimes an ability with a value on both profiles: the higher counts, or the sum (stacking sum)
    on_weapon = [a for a in attacker if a not in on_unit or (a in WITH_VALUE and draw(st.integers(0, 3)) == 0)]
    text += ('\nunit alpha "Alpha":\n'
             f'  Q {draw(st.integers(2, 5))}  T {draw(st.integers(2, 6))}  Def {draw(st.integers(2, 6))}+  HP 1\n')
    alpha_uses = [x for x in [uses(on_unit)] + hardy_use() if x]
    if alpha_uses:
        text += f"  abilities {', '.join(alpha_uses)}\n"
    text += ('\nunit beta "Beta":\n'
             f'  Q 4  T {draw(st.integers(1, 8))}  Def {draw(st.integers(2, 6))}+  HP {draw(st.integers(1, 3))}\n')
    if draw(st.booleans()):
        text += "  keywords infantry\n"
    beta_uses = [x for x in [uses(defence)] + hardy_use() if x]
    if beta_uses:
        text += f"  abilities {', '.join(beta_uses)}\n"
    weapon_a = draw(st.sampled_from(["1", "2", "D3"]))
    text += ('\nweapon gun "Gun":\n'
             f'  A {weapon_a}  S {draw(st.integers(1, 8))}  AP {draw(st.integers(0, 2))}  '
             f'D {draw(st.sampled_from(["1", "2", "D3"]))}\n')
    weapon_uses = [uses(on_weapon)] if on_weapon else []
    if blast == "if" and draw(st.booleans()):
        weapon_uses.append(f"blast({draw(st.integers(1, 3))})")
    if weapon_uses:
        text += f"  abilities {', '.join(weapon_uses)}\n"
    # the attack sequence
    steps = [draw(st.sampled_from(["attacks = shooter.models * weapon.A", "attacks = shooter.models each weapon.A"]))]
    steps.append("hits = attacks each hit(shooter.Q)")
    last_step = "hits"
    if blast == "if":  # a branch that names an earlier step passes its attacks on as they are
        steps.append("blasted = if weapon has blast then hits each becomes weapon.blast capped at target.models"
                     " else hits")
    elif blast:
        steps.append("blasted = hits each becomes 2" + (" capped at target.models" if blast == "capped" else ""))
    if blast:
        last_step = "blasted"
    capped = draw(st.integers(0, 5)) == 0 and not attacker
    if capped:  # a cap over totals starts fresh attacks: no hooks may reach across it (W411)
        steps.append(f"capped = min({last_step}, target.models)")
        last_step = "capped"
    steps.append(f"wounds = {last_step} each wound(weapon.S, target.T)")
    steps.append("unsaved = wounds each not save(target.Def, weapon.AP)")
    # a cap over the points starts fresh attacks: no hooks may reach across it either (W411)
    last = draw(st.sampled_from(["amount", "removes", "removes1", "both", "summed"] + ([] if attacker else ["points"])))
    if last in ("amount", "both", "summed", "points"):
        steps.append("damage = unsaved each weapon.D")
    if last == "summed":  # the points summed, then taken off one by one: each met the damage hooks once
        steps.append("killed = damage removes target, damage 1")
    if last == "points":
        steps += ["most = min(damage, 4)", "points = most each 1"]
    if last in ("removes", "both"):
        steps.append("killed = unsaved removes target, damage weapon.D")
    if last == "removes1":
        steps.append("killed = unsaved removes target")
    text += '\nattack volley(shooter, weapon, target) "Volley":\n' + "".join(f"  {s}\n" for s in steps)
    names = [s.split(" = ")[0] for s in steps]
    # mostly the last steps, where every earlier rule has had its say
    asked = draw(st.sampled_from(names[1:])) if draw(st.integers(0, 3)) == 0 else names[-1]
    shooters, targets = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    if draw(st.integers(0, 3)) == 0 and "killed" in names:
        # a number of models worked out from an earlier result: what is left of the target fires back
        first = f"volley({targets} beta, gun, {shooters} alpha).killed"
        call = f"volley(({shooters} - {first}) alpha, gun, {targets} beta)"
    else:
        call = f"volley({shooters} alpha, gun, {targets} beta)"
    question = f"{call}.{asked}" + (" with cover" if draw(st.booleans()) else "")
    return Program(text, question, frozenset(marks))


# ---------------------------------------------------------------------------
# The chi-square test, with the regularised upper incomplete gamma function
# ---------------------------------------------------------------------------


def _gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): a series below a + 1, a continued fraction above (Numerical Recipes)."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - gln))
    b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def chi_square_p(law: dict[Any, Fraction], observed: Counter[Any]) -> float:
    """The chance of a chi-square statistic at least this large if the samples follow ``law``.

    Values expected fewer than five times are pooled, smallest first, until each bin expects
    five (or one bin is left): the statistic's chi-square law needs it.
    """
    n = sum(observed.values())
    items = sorted(law.items(), key=lambda kv: kv[1])
    bins: list[tuple[float, int]] = []
    exp_acc, obs_acc = 0.0, 0
    for value, p in items:
        exp_acc += float(p) * n
        obs_acc += observed.get(value, 0)
        if exp_acc >= 5:
            bins.append((exp_acc, obs_acc))
            exp_acc, obs_acc = 0.0, 0
    if exp_acc > 0 or obs_acc:
        if bins:
            e, o = bins.pop()
            bins.append((e + exp_acc, o + obs_acc))
        else:
            bins.append((exp_acc, obs_acc))
    if len(bins) < 2:
        return 1.0
    stat = sum((o - e) ** 2 / e for e, o in bins)
    return _gamma_q((len(bins) - 1) / 2, stat / 2)


def two_sample_p(a: Counter[Any], b: Counter[Any]) -> float:
    """The chance of a chi-square statistic at least this large if both samples come from one law
    (a test of homogeneity): values seen fewer than ten times in all are pooled, rarest first."""
    na, nb = sum(a.values()), sum(b.values())
    n = na + nb
    bins: list[tuple[int, int]] = []
    acc_a = acc_b = 0
    for value in sorted(set(a) | set(b), key=lambda v: a.get(v, 0) + b.get(v, 0)):
        acc_a, acc_b = acc_a + a.get(value, 0), acc_b + b.get(value, 0)
        if min(na, nb) * (acc_a + acc_b) / n >= 5:
            bins.append((acc_a, acc_b))
            acc_a = acc_b = 0
    if acc_a or acc_b:
        if bins:
            ra, rb = bins.pop()
            bins.append((ra + acc_a, rb + acc_b))
        else:
            bins.append((acc_a, acc_b))
    if len(bins) < 2:
        return 1.0
    stat = 0.0
    for oa, ob in bins:
        total = oa + ob
        ea, eb = na * total / n, nb * total / n
        stat += (oa - ea) ** 2 / ea + (ob - eb) ** 2 / eb
    return _gamma_q((len(bins) - 1) / 2, stat / 2)


# ---------------------------------------------------------------------------
# One program judged
# ---------------------------------------------------------------------------


def strict_clean(text: str) -> tuple[Any, list[str]]:
    """The compiled model when ``check --strict`` passes (no error, no warning), else the diagnostics."""
    result = compile_text(text, "gen.rules")
    bad = [f"{d.code} {d.span.line}:{d.span.column} {d.message}" for d in result.diagnostics
           if d.is_error or d.severity is Severity.WARNING]
    return (result.rulesets[0] if result.ok and not bad else None), bad


def plays(items: tuple[Any, ...], question: Any, samples: int, seed: int, batch: bool = True) -> Counter[Any]:
    """The values of ``samples`` plays of the question by the plain interpreter (the syntax tree,
    nothing else), all at once (``batch``) or one at a time."""
    if batch:
        values, counts = np.unique(BatchInterpreter(items, np.random.default_rng(seed)).sample_many(question, samples),
                                   return_counts=True)
        return Counter(dict(zip(values.tolist(), counts.tolist())))
    plain = PlainInterpreter(items, random.Random(seed))
    return Counter(plain.sample(question) for _ in range(samples))


def judge(program: Program, samples: int, alpha: float, seed: int = 0, batch: bool = True) -> Verdict:
    model, bad = strict_clean(program.text)
    if model is None:
        return Verdict("refused", "; ".join(bad))
    try:
        ev = Evaluator(model, True)
        dist = ev.evaluate(parse_expression(program.question))
        law = {k: Fraction(v) for k, v in ev.to_backend(dist).probabilities().items()} if hasattr(
            dist, "probabilities") else {dist: Fraction(1)}
    except ResolveError as err:
        return Verdict("unresolved", str(err))
    question = parse_expression(program.question)
    observed = plays(model.items, question, samples, seed, batch)
    for v in observed:
        if law.get(v, 0) == 0:
            return Verdict("disagree", f"the plain interpreter gave {v}, which the exact law gives no chance",
                           law, observed)
    p = chi_square_p(law, observed)
    if p < alpha:
        return Verdict("disagree", f"chi-square p = {p:.3g} < {alpha:.3g}", law, observed)
    return Verdict("agree", f"p = {p:.3g}", law, observed)
