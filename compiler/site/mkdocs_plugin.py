"""The MkDocs plugin ``warscribe``: a thin wrapper that adds the rendered pages to a build.

::

    plugins:
      - search
      - warscribe:
          rules_dir: rules          # relative to mkdocs.yml
          matchups: [...]           # the comparison page (see compiler.site.compare)
          docs_section: For authors # the navigation's section for the hand-written pages

At build time the plugin compiles ``rules_dir`` (the same pipeline as
``warscribe check``), renders it with :mod:`compiler.site` and hands the
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
import os
import re
import shutil
import tempfile
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jinja2
import jinja2.bccache
from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files

from compiler.diagnostics import Severity, render
from compiler.driver import compile_paths
from compiler.model.load import UsageError
from compiler.site import nav_html, sanitise
from compiler.site.rawblocks import RawBlocks
from compiler.site.searchview import search_view

log = logging.getLogger("mkdocs.plugins.warscribe")

# Written by the plugin as the build goes, read by `warscribe build` for its progress bar:
# "hook" (set by the caller) is called with (event, done, total).
PROGRESS: dict[str, Any] = {}


def _report(event: str, done: int = 0, total: int = 0) -> None:
    hook = PROGRESS.get("hook")
    if hook is not None:
        hook(event, done, total)


#: How much a generated page weighs in search, by its place in a ruleset's folder (1 when not listed):
#: the rulebook's rules first, then the lexicon's definitions, histories and notes last.
#: The Markdown extensions the generated pages are written for: anchors and classes ``{ #id }``
#: (attr_list), notes (admonition) and folded blocks (pymdownx.details), tooltips (abbr), HTML
#: blocks holding Markdown (md_in_html), code inside folded blocks (pymdownx.superfences).
NEEDED_EXTENSIONS = ("tables", "admonition", "abbr", "attr_list", "md_in_html", "pymdownx.details",
                     "pymdownx.superfences")

SEARCH_BOOST = {"rulebook/": 2.0, "lexicon.md": 1.5, "index.md": 1.5, "notes.md": 0.5, "changes.md": 0.5,
                "house-rules.md": 0.5}

# The elements search skips: code blocks everywhere; tables, charts and folded blocks on generated pages.
_CODE = re.compile(r"<(pre)(?=[\s>])")
_NOT_PROSE = re.compile(r"<(pre|table|figure|details|svg)(?=[\s>])")


class RulesHaveErrors(PluginError):
    """The build stops because the rules have errors; the diagnostics are kept as data, so that
    ``warscribe serve`` can show them on the pages it serves."""

    def __init__(self, diagnostics: tuple[Any, ...], sources: dict[str, str]) -> None:
        super().__init__("warscribe: the rules have errors\n\n" + "\n\n".join(render(d, sources) for d in diagnostics))
        self.diagnostics = diagnostics
        self.sources = sources


class _NoDirtyWarning(logging.Filter):
    """Drops MkDocs' warning that a "dirty" build is being performed: under ``serve`` every
    rebuild is one on purpose (only the pages a change touched are rebuilt), so it says nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("A 'dirty' build")


class WarscribeConfig(base.Config):  # type: ignore[no-untyped-call]  # mkdocs' Config.__init_subclass__ is unannotated
    rules_dir = c.Type(str, default="rules")
    title = c.Optional(c.Type(str))  # the home page's title (default: site_name)
    matchups = c.Type(list, default=[])
    templates_dir = c.Optional(c.Type(str))  # template overrides (default: the docs folder)
    nav = c.Type(bool, default=True)  # build the navigation when mkdocs.yml has none
    docs_section = c.Type(str, default="For authors")  # where the hand-written pages go in that navigation
    calculator_models = c.Type(dict, default={})  # {ruleset id: the largest model count its calculator works out}
    balance = c.Type(dict, default={})  # {ruleset id: {scenario, vary[, games][, policy]}}: its Battles page's Balance section
    tabs = c.Type(dict, default={})  # {ruleset id: its name in the navigation's tabs}, where its short title will not do


