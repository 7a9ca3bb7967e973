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
