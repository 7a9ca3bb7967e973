"""Every limit of compiler/limits.py: a clear diagnostic, before the work — never a hang, a blow-up or a traceback.

No test here reads a clock: a busy machine stretches wall time at random.  Each case
asserts the behaviour (refused, with the right code and message); where "before the work"
is the point, the expensive functions are replaced by ones that fail if called
(``no_dice_work``); and every case runs under a CPU-time guard (conftest's ``cpu_budget``,
far above the milliseconds the work takes) so a hang fails instead of blocking the run.
How fast the refusals are is measured in ``bench/``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler import limits as L
from compiler.diagnostics import render
from compiler.driver import compile_paths, compile_text
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression
from conftest import cpu_budget

ROOT = Path(__file__).resolve().parent.parent
HEADER = 'ruleset demo "Demo":\n  version 1.0.0\n'
BASE = HEADER + (
    'stat BS "Ballistic Skill" 1..10\n'
    'test hit(BS) = roll d6 >= BS, natural 1 fails\n'
    'unit grunt "Grunt":\n  BS 4\n'
)


GUARD = 30  # CPU seconds: a hang guard, not a benchmark (the work takes milliseconds)


@pytest.fixture
def no_dice_work(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the expensive steps fail if called: summing dice, or building a die over ``MAX_SIDES``.

    A refusal must come before that work; the list returned records any call that was made.
    """
    calls: list[str] = []

    def refuse(where: str) -> None:
        calls.append(where)
        raise AssertionError(f"{where} was called: the limit should refuse before the work")

    for cls in (Dist, FastDist):
        def die(n: int, cls: type = cls, original=cls.die):  # type: ignore[no-untyped-def]
            if isinstance(n, int) and n > L.MAX_SIDES:
                refuse(f"{cls.__name__}.die({n})")
            return original(n)  # a die of an allowed size is cheap

        monkeypatch.setattr(cls, "die", staticmethod(die))
        for name in ("convolve_power", "sum_of_random"):
            monkeypatch.setattr(cls, name, lambda *a, where=f"{cls.__name__}.{name}", **k: refuse(where))
    return calls


def codes(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [d.code for d in result.diagnostics if d.is_error]


def check_text(text: str, code: str):  # type: ignore[no-untyped-def]
    """Compile ``text``; it must give diagnostic ``code`` (and only diagnostics, rendered without error)."""
    with cpu_budget(GUARD):
        result = compile_text(text)
    found = [d for d in result.diagnostics if d.code == code]
    assert found, [(d.code, d.message) for d in result.diagnostics]
    for d in result.diagnostics:
        render(d, dict(result.sources))
    return found[0]


# ---------------------------------------------------------------------------
# Dice: 1000000d1000000 is refused at check time and by the resolver
# ---------------------------------------------------------------------------


def test_a_million_dice_of_a_million_sides_is_refused_at_check_time_at_once() -> None:
    d = check_text(BASE + 'formula f() "F" = 1000000d1000000\n', "W903")
    assert "1,000,000 dice" in d.message and d.span.line == 7


def test_a_million_dice_are_refused_at_check_time_without_building_a_distribution(no_dice_work) -> None:
    d = check_text(BASE + 'formula f() "F" = 1000000d1000000\n', "W903")
    assert "1,000,000 dice" in d.message and no_dice_work == []


@pytest.mark.parametrize("expr", ["1000000d1000000", "1000000d6", "d1000000", "1000d1000", "500d1000"])
def test_the_resolver_refuses_huge_dice_before_the_work(expr: str, no_dice_work) -> None:
    model = compile_text(BASE).rulesets[0]
    with cpu_budget(GUARD), pytest.raises(ResolveError):
        Evaluator(model).evaluate(parse_expression(expr))


def test_dice_with_too_many_totals_are_refused_at_check_time() -> None:
    d = check_text(BASE + 'formula f() "F" = 500d1000\n', "W903")
    assert "499,501 possible totals" in d.message


def test_the_eval_command_refuses_a_million_dice(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(BASE, encoding="utf-8")
    from conftest import limit_cpu

    r = subprocess.run([sys.executable, "-m", "compiler", "eval", str(folder), "1000000d1000000"],
                       capture_output=True, text=True, timeout=600, preexec_fn=limit_cpu(GUARD))
    assert r.returncode == 1, r.stdout + r.stderr  # the kernel kills a hang at GUARD CPU seconds
    assert "W903" in r.stderr and "Traceback" not in r.stdout + r.stderr


# ---------------------------------------------------------------------------
# Distributions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("expr, words", [
    ("1000 each 1000d6", "totals"),
    ("100000 each hit(3)", "count"),
    ("100000 each d6", "count"),
    ("explode(d6, 6, 100000)", "count"),
    ("explode(d6, 6, 1000)", "at most"),
    ("highest(1000, d6)", "at most"),
    ("highest(100, 100d6)", "too much"),
    ("max(d1000, d1000, d1000)", "limit"),
    ("1000d200", "too large"),
    ("100 each 100d6", "too large"),
    ("d1000 * d1000", "limit"),
    ("20000 grunt", "count"),
])
def test_huge_distributions_are_refused(expr: str, words: str) -> None:
    model = compile_text(BASE).rulesets[0]
    with cpu_budget(GUARD), pytest.raises(ResolveError) as info:
        Evaluator(model).evaluate(parse_expression(expr))
    assert words in info.value.message


