"""Shared fixtures: rulesets written into temporary folders, the golden-file flag, the CLI run in
this process, the wheel built once per run, a CPU-time guard against hangs, and the Hypothesis
profiles.

Hypothesis profiles (``HYPOTHESIS_PROFILE`` chooses; ``CI=true`` picks ``ci``): none of them has a
deadline, because a deadline measures wall time, which a busy machine stretches at random.
"""
from __future__ import annotations

import contextlib
import fcntl
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Callable, Iterator

import pytest
from browser_site import browser_type_launch_args, built_site, page, shared_context, site_url  # noqa: F401  (shared by the browser tests)
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

HEADER = 'ruleset demo "Demo":\n  version 1.0.0\n'

# ---------------------------------------------------------------------------
# Hypothesis: no deadlines (wall time is not behaviour); CI derandomised so a run is repeatable
# ---------------------------------------------------------------------------

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default"))


def pytest_configure(config: pytest.Config) -> None:
    """The collector at the pace the console script sets (:data:`compiler.cli.COLLECTOR_PACE`): a
    test process holds what every test before kept (compiled rulesets, memos, laws), which Python's
    default pace walks again and again (about a sixth of the battle and format tests' time).
    Tests of the collector set thresholds of their own and put these back.

    Under pytest-xdist (``-n 2``), each test file runs on one worker, so that its module-scoped
    fixtures (a compiled ruleset, the built site of the browser tests) are made once, not once per
    worker; a ``--dist`` given on the command line wins. Set here rather than in ``addopts``, so
    that ``pytest -p no:xdist`` still runs. (``loadgroup`` would be finer, but its xdist_group
    marks are ignored with pytest 9.2 and pytest-xdist 3.8.)"""
    from compiler.cli import COLLECTOR_PACE

    gc.set_threshold(*COLLECTOR_PACE)
    if not config.pluginmanager.hasplugin("xdist") or not getattr(config.option, "numprocesses", None):
        return
    given = [*config.invocation_params.args, *os.environ.get("PYTEST_ADDOPTS", "").split()]
    if getattr(config.option, "dist", "no") == "load" and not any(a == "-d" or a.startswith("--dist") for a in given):
        config.option.dist = "loadfile"
        # Files in the order of :func:`pytest_collection_modifyitems` (longest first), not xdist's
        # default of the files with the most tests first (which put the longest, one-test browser
        # files last, so that one worker ran on alone at the end).
        if not any(a.endswith("loadscope-reorder") for a in given):
            config.option.loadscopereorder = False


