"""The grammar and the tree → AST pass, construct by construct."""
from __future__ import annotations

from fractions import Fraction

import pytest
from lark import Lark

from compiler import ast as A
from compiler.ast.build import build_expression, build_file, prose_text
from compiler.syntax.parse import SYNTAX_ERRORS, grammar_text, parse_text, parser


def build(text: str) -> A.File:
    tree, diags = parse_text(text, "t.rules")
    assert diags == (), [d.message for d in diags]
    file, diags = build_file(tree, "t.rules")
    assert diags == (), [d.message for d in diags]
    return file


def one(text: str) -> A.Decl:
    items = build(text).items
    assert len(items) == 1
    return items[0]


def expr(text: str) -> A.Expr:
    tree, diags = parse_text(text, "e", start="eval_input")
    assert diags == (), [d.message for d in diags]
    e, diags = build_expression(tree, "e")
    assert diags == ()
    return e


def test_grammar_has_no_conflicts_in_strict_mode() -> None:
    # strict=True turns shift/reduce conflicts and colliding terminals into errors.
    parser.cache_clear()
    try:
        assert isinstance(parser(strict=True), Lark)
    finally:
        parser.cache_clear()


def test_grammar_is_commented_by_section() -> None:
    text = grammar_text()
    for title in ("Ruleset header", "Lexicon", "Dice", "Tests", "Tables", "Modifiers",
                  "Attack sequences", "Profiles", "Army construction", "Game structure",
                  "Examples and properties", "Expressions", "Terminals"):
        assert title in text


def test_header_and_history() -> None:
    f = build('ruleset my-rules "My Rules":\n  version 1.2.0\n  authors "A", "B"\n'
              '  source "Src"\n  licence "CC0"\n  extends base-40k ^1.0.0\n'
              '  history:\n    1.2.0 2026-01-02: "Cheaper boyz."\n    1.0.0: "First."\n')
    h = f.header
    assert h is not None
    assert (h.id, h.title, h.version, h.authors) == ("my-rules", "My Rules", "1.2.0", ("A", "B"))
    assert (h.extends, h.extends_version) == ("base-40k", "^1.0.0")
    assert [(e.version, e.date, e.text) for e in h.history] == [("1.2.0", "2026-01-02", "Cheaper boyz."),
                                                                 ("1.0.0", None, "First.")]


def test_ruleset_id_may_start_with_a_digit() -> None:
    f = build('ruleset 40k-s "40K-S":\n  version 1.0.0\n')
    assert f.header is not None and f.header.id == "40k-s"


def test_sections_nest_and_prose_is_dedented() -> None:
    s = one('section a "A":\n  """\n  First line.\n\n  - item\n  """\n  section b "B":\n'
            '    rule r "R": "Short."\n')
    assert isinstance(s, A.Section) and s.title == "A"
    prose, inner = s.body
    assert isinstance(prose, A.ProseBlock) and prose.text == "First line.\n\n- item"
    assert isinstance(inner, A.Section)
    rule = inner.body[0]
    assert isinstance(rule, A.Rule) and rule.body[0].text == "Short."  # type: ignore[attr-defined]


def test_prose_text_keeps_markdown_indentation() -> None:
    assert prose_text('"""\n    a\n      b\n    """') == "a\n  b"


@pytest.mark.parametrize("kind", ["assumption", "open question", "designer note"])
def test_notes(kind: str) -> None:
    n = one(f'{kind} n1 "Title":\n  """Why."""\n  pinned by ex1, ex2\n')
    assert isinstance(n, A.Note)
    assert (n.kind, n.id, n.title, n.prose[0].text) == (kind, "n1", "Title", "Why.")
    assert [p for p, _ in n.pinned_by] == ["ex1", "ex2"]


def test_stat_types() -> None:
    f = build('stat BS "Ballistic Skill" 1..10: "Aim."\nstat Sv "Save" target\n'
              'stat M "Move" distance\nstat D "Damage" dice\nstat X "X" number\n')
    bs, sv, m, d, x = f.items
    assert isinstance(bs.type, A.RangeExpr) and bs.short == "Aim."  # type: ignore[attr-defined]
    assert [sv.type, m.type, d.type, x.type] == ["target", "distance", "dice", "number"]  # type: ignore[attr-defined]


