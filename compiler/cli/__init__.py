"""The ``warscribe`` command line.

Exit status: 0 when all is well (warnings may be printed), 1 when the rules
have errors (or tests fail), 2 when warscribe was called wrongly.

The application (a Click group) lives in :mod:`compiler.cli.common`; each module registers one
family of commands on it, and :mod:`compiler.cli.commands` names the module of each command, in
the order ``--help`` lists them.  Nothing is imported before it is needed: ``warscribe version``
answers without Click, a command's module is imported only when it runs, and each command
imports the stages it uses when it runs.
"""
from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from click import Group

    app: Group

__all__ = ["COLLECTOR_PACE", "app", "main", "version_line"]


def version_line() -> str:
    """What ``warscribe version`` prints."""
    from compiler import __version__

    return f"warscribe {__version__}"


#: The collector's thresholds while a command runs.  A command builds hundreds of thousands of
#: objects that live until it ends (parse trees, ASTs, distributions); at Python's default pace
#: (700, 10, 10) the collector walks them again every 700 allocations, some 300 times for a check
#: of the bundled rulesets (70-100 ms), for nothing.
COLLECTOR_PACE = (20_000, 50, 50)


def main() -> None:
    """Entry point of the ``warscribe`` console script."""
    if sys.argv[1:] in (["version"], ["--version"], ["-V"]):  # the one command that needs neither Click nor the compiler
        sys.stdout.write(version_line() + "\n")
        return
    gc.set_threshold(*COLLECTOR_PACE)
    from compiler.cli.commands import app

    try:
        app.main()
    except KeyboardInterrupt:  # while starting up; a running command exits 130 by itself
        sys.stderr.write("interrupted\n")
        sys.exit(130)


def __getattr__(name: str) -> Any:
    if name == "app":  # ``from compiler.cli import app``: the application with its commands
        from compiler.cli.commands import app

        return app
    raise AttributeError(f"module 'compiler.cli' has no attribute {name!r}")


if __name__ == "__main__":
    main()
