"""The command line as a separate process, where only a process proves it.

Most CLI tests run ``warscribe`` in the test's own process (conftest's ``warscribe``, Click's
``CliRunner``): fast, and an exception escaping a command fails the test with its traceback.
These few run the real thing: the installed console script and ``python -m compiler`` —
the entry point, exit statuses, what goes to stdout and what to stderr, standard input,
and an interpreter that starts cold.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import limit_cpu, warscribe_process

GOOD = 'ruleset demo "Demo":\n  version 1.0.0\nstat BS "Ballistic Skill" 1..10\n'
BROKEN = GOOD + 'table t(x: 1..3) "T":\n  x == 1 ->\n'


def console_script() -> str:
    """The ``warscribe`` script pip installed beside this interpreter (the venv's bin/)."""
    found = Path(sys.executable).with_name("warscribe")
    if found.is_file():
        return str(found)
    on_path = shutil.which("warscribe")
    assert on_path, "the warscribe console script is not installed (pip install -e .)"
    return on_path


def script(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([console_script(), *args], capture_output=True, text=True, cwd=cwd, input=stdin,
                          env={**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}, timeout=300,
                          preexec_fn=limit_cpu(60))


@pytest.fixture
def folders(write_ruleset) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    return write_ruleset(GOOD, "good"), write_ruleset(BROKEN, "broken")


def test_the_console_script_exits_0_1_and_2(folders: tuple[Path, Path], tmp_path: Path) -> None:
    good, broken = folders
    ok = script("check", str(good), cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "1 ruleset checked, 0 errors" in ok.stdout and ok.stderr == ""
    bad = script("check", str(broken), cwd=tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "error[" in bad.stderr and "error[" not in bad.stdout and "Traceback" not in bad.stdout + bad.stderr
    wrong = script("check", str(tmp_path / "no" / "such"), cwd=tmp_path)
    assert wrong.returncode == 2, wrong.stdout + wrong.stderr
    assert "no such file or folder" in wrong.stderr and wrong.stdout == ""
    unknown = script("check", "--no-such-option", cwd=tmp_path)
    assert unknown.returncode == 2 and "No such option" in unknown.stderr


def test_the_console_script_prints_its_version(tmp_path: Path) -> None:
    from compiler import __version__

    r = script("version", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == f"warscribe {__version__}"


def test_python_dash_m_compiler_formats_standard_input(tmp_path: Path) -> None:
    r = warscribe_process("fmt", "-", cwd=tmp_path, stdin='ruleset demo "Demo":\n    version 1.0.0\n')
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == 'ruleset demo "Demo":\n  version 1.0.0\n'


def test_a_process_reports_hostile_text_without_a_traceback(write_ruleset, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = write_ruleset(GOOD + 'stat X "\u202e\u0000🎲 <script>" 1..3\n', "hostile")
    r = warscribe_process("check", str(folder), cwd=tmp_path)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def imported_by(*args: str, cwd: Path) -> set[str]:
    """The modules a fresh interpreter has imported when ``warscribe ARGS`` ends."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: sys.__stderr__.write('MODULES ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
            f"sys.argv = ['warscribe', *{list(args)!r}]\n"
            "from compiler.cli import main\n"
            "main()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=300,
                       env={**os.environ, "NO_COLOR": "1"})
    lines = [line for line in r.stderr.splitlines() if line.startswith("MODULES ")]
    assert r.returncode == 0 and lines, r.stdout + r.stderr
    return set(lines[-1].split()[1:])


def test_a_command_imports_only_what_it_uses(folders: tuple[Path, Path], tmp_path: Path) -> None:
    good, _ = folders
    version = imported_by("version", cwd=tmp_path)
    assert "click" not in version and "compiler.driver" not in version
    check = imported_by("check", str(good), cwd=tmp_path)
    assert {"click", "compiler.cli.check", "compiler.driver"} <= check
    assert not {"typer", "pydantic"} & check  # no Pydantic coercion of the options
    assert not {"compiler.cli.site", "compiler.cli.battle", "compiler.cli.answers", "compiler.cli.review"} & check
