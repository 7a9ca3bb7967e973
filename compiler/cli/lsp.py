"""``warscribe lsp``: the language server, for editors (see :mod:`compiler.lsp`)."""
from __future__ import annotations

import typer

from compiler.cli.common import app


@app.command()
def lsp(
    stdio: bool = typer.Option(True, "--stdio", help="Talk over standard input and output (the only transport)."),
    debounce: float = typer.Option(0.3, "--debounce", min=0.0,
                                   help="Seconds of quiet after a change before the ruleset is checked again."),
) -> None:
    """Run the language server over stdio: diagnostics as you type, hover, go to definition, completion…"""
    from compiler.lsp.server import serve

    serve(debounce)
