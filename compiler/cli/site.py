"""The publishing commands: ``warscribe render``, ``build``, ``serve`` and ``export``.

``build`` and ``serve`` run MkDocs on the project's ``mkdocs.yml`` (found in
the current folder; without one, a default site is made from ``rules/`` and
``site/``).  ``render`` writes the Markdown tree itself, with no MkDocs at
all; ``export`` writes the model as JSON.  Registered on the ``warscribe``
app by :mod:`compiler.cli`.
"""
from __future__ import annotations

import errno
import json
import logging
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from compiler.cli.common import (Arg, Exit, app, is_quiet, is_verbose, json_option, print_diagnostics, rules_have_errors,
                                 ruleset_path, say, usage_error)

CONFIG = "mkdocs.yml"

DEFAULT_CONFIG = """\
site_name: {title}
docs_dir: {docs}
site_dir: {out}
theme:
  name: material
  font: false
  features: [search.suggest, search.highlight, content.tooltips, navigation.tabs, navigation.sections,
             navigation.prune, navigation.top, toc.follow]
  palette:
    - media: "(prefers-color-scheme: light)"
      scheme: default
      toggle: {{icon: material/weather-night, name: Switch to dark mode}}
    - media: "(prefers-color-scheme: dark)"
      scheme: slate
      toggle: {{icon: material/weather-sunny, name: Switch to light mode}}
plugins:
  - search
  - warscribe:
      rules_dir: {rules}
markdown_extensions:
  - tables
  - admonition
  - abbr
  - attr_list
  - md_in_html
  - toc: {{permalink: true}}
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.highlight: {{pygments_lang_class: true}}
  - pymdownx.inlinehilite
validation:
  anchors: warn
"""


def find_config(config: str | None) -> tuple[Path, Path | None]:
    """The mkdocs.yml to use: the one given, the current folder's, or a default for ``rules/``.

    Returns the config path and, for a default config, the temporary folder to remove afterwards.
    """
    if config:
        path = Path(config)
        if not path.is_file():
            raise usage_error(f"{config} does not exist")
        return path.resolve(), None
    from compiler.cli.config import current

    settings = current()  # the project's folder: the current one, or the nearest above with rules/ or settings
    here = settings.root
    rules = settings.path("rules") or here / "rules"
    if (here / CONFIG).is_file():
        return (here / CONFIG).resolve(), None
    if rules.is_dir():
        tmp = Path(tempfile.mkdtemp(prefix="warscribe-site-"))
        docs = here / "site" if (here / "site").is_dir() else tmp / "docs"
        docs.mkdir(exist_ok=True)
        (tmp / CONFIG).write_text(DEFAULT_CONFIG.format(
            title=json.dumps(f"{here.name} rulebooks"), docs=json.dumps(str(docs)),
            out=json.dumps(str(here / "public")), rules=json.dumps(str(rules))), encoding="utf-8")
        return tmp / CONFIG, tmp
    raise usage_error(f"there is no {CONFIG} and no rules/ folder in {here}; run warscribe in your project's "
                       f"folder (the one holding rules/), or name a config with --config")