def test_random_arguments_with_too_many_combinations_are_refused() -> None:
    model = compile_text(BASE + 'table t(a: 1..1000, b: 1..1000) "T":\n  otherwise -> 4+\n').rulesets[0]
    with cpu_budget(GUARD), pytest.raises(ResolveError, match="combinations"):
        Evaluator(model).evaluate(parse_expression("t(d1000, d1000)"))


def test_sizes_within_the_limits_are_still_answered() -> None:
    model = compile_text(BASE).rulesets[0]
    for expr in ("1000d6", "200d200", "10000 each hit(3)", "explode(d6, 6, 100)", "highest(3, 10d6)"):
        assert Evaluator(model).evaluate(parse_expression(expr)) is not None


# ---------------------------------------------------------------------------
# Recursive definitions: W401 at check time; the resolver stops too
# ---------------------------------------------------------------------------

RECURSIVE = {
    "formula": 'formula f(x) "F" = f(x) + 1\n',
    "two formulas": 'formula f(x) "F" = g(x)\nformula g(x) "G" = f(x)\n',
    "table": 'table t(x: 1..6) "T":\n  x == 1 -> t(x)\n  otherwise -> 2+\n',
    "test": 'test h(x) = roll d6 >= h(x)\n',
    "let": 'formula f(x) "F":\n  let a = f(x)\n  result a\n',
}


@pytest.mark.parametrize("name", sorted(RECURSIVE))
def test_recursive_definitions_are_reported_and_the_resolver_stops(name: str) -> None:
    text = HEADER + RECURSIVE[name]
    with cpu_budget(GUARD):
        result = compile_text(text)
    assert "W401" in codes(result), [(d.code, d.message) for d in result.diagnostics]
    model = result.rulesets[0]
    call = {"formula": "f(1)", "two formulas": "f(1)", "let": "f(1)", "table": "t(1)", "test": "P(h(1))"}[name]
    with cpu_budget(GUARD), pytest.raises(ResolveError, match="deep"):
        Evaluator(model).evaluate(parse_expression(call))


# ---------------------------------------------------------------------------
# Nesting: deep brackets, long operator chains, deep indentation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    'formula f() "F" = ' + "(1 + " * 2000 + "1" + ")" * 2000 + "\n",
    'formula f() "F" = ' + "-" * 5000 + "1\n",
    'formula f() "F" = ' + "not " * 2000 + "true\n",
    'formula f() "F" = ' + " + ".join(["1"] * 3000) + "\n",
    'formula f() "F" = ' + "if true then 1 else " * 1000 + "1\n",
    "".join("  " * i + f'section s{i} "S{i}":\n' for i in range(300)) + "  " * 300 + '"""deep"""\n',
    "".join(" " * i + f'section s{i} "S{i}":\n' for i in range(2000)) + " " * 2000 + '"""deep"""\n',
], ids=["brackets", "minus", "not", "sum", "if", "blocks", "blocks-2000"])
def test_deep_nesting_gives_a_diagnostic_not_a_recursion_error(body: str) -> None:
    text = HEADER + "\n".join(line for line in body.split("\n"))
    long = L.long_line(text + "\n")
    d = check_text(text, "W904" if long else "W901")
    assert d.is_error


def test_redundant_brackets_count_towards_the_nesting_limit() -> None:
    # The parse tree keeps no node for a bracket around one value: they are counted as they are read.
    text = HEADER + 'formula f() "F" = ' + "(" * 4900 + "1" + ")" * 4900 + "\n"
    d = check_text(text, "W901")
    assert (d.span.line, d.span.column) == (3, len('formula f() "F" = ') + L.MAX_NESTING + 1)
    assert f"more than {L.MAX_NESTING} levels" in d.message


