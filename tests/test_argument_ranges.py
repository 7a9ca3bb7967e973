"""A number handed to a test or a formula outside the range its parameter declares: a table refuses
it when asked, a test or a formula works it out as it is, so `check` warns where it is written."""
from __future__ import annotations

from compiler.driver import compile_text

RULES = '''ruleset r "R":
  version 1.0.0

stat AIM "Aim" 1..9: "a"
stat RAGE "Rage" 0..3 unclamped: "r"

test shoot(aim: 1..9) "Shoot":
  roll d10 >= 11 - aim

test steady(AIM) "Steady":
  roll d10 <= AIM

formula bonus(x: 1..3) "Bonus" = x

formula fury(RAGE) "Fury" = RAGE

example e "E":
  expect P(shoot(5)) = 1/2
  expect P(shoot(12)) = 1
  expect P(steady(AIM = 2 * 5)) = 1
  expect bonus(0) = 0
  expect fury(7) = 7
  expect P(shoot(d6)) > 0
'''


def warnings():
    compilation = compile_text(RULES, "r.rules")
    assert compilation.ok
    return [d for d in compilation.diagnostics if d.code == "W202"]


def test_a_number_outside_a_test_s_or_formula_s_range_is_warned_where_it_is_written() -> None:
    found = warnings()
    lines = RULES.splitlines()
    at = {(d.span.line, lines[d.span.line - 1][d.span.column - 1:d.span.end_column - 1]): d for d in found}
    # shoot(12), steady(aim = 2 * 5) (a stat's range; 10 worked out before the dice), bonus(0)
    assert sorted(at) == [(19, "12"), (20, "2 * 5"), (21, "0")], [(d.span, d.message) for d in found]
    assert all(d.severity.value == "warning" for d in found)
    assert at[(19, "12")].message.startswith("test 'shoot' is given aim = 12, outside aim's range 1..9")
    assert at[(21, "0")].message.startswith("formula 'bonus' is given x = 0, outside x's range 1..3")
    assert at[(19, "12")].related[0][0].line == 7  # the parameter that declares the range


def test_check_strict_fails_on_it(tmp_path) -> None:
    from click.testing import CliRunner

    from compiler.cli import app
    (tmp_path / "r.rules").write_text(RULES, encoding="utf-8")
    r = CliRunner().invoke(app, ["check", "--strict", str(tmp_path)], env={"NO_COLOR": "1"})
    assert r.exit_code == 1 and "r.rules:19:18: warning[W202]" in r.output, r.output
