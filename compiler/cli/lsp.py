"""``warscribe lsp``: the language server, for editors (see :mod:`compiler.lsp`)."""
from __future__ import annotations

import click

from compiler.cli.common import app


@app.command()
@click.option("--stdio", is_flag=True, default=True, flag_value=True,
              help="Talk over standard input and output (the only transport).")
@click.option("--debounce", type=click.FloatRange(min=0.0), default=0.3,
              help="Seconds of quiet after a change before the ruleset is checked again.")
def lsp(stdio: bool, debounce: float) -> None:
    """Run the language server over stdio: diagnostics as you type, hover, go to definition, completion…"""
    from compiler.lsp.server import serve

    serve(debounce)
