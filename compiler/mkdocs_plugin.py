"""The MkDocs plugin ``warscribe``: a thin wrapper that adds the rendered pages to a build.

::

    plugins:
      - search
      - warscribe:
          rules_dir: rules          # relative to mkdocs.yml
          matchups: [...]           # the comparison page (see compiler.renderer.compare)

At build time the plugin compiles ``rules_dir`` (the same pipeline as
``warscribe check``), renders it with :mod:`compiler.renderer` and hands the
pages to MkDocs as generated files (``File.generated``, MkDocs ≥ 1.6).  Rules
with errors stop the build with the same diagnostics ``warscribe check``
prints; warnings are logged under ``mkdocs.plugins.warscribe``, so
``mkdocs build --strict`` fails on them.  Under ``mkdocs serve`` the rules
folder is watched: saving a ``.rules`` file rebuilds the site.

Templates: a file in the docs folder (``site/``) with the name of a packaged
template (``lexicon.md.j2``, ``item/table.md.j2``…) replaces it.
"""
from __future__ import annotations

import html
import logging
import time
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files

from .diagnostics import Severity, render
from .driver import compile_paths
from .load import UsageError

log = logging.getLogger("mkdocs.plugins.warscribe")

# Written by the plugin as the build goes, read by `warscribe build` for its progress bar:
# "hook" (set by the caller) is called with (event, done, total).
PROGRESS: dict[str, Any] = {}


def _report(event: str, done: int = 0, total: int = 0) -> None:
    hook = PROGRESS.get("hook")
    if hook is not None:
        hook(event, done, total)


class WarscribeConfig(base.Config):
    rules_dir = c.Type(str, default="rules")
    title = c.Optional(c.Type(str))  # the home page's title (default: site_name)
    matchups = c.Type(list, default=[])
    templates_dir = c.Optional(c.Type(str))  # template overrides (default: the docs folder)
    nav = c.Type(bool, default=True)  # build the navigation when mkdocs.yml has none


class WarscribePlugin(BasePlugin[WarscribeConfig]):
    """Adds every ruleset's pages to the MkDocs build."""

    def __init__(self) -> None:
        self.site: Any = None
        self.seconds = 0.0
        self._pages = self._read = self._written = 0

    def _root(self, config: MkDocsConfig) -> Path:
        return Path(config.config_file_path or ".").resolve().parent

    def rules_dir(self, config: MkDocsConfig) -> Path:
        return self._root(config) / self.config.rules_dir

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        from . import renderer
        from .renderer.compare import Matchup, MatchupError

        start = time.perf_counter()
        _report("render")
        rules = self.rules_dir(config)
        if not rules.is_dir():
            raise PluginError(f"warscribe: the rules folder {rules} does not exist "
                              f"(set rules_dir under the warscribe plugin in {config.config_file_path})")
        try:
            compilation = compile_paths([str(rules)])
        except UsageError as err:
            raise PluginError(f"warscribe: {err}") from err
        sources = dict(compilation.sources)
        for d in compilation.diagnostics:
            if d.severity is Severity.WARNING:
                log.warning(render(d, sources))
            elif d.severity is Severity.NOTE:
                log.debug(render(d, sources))
        if not compilation.ok:
            errors = [render(d, sources) for d in compilation.diagnostics if d.is_error]
            raise PluginError("warscribe: the rules have errors\n\n" + "\n\n".join(errors))
        try:
            matchups = tuple(Matchup.from_config(m) for m in self.config.matchups)
        except (KeyError, TypeError, AttributeError) as err:
            raise PluginError(f"warscribe: a matchup in mkdocs.yml is not complete ({err}); "
                              "each needs an id and rulesets: {ruleset-id: expression}") from err
        overrides = self.config.templates_dir
        overrides_dir = str(self._root(config) / overrides) if overrides else config.docs_dir
        try:
            self.site = renderer.site(compilation, renderer.SiteOptions(
                title=self.config.title or config.site_name, matchups=matchups, overrides=overrides_dir))
        except MatchupError as err:
            detail = "\n\n".join(render(d, err.sources) for d in err.diagnostics)
            raise PluginError(f"warscribe: {err}" + (f"\n\n{detail}" if detail else "")) from err
        except renderer.RenderError as err:
            raise PluginError(f"warscribe: {err}") from err
        if config.nav is None and self.config.nav:
            config.nav = self._nav(config)
        for path, _ in self.site.assets:
            if path.endswith(".css") and path not in config.extra_css:
                config.extra_css.append(path)
        self.seconds = time.perf_counter() - start
        PROGRESS["render_seconds"] = self.seconds
        log.debug(f"compiled and rendered {len(self.site.pages)} pages in {self.seconds:.2f} s")
        return config

    def _nav(self, config: MkDocsConfig) -> list[Any]:
        """The renderer's navigation (titles escaped: themes print them as HTML), then the hand-written pages."""
        def escape(item: Any) -> Any:
            if isinstance(item, dict):
                return {html.escape(k, quote=False): escape(v) for k, v in item.items()}
            if isinstance(item, (list, tuple)):
                return [escape(i) for i in item]
            return item
        nav = escape(self.site.nav)
        generated = {p.path for p in self.site.pages}
        docs = Path(config.docs_dir)
        extra = sorted(str(p.relative_to(docs).as_posix()) for p in docs.rglob("*.md")
                       if p.relative_to(docs).as_posix() not in generated)
        return list(nav) + extra

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        for f in list(files):
            if f.src_uri.endswith(".j2"):
                files.remove(f)  # template overrides are read by the renderer, not published
        for page in self.site.pages:
            existing = files.get_file_from_path(page.path)
            if existing is not None:
                log.warning(f"warscribe: {page.path} is generated from the rules; the page of that name "
                            f"in {config.docs_dir} is ignored")
                files.remove(existing)
            files.append(File.generated(config, page.path, content=page.markdown))
        for path, text in self.site.assets:
            if files.get_file_from_path(path) is None:
                files.append(File.generated(config, path, content=text))
        self._pages = len(files.documentation_pages())
        self._read = self._written = 0
        PROGRESS["pages"] = self._pages
        return files

    def on_page_content(self, html: str, page: Any, config: MkDocsConfig, files: Files) -> str:
        self._read += 1
        _report("pages", self._read, self._pages)
        return html

    def on_post_page(self, output: str, page: Any, config: MkDocsConfig) -> str:
        self._written += 1
        _report("write", self._written, self._pages)
        return output

    def on_serve(self, server: Any, config: MkDocsConfig, builder: Any) -> Any:
        server.watch(str(self.rules_dir(config)))
        return server
