"""An overlay's inherited examples: a failure says how to change it in the overlay, in full."""
from __future__ import annotations

from fractions import Fraction
from math import comb
from pathlib import Path

from conftest import warscribe

BASE = '''ruleset base "Base game":
  version 1.0.0

stat BS "Ballistic Skill" 2..6: "b"
test hit(BS) = roll d6 >= BS

example seven_of_fifteen "Seven hits of fifteen":
  expect P(15 each hit(4) == 7) = 6435/32768
'''

HOUSE = '''ruleset house "House rules":
  version 1.0.0
  extends base 1.0.0

modifier steady "Steady aim": +1 to hit
'''


def test_a_failing_inherited_example_says_how_to_change_it_in_the_overlay(tmp_path: Path) -> None:
    for name, text in (("base", BASE), ("house", HOUSE)):
        (tmp_path / "rules" / name).mkdir(parents=True)
        (tmp_path / "rules" / name / "ruleset.rules").write_text(text, "utf-8")
    assert warscribe("test", "rules/base", cwd=tmp_path).returncode == 0
    r = warscribe("test", "rules/house", cwd=tmp_path)
    assert r.returncode == 1
    out = r.stdout + r.stderr
    # With +1 to hit a hit needs 3+: seven of fifteen, exactly, printed in full to be pasted back.
    now = comb(15, 7) * Fraction(2, 3) ** 7 * Fraction(1, 3) ** 8
    assert now.denominator > 10**6  # a fraction the short form would give as a decimal only
    assert f"actual   {now.numerator}/{now.denominator} (≈" in out, out
    assert "expected 6435/32768 (≈" in out
    assert "'seven_of_fifteen' comes from the base ruleset 'base'" in out
    assert "replace example seven_of_fifteen \"Seven hits of fifteen\":" in out and "remove seven_of_fifteen" in out
    # The fix it suggests works: the overlay's own version of the example, with the value pasted.
    (tmp_path / "rules" / "house" / "ruleset.rules").write_text(HOUSE + f'''
replace example seven_of_fifteen "Seven hits of fifteen":
  expect P(15 each hit(4) == 7) = {now.numerator}/{now.denominator}
''', "utf-8")
    r = warscribe("test", "rules/house", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "rules" / "house" / "ruleset.rules").write_text(HOUSE + "\nremove seven_of_fifteen\n", "utf-8")
    r = warscribe("test", "rules/house", cwd=tmp_path)
    assert r.returncode == 0 and "0 passed" in r.stdout, r.stdout + r.stderr


def test_a_failure_of_the_ruleset_itself_gets_no_overlay_hint(tmp_path: Path) -> None:
    (tmp_path / "rules" / "base").mkdir(parents=True)
    (tmp_path / "rules" / "base" / "ruleset.rules").write_text(BASE.replace("6435/32768", "1/2"), "utf-8")
    r = warscribe("test", "rules/base", cwd=tmp_path)
    assert r.returncode == 1 and "comes from the base ruleset" not in r.stdout + r.stderr
