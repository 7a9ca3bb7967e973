"""Every diagnostic code, in one place: its severity, a short title and where the reference explains it.

A diagnostic's code (``W201``) is what a user searches for and what a test pins, so each code is
registered here exactly once, as a :class:`Code` with a named constant::

    sink.error(codes.WRONG_KIND, "'to_hit' is a table, not a value", span)

Creating a :class:`~compiler.diagnostics.Diagnostic` with a code that is not registered, or with a
severity its code is never emitted with, raises :class:`UnregisteredCode`: that is a programming
error, caught by the tests, never a user's mistake.  The language reference
(``site/language.md``, "Diagnostic codes") lists the same codes; a test keeps the two in step.

Families: W0xx reading and parsing, W1xx names, W2xx types and values, W3xx tables, W4xx the
ruleset's files and header, W5xx notes, W6xx overlays, W7xx paths, W8xx questions to the
resolver, W9xx limits and internal failures.

>>> UNKNOWN_NAME.code, UNKNOWN_NAME.severity.value, UNKNOWN_NAME.title
('W101', 'error', 'unknown name')
>>> lookup("W907").severities == (Severity.ERROR, Severity.WARNING)
True
>>> lookup("W999")
Traceback (most recent call last):
    ...
compiler.codes.UnregisteredCode: diagnostic code 'W999' is not registered in compiler/codes.py
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Mapping


class Severity(str, Enum):
    """How bad a diagnostic is: an error fails the run, a warning does under ``--strict``."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class UnregisteredCode(ValueError):
    """A diagnostic was created with a code (or severity) the registry does not know: a bug."""


@dataclass(frozen=True, slots=True)
class Code:
    """One diagnostic code: what it is called, how severe it is and where it is documented."""

    code: str
    severity: Severity
    title: str
    #: The heading of ``site/language.md`` that explains it (its MkDocs anchor, without ``#``).
    anchor: str
    #: Other severities this code is emitted with, for the rare code whose severity depends on
    #: the case (a table too large to check is a warning, one too large to read an error).
    also: tuple[Severity, ...] = ()

    @property
    def severities(self) -> tuple[Severity, ...]:
        """Every severity this code may be emitted with, its usual one first."""
        return (self.severity,) + self.also

    @property
    def url(self) -> str:
        """Where the language reference explains this code, relative to the site's root."""
        return f"language/#{self.anchor}"

    def __str__(self) -> str:
        return self.code


_REGISTRY: dict[str, Code] = {}


def _register(code: str, severity: Severity, title: str, anchor: str, *also: Severity) -> Code:
    if code in _REGISTRY:
        raise UnregisteredCode(f"diagnostic code {code!r} is registered twice")
    entry = Code(code, severity, title, anchor, tuple(also))
    _REGISTRY[code] = entry
    return entry


_E, _W, _N = Severity.ERROR, Severity.WARNING, Severity.NOTE
_START = "the-warscribe-language"
_HEADER = "the-header"
_TABLES = "tables-and-formulas"
_EXPR = "expressions"
_OVERLAYS = "overlays-house-rules-on-a-base-game"
_LIMITS = "limits"

# -- W0xx: reading and parsing a file ----------------------------------------------------------
SYNTAX_ERROR = _register("W001", _E, "syntax error", _START)
UNEXPECTED_END = _register("W002", _E, "the file ends inside a declaration", _START)
BAD_INDENT = _register("W003", _E, "indentation that matches no block", _START)
NOT_UTF8 = _register("W005", _E, "the file is not UTF-8 text", _START)
UNREADABLE = _register("W006", _E, "the file cannot be read", _START)

# -- W1xx: names ---------------------------------------------------------------------------------
UNKNOWN_NAME = _register("W101", _E, "unknown name", _EXPR)
DUPLICATE = _register("W102", _E, "defined twice", _START)
BAD_INCLUDE = _register("W104", _E, "an include or a header line is wrong", _START)
REPEATED_PART = _register("W105", _E, "a part given twice, or a base ruleset not found", _START)
MISSING_PART = _register("W106", _E, "a declaration lacks a part it needs", _START)
BROKEN_LINK = _register("W107", _E, "a link to a name that is not defined", "text")
NEAR_MISS = _register("W108", _W, "a word close to a defined name", "game-structure")
SITUATION_REPEATS_PROFILE = _register("W109", _W, "a situation that repeats a keyword the profiles carry", "lexicon")

