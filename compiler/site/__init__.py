"""The renderer: rules models → a tree of Markdown pages, a navigation and assets.

::

    Compilation ─ sitemap ─▶ anchors ─ pages ─▶ (template, context) ─ Jinja2 ─▶ Markdown
      (models)   (sitemap.py)          (pages.py, tables.py,        (env.py,     RenderedSite
                                        examples.py, compare.py)     templates/)

The Markdown tree is the contract: it does not depend on MkDocs (the MkDocs
plugin in :mod:`compiler.site.mkdocs_plugin` only hands these pages over), and the
same sources give byte-identical output.

The stage's entry points: :func:`site` renders a compilation into a
:class:`RenderedSite`, :func:`write` puts it on disk; :class:`SiteOptions` holds
the site title, the matchups of the comparison page and the template overrides.
The JSON export of the model is :mod:`compiler.site.export`.

>>> import compiler
>>> from compiler.driver import compile_paths
>>> rules = Path(compiler.__file__).parent.parent / "rules" / "console-40k"
>>> out = site(compile_paths([str(rules)]))
>>> [p.path for p in out.pages][:2]
['index.md', 'console-40k/index.md']
>>> out.page("console-40k/lexicon.md").title
'Lexicon'
>>> out.nav[0]
{'Home': 'index.md'}
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, MutableMapping

import jinja2

from compiler import ast as A
from compiler.ast.cached import keep, recall
from compiler.driver import Compilation
from compiler.model.ruleset import Ruleset
from compiler.resolve import ResolveError
from compiler.site.compare import Matchup, MatchupError, answers, comparison
from compiler.site.env import environment
from compiler.site.markup import nav_html
from compiler.site.pages import Page, checked_context, ruleset_data, ruleset_pages_for
from compiler.site.searchextra import search_extras
from compiler.site.sitemap import SiteMap, navigation, ruleset_pages, stub_chapters

if TYPE_CHECKING:
    from compiler.site.balance import BalanceSetting

__all__ = ["THEME_ASSETS", "Matchup", "MatchupError", "RenderError", "RenderedPage", "RenderedSite", "SiteOptions",
           "nav_html", "site", "write"]

ASSETS = ("assets/warscribe.css", "assets/warscribe-site.css", "assets/ruleset-search.js", "assets/player-view.js",
          "assets/lazy-search.js", "assets/calculator.js", "assets/army.js",
          "assets/army.css")
#: Assets the theme's templates load themselves (compiler/site/theme), not listed as extra scripts:
#: the army builder's only on its own pages.
THEME_ASSETS = frozenset({"assets/lazy-search.js", "assets/army.js", "assets/army.css"})


class RenderError(Exception):
    """The site cannot be rendered (rules with errors, a broken template)."""


@dataclass(frozen=True)
class SiteOptions:
    title: str = "Rulebooks"
    matchups: tuple[Matchup, ...] = ()
    overrides: str | None = None  # a folder whose templates replace the packaged ones
    workers: int = 1  # render rulesets in this many processes (where forking is safe)
    keep: bool = False  # keep each ruleset's pages in the cache folder, for the next run to reuse
    tabs: tuple[tuple[str, str], ...] = ()  # (ruleset id, its name in the navigation's tabs), where chosen
    #: (ruleset id, the largest model count its matchup calculator works out): the rulesets that have one
    calculator_models: tuple[tuple[str, int], ...] = ()
    #: the scenarios whose Battles page has a Balance section, and its sweep (compiler.site.balance)
    balance: tuple[BalanceSetting, ...] = ()


@dataclass(frozen=True)
class RenderedPage:
    path: str  # in the Markdown tree, e.g. "console-40k/lexicon.md"
    title: str
    markdown: str


@dataclass(frozen=True)
class RenderedSite:
    pages: tuple[RenderedPage, ...]
    nav: tuple[Any, ...]  # MkDocs-style, titles plain text: ({"Title": "path.md"} | {"Title": [...]}, ...)
    assets: tuple[tuple[str, str], ...]  # (path, text)
    rulesets: tuple[tuple[str, str], ...] = ()  # (id, title): the folder of a ruleset's pages, and its name
    stubs: frozenset[str] = frozenset()  # chapters left out of the navigation (and of search)
    search_extras: tuple[tuple[str, str], ...] = ()  # (search location, plain text): see compiler.site.searchextra

    def ruleset_of(self, path: str) -> str | None:
        """The title of the ruleset a page belongs to (None for the site's own pages)."""
        first = path.split("/", 1)[0]
        return next((title for rs_id, title in self.rulesets if rs_id == first and "/" in path), None)

    def page(self, path: str) -> RenderedPage:
        return next(p for p in self.pages if p.path == path)


def site(compilation: Compilation, options: SiteOptions | None = None,
         cache: MutableMapping[Any, Any] | None = None) -> RenderedSite:
    """Render every ruleset of a compilation, plus the home and comparison pages.

    ``cache`` (any dict the caller keeps between calls, e.g. ``mkdocs serve``'s
    plugin) skips rulesets whose sources, templates and options have not changed:
    their pages are reused as they were.  With ``options.keep`` (the MkDocs plugin's
    builds) each ruleset's pages are also kept in the cache folder, under a key of
    everything they depend on, for the next run.  The output is the same either way.

    >>> from compiler.driver import compile_text
    >>> out = site(compile_text('ruleset demo "Demo":\\n  version 1.0.0\\nterm turn "Turn": "A round of play."\\n'))
    >>> [p.path for p in out.pages if p.path.startswith("demo/")][:3]
    ['demo/index.md', 'demo/lexicon.md', 'demo/quick-reference.md']
    >>> print(out.page("demo/lexicon.md").markdown.splitlines()[0])
    # Lexicon
    """
    options = options or SiteOptions()
    if not compilation.ok:
        raise RenderError("the rules have errors; run `warscribe check` to see them")
    cache = {} if cache is None else cache
    rulesets = tuple(sorted(compilation.rulesets, key=lambda r: r.id))
    templates_key = _templates_key(options.overrides)
    env_entry = cache.get("env")
    if env_entry is None or env_entry[0] != templates_key:
        env_entry = (templates_key, environment(options.overrides))
        cache["env"] = env_entry
    env = env_entry[1]
    sitemap = SiteMap(rulesets)
    site_info = {"title": options.title, "rulesets": rulesets, "has_comparison": bool(options.matchups),
                 "calculator_models": dict(options.calculator_models),
                 "calculators": _calculators(rulesets, dict(options.calculator_models)),
                 "balance": _balance(rulesets, options.balance)}
    shared = _shared_key(rulesets, options, templates_key)
    keys = {rs.id: _ruleset_key(rs, compilation.sources, shared) for rs in rulesets}

    from compiler.site.pages import counts
    from compiler.site.tools import PageTools
    pages: list[Page] = [Page("index.md", options.title, "home.md.j2", dict(
        site=site_info, r=PageTools("index.md", None, sitemap, compilation.sources),
        summaries=[{"rs": rs, "counts": counts(rs), "path": ruleset_pages(rs.id)["overview"],
                    "pages": ruleset_pages(rs.id), "battles": bool(rs.of_type(A.Scenario)),
                    "datasheets": bool(rs.of_type(A.Profile) or rs.of_type(A.Squad)), "army": bool(rs.of_type(A.Army))}
                   for rs in rulesets]))]
    if options.matchups:
        by_id = {rs.id: rs for rs in rulesets}
        found = []
        for m in options.matchups:
            key = ("matchup", m, tuple(keys.get(e.ruleset, "") for e in m.entries))
            if key not in cache:
                cache[key] = answers(m, by_id)
            found.append(comparison(m, cache[key], dict(options.tabs)))
        pages.append(Page("comparison.md", "Comparison", "comparison.md.j2", dict(
            site=site_info, r=PageTools("comparison.md", None, sitemap, compilation.sources),
            matchups=found)))
    rendered = [RenderedPage(p.path, p.title, _render(env, p)) for p in pages]
    todo = [rs for rs in rulesets if cache.get(("ruleset", rs.id), (None,))[0] != keys[rs.id]]
    if options.keep:
        todo = [rs for rs in todo if not _stored_pages(rs.id, keys[rs.id], cache)]
    state = _RenderState(env, sitemap, compilation.sources, site_info, {rs.id: rs for rs in todo})
    try:
        for rs_id, ruleset_pages_rendered in _render_rulesets(state, options.workers):
            cache[("ruleset", rs_id)] = (keys[rs_id], ruleset_pages_rendered)
            if options.keep:
                keep("pages", keys[rs_id].encode(), ruleset_pages_rendered)
    except ResolveError as err:  # a battle the pages play meets a question its rules leave unanswered
        where = f"{err.span.file}:{err.span.line}:{err.span.column}: " if err.span is not None else ""
        raise RenderError(f"{where}{err.message}") from err
    for rs in rulesets:
        rendered.extend(cache[("ruleset", rs.id)][1])
    stubs = stub_chapters(rulesets)
    nav = navigation(rulesets, bool(options.matchups), dict(options.tabs), stubs,
                     frozenset(p.path.split("/")[0] for p in rendered if p.path.endswith("/calculator.md")),
                     frozenset(p.path.split("/")[0] for p in rendered if p.path.endswith("/army.md")))
    return RenderedSite(tuple(rendered), nav, _assets(rulesets, options.title),
                        tuple((rs.id, rs.title) for rs in rulesets), stubs, search_extras(rulesets))


def _balance(rulesets: tuple[Ruleset, ...], found: tuple[BalanceSetting, ...]) -> dict[str, dict[str, BalanceSetting]]:
    """``{ruleset id: {scenario id: its sweep}}``, once every setting is known to be one
    ``warscribe balance`` would run (``RenderError``, one sentence, otherwise)."""
    from compiler.site.balance import check

    try:
        check(found, {rs.id: rs for rs in rulesets})
    except ValueError as err:
        raise RenderError(str(err)) from err
    out: dict[str, dict[str, BalanceSetting]] = {}
    for s in found:
        out.setdefault(s.ruleset, {})[s.scenario] = s
    return out


def _calculators(rulesets: tuple[Ruleset, ...], models: Mapping[str, int]) -> frozenset[str]:
    """The rulesets that get a matchup calculator page (their overview and the home page link it)."""
    from compiler.site.calculator import offers_calculator

    return frozenset(rs.id for rs in rulesets if offers_calculator(rs, int(models.get(rs.id, 0))))


@dataclass(frozen=True)
class _RenderState:
    env: jinja2.Environment
    sitemap: SiteMap
    sources: Mapping[str, str]
    site_info: Mapping[str, Any]
    rulesets: Mapping[str, Ruleset]


_FORKED: _RenderState | None = None  # what forked workers render from (inherited, never pickled)


def _render_ruleset(state: _RenderState, rs_id: str) -> tuple[str, tuple[RenderedPage, ...]]:
    """Work out one ruleset's tables and examples and render its pages."""
    data = ruleset_data(state.rulesets[rs_id], state.sitemap, state.sources)
    pages = [RenderedPage(p.path, p.title, _render(state.env, p))
             for p in ruleset_pages_for(state.env, data, state.site_info)]
    from compiler.site.calculator import calculator_files
    pages += [RenderedPage(path, title, text) for path, title, text
              in calculator_files(state.rulesets[rs_id], state.sitemap, state.sources, state.site_info)]
    from compiler.site.army import army_files
    pages += [RenderedPage(path, title, text) for path, title, text in army_files(state.rulesets[rs_id], state.sitemap)]
    return rs_id, tuple(pages)


def _render_forked(rs_id: str) -> tuple[str, tuple[RenderedPage, ...]]:
    assert _FORKED is not None
    return _render_ruleset(_FORKED, rs_id)


def _render_rulesets(state: _RenderState, workers: int) -> list[tuple[str, tuple[RenderedPage, ...]]]:
    """Render the rulesets one after the other, or in ``workers`` forked processes.

    Forking is used only where it is safe: on a platform that has it, from a process
    running a single thread (a fork copies only the calling thread, and a lock held by
    another one would stay locked in the child).  The pages are the same either way.
    """
    ids = sorted(state.rulesets, key=lambda i: -len(state.rulesets[i].files))  # biggest first
    import multiprocessing
    import threading

    if workers > 1 and len(ids) > 1 and threading.active_count() == 1 \
            and "fork" in multiprocessing.get_all_start_methods():
        import gc

        from compiler.site.battles import play_shared

        global _FORKED
        _FORKED = state
        _compile_templates(state.env)  # once, here: each worker would compile those it uses
        play_shared(state.rulesets)  # the games two rulesets' pages show, played once
        gc.freeze()  # the workers' collections skip what they inherit, so its pages stay shared, not copied
        try:
            with multiprocessing.get_context("fork").Pool(min(workers, len(ids))) as pool:
                return list(pool.imap_unordered(_render_forked, ids, chunksize=1))
        finally:
            gc.unfreeze()
            _FORKED = None
    return [_render_ruleset(state, rs_id) for rs_id in ids]


def _compile_templates(env: jinja2.Environment) -> None:
    """Compile every template of ``env`` (those that do not compile are left to fail where a page
    renders them, which says where and for which page)."""
    for name in env.list_templates(filter_func=lambda n: n.endswith(".j2")):
        try:
            env.get_template(name)
        except Exception:  # noqa: BLE001 — a broken override (bad syntax, not UTF-8) fails where it is rendered
            pass


def _templates_key(overrides: str | None) -> str:
    """What the override templates are: a digest of every ``*.j2`` file under the overrides folder."""
    digest = hashlib.sha256()
    if overrides is not None and Path(overrides).is_dir():
        for path in sorted(Path(overrides).rglob("*.j2")):
            digest.update(str(path.relative_to(overrides)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _shared_key(rulesets: tuple[Ruleset, ...], options: SiteOptions, templates_key: str) -> str:
    """What every ruleset's pages depend on besides its own sources: the packaged templates, the
    overrides, the site's title, whether it has a comparison page and which rulesets it holds."""
    digest = hashlib.sha256(f"{options.title}\0{templates_key}\0{_packaged_templates()}\0"
                            f"{bool(options.matchups)}\0{options.calculator_models}\0{options.balance}\0".encode())
    for rs in rulesets:
        digest.update(f"{rs.id}\0{rs.title}\0".encode())
    return digest.hexdigest()


_PACKAGED: list[str] = []  # the packaged templates' digest, read once per process


def _packaged_templates() -> str:
    if not _PACKAGED:
        digest = hashlib.sha256()
        root = Path(str(resources.files("compiler.site") / "templates"))
        for path in sorted(root.rglob("*.j2")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
        _PACKAGED.append(digest.hexdigest())
    return _PACKAGED[0]


def _ruleset_key(rs: Ruleset, sources: Mapping[str, str], shared: str) -> str:
    """A digest of everything one ruleset's pages depend on: its sources (and its base's), the
    commits of its folder (its Changes page), and what all pages share (``shared``)."""
    from compiler.review.gitsource import commits_of

    digest = hashlib.sha256(f"{rs.id}\0{shared}\0".encode())
    digest.update(commits_of(rs.folder).encode("utf-8", "surrogateescape") + b"\0")
    model: Ruleset | None = rs
    while model is not None:
        for f in model.files:
            digest.update(f.encode("utf-8", "surrogateescape") + b"\0"
                          + sources.get(f, "").encode("utf-8", "surrogateescape") + b"\0")
        model = model.base
    return digest.hexdigest()


def _stored_pages(rs_id: str, key: str, cache: MutableMapping[Any, Any]) -> bool:
    """Are the pages rendered for ``key`` in the cache folder (from an earlier build)?  If so,
    they are put in ``cache``.  Keyed by everything they depend on (:func:`_ruleset_key`) and
    warscribe's own fingerprint, they are the pages rendering would give."""
    found = recall("pages", key.encode(), _are_pages)
    if found is None:
        return False
    cache[("ruleset", rs_id)] = (key, found[0])
    return True


def _are_pages(found: object) -> bool:
    return isinstance(found, tuple) and bool(found) and all(isinstance(p, RenderedPage) for p in found)


def _template_frame(err: BaseException, default: str) -> tuple[str, int | None]:
    """The template file and line where ``err`` was raised (Jinja puts template frames in tracebacks)."""
    found: tuple[str, int | None] = (default, None)
    tb = err.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.endswith(".j2"):
            found = (name, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _render(env: jinja2.Environment, page: Page) -> str:
    context = checked_context(page.template, page.context)  # a page missing a declared name is a bug: TypeError
    try:
        text = env.get_template(page.template).render(page=page, **context)
    except jinja2.TemplateError as err:
        where = getattr(err, "filename", None) or page.template
        line = getattr(err, "lineno", None)
        raise RenderError(f"template {where}{':' + str(line) if line else ''} failed for {page.path}: {err}") from err
    except RecursionError as err:  # a template override that extends or includes itself
        where, line = _template_frame(err, page.template)
        raise RenderError(f"template {where}{':' + str(line) if line else ''} failed for {page.path}: it extends "
                          f"or includes itself (directly or through another template)") from None
    except Exception as err:  # an override that raises (1/0, a method that fails): one located sentence
        where, line = _template_frame(err, page.template)
        raise RenderError(f"template {where}{':' + str(line) if line else ''} failed for {page.path}: "
                          f"{type(err).__name__}: {err}") from err
    text = re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"
    return text


def _assets(rulesets: tuple[Ruleset, ...], title: str) -> tuple[tuple[str, str], ...]:
    """The packaged stylesheets and scripts; the search script gets each ruleset's title written in."""
    import json

    root = resources.files("compiler.site") / "assets"
    out = []
    for path in ASSETS:
        text = (root / Path(path).name).read_text(encoding="utf-8")
        if path.endswith("ruleset-search.js"):
            names = json.dumps({rs.id: rs.title for rs in rulesets}, ensure_ascii=True, sort_keys=True)
            text = text.replace("/*WARSCRIBE_NAMES*/{}", names.replace("</", "<\\/"))
            text = text.replace('/*WARSCRIBE_OTHER*/""', json.dumps(title, ensure_ascii=True).replace("</", "<\\/"))
        out.append((path, text))
    return tuple(out)


def write(rendered: RenderedSite, out: str | Path) -> list[Path]:
    """Write the pages and assets under ``out`` (each file atomically); return the paths written.

    A link found where a file goes is replaced, never written through: nothing outside ``out`` changes.
    """
    from compiler.site.output import write_atomic

    out = Path(out)
    written: list[Path] = []
    for path, text in [(p.path, p.markdown) for p in rendered.pages] + list(rendered.assets):
        target = out / path
        folder = out
        for part in Path(path).parts[:-1]:  # a link where a folder goes is replaced, never written through
            folder = folder / part
            if folder.is_symlink():
                folder.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        write_atomic(target, text.encode("utf-8"))
        written.append(target)
    return written
