"""Progress of a long run: a Rich bar on a terminal once the run has taken two seconds, and one
summary line when standard error is not a terminal (a log, CI) — never both, nothing with ``-q``.

::

    with progress("simulate", total=40_000, unit="game") as advance:
        for done in ...:
            advance(done)        # how many are done so far
"""
from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Iterator
from contextlib import contextmanager

import click

from compiler.cli.common import is_quiet, use_color
from compiler.words import plural

__all__ = ["AFTER", "progress", "step"]

#: Seconds a run goes on before it shows progress (and before a log gets its summary line).
AFTER = 2.0


def on_terminal() -> bool:
    """Whether progress can be drawn: standard error is a terminal, and not in CI."""
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("CI")


@contextmanager
def progress(what: str, total: int | None, unit: str) -> Iterator[Callable[[int], None]]:
    """Show how far ``what`` has got (``total`` items of ``unit``); yields the function to call
    with the count done."""
    start = time.perf_counter()
    quiet = is_quiet()
    terminal = on_terminal()
    bar: Any = None
    task: Any = None
    count = 0

    def advance(done: int) -> None:
        nonlocal bar, task, count
        count = done
        if quiet or not terminal:
            return
        if bar is None:
            if time.perf_counter() - start < AFTER:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            color = use_color(sys.stderr)
            # No refresh thread: the work may fork worker processes, which is safe only from a
            # single-threaded process; the bar is redrawn at each step instead.
            bar = Progress(TextColumn(f"{what}"), BarColumn(), MofNCompleteColumn(), TextColumn(f"{unit}s"),
                           TimeElapsedColumn(), transient=True, auto_refresh=False,
                           console=Console(stderr=True, force_terminal=True, no_color=not color))
            bar.start()
            task = bar.add_task(what, total=total)
        bar.update(task, completed=done)
        bar.refresh()

    try:
        yield advance
    finally:
        if bar is not None:
            bar.stop()
        seconds = time.perf_counter() - start
        if not quiet and not terminal and seconds >= AFTER:
            click.echo(f"warscribe: {what}: {plural(count, unit)} in {seconds:.1f} s", err=True)


def step(what: str, text: str) -> None:
    """One line on standard error as a stage of a long run begins, for a log or CI, which no bar
    shows (``warscribe: tournament: pairing 2 of 4: …``); nothing on a terminal, where the bar of
    :func:`progress` shows, nor with ``-q``."""
    if not is_quiet() and not on_terminal():
        click.echo(f"warscribe: {what}: {text}", err=True)
