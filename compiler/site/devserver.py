"""``warscribe serve``: MkDocs' live-reload server, which never hangs on a failed build.

MkDocs' own server holds every page request while the last rebuild failed ("the server will
appear stuck until build errors are resolved"). Here a failed build is a state of the site, not
a stuck server: the last good site stays served, every HTML page of it carries an overlay with
the diagnostics (each located, its place a link that opens the file in an editor, its code a
link to the language reference), a page that was never built answers with the same diagnostics,
and the browser reloads by itself when the next save builds. The terminal shows the same
diagnostics.

::

    save ─▶ rebuild ─┬─ ok ────▶ the new site, no overlay
                     └─ fails ─▶ the last good site + the overlay (and an error page where
                                 there is no page yet); browsers reload to show it
"""
from __future__ import annotations

import html
import logging
import os
import shutil
import tempfile
import traceback
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import quote, urlsplit

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort
from mkdocs.livereload import LiveReloadServer

__all__ = ["Failure", "failure_of", "overlay_html", "serve"]

log = logging.getLogger("mkdocs.plugins.warscribe")

OVERLAY_ID = "warscribe-errors"


class Failure:
    """Why the last build failed: the rules' diagnostics with their sources, or a message."""

    def __init__(self, message: str, diagnostics: tuple[Any, ...] = (), sources: dict[str, str] | None = None):
        self.message = message
        self.diagnostics = diagnostics
        self.sources = sources or {}


def failure_of(err: BaseException) -> Failure:
    """The failure behind a build's exception: MkDocs wraps a plugin's error in ``Abort``, so the
    chain is followed to the warscribe plugin's error and its diagnostics."""
    seen: BaseException | None = err
    while seen is not None:
        diagnostics = getattr(seen, "diagnostics", None)
        if diagnostics:
            return Failure(str(seen).split("\n", 1)[0], tuple(diagnostics), dict(getattr(seen, "sources", {}) or {}))
        seen = seen.__cause__ or seen.__context__
    if isinstance(err, Abort) and err.__context__ is not None:
        err = err.__context__
    text = str(err) or type(err).__name__
    if not isinstance(err, (Abort, OSError)) and "warscribe" not in text and "Plugin" not in type(err).__name__:
        text = "".join(traceback.format_exception_only(type(err), err)).strip()
    return Failure(text)


def overlay_html(failure: Failure, docs_root: str = "/", reference: str | None = "language/") -> str:
    """The overlay shown over the last good site: every diagnostic, located and linked. Author
    text is escaped wherever it lands."""
    from compiler.diagnostics import render

    items = []
    for d in failure.diagnostics:
        place = d.span
        path = os.path.abspath(place.file)
        editor = f"vscode://file{quote(path if path.startswith('/') else '/' + path)}:{place.line}:{place.column}"
        code = html.escape(d.code)
        code_html = (f'<a href="{html.escape(docs_root + reference)}#diagnostic-codes">{code}</a>' if reference
                     else code)
        body = render(d, failure.sources).split("\n", 1)
        rest = html.escape(body[1]) if len(body) > 1 else ""
        items.append(
            f'<li><a href="{html.escape(editor)}">{html.escape(str(place))}</a>: '
            f'{html.escape(d.severity.value)}[{code_html}]: {html.escape(d.message)}'
            + (f"<pre>{rest}</pre>" if rest else "") + "</li>")
    detail = f"<ol>{''.join(items)}</ol>" if items else f"<pre>{html.escape(failure.message)}</pre>"
    errors = sum(1 for d in failure.diagnostics if d.is_error)
    head = (f"The rules have {errors} error{'s' if errors != 1 else ''}" if errors
            else "The site could not be built")
    return (f'<div id="{OVERLAY_ID}" role="alert" style="position:fixed;inset:0 0 auto 0;z-index:10000;'
            f'max-height:80vh;overflow:auto;background:#2a0c0c;color:#fbeaea;padding:1em 1.5em;'
            f'font:14px/1.45 ui-monospace,monospace;box-shadow:0 2px 12px #0008">'
            f'<style>#{OVERLAY_ID} a{{color:#ffb4a8}} #{OVERLAY_ID} pre{{margin:.3em 0 .8em;white-space:pre-wrap}}'
            f'</style>'
            f"<strong>{head}.</strong> The page below is the last good build; save a fix and it reloads "
            f"by itself.{detail}</div>")


