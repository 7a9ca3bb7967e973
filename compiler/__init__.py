"""warscribe: a language and publishing tool for tabletop wargame house rules.

How a ``.rules`` file becomes odds and pages — one subpackage per stage, each taking the
previous stage's immutable output::

    .rules text ──▶ syntax ──▶ ast ──▶ model ──▶ check ──▶ checked Ruleset ──┬─▶ resolve ─▶ odds, examples, properties
    (grammar/)      Lark tree  frozen   overlays   names,                    ├─▶ review  ─▶ semantic diffs, impact, versions
                               nodes    merged,    types,                    ├─▶ site    ─▶ Markdown tree ─▶ MkDocs website
                               + spans  includes   tables…                   └─▶ plugins ─▶ pytest runs the examples

* :mod:`compiler.syntax` — the grammar loaded once, parsing, syntax errors in words, the
  Pygments lexer, printing source back (``unparse``, ``fmt``) and ``new``.
* :mod:`compiler.ast` — the AST node classes and the parse tree → AST builder.
* :mod:`compiler.model` — reading a ruleset's files, the immutable :class:`Ruleset` with its
  overlay merged in, the values of the model and static evaluation.
* :mod:`compiler.check` — the registered check passes that turn mistakes into diagnostics.
* :mod:`compiler.resolve` — distributions (exact and fast), the evaluator, attack sequences,
  examples and properties, answers for people and tools.
* :mod:`compiler.review` — what changed between two versions of a ruleset and what it does
  to the odds; git revisions.
* :mod:`compiler.site` — the renderer (model → Markdown tree + navigation) and the MkDocs plugin.
* :mod:`compiler.cli` — the ``warscribe`` command line, one module per family of commands.
* :mod:`compiler.plugins` — the pytest plugin.
* :mod:`compiler.lsp` — the language server: a compiled, indexed snapshot of a ruleset per edit.

Shared by every stage: :mod:`compiler.diagnostics` (spans and diagnostics),
:mod:`compiler.limits`, :mod:`compiler.safepaths` and :mod:`compiler.atomic` (where files may be
read and how they are written), :mod:`compiler.trace` (which declarations a computation used),
:mod:`compiler.cachedir` (the user's cache folder).  :func:`compiler.driver.compile_paths` runs load → parse →
build → model → check in one short function.

Public API: :func:`compile_paths`, :class:`Compilation`, :class:`Ruleset`,
:class:`Diagnostic`, :func:`render`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from compiler.lazy import lazy_names

__version__ = "0.2.0"

if TYPE_CHECKING:  # the public names are imported on first use: `warscribe version` needs none of them
    from compiler.diagnostics import Diagnostic, Severity, Span, render
    from compiler.driver import Compilation, compile_paths
    from compiler.model.ruleset import Ruleset

__all__ = ["Compilation", "Diagnostic", "Ruleset", "Severity", "Span", "compile_paths", "render", "__version__"]

# Where each public name lives; ``from compiler import compile_paths`` imports its module then.
_PUBLIC = {
    "Diagnostic": "compiler.diagnostics", "Severity": "compiler.diagnostics", "Span": "compiler.diagnostics",
    "render": "compiler.diagnostics", "Compilation": "compiler.driver", "compile_paths": "compiler.driver",
    "Ruleset": "compiler.model.ruleset",
}


__getattr__, __dir__ = lazy_names(__name__, _PUBLIC, globals())
