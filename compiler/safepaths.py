"""Paths that stay inside the project: the one place that decides what warscribe may read.

A ruleset reads files only inside its own folder (``include``, W701), finds
its base only among the ruleset folders beside it (``extends``), and a folder
of rulesets (``warscribe check rules/``) holds only the rulesets inside it.
A symlink, a ``..`` or an absolute path that leads out is refused with a
diagnostic; so is a loop of links, which leads nowhere.

>>> is_inside(Path("/project/rules/skirmish/ruleset.rules"), Path("/project/rules"))
True
>>> is_inside(Path("/project/rules/../README.md"), Path("/project/rules"))
False
"""
from __future__ import annotations

from pathlib import Path


def real_path(path: Path) -> Path | None:
    """``path`` with every link and ``..`` followed; None for a loop of links or an unreadable path."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # RuntimeError: "Symlink loop" (Python < 3.13)
        return None


def is_inside(path: Path, folder: Path) -> bool:
    """Does ``path``, links followed, lie inside ``folder`` (links followed too)?"""
    real, root = real_path(path), real_path(folder)
    if real is None or root is None:
        return False
    return real == root or root in real.parents


def is_loop(path: Path) -> bool:
    """Is ``path`` a link that never reaches a file or folder (a loop of links)?"""
    return path.is_symlink() and real_path(path) is None


def leads_out(path: Path, folder: Path) -> bool:
    """Is ``path`` a link (or under a link) that leads out of ``folder``?"""
    return not is_inside(path, folder)


def has_rules(folder: Path) -> bool:
    """Does ``folder`` directly hold a ``.rules`` file?  (An unreadable folder holds none.)"""
    try:
        return any(p.suffix == ".rules" and p.is_file() for p in folder.iterdir())
    except OSError:
        return False


def outward_links(paths: list[str]) -> list[Path]:
    """Ruleset folders inside the folders of rulesets named by ``paths`` that are links leading out of them.

    ``warscribe check rules/`` does not follow ``rules/x`` when ``x`` is a link to a folder
    elsewhere; the driver reports each such link (W701).
    """
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.is_dir() or has_rules(p):
            continue
        try:
            children = sorted(p.iterdir())
        except OSError:
            continue
        for c in children:
            if c.is_symlink() and c.is_dir() and leads_out(c, p) and has_rules(c):
                out.append(c)
    return out
