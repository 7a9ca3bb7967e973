"""The "What these house rules change" page of an overlay, and the Changes page of every ruleset.

Both are built from the semantic diff (:mod:`compiler.review.diff`):

* an overlay's page is ``diff_models(rs.base, rs)`` — every declaration the
  overlay adds, replaces or removes, with links to its entry (and to the base's
  entry for a replaced or removed one) and the clauses before and after — plus
  ``impact(rs.base, rs)``: the standard matchups and the examples whose results
  moved;
* a ruleset's Changes page is its declared history (the header's ``history``
  entries) and, when its folder is in git and :func:`~compiler.review.gitsource.releases`
  finds earlier versions, what each release changed against the one before it.
  Git is optional: outside a repository, without git, or when git or an old
  version cannot be read (:data:`~compiler.review.gitsource.GIT_FAILURES`), the
  page just has the declared history.  Any other exception is a bug, and fails
  the build.

The views are plain data (no Markdown): the templates ``house-rules.md.j2`` and
``changes.md.j2`` turn them into pages.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Mapping

from compiler import ast as A
from compiler.review.diff import ADDED, CHANGED, MOVED, REMOVED, Change, Impact, diff_models, impact
from compiler.model.ruleset import Ruleset
from compiler.site.overlay import (KIND_PLAIN, ChangeLine, OddsView, change_lines, odds_view, plain_prose,
                                   version_words, word_diff)

#: At most this many consecutive release pairs are compared on a Changes page.
MAX_RELEASE_DIFFS = 5


@dataclass(frozen=True)
class FieldView:
    field: str
    old: str | None
    new: str | None
    multiline: bool


@dataclass(frozen=True)
class ChangeView:
    id: str
    kind: str
    title: str
    change: str  # added, changed, removed, moved
    section: str | None
    fields: tuple[FieldView, ...]
    indirect: bool
    cells: int  # how many worked-out cells changed
    text_changed: bool  # its prose changed
    text_diffs: tuple[tuple[str, str], ...] = ()  # (where, the text word by word as HTML) for each changed text

    @property
    def kind_words(self) -> str:
        """The kind in a reader's words ("roll", "battlefield condition")."""
        return KIND_PLAIN.get(self.kind, self.kind)


@dataclass(frozen=True)
class HouseRulesView:
    counts: tuple[tuple[str, int], ...]
    changes: tuple[ChangeView, ...]
    impact: Impact
    header: tuple[FieldView, ...]
    odds: OddsView  # the matchups in a reader's words
    lines: tuple[ChangeLine, ...]  # a sentence per change, in the order of ``changes``
    base_versions: str = ""  # the base versions the overlay is written for, in words


@dataclass(frozen=True)
class ReleaseDiffView:
    old_version: str
    new_version: str
    date: str
    commit: str
    changes: tuple[ChangeView, ...]


def _field_views(c: Change) -> tuple[FieldView, ...]:
    out = [FieldView(f.field, f.old, f.new, f.multiline) for f in c.fields]
    out += [FieldView(s.stat, s.old, s.new, False) for s in c.stats]
    return tuple(out)


def _view(c: Change, titles: Mapping[str, str] | None = None) -> ChangeView:
    diffs: tuple[tuple[str, str], ...] = ()
    if titles is not None:
        diffs = tuple((p.where, word_diff(plain_prose(p.old, titles), plain_prose(p.new, titles))) for p in c.prose)
    return ChangeView(c.id, c.kind, c.title or c.id, c.change, c.section, _field_views(c), c.indirect,
                      len(c.cells), bool(c.prose), diffs)


