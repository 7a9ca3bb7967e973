"""The ``warscribe`` command line.

Exit status: 0 when all is well (warnings may be printed), 1 when the rules
have errors (or tests fail), 2 when warscribe was called wrongly.

The application lives in :mod:`compiler.cli.common`; each module registers one family of
commands on it, in the order ``--help`` lists them.
"""
from __future__ import annotations

import sys

import typer

from compiler import __version__
from compiler.cli import check as check  # noqa: F401  (registers `check`; first, as --help lists it)
from compiler.cli import answers as answers  # noqa: F401,I001  (registers `eval`, `table`, `test`)
from compiler.cli.common import app

__all__ = ["app", "main"]


@app.command()
def version() -> None:
    """Print warscribe's version."""
    typer.echo(f"warscribe {__version__}")


def main() -> None:
    """Entry point of the ``warscribe`` console script."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


from compiler.cli import review as review  # noqa: E402,F401  (registers `warscribe diff`)
from compiler.cli import site as site  # noqa: E402,F401  (registers `warscribe render`, `build`, `serve`, `export`)
from compiler.cli import tools as tools  # noqa: E402,F401  (registers `warscribe fmt`, `new`)
from compiler.cli import lsp as lsp  # noqa: E402,F401  (registers `warscribe lsp`)

if __name__ == "__main__":
    main()
