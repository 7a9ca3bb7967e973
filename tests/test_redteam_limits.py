"""Red team: numbers too long for a game, and answers too large for a float.

A number of more than 4,300 digits used to reach the user as Python's own advice
("use sys.set_int_max_str_digits()"); one of 400 digits checked clean, then ``test`` and ``eval``
died with an OverflowError traceback when they printed its decimal (a float ends near 1.8e308),
and so did the site's charts.  Now a number written with more than 100 digits is W908 where it stands, and a value past a
float's range, worked out from numbers within the limit, is printed from its exact value."""
from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import pytest

from compiler import codes, limits
from compiler.driver import compile_paths
from compiler.words import chance_words, decimal, fraction_json, mean_words, number_words
from conftest import warscribe

N = limits.MAX_NUMBER_DIGITS
HEADER = 'ruleset big "Big":\n  version 1.0.0\n\nstat BS "Skill" 1..10: "Aim."\n'


def check(tmp_path: Path, text: str) -> list[tuple[str, int, int, str]]:
    folder = tmp_path / "big"
    folder.mkdir(exist_ok=True)
    (folder / "ruleset.rules").write_text(text, encoding="utf-8")
    result = compile_paths([str(folder)])
    return [(d.code, d.span.line, d.span.column, d.message) for d in result.diagnostics if d.is_error]


@pytest.mark.parametrize("line, column", [
    ("stat W \"Wounds\" 1..{n}", 20),  # a whole number
    ("test hit(BS) = roll d6 >= 0.{n}", 27),  # a decimal
    ("test hit(BS) = roll {n}d6 >= BS", 21),  # a die
    ("test hit(BS) = roll d{n} >= BS", 21),
    ("stat M \"Move\" distance\nunit u \"U\":\n  M {n}\"", 5),  # a distance
])
def test_a_number_of_too_many_digits_is_w908_where_it_stands(tmp_path: Path, line: str, column: int) -> None:
    errors = check(tmp_path, HEADER + line.format(n="7" * (N + 1)) + "\n")
    row = HEADER.count("\n") + 1 + line.count("\n")
    assert errors == [(codes.NUMBER_TOO_LONG.code, row, column,
                       f"this number has {N + 1:,} digits; the limit is {N:,}")], errors


def test_a_version_of_too_many_digits_and_python_s_own_limit_say_the_same(tmp_path: Path) -> None:
    assert check(tmp_path, HEADER.replace("1.0.0", "1.0." + "9" * 5000)) == [
        (codes.NUMBER_TOO_LONG.code, 2, 11, "this number has 5,000 digits; the limit is 100")]
    errors = check(tmp_path, HEADER + "test hit(BS) = roll d6 >= " + "9" * 5000 + "\n")
    assert [e[:3] for e in errors] == [(codes.NUMBER_TOO_LONG.code, 5, 27)], errors


def test_a_number_of_the_most_digits_is_read(tmp_path: Path) -> None:
    assert check(tmp_path, HEADER + f'stat W "Wounds" 1..{"9" * N} role wounds\n') == []


BIG = "9" * N


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("huge") / "big"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(HEADER + f'''
test hit(BS) = roll d6 >= BS

example e "Huge":
  expect mean (d6 * {BIG} * {BIG} * {BIG} * {BIG}) = 1

example charted "Charted":
  let x = d6 * {BIG} * {BIG} * {BIG} * {BIG}
  expect P(x >= 5) = 1
''', encoding="utf-8")
    return folder


def exact_decimal(x: Fraction, spec: str = ".6g") -> str:
    with localcontext() as ctx:
        ctx.prec = 30
        return format(Decimal(x.numerator) / Decimal(x.denominator), spec)


def test_eval_and_test_print_a_mean_past_a_float_s_range(huge: Path) -> None:
    mean = Fraction(7, 2) * int(BIG) ** 4  # about 3.5e400
    ran = warscribe("eval", str(huge), f"d6 * {BIG} * {BIG} * {BIG} * {BIG}")
    assert ran.returncode == 0, ran
    assert f"mean {mean.numerator}/2 (≈ {exact_decimal(mean)})" in ran.stdout, ran.stdout
    assert exact_decimal(mean) == "3.50000e+400"
    ran = warscribe("test", str(huge))
    assert ran.returncode == 1 and "1 passed, 1 failed" in ran.stdout, ran
    assert f"(≈ {exact_decimal(mean)})" in ran.stdout, ran.stdout


