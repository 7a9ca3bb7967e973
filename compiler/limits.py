"""How big a ruleset, and a question about it, may be: every limit in one place.

Authors feed warscribe half-written drafts, pasted text and huge tables.  Bad
input must end in a diagnostic, never in a hang, a memory blow-up or a Python
traceback.  Each limit below is checked *before* the expensive work it guards
(reading, parsing, building, checking or rolling), is documented in the
language reference (``site/language.md``, "Limits") and has a test in
``tests/test_limits.py``.

The limits are far above what real rules need: the largest bundled file has
about 4,000 tokens and the deepest nesting is 13 levels.

>>> dice_outcomes(1_000_000, 1_000_000) > MAX_OUTCOMES
True
>>> dice_outcomes(2, 6)
11
"""
from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any, overload

# -- files -------------------------------------------------------------------

#: Bytes in one ``.rules`` file (W902).
MAX_FILE_BYTES = 2_000_000
#: Characters on one line (W904); a paragraph of prose can run over several lines.
MAX_LINE_CHARS = 10_000
#: Tokens (words, numbers, symbols; a whole prose block is one) in one file (W905).
MAX_TOKENS = 50_000
#: Levels of nesting: brackets (counted as read, even redundant ones), operators chained in one expression,
#: indented blocks (W901).
MAX_NESTING = 100
#: Rulesets in one chain of overlays: an overlay of an overlay of … a base.
MAX_OVERLAY_DEPTH = 32
#: Digits of one number written in a file (a longer one is no number of a game; Python stops at 4,300).
MAX_NUMBER_DIGITS = 100
#: ``.rules`` files in one ruleset folder (W906).
MAX_FILES = 200
#: Bytes of all the .rules files of one ruleset folder together (ten files at the limit of one).
MAX_RULESET_BYTES = 20_000_000

# -- BattleScribe data (``warscribe import battlescribe``, ``army check`` of a roster) ------------

#: Bytes of one BattleScribe XML file (.gst, .cat, .ros), read or unzipped; the largest published
#: catalogues are a few megabytes.
MAX_XML_BYTES = 64_000_000
#: Elements in one BattleScribe XML file.
MAX_XML_ELEMENTS = 2_000_000
#: Bytes of one zipped BattleScribe file (.gstz, .catz, .rosz) on disk.
MAX_ZIP_BYTES = 32_000_000

# -- dice and distributions ----------------------------------------------------

#: Dice rolled at once: the N of NdM (W903, and refused by the resolver).
MAX_DICE = 1_000
#: Sides of one die: the M of NdM (W903).
MAX_SIDES = 1_000
#: Possible results of one distribution (W903 for dice written in the rules; the resolver).
MAX_OUTCOMES = 200_000
#: Pairs of results one operation combines (max(d1000, d1000) is a million pairs).
MAX_PAIRS = 1_000_000
#: Size of an exact distribution's integer weights, in bits (1000d200 would be ~1.5 billion).
MAX_EXACT_BITS = 200_000_000
#: Things counted at once: ``n each test``, models in ``10 ork_boy`` (W903; the resolver).
MAX_COUNT = 10_000
#: Extra rolls of ``explode(die, face, times)``.
MAX_EXPLODE = 100
#: Dice kept by ``highest(k, die)`` / ``lowest(k, die)``.
MAX_KEEP = 100
#: Steps of removing casualties one damage roll at a time (hits × model states × damage results).
MAX_REMOVAL_WORK = 2_000_000
#: Steps of summing one attack step over its attacks exactly, estimated before it starts
#: (``compiler.resolve.budget``: results × bits of their weights × more bits); about a second.
MAX_ATTACK_WORK = 5_000_000_000
#: Steps of working out ``keep_highest(k, n, die)`` / ``keep_lowest`` one die at a time (kept faces
#: so far × faces, summed over the dice; ``compiler.resolve.budget.keep_work``), about a second.
MAX_KEEP_WORK = 500_000
#: Definitions calling definitions (a formula calling a table calling a formula…).
MAX_CALL_DEPTH = 64