class _Echo(logging.Handler):
    """MkDocs' log messages (warnings and errors, or everything with --verbose) on stderr."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.counts: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.counts[record.levelname] = self.counts.get(record.levelname, 0) + 1
        prefix = "" if record.levelno < logging.WARNING else f"{record.levelname}: "
        say(f"{prefix}{record.getMessage()}", err=True)


def _logging(verbose: bool) -> _Echo:
    handler = _Echo(logging.DEBUG if verbose else logging.WARNING)
    root = logging.getLogger("mkdocs")
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    root.propagate = False
    return handler


def _quiet_banner() -> None:
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # mkdocs-material's end-of-life banner


@app.command()
@click.option("--out", "-o", help="Where to write the website (default: site_dir of mkdocs.yml, public/).")
@click.option("--config", "-c", help="The MkDocs config (default: ./mkdocs.yml, or a default site for ./rules).")
@click.option("--strict/--no-strict", default=True, help="Fail on warnings: broken links, rules warnings (default: strict).")
@click.option("--verbose", "-v", is_flag=True, help="Show every MkDocs message.")
@json_option("Print what was built as JSON: pages, folder, seconds, warnings.")
def build(out: str | None, config: str | None, strict: bool, verbose: bool, as_json: bool) -> None:
    """Build the rulebook website: check and render every ruleset, then run MkDocs."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    from compiler.site import mkdocs_plugin

    _quiet_banner()
    path, tmp = find_config(config)
    handler = _logging(verbose or is_verbose())  # -v given before the command too
    start = time.perf_counter()
    if out:
        from compiler.site.output import OutputFolderError, check_output_folder
        here = _project_root() if tmp is not None else path.parent
        try:  # before MkDocs sees it: never the project folder, its rules/ or site/, or a folder holding them
            check_output_folder(out, [here], [here / n for n in ("rules", "site") if (here / n).exists()])
        except OutputFolderError as err:
            if tmp is not None:
                import shutil
                shutil.rmtree(tmp, ignore_errors=True)
            raise usage_error(str(err))
    try:
        cfg = load_config(str(path), site_dir=str(Path(out).resolve()) if out else None, strict=strict)
    except (ConfigurationError, Abort) as err:
        click.echo(f"warscribe: error: {path}: {err}", err=True)
        raise Exit(1)
    from compiler.site.output import OutputFolderError, check_output_folder, source_date_epoch, staged

    plugin = cfg.plugins.get("warscribe")
    rules = plugin.rules_dir(cfg) if plugin is not None and hasattr(plugin, "rules_dir") else None
    project = _project_root() if tmp is not None else path.parent
    try:
        final = check_output_folder(cfg.site_dir, [project], [p for p in (rules, cfg.docs_dir) if p is not None])
    except OutputFolderError as err:
        if tmp is not None:
            import shutil
            shutil.rmtree(tmp, ignore_errors=True)
        raise usage_error(str(err))
    # Reproducible: the same sources give the same bytes (sitemap dates and the gzip header included).
    saved_epoch = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = source_date_epoch(rules if rules is not None else project)
    try:
        # Built into a fresh folder beside the output, swapped in only when the whole build succeeded.
        with staged(final) as staging, _progress(mkdocs_plugin) as done:
            cfg["site_dir"] = str(staging)
            try:
                cfg.plugins.on_startup(command="build", dirty=False)
                mkdocs_build(cfg)
            except Abort as err:
                done(False)
                click.echo(f"warscribe: the build failed: {err}", err=True)
                click.echo(f"warscribe: {final} was left as it was", err=True)
                raise Exit(1)
            finally:
                cfg.plugins.on_shutdown()
    except OSError as err:  # disk full, read-only, no permission: a sentence, the old site kept
        where = err.filename or final
        click.echo(f"warscribe: error: cannot write the site to {final}: {where}: "
                   f"{err.strerror or err}; {final} was left as it was", err=True)
        raise Exit(1)
    finally:
        cfg["site_dir"] = str(final)
        if saved_epoch is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = saved_epoch
        if tmp is not None:
            import shutil
            shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.perf_counter() - start
    pages = mkdocs_plugin.PROGRESS.get("pages", 0)
    rendered = mkdocs_plugin.PROGRESS.get("render_seconds", 0.0)
    warnings = handler.counts.get("WARNING", 0)
    if as_json:
        click.echo(json.dumps({"pages": pages, "out": str(cfg.site_dir), "seconds": round(elapsed, 3),
                               "render_seconds": round(rendered, 3), "warnings": warnings}, indent=2))
        return
    if is_quiet():
        return
    click.echo(f"built {pages} pages into {cfg.site_dir} in {elapsed:.1f} s "
               f"(rules compiled and rendered in {rendered:.1f} s)"
               + (f", {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""))


STAGE_WORDS = {"render": "compiling and rendering the rules", "pages": "building pages", "write": "writing pages"}


class _progress:
    """A Rich progress bar fed by the plugin's page events on a terminal; elsewhere (a log, CI)
    one line on stderr as each stage starts, so a long build never sits silent."""

    def __init__(self, plugin_module: Any) -> None:
        self.module = plugin_module
        self.bar: Any = None

    def __enter__(self) -> Any:
        self.module.PROGRESS.clear()
        if sys.stderr.isatty() and not os.environ.get("CI") and not is_quiet():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            # No refresh thread (auto_refresh=False): the build may fork workers, which is only
            # safe from a single-threaded process. The bar is redrawn on each page event instead.
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), transient=True, auto_refresh=False)
            self.bar.start()
            task = self.bar.add_task("compiling and rendering the rules", total=None)
            self.bar.refresh()

            def hook(event: str, done: int = 0, total: int = 0) -> None:
                self.bar.update(task, description=STAGE_WORDS.get(event, event), completed=done, total=total or None)
                self.bar.refresh()
            self.module.PROGRESS["hook"] = hook
        else:
            started: set[str] = set()

            def line(event: str, done: int = 0, total: int = 0) -> None:
                if event not in started and not is_quiet():
                    started.add(event)
                    words = STAGE_WORDS.get(event, event)
                    click.echo(f"warscribe: {words}" + (f" ({total})" if total else "") + " …", err=True)
            self.module.PROGRESS["hook"] = line
        return lambda ok: None

    def __exit__(self, *exc: Any) -> None:
        self.module.PROGRESS.pop("hook", None)
        if self.bar is not None:
            self.bar.stop()


