"""The website's figures: a full build's CPU time, warscribe's share of it, and the serve reload time.

    .venv/bin/python bench/bench_site.py            # 3 builds and 5 reloads, about two minutes
    .venv/bin/python bench/bench_site.py --builds 5 --reloads 10
    .venv/bin/python bench/bench_site.py --builds 0 --reloads 0     # the calculators alone

* **build**: `warscribe build` of the bundled site (all rulesets, `--strict`) into a
  temporary folder, run as a fresh process each time after one warm-up build (which fills
  the user's cache folder, as any earlier build or check has); the figure is the least CPU
  time (user + system, the process and its children: forked renderers, git) of the runs.
  The plugin reports the CPU time of compiling and rendering the rules inside it (its own
  and its children's), so the share is warscribe's own work against MkDocs and the theme.
* **first build**: the same with an empty cache folder, as a new user's first `warscribe
  build` after `pip install .` — only the built parser is there (the wheel ships it): the
  battles, the old releases of the Changes pages, every table and example are worked out.
* **serve**: `warscribe serve` (MkDocs' livereload server, rebuilding only the pages
  that changed) on a copy of the project; a one-line definition in
  `rules/console-40k/lexicon.rules` is edited and the served lexicon page is polled
  every 20 ms until the edit shows: the time from saving the file to serving the page
  (wall time by nature; each run's edits are new texts, so no page or battle of them is in
  the cache folder from an earlier run). The least and the median are printed.

* **calculators**: the matchup calculators' data of the bundled site (each ruleset at the model
  count mkdocs.yml gives it), worked out afresh in this process, one fresh compilation per
  ruleset: what a first build spends on them (a later build finds them in the cache folder).
  Each ruleset's CPU time, its largest document a page loads and all its documents are printed.

The machine's load average is printed too: the serve figure moves with it.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
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

TARGETS = {"build": 8.0, "share": 0.20, "serve": 1.0, "calculators": 8.0, "calculator_kb": 100}

# A first build's cache folder holds the parsers an installed wheel ships (setup.py builds them),
# as a source checkout's holds them after its first run: nothing a build works out.
SHIP_PARSER = """
from compiler.cachedir import find_cache_folder
from compiler.syntax.grammar import write_built_parsers
write_built_parsers(find_cache_folder())
"""

# `warscribe build`, then the plugin's own figures on stderr (its PROGRESS numbers) at exit.
BUILD = """
import atexit, json, sys
from compiler.site import mkdocs_plugin
atexit.register(lambda: print("PROGRESS " + json.dumps({k: v for k, v in mkdocs_plugin.PROGRESS.items()
                                                        if isinstance(v, (int, float))}), file=sys.stderr))
