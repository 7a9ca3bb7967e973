"""The rules language written back as text: expressions and the parts of declarations.

Used where a person reads a piece of a rule outside its file — the semantic
diff (:mod:`compiler.review.diff`) shows the old and the new form of a changed
clause this way.  The output is the canonical spelling of the language
(``roll d6 against to_hit(BS)``, ``-2 BS of shooter``, ``(T + 4 - S)+``), so
two pieces of rules that differ only in layout or comments read the same.

>>> from compiler.resolve.evaluator import parse_expression
>>> expr_text(parse_expression("shooting(5 space_marine, boltgun, 10 ork_boy) with cover = soft"))
'shooting(5 space_marine, boltgun, 10 ork_boy) with cover = soft'
>>> expr_text(parse_expression("(T+4)-S"))
'T + 4 - S'
>>> expr_text(parse_expression("2 * (a + b)"))
'2 * (a + b)'
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.diagnostics import Span

# Precedence of each form, lowest first (the grammar's order, grammar/warscribe.lark §14).
_WITH, _CHAIN, _TARGET, _IF, _OR, _AND, _NOT, _CMP, _EACH, _SUM, _PRODUCT, _NEG, _POSTFIX, _ATOM = range(14)
_COMPARISONS = {"==", "!=", ">=", "<=", ">", "<"}


def expr_text(e: A.Expr | A.RangeExpr | None) -> str:
    """An expression in the language's own spelling (``""`` for None)."""
    if e is None:
        return ""
    return _text(e, _WITH)


def _text(e: Any, need: int) -> str:
    s, prec = _form(e)
    return f"({s})" if prec < need else s


def _number(v: Any) -> str:
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return str(v.numerator)
        return f"{float(v):g}" if len(f"{float(v):g}") < 8 else f"{v.numerator}/{v.denominator}"
    return str(v)


def _form(e: Any) -> tuple[str, int]:
    if isinstance(e, A.Int):
        return str(e.value), (_ATOM if e.value >= 0 else _NEG)
    if isinstance(e, A.Decimal):
        return e.text, _ATOM
    if isinstance(e, A.Dice):
        return (f"{e.count}" if e.count != 1 else "") + e.name, _ATOM
    if isinstance(e, A.Inches):
        return f'{_number(e.value)}"', _ATOM
    if isinstance(e, A.Label):
        return '"' + e.text.replace("\\", "\\\\").replace('"', '\\"') + '"', _ATOM
    if isinstance(e, A.Name):
        return e.id, _ATOM
    if isinstance(e, A.Group):
        if e.computed is not None:
            return f"({_text(e.computed, _CHAIN)}) {e.profile}", _ATOM
        return f"{e.count} {e.profile}", _ATOM
    if isinstance(e, A.Const):
        return e.value, _ATOM
    if isinstance(e, A.Unary):
        if e.op == "not":
            return f"not {_text(e.operand, _NOT)}", _NOT
        return f"-{_text(e.operand, _NEG)}", _NEG
    if isinstance(e, A.Binary):
        if e.op in ("or", "and"):
            p = _OR if e.op == "or" else _AND
            return f"{_text(e.left, p)} {e.op} {_text(e.right, p + 1)}", p
        if e.op in _COMPARISONS:
            return f"{_text(e.left, _EACH)} {e.op} {_text(e.right, _EACH)}", _CMP
        p = _SUM if e.op in ("+", "-") else _PRODUCT
        if e.op == "/" and isinstance(e.left, A.Int) and isinstance(e.right, A.Int) and e.left.value >= 0:
            return f"{e.left.value}/{e.right.value}", p  # a fraction, as authors write it: 25/18
        return f"{_text(e.left, p)} {e.op} {_text(e.right, p + 1)}", p
    if isinstance(e, A.RangeExpr):
        return f"{_text(e.low, _SUM)}..{_text(e.high, _SUM)}", _CMP
    if isinstance(e, A.InRange):
        return f"{_text(e.operand, _EACH)} in {_form(e.range)[0]}", _CMP
    if isinstance(e, A.IsChoice):
        return f"{_text(e.operand, _EACH)} is {e.choice}", _CMP
    if isinstance(e, A.IsNone):
        return f"{_text(e.operand, _EACH)} is none", _CMP
    if isinstance(e, A.Has):
        return f"{_text(e.operand, _EACH)} has {e.keyword}", _CMP
    if isinstance(e, A.Each):
        word = "each not" if e.negate else "each becomes" if e.becomes else "each"
        cap = f" capped at {_text(e.cap, _SUM)}" if e.cap is not None else ""
        return f"{_text(e.count, _SUM)} {word} {_text(e.item, _SUM)}{cap}", _EACH
    if isinstance(e, A.Target):
        value = e.value
        bare = isinstance(value, (A.Int, A.Name, A.Attr)) and not (isinstance(value, A.Int) and value.value < 0)
        inner = _form(value)[0] if bare else f"({_form(value)[0]})"
        return f"{inner}{'+' if e.direction == 'high' else '-'}", _TARGET
    if isinstance(e, A.Chain):
        return f"{_text(e.first, _TARGET)} then {_text(e.then, _CHAIN)}", _CHAIN
    if isinstance(e, A.IfElse):
        return (f"if {_text(e.cond, _OR)} then {_text(e.then, _CHAIN)} else {_text(e.otherwise, _TARGET)}",
                _IF)
    if isinstance(e, A.Attr):
        return f"{_text(e.obj, _POSTFIX)}.{e.name}", _POSTFIX
    if isinstance(e, A.Call):
        args = [_text(a, _CHAIN) for a in e.args] + [f"{k} = {_text(v, _CHAIN)}" for k, v in e.kwargs]
        return f"{e.func}({', '.join(args)})", _POSTFIX
    if isinstance(e, A.With):
        return f"{_text(e.expr, _CHAIN)} with {', '.join(setting_text(s) for s in e.settings)}", _WITH
    return canonical_text(e), _ATOM