@app.command()
@click.option("--config", "-c", help="The MkDocs config (default: ./mkdocs.yml, or a default site for ./rules).")
@click.option("--dev-addr", "-a", default="127.0.0.1:8000", help="IP address and port to serve on.")
@click.option("--full", is_flag=True,
              help="Rebuild every page on each change (slower; default: only the pages that changed).")
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a web browser.")
def serve(config: str | None, dev_addr: str, full: bool, open_browser: bool) -> None:
    """Serve the website locally and rebuild it when a .rules file or a page changes.

    While the rules have errors the last good site stays served, each page showing the
    diagnostics over it; the next good save rebuilds it and the browser reloads by itself.
    """
    from mkdocs.exceptions import Abort, ConfigurationError

    from compiler.site import devserver

    _quiet_banner()
    path, tmp = find_config(config)
    handler = _logging(False)
    handler.setLevel(logging.INFO)

    def failed(failure: devserver.Failure) -> None:
        click.echo("warscribe: the site could not be rebuilt; the last good site is served, its pages showing "
                   "the errors, until the next good save", err=True)

    def recovered() -> None:
        click.echo("warscribe: the errors are fixed; the site is up to date again", err=True)

    try:
        devserver.serve(str(path), dev_addr=dev_addr, dirty=not full, open_in_browser=open_browser,
                        on_failure=failed, on_success=recovered)
    except (Abort, ConfigurationError) as err:
        click.echo(f"warscribe: error: {path}: {err}", err=True)
        raise Exit(1)
    except OSError as err:  # the port is taken, the address is not this machine's
        hint = "; another server is using it: stop it or choose another port with --dev-addr" \
            if err.errno == errno.EADDRINUSE else ""
        click.echo(f"warscribe: error: cannot serve on {dev_addr}: {err.strerror or err}{hint}", err=True)
        raise Exit(1)
    finally:
        if tmp is not None:
            import shutil
            shutil.rmtree(tmp, ignore_errors=True)


def _site_options(config: str | None) -> tuple[dict[str, Any], Path | None]:
    """The warscribe plugin's options and the docs folder from an mkdocs.yml, if there is one."""
    path = Path(config) if config else Path(CONFIG)
    if not path.is_file():
        if config:
            raise usage_error(f"{config} does not exist")
        return {}, None
    import yaml

    class _Loader(yaml.SafeLoader):
        pass
    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # ignore !!python/name tags
    raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
    options: dict[str, Any] = {}
    for plugin in raw.get("plugins") or []:
        if isinstance(plugin, dict) and "warscribe" in plugin:
            options = plugin["warscribe"] or {}
    docs = path.parent / raw.get("docs_dir", "docs")
    options.setdefault("site_name", raw.get("site_name"))
    options["_root"] = str(path.parent)
    return options, docs