def test_lexicon_entries_with_long_text_and_aka() -> None:
    e = one('status pinned "Pinned": "Stuck."\n  """Long text."""\n  aka "Pinning"\n  see other\n')
    assert isinstance(e, A.Entry)
    assert (e.kind, e.short, e.prose[0].text, e.aka, e.see[0][0]) == ("status", "Stuck.", "Long text.",
                                                                       ("Pinning",), "other")


def test_situations() -> None:
    f = build('situation charged "Charged"\nsituation cover "Cover" one of open, soft, hard\n'
              'situation s_points "S-points" 0..6\n')
    a, b, c = f.items
    assert [x.kind for x in (a, b, c)] == ["flag", "choice", "number"]  # type: ignore[attr-defined]
    assert b.choices == ("open", "soft", "hard")  # type: ignore[attr-defined]


def test_custom_die() -> None:
    d = one('die D3 "D3 (subtract 3)" = d6 as 1, 2, 3, 1, 2, 3\n')
    assert isinstance(d, A.Die)
    assert (d.id, d.base_sides, d.faces) == ("D3", 6, (1, 2, 3, 1, 2, 3))


def test_test_block_and_line_forms() -> None:
    f = build('test hit(BS) "To hit":\n  roll d6 against to_hit(BS)\n  natural 1 fails\n  reroll 1s\n'
              'test save(Sv, AP) = roll d6 >= Sv + AP, natural 1 fails, never better than 2+\n'
              'test ld(Ld) = roll 2d6 <= Ld, natural 6 or 5 fails, reroll natural 1 or 2\n')
    hit, save, ld = f.items
    assert isinstance(hit, A.Test) and hit.roll is not None and hit.roll.op == "against"
    assert hit.natural_fails == (1,) and hit.rerolls == ("1s",)
    assert isinstance(save, A.Test) and save.roll.op == ">="  # type: ignore[union-attr]
    assert isinstance(save.never_better, A.Target)
    assert ld.natural_fails == (6, 5) and ld.rerolls == ("natural:1,2",)  # type: ignore[attr-defined]
    assert isinstance(ld.roll.dice, A.Dice) and ld.roll.dice.count == 2  # type: ignore[union-attr]


def test_case_table_rows() -> None:
    t = one('table to_wound(S, T) "Wound chart":\n  T - S <= -2 -> 2+\n  T - S in 2..3 -> 6+\n'
            '  otherwise -> never\n')
    assert isinstance(t, A.Table) and len(t.rows) == 3
    assert isinstance(t.rows[0].pattern, A.Binary) and isinstance(t.rows[0].result, A.Target)
    assert isinstance(t.rows[1].pattern, A.InRange)
    assert t.rows[2].pattern is None and t.rows[2].result == A.Const(t.rows[2].result.span, "never")


def test_keyed_table_and_targets() -> None:
    t = one('table to_hit(BS) "To hit":\n  1 -> 6+\n  2..3 -> 4+\n  4 -> 3-\n  5 -> 6 then 4+\n')
    keys = [r.pattern for r in t.rows]  # type: ignore[attr-defined]
    assert isinstance(keys[0], A.Int) and isinstance(keys[1], A.RangeExpr)
    assert t.rows[2].result.direction == "low"  # type: ignore[attr-defined]
    assert isinstance(t.rows[3].result, A.Chain)  # type: ignore[attr-defined]


def test_grid_table() -> None:
    t = one('table w(S, T) "W":\n  grid S by T:\n    T: 1 2 3\n    1: 4+ 5+ -\n    2: 3- never always\n')
    assert isinstance(t, A.Table) and t.grid is not None
    g = t.grid
    assert (g.row_param, g.col_param, g.columns) == ("S", "T", (1, 2, 3))
    (k1, row1), (k2, row2) = g.rows
    assert k1 == 1 and row1[0].direction == "high" and row1[2].value == "never"  # type: ignore[attr-defined]
    assert row2[0].direction == "low" and row2[2].value == "always"  # type: ignore[attr-defined]


def test_formula_forms() -> None:
    f = build('formula need(S, T) "Need" = (T + 4) - S\n'
              'formula scatter(BS):\n  let a = d6\n  let b = d6\n  result if a == b then 0 else max(0, a + b - BS)\n')
    one_line, block = f.items
    assert isinstance(one_line, A.Formula) and isinstance(one_line.result, A.Binary)
    assert [l.name for l in block.lets] == ["a", "b"]  # type: ignore[attr-defined]
    assert isinstance(block.result, A.IfElse)  # type: ignore[attr-defined]