# -- W2xx: types and values ----------------------------------------------------------------------
WRONG_KIND = _register("W201", _E, "the wrong kind of value", _EXPR)
OUT_OF_RANGE = _register("W202", _E, "a value outside its range", _EXPR, _W)
WRONG_ARITY = _register("W203", _E, "the wrong number of values", _EXPR)
BAD_DIE = _register("W204", _E, "a custom die that does not fit its base die", "dice")
COMPUTED_COUNT = _register("W208", _E, "a model count that cannot be a number of models", "attack-sequences")

# -- W3xx: tables --------------------------------------------------------------------------------
TABLE_GAP = _register("W301", _W, "a table says nothing for some values", _TABLES)
UNUSED_ROW = _register("W302", _W, "a table row that is never used", _TABLES)
REPEATED_KEY = _register("W303", _W, "a table lists a value twice", _TABLES)
BAD_GRID = _register("W304", _E, "a grid that does not fit together", _TABLES)

# -- W4xx: the ruleset's files, structure and header ---------------------------------------------
CYCLE = _register("W401", _E, "definitions, includes or bases in a circle", _START)
NO_HEADER = _register("W402", _E, "no ruleset header", _HEADER)
TWO_HEADERS = _register("W403", _E, "more than one ruleset header", _HEADER)
NOT_INCLUDED = _register("W404", _W, "a file that is not included", _START)
NO_VERSION = _register("W405", _W, "a ruleset without a version", _HEADER)
HISTORY_MISMATCH = _register("W406", _W, "the history does not match the version", _HEADER)
HISTORY_NEWER = _register("W407", _W, "the history lists a newer version", _HEADER)
HOOKS_LOST = _register("W411", _E, "a hooked test whose hooks would be lost", "attack-sequences")
NO_WOUNDS_ROLE = _register("W412", _E, "removes without a stat declared role wounds", "attack-sequences")
HOOK_DIE_UNSAID = _register("W413", _E, "a damage hook that does not say which die it rolls", "abilities")
NONE_IN_ARITHMETIC = _register("W414", _E, "a stat written - reaching arithmetic", _EXPR)
DEPENDENT_RESULTS = _register("W415", _E, "results of one attack combined as if independent", "attack-sequences")
OWN_ATTACKS_ONLY = _register("W416", _W, "an ability of an attacked profile that counts only for its own attacks",
                             "abilities")
ALWAYS_CAN_FAIL = _register("W417", _W, "a roll that always succeeds but fails on a natural face", "tests")
EACH_UNBRACKETED = _register("W418", _W, "arithmetic left of each without brackets", _EXPR)
TARGET_STAT_MODIFIED = _register("W419", _W, "a modifier to a target value such as 3+", "modifiers")

# -- W5xx: notes ---------------------------------------------------------------------------------
OPEN_QUESTION = _register("W501", _N, "an open question", "rulebook-structure")

# -- W6xx: overlays ------------------------------------------------------------------------------
NO_BASE = _register("W601", _E, "an overlay change in a ruleset that extends none", _OVERLAYS)
CHANGED_TWICE = _register("W602", _E, "an overlay changes one thing twice", _OVERLAYS)
NOT_IN_BASE = _register("W603", _E, "an overlay changes what its base lacks", _OVERLAYS)
BASE_VERSION = _register("W604", _E, "the base is not the version the overlay is written for", _OVERLAYS)
REMOVED_BUT_USED = _register("W605", _E, "a removed declaration still in use", _OVERLAYS)
OVERLAYS_OVERLAP = _register("W606", _W, "an overlay overrides its base overlay's change", _OVERLAYS)
VERSION_NOT_BUMPED = _register("W607", _W, "a result changed but the version did not", _HEADER)

# -- W7xx: paths ---------------------------------------------------------------------------------
OUTSIDE_PATH = _register("W701", _E, "a path that leads outside the ruleset", _START)