# -- tables --------------------------------------------------------------------

#: Rows of one table (W907).
MAX_TABLE_ROWS = 1_000
#: Cells of one grid (W907).
MAX_GRID_CELLS = 10_000
#: Combinations of parameter values a table is checked (gaps, unused rows) or printed over.
MAX_TABLE_POINTS = 20_000
#: Rows × combinations the table check works through; above it the check is skipped (W907).
MAX_TABLE_WORK = 2_000_000

# -- battles -------------------------------------------------------------------

#: Inches of a battlefield: the distance between the sides, a position along it or on the table (W864).
MAX_TABLE_INCHES = 1_000
#: Units in one scenario, both sides together (W864).
MAX_SCENARIO_UNITS = 200
#: Terrain areas of one scenario's table (W864): each move round impassable ground searches
#: their corners.
MAX_TERRAIN_AREAS = 100
#: Game turns of one battle, a game's or a scenario's ``turns`` (W864): a battle nobody can win
#: before its last turn is played to the end.
MAX_TURNS = 1_000
# -- battles, logs and army lists -------------------------------------------------

#: Battles one ``warscribe simulate`` plays (refused above it, before any game).
MAX_GAMES = 1_000_000
#: Worker processes one run may ask for (``--jobs``; never more than the chunks of work, and
#: never more than the machine's cores without ``--jobs-force``).
MAX_JOBS = 64
#: Distinct positions ``simulate --exact`` works through before it refuses (then sample): a duel of
#: two units over four turns has a few hundred.
MAX_EXACT_STATES = 20_000
#: Bytes of one battle log ``play --replay`` reads (refused before reading, or when it reaches it).
MAX_LOG_BYTES = 64_000_000
#: Bytes of one line of a battle log.
MAX_LOG_LINE = 1_000_000
#: Events (lines) of one battle log.
MAX_LOG_EVENTS = 1_000_000
#: Bytes of one army list (a text file, one unit a line) ``army check`` and ``simulate --army`` read.
MAX_ROSTER_BYTES = 1_000_000


