"""Random and mutated sources: only diagnostics may come out — never another exception.

No deadline (wall time flakes on a busy machine); conftest's CPU-time guard stops a hang.
A longer run:
``WARSCRIBE_FUZZ_EXAMPLES=20000 python -m pytest tests/test_fuzz.py`` (per test).
"""
from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.diagnostics import Diagnostic, render
from compiler.driver import compile_text

HERE = Path(__file__).parent
CORPUS = [p.read_text(encoding="utf-8") for p in sorted((HERE / "fixtures").glob("*/*.rules"))]
CORPUS += [p.read_text(encoding="utf-8") for p in sorted((HERE / "golden").glob("*.rules"))]
RULES = Path(__file__).resolve().parent.parent / "rules"
CORPUS += [p.read_text(encoding="utf-8") for p in sorted(RULES.glob("*/*.rules"))]

FUZZ = settings(max_examples=int(os.environ.get("WARSCRIBE_FUZZ_EXAMPLES", "150")), suppress_health_check=[HealthCheck.too_slow])

TOKENS = ["ruleset", "section", "table", "test", "roll", "d6", "2D6", "->", "4+", "3-", "otherwise",
          "natural", "1", "fails", ":", "\n", "  ", "    ", '"', '"""', "(", ")", ",", "each", "then",
          "never", "unit", "BS", "4", "..", "=", "with", "expect", "P(", "mean(", "#", "\t", "é", "🎲"]


def assert_only_diagnostics(text: str) -> None:
    result = compile_text(text, "fuzz.rules")
    for d in result.diagnostics:
        assert isinstance(d, Diagnostic)
        assert d.span.file == "fuzz.rules"
        render(d, dict(result.sources))  # rendering must not fail either


@FUZZ
@given(st.text(max_size=400))
def test_random_text(text: str) -> None:
    assert_only_diagnostics(text)


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=80).map(" ".join))
def test_random_token_soup(text: str) -> None:
    assert_only_diagnostics('ruleset x "X":\n  version 1.0.0\n' + text)


@FUZZ
@given(st.sampled_from(CORPUS), st.data())
def test_mutated_rulesets(source: str, data: st.DataObject) -> None:
    text = source
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(st.sampled_from(["delete", "insert", "truncate", "duplicate_line", "swap_lines"]))
        n = len(text)
        if kind == "delete" and n:
            a = data.draw(st.integers(0, n - 1))
            b = data.draw(st.integers(a, min(n, a + 40)))
            text = text[:a] + text[b:]
        elif kind == "insert":
            a = data.draw(st.integers(0, n))
            piece = data.draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=10)))
            text = text[:a] + piece + text[a:]
        elif kind == "truncate" and n:
            text = text[: data.draw(st.integers(0, n))]
        elif kind in ("duplicate_line", "swap_lines"):
            lines = text.split("\n")
            if len(lines) > 1:
                i = data.draw(st.integers(0, len(lines) - 2))
                if kind == "duplicate_line":
                    lines.insert(i, lines[i])
                else:
                    lines[i], lines[i + 1] = lines[i + 1], lines[i]
                text = "\n".join(lines)
    assert_only_diagnostics(text)


def test_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 10


def test_battle_logs_army_lists_and_command_lines_give_no_traceback(tmp_path: Path) -> None:
    """A few inputs of the long run's other doors (bench/fuzz.py --kinds io): damaged battle logs
    replayed, army lists checked, command lines with odd options, run in process."""
    import random
    import sys

    sys.path.insert(0, str(RULES.parent / "bench"))
    from fuzz_io import exercise_io, log_lines, make_army, make_command, make_log

    rng = random.Random(int(os.environ.get("WARSCRIBE_FUZZ_SEED", "3")))
    lines = log_lines()
    statuses = []
    for i in range(int(os.environ.get("WARSCRIBE_FUZZ_IO", "24"))):
        kind = ("log", "army", "command")[i % 3]
        data = (make_log(rng, lines) if kind == "log" else make_army(rng) if kind == "army"
                else make_command(rng, tmp_path))
        statuses.append(exercise_io(kind, data, tmp_path))  # raises on a traceback
    assert set(statuses) <= {0, 1, 2}
