"""``warscribe check``: a result changed, but the version did not (W607).

When a ruleset folder lives in a git repository, its files differ from the
last commit (HEAD), and HEAD has that ruleset with the *same* header version,
every example present in both is worked out under both, and each example
whose values changed gets a warning: the change alters what the rules say
happens, so readers of the published rulebook deserve a new version number and
a history line.

It stays cheap: a clean folder costs one ``git status``; outside git, or
when git is missing, nothing happens.  Errors reading HEAD are ignored (this
is advice, not a check of the rules).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

from compiler import codes
from compiler import ast as A
from compiler.diagnostics import Diagnostic, Severity
from compiler.model.ruleset import Ruleset


def version_warnings(models: Iterable[Ruleset]) -> tuple[Diagnostic, ...]:
    """W607 warnings for the given (compiled, error-free) rulesets."""
    from compiler.review.gitsource import GIT_FAILURES, changed_since_head

    models = list(models)
    try:
        changed = changed_since_head([Path(model.folder) for model in models])
    except GIT_FAILURES:
        return ()
    out: list[Diagnostic] = []
    for model in models:
        folder = Path(model.folder)
        if not changed.get(folder):
            continue
        try:
            old = _head_model(folder)
        except GIT_FAILURES:
            continue
        if old is None or old.id != model.id or old.version != model.version:
            continue
        out.extend(_warnings(old, model))
    return tuple(out)


def _head_model(folder: Path) -> Ruleset | None:
    from compiler.driver import compile_paths
    from compiler.review.gitsource import relative_in_repo, extract_at, repo_root, resolve_revision

    repo = repo_root(folder)
    if repo is None:
        return None
    commit = resolve_revision(repo, "HEAD")
    rel = relative_in_repo(repo, folder)
    with tempfile.TemporaryDirectory(prefix="warscribe-head-") as tmp:
        where = extract_at(repo, commit, rel, Path(tmp))
        result = compile_paths([os.path.join(tmp, str(where))])
    if not result.ok or len(result.rulesets) != 1:
        return None
    return result.rulesets[0]


def _only_prose(old: Ruleset, new: Ruleset) -> bool:
    """Did only texts change (prose, titles, definitions, the header)?  Then no result can have."""
    from compiler.review.diff import CHANGED, diff_models

    words = {"title", "definition", "aka", "see", "summary", "history", "source", "authors", "licence"}
    for c in diff_models(old, new, cells=False).changes:
        if c.kind == "ruleset":
            continue
        if c.change != CHANGED or c.stats or any(f.field not in words for f in c.fields):
            return False
    return True


def _warnings(old: Ruleset, new: Ruleset) -> list[Diagnostic]:
    from compiler.review.diff import changed_examples

    if _only_prose(old, new):
        return []
    out = []
    for item in changed_examples(old, new):
        ex = new.get(item.id)
        assert isinstance(ex, A.Example)
        first = next(v for v in item.values if v.changed)
        more = sum(1 for v in item.values if v.changed) - 1
        old_v = first.old if first.old is not None else "(none)"
        new_v = first.new if first.new is not None else "(none)"
        also = f", and {more} more value{'s' if more > 1 else ''}" if more > 0 else ""
        out.append(Diagnostic(
            codes.VERSION_NOT_BUMPED.code, Severity.WARNING,
            f"the result of example '{item.id}' changed since the last commit ({first.subject}: "
            f"{old_v} → {new_v}{also}) but the version is still {new.version}",
            ex.span, "bump the version and add a history line"))
    return out