def test_brackets_up_to_the_limit_are_fine() -> None:
    text = HEADER + 'formula f() "F" = ' + "(" * L.MAX_NESTING + "1" + ")" * L.MAX_NESTING + \
        '\nexample e "E":\n  expect f() = 1\n'
    assert compile_text(text).ok
    over = HEADER + 'formula f() "F" = ' + "(" * (L.MAX_NESTING + 1) + "1" + ")" * (L.MAX_NESTING + 1) + "\n"
    assert "W901" in codes(compile_text(over))


def test_eval_refuses_deep_redundant_brackets() -> None:
    with cpu_budget(GUARD), pytest.raises(ResolveError, match="levels deep"):
        parse_expression("(" * 4000 + "1" + ")" * 4000)


def test_nesting_within_the_limit_is_fine() -> None:
    text = HEADER + 'formula f() "F" = ' + " + ".join(["1"] * 80) + '\nexample e "E":\n  expect f() = 80\n'
    result = compile_text(text)
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    from compiler.resolve.runner import run_ruleset
    assert all(r.passed for r in run_ruleset(result.rulesets[0]))


def test_depth_is_measured_without_recursion() -> None:
    from lark import Tree

    tree = Tree("leaf", [])
    for _ in range(100_000):
        tree = Tree("node", [tree])
    assert L.tree_depth(tree) == 100_001


# ---------------------------------------------------------------------------
# Enormous tables, files, lines; many files
# ---------------------------------------------------------------------------


def test_a_table_with_too_many_rows_is_refused() -> None:
    rows = "".join(f"  {i} -> {i}\n" for i in range(1, L.MAX_TABLE_ROWS + 2))
    d = check_text(HEADER + 'table t(x: 1..5000) "T":\n' + rows, "W907")
    assert f"{L.MAX_TABLE_ROWS + 1:,} rows" in d.message


def test_a_grid_with_too_many_cells_is_refused() -> None:
    cols = 120
    head = "    x: " + " ".join(str(c) for c in range(1, cols + 1)) + "\n"
    rows = "".join(f"    {r}: " + " ".join(["4+"] * cols) + "\n" for r in range(1, 90))
    text = HEADER + 'table t(y: 1..89, x: 1..120) "T":\n  grid y by x:\n' + head + rows
    d = check_text(text, "W907")
    assert "cells" in d.message


def test_a_table_over_huge_ranges_is_not_enumerated() -> None:
    text = HEADER + 'table t(x: 1..1000000000, y: 1..1000000000) "T":\n  x > y -> 4+\n  otherwise -> 5+\n'
    d = check_text(text, "W907")
    assert d.severity.value == "warning" and "too large to check" in d.message


def test_the_table_command_refuses_a_huge_table() -> None:
    from compiler.resolve.report import evaluate_table

    model = compile_text(HEADER + 'table t(x: 1..1000000000) "T":\n  otherwise -> 4+\n').rulesets[0]
    with cpu_budget(GUARD), pytest.raises(ResolveError):
        evaluate_table(Evaluator(model), model.callables["t"])


def test_a_very_long_line_is_refused_before_parsing() -> None:
    text = BASE + 'formula f() "F" = ' + "1 + " * 50_000 + "1\n"
    d = check_text(text, "W904")
    assert d.span.line == 7 and "200,019 characters" in d.message


def test_a_long_prose_line_within_the_limit_is_fine() -> None:
    result = compile_text(HEADER + '"""' + "word " * 1500 + '"""\n')
    assert result.ok