LIMITS: tuple[tuple[str, int, str], ...] = (
    ("MAX_FILE_BYTES", MAX_FILE_BYTES, "bytes in one .rules file"),
    ("MAX_LINE_CHARS", MAX_LINE_CHARS, "characters on one line"),
    ("MAX_TOKENS", MAX_TOKENS, "tokens in one file"),
    ("MAX_NESTING", MAX_NESTING, "levels of nesting"),
    ("MAX_OVERLAY_DEPTH", MAX_OVERLAY_DEPTH, "rulesets in one chain of overlays"),
    ("MAX_NUMBER_DIGITS", MAX_NUMBER_DIGITS, "digits of one number"),
    ("MAX_FILES", MAX_FILES, ".rules files in one ruleset"),
    ("MAX_RULESET_BYTES", MAX_RULESET_BYTES, "bytes of the .rules files of one ruleset together"),
    ("MAX_XML_BYTES", MAX_XML_BYTES, "bytes of one BattleScribe XML file, read or unzipped"),
    ("MAX_XML_ELEMENTS", MAX_XML_ELEMENTS, "elements of one BattleScribe XML file"),
    ("MAX_ZIP_BYTES", MAX_ZIP_BYTES, "bytes of one zipped BattleScribe file"),
    ("MAX_DICE", MAX_DICE, "dice rolled at once"),
    ("MAX_SIDES", MAX_SIDES, "sides of one die"),
    ("MAX_OUTCOMES", MAX_OUTCOMES, "possible results of one distribution"),
    ("MAX_PAIRS", MAX_PAIRS, "pairs of results one operation combines"),
    ("MAX_EXACT_BITS", MAX_EXACT_BITS, "bits of an exact distribution's weights"),
    ("MAX_COUNT", MAX_COUNT, "things counted at once (n each …, models)"),
    ("MAX_EXPLODE", MAX_EXPLODE, "extra rolls of explode(…)"),
    ("MAX_KEEP", MAX_KEEP, "dice kept by highest/lowest"),
    ("MAX_REMOVAL_WORK", MAX_REMOVAL_WORK, "steps of removing casualties"),
    ("MAX_ATTACK_WORK", MAX_ATTACK_WORK, "work of summing one attack step exactly"),
    ("MAX_KEEP_WORK", MAX_KEEP_WORK, "steps of keep_highest/keep_lowest"),
    ("MAX_CALL_DEPTH", MAX_CALL_DEPTH, "definitions calling definitions"),
    ("MAX_TABLE_ROWS", MAX_TABLE_ROWS, "rows of one table"),
    ("MAX_GRID_CELLS", MAX_GRID_CELLS, "cells of one grid"),
    ("MAX_TABLE_POINTS", MAX_TABLE_POINTS, "parameter values a table is checked over"),
    ("MAX_TABLE_WORK", MAX_TABLE_WORK, "rows × values the table check works through"),
    ("MAX_TABLE_INCHES", MAX_TABLE_INCHES, "inches of a battlefield"),
    ("MAX_SCENARIO_UNITS", MAX_SCENARIO_UNITS, "units in one scenario"),
    ("MAX_TERRAIN_AREAS", MAX_TERRAIN_AREAS, "terrain areas of one table"),
    ("MAX_TURNS", MAX_TURNS, "game turns of one battle"),
    ("MAX_GAMES", MAX_GAMES, "battles of one simulate run"),
    ("MAX_JOBS", MAX_JOBS, "worker processes of one run"),
    ("MAX_EXACT_STATES", MAX_EXACT_STATES, "positions of one exact battle"),
    ("MAX_LOG_BYTES", MAX_LOG_BYTES, "bytes of one battle log"),
    ("MAX_LOG_LINE", MAX_LOG_LINE, "bytes of one line of a battle log"),
    ("MAX_LOG_EVENTS", MAX_LOG_EVENTS, "events of one battle log"),
    ("MAX_ROSTER_BYTES", MAX_ROSTER_BYTES, "bytes of one army list"),
)


def dice_outcomes(count: int, sides: int) -> int:
    """How many totals ``count`` dice of ``sides`` sides can show."""
    if count <= 0 or sides <= 0:
        return 1
    return count * (sides - 1) + 1


def sum_outcomes(count: int, low: Any, high: Any) -> int:
    """How many totals a sum of ``count`` amounts between ``low`` and ``high`` can reach (at most)."""
    try:
        width = int(high) - int(low)
    except (TypeError, ValueError):
        return 1
    return max(count, 0) * max(width, 0) + 1


def tree_depth(tree: Any) -> int:
    """The depth of a Lark tree, measured without recursion (deep trees are what it guards)."""
    from lark import Tree

    best = 0
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > best:
            best = depth
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1))
    return best


def long_line(text: str) -> tuple[int, int] | None:
    """(line number, length) of the first line longer than :data:`MAX_LINE_CHARS`, if any."""
    if len(text) <= MAX_LINE_CHARS:
        return None
    start = 0
    number = 1
    while True:
        end = text.find("\n", start)
        stop = len(text) if end < 0 else end
        if stop - start > MAX_LINE_CHARS:
            return number, stop - start
        if end < 0:
            return None
        start = end + 1
        number += 1


