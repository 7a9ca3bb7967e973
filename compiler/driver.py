"""The pipeline in one short function: load → parse → build → merge overlays → check.

>>> result = compile_paths(["rules/console-40k"])
>>> result.ok, [r.id for r in result.rulesets]
(True, ['console-40k'])
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from compiler.check.passes import run_checks as _run_checks
from compiler import ast as A
from compiler.check.semantics import run_semantics
from compiler.diagnostics import Diagnostic, Sink, Span
from compiler.model.load import RulesetSource, display_path, find_ruleset_folders, load_ruleset
from compiler.model.ruleset import Ruleset, from_source
from compiler.safepaths import has_rules, leads_out, outward_links


@dataclass(frozen=True)
class Compilation:
    """What compiling some rulesets produced: models, diagnostics and the source texts."""

    rulesets: tuple[Ruleset, ...]
    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, str]

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def get(self, id_: str) -> Ruleset | None:
        return next((r for r in self.rulesets if r.id == id_), None)


def check_recovered(model: Ruleset, files: tuple[A.File, ...], sink: Sink) -> None:
    """Run the checks on a model some of whose declarations were lost to syntax errors,
    leaving out what only follows from the loss: uses of the lost names, and the header's
    missing fields when the header itself was lost (its syntax error says it all)."""
    broken = {b for f in files for b in f.broken}
    guessed = any(f.header_guessed for f in files)
    if not broken and not guessed:
        run_checks(model, sink)
        return
    inner = Sink()
    run_checks(model, inner)
    quoted = tuple(f"'{b}'" for b in broken)
    sink.extend(d for d in inner.items
                if not any(q in d.message for q in quoted)
                and not (guessed and d.span == model.header.span))


def run_checks(model: Ruleset, sink: Sink) -> None:
    """Run the checks; a stack overflow in one (a bug, or a pathological input) becomes a diagnostic."""
    try:
        _run_checks(model, sink)
        run_semantics(model, sink)  # to become one of compiler.check's passes when they are split
    except RecursionError:
        sink.error("W901", "this ruleset nests too deeply to check", model.header.span,
                   "look for definitions that call each other in a loop")


def compile_paths(paths: list[str]) -> Compilation:
    """Compile the rulesets named by ``paths``.  Raises UsageError for a bad path only."""
    folders = find_ruleset_folders(paths)
    sink = Sink()
    for link in outward_links(paths):
        sink.error("W701", "this ruleset folder is a link to a place outside the folder of rulesets",
                   Span.point(display_path(link)), "copy the ruleset into the folder instead; warscribe does not follow it")
    sources: dict[str, str] = {}
    loaded: dict[Path, RulesetSource] = {}

    def load(folder: Path) -> RulesetSource:
        if folder not in loaded:
            src = load_ruleset(folder, sink)
            loaded[folder] = src
            sources.update(dict(src.texts))
        return loaded[folder]

    wanted = [load(f) for f in folders]
    by_id: dict[str, RulesetSource] = {}
    for src in list(loaded.values()):
        if src.header is not None:
            by_id.setdefault(src.header.id, src)

    def find_base(src: RulesetSource) -> RulesetSource | None:
        assert src.header is not None
        name = src.header.extends
        if name is None:
            return None
        if name in by_id:
            return by_id[name]
        # Look beside this ruleset: the project's other ruleset folders.
        parent = Path(src.folder).parent
        for candidate in sorted(parent.iterdir()):
            if candidate.is_symlink() and leads_out(candidate, parent):
                continue  # a base is looked for only inside the project
            if candidate.is_dir() and candidate.resolve() not in loaded and has_rules(candidate):
                other = load(candidate.resolve())
                if other.header is not None:
                    by_id.setdefault(other.header.id, other)
                    if other.header.id == name:
                        return other
        return None

    models: dict[str, Ruleset | None] = {}
    building: set[str] = set()

    def build(src: RulesetSource) -> Ruleset | None:
        h = src.header
        if h is None:
            return None
        if h.id in models:
            return models[h.id]
        if h.id in building:
            sink.error("W401", f"ruleset '{h.id}' extends itself through its bases", h.extends_span or h.span)
            return None
        building.add(h.id)
        base_model = None
        if h.extends is not None:
            base_src = find_base(src)
            span = h.extends_span or h.span
            if base_src is None:
                link = Path(src.folder).parent / h.extends
                sink.error("W105", f"cannot find the base ruleset '{h.extends}'", span,
                           f"{display_path(link)} is a link to a place outside the project, which warscribe does "
                           "not follow; copy the base's folder here instead" if link.is_symlink() and leads_out(link, link.parent)
                           else "put its folder next to this one (e.g. under rules/)")
            else:
                base_model = build(base_src)
                if base_model is not None and h.extends_version and not version_matches(
                        base_model.version, h.extends_version):
                    sink.error("W604", f"this overlay is written for {h.extends} {h.extends_version}, "
                               f"but the base is version {base_model.version}", span,
                               "check what changed in the base, then update the version after 'extends'",
                               related=[(base_model.header.span, "the base ruleset")])
        model = from_source(src, sink, base_model) if (h.extends is None or base_model is not None) else None
        models[h.id] = model
        building.discard(h.id)
        return model

    out: list[Ruleset] = []
    for src in wanted:
        model = build(src)
        if model is not None:
            check_recovered(model, src.files, sink)
            out.append(model)
    seen: dict[str, RulesetSource] = {}
    for src in wanted:
        if src.header is not None:
            if src.header.id in seen and seen[src.header.id] is not src:
                sink.error("W102", f"two ruleset folders use the id '{src.header.id}'", src.header.span,
                           related=[(seen[src.header.id].header.span, "the other one")])  # type: ignore[union-attr]
            seen[src.header.id] = src
    return Compilation(tuple(out), sink.items, MappingProxyType(sources))


_SEMVER = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def _parts(v: str) -> tuple[int, int, int] | None:
    m = _SEMVER.search(v)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def version_matches(actual: str | None, requirement: str) -> bool:
    """Does ``actual`` satisfy ``requirement`` (``1.2.0``, ``^1.2.0``, ``~1.2.0``, ``>=1.2.0``)?

    >>> version_matches("1.3.0", "^1.2.0"), version_matches("2.0.0", "^1.2.0"), version_matches("1.2.0", "1.2.0")
    (True, False, True)
    """
    if actual is None:
        return False
    a, r = _parts(actual), _parts(requirement)
    if a is None or r is None:
        return actual == requirement
    if requirement.startswith("^"):
        return a >= r and a[0] == r[0]
    if requirement.startswith("~"):
        return a >= r and a[:2] == r[:2]
    if requirement.startswith(">="):
        return a >= r
    return a == r


def compile_text(text: str, path: str = "input.rules") -> Compilation:
    """Compile one ruleset given as text (no includes, no base): for tests, fuzzing and editors.

    >>> r = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\nstat BS "Ballistic Skill" 1..10\\n')
    >>> r.ok, r.rulesets[0].id
    (True, 'demo')
    """
    from compiler.ast.build import build_file
    from compiler.model.load import with_recovery
    from compiler.syntax.recover import parse_recovering

    sink = Sink()
    tree, diags, recovered = parse_recovering(text, path)
    sink.extend(diags)
    rulesets: list[Ruleset] = []
    if tree is not None:
        file, diags = build_file(tree, path)
        file = with_recovery(file, recovered)
        sink.extend(diags)
        if file.header is None:
            if file.items:
                sink.error("W402", "this text has no 'ruleset' header", Span.point(path),
                           'start it with: ruleset my-rules "My rules":')
        else:
            for inc in file.includes:
                sink.error("W104", "includes need a ruleset folder; check the folder instead", inc.span)
            src = RulesetSource(path, file.header, (file,), ((path, text),))
            model = from_source(src, sink, None)
            if model is not None:
                check_recovered(model, (file,), sink)
                rulesets.append(model)
    return Compilation(tuple(rulesets), sink.items, MappingProxyType({path: text}))