class WarscribePlugin(BasePlugin[WarscribeConfig]):  # type: ignore[no-untyped-call]  # mkdocs' BasePlugin.__init_subclass__ is unannotated
    """Adds every ruleset's pages to the MkDocs build."""

    def __init__(self) -> None:
        self.site: Any = None
        self.seconds = 0.0
        self._pages = self._read = self._written = 0
        self.serving = False
        self._render_cache: dict[Any, Any] = {}
        self._compiled: dict[Path, tuple[Any, Any]] = {}
        self._pages_dir: Path | None = None
        self._bytecode: Any = None
        self._generated_paths: set[str] = set()
        self._indexed: dict[int, Any] = {}  # pages indexed from their search view: their search meta

    # MkDocs keeps a plugin that has on_startup between the rebuilds of `mkdocs serve`: the
    # caches below then make a rebuild compile and render only the rulesets that changed.
    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"
        self.dirty = dirty
        if self.serving and dirty:
            build_log = logging.getLogger("mkdocs.commands.build")
            if not any(isinstance(f, _NoDirtyWarning) for f in build_log.filters):
                build_log.addFilter(_NoDirtyWarning())

    def on_shutdown(self) -> None:
        if self._pages_dir is not None:
            shutil.rmtree(self._pages_dir, ignore_errors=True)
            self._pages_dir = None

    def _root(self, config: MkDocsConfig) -> Path:
        return Path(config.config_file_path or ".").resolve().parent

    def rules_dir(self, config: MkDocsConfig) -> Path:
        return self._root(config) / self.config.rules_dir

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        from compiler import site as renderer
        from compiler.site.compare import Matchup, MatchupError

        start, cpu_start = time.perf_counter(), _cpu_seconds()
        _report("render")
        rules = self.rules_dir(config)
        if not rules.is_dir():
            raise PluginError(f"warscribe: the rules folder {rules} does not exist "
                              f"(set rules_dir under the warscribe plugin in {config.config_file_path})")
        try:
            compilation = self._compile_changed(rules) if self.serving else compile_paths([str(rules)])
        except UsageError as err:
            raise PluginError(f"warscribe: {err}") from err
        sources = dict(compilation.sources)
        for d in compilation.diagnostics:
            if d.severity is Severity.WARNING:
                log.warning(render(d, sources))
            elif d.severity is Severity.NOTE:
                log.debug(render(d, sources))
        if not compilation.ok:
            raise RulesHaveErrors(tuple(d for d in compilation.diagnostics if d.is_error), sources)
        try:
            matchups = tuple(Matchup.from_config(m) for m in self.config.matchups)
        except (KeyError, TypeError, AttributeError) as err:
            raise PluginError(f"warscribe: a matchup in mkdocs.yml is not complete ({err}); "
                              "each needs an id and rulesets: {ruleset-id: expression}") from err
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 100
                   for v in self.config.calculator_models.values()):
            raise PluginError("warscribe: calculator_models in mkdocs.yml gives each ruleset a whole number "
                              "of models from 0 to 100, e.g. {console-40k: 10}")
        from compiler.site.balance import settings as balance_settings
        try:
            balance = balance_settings(self.config.balance)
        except ValueError as err:
            raise PluginError(f"warscribe: {err} (under the warscribe plugin in mkdocs.yml)") from err
        overrides = self.config.templates_dir
        overrides_dir = str(self._root(config) / overrides) if overrides else config.docs_dir
        try:
            self.site = renderer.site(compilation, renderer.SiteOptions(
                title=self.config.title or config.site_name, matchups=matchups, overrides=overrides_dir,
                workers=1 if self.serving else (os.cpu_count() or 1), keep=True,
                calculator_models=tuple(sorted((str(k), int(v)) for k, v in self.config.calculator_models.items())),
                tabs=tuple(sorted((str(k), str(v)) for k, v in self.config.tabs.items())), balance=balance),
                cache=self._render_cache if self.serving else None)
        except MatchupError as err:
            detail = "\n\n".join(render(d, err.sources) for d in err.diagnostics)
            raise PluginError(f"warscribe: {err}" + (f"\n\n{detail}" if detail else "")) from err
        except renderer.RenderError as err:
            raise PluginError(f"warscribe: {err}") from err
        if not any(isinstance(e, RawBlocks) for e in config.markdown_extensions):
            config.markdown_extensions.append(RawBlocks())  # type: ignore[arg-type]
        missing = [e for e in NEEDED_EXTENSIONS if e not in config.markdown_extensions]
        if missing:  # a project's own mkdocs.yml without them: anchors, notes and the calculator would not work
            config.markdown_extensions.extend(missing)
            log.info("warscribe: the pages need the Markdown extensions %s, which mkdocs.yml does not list: "
                     "added", ", ".join(missing))
        if config.nav is None and self.config.nav:
            config.nav = self._nav(config)
        theme_dir = str(Path(__file__).parent / "theme")
        if theme_dir not in config.theme.dirs:  # after a project's own custom_dir, before the theme's
            config.theme.dirs.insert(1 if config.theme.custom_dir else 0, theme_dir)
        for path, _ in self.site.assets:
            if path in renderer.THEME_ASSETS:
                continue
            if path.endswith(".css") and path not in config.extra_css:
                config.extra_css.append(path)
            if path.endswith(".js") and path not in [str(s) for s in config.extra_javascript]:
                config.extra_javascript.append(path)
        self.seconds = time.perf_counter() - start
        PROGRESS["render_seconds"] = self.seconds
        PROGRESS["render_cpu_seconds"] = _cpu_seconds() - cpu_start  # forked workers and git included (bench/)
        log.debug(f"compiled and rendered {len(self.site.pages)} pages in {self.seconds:.2f} s")
        return config

    def _nav(self, config: MkDocsConfig) -> list[Any]:
        """The renderer's navigation (titles escaped: themes print them as HTML), then the hand-written
        pages (the language reference, the template guide…) in a section of their own."""
        nav = nav_html(self.site.nav)
        generated = {p.path for p in self.site.pages}
        docs = Path(config.docs_dir)
        # By name, the language reference first: the section opens on it (its tab links there).
        extra = sorted((str(p.relative_to(docs).as_posix()) for p in docs.rglob("*.md")
                        if p.relative_to(docs).as_posix() not in generated), key=lambda n: (n != "language.md", n))
        if not extra:
            return list(nav)
        return list(nav) + list(nav_html([{self.config.docs_section: extra}]))

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
            files.append(self._generated(config, page.path, page.markdown))
        for path, text in self.site.assets:
            if files.get_file_from_path(path) is None:
                files.append(self._generated(config, path, text))
        self._generated_paths = {page.path for page in self.site.pages}
        self._pages = len(files.documentation_pages())
        self._read = self._written = 0
        PROGRESS["pages"] = self._pages
        return files

    def on_page_markdown(self, markdown: str, page: Any, config: MkDocsConfig, files: Files) -> str:
        """A generated page's weight in search: definitions first, histories and notes last."""
        path = page.file.src_uri
        if path in self._generated_paths and "search" not in page.meta:
            if path in self.site.stubs:  # what a stub holds is found on the pages that hold it
                page.meta["search"] = {"exclude": True}
                return markdown
            place = path.split("/", 1)[1] if path.count("/") >= 1 else ""
            role = "rulebook/" if place.startswith("rulebook/") else place
            boost = SEARCH_BOOST.get(role)
            if boost is not None:
                page.meta["search"] = {"boost": boost}
        return markdown

    @event_priority(100)  # before the theme's search plugin writes its index
    def on_post_build(self, config: MkDocsConfig) -> None:
        """Give search what the pages do not say in words: stat lines, names run together
        (:mod:`compiler.site.searchextra`), each added to its entry as an escaped paragraph; and
        drop the mark of an earlier ``warscribe build`` (:meth:`_drop_build_mark`)."""
        self._drop_build_mark(config)
        search = config.plugins.get("material/search")
        index = getattr(search, "search_index", None)
        if self.site is None or index is None or not self.site.search_extras:
            return
        extras = dict(self.site.search_extras)
        for entry in getattr(index, "entries", ()):
            extra = extras.get(entry.get("location")) if isinstance(entry, dict) else None
            if not extra:
                continue
            added = "".join(f" <p>{html.escape(line, quote=False)}</p>" for line in extra.split("\n"))
            if added not in entry.get("text", ""):  # a rebuild under `serve` reuses earlier entries
                entry["text"] = (entry.get("text", "") + added).strip()

    def on_page_content(self, html: str, page: Any, config: MkDocsConfig, files: Files) -> str:
        """A generated page's HTML cleaned by an allow-list (author text never runs), and its title
        made plain escaped text: the theme prints ``page.meta.title`` as it is in ``<title>``.

        Search reads prose: code blocks (on every page) and a generated page's tables, charts and
        folded details are marked ``data-search-exclude``, so results show sentences, not code."""
        self._read += 1
        _report("pages", self._read, self._pages)
        generated = self.site is not None and page.file.src_uri in self._generated_paths
        if generated:
            html = sanitise.clean(html)
            if page.title:
                page.meta["title"] = sanitise.safe_title(self._title(page.file.src_uri, str(page.title)))
        return (_NOT_PROSE if generated else _CODE).sub(r"<\1 data-search-exclude", html)

    def _title(self, path: str, title: str) -> str:
        """A generated page's title (HTML, as the navigation has it) with its ruleset's title after
        it, so that no two pages of the site share a title: "Lexicon · Classic 40K: …"."""
        rs_title = self.site.ruleset_of(path)
        if rs_title is None:
            return title
        if path.endswith("/index.md") and path.count("/") == 1:  # the ruleset's own overview
            return html.escape(rs_title, quote=False)
        return f"{title} · {html.escape(rs_title, quote=False)}"

    @event_priority(50)  # before the theme's search plugin reads the page
    def _index_search_view(self, context: Any, *, page: Any, config: MkDocsConfig, nav: Any) -> Any:
        """Index the page for the theme's search from its :func:`~compiler.site.searchview.search_view`
        (the same entries, less HTML to parse), then have the search plugin skip the page."""
        search = config.plugins.get("material/search")
        index = getattr(search, "search_index", None)
        if search is None or type(search).__module__ != "material.plugins.search.plugin" or index is None \
                or not getattr(search.config, "enabled", True):
            return context
        meta = page.meta.get("search")
        if isinstance(meta, dict) and meta.get("exclude"):
            return context
        view = search_view(page.content)
        if view is None:
            return context
        index.add_entry_from_context(SimpleNamespace(meta=page.meta, content=view, toc=page.toc, url=page.url,
                                                     title=page.title))
        self._indexed[id(page)] = meta
        page.meta["search"] = {**(meta or {}), "exclude": True}
        return context

    @event_priority(-50)  # after it
    def _restore_search_meta(self, context: Any, *, page: Any, config: MkDocsConfig, nav: Any) -> Any:
        if id(page) in self._indexed:
            meta = self._indexed.pop(id(page))
            if meta is None:
                page.meta.pop("search", None)
            else:
                page.meta["search"] = meta
        return context

    on_page_context = CombinedEvent(_index_search_view, _restore_search_meta)

    def _drop_build_mark(self, config: MkDocsConfig) -> None:
        """A build by MkDocs itself (``mkdocs build``, ``mike deploy``) keeps the hidden files of the
        folder it cleans: the mark an earlier ``warscribe build`` left there is removed, so that it is
        never published (``warscribe build`` marks its own new folder after the build)."""
        from compiler.site.output import MARKER

        marker = Path(config.site_dir) / MARKER
        if marker.is_file() and not marker.is_symlink():
            marker.unlink()

    def on_post_page(self, output: str, page: Any, config: MkDocsConfig) -> str:
        self._written += 1
        _report("write", self._written, self._pages)
        return output

    def _generated(self, config: MkDocsConfig, path: str, text: str) -> File:
        """A generated page: in memory, or under `mkdocs serve --dirty` a file rewritten only when
        its text changes, so that MkDocs rebuilds just the pages a change of the rules touched."""
        if not (self.serving and self.dirty):
            return File.generated(config, path, content=text)
        if self._pages_dir is None:
            self._pages_dir = Path(tempfile.mkdtemp(prefix="warscribe-pages-"))
        target = self._pages_dir / path
        data = text.encode("utf-8")
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return File.generated(config, path, abs_src_path=str(target))

    def _compile_changed(self, rules: Path) -> Any:
        """Compile each ruleset folder on its own, reusing the last result of any folder whose
        files (and its base's) have not changed since; merge the results."""
        from types import MappingProxyType

        from compiler.driver import Compilation
        from compiler.model.load import find_ruleset_folders

        rulesets: list[Any] = []
        diagnostics: dict[Any, None] = {}
        sources: dict[str, str] = {}
        wanted = [Path(f) for f in find_ruleset_folders([str(rules)])]
        for folder in wanted:
            before = self._compiled.get(folder)
            if before is None or before[0] != _signature(folder, before[1].sources):
                result = compile_paths([str(folder)])
                self._compiled[folder] = (_signature(folder, result.sources), result)
            result = self._compiled[folder][1]
            rulesets.extend(result.rulesets)
            diagnostics.update(dict.fromkeys(result.diagnostics))
            sources.update(result.sources)
        for gone in set(self._compiled) - set(wanted):
            del self._compiled[gone]
        return Compilation(tuple(rulesets), tuple(diagnostics), MappingProxyType(sources))

    def on_env(self, env: Any, config: MkDocsConfig, files: Files) -> Any:
        """Under `mkdocs serve`, keep the theme's compiled templates between rebuilds
        (MkDocs makes a new template environment for every build)."""
        if self.serving:
            if self._bytecode is None:
                self._bytecode = _MemoryBytecodeCache()
            env.bytecode_cache = self._bytecode
        return env

    @event_priority(100)  # first: the watches other plugins add then go to the native watcher too
    def on_serve(self, server: Any, config: MkDocsConfig, builder: Any) -> Any:
        rules = str(self.rules_dir(config))
        _native_watcher(server, [config.docs_dir, config.config_file_path], rules)
        server.watch(rules)
        return server


