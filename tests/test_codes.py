"""The diagnostic code registry: every code the package emits is registered, with the severity it
is emitted with, and the language reference lists exactly the registered codes."""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

from compiler import codes
from compiler.codes import REGISTRY, Severity, UnregisteredCode
from compiler.diagnostics import Diagnostic, Sink, Span

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "compiler"
REFERENCE = ROOT / "site" / "language.md"
CODE = re.compile(r"^[WE]\d{3}$")
SEVERITY_OF_METHOD = {"error": Severity.ERROR, "warning": Severity.WARNING, "note": Severity.NOTE}
CONSTANTS = {name: value for name, value in vars(codes).items() if isinstance(value, codes.Code)}


def _sources() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p.name != "codes.py"]


def _code_of(node: ast.expr) -> str | None:
    """The code an argument names: a literal ``"W201"``, a constant ``codes.WRONG_KIND`` or its
    ``codes.WRONG_KIND.code``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value):
        return node.value
    if isinstance(node, ast.Attribute) and node.attr == "code":
        node = node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "codes":
        entry = CONSTANTS.get(node.attr)
        assert entry is not None, f"codes.{node.attr} is not a registered code"
        return entry.code
    return None


def _emissions() -> list[tuple[str, str, Severity]]:
    """(where, code, severity) for every diagnostic the package's source creates with a known code."""
    found: list[tuple[str, str, Severity]] = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            func = node.func
            code = _code_of(node.args[0])
            if code is None:
                continue
            if isinstance(func, ast.Attribute) and func.attr in SEVERITY_OF_METHOD:
                found.append((where, code, SEVERITY_OF_METHOD[func.attr]))
            elif isinstance(func, ast.Name) and func.id == "Diagnostic" and len(node.args) > 1:
                sev = node.args[1]
                assert isinstance(sev, ast.Attribute) and sev.attr in Severity.__members__, where
                found.append((where, code, Severity[sev.attr]))
    return found


@functools.cache
def emissions() -> tuple[tuple[str, str, Severity], ...]:
    """Every code emitted in the package's source, read once on first use (not while collecting)."""
    return tuple(_emissions())


def test_the_source_is_scanned() -> None:
    """The scan below finds the diagnostics the package creates (it is not vacuous)."""
    assert len(emissions()) > 100
    assert {code for _, code, _ in emissions()} >= {"W001", "W201", "W501", "W607", "W800", "W910"}


def test_every_code_in_the_source_is_registered() -> None:
    """No code is written as a string literal outside the registry: each is a named constant."""
    literals = set()
    named = set()
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        literals |= {node.value for node in ast.walk(ast.parse(text))
                     if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value)}
        named |= set(re.findall(r"\bcodes\.([A-Z_0-9]+)\b", text))
    assert not literals, f"codes written as literals: {sorted(literals)}; use the constants of compiler.codes"
    assert named and named <= set(CONSTANTS), sorted(named - set(CONSTANTS))


def test_every_registered_code_is_emitted() -> None:
    emitted = {code for _, code, _ in emissions()}
    assert sorted(set(REGISTRY) - emitted) == []


def test_every_code_is_emitted_with_its_registered_severity() -> None:
    wrong = [f"{where}: {code} emitted as {sev.value}, registered as "
             + "/".join(s.value for s in REGISTRY[code].severities)
             for where, code, sev in emissions() if sev not in REGISTRY[code].severities]
    assert wrong == []


def test_each_extra_severity_is_used() -> None:
    """A code registered with two severities is really emitted with both."""
    for entry in REGISTRY.values():
        used = {sev for _, code, sev in emissions() if code == entry.code}
        assert used == set(entry.severities), entry.code


def test_each_constant_names_one_code() -> None:
    assert sorted(c.code for c in CONSTANTS.values()) == sorted(REGISTRY)
    for name, entry in CONSTANTS.items():
        assert name.isupper() and REGISTRY[entry.code] is entry


def _reference_rows() -> dict[str, tuple[str, str, str]]:
    text = REFERENCE.read_text(encoding="utf-8")
    assert "## Diagnostic codes" in text
    section = text.split("## Diagnostic codes", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for code, severity, title, anchor in re.findall(
            r"^\| ([WE]\d{3}) \| ([a-z ]+) \| (.+?) \| \[[^\]]+\]\(#([a-z0-9-]+)\) \|$", section, re.M):
        assert code not in rows, f"{code} is listed twice"
        rows[code] = (severity, title, anchor)
    return rows


def test_the_reference_lists_every_registered_code_and_no_other() -> None:
    listed = _reference_rows()
    assert sorted(set(REGISTRY) - set(listed)) == [], "registered but not in site/language.md"
    assert sorted(set(listed) - set(REGISTRY)) == [], "in site/language.md but not registered"


def test_the_reference_agrees_with_the_registry() -> None:
    for code, (severity, title, anchor) in _reference_rows().items():
        entry = REGISTRY[code]
        assert severity == " or ".join(s.value for s in entry.severities), code
        assert title == entry.title, code
        assert anchor == entry.anchor, code


def test_every_anchor_is_a_heading_of_the_reference() -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    anchors = {slugify(h, "-") for h in re.findall(r"^#+ (.*)$", text, re.M)}
    assert sorted({e.anchor for e in REGISTRY.values()} - anchors) == []


def test_every_code_mentioned_in_the_reference_is_registered() -> None:
    mentioned = set(re.findall(r"\b([WE]\d{3})\b", REFERENCE.read_text(encoding="utf-8")))
    assert sorted(mentioned - set(REGISTRY)) == []


def test_an_unregistered_code_fails_loudly() -> None:
    span = Span.point("x.rules")
    with pytest.raises(UnregisteredCode, match="'W999' is not registered"):
        Diagnostic("W999", Severity.ERROR, "nothing", span)
    with pytest.raises(UnregisteredCode, match="registered as a warning, not as an error"):
        Sink().error("W301", "a gap", span)
    with pytest.raises(UnregisteredCode):
        codes.lookup("w201")


def test_a_sink_takes_a_code_or_its_name() -> None:
    sink = Sink()
    span = Span.point("x.rules")
    sink.error(codes.WRONG_KIND, "a", span)
    sink.error("W201", "b", span)
    assert [d.code for d in sink.items] == ["W201", "W201"]
    assert sink.items[0].to_json()["code"] == "W201"


def test_codes_are_ordered_and_unique() -> None:
    assert list(REGISTRY) == sorted(REGISTRY)
    assert all(CODE.match(c) for c in REGISTRY)
    assert codes.WRONG_KIND.url == "language/#expressions"