# -- W8xx: questions to the resolver ---------------------------------------------------------------
REFUSED = _register("W800", _E, "the resolver refused the question", _LIMITS)

# -- W86x: battles (scenarios, army lists, the executable game) -------------------------------------
SCENARIO_INCOMPLETE = _register("W861", _E, "a scenario or a game lacks what a battle needs", "battles")
ARMY_RULE_BROKEN = _register("W862", _E, "an army list breaks a rule of army construction", "battles")
BATTLE_WRONG_KIND = _register("W863", _E, "a battle names something of the wrong kind", "battles")
SCENARIO_UNPLAYABLE = _register("W864", _E, "a scenario cannot be played as it is set up",
                                "objectives-scores-and-victory")
ARMY_RULE_UNCHECKED = _register("W865", _W, "an army rule that no list file can show to be met or broken",
                                "army-construction")
STAT_NOT_CARRIED = _register("W866", _E, "a battle reads a stat that a unit's profile does not carry", "battles")
STATUS_BOTH_SIDES = _register("W867", _E, "a status read for both the attacker and the unit attacked",
                              "whose-status-a-volley-reads")
STATUS_SIDE_UNKNOWN = _register("W868", _E, "a status read for a roll whose side a volley cannot tell",
                                "whose-status-a-volley-reads")
VALUE_OF_TARGET = _register("W869", _E, "a counter or an order read for the unit attacked",
                            "whose-status-a-volley-reads")
COUNT_NOT_DRAWN = _register("W870", _E, "a counter reads a count a volley cannot be drawn with", "battles")
SURE_ON_DICE = _register("W871", _E, "a worked-out situation or a status held while engaged depends on dice",
                         "battles")

# -- W9xx: limits and internal failures ------------------------------------------------------------
NOT_UNDERSTOOD = _register("W900", _E, "a part of the file warscribe cannot understand", _START)
TOO_DEEP = _register("W901", _E, "nested too deeply", _LIMITS)
FILE_TOO_LARGE = _register("W902", _E, "a file too large to read", _LIMITS)
TOO_MANY_DICE = _register("W903", _E, "more dice, sides or models than warscribe handles", _LIMITS)
LINE_TOO_LONG = _register("W904", _E, "a line too long", _LIMITS)
TOO_MANY_TOKENS = _register("W905", _E, "a file with too many tokens", _LIMITS)
TOO_MANY_FILES = _register("W906", _E, "a ruleset with too many files", _LIMITS)
TABLE_TOO_LARGE = _register("W907", _E, "a table too large to read or to check", _LIMITS, _W)
NUMBER_TOO_LONG = _register("W908", _E, "a number with too many digits", _LIMITS)
RULESET_TOO_LARGE = _register("W909", _E, "a ruleset too large to read", _LIMITS)
CANNOT_FORMAT = _register("W910", _E, "warscribe fmt cannot format the file", _START)

#: Every registered code by its name (``"W201"``), in order.
REGISTRY: Mapping[str, Code] = MappingProxyType(dict(sorted(_REGISTRY.items())))


def lookup(code: str) -> Code:
    """The registered :class:`Code` called ``code``; :class:`UnregisteredCode` when there is none."""
    try:
        return REGISTRY[code]
    except KeyError:
        raise UnregisteredCode(f"diagnostic code {code!r} is not registered in compiler/codes.py") from None


def require(code: str, severity: Severity) -> Code:
    """The registered code, checked to be emitted with ``severity``; raises :class:`UnregisteredCode`.

    >>> require("W301", Severity.WARNING).title
    'a table says nothing for some values'
    >>> require("W301", Severity.ERROR)
    Traceback (most recent call last):
        ...
    compiler.codes.UnregisteredCode: diagnostic code 'W301' is registered as a warning, not as an error
    """
    entry = lookup(code)
    if severity not in entry.severities:
        shown = " or ".join(f"{'an' if s.value[0] == 'e' else 'a'} {s.value}" for s in entry.severities)
        raise UnregisteredCode(f"diagnostic code {code!r} is registered as {shown}, "
                               f"not as {'an' if severity.value[0] == 'e' else 'a'} {severity.value}")
    return entry