def error_page(failure: Failure, docs_root: str = "/") -> bytes:
    """A page where the site has none yet (the first build failed): the diagnostics alone."""
    body = overlay_html(failure, docs_root, reference=None).replace("position:fixed;", "")
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>warscribe: the site could not '
            f'be built</title></head><body style="margin:0">{body}</body></html>').encode("utf-8")


class _Server(LiveReloadServer):
    """The live-reload server, with the last failure shown on every HTML page it serves."""

    failure: Failure | None = None
    reference: str | None = None

    def _inject_js_into_html(self, content: bytes, epoch: int) -> bytes:
        content = super()._inject_js_into_html(content, epoch)  # type: ignore[no-untyped-call]
        failure = self.failure
        if failure is None:
            return content
        overlay = overlay_html(failure, self.mount_path, self.reference).encode("utf-8")
        at = content.find(b"<body")
        at = content.find(b">", at) + 1 if at >= 0 else 0
        return content[:at] + overlay + content[at:]

    def _serve_request(self, environ: Any, start_response: Any) -> Iterable[bytes] | None:
        if "\0" in str(environ.get("PATH_INFO", "")):  # no file has this name (open() would raise): not found
            return None
        result = super()._serve_request(environ, start_response)
        failure = self.failure
        if result is None and failure is not None:  # no page here yet: the diagnostics instead
            page = super()._inject_js_into_html(  # type: ignore[no-untyped-call]
                error_page(failure, self.mount_path), self._visible_epoch)
            start_response("500 Internal Server Error", [("Content-Type", "text/html; charset=utf-8"),
                                                         ("Content-Length", str(len(page)))])
            return [page]
        return result


def serve(config_file: str, dev_addr: str | None = None, dirty: bool = True, open_in_browser: bool = False,
          on_failure: Callable[[Failure], None] | None = None, on_success: Callable[[], None] | None = None) -> None:
    """Serve the site of ``config_file`` until interrupted, rebuilding it on each change.

    A failed build (the first included) never stops or stalls the server: ``on_failure`` is
    told, pages show the failure until the next good build, then ``on_success`` is told.
    Raises :class:`mkdocs.exceptions.Abort` (or ``ConfigurationError``) when the config itself
    cannot be read at start, and ``OSError`` when the address cannot be served on."""
    site_dir = tempfile.mkdtemp(prefix="warscribe-serve-")
    extra = {"dev_addr": dev_addr} if dev_addr else {}

    def get_config() -> Any:
        return load_config(config_file=config_file, site_dir=site_dir, **extra)

    config = get_config()
    config.plugins.on_startup(command="serve", dirty=dirty)
    host, port = config.dev_addr
    mount = urlsplit(config.site_url or "/").path or "/"
    mount = mount if mount.endswith("/") else mount + "/"
    serve_url = f"http://{host}:{port}{mount}"
    config.site_url = serve_url
    server = _Server(builder=lambda: None, host=host, port=port, root=site_dir, mount_path=mount)
    server.reference = "language/" if (Path(config.docs_dir) / "language.md").is_file() else None

    def builder(cfg: Any = None) -> None:
        try:
            if cfg is None:
                cfg = get_config()
                cfg.site_url = serve_url
            build(cfg, serve_url=serve_url, dirty=dirty)
        except (Exception, Abort) as err:  # Abort is a SystemExit
            server.failure = failure_of(err)
            if on_failure is not None:
                on_failure(server.failure)
            return
        was, server.failure = server.failure, None
        if was is not None and on_success is not None:
            on_success()

    server.builder = builder

    def error_handler(code: int) -> bytes | None:
        page = os.path.join(site_dir, f"{code}.html")
        if code == 404 and os.path.isfile(page):
            with open(page, "rb") as f:
                return f.read()
        return None

    server.error_handler = error_handler
    try:
        builder(config)
        server.watch(config.docs_dir)
        if config.config_file_path:
            server.watch(config.config_file_path)
        server = config.plugins.on_serve(server, config=config, builder=builder)
        for item in config.watch:
            server.watch(item)
        try:
            server.serve(open_in_browser=open_in_browser)
        except KeyboardInterrupt:
            log.info("Shutting down...")
        finally:
            server.shutdown()
    finally:
        config.plugins.on_shutdown()
        shutil.rmtree(site_dir, ignore_errors=True)