#: The test files that take longest (about half the suite's time), longest first.  Under xdist each
#: file is one unit of work handed out in collection order, so these go first: the two workers
#: then finish together instead of one waiting on a long file at the end.  The first one builds
#: the site the browser tests share, so that it is ready before the others ask for it.  Only the
#: order changes; a file missing here runs after them, in its usual place.
LONGEST_FIRST = (
    "test_site_player_view.py", "test_mkdocs_plugin.py", "test_renderer.py", "test_differential.py",
    "test_hostile_browser.py", "test_site_axe.py", "test_army_builder_browser.py", "test_site_browser.py",
    "test_fmt.py", "test_built_parser.py", "test_fuzz_grammar.py", "test_site_axe_dark.py",
    "test_calculator_browser.py", "test_site_players.py", "test_site_overlay_nav.py", "test_battle_schemes.py",
    "test_lsp.py", "test_closed_tests.py", "test_fuzz.py", "test_rules_profiles.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first (:data:`LONGEST_FIRST`), the rest in collection order; the same
    order on every worker, as xdist requires."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)) if item.path.parent.name == "tests" else len(rank))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the expected diagnostic texts in tests/golden/")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def write_ruleset(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write ``{name: text}`` files into a ruleset folder and return the folder."""
    def write(files: dict[str, str] | str, folder: str = "demo") -> Path:
        if isinstance(files, str):
            files = {"ruleset.rules": files}
        target = tmp_path / folder
        target.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (target / name).write_text(textwrap.dedent(text), encoding="utf-8")
        return target
    return write


# ---------------------------------------------------------------------------
# A hang guard measured in CPU seconds, which a busy machine does not stretch
# ---------------------------------------------------------------------------


class CPUBudgetExceeded(Exception):
    """The code under test used more CPU time than its budget: a hang or a blow-up."""


@contextlib.contextmanager
def cpu_budget(seconds: float = 30.0) -> Iterator[None]:
    """Fail the block if this process spends more than ``seconds`` of CPU time in it.

    A guard against hangs, not a benchmark: the budget is orders of magnitude above what the
    work needs, and CPU time (``ITIMER_PROF``: user + system) does not grow when other
    processes share the machine, so it cannot flake the way a wall-clock bound does.
    Timing belongs in ``bench/``.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach only the main thread; run unguarded
        return

    def expired(signum: int, frame: object) -> None:
        raise CPUBudgetExceeded(f"more than {seconds} CPU seconds")

    import time

    previous = signal.signal(signal.SIGPROF, expired)
    outer, _ = signal.setitimer(signal.ITIMER_PROF, seconds)  # an enclosing guard's time left, or 0
    start = time.process_time()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
        if outer:  # give the enclosing guard back what it has left
            signal.setitimer(signal.ITIMER_PROF, max(outer - (time.process_time() - start), 0.001))


TEST_CPU_SECONDS = 600  # per test, in this process: far above any test's need; a hang fails instead of blocking CI


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Every test runs under a CPU-time guard (subprocesses have their own, see :func:`limit_cpu`)."""
    with cpu_budget(TEST_CPU_SECONDS):
        return (yield)


@pytest.fixture(name="cpu_budget")
def cpu_budget_fixture() -> Callable[..., contextlib.AbstractContextManager[None]]:
    return cpu_budget


def limit_cpu(seconds: int = 30) -> Callable[[], None]:
    """A ``preexec_fn`` for subprocesses: the kernel stops the child after ``seconds`` of CPU time."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    return limit


# ---------------------------------------------------------------------------
# The command line, in this process
# ---------------------------------------------------------------------------


class Ran:
    """What a run of the command line gave: the fields of ``subprocess.CompletedProcess`` tests read."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def __repr__(self) -> str:
        return f"Ran(returncode={self.returncode}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def warscribe(*args: str, cwd: Path | None = None, stdin: str | None = None,
              env: dict[str, str] | None = None) -> Ran:
    """``warscribe ARGS`` in this process (Click's ``CliRunner``), from folder ``cwd``.

    A Python exception escaping the command is re-raised here, so a test sees the traceback
    a user would have seen. Tests that prove the console script itself (its exit status, its
    stderr, that it starts from another folder) use :func:`warscribe_process`.
    """
    from click.testing import CliRunner

    from compiler.cli import app

    before = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        r = CliRunner().invoke(app, list(args), input=stdin, env={"NO_COLOR": "1", **(env or {})})
    finally:
        os.chdir(before)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Ran(r.exit_code, r.stdout, r.stderr)


def warscribe_process(*args: str, cwd: Path | None = None, stdin: str | None = None,
                      timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m compiler ARGS`` as a user runs it: a separate process."""
    env = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "compiler", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, input=stdin, env=env, timeout=timeout)


# ---------------------------------------------------------------------------
# The wheel: built once per run (shared by xdist workers through a lock file)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A folder every xdist worker of this run shares (the session's own under plain pytest)."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


@pytest.fixture(scope="session")
def worker_id(request: pytest.FixtureRequest) -> str:
    """The xdist worker's name, ``master`` without xdist (pytest-xdist overrides this fixture)."""
    return getattr(request.config, "workerinput", {}).get("workerid", "master")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def wheel(shared_tmp: Path) -> Path:
    """The package's wheel, built from the source tree once per test run."""
    out = shared_tmp / "wheel"
    with _locked(shared_tmp / "wheel.lock"):
        found = list(out.glob("warscribe-*.whl"))
        if not found:
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                           check=True, capture_output=True, timeout=600)
            found = list(out.glob("warscribe-*.whl"))
    (built,) = found
    return built


@pytest.fixture(scope="session")
def installed(wheel: Path, shared_tmp: Path) -> Path:
    """The wheel installed (not the source tree) into a folder of its own, once per test run."""
    target = shared_tmp / "installed"
    with _locked(shared_tmp / "installed.lock"):
        if not (target / "compiler" / "__init__.py").is_file():
            subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                            str(wheel)], check=True, capture_output=True, timeout=600)
    return target