def test_modifier_forms() -> None:
    f = build('modifier soft "Soft": -1 to hit when cover is soft\n'
              'modifier hard "Hard":\n  -2 BS of shooter\n  +1 T\n  when cover is hard\n  group cover\n'
              'modifier far "Far": hit needs 5+\nmodifier ff "FF": reroll 1s to hit\n'
              'modifier sup "Sup": -s_points to hit\n')
    soft, hard, far, ff, sup = f.items
    assert soft.effects[0].kind == "roll" and soft.effects[0].value.value == -1  # type: ignore[attr-defined]
    assert isinstance(soft.when, A.IsChoice)  # type: ignore[attr-defined]
    e1, e2 = hard.effects  # type: ignore[attr-defined]
    assert (e1.kind, e1.stat, e1.role, e1.value.value) == ("stat", "BS", "shooter", -2)
    assert (e2.stat, e2.role, e2.value.value) == ("T", None, 1)
    assert hard.group == "cover"  # type: ignore[attr-defined]
    assert far.effects[0].kind == "needs" and far.effects[0].test == "hit"  # type: ignore[attr-defined]
    assert ff.effects[0].reroll == "1s"  # type: ignore[attr-defined]
    assert isinstance(sup.effects[0].value, A.Unary)  # type: ignore[attr-defined]


def test_ability_hooks() -> None:
    f = build('ability sustained_hits(N: 1..3) "Sustained Hits": "Extra hits."\n'
              '  on natural 6 to hit: N extra hits\n  stacking highest\n'
              'ability lethal "Lethal":\n  on natural 5+ to hit: wound automatically\n'
              'ability dev "Dev":\n  on natural 6 to wound: no save\n'
              'ability fnp(X: 2..6) "FNP":\n  on each damage: roll d6, ignored on X+\n')
    sus, lethal, dev, fnp = f.items
    h = sus.hooks[0]  # type: ignore[attr-defined]
    assert (h.test, h.natural, h.natural_from, h.effects[0].kind, h.effects[0].word) == ("hit", 6, False, "extra", "hits")
    assert sus.stacking == "highest" and sus.params[0].name == "N"  # type: ignore[attr-defined]
    h = lethal.hooks[0]  # type: ignore[attr-defined]
    assert h.natural_from and h.effects[0].kind == "pass" and h.effects[0].test == "wound"
    assert dev.hooks[0].effects[0].kind == "fail"  # type: ignore[attr-defined]
    assert isinstance(fnp.hooks[0].ignore_damage_on, A.Target)  # type: ignore[attr-defined]


def test_attack_sequence() -> None:
    a = one('attack shooting(shooter, weapon, target) "Shooting":\n'
            '  attacks = shooter.models * weapon.A\n  hits = attacks each hit(shooter.BS)\n'
            '  unsaved = hits each not save(target.Sv, weapon.AP)\n'
            '  killed = unsaved removes target, damage weapon.D\n')
    assert isinstance(a, A.Attack)
    assert [s.name for s in a.steps] == ["attacks", "hits", "unsaved", "killed"]
    assert isinstance(a.steps[1].value, A.Each) and not a.steps[1].value.negate
    assert a.steps[2].value.negate  # type: ignore[union-attr]
    last = a.steps[3]
    assert last.removes_from == "unsaved" and isinstance(last.damage, A.Attr)


def test_profiles_and_squads() -> None:
    f = build('unit m "Marine":\n  WS 4  BS 4  Sv 3+  Inv -  M 6"  Z 3-  AP -1\n  keywords infantry\n'
              '  abilities sustained_hits(1), lethal\n  weapons bolter\n  points 14\n'
              'weapon heavy "Heavy":\n  A D6  D D3+1  Range 36"\n'
              'squad tac "Tactical":\n  models m 5..10\n  points 70 + 14 per extra model\n  special\n')
    m, heavy, tac = f.items
    kinds = {s.stat: (s.kind, s.text) for s in m.stats}  # type: ignore[attr-defined]
    assert kinds == {"WS": ("int", "4"), "BS": ("int", "4"), "Sv": ("high", "3+"), "Inv": ("none", "-"),
                     "M": ("inches", '6"'), "Z": ("low", "3-"), "AP": ("int", "-1")}
    assert m.abilities[0].arg == 1 and m.points == 14  # type: ignore[attr-defined]
    d = heavy.stat("D")  # type: ignore[attr-defined]
    assert d.kind == "dice" and d.dice.name == "D3" and d.dice_bonus == 1 and d.text == "D3+1"
    assert (tac.unit, tac.min_models, tac.max_models, tac.points, tac.points_per_extra, tac.special) == \
        ("m", 5, 10, 70, 14, True)  # type: ignore[attr-defined]


