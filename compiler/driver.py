"""The pipeline in one short function: load → parse → build → merge overlays → check.

:func:`compile_paths` finds the ruleset folders, reads and parses their files
(:mod:`compiler.model.load`), finds each overlay's base, merges it
(:func:`compiler.model.ruleset.from_source`), runs the checks (:mod:`compiler.check`) and
returns every model with every diagnostic.  :func:`compile_text` does the same for one text.
Nothing here prints or exits: the caller decides what a diagnostic means.

>>> from pathlib import Path
>>> import compiler
>>> rules = Path(compiler.__file__).resolve().parent.parent / "rules"
>>> result = compile_paths([str(rules / "console-40k")])
>>> result.ok, [r.id for r in result.rulesets]
(True, ['console-40k'])
>>> overlay = compile_paths([str(rules / "dark-millennia")]).rulesets[0]
>>> overlay.base is not None and overlay.base.id
'classic-40k'
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from compiler import ast as A
from compiler import check, codes
from compiler.ast.cached import parse_file
from compiler.diagnostics import Diagnostic, Sink, Span, suggestion
from compiler.limits import MAX_OVERLAY_DEPTH
from compiler.model.load import RulesetSource, display_path, find_ruleset_folders, load_ruleset
from compiler.model.ruleset import Ruleset, from_source, version_matches
from compiler.safepaths import has_rules, leads_out, outward_links

__all__ = ["Compilation", "compile_paths", "compile_text", "run_checks", "version_matches"]


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
    lost_steps = _reads_of_lost_values(model, broken)
    sink.extend(d for d in inner.items
                if not any(q in d.message for q in quoted)
                and not (d.code == codes.UNKNOWN_NAME.code and d.span in lost_steps)
                and not (broken and d.code == codes.NO_WOUNDS_ROLE.code)  # the stat may be among the lost
                and not (guessed and d.span == model.header.span))


def _reads_of_lost_values(model: Ruleset, broken: set[str]) -> set[Span]:
    """The spans of ``r.hits`` where ``r`` is what a lost declaration gave (``let r = volley(…)``
    with ``volley`` lost, a ``let`` of such a ``let``, or ``volley(…).hits`` itself): what it has
    to read is not known, so its name is no unknown stat."""
    if not broken:
        return set()
    spans: set[Span] = set()
    for decl in model.walk():
        lost = set(broken)
        for let in getattr(decl, "lets", ()):
            if _mentions(let.value, lost):
                lost.add(let.name)
        if lost == broken and not any(_mentions(e, lost) for e in model.expressions(decl)):
            continue
        for e in model.expressions(decl):
            for node in A.sub_expressions(e):
                if isinstance(node, A.Attr) and _mentions(node.obj, lost):
                    spans.add(node.span)
    return spans


def _mentions(expr: A.Expr, names: set[str]) -> bool:
    return any(isinstance(n, A.Name) and n.id in names or isinstance(n, A.Call) and n.func in names
               for n in A.sub_expressions(expr))


def run_checks(model: Ruleset, sink: Sink) -> None:
    """Run the checks; a stack overflow in one (a bug, or a pathological input) becomes a diagnostic."""
    try:
        check.run_checks(model, sink)
    except RecursionError:
        sink.error(codes.TOO_DEEP, "this ruleset nests too deeply to check", model.header.span,
                   "look for definitions that call each other in a loop")


def compile_paths(paths: list[str], overrides: Mapping[str, str] | None = None) -> Compilation:
    """Compile the rulesets named by ``paths``.  Raises UsageError for a bad path only.

    ``overrides`` maps absolute file paths to texts read instead of the files on disk
    (an editor's unsaved buffers; see :mod:`compiler.lsp`).
    """
    folders = find_ruleset_folders(paths)
    sink = Sink()
    for link in outward_links(paths):
        sink.error(codes.OUTSIDE_PATH, "this ruleset folder is a link to a place outside the folder of rulesets",
                   Span.point(display_path(link)), "copy the ruleset into the folder instead; warscribe does not follow it")
    sources: dict[str, str] = {}
    loaded: dict[Path, RulesetSource] = {}

    def load(folder: Path) -> RulesetSource:
        if folder not in loaded:
            src = load_ruleset(folder, sink, overrides)
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
            sink.error(codes.CYCLE, f"ruleset '{h.id}' extends itself through its bases", h.extends_span or h.span)
            return None
        building.add(h.id)
        base_model = None
        if h.extends is not None:
            base_src = find_base(src)
            span = h.extends_span or h.span
            if base_src is None:
                link = Path(src.folder).parent / h.extends
                sink.error(codes.REPEATED_PART, f"cannot find the base ruleset '{h.extends}'", span,
                           f"{display_path(link)} is a link to a place outside the project, which warscribe does "
                           "not follow; copy the base's folder here instead" if link.is_symlink() and leads_out(link, link.parent)
                           else suggestion(h.extends, [k for k in by_id if k != h.id], "rulesets beside it")
                           or "put its folder next to this one (e.g. under rules/)")
            elif len(building) >= MAX_OVERLAY_DEPTH:  # built depth first: the chain so far is `building`
                sink.error(codes.TOO_DEEP, f"this chain of overlays is more than {MAX_OVERLAY_DEPTH} rulesets deep "
                           f"(an overlay of an overlay of … a base)", span, "fold some of the overlays into one")
            else:
                base_model = build(base_src)
                if base_model is not None and h.extends_version and not version_matches(
                        base_model.version, h.extends_version):
                    sink.error(codes.BASE_VERSION, f"this overlay is written for {h.extends} {h.extends_version}, "
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
    seen: dict[str, A.Header] = {}
    for src in wanted:
        if src.header is not None:
            other = seen.get(src.header.id)
            if other is not None and other is not src.header:
                sink.error(codes.DUPLICATE, f"two ruleset folders use the id '{src.header.id}'", src.header.span,
                           related=[(other.span, "the other one")])
            seen[src.header.id] = src.header
    return Compilation(tuple(out), sink.items, MappingProxyType(sources))


def compile_text(text: str, path: str = "input.rules") -> Compilation:
    """Compile one ruleset given as text (no includes, no base): for tests, fuzzing and editors.

    >>> r = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\nstat BS "Ballistic Skill" 1..10\\n')
    >>> r.ok, r.rulesets[0].id
    (True, 'demo')
    """
    sink = Sink()
    parsed, diags = parse_file(text, path)
    sink.extend(diags)
    rulesets: list[Ruleset] = []
    if parsed is not None:
        file = parsed
        if file.header is None:
            if file.items:
                sink.error(codes.NO_HEADER, "this text has no 'ruleset' header", Span.point(path),
                           'start it with: ruleset my-rules "My rules":')
        else:
            for inc in file.includes:
                sink.error(codes.BAD_INCLUDE, "includes need a ruleset folder; check the folder instead", inc.span)
            src = RulesetSource(path, file.header, (file,), ((path, text),))
            model = from_source(src, sink, None)
            if model is not None:
                check_recovered(model, (file,), sink)
                rulesets.append(model)
    return Compilation(tuple(rulesets), sink.items, MappingProxyType({path: text}))
