"""The installed wheel, not the source tree: the grammar ships inside the package.

The ``wheel`` and ``installed`` fixtures (conftest) build and install it once per test run.
"""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_the_grammar(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "compiler/grammar/warscribe.lark" in names
    assert "compiler/cli/__init__.py" in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "warscribe = compiler.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_installed_wheel_checks_from_another_folder(installed: Path, tmp_path: Path) -> None:
    target = installed  # conftest builds and installs the wheel once per run
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ruleset = ROOT / "tests" / "fixtures" / "sample"
    env = {**os.environ, "PYTHONPATH": str(target), "NO_COLOR": "1"}
    probe = subprocess.run([sys.executable, "-c", "import compiler, compiler.syntax.parse as p; print(compiler.__file__); "
                            "print(len(p.grammar_text()))"], cwd=elsewhere, env=env,
                           capture_output=True, text=True, check=True)
    assert probe.stdout.splitlines()[0].startswith(str(target))
    r = subprocess.run([sys.executable, "-m", "compiler", "check", str(ruleset)], cwd=elsewhere, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 errors" in r.stdout


def test_installed_wheel_ships_its_parsers_built(installed: Path, tmp_path: Path) -> None:
    """The wheel holds both parsers built for its grammar: an installed warscribe reads them from
    the package and never builds or saves one in the user's cache folder."""
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(installed), "WARSCRIBE_CACHE_DIR": str(cache)}
    probe = subprocess.run([sys.executable, "-c", "from compiler.syntax import grammar as g; "
                            "g.parser(); g.token_parser(); "
                            "print(g.built_parser_name('parser', g.grammar_text()))"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    name = probe.stdout.strip()
    assert (installed / "compiler" / "grammar" / name).is_file()
    assert not list(cache.rglob("*.lark-parser"))