def test_a_file_of_too_many_tokens_is_refused_quickly() -> None:
    rows = "".join(f'stat S{i} "S" 1..10\n' for i in range(L.MAX_TOKENS // 4))
    d = check_text(HEADER + rows, "W905")
    assert "50,000" in d.message


def test_an_enormous_file_is_refused_without_reading_it(write_ruleset) -> None:
    folder = write_ruleset({"ruleset.rules": HEADER + 'include "big.rules"\n'})
    with open(folder / "big.rules", "w", encoding="utf-8") as f:
        f.write("# " + "x" * 100 + "\n")
        f.truncate(L.MAX_FILE_BYTES + 1)  # a sparse file: no need to write 2 MB
    with cpu_budget(GUARD):
        result = compile_paths([str(folder)])
    assert [d.code for d in result.diagnostics if d.is_error] == ["W902"]


def test_a_ruleset_of_too_many_files_is_refused(write_ruleset) -> None:
    files = {"ruleset.rules": HEADER}
    files.update({f"part{i:03}.rules": "" for i in range(L.MAX_FILES + 1)})
    folder = write_ruleset(files)
    with cpu_budget(GUARD):
        result = compile_paths([str(folder)])
    assert "W906" in codes(result)


def test_the_check_command_reports_limits_without_a_traceback(write_ruleset) -> None:
    import subprocess
    import sys

    folder = write_ruleset(HEADER + 'formula f() "F" = ' + "-" * 3000 + "1\n")
    r = subprocess.run([sys.executable, "-m", "compiler", "check", str(folder)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1
    assert "error[W901]" in r.stderr and "Traceback" not in r.stdout + r.stderr


# ---------------------------------------------------------------------------
# The limits are documented
# ---------------------------------------------------------------------------


def test_every_limit_is_documented_in_the_language_reference() -> None:
    text = (ROOT / "site" / "language.md").read_text(encoding="utf-8")
    assert "## Limits" in text
    section = text.split("## Limits", 1)[1]
    for name, value, _ in L.LIMITS:
        assert f"{value:,}" in section, f"{name} = {value:,} is not in the Limits section"
    for code in ("W901", "W902", "W903", "W904", "W905", "W906", "W907"):
        assert code in section, code


def test_limit_codes_are_not_used_for_anything_else() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "compiler").rglob("*.py"))
    for code in ("W904", "W905", "W906", "W907"):
        uses = re.findall(rf'"{code}"', source)
        assert uses, code


def test_a_grid_over_a_huge_range_is_checked_quickly() -> None:
    # Found by bench/fuzz.py: listing the missing rows of 1..10**20 filled the memory.
    text = HEADER + ('table g(a: 1..100000000000000000000, b: 1..2) "G":\n  grid a by b:\n'
                     "    b: 1 2\n    1: 4+ 5+\n")
    d = check_text(text, "W301")
    assert "a = 2, 3, 4, 5, 6 …" in d.message


def test_ranges_too_long_to_list_are_measured_without_overflow() -> None:
    r = L.LongRange(0, 10**30)
    assert len(r) == __import__("sys").maxsize and r[-1] == 10**30 and 5 in r
    text = HEADER + ('stat S "S" 0..100000000000000000000\nsituation n "N" 0..100000000000000000000\n'
                     'table t(S) "T":\n  S >= n -> 4+\n  otherwise -> 5+\n')
    check_text(text, "W907")


def test_huge_extra_hits_are_refused_before_the_work() -> None:
    # Found by bench/fuzz.py: a hook giving 1,000,000 extra hits ran for minutes. The totals it
    # can reach (up to 4,000,004 hits) are counted before any work and refused, with what to reduce.
    from compiler.resolve.runner import run_ruleset

    text = BASE + ('ability many "Many": "x"\n  on natural 6 to hit: 1000000 extra hits\n'
                   'unit hero "Hero":\n  BS 4\n  abilities many\nweapon gun "Gun":\n  BS 4\n'
                   'attack shoot(shooter, weapon, target) "Shoot":\n  shots = shooter.models * 2\n'
                   '  hits = shots each hit(shooter.BS)\n'
                   'example e "E":\n  let r = shoot(2 hero, gun, 1 grunt)\n  expect mean(r.hits) >= 0\n')
    result = compile_text(text)
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    with cpu_budget(GUARD):
        [r] = run_ruleset(result.rulesets[0])
    assert not r.passed
    assert "the limit is" in r.failures[0].message and r.failures[0].hint


def test_removing_casualties_with_huge_wounds_is_refused_before_the_work() -> None:
    from compiler.resolve.runner import run_ruleset

    text = HEADER + ('stat BS "BS" 1..6\nstat W "Wounds" 1..100000000000000000000 role wounds\nstat D "Damage" dice\n'
                     'test hit(BS) = roll d6 >= BS\nunit tank "Tank":\n  BS 3  W 100000000000000000000\n'
                     'weapon gun "Gun":\n  D D6\n'
                     'attack shoot(shooter, weapon, target) "Shoot":\n  shots = shooter.models * 100\n'
                     '  hits = shots each hit(shooter.BS)\n  killed = hits removes target, damage weapon.D\n'
                     'example e "E":\n  let r = shoot(20 tank, gun, 50 tank)\n  expect mean(r.killed) >= 0\n')
    result = compile_text(text)
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    with cpu_budget(GUARD):
        [r] = run_ruleset(result.rulesets[0])
    assert not r.passed and "removing casualties" in r.failures[0].message
