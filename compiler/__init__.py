"""warscribe: a language and publishing tool for tabletop wargame house rules.

The pipeline, one module per stage::

    .rules text ─ parse ─▶ parse tree ─ build ─▶ AST ─ model ─▶ Ruleset ─ checks ─▶ checked model
    (parse.py, grammar/)    (Lark)     (build.py) (ast.py) (model.py)  (checks.py)
                                                                          │
              driver.compile_paths() runs it all; cli.py is the command line.

Public API: :func:`compile_paths`, :class:`Compilation`, :class:`Ruleset`,
:class:`Diagnostic`, :func:`render`.
"""
from __future__ import annotations

__version__ = "0.1.0"

from .diagnostics import Diagnostic, Severity, Span, render  # noqa: E402
from .driver import Compilation, compile_paths  # noqa: E402
from .model import Ruleset  # noqa: E402

__all__ = ["Compilation", "Diagnostic", "Ruleset", "Severity", "Span", "compile_paths", "render", "__version__"]