def test_the_site_charts_a_value_past_a_float_s_range(huge: Path, tmp_path: Path) -> None:
    ran = warscribe("render", str(huge), "--out", str(tmp_path / "out"))
    assert ran.returncode == 0, ran
    page = (tmp_path / "out" / "big" / "examples.md").read_text(encoding="utf-8")
    mean = Fraction(7, 2) * int(BIG) ** 4
    assert page.count("<svg") == 1 and exact_decimal(mean) in page


def test_the_words_of_numbers_past_a_float_s_range() -> None:
    big, tiny = Fraction(10**400 + 1, 3), Fraction(1, 10**400)
    assert decimal(big) == exact_decimal(big) == "3.33333e+399"
    assert number_words(big) == f"{big.numerator}/3 (≈ 3.33333e+399)" and number_words(tiny) == "≈ 1e-400"
    assert mean_words(big) == "3.33333e+399" and mean_words(Fraction(10**400)) == str(10**400)
    assert chance_words(tiny) == "<0.01%" and chance_words(Fraction(0)) == "0%"
    past = Fraction(10**5000 + 1, 3)  # too long to print whole: JSON gives its decimal, which reads back
    assert fraction_json(past) == exact_decimal(past, ".17g") == "3.3333333333333333e+4999"
    assert abs(Fraction(fraction_json(past)) / past - 1) < Fraction(1, 10**16)


def test_a_ruleset_of_too_many_bytes_together_is_w909_before_any_file_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each file under the limit of one file, the folder over the limit of a ruleset: 200 files of
    # 2 MB each were read, 400 MB, and a folder of 37 MB took 5 s and 180 MB. (A small limit here
    # for speed: the limit itself is documented with the others.)
    import compiler.model.load as load

    monkeypatch.setattr(load, "MAX_RULESET_BYTES", 2_000)
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(HEADER + 'include "more.rules"\n', encoding="utf-8")
    (folder / "more.rules").write_text('section s "S":\n  """\n' + "  words words\n" * 150 + '  """\n', encoding="utf-8")
    total = sum(len(p.read_bytes()) for p in folder.iterdir())
    assert total > 2_000
    result = compile_paths([str(folder)])
    assert [(d.code, d.span.file, d.message) for d in result.diagnostics] == [
        (codes.RULESET_TOO_LARGE.code, str(folder), f"the .rules files of this ruleset folder come to {total:,} "
                                                    f"bytes; the limit is 2,000")]
    assert dict(result.sources) == {}  # no file was read
    monkeypatch.setattr(load, "MAX_RULESET_BYTES", total)
    assert not [d for d in compile_paths([str(folder)]).diagnostics if d.is_error]


def chain(root: Path, n: int) -> Path:
    """Rulesets r0 … r(n-1), each an overlay of the next: r0's folder."""
    for i in range(n):
        folder = root / f"r{i}"
        folder.mkdir(parents=True)
        extends = f"  extends r{i + 1} 1.0.0\n" if i < n - 1 else ""
        (folder / "ruleset.rules").write_text(f'ruleset r{i} "R{i}":\n  version 1.0.0\n{extends}', encoding="utf-8")
    return root / "r0"


def test_a_chain_of_overlays_deeper_than_the_limit_is_w901_at_the_extends_that_goes_deeper(tmp_path: Path) -> None:
    # 1,200 overlays deep stopped check with a RecursionError.
    deep = limits.MAX_OVERLAY_DEPTH
    errors = [d for d in compile_paths([str(chain(tmp_path / "over", deep + 1))]).diagnostics if d.is_error]
    assert [(d.code, Path(d.span.file).parent.name, d.span.line) for d in errors] == [
        (codes.TOO_DEEP.code, f"r{deep - 1}", 3)], errors
    assert errors[0].message == f"this chain of overlays is more than {deep} rulesets deep (an overlay of an overlay " \
                                "of … a base)"
    result = compile_paths([str(chain(tmp_path / "within", deep))])
    assert not [d for d in result.diagnostics if d.is_error] and result.rulesets[0].id == "r0"
