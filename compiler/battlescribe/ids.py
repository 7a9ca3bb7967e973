"""Language ids for BattleScribe names: one id per entry, unique, never a word of the language.

BattleScribe names repeat (a unit and its model are both "Carnifex"), carry punctuation
("Faction: Orks") and may collide with the language's own words (``points``, ``models``) or
with a base ruleset's declarations.  :class:`Ids` gives each BattleScribe thing (keyed by its
kind and id) one language id, the same each time it is asked, different from every other.

>>> ids = Ids()
>>> ids.get(("entry", "a1"), "Carnifex"), ids.get(("squad", "b2"), "Carnifex"), ids.get(("entry", "a1"), "x")
('carnifex', 'carnifex_2', 'carnifex')
>>> ids.get(("entry", "c3"), "Points")
'points_'
"""
from __future__ import annotations

import re
from functools import lru_cache

from compiler.battlescribe.data import slug, stat_id


@lru_cache(maxsize=1)
def grammar_words() -> frozenset[str]:
    """The words of the grammar (``unit``, ``points``, ``keywords``…)."""
    from compiler.syntax.grammar import grammar_text

    return frozenset(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', grammar_text()))


@lru_cache(maxsize=1)
def reserved_words() -> frozenset[str]:
    """The language's own words (``unit``, ``points``…), its built-in functions and army quantities."""
    from compiler.check import ARMY_NAMES
    from compiler.syntax.builtins import BUILTINS
    from compiler.syntax.grammar import grammar_text

    words = set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', grammar_text()))
    return frozenset(words | set(BUILTINS) | set(ARMY_NAMES) | {"true", "false", "yes", "no", "none", "never",
                                                                 "always", "otherwise", "target", "weapon"})


#: The prefixes of the BattleScribe ids ``export --battlescribe`` writes, before the language's id.
EXPORT_PREFIXES = ("ws-cat-", "ws-rule-", "ws-profile-", "ws-unit-", "ws-model-", "ws-squad-", "ws-force-")


def _exported_id(bs_id: str) -> str | None:
    """The language id inside a BattleScribe id that warscribe wrote (``ws-squad-tactical`` → ``tactical``).

    >>> _exported_id("ws-squad-tactical_squad"), _exported_id("se-1234"), _exported_id("ws-cat-9x")
    ('tactical_squad', None, None)
    """
    for prefix in EXPORT_PREFIXES:
        if bs_id.startswith(prefix):
            rest = bs_id[len(prefix):]
            return rest if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", rest) else None
    return None


class Ids:
    """Unique ids, stable per key; ``taken`` ids (a base ruleset's) are never handed out."""

    def __init__(self, taken: set[str] | None = None, base_keywords: set[str] | None = None,
                 base_kinds: dict[str, tuple[str, tuple[int, int] | None]] | None = None,
                 stat_map: dict[str, str] | None = None) -> None:
        self.by_key: dict[tuple[str, str], str] = {}
        self.used: set[str] = set(taken or ())
        self.base_ids: set[str] = set(taken or ())
        self.base_keywords = base_keywords or set()
        #: The base's stats: their kind and, for a range, its bounds.
        self.base_kinds = base_kinds or {}
        self.base_stats = set(self.base_kinds)
        self.stat_map = stat_map or {}
        #: Ids of the base that the data uses as they are (its stats and keywords).
        self.reused: set[str] = set()
        #: Names that met a base declaration of another kind and took a suffix.
        self.renamed: list[str] = []
        #: Base stats taken because a characteristic is spelled like them (not named by the map).
        self.implicit: set[str] = set()
        #: Base stats the map names.
        self.explicit: set[str] = set()

    def get(self, key: tuple[str, str], name: str) -> str:
        if key in self.by_key:
            return self.by_key[key]
        own = _exported_id(key[1])
        if own is not None and own not in self.used and own not in reserved_words():
            self.used.add(own)  # a catalogue warscribe wrote carries the ids: they come back as they were
            self.by_key[key] = own
            return own
        base = slug(name)
        if key[0] == "category" and base in self.base_keywords:
            self.reused.add(base)
            self.by_key[key] = base
            return base
        fresh = self._fresh(base)
        if fresh != base and base in self.base_taken() and key[0] != "section":
            self.renamed.append(f"{name} → {fresh}")
        self.by_key[key] = fresh
        return fresh

    def stat(self, name: str) -> str:
        key = ("stat", name)
        if key in self.by_key:
            return self.by_key[key]
        mapped = self.stat_map.get(name) or (stat_id(name) if stat_id(name) in self.base_stats else None)
        if mapped is not None:
            self.reused.add(mapped)
            if name in self.stat_map:  # named by the map: the base's stat, whatever else is spelled like it
                self.implicit.discard(mapped)
                self.explicit.add(mapped)
            elif mapped not in self.explicit:
                self.implicit.add(mapped)
            self.by_key[key] = mapped
            return mapped
        fresh = self._fresh(stat_id(name), stat=True)
        self.by_key[key] = fresh
        return fresh

    def own_stat(self, name: str) -> str:
        """A stat id of the import's own for characteristic ``name`` (not the base's of that spelling)."""
        fresh = self._fresh(stat_id(name), stat=True)
        self.by_key[("stat", name)] = fresh
        return fresh

    def base_taken(self) -> set[str]:
        return self.base_ids

    def _fresh(self, base: str, stat: bool = False) -> str:
        words = grammar_words() if stat else reserved_words()  # a stat may be called P, like the function
        if base in words:  # the language's words are lower case: ``Move`` is a fine stat
            base += "_"
        candidate, n = base, 1
        while candidate in self.used:
            n += 1
            candidate = f"{base}_{n}" if not base.endswith("_") else f"{base}{n}"
        self.used.add(candidate)
        return candidate