def setting_text(s: A.Setting) -> str:
    """``cover = soft``, ``charged`` or ``not charged``."""
    if s.value is None:
        return f"not {s.name}" if s.negated else s.name
    return f"{s.name} = {_text(s.value, _SUM)}"


# ---------------------------------------------------------------------------
# Parts of declarations
# ---------------------------------------------------------------------------


def param_text(p: A.Param) -> str:
    if p.type is None:
        return p.name
    t = expr_text(p.type) if isinstance(p.type, A.RangeExpr) else p.type
    return f"{p.name}: {t}"


def params_text(params: tuple[A.Param, ...]) -> str:
    """``(S, T)``; ``(roll: 1..6)``."""
    return "(" + ", ".join(param_text(p) for p in params) + ")"


def let_text(let: A.Let) -> str:
    return f"let {let.name} = {expr_text(let.value)}"


def roll_text(r: A.Roll) -> str:
    """A test's roll: ``roll d6 against to_hit(BS)``, ``roll 2d6 <= Ld``."""
    op = "against" if r.op == "against" else r.op
    return f"roll {expr_text(r.dice)} {op} {expr_text(r.target)}"


def reroll_text(kind: str) -> str:
    """``1s``, ``failures`` or ``natural 1 or 2`` (as written after ``reroll``)."""
    if kind.startswith("natural:"):
        return "natural " + " or ".join(kind.split(":", 1)[1].split(","))
    return kind


def effect_text(e: A.Effect) -> str:
    """``-1 to hit``, ``-2 BS of shooter``, ``hit needs 5+``, ``reroll 1s to hit``."""
    if e.kind == "roll":
        return f"{_signed(e.value)} to {e.test}"
    if e.kind == "stat":
        return f"{_signed(e.value)} {e.stat}" + (f" of {e.role}" if e.role else "")
    if e.kind == "needs":
        return f"{e.test} needs {expr_text(e.value)}"
    if e.kind == "reroll":
        return f"reroll {reroll_text(e.reroll or '')} to {e.test}"
    if e.kind in ("never_better", "never_worse"):
        return f"{e.test} never {e.kind.split('_')[1]} than {expr_text(e.value)}"
    if e.kind == "ignore_modifiers":
        return f"ignore modifiers to {e.test}"
    if e.kind in ("better", "worse"):
        return f"{e.stat}" + (f" of {e.role}" if e.role else "") + f" {e.kind} by {_text(e.value, _POSTFIX)}"
    return canonical_text(e)


def _signed(v: A.Expr | None) -> str:
    if isinstance(v, A.Int):
        return f"{v.value:+d}"
    if isinstance(v, A.Unary) and v.op == "-":
        return "-" + _text(v.operand, _POSTFIX)
    return "+" + _text(v, _POSTFIX) if v is not None else "+0"


def hook_text(h: A.Hook) -> str:
    """``on natural 6 to hit: 1 extra hits``; ``on each damage: ignored on 5+``."""
    if h.test is None:
        die = f"roll {expr_text(h.damage_die)}, " if h.damage_die is not None else ""
        return f"on each damage: {die}ignored on {expr_text(h.ignore_damage_on)}"
    crit = f"{h.natural if h.natural_param is None else h.natural_param}{'+' if h.natural_from else ''}"
    effects = []
    for eff in h.effects:
        if eff.kind == "extra":
            amount = _text(eff.amount, _SUM)
            amount = amount if isinstance(eff.amount, (A.Int, A.Name, A.Dice)) else f"({amount})"
            effects.append(f"{amount} extra" + (f" {eff.word}" if eff.word else ""))
        elif eff.kind == "pass":
            effects.append(f"{eff.test} automatically")
        elif eff.kind == "modify" and eff.effect is not None:
            effects.append(effect_text(eff.effect))
        elif eff.kind == "mortal":
            effects.append("mortal wounds" + (" spill over" if eff.spill else ""))
        elif eff.kind == "succeed":
            effects.append("succeeds")
        else:
            effects.append(f"no {eff.test}")
    return f"on natural {crit} to {h.test}: {', '.join(effects)}"