def _rules_paths(paths: list[str]) -> None:
    """A usage error for a path that exists but is neither a file nor a folder (``/dev/null``, a FIFO)."""
    for raw in paths:
        p = Path(raw)
        if os.path.lexists(p) and not (p.is_file() or p.is_dir()):
            raise usage_error(f"{raw} is neither a file nor a folder; give a ruleset folder or a .rules file")


@app.command()
@click.argument("paths", cls=Arg, nargs=-1, help="Ruleset folders (default: rules_dir of mkdocs.yml, or rules/).")
@click.option("--out", "-o", required=True,
              help="The folder to write the Markdown pages into (default: out of the project's settings): a new "
                   "or empty folder, or one render wrote before; never a ruleset folder or one holding the rules.")
@click.option("--config", "-c",
              help="Read the site title, matchups and template overrides from this mkdocs.yml "
                   "(default: ./mkdocs.yml if present).")
@click.option("--force", is_flag=True, help="Write into a folder of other files (never a ruleset folder).")
def render(paths: tuple[str, ...], out: str, config: str | None, force: bool) -> None:
    """Write the website as plain Markdown pages, a navigation (nav.yml) and assets — no MkDocs needed."""
    from compiler import site as renderer
    from compiler.diagnostics import render as render_diagnostic
    from compiler.driver import compile_paths
    from compiler.model.load import UsageError
    from compiler.site.compare import Matchup, MatchupError

    options, docs = _site_options(config)
    root = Path(options.get("_root", "."))
    if not paths and "rules_dir" not in options:
        from compiler.cli.config import default_rules
        targets = [default_rules()]
    else:
        targets = list(paths) or [str(root / options.get("rules_dir", "rules"))]
    _rules_paths(targets)
    start = time.perf_counter()
    try:
        result = compile_paths(targets)
    except UsageError as e:
        raise usage_error(str(e))
    if not result.ok:
        print_diagnostics(tuple(d for d in result.diagnostics if d.is_error), dict(result.sources))
        rules_have_errors()
        raise Exit(1)
    known = {r.id for r in result.rulesets}
    matchups = []
    for m in options.get("matchups") or []:
        mu = Matchup.from_config(m)
        entries = tuple(e for e in mu.entries if e.ruleset in known)
        if entries:
            matchups.append(Matchup(mu.id, mu.title, mu.ask, entries, mu.description))
    templates = options.get("templates_dir")
    overrides = str(root / templates) if templates else (str(docs) if docs is not None else None)
    try:
        site = renderer.site(result, renderer.SiteOptions(
            title=options.get("title") or options.get("site_name") or "Rulebooks",
            matchups=tuple(matchups), overrides=overrides))
    except MatchupError as err:
        click.echo(f"warscribe: error: {err}", err=True)
        for d in err.diagnostics:
            click.echo(render_diagnostic(d, err.sources), err=True)
        raise Exit(1)
    except renderer.RenderError as err:
        click.echo(f"warscribe: error: {err}", err=True)
        raise Exit(1)
    import yaml

    from compiler.site.output import write_atomic

    from compiler.site.output import MARKER, OutputFolderError, check_target

    target = Path(out)
    try:
        check_target(target, "render into", folder=True)
        _render_folder(target, targets, force)
    except OutputFolderError as err:
        raise usage_error(str(err))
    try:
        written = renderer.write(site, out)  # every page rendered before the first is written, each written atomically
        if (target / "nav.yml").is_symlink():
            (target / "nav.yml").unlink()
        write_atomic(target / "nav.yml", yaml.safe_dump({"nav": renderer.nav_html(site.nav)}, allow_unicode=True,
                                                        sort_keys=False))
        write_atomic(target / MARKER, "Markdown pages written by `warscribe render`.\n")
    except OSError as err:
        click.echo(f"warscribe: error: cannot write the pages to {target}: {err.filename or target}: "
                   f"{err.strerror or err}", err=True)
        raise Exit(1)
    click.echo(f"wrote {len(site.pages)} pages, {len(site.assets)} asset(s) and nav.yml to {out} "
               f"({len(written) + 1} files, {time.perf_counter() - start:.2f} s)")


