"""The website's figures: full build time, warscribe's share of it, and the serve reload time.

    .venv/bin/python bench/bench_site.py            # 3 builds and 5 reloads, about a minute
    .venv/bin/python bench/bench_site.py --builds 5 --reloads 10

* **build**: `warscribe build` of the bundled site (all rulesets, `--strict`) into a
  temporary folder, run as a fresh process each time; the plugin reports how long
  compiling and rendering the rules took inside it.
* **serve**: `warscribe serve` (MkDocs' livereload server, rebuilding only the pages
  that changed) on a copy of the project; a one-line definition in
  `rules/console-40k/lexicon.rules` is edited and the served lexicon page is polled
  every 20 ms until the edit shows: the time from saving the file to serving the page.

Medians are printed; the machine's load average is printed too, because both figures
move with it.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARSCRIBE = str(Path(sys.executable).parent / "warscribe")
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def builds(n: int) -> None:
    totals, ours = [], []
    for _ in range(n):
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run([WARSCRIBE, "build", "--out", out], cwd=ROOT, env=ENV, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(r.stdout + r.stderr)
        m = re.search(r"built (\d+) pages .* in ([\d.]+) s \(rules compiled and rendered in ([\d.]+) s\)", r.stdout)
        assert m, r.stdout
        totals.append(float(m.group(2)))
        ours.append(float(m.group(3)))
        print(f"  build: {m.group(1)} pages in {totals[-1]:.1f} s, compile+render {ours[-1]:.1f} s "
              f"({ours[-1] / totals[-1]:.0%})")
    total, own = statistics.median(totals), statistics.median(ours)
    shares = sorted(o / t for o, t in zip(ours, totals))
    print(f"build: median {total:.1f} s; compile+render median {own:.1f} s, "
          f"share median {statistics.median(shares):.0%} (range {shares[0]:.0%}-{shares[-1]:.0%})")


def reloads(n: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="warscribe-serve-"))
    shutil.copy(ROOT / "mkdocs.yml", work / "mkdocs.yml")
    shutil.copytree(ROOT / "rules", work / "rules")
    shutil.copytree(ROOT / "site", work / "site")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(work / "serve.log", "w")
    proc = subprocess.Popen([WARSCRIBE, "serve", "--dev-addr", f"127.0.0.1:{port}"], cwd=work, env=ENV,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/console-40k/lexicon/"

    def page() -> str:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.read().decode()
        except OSError:
            return ""
    try:
        start = time.time()
        while "Ballistic Skill" not in page():
            if time.time() - start > 300:
                raise SystemExit("the server did not start; see " + str(work / "serve.log"))
            time.sleep(0.2)
        print(f"  serve: first build served after {time.time() - start:.1f} s")
        time.sleep(1.0)
        lexicon = work / "rules" / "console-40k" / "lexicon.rules"
        before = "How accurately the model shoots."
        times = []
        for i in range(n):
            after = f"How accurately the model shoots (edit {i})."
            lexicon.write_text(lexicon.read_text(encoding="utf-8").replace(before, after), encoding="utf-8")
            saved = time.time()
            while f"(edit {i})" not in page():
                if time.time() - saved > 60:
                    raise SystemExit("the edit never showed; see " + str(work / "serve.log"))
                time.sleep(0.02)
            times.append(time.time() - saved)
            print(f"  serve: edit {i} served after {times[-1]:.2f} s")
            before = after
            time.sleep(1.5)
        print(f"serve: a changed .rules file is served after a median {statistics.median(times):.2f} s "
              f"(range {min(times):.2f}-{max(times):.2f} s)")
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builds", type=int, default=3)
    ap.add_argument("--reloads", type=int, default=5)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    if args.builds:
        builds(args.builds)
    if args.reloads:
        reloads(args.reloads)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
