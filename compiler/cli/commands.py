"""The ``warscribe`` application: ``version`` here, and where every other command lives.

Imported by :func:`compiler.cli.main` when a command runs (``warscribe version`` needs none of
it). A command's module is imported only when that command runs, or when ``--help`` lists them
all, in the order of :data:`MODULES`.
"""
from __future__ import annotations

import click

from compiler.cli import version_line
from compiler.cli.common import app

__all__ = ["MODULES", "app"]

#: Each command's name and the module that registers it, in the order ``--help`` lists them.
MODULES = {
    "check": "compiler.cli.check",
    "eval": "compiler.cli.answers",
    "table": "compiler.cli.answers",
    "test": "compiler.cli.answers",
    "version": __name__,
    "config": "compiler.cli.tools",
    "diff": "compiler.cli.review",
    "build": "compiler.cli.site",
    "serve": "compiler.cli.site",
    "render": "compiler.cli.site",
    "export": "compiler.cli.site",
    "import": "compiler.cli.interop",
    "fmt": "compiler.cli.tools",
    "new": "compiler.cli.tools",
    "lsp": "compiler.cli.lsp",
    "play": "compiler.cli.battle",
    "simulate": "compiler.cli.battle",
    "army": "compiler.cli.battle",
    "balance": "compiler.cli.balance",
}
app.modules.update(MODULES)


@app.command()
def version() -> None:
    """Print warscribe's version."""
    click.echo(version_line())