def _render_folder(target: Path, sources: list[str], force: bool) -> None:
    """Refuse a render folder that is or lies in a ruleset folder, holds the rules rendered, or holds
    files render did not write (a hand-written index.md) unless ``force``."""
    from compiler.outputs import ruleset_folder_of
    from compiler.safepaths import real_path
    from compiler.site.output import MARKER, OutputFolderError

    real = real_path(target.absolute())
    if real is None:
        raise OutputFolderError(f"refusing to render into {target}: it is a loop of links")
    holder = ruleset_folder_of(real)
    if holder is not None:
        raise OutputFolderError(f"refusing to render into {target}: it is inside the ruleset folder {holder}; "
                                f"choose a folder of its own")
    for src in sources:
        root = real_path(Path(src).absolute())
        if root is not None and (root == real or real in root.parents or root in real.parents):
            raise OutputFolderError(f"refusing to render into {target}: it is or holds {root}, the rules it renders; "
                                    f"choose a folder of its own")
    if target.is_dir() and not (target / MARKER).is_file() and not force:
        foreign = sorted(p.name for p in target.iterdir())
        if foreign:
            raise OutputFolderError(f"refusing to render into {target}: it holds {', '.join(foreign[:3])}"
                                    f"{' …' if len(foreign) > 3 else ''}, which warscribe did not write; "
                                    f"choose a new or empty folder, or --force")


def _is_export(head: bytes) -> bool:
    """Does a file start like ``warscribe export``'s JSON?"""
    return re.match(rb'\{\s*"warscribe":\s*"[^"\n]*",\s*"format":', head) is not None


@app.command()
@click.argument("path", cls=Arg, help="A ruleset folder, or a folder of rulesets (e.g. rules/).")
@click.option("--json", "as_json", is_flag=True, default=True, flag_value=True,
              help="JSON (the only format, and the default).")
@click.option("--out", "-o", help="Write to this file instead of standard output (a new file, or one export wrote; "
                                  "never a .rules file or a file in a ruleset folder).")
@click.option("--battlescribe", "battlescribe", type=click.Path(path_type=Path), metavar="FOLDER",
              help="Write the profiles, points and army rules as a BattleScribe .gst and .cat into FOLDER instead.")
@click.option("--force", is_flag=True, help="Replace an existing file (--out) or .gst/.cat files (--battlescribe) "
                                            "that warscribe did not write.")
def export(path: str, as_json: bool, out: str | None, battlescribe: Path | None, force: bool) -> None:
    """The rules model as JSON: every declaration with its stable id, kind, title, text and data."""
    path = ruleset_path(path)  # a ruleset's id names its folder; what is written must not land there
    if battlescribe is not None:
        from compiler.cli.interop import export_battlescribe

        export_battlescribe(path, battlescribe, force)
        return
    from compiler.driver import compile_paths
    from compiler.model.load import UsageError
    from compiler.site.export import export as export_model

    _rules_paths([path])
    target = None
    if out:  # checked before any work: never a source, never a file export did not write
        from compiler.outputs import OutputRefused, check_output_file
        from compiler.site.output import OutputFolderError, check_target

        try:
            target = check_output_file(Path(out), "export to", _is_export, force, sources=[path])
            check_target(Path(out), "export to", folder=False)
        except (OutputFolderError, OutputRefused) as err:
            raise usage_error(str(err))
    try:
        result = compile_paths([path])
    except UsageError as e:
        raise usage_error(str(e))
    if not result.ok:
        print_diagnostics(tuple(d for d in result.diagnostics if d.is_error), dict(result.sources))
        click.echo("the rules have errors; fix them first", err=True)
        raise Exit(1)
    text = json.dumps(export_model(result), indent=2, ensure_ascii=False) + "\n"
    if target is not None:
        from compiler.site.output import write_atomic

        try:
            write_atomic(target, text)
        except OSError as err:
            click.echo(f"warscribe: error: cannot export to {target}: {err.strerror or err}", err=True)
            raise Exit(1)
    else:
        from compiler.terminal import shown

        click.echo(shown(text), nl=False)  # the same JSON, its control characters written as \uXXXX escapes


def _project_root() -> Path:
    from compiler.cli.config import current

    return current().root
