"""BattleScribe data in and out: game systems and catalogues as rulesets, rulesets as catalogues, rosters as army lists.

::

    .gst/.cat(z) ──xmlfile──▶ XML ──from_xml──▶ ArmyData ──to_rules──▶ ruleset folder   (import)
    ruleset model ──from_model──▶ ArmyData ──to_xml──▶ .gst + .cat                     (export)
    .ros(z) ──xmlfile──▶ XML ──roster──▶ army list (units, model counts, points)        (army check, simulate)

* :mod:`~compiler.battlescribe.xmlfile` — reading a file without trusting it (size caps, one zip
  entry, no DTD, no entities, no network);
* :mod:`~compiler.battlescribe.versions` — files of older schemas (2.00–2.02) read as the current one;
* :mod:`~compiler.battlescribe.data` — the army data both directions pass through;
* :mod:`~compiler.battlescribe.catalogues` / :mod:`~compiler.battlescribe.from_xml` — a game system
  and catalogues read as army data;
* :mod:`~compiler.battlescribe.to_rules` — army data written as the language's text;
* :mod:`~compiler.battlescribe.from_model` / :mod:`~compiler.battlescribe.to_xml` — a ruleset
  as army data, written in the published catalogue schema;
* :mod:`~compiler.battlescribe.roster` — a roster read as an army list.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from compiler.battlescribe.data import ArmyData
from compiler.battlescribe.ids import Ids
from compiler.battlescribe.to_rules import Base
from compiler.battlescribe.xmlfile import DataError

__all__ = ["ArmyData", "Base", "DataError", "Ids", "import_files", "read_map"]


def read_map(path: Path) -> dict[str, str]:
    """A ``--map`` file: ``CHARACTERISTIC = "STAT"`` lines (or under ``[stats]``), e.g. ``Save = "Sv"``."""
    try:
        raw = tomllib.loads(path.read_text("utf-8"))
    except OSError as err:
        raise DataError(f"cannot read {path}: {err.strerror or err}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise DataError(f"{path} is not valid TOML: {err}") from None
    table = raw.get("stats", raw)
    if not isinstance(table, dict):
        raise DataError(f"{path}: [stats] must be a table of CHARACTERISTIC = \"STAT\" lines")
    out: dict[str, str] = {}
    for key, val in table.items():
        if isinstance(val, dict) and key == "stats":
            continue
        if not isinstance(val, str):
            raise DataError(f"{path}: {key} = {val!r}: give the stat of the base game as a string, e.g. {key} = \"Sv\"")
        out[str(key)] = val
    return out


def import_files(paths: list[Path], ruleset_id: str, base: Base | None = None, base_ids: set[str] | None = None,
                 base_keywords: set[str] | None = None, stat_map: dict[str, str] | None = None,
                 today: str = "2000-01-01") -> tuple[dict[str, str], ArmyData, Ids]:
    """The files of a ruleset made from a game system and its catalogues, with the data and ids behind them.

    With ``base``, the ruleset is an overlay on it: characteristics named in ``stat_map`` (or
    spelled like one of the base's stats) are the base's stats, categories spelled like its
    keywords are its keywords, and nothing else takes an id the base has.
    """
    from compiler.battlescribe.catalogues import read_files
    from compiler.battlescribe.to_rules import ruleset_files

    stat_map = dict(stat_map or {})
    if base is not None:
        unknown = sorted(v for v in stat_map.values() if v not in base.stats)
        if unknown:
            raise DataError(f"the map names {', '.join(repr(u) for u in unknown)}, which {base.id} does not declare "
                            f"as stats (it has {', '.join(sorted(base.stats))})")
    elif stat_map:
        raise DataError("--map names stats of a base game: give the base with --extends")
    kinds = {k: (v, base.ranges.get(k)) for k, v in base.stats.items()} if base else {}
    ids = Ids(taken=set(base_ids or ()), base_keywords=set(base_keywords or ()), base_kinds=kinds, stat_map=stat_map)
    data = read_files(paths, ids)
    files = ruleset_files(data, ruleset_id, ids, base, today=today)
    return files, data, ids
