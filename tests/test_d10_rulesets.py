"""A ruleset rolled with a d10: the quick reference, its key and `warscribe table` read its targets
against a d10, never a d6."""
from __future__ import annotations

import re
from fractions import Fraction

import pytest

from compiler.driver import compile_text
from compiler.site import site

# A table whose targets no test reads straight through (the test hands it AIM + 1), so nothing but
# the ruleset's own die says what "7+" is worth.
TENNER = '''ruleset tenner "Tenner":
  version 1.0.0

stat AIM "Aim" 1..9: "a"

table aim_need(AIM) "Aim chart":
  AIM <= 3  -> 9+
  AIM <= 6  -> 7+
  otherwise -> 4+

test shoot(AIM) "Shoot":
  roll d10 against aim_need(AIM + 1)
'''


def d10(target: int) -> Fraction:
    """The chance that one d10 rolls ``target`` or more, by counting its faces."""
    return Fraction(sum(1 for face in range(1, 11) if face >= target), 10)


def percent(p: Fraction) -> str:
    return f"{float(p) * 100:.0f}%"


@pytest.fixture(scope="module")
def quickref() -> str:
    compilation = compile_text(TENNER, "tenner.rules")
    assert compilation.ok, [d.message for d in compilation.diagnostics]
    return site(compilation).page("tenner/quick-reference.md").markdown


def test_the_heat_map_key_reads_chances_of_a_d10(quickref: str) -> None:
    key = re.search(r'<small class="ws-note ws-legend">(.*?)</small>', quickref)
    assert key is not None
    stops = re.findall(r'style="--ws-p:([0-9.]+)">([^<]+)<', key.group(1))
    # never, the highest face but one (9+), even, 2+, always — a d6's key would read 33% and 83%
    expected = [Fraction(0), d10(9), Fraction(1, 2), d10(2), Fraction(1)]
    assert [text for _, text in stops] == ["never", percent(d10(9)), "50%", percent(d10(2)), "always"]
    assert [Fraction(p) for p, _ in stops] == [Fraction(f"{float(p):.3f}") for p in expected]
    assert "33%" not in key.group(1) and "83%" not in key.group(1)


def test_a_table_s_cells_are_chances_of_a_d10(quickref: str) -> None:
    for target in (9, 7, 4):
        assert f"{target}+<small>{percent(d10(target))}</small>" in quickref


def test_warscribe_table_reads_targets_against_a_d10(tmp_path) -> None:
    from click.testing import CliRunner

    from compiler.cli import app
    (tmp_path / "tenner.rules").write_text(TENNER, encoding="utf-8")
    r = CliRunner().invoke(app, ["table", str(tmp_path), "aim_need"], env={"NO_COLOR": "1"})
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert f"7+ · {percent(d10(7))}" in out and "one d10 meets the target" in out


def test_the_editor_s_hover_on_a_target_reads_it_on_a_d10(tmp_path) -> None:
    from compiler.lsp.hover import hover_text
    from compiler.lsp.index import snapshot
    path = tmp_path / "tenner.rules"
    path.write_text(TENNER, encoding="utf-8")
    snap = snapshot(str(tmp_path))
    line = TENNER.splitlines().index("  AIM <= 6  -> 7+")
    found = hover_text(snap, str(path), line, len("  AIM <= 6  -> 7"))
    assert found is not None
    assert found[0] == f"`7+ · {percent(d10(7))}` on a d10"