class LongRange(Sequence[int]):
    """The whole numbers ``lo..hi`` of a range too long to list: iterated lazily, its ``len`` capped.

    ``len(range(0, 10**20))`` raises OverflowError; ``len(LongRange(0, 10**20))`` is ``sys.maxsize``,
    which every "is it too big?" check refuses.

    >>> r = LongRange(1, 10**20)
    >>> len(r) == sys.maxsize, r[0], r[-1] == 10**20, 10**19 in r, list(r[:3])
    (True, 1, True, True, [1, 2, 3])
    """

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def __len__(self) -> int:
        return max(0, min(self.hi - self.lo + 1, sys.maxsize))

    @overload
    def __getitem__(self, i: int) -> int: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[int]: ...

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.start or 0, i.stop if i.stop is not None else len(self), i.step or 1
            return range(self.lo + start, self.lo + min(stop, len(self)), step)
        if i < 0:
            i += self.hi - self.lo + 1
        if not 0 <= i <= self.hi - self.lo:
            raise IndexError(i)
        return self.lo + i

    def __iter__(self) -> Iterator[int]:
        n = self.lo
        while n <= self.hi:
            yield n
            n += 1

    def __contains__(self, v: object) -> bool:
        return isinstance(v, int) and self.lo <= v <= self.hi

    def __repr__(self) -> str:
        return f"LongRange({self.lo}, {self.hi})"


class TooManyTokens(Exception):
    """Raised by the lexer when a file has more than :data:`MAX_TOKENS` tokens."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__(f"more than {MAX_TOKENS:,} tokens")
        self.line = line
        self.column = column


class TooDeep(Exception):
    """Raised by the lexer when brackets open more than :data:`MAX_NESTING` levels deep.

    The parse tree keeps no node for a redundant bracket, so ``((((1))))`` has to be counted
    as it is read.
    """

    def __init__(self, line: int, column: int) -> None:
        super().__init__(f"brackets nested more than {MAX_NESTING} levels deep")
        self.line = line
        self.column = column


class TooLongNumber(Exception):
    """Raised by the lexer for a number written with more than :data:`MAX_NUMBER_DIGITS` digits."""

    def __init__(self, line: int, column: int, digits: int) -> None:
        super().__init__(f"a number of {digits:,} digits")
        self.line = line
        self.column = column
        self.digits = digits


_OPEN = frozenset(("LPAR", "LSQB"))
#: The tokens that are read as numbers (``12``, ``0.5``, ``2d6``, ``6"``, ``4+``, ``1.0.0``).
_NUMBERS = frozenset(("INT", "DECIMAL", "DICE", "INCHES", "CELL_TARGET", "VERSION", "VERSION_REQ"))
_DIGITS = re.compile(r"\d+")
_CLOSE = frozenset(("RPAR", "RSQB"))


def count_tokens(stream: Any, limit: int = MAX_TOKENS, depth_limit: int = MAX_NESTING) -> Any:
    """Pass a token stream through, stopping it with :class:`TooManyTokens` past ``limit`` tokens
    and with :class:`TooDeep` past ``depth_limit`` open brackets.

    >>> from types import SimpleNamespace as T
    >>> brackets = [T(type="LPAR", line=1, column=c) for c in range(1, 5)]
    >>> len(list(count_tokens(brackets, depth_limit=4)))
    4
    >>> try:
    ...     list(count_tokens(brackets, depth_limit=3))
    ... except TooDeep as e:
    ...     print("refused at column", e.column)
    refused at column 4
    """
    n = 0
    depth = 0
    for token in stream:
        n += 1
        if n > limit:
            raise TooManyTokens(getattr(token, "line", 1) or 1, getattr(token, "column", 1) or 1)
        kind = getattr(token, "type", None)
        if kind in _NUMBERS and len(token) > MAX_NUMBER_DIGITS:
            longest = max((len(m) for m in _DIGITS.findall(str(token))), default=0)
            if longest > MAX_NUMBER_DIGITS:
                raise TooLongNumber(getattr(token, "line", 1) or 1, getattr(token, "column", 1) or 1, longest)
        if kind in _OPEN:
            depth += 1
            if depth > depth_limit:
                raise TooDeep(getattr(token, "line", 1) or 1, getattr(token, "column", 1) or 1)
        elif kind in _CLOSE and depth > 0:
            depth -= 1
        yield token