def test_army_and_game() -> None:
    f = build('army std "Army":\n  points 50 or 100\n  require squads >= 2: "Two squads."\n'
              'game g "Game":\n  turns 4\n  activation alternating_units\n'
              '  phase move "Move": "Up to 6 inches."\n  phase shoot "Shoot":\n    step pick "Pick": "One target."\n'
              '  score warlord "Warlord": 5\n  score obj "Objective": 2 per objective\n'
              '  victory ten "Ten": "First to ten."\n')
    army, game = f.items
    assert army.points == (50, 100) and army.requires[0].message == "Two squads."  # type: ignore[attr-defined]
    assert (game.turns, game.activation) == (4, "alternating_units")  # type: ignore[attr-defined]
    assert [p.id for p in game.phases] == ["move", "shoot"]  # type: ignore[attr-defined]
    assert game.phases[1].steps[0].title == "Pick"  # type: ignore[attr-defined]
    assert [s.per for s in game.scores] == [None, "objective"]  # type: ignore[attr-defined]


def test_examples_and_properties() -> None:
    f = build('example e "E":\n  let r = shoot(5 m, bolter, 10 ork) with cover = soft, charged, not engaged\n'
              '  expect mean(r.killed) = 25/18\n  expect P(r.killed >= 2) ~ 0.35 ± 0.01\n'
              '  expect to_wound(3, 6) == 6+\n'
              'property p "P":\n  for S in 1..9, T in 1..10\n  expect P(wound(S + 1, T)) >= P(wound(S, T))\n')
    ex, prop = f.items
    w = ex.lets[0].value  # type: ignore[attr-defined]
    assert isinstance(w, A.With)
    assert [(s.name, s.negated) for s in w.settings] == [("cover", False), ("charged", False), ("engaged", True)]
    assert isinstance(w.expr.args[0], A.Group) and w.expr.args[0].count == 5  # type: ignore[attr-defined]
    ops = [e.op for e in ex.expects]  # type: ignore[attr-defined]
    assert ops == ["=", "~", "="]
    assert ex.expects[1].tolerance is not None  # type: ignore[attr-defined]
    assert [b.name for b in prop.bindings] == ["S", "T"]  # type: ignore[attr-defined]
    assert prop.expects[0].op == ">="  # type: ignore[attr-defined]


def test_overlay_operations() -> None:
    f = build('replace rule cover "Cover": "New."\nremove cavalry\nextend shooting:\n'
              '  modifier light "Light": -1 BS when cover is light\n')
    rep, rem, ext = f.items
    assert isinstance(rep, A.Replace) and rep.id == "cover" and isinstance(rep.decl, A.Rule)
    assert isinstance(rem, A.Remove) and rem.id == "cavalry"
    assert isinstance(ext, A.Extend) and isinstance(ext.body[0], A.Modifier)


