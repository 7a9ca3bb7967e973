"""Army data between BattleScribe and the language: stats, keywords, abilities, units, weapons, squads, armies.

Both directions pass through :class:`ArmyData`:

    .gst/.cat ──from_xml──▶ ArmyData ──to_rules──▶ .rules text
    ruleset model ──from_model──▶ ArmyData ──to_xml──▶ .gst/.cat

Every name in it is already a language id (:func:`slug`, :func:`stat_id`); stat values are
kept as BattleScribe writes them (``3+``, ``6"``, ``D6``, ``-``) and read by the stat's kind.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

#: A stat's kind: "target" (3+), "distance" (6"), "dice" (D6, D3+1, 2), "range" (whole numbers), "text".
STAT_KINDS = ("target", "distance", "dice", "range", "text")

TARGET = re.compile(r"^(\d+)\+$")
DISTANCE = re.compile(r'^(\d+(?:\.\d+)?)(?:"|\'\'|”|″| ?in(?:ches)?)$')
INTEGER = re.compile(r"^[+-]?\d+$")
DICE = re.compile(r"^(\d*)[dD](\d+)(?:([+-])(\d+))?$")


@dataclass(frozen=True, slots=True)
class StatDef:
    """A stat, from a characteristic type: its kind and, for a range, its bounds."""

    id: str
    title: str
    kind: str
    low: int = 0
    high: int = 0
    note: str | None = None  # why it is text, when it is
    group: str = "unit"  # "unit" or "weapon": the profiles it is read from


@dataclass(frozen=True, slots=True)
class Named:
    """A keyword (from a category) or an ability (from a rule or an ability profile, with its text)."""

    id: str
    title: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class UnitData:
    """A unit (a model's profile) or a weapon, with its stat values as BattleScribe writes them."""

    id: str
    title: str
    stats: tuple[tuple[str, str], ...]
    keywords: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()
    points: int | None = None
    notes: tuple[str, ...] = ()  # values kept as text because they fit no stat (``Save 5+/5++``)


@dataclass(frozen=True, slots=True)
class SquadData:
    """A unit of several models: the model it counts, its size range and its points."""

    id: str
    title: str
    model: str
    low: int
    high: int
    points: int
    per_extra: int
    keywords: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Limit:
    """A force organisation slot: at least / at most so many units with a keyword."""

    keyword: str
    low: int | None
    high: int | None


@dataclass(frozen=True, slots=True)
class ArmyRule:
    """A force organisation chart: its slots and points limit."""

    id: str
    title: str
    limits: tuple[Limit, ...] = ()
    points: int | None = None


@dataclass(frozen=True)
class ArmyData:
    """Everything an import writes, and an export reads."""

    title: str
    stats: tuple[StatDef, ...] = ()
    keywords: tuple[Named, ...] = ()
    abilities: tuple[Named, ...] = ()
    units: tuple[UnitData, ...] = ()
    weapons: tuple[UnitData, ...] = ()
    squads: tuple[SquadData, ...] = ()
    armies: tuple[ArmyRule, ...] = ()
    sources: tuple[tuple[str, str], ...] = ()  # (file name, revision)
    unsupported: tuple[str, ...] = ()  # one line each, for the summary
    #: BattleScribe ids of what was imported (keyword/unit/weapon id → the entry's id), for rosters.
    origins: dict[str, str] = field(default_factory=dict)
    #: The army rules read the warlord (``warlords``): each unit may take a "Warlord" selection, read back
    #: from a roster as the list's ``as warlord``.
    warlord: bool = False
    #: How many warlords a roster has, at least and at most (``require warlords == 1``), when the rules say.
    warlords: tuple[int | None, int | None] = (None, None)


def slug(name: str) -> str:
    """A language id for a BattleScribe name: ``Faction: Orks`` → ``faction_orks``.

    >>> slug("Boltgun (Master-crafted)"), slug("3rd Company"), slug("!!")
    ('boltgun_master_crafted', 'n3rd_company', 'unnamed')
    """
    text = re.sub(r"[^0-9A-Za-z]+", "_", name.strip().lower()).strip("_")
    if not text:
        return "unnamed"
    if text[0].isdigit():
        text = "n" + text
    return text


def stat_id(name: str) -> str:
    """A stat's id keeps its case (``Sv``, ``BS``): ``Armour Save`` → ``Armour_Save``.

    >>> stat_id("Sv"), stat_id("Armour Save"), stat_id("1st")
    ('Sv', 'Armour_Save', 'S1st')
    """
    text = re.sub(r"[^0-9A-Za-z]+", "_", name.strip()).strip("_")
    if not text:
        return "Stat"
    if text[0].isdigit():
        text = "S" + text
    return text


def value_kind(value: str) -> str | None:
    """The narrowest stat kind a value fits (None for ``-``/empty, which fit any).

    >>> [value_kind(v) for v in ("3+", '6"', "D6", "D3+1", "4", "-", "*", "+2")]
    ['target', 'distance', 'dice', 'dice', 'range', None, 'text', 'text']
    """
    v = value.strip()
    if v in ("", "-", "—", "–", "N/A", "n/a"):
        return None
    if TARGET.match(v):
        return "target"
    if DISTANCE.match(v):
        return "distance"
    if INTEGER.match(v) and not v.startswith("+"):
        return "range"
    if DICE.match(v):
        return "dice"
    return "text"


def infer_kind(values: list[str]) -> tuple[str, str | None]:
    """The kind of a stat from all its values, and a note when some values force it to text."""
    kinds = {value_kind(v) for v in values} - {None}
    if not kinds:
        return "text", None
    if kinds == {"text"}:
        odd = sorted({v.strip() for v in values if not re.search(r"[A-Za-z]", v) and value_kind(v) == "text"})
        if not odd:
            return "text", None  # words: a weapon's type, its keywords
        shown = ", ".join(repr(v) for v in odd[:4]) + (", …" if len(odd) > 4 else "")
        return "text", f"kept as text: values such as {shown} are not numbers, rolls or distances"
    if len(kinds) == 1:
        return str(kinds.pop()), None
    if kinds == {"range", "dice"}:
        return "dice", None
    odd = sorted({v.strip() for v in values if value_kind(v) == "text"})
    if odd:
        shown = ", ".join(repr(v) for v in odd[:4]) + (", …" if len(odd) > 4 else "")
        return "text", f"kept as text: values such as {shown} are not numbers, rolls or distances"
    mixed = ", ".join(sorted(k for k in kinds if k))
    return "text", f"kept as text: its values mix kinds ({mixed})"


def is_none(value: str) -> bool:
    return value_kind(value) is None


def fits(values: list[str], kind: str, bounds: tuple[int, int] | None) -> bool:
    """Do all ``values`` fit a base stat of ``kind`` (and ``bounds``, for a range)?

    >>> fits(["3+", "-"], "target", None), fits(["3+"], "range", (1, 10)), fits(["11"], "range", (1, 10))
    (True, False, False)
    """
    for v in values:
        k = value_kind(v)
        if k is None or kind == "text":
            continue
        if kind in ("range", "number") and k == "range":
            if kind == "range" and bounds is not None and not bounds[0] <= int(v) <= bounds[1]:
                return False
            continue
        if kind == "dice" and k in ("dice", "range"):
            continue
        if k != kind:
            return False
    return True