def _native_watcher(server: Any, watched: list[str | None], probe: str) -> None:
    """Have ``mkdocs serve`` learn of a saved file from the system (inotify on Linux) instead of
    looking at every watched file twice a second (watchdog's polling observer, MkDocs' choice):
    a change is seen at once, and the rebuild starts after 0.05 s without further changes
    instead of 0.1 s.  ``watched`` are the paths MkDocs watches before the plugins' ``on_serve``.
    Where there is no native watcher, or it cannot start (too many watches), polling stays."""
    from watchdog import events as e
    from watchdog.observers import Observer
    from watchdog.observers.polling import PollingObserver

    if Observer is PollingObserver or not isinstance(server.observer, PollingObserver) \
            or server.observer.is_alive():
        return
    try:
        trial = Observer()
        trial.schedule(e.FileSystemEventHandler(), probe, recursive=True)
        trial.start()
        trial.stop()
        trial.join()
    except OSError as err:
        log.debug(f"warscribe: the system's file watcher is not available ({err}); polling instead")
        return
    moved = []
    for path in watched:
        if path:
            try:
                server.unwatch(path)
            except KeyError:  # not watched after all
                continue
            moved.append(path)
    native = Observer()
    # Changes only: a native watcher also reports files opened and read (by this very build,
    # which would then start another one), where polling sees only what changed.
    changes: list[type[e.FileSystemEvent]] = [e.FileModifiedEvent, e.FileCreatedEvent, e.FileDeletedEvent,
                                               e.FileMovedEvent, e.FileClosedEvent, e.FileAttribEvent]
    native.schedule = partial(native.schedule, event_filter=changes)  # type: ignore[method-assign]
    server.observer = native
    for path in moved:
        server.watch(path)
    server.build_delay = min(server.build_delay, 0.05)


def _cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (forked renderers, git)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return time.process_time()
    own, done = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + done.ru_utime + done.ru_stime


def _signature(folder: Path, sources: Any) -> tuple[tuple[str, int, int], ...]:
    """The files a compiled folder depends on (its own .rules files and those it read, e.g. a
    base ruleset's), each with its modification time and size."""
    paths = {str(p) for p in folder.glob("*.rules")} | set(sources)
    out = []
    for p in sorted(paths):
        try:
            st = os.stat(p)
            out.append((p, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((p, -1, -1))
    return tuple(out)


class _MemoryBytecodeCache(jinja2.BytecodeCache):
    """Compiled templates kept in memory, keyed by template name and source checksum."""

    def __init__(self) -> None:
        self._store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._store.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._store[bucket.key] = bucket.bytecode_to_string()
