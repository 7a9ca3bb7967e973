"""`warscribe serve` as a user runs it: a real server on 127.0.0.1 that never hangs on a rules error.

Every HTTP request has a timeout: a guard against a hung server (the bug this file pins), not a
speed requirement. Waiting for a rebuild is a bounded number of polls, each of which must answer.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Iterator

import pytest

HANG = 60  # seconds one request may take before the server counts as hung
POLLS = 240  # how many times a page is asked for while waiting for a rebuild (0.5 s apart)

GOOD = textwrap.dedent("""\
    ruleset tiny "Tiny rules":
      version 1.0.0

    stat BS "Ballistic Skill" 1..10: "How accurately the model shoots, first edition."
    """)
BROKEN = GOOD.replace('stat BS "Ballistic', 'stat BS BS "Ballistic')
FIXED = GOOD.replace("first edition", "second edition")

CONFIG = """\
site_name: Tiny
docs_dir: site
theme:
  name: material
  font: false
plugins:
  - warscribe:
      rules_dir: rules
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=HANG) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8")


def _until(url: str, wanted: Callable[[str], bool]) -> str:
    """Ask for ``url`` until its text is ``wanted`` (each answer bounded by HANG)."""
    text = ""
    for _ in range(POLLS):
        try:
            _, text = _get(url)
        except (urllib.error.URLError, ConnectionError):  # not listening yet
            text = ""
        if wanted(text):
            return text
        time.sleep(0.5)
    raise AssertionError(f"{url} never showed what was wanted; last answer:\n{text[:2000]}")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Callable[[str], tuple[str, Path, subprocess.Popen[str]]]]:
    procs: list[subprocess.Popen[str]] = []

    def start(rules: str) -> tuple[str, Path, subprocess.Popen[str]]:
        (tmp_path / "site").mkdir()
        (tmp_path / "site" / "about.md").write_text("# About\n\nA page.\n", encoding="utf-8")
        (tmp_path / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
        (tmp_path / "rules" / "tiny").mkdir(parents=True)
        source = tmp_path / "rules" / "tiny" / "ruleset.rules"
        source.write_text(rules, encoding="utf-8")
        port = _free_port()
        env = {**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1"}
        proc = subprocess.Popen([sys.executable, "-m", "compiler", "serve", "--dev-addr", f"127.0.0.1:{port}"],
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        procs.append(proc)
        return f"http://127.0.0.1:{port}/", source, proc

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.communicate(timeout=HANG)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def _save(path: Path, text: str) -> None:
    time.sleep(0.05)  # a new modification time even on a coarse clock
    path.write_text(text, encoding="utf-8")


def test_a_rules_error_is_shown_on_every_page_and_the_next_good_save_recovers(served) -> None:
    url, source, proc = served(GOOD)
    first = _until(url + "tiny/lexicon/", lambda t: "first edition" in t)
    assert "warscribe-errors" not in first

    _save(source, BROKEN)
    for page in ("tiny/lexicon/", "about/", ""):  # every page carries the diagnostics over the last good site
        text = _until(url + page, lambda t: "warscribe-errors" in t)
        assert "ruleset.rules:4:9" in text and "error[" in text and "W001" in text
        assert "stat BS BS" in text  # the source line, with its caret below
        assert "vscode://file" in text  # the place is a link that opens the file
    assert "first edition" in _get(url + "tiny/lexicon/")[1]  # still the last good site underneath
    status, missing = _get(url + "no/such/page/")
    assert status == 500 and "ruleset.rules:4:9" in missing

    _save(source, FIXED)
    text = _until(url + "tiny/lexicon/", lambda t: "second edition" in t)
    assert "warscribe-errors" not in text
    assert proc.poll() is None  # still serving


def test_a_server_started_on_broken_rules_answers_with_the_diagnostics(served) -> None:
    url, source, proc = served(BROKEN)
    _until(url, lambda t: "ruleset.rules:4:9" in t)
    status, text = _get(url + "tiny/lexicon/")
    assert status == 500 and "error[" in text and "W001" in text
    assert "livereload" in text  # the error page reloads itself when the rules are fixed
    _save(source, GOOD)
    assert "first edition" in _until(url + "tiny/lexicon/", lambda t: "first edition" in t)


def test_healthy_rebuilds_print_no_dirty_build_warning(served) -> None:
    url, source, proc = served(GOOD)
    _until(url + "tiny/lexicon/", lambda t: "first edition" in t)
    _save(source, FIXED)
    _until(url + "tiny/lexicon/", lambda t: "second edition" in t)
    proc.terminate()
    out, _ = proc.communicate(timeout=HANG)
    assert "Documentation built" in out or "Reloading" in out
    assert "dirty" not in out.lower()
