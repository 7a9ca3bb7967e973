"""The ``warscribe`` application with every command registered, in the order ``--help`` lists them.

Imported by :func:`compiler.cli.main` when a command runs (``warscribe version`` needs none of it).
"""
from __future__ import annotations

import typer

from compiler.cli import version_line
from compiler.cli import check as check  # noqa: F401  (registers `check`; first, as --help lists it)
from compiler.cli import answers as answers  # noqa: F401,I001  (registers `eval`, `table`, `test`)
from compiler.cli.common import app

__all__ = ["app"]


@app.command()
def version() -> None:
    """Print warscribe's version."""
    typer.echo(version_line())


from compiler.cli import review as review  # noqa: E402,F401  (registers `warscribe diff`)
from compiler.cli import site as site  # noqa: E402,F401  (registers `warscribe render`, `build`, `serve`, `export`)
from compiler.cli import tools as tools  # noqa: E402,F401  (registers `warscribe fmt`, `new`)
from compiler.cli import lsp as lsp  # noqa: E402,F401  (registers `warscribe lsp`)
from compiler.cli import battle as battle  # noqa: E402,F401  (registers `warscribe play`, `simulate`, `army check`)