sys.argv = ["warscribe", "build", "--out", sys.argv[1]]
from compiler.cli import main
main()
"""


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def builds(n: int) -> tuple[float, float, float, float]:
    """(least CPU seconds of a build, warscribe's share of that build) over ``n`` builds after a
    warm-up, then the same for one build with an empty cache folder (a first build: only the
    built parser is there, as an installed wheel ships it)."""
    runs = []
    first_cpu = first_share = 0.0
    for i in range(n + 2):
        first = i == n + 1
        with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as empty:
            env = {**ENV, "WARSCRIBE_CACHE_DIR": empty} if first else ENV
            if first:  # what `pip install .` gives: the parser built in the wheel, nothing else kept
                subprocess.run([sys.executable, "-c", SHIP_PARSER], cwd=ROOT, env=env, check=True)
            before = children_cpu()
            r = subprocess.run([sys.executable, "-c", BUILD, out], cwd=ROOT, env=env, capture_output=True, text=True)
            cpu = children_cpu() - before
        if r.returncode != 0:
            raise SystemExit(r.stdout + r.stderr)
        m = re.search(r"^PROGRESS (.*)$", r.stderr, re.M)
        assert m, r.stderr
        progress = json.loads(m.group(1))
        ours = progress["render_cpu_seconds"]
        kind = " (warm-up)" if not i else " (empty cache folder)" if first else ""
        print(f"  build{kind}: {progress['pages']} pages, {cpu:.2f} CPU s, "
              f"compile+render {ours:.2f} CPU s ({ours / cpu:.0%})")
        if first:
            first_cpu, first_share = cpu, ours / cpu
        elif i:
            runs.append((cpu, ours / cpu))
    cpu, share = min(runs)
    return cpu, share, first_cpu, first_share


def reloads(n: int) -> tuple[float, float]:
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
        run = f"{os.getpid()}.{int(time.time())}"  # edits never made before: nothing of them is in the cache folder
        times = []
        for i in range(n):
            after = f"How accurately the model shoots (edit {i}, run {run})."
            lexicon.write_text(lexicon.read_text(encoding="utf-8").replace(before, after), encoding="utf-8")
            saved = time.time()
            while f"(edit {i}, run {run})" not in page():
                if time.time() - saved > 60:
                    raise SystemExit("the edit never showed; see " + str(work / "serve.log"))
                time.sleep(0.02)
            times.append(time.time() - saved)
            print(f"  serve: edit {i} served after {times[-1]:.2f} s")
            before = after
            time.sleep(1.5)
        print(f"  serve: a changed .rules file is served after a median {statistics.median(times):.2f} s "
              f"(range {min(times):.2f}-{max(times):.2f} s)")
        return min(times), statistics.median(times)
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def calculators() -> tuple[float, float]:
    """The bundled site's calculators worked out afresh: (CPU s in all, the largest document in KB)."""
    import yaml

    from compiler.driver import compile_paths
    from compiler.site.calculator import calculator_data, calculator_documents

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    budgets = next(p["warscribe"] for p in config["plugins"] if isinstance(p, dict) and "warscribe" in p)
    total = largest = 0.0
    for rs_id, models in sorted(budgets.get("calculator_models", {}).items()):
        rs = next(r for r in compile_paths([str(ROOT / "rules" / rs_id)]).rulesets if r.id == rs_id)
        start = time.process_time()
        data = calculator_data(rs, models)
        cpu = time.process_time() - start
        sizes = [len(text) for _, text in calculator_documents(data)] if data else [0]
        total += cpu
        largest = max(largest, max(sizes[1:] or [0]) / 1000)
        print(f"  calculator {rs_id} at {models}: {cpu:.2f} CPU s, largest document {max(sizes[1:] or [0]) / 1000:.0f} KB, "
              f"all {sum(sizes) / 1e6:.2f} MB")
    return total, largest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builds", type=int, default=3)
    ap.add_argument("--reloads", type=int, default=5)
    ap.add_argument("--calculators", action=argparse.BooleanOptionalAction, default=True)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    rows = []
    if args.builds:
        cpu, share, first_cpu, first_share = builds(args.builds)
        rows.append(("full build of the bundled site (CPU s)", f"{cpu:.2f}", f"<= {TARGETS['build']:.0f}",
                     cpu <= TARGETS["build"]))
        rows.append(("warscribe's share of that build", f"{share:.0%}", f"<= {TARGETS['share']:.0%}",
                     share <= TARGETS["share"]))
        rows.append(("first build, empty cache folder (CPU s)", f"{first_cpu:.2f}", f"<= {TARGETS['build']:.0f}",
                     first_cpu <= TARGETS["build"]))
        rows.append(("  warscribe's share of the first build", f"{first_share:.0%}", "", None))
    if args.calculators:
        calc_cpu, calc_kb = calculators()
        rows.append(("calculators, worked out afresh (CPU s)", f"{calc_cpu:.2f}", f"<= {TARGETS['calculators']:.0f}",
                     calc_cpu <= TARGETS["calculators"]))
        rows.append(("  their largest document (KB)", f"{calc_kb:.0f}", f"<= {TARGETS['calculator_kb']}",
                     calc_kb <= TARGETS["calculator_kb"]))
    if args.reloads:
        least, median = reloads(args.reloads)
        rows.append(("serve: .rules saved -> page served (s, least)", f"{least:.2f}", f"<= {TARGETS['serve']:.0f}",
                     least <= TARGETS["serve"]))
        rows.append(("serve: the same, median (s)", f"{median:.2f}", "", None))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print()
    print(f"{'figure':<48}{'measured':>10}{'target':>10}  holds")
    print("-" * 76)
    for name, measured, target, holds in rows:
        print(f"{name:<48}{measured:>10}{target:>10}  {'' if holds is None else 'yes' if holds else 'NO'}")


if __name__ == "__main__":
    main()