@pytest.mark.parametrize("text, check", [
    ("1 + 2 * 3", lambda e: isinstance(e, A.Binary) and e.op == "+" and e.right.op == "*"),
    ("(T + 4) - S", lambda e: e.op == "-" and e.left.op == "+"),
    ("need+", lambda e: isinstance(e, A.Target) and e.direction == "high"),
    ("BS - 1-", lambda e: isinstance(e, A.Target) and e.direction == "low" and e.value.op == "-"),
    ("6 then 4+", lambda e: isinstance(e, A.Chain) and isinstance(e.first, A.Int)),
    ("2D6", lambda e: isinstance(e, A.Dice) and (e.count, e.sides) == (2, 6)),
    ("D3 + 1", lambda e: e.left.name == "D3"),
    ("3 each d6 >= 5", lambda e: e.op == ">=" and isinstance(e.left, A.Each)),
    ("k each activation(I)", lambda e: isinstance(e, A.Each) and isinstance(e.item, A.Call)),
    ("a and not b or c", lambda e: e.op == "or" and e.left.op == "and"),
    ("if a then 1 else 2", lambda e: isinstance(e, A.IfElse)),
    ("x in 2..3", lambda e: isinstance(e, A.InRange)),
    ("Sv is none", lambda e: isinstance(e, A.IsNone)),
    ("cover is soft", lambda e: isinstance(e, A.IsChoice) and e.choice == "soft"),
    ('24"', lambda e: isinstance(e, A.Inches) and e.value == 24),
    ("0.25", lambda e: isinstance(e, A.Decimal) and e.value == Fraction(1, 4)),
    ("r.killed", lambda e: isinstance(e, A.Attr) and e.name == "killed"),
    ("f(a, b = 2)", lambda e: isinstance(e, A.Call) and e.kwargs[0][0] == "b"),
    ("shoot(5 m) with cover = soft", lambda e: isinstance(e, A.With)),
    ('"bust"', lambda e: isinstance(e, A.Label) and e.text == "bust"),
])
def test_expressions(text: str, check) -> None:  # type: ignore[no-untyped-def]
    assert check(expr(text))


def test_every_node_has_a_span_inside_the_file() -> None:
    text = 'table t(x: 1..6) "T":\n  x <= 3 -> 4+\n  otherwise -> 6 then 4+\n'
    t = one(text)
    for row in t.rows:  # type: ignore[attr-defined]
        for sub in A.sub_expressions(row.result):
            assert sub.span.file == "t.rules" and sub.span.line in (2, 3) and sub.span.column >= 1


@pytest.mark.parametrize("message, examples", sorted(SYNTAX_ERRORS.items()))
def test_syntax_error_examples_map_to_their_messages(message: str, examples: list[str]) -> None:
    for example in examples:
        tree, diags = parse_text(example, "bad.rules")
        assert tree is None and len(diags) == 1
        assert diags[0].message == message, (example, diags[0].message)


def test_syntax_error_says_what_was_expected_in_words() -> None:
    tree, (d,) = parse_text('stat BS "Ballistic Skill" 1..10 "oops"\n', "x.rules")
    assert tree is None
    assert (d.code, d.span.line, d.span.column) == ("W001", 1, 33)
    assert "the end of the line" in (d.hint or "")


def test_unclosed_quote_is_explained() -> None:
    _, (d,) = parse_text('stat BS "Ballistic Skill 1..10\n', "x.rules")
    assert d.message == "this quoted text is not closed on its line"
    assert (d.span.line, d.span.column) == (1, 9)


def test_truncated_file_points_at_the_end() -> None:
    _, (d,) = parse_text('table t(x) "T":\n  x == 1 ->', "x.rules")
    assert d.code in ("W001", "W002")
    assert d.span.line == 2


def test_bad_dedent_is_located() -> None:
    _, (d,) = parse_text('section a "A":\n    rule r "R": "x"\n  rule q "Q": "y"\n', "x.rules")
    assert d.code == "W003" and d.span.line == 3


# ---------------------------------------------------------------------------
# The stages' modules: docstrings that run, one public name per node class
# ---------------------------------------------------------------------------

def _stage_modules() -> list[str]:
    import pkgutil

    import compiler.ast
    import compiler.syntax

    return sorted(["compiler.ast", "compiler.syntax"] + [
        f"{package.__name__}.{info.name}" for package in (compiler.ast, compiler.syntax)
        for info in pkgutil.iter_modules(package.__path__)])


@pytest.mark.parametrize("name", _stage_modules())
def test_doctests_of_the_syntax_and_ast_stages(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), raise_on_error=False)
    assert result.failed == 0, name


def test_each_entry_function_has_an_example() -> None:
    import doctest

    from compiler.syntax.fmt import format_text
    from compiler.syntax.lexer import WarscribeLexer

    for entry in (parse_text, build_file, build_expression, format_text, WarscribeLexer):
        tests = doctest.DocTestFinder(recurse=False).find(entry)
        assert tests and tests[0].examples, entry.__name__


def test_every_node_class_is_exported_from_compiler_ast() -> None:
    import dataclasses
    import importlib

    for name in _stage_modules():
        if not name.startswith("compiler.ast.") or name.startswith("compiler.ast.build"):
            continue
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
                assert getattr(A, attr) is value, f"{name}.{attr} is not compiler.ast.{attr}"
                assert attr in A.__all__, attr