def house_rules(rs: Ruleset) -> HouseRulesView | None:
    """What an overlay changes in its base, and what that does to the odds (None for a ruleset without a base)."""
    if rs.base is None:
        return None
    d = diff_models(rs.base, rs)
    head = next((c for c in d.changes if c.kind == "ruleset"), None)
    titles = {i: getattr(x, "title", None) or i for m in (rs.base, rs) for i, x in m.symbols.items()}
    changes = tuple(_view(c, titles) for c in d.changes if c.kind != "ruleset")
    n = d.counts()
    counts = tuple((label, n[key]) for key, label in ((ADDED, "added"), (CHANGED, "replaced"),
                                                      (REMOVED, "removed"), (MOVED, "moved")) if n[key])
    found = impact(rs.base, rs)
    return HouseRulesView(counts, changes, found, _field_views(head) if head else (),
                          odds_view(rs.base, rs, found.matchups), change_lines(changes, rs.base, rs),
                          version_words(rs.header.extends_version))


def release_diffs(rs: Ruleset) -> tuple[ReleaseDiffView, ...]:
    """What each release of ``rs`` found in git changed against the one before it, newest first.

    Empty outside git, with fewer than two releases, or when git or an old
    version cannot be read (:data:`~compiler.review.gitsource.GIT_FAILURES`):
    git is a bonus, and the build never fails because of it.  A release whose
    rules have errors is skipped.  Anything else that goes wrong is a bug and
    propagates.
    """
    from compiler.review.gitsource import (GIT_FAILURES, Release, SideSpec, load_commit, releases, repo_root,
                                           unchanged_since)

    from compiler.ast.cached import remembered

    loaded: dict[str, Ruleset | None] = {}
    folders = [Path(m.folder) for m in _with_bases(rs)]  # what the model is compiled from
    repo: list[Path | None] = []  # the repository, looked for once

    def model(commit: str) -> Ruleset | None:
        if commit not in loaded:
            try:
                if not repo:
                    repo.append(repo_root(Path(rs.folder)))
                if repo[0] is None:
                    raise _Unreadable()
                if found and commit == found[0].commit and unchanged_since(repo[0], commit, folders):
                    loaded[commit] = rs  # the newest release is the work tree's rules: compiled already
                    return rs
                side = load_commit(repo[0], commit, SideSpec(commit, rs.folder))  # a commit id from git log
            except GIT_FAILURES as err:
                raise _Unreadable() from err
            loaded[commit] = side.model if side.ok else None
        return loaded[commit]

    def view(newer: Release, older: Release) -> tuple[ReleaseDiffView | None]:
        new_m, old_m = model(newer.commit), model(older.commit)
        if new_m is None or old_m is None:
            return (None,)  # a release whose rules have errors is skipped
        d = diff_models(old_m, new_m, cells=False)
        return (ReleaseDiffView(older.version, newer.version, newer.date, newer.commit[:12],
                                tuple(_view(c) for c in d.changes if c.kind != "ruleset")),)

    def is_view(found: object) -> bool:
        return isinstance(found, tuple) and len(found) == 1 and (found[0] is None or isinstance(found[0], ReleaseDiffView))

    try:
        found = releases(rs.folder)
    except GIT_FAILURES:
        return ()
    out: list[ReleaseDiffView] = []
    for newer, older in list(zip(found, found[1:]))[:MAX_RELEASE_DIFFS]:
        # Two commits' rules never change: their diff is kept between builds (compiling both is slow).
        key = "\0".join((rs.folder, newer.version, newer.date, newer.commit, older.version, older.commit))
        try:
            (done,) = remembered("release", key.encode("utf-8", "surrogatepass"), partial(view, newer, older), is_view)
        except _Unreadable:
            return ()
        if done is not None:
            out.append(done)
    return tuple(out)


def _with_bases(rs: Ruleset) -> list[Ruleset]:
    out = [rs]
    while out[-1].base is not None and len(out) < 16:
        out.append(out[-1].base)
    return out


class _Unreadable(Exception):
    """Git or an old version could not be read (one of :data:`~compiler.review.gitsource.GIT_FAILURES`)."""


def history(rs: Ruleset) -> tuple[A.HistoryEntry, ...]:
    return tuple(rs.header.history)


def has_house_rules_page(rs: Ruleset) -> bool:
    return rs.base is not None


__all__ = ["ChangeView", "FieldView", "HouseRulesView", "ReleaseDiffView", "house_rules", "release_diffs",
           "history", "has_house_rules_page", "MAX_RELEASE_DIFFS"]
