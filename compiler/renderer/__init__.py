"""The renderer: rules models → a tree of Markdown pages, a navigation and assets.

::

    Compilation ─ sitemap ─▶ anchors ─ pages ─▶ (template, context) ─ Jinja2 ─▶ Markdown
      (models)   (sitemap.py)          (pages.py, tables.py,        (env.py,     RenderedSite
                                        examples.py, compare.py)     templates/)

The Markdown tree is the contract: it does not depend on MkDocs (the MkDocs
plugin in :mod:`compiler.mkdocs_plugin` only hands these pages over), and the
same sources give byte-identical output.

>>> from compiler.driver import compile_paths
>>> out = site(compile_paths(["rules/console-40k"]))     # doctest: +SKIP
>>> [p.path for p in out.pages][:3]                     # doctest: +SKIP
['index.md', 'comparison.md', 'console-40k/index.md']
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

import jinja2

from ..driver import Compilation
from ..model import Ruleset
from .compare import Matchup, MatchupError, answers
from .env import environment
from .pages import Page, RulesetData, ruleset_data, ruleset_pages_for
from .sitemap import SiteMap, ruleset_pages, section_page

__all__ = ["Matchup", "MatchupError", "RenderError", "RenderedPage", "RenderedSite", "SiteOptions", "site",
           "write"]

ASSETS = ("assets/warscribe.css",)


class RenderError(Exception):
    """The site cannot be rendered (rules with errors, a broken template)."""


@dataclass(frozen=True)
class SiteOptions:
    title: str = "Rulebooks"
    matchups: tuple[Matchup, ...] = ()
    overrides: str | None = None  # a folder whose templates replace the packaged ones


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

    def page(self, path: str) -> RenderedPage:
        return next(p for p in self.pages if p.path == path)


def site(compilation: Compilation, options: SiteOptions | None = None) -> RenderedSite:
    """Render every ruleset of a compilation, plus the home and comparison pages."""
    options = options or SiteOptions()
    if not compilation.ok:
        raise RenderError("the rules have errors; run `warscribe check` to see them")
    rulesets = tuple(sorted(compilation.rulesets, key=lambda r: r.id))
    env = environment(options.overrides)
    sitemap = SiteMap(rulesets)
    site_info = {"title": options.title, "rulesets": rulesets, "has_comparison": bool(options.matchups)}
    pages: list[Page] = []
    datas: list[RulesetData] = []
    for rs in rulesets:
        data = ruleset_data(rs, sitemap, compilation.sources)
        datas.append(data)
    from .tools import PageTools
    home_tools = PageTools("index.md", None, sitemap, compilation.sources)
    pages.append(Page("index.md", options.title, "home.md.j2", dict(
        site=site_info, r=home_tools, summaries=[_summary(d) for d in datas])))
    if options.matchups:
        by_id = {rs.id: rs for rs in rulesets}
        pages.append(Page("comparison.md", "Comparison", "comparison.md.j2", dict(
            site=site_info, r=PageTools("comparison.md", None, sitemap, compilation.sources),
            matchups=[(m, answers(m, by_id)) for m in options.matchups])))
    for data in datas:
        pages.extend(ruleset_pages_for(env, data, site_info))
    rendered = tuple(RenderedPage(p.path, p.title, _render(env, p)) for p in pages)
    return RenderedSite(rendered, _nav(rulesets, bool(options.matchups)), _assets())


def _summary(data: RulesetData) -> dict[str, Any]:
    from .pages import counts
    return {"rs": data.rs, "counts": counts(data.rs), "path": ruleset_pages(data.rs.id)["overview"]}


def _render(env: jinja2.Environment, page: Page) -> str:
    try:
        text = env.get_template(page.template).render(page=page, **page.context)
    except jinja2.TemplateError as err:
        where = getattr(err, "filename", None) or page.template
        line = getattr(err, "lineno", None)
        raise RenderError(f"template {where}{':' + str(line) if line else ''} failed for {page.path}: {err}") from err
    text = re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"
    return text


def _nav(rulesets: tuple[Ruleset, ...], comparison: bool) -> tuple[Any, ...]:
    from .. import ast as A

    nav: list[Any] = [{"Home": "index.md"}]
    for rs in rulesets:
        pages = ruleset_pages(rs.id)
        rulebook = [{s.title: section_page(rs.id, s.id)} for s in rs.items if isinstance(s, A.Section)]
        entry: list[Any] = [{"Overview": pages["overview"]}]
        if rulebook:
            entry.append({"Rulebook": rulebook})
        entry += [{"Lexicon": pages["lexicon"]}, {"Quick reference": pages["quickref"]},
                  {"Datasheets": pages["datasheets"]}, {"Worked examples": pages["examples"]},
                  {"Notes": pages["notes"]}]
        nav.append({rs.title: entry})
    if comparison:
        nav.append({"Comparison": "comparison.md"})
    return tuple(nav)


def _assets() -> tuple[tuple[str, str], ...]:
    root = resources.files("compiler.renderer") / "assets"
    return tuple((path, (root / Path(path).name).read_text(encoding="utf-8")) for path in ASSETS)


def write(rendered: RenderedSite, out: str | Path) -> list[Path]:
    """Write the pages and assets under ``out`` (each file atomically); return the paths written."""
    import os
    import tempfile

    out = Path(out)
    written: list[Path] = []
    for path, text in [(p.path, p.markdown) for p in rendered.pages] + list(rendered.assets):
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=target.suffix)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, target)
        written.append(target)
    return written
