"""The built website for the browser tests: one ``mkdocs build --strict`` per session, served locally.

conftest.py imports the fixtures below, so that every browser test file (test_site_browser.py,
test_site_overlay_nav.py…) shares the one build and the one server of a session.  Chromium is
Debian's (``apt-get install chromium``), driven by Playwright.
"""
from __future__ import annotations

import fcntl
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HAVE_CHROMIUM = Path(CHROMIUM).exists()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright's launch arguments with Debian's chromium (overrides its fixture)."""
    if not HAVE_CHROMIUM:
        pytest.fail(f"chromium is missing ({CHROMIUM}) and CI is set: install it with apt-get install chromium")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@dataclass
class SharedContext:
    """The worker's one browser context, the CDP session that clears its storage, and the origins
    (scheme, host and port) its pages have asked for since the last clearing."""
    context: Any
    cdp: Any
    origins: set[str] = field(default_factory=set)

    def clear(self) -> None:
        """Forget what the pages left in the context: cookies, permissions, and every kind of
        storage (local storage, IndexedDB, service workers, cache storage) of each origin."""
        self.context.clear_cookies()
        self.context.clear_permissions()
        for origin in sorted(self.origins):
            self.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        self.origins.clear()


@pytest.fixture(scope="session")
def shared_context(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[SharedContext]:
    """The worker's one browser context, for every test's ``page``.

    A context of its own per test (pytest-playwright's way) starts a renderer process for each:
    about 0.8 CPU seconds of Chromium a test, more than most tests spend on their pages.  Here the
    context stays, with a page on ``about:blank`` that keeps a renderer alive between tests, and
    each test gets a new page in it (see :func:`page`)."""
    context = browser.new_context(**browser_context_args)
    keeper = context.new_page()
    shared = SharedContext(context, context.new_cdp_session(keeper))
    context.on("request", lambda r: shared.origins.add("/".join(r.url.split("/", 3)[:3]))
               if r.url.startswith(("http:", "https:")) else None)
    yield shared
    context.close()


@pytest.fixture
def page(shared_context: SharedContext) -> Iterator[Any]:
    """A new page for the test (overrides pytest-playwright's): its own listeners, routes, init
    scripts, viewport (1280x720) and media, in the worker's one context.  What the context keeps
    (cookies, permissions, storage) is cleared after the test, so that no test sees what another
    left behind, as with a context of its own; only the HTTP cache is shared."""
    page = shared_context.context.new_page()
    try:
        yield page
    finally:
        page.close()
        shared_context.clear()


@pytest.fixture(scope="session")
def built_site(shared_tmp: Path) -> Path:
    """``mkdocs build --strict`` of the bundled rulesets, once per test run: the xdist workers
    share it through a lock file (the first one builds, the others read the same folder)."""
    out = shared_tmp / "public"
    done = shared_tmp / "public.built"
    with open(shared_tmp / "public.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                shutil.rmtree(out, ignore_errors=True)
                result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f",
                                         str(ROOT / "mkdocs.yml"), "-d", str(out)],
                                        cwd=ROOT, capture_output=True, text=True, timeout=600,
                                        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
                assert result.returncode == 0, result.stdout + result.stderr
                done.write_text("ok", encoding="utf-8")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return out


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # no line per request on stderr
            pass

    handler = functools.partial(Quiet, directory=str(built_site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


# --- Hovering every link: what author text may do in a reader's browser ---------------------------

#: Installed before any page script: records every element that arrives, or is changed, with an
#: event-handler attribute — also one that a tooltip adds and removes again within a moment.
WATCH_HANDLERS = """
window.__wsHandlers = [];
new MutationObserver(records => {
  const seen = el => {
    if (el.nodeType !== 1) return;
    for (const e of [el, ...el.querySelectorAll('*')])
      for (const a of e.attributes)
        if (a.name.toLowerCase().startsWith('on')) window.__wsHandlers.push(e.tagName + ' ' + a.name + '=' + a.value);
  };
  for (const r of records) {
    if (r.type === 'attributes') seen(r.target);
    r.addedNodes.forEach(seen);
  }
}).observe(document, {subtree: true, childList: true, attributes: true});
"""

#: Every link, abbreviation, element with a title and navigation entry of the page: hovered at
#: once by dispatching the events the theme listens to (mouseenter, focus), and checked: the
#: text a tooltip would be built from (a title; a truncated entry's text), parsed as HTML the way
#: the theme builds it, must yield no element.  Each gets a number for the pointer hovers.
HOVER_ALL = """
() => {
  const targets = [...document.querySelectorAll('a, abbr, [title], .md-ellipsis, .md-nav__link')];
  const markup = [];
  const parses = text => { const t = document.createElement('template'); t.innerHTML = text;
                           return t.content.querySelector('*') !== null; };
  targets.forEach((el, i) => {
    el.setAttribute('data-ws-probe', i);
    for (const text of [el.getAttribute('title'), el.classList.contains('md-ellipsis') ? el.textContent : null])
      if (text && parses(text)) markup.push(el.tagName + ': ' + text.trim());
    el.dispatchEvent(new MouseEvent('mouseenter'));
    el.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
    el.dispatchEvent(new FocusEvent('focus'));
  });
  targets.forEach(el => el.dispatchEvent(new MouseEvent('mouseleave')));
  // A representative of each kind for the pointer: every distinct title, every distinct entry cut
  // short (the theme makes its tooltip), and one plain link of each place (navigation, page).
  const truncated = el => { const e = el.querySelector('.md-ellipsis') || el; return e.offsetWidth < e.scrollWidth; };
  const visible = targets.map((el, i) => [i, el]).filter(([i, el]) => el.checkVisibility())
    .map(([i, el]) => [i, el.getAttribute('title') ? 'title ' + el.getAttribute('title')
                          : truncated(el) ? 'cut ' + el.textContent.trim()
                          : (el.closest('nav') ? 'nav ' : 'page ') + el.tagName]);
  return {count: targets.length, markup, visible};
}
"""

#: Where the pointer goes to hover element ``i``: brought into view, a point inside it.
POINT_AT = """
i => { const el = document.querySelector(`[data-ws-probe="${i}"]`);
       el.scrollIntoView({block: 'center', inline: 'nearest'});
       const r = el.getClientRects()[0];
       return r && r.width > 0 && r.height > 0 ? [r.x + Math.min(r.width / 2, 12), r.y + r.height / 2] : null; }
"""
TOOLTIPS = "() => [...document.querySelectorAll('.md-tooltip2, .md-tooltip')].map(t => t.textContent)"


@dataclass
class Audit:
    """What hovering a site did: each list must stay empty, except the counts and tooltips."""
    dialogs: list[str] = field(default_factory=list)
    handlers: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    markup: list[str] = field(default_factory=list)
    pages: int = 0
    batch_hovers: int = 0
    pointer_hovers: int = 0
    tooltips: set[str] = field(default_factory=set)
    kinds: list[str] = field(default_factory=list)
    searched: int = 0  # search results shown


def hover_site(page: Any, base: str, paths: list[str], audit: Audit | None = None,
               searches: tuple[str, ...] = ()) -> Audit:
    """Open every page of ``paths`` (relative to ``base``) and hover every link and navigation
    entry: all of them by events in one go, then with the real pointer each one whose kind and
    text the site has not shown before (a representative of every kind of link, every title).
    Dialogs, event-handler attributes that ever appear, and requests to any host but ``base``'s
    are recorded, with the text of every tooltip shown.  Each of ``searches`` is then typed into
    the theme's search (its results are built from the pages' text), and its results hovered."""
    audit = audit or Audit()
    page.add_init_script(WATCH_HANDLERS)
    page.on("dialog", lambda d: (audit.dialogs.append(f"{page.url}: {d.message}"), d.dismiss()))
    page.on("request", lambda r: None if r.url.startswith((base, "data:", "blob:")) else audit.foreign.append(r.url))
    hovered: set[str] = set()
    for path in paths:
        page.goto(base + path)
        page.wait_for_load_state("load")
        found = page.evaluate(HOVER_ALL)
        audit.pages += 1
        audit.batch_hovers += found["count"]
        audit.markup += [f"{path}: {m}" for m in found["markup"]]
        for index, kind in found["visible"]:
            if kind in hovered:
                continue
            hovered.add(kind)
            audit.kinds.append(kind)
            point = page.evaluate(POINT_AT, index)
            if point is None:
                continue
            page.mouse.move(*point)
            audit.pointer_hovers += 1
            audit.tooltips.update(page.evaluate(TOOLTIPS))
        page.mouse.move(0, 0)
        page.wait_for_timeout(50)  # an image error handler of a tooltip would fire by now (127.0.0.1)
        audit.handlers += [f"{path}: {h}" for h in page.evaluate("() => window.__wsHandlers")]
    for query in searches:
        page.goto(f"{base}{paths[0]}?q={query}")  # the theme fills its search box and shows the results
        results = page.locator(".md-search-result__item")
        results.first.wait_for(timeout=15000)
        for i in range(min(results.count(), 10)):
            results.nth(i).hover()
        audit.searched += results.count()
        page.wait_for_timeout(50)
        audit.handlers += [f"search {query}: {h}" for h in page.evaluate("() => window.__wsHandlers")]
    return audit
