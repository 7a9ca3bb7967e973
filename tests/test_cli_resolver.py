"""warscribe eval, table and test, as a user runs them."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from conftest import Ran, warscribe

ROOT = Path(__file__).resolve().parent.parent
MECHANICS = str(ROOT / "tests" / "fixtures" / "mechanics")


def run(*args: str) -> Ran:
    """warscribe in this process; tests/test_console_script.py runs the real console script."""
    return warscribe(*args)


def test_eval_text_shows_distribution_and_mean() -> None:
    r = run("eval", MECHANICS, "2D3 + 1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "2D3 + 1"
    assert any(line.strip().startswith("3") and "11.11%" in line and "1/9" in line for line in lines)
    assert "mean 5" in r.stdout


def test_eval_json_shape() -> None:
    r = run("eval", MECHANICS, "P(hit(4))", "--json")
    data = json.loads(r.stdout)
    assert data["expression"] == "P(hit(4))" and data["value"] == "2/3"
    r = run("eval", MECHANICS, "shooting(5 marine, bolter, 10 ork).killed", "--json")
    data = json.loads(r.stdout)
    assert set(data) >= {"expression", "mean", "distribution"}
    assert Fraction(data["mean"]) == Fraction(25, 18)
    assert sum(Fraction(row["p"]) for row in data["distribution"]) == 1
    first = data["distribution"][0]
    assert set(first) >= {"value", "p", "p_float"} and first["value"] == 0
    assert abs(first["p_float"] - float(Fraction(first["p"]))) < 1e-15


def test_eval_fast_agrees_with_exact() -> None:
    exact = json.loads(run("eval", MECHANICS, "shooting(10 marine, heavy, 5 brute).killed", "--json").stdout)
    fast = json.loads(run("eval", MECHANICS, "shooting(10 marine, heavy, 5 brute).killed", "--json",
                          "--fast").stdout)
    assert abs(float(Fraction(exact["mean"])) - fast["mean_float"]) < 1e-12


def test_eval_with_situation_option() -> None:
    r = run("eval", MECHANICS, "P(hit(4))", "--with", "cover = hard", "--json")
    assert json.loads(r.stdout)["value"] == "1/3"


def test_eval_attack_prints_every_step() -> None:
    r = run("eval", MECHANICS, "shooting(5 marine, bolter, 10 ork)")
    for step in ("attacks", "hits", "wounds", "unsaved", "killed"):
        assert f"{step}:" in r.stdout


def test_eval_unknown_name_is_a_located_diagnostic() -> None:
    r = run("eval", MECHANICS, "P(hti(4))")
    assert r.returncode == 1
    assert "<expression>:1:3: error[W101]: unknown test, table or formula 'hti'" in r.stderr
    assert "did you mean 'hit'?" in r.stderr and r.stdout == ""
    assert "Traceback" not in r.stdout + r.stderr


def test_eval_syntax_error_is_located() -> None:
    r = run("eval", MECHANICS, "hit(4")
    assert r.returncode == 1 and "<expression>:1:" in r.stderr and "Traceback" not in r.stderr


def test_table_json_console_to_wound() -> None:
    r = run("table", "rules/console-40k", "to_wound", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(r.stdout)
    assert data["table"] == "to_wound"
    assert [a["name"] for a in data["axes"]] == ["S", "T"]
    assert [len(a["values"]) for a in data["axes"]] == [10, 10]
    assert len(data["cells"]) == 100
    cell = next(c for c in data["cells"] if c["at"] == {"S": 4, "T": 4})
    assert cell["result"] == "4+" and cell["p"] == "1/2"
    s3t6 = next(c for c in data["cells"] if c["at"] == {"S": 3, "T": 6})
    assert s3t6["result"] == "6+" and s3t6["p"] == "1/6"
    never = next(c for c in data["cells"] if c["at"] == {"S": 1, "T": 10})
    assert never["result"] == "never" and never["p"] == "0"


def test_table_json_nuceria_attack() -> None:
    data = json.loads(run("table", "rules/nuceria-rts", "attack", "--json").stdout)
    assert [a["name"] for a in data["axes"]] == ["P", "T"]
    assert len(data["cells"]) == 100
    by = {(c["at"]["P"], c["at"]["T"]): c for c in data["cells"]}
    assert by[(8, 4)]["result"] == "2+" and by[(8, 4)]["p"] == "5/6"
    assert by[(5, 4)]["result"] == "3+"
    assert by[(4, 4)]["result"] == "4+" and by[(4, 4)]["p"] == "1/2"
    assert by[(3, 4)]["result"] == "5+"
    assert by[(2, 4)]["result"] == "6+" and by[(2, 4)]["p"] == "1/6"


def test_table_text_and_unknown_table() -> None:
    r = run("table", "rules/console-40k", "to_wound")
    assert r.returncode == 0 and "4+ · 50%" in r.stdout
    r = run("table", "rules/console-40k", "to_wond")
    assert r.returncode == 2 and "did you mean 'to_wound'?" in r.stderr


def test_test_command_passes_on_rules() -> None:
    # Two bundled rulesets, one of them an overlay: every example of rules/ already runs as an item
    # of its own (testpaths includes rules/, through the pytest plugin).
    r = run("test", "rules/console-40k", "rules/dark-millennia")
    assert r.returncode == 0, r.stdout[-3000:]
    assert "passed, 0 failed" in r.stdout


def test_test_command_reports_failures(write_ruleset) -> None:  # type: ignore[no-untyped-def]
    folder = write_ruleset('ruleset demo "Demo":\n  version 1.0.0\n'
                           'test hit(BS: 1..6) = roll d6 >= BS\n'
                           'example e "Odds":\n  expect P(hit(4)) = 1/3\n  expect P(hit(4)) = 1/2\n'
                           'property p "Never worse":\n  for BS in 1..5\n  expect P(hit(BS)) <= P(hit(BS + 1))\n')
    r = run("test", str(folder))
    assert r.returncode == 1
    assert "FAILED example e — Odds" in r.stdout
    assert "expected 1/3" in r.stdout and "actual   1/2" in r.stdout
    assert "expect P(hit(4)) = 1/3" in r.stdout  # the source line
    assert "FAILED property p" in r.stdout and "BS = 1" in r.stdout
    assert r.stdout.strip().splitlines()[-2] == "0 passed, 2 failed"


def test_pytest_plugin_runs_examples(write_ruleset, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = write_ruleset('ruleset demo "Demo":\n  version 1.0.0\n'
                           'test hit(BS: 1..6) = roll d6 >= BS\n'
                           'example good "Good":\n  expect P(hit(4)) = 1/2\n'
                           'example bad "Bad":\n  expect P(hit(4)) = 1/3\n')
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "1 failed, 1 passed" in r.stdout, r.stdout
    assert "expected 1/3" in r.stdout
