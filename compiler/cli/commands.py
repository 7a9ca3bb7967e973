"""The ``warscribe`` application with every command registered, in the order ``--help`` lists them.

Imported by :func:`compiler.cli.main` when a command runs (``warscribe version`` needs none of it).
"""
from __future__ import annotations

import click

from compiler.cli import version_line
from compiler.cli import check  # registers `check`; first, as --help lists it
from compiler.cli import answers  # registers `eval`, `table`, `test`
from compiler.cli.common import app

__all__ = ["app", "check", "answers", "review", "site", "tools", "lsp", "battle"]


@app.command()
def version() -> None:
    """Print warscribe's version."""
    click.echo(version_line())


from compiler.cli import review  # noqa: E402  (registers `warscribe diff`)
from compiler.cli import site  # noqa: E402  (registers `warscribe build`, `serve`, `render`, `export`)
from compiler.cli import tools  # noqa: E402  (registers `warscribe fmt`, `new`)
from compiler.cli import lsp  # noqa: E402  (registers `warscribe lsp`)
from compiler.cli import battle  # noqa: E402  (registers `warscribe play`, `simulate`, `army check`)
