"""The wheel ships the grammar's parsers already built (compiler/syntax/grammar.py), so that an
installed warscribe never spends its first run building LALR tables. Everything else about the
package is in pyproject.toml."""
from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithParsers(build_py):
    def run(self) -> None:
        super().run()
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from compiler.syntax.grammar import write_built_parsers

        target = Path(self.build_lib) / "compiler" / "grammar"
        target.mkdir(parents=True, exist_ok=True)
        for path in write_built_parsers(target):
            print(f"built {path.name}")


setup(cmdclass={"build_py": BuildPyWithParsers})