def step_text(s: A.Step) -> str:
    """``hits = attacks each hit(shooter.BS)``; ``killed = unsaved removes target, damage weapon.D``."""
    if s.removes_from is not None:
        dmg = f", damage {expr_text(s.damage)}" if s.damage is not None else ""
        return f"{s.name} = {s.removes_from} removes {expr_text(s.removes_target)}{dmg}"
    return f"{s.name} = {expr_text(s.value)}"


def case_row_text(r: A.CaseRow) -> str:
    pattern = "otherwise" if r.pattern is None else expr_text(r.pattern)
    return f"{pattern} -> {expr_text(r.result)}"


def grid_lines(g: A.Grid) -> list[str]:
    """The grid as written: a header line of column keys, then one line per row."""
    lines = [f"grid {g.row_param} by {g.col_param}:", f"{g.col_param}: " + " ".join(str(c) for c in g.columns)]
    for key, cells in g.rows:
        lines.append(f"{key}: " + " ".join(expr_text(c) for c in cells))
    return lines


def expect_text(e: A.Expect) -> str:
    tol = f" ± {expr_text(e.tolerance)}" if e.tolerance is not None else ""
    return f"expect {expr_text(e.subject)} {e.op} {expr_text(e.expected)}{tol}"


def ability_use_text(u: A.AbilityUse) -> str:
    return u.ability + (f"({u.arg})" if u.arg is not None else "")


def requirement_text(r: A.Requirement) -> str:
    return f"require {'each unit: ' if r.each else ''}{expr_text(r.expr)}" + (f': "{r.message}"' if r.message else "")


def binding_text(b: A.Binding) -> str:
    return f"{b.name} in {expr_text(b.range)}"


def history_text(h: A.HistoryEntry) -> str:
    return f"{h.version}" + (f" {h.date}" if h.date else "") + f": {h.text}"


def phase_text(p: A.Phase) -> str:
    return f'phase {p.id} "{p.title}"' + (f": {p.text}" if p.text else "")


def phase_step_text(s: A.PhaseStep) -> str:
    return f'step {s.id} "{s.title}"' + (f": {s.text}" if s.text else "")


def score_text(s: A.Score) -> str:
    head = f'score {s.id} "{s.title}": {expr_text(s.value)}'
    if s.surviving:
        return head + " per surviving model"
    if s.corners is not None:
        return head + f' for units within {s.corners:g}" of every corner at end of {"own " if s.own else ""}{s.held_at}'
    if s.held_at is not None:
        return head + f" for each objective held at end of {'own ' if s.own else ''}{s.held_at}"
    if s.warlord:
        return head + " for each enemy warlord destroyed"
    if s.destroyed:
        return head + " for each enemy unit destroyed"
    return head + (f" per {s.per}" if s.per else "")


def victory_text(v: A.Victory) -> str:
    by = f" by {v.kind}" + (f" {v.target}" if v.target is not None else "") if v.kind else ""
    return f'victory {v.id} "{v.title}"{by}' + (f": {v.text}" if v.text else "")


# ---------------------------------------------------------------------------
# Anything else: a stable text without source positions
# ---------------------------------------------------------------------------

_POSITION_FIELDS = {"span", "line0", "col0", "indent"}


def is_position_field(name: str) -> bool:
    """Fields that say where something was written, not what it says."""
    return name in _POSITION_FIELDS or name.endswith("_span") or name.endswith("_spans")


def canonical(value: Any) -> Any:
    """``value`` with every source position removed: equal for two pieces of rules that say the same.

    >>> from compiler.resolve.evaluator import parse_expression
    >>> canonical(parse_expression("a + 1")) == canonical(parse_expression("a+1"))
    True
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if isinstance(value, Span):
            return None
        return (type(value).__name__,) + tuple(
            (f.name, canonical(getattr(value, f.name))) for f in dataclasses.fields(value)
            if not is_position_field(f.name))
    if isinstance(value, tuple):
        items = tuple(canonical(v) for v in value)
        # (name, Span) pairs, as in keyword and "see" lists, reduce to the name.
        return tuple(i[0] if isinstance(i, tuple) and len(i) == 2 and i[1] is None else i for i in items)
    return value


def canonical_text(value: Any) -> str:
    """A readable, position-free text of any piece of the AST (the fallback of the renderers)."""
    c = canonical(value)

    def show(v: Any) -> str:
        if isinstance(v, tuple) and v and isinstance(v[0], str) and all(
                isinstance(x, tuple) and len(x) == 2 for x in v[1:]):
            return f"{v[0]}(" + ", ".join(f"{k}={show(x)}" for k, x in v[1:] if x not in (None, (), False)) + ")"
        if isinstance(v, tuple):
            return "(" + ", ".join(show(x) for x in v) + ")"
        return repr(v) if isinstance(v, str) else str(v)
    return show(c)
