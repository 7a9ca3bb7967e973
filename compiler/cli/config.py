"""Project settings: ``[tool.warscribe]`` in ``pyproject.toml``, or a ``warscribe.toml``.

Found as ruff and pytest find theirs: from the current folder up to the root, the first folder
holding a ``warscribe.toml`` (its top-level keys, or its ``[tool.warscribe]`` table) or a
``pyproject.toml`` with a ``[tool.warscribe]`` table is the project's root; in one folder
``warscribe.toml`` comes first. Paths in it are relative to that folder. Without a settings
file, the root is the nearest folder holding a ``rules/`` folder or an ``mkdocs.yml``.

::

    [tool.warscribe]
    rules = "rules"        # the rules folder: what check, test and render read by default
    out = "public"         # where build and render write the site
    policy = "greedy"      # how play and simulate decide: greedy, random, lookahead or mcts
    games = 4000           # simulate --games
    seed = 7               # simulate --seed
    strict = true          # check --strict: warnings fail the check
    site = "https://example.org/rules/"   # play: rules link to their pages on this site

An option given on the command line wins over the file; ``warscribe config`` prints what is in
effect and where each value came from.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from compiler.limits import MAX_GAMES

__all__ = ["KEYS", "Settings", "default_rules", "find_settings", "load_settings"]

#: Each setting: its type, its default, what it means, and the options it is the default of.
KEYS: dict[str, tuple[type, Any, str, tuple[tuple[str, str], ...]]] = {
    "rules": (str, "rules", "the rules folder (check, test, render, build)", ()),
    "out": (str, None, "where build and render write the site", (("build", "out"), ("render", "out"))),
    "policy": (str, "greedy", "how play and simulate decide: greedy, random, lookahead or mcts",
               (("play", "policy"), ("simulate", "policy"))),
    "games": (int, 1000, "how many battles simulate plays", (("simulate", "games"),)),
    "seed": (int, 1, "the seed of simulate", (("simulate", "seed"),)),
    "strict": (bool, False, "warnings fail check", (("check", "strict"),)),
    "site": (str, None, "the built site's address: play links each rule to its page there", (("play", "site"),)),
}
FILES = ("warscribe.toml", "pyproject.toml")


class SettingsError(click.UsageError):
    """A settings file that cannot be read, or holds a wrong key or value (exit 2)."""


@dataclass
class Settings:
    """The settings in effect: each value with where it came from."""

    root: Path  # the project's folder: paths in the settings are relative to it
    file: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        return self.values.get(key, KEYS[key][1])

    def origin(self, key: str) -> str:
        return self.origins.get(key, "default")

    def path(self, key: str) -> Path | None:
        """A folder setting as a path: relative to the project's root."""
        value = self.get(key)
        return None if value is None else (self.root / value)

    def default_map(self) -> dict[str, dict[str, Any]]:
        """Click's ``default_map``: the commands' options that the file sets."""
        out: dict[str, dict[str, Any]] = {}
        for key, value in self.values.items():
            for command, option in KEYS[key][3]:
                if key == "out":
                    value = _shown(self.root / str(value))
                out.setdefault(command, {})[option] = value
        return out


def _shown(path: Path) -> str:
    rel = os.path.relpath(path)
    return path.as_posix() if rel.startswith("..") and path.is_absolute() else rel


def _table(path: Path) -> dict[str, Any] | None:
    """The warscribe settings in one file, or None when it holds none."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise SettingsError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from err
    except tomllib.TOMLDecodeError as err:
        raise SettingsError(f"{path} is not valid TOML: {err}") from err
    tool = data.get("tool", {})
    table = tool.get("warscribe") if isinstance(tool, dict) else None
    if path.name == "warscribe.toml":
        return table if isinstance(table, dict) else {k: v for k, v in data.items() if k != "tool"}
    return table if isinstance(table, dict) else None


def find_settings(start: Path | None = None) -> tuple[Path, Path | None, dict[str, Any]]:
    """The project's root, its settings file (None when there is none) and the raw settings."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for name in FILES:
            candidate = folder / name
            if candidate.is_file():
                table = _table(candidate)
                if table is not None:
                    return folder, candidate, table
    for folder in (here, *here.parents):
        if (folder / "rules").is_dir() or (folder / "mkdocs.yml").is_file():
            return folder, None, {}
    return here, None, {}


def load_settings(start: Path | None = None) -> Settings:
    """The settings in effect from ``start`` (the current folder): checked key by key."""
    from compiler.diagnostics import did_you_mean

    root, file, raw = find_settings(start)
    settings = Settings(root, file)
    where = "" if file is None else _shown(file) + ("" if file.name == "warscribe.toml" else " [tool.warscribe]")
    for key, value in raw.items():
        if key not in KEYS:
            close = did_you_mean(key, KEYS)
            raise SettingsError(f"{where}: unknown setting '{key}'"
                                + (f"; did you mean '{close}'?" if close else f"; the settings are {', '.join(KEYS)}"))
        kind = KEYS[key][0]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise SettingsError(f"{where}: '{key}' should be {_kind_words(kind)}, not {value!r}")
        if key == "policy":
            from compiler.battle import POLICIES

            if value not in POLICIES:
                raise SettingsError(f"{where}: unknown policy '{value}'; use one of: {', '.join(POLICIES)}")
        if key == "games" and not 1 <= value <= MAX_GAMES:
            raise SettingsError(f"{where}: 'games' should be from 1 to {MAX_GAMES:,}, not {value}")
        settings.values[key] = value
        settings.origins[key] = where
    return settings


def _kind_words(kind: type) -> str:
    return {str: "a text in quotes", int: "a whole number", bool: "true or false"}[kind]


def current() -> Settings:
    """The settings of this run, read once per command (kept on Click's root context)."""
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    if root is not None and "warscribe.settings" in root.meta:
        return root.meta["warscribe.settings"]  # type: ignore[no-any-return]
    settings = load_settings()
    if root is not None:
        root.meta["warscribe.settings"] = settings
    return settings


def default_rules() -> str:
    """What a command reads when given no rules: inside the project's rules folder, the ruleset
    (or folder of rulesets) the current folder is in; elsewhere the project's rules folder; a
    folder of ``.rules`` files outside any project is itself."""
    settings = current()
    rules = settings.path("rules")
    here = Path.cwd().resolve()
    if rules is not None and rules.is_dir():
        rules = rules.resolve()
        if here == rules or rules in here.parents:
            inside = here.relative_to(rules).parts
            return _shown(rules / inside[0]) if inside else _shown(rules)
        return _shown(rules)
    if any(here.glob("*.rules")):
        return "."
    return "rules"
