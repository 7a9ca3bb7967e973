"""``warscribe import battlescribe`` and ``warscribe export --battlescribe``: army data in and out.

The import writes a ruleset folder from a game system and its catalogues, checks it, and says
in one summary what it brought in, which abilities are prose only, and what it could not.
Neither command writes inside another ruleset's folder, nor over files it did not write itself
unless told ``--force``.
"""
from __future__ import annotations

import datetime
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import click

from compiler.cli.common import Arg, Exit, app, print_diagnostics, usage_error
from compiler.terminal import shown

if TYPE_CHECKING:
    from compiler import ast as A
    from compiler.battlescribe import Base
    from compiler.model.ruleset import Ruleset

#: The first line of every file ``import battlescribe`` writes: what marks a folder as its own.
IMPORT_MARK = "# Imported from BattleScribe data by `warscribe import battlescribe`"
IMPORT_FILES = ("ruleset.rules", "lexicon.rules", "profiles.rules", "army.rules")
#: The first comment of the files ``export --battlescribe`` writes.
EXPORT_MARK = "Written by warscribe export, in the BattleScribe format"


@app.group("import", no_args_is_help=True)
def import_app() -> None:
    """Bring army data written for other tools into a ruleset."""


def _inside_ruleset(folder: Path) -> Path | None:
    """The ruleset folder that holds ``folder`` (its parent, when that holds .rules files), as the output
    guard of every command sees it (:mod:`compiler.outputs`)."""
    from compiler.outputs import ruleset_folder_of

    return ruleset_folder_of(folder.absolute().resolve().parent)


def _own_import(folder: Path) -> bool:
    """Does ``folder`` hold only what an earlier import wrote (and nothing else of the author's)?"""
    for f in folder.iterdir():
        if f.name not in IMPORT_FILES:
            return False
        try:
            with open(f, encoding="utf-8") as stream:
                if not stream.readline().startswith(IMPORT_MARK.split(":")[0]) and f.name == "ruleset.rules":
                    return False
        except OSError:
            return False
    return True


def check_import_target(out: Path, force: bool) -> None:
    """Refuse an output folder inside a ruleset, or one holding files an import did not write (without --force)."""
    if out.exists() and not out.is_dir():
        raise usage_error(f"--out {out} is a file; give a folder for the new ruleset")
    holder = _inside_ruleset(out)
    if holder is not None:
        raise usage_error(f"refusing to write into {out}: it is inside the ruleset folder {holder}; "
                          f"give a folder of its own, beside the other rulesets")
    if out.is_dir() and any(out.iterdir()) and not _own_import(out) and not force:
        raise usage_error(f"refusing to write into {out}: it holds files that an import did not write; "
                          f"choose a new folder, or add --force to replace the ruleset's four files there")


def _load_base(given: str, out: Path) -> tuple[Base, set[str], set[str]]:
    from compiler import ast as A
    from compiler.battlescribe import Base
    from compiler.cli.common import compile_one

    folder = Path(given) if Path(given).is_dir() else out.absolute().parent / given
    if not folder.is_dir():
        raise usage_error(f"--extends {given}: no ruleset folder {folder}; the base must sit beside the new "
                          f"ruleset (its folder next to {out})")
    if folder.absolute().resolve().parent != out.absolute().resolve().parent:
        raise usage_error(f"--extends {given}: an overlay finds its base among the rulesets beside it; "
                          f"put --out next to {folder}")
    _, model = compile_one(str(folder))
    stats: dict[str, str] = {}
    ranges: dict[str, tuple[int, int]] = {}
    for s in model.stats.values():
        stats[s.id] = s.type if isinstance(s.type, str) else ("range" if s.type is not None else "text")
        if isinstance(s.type, A.RangeExpr) and isinstance(s.type.low, A.Int) and isinstance(s.type.high, A.Int):
            ranges[s.id] = (s.type.low.value, s.type.high.value)
    keywords = {e.id for e in model.of_type(A.Entry) if e.kind == "keyword"}
    ids = {d.id for d in model.walk() if getattr(d, "id", None)}
    return Base(model.id, model.version or "1.0.0", stats, ranges), ids | set(model.symbols), keywords


def _write_folder(out: Path, files: dict[str, str]) -> None:
    """Write the files; a new folder appears whole (written aside, then renamed into place)."""
    from compiler.atomic import current_umask, write_atomic

    if out.is_dir():
        for name, text in files.items():
            write_atomic(out / name, text)
        return
    out.absolute().parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.absolute().parent, prefix=f".{out.name}."))
    try:
        for name, text in files.items():
            write_atomic(tmp / name, text)
        os.chmod(tmp, 0o777 & ~current_umask())
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@import_app.command("battlescribe")
@click.argument("files", cls=Arg, nargs=-1, required=True, type=click.Path(path_type=Path),
                help="The game system (.gst or .gstz) and any catalogues (.cat or .catz).")
@click.option("--out", "-o", required=True, type=click.Path(path_type=Path),
              help="The new ruleset folder (its name is the ruleset's id).")
@click.option("--extends", "extends", metavar="BASE",
              help="Write an overlay on this ruleset (an id of a ruleset beside --out, or its folder).")
@click.option("--map", "map_file", type=click.Path(path_type=Path),
              help='A TOML file naming the base stat of each characteristic, e.g. Save = "Sv".')
@click.option("--force", is_flag=True, help="Replace the ruleset's files in a folder that holds other files.")
def import_battlescribe(files: tuple[Path, ...], out: Path, extends: str | None, map_file: Path | None,
                        force: bool) -> None:
    """A ruleset from BattleScribe data: stats, units, weapons, keywords, points, composition, army rules."""
    from compiler.battlescribe import DataError, import_files, read_map
    from compiler.driver import compile_paths

    ruleset_id = re.sub(r"[^a-z0-9]+", "-", out.name.lower()).strip("-")
    if not ruleset_id:
        raise usage_error(f"--out {out}: the folder's name is the ruleset's id; give it letters or digits")
    check_import_target(out, force)
    base = None
    base_ids: set[str] = set()
    base_keywords: set[str] = set()
    if extends is not None:
        base, base_ids, base_keywords = _load_base(extends, out)
    try:
        stat_map = read_map(map_file) if map_file is not None else {}
        texts, data, ids = import_files(list(files), ruleset_id, base, base_ids, base_keywords, stat_map,
                                        today=datetime.date.today().isoformat())
    except DataError as err:
        raise usage_error(shown(str(err), lines=False))
    try:
        _write_folder(out, texts)
    except OSError as err:
        raise usage_error(f"cannot write {out}: {err.strerror or err}")
    say = _say()
    say(f"wrote {out}: {len(data.units)} units, {len(data.squads)} squads, {len(data.weapons)} weapons, "
               f"{len(data.keywords)} keywords, {len(data.stats)} stats, {len(data.armies)} army rules")
    if data.abilities:
        say(f"  {len(data.abilities)} abilities imported as prose only, in {out / 'lexicon.rules'}: "
                   f"write their mechanics (hooks, effects) to make them count in the odds")
    if base is not None:
        used = sorted(ids.reused)
        say(f"  extends {base.id}: uses its {', '.join(used) if used else 'nothing'}")
        for line in ids.renamed:
            say(f"  renamed (the base has that name): {line}")
    if data.unsupported:
        say(f"  not imported ({len(data.unsupported)} kinds; also listed at the top of "
                   f"{out / 'ruleset.rules'}):")
        for line in data.unsupported:
            say(f"    {line}")
    result = compile_paths([str(out)])
    problems = tuple(d for d in result.diagnostics if d.is_error or d.severity.name == "WARNING")
    if problems:
        print_diagnostics(problems, dict(result.sources))
        click.echo(f"{out}: the imported ruleset does not check clean; see above", err=True)
        raise Exit(1)
    say(f"{out}: checks clean")


def _say() -> Callable[[str], None]:
    """``click.echo``, or nothing under ``-q`` (the summary is not the answer)."""
    from compiler.cli.common import is_quiet

    if is_quiet():
        return lambda text: None
    return lambda text: click.echo(shown(text, lines=False))  # names from a file are shown, never obeyed


def export_battlescribe(path: str, folder: Path, force: bool) -> None:
    """``warscribe export PATH --battlescribe FOLDER``: the ruleset as a .gst and a .cat."""
    from compiler.atomic import write_atomic
    from compiler.battlescribe.from_model import army_data
    from compiler.battlescribe import DataError
    from compiler.battlescribe.to_xml import catalogue_files
    from compiler.cli.common import compile_one

    _, model = compile_one(path)
    if folder.exists() and not folder.is_dir():
        raise usage_error(f"--battlescribe {folder} is a file; give a folder")
    holder = _inside_ruleset(folder) or (folder if folder.is_dir() and _has_rules(folder) else None)
    if holder is not None:
        raise usage_error(f"refusing to write into {folder}: it is inside the ruleset folder {holder}; "
                          f"give a folder of its own")
    data = army_data(model)
    try:
        written = catalogue_files(data, model.id)
    except DataError as err:  # a text XML cannot hold
        raise usage_error(shown(str(err), lines=False))
    if folder.is_dir():  # each file through the guard of every output: never a source, never another's file
        from compiler.outputs import OutputRefused, check_output_file

        for name in written:
            try:
                check_output_file(folder / name, "write the BattleScribe data to", _own_export, force, sources=[path])
            except OutputRefused as err:
                raise usage_error(shown(str(err), lines=False))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, content in written.items():
            write_atomic(folder / name, content)
    except OSError as err:
        raise usage_error(f"cannot write {folder}: {err.strerror or err}")
    say = _say()
    say(f"wrote {', '.join(str(folder / n) for n in written)}")
    if data.unsupported:
        say(f"  kept in warscribe only (BattleScribe has no place for them): {len(data.unsupported)}")
        for line in data.unsupported:
            say(f"    {line}")


def _has_rules(folder: Path) -> bool:
    from compiler.safepaths import has_rules

    return has_rules(folder)


def _own_export(head: bytes) -> bool:
    """Is a file starting with ``head`` one that ``export --battlescribe`` wrote?"""
    return EXPORT_MARK.encode() in head[:400]


def roster_army(roster: Path, model: Ruleset) -> tuple[A.Army | None, int | None]:
    """The army rules a roster's force was built with (when the ruleset has army rules of that name),
    and the points limit the player set in it."""
    from compiler.battlescribe import DataError
    from compiler.battlescribe.roster import read_roster
    from compiler.battlescribe.roster import roster_army as named

    try:
        read = read_roster(roster, model)
    except DataError as err:
        raise usage_error(shown(str(err), lines=False))
    return named(read, model), read.limit


def roster_units(roster: Path, model: Ruleset, quiet: bool = False) -> list[A.SideUnit]:
    """A BattleScribe roster as the units of an army list of ``model``; a usage error for what does not match."""
    from compiler import ast as A
    from compiler.battlescribe import DataError
    from compiler.battlescribe.roster import read_roster
    from compiler.diagnostics import Span

    try:
        read = read_roster(roster, model)
    except DataError as err:
        raise usage_error(shown(str(err), lines=False))
    if read.unknown:
        names = ", ".join(repr(u) for u in read.unknown[:5]) + (" …" if len(read.unknown) > 5 else "")
        verb = "is" if len(read.unknown) == 1 else "are"
        raise usage_error(f"{roster}: {shown(names, lines=False)} {verb} not a unit or squad of {model.id}; "
                          f"import the catalogue the roster was built from")
    span = Span(str(roster), 1, 1, 1, 1)
    units = [A.SideUnit(span, u.count, u.name, u.weapons, warlord=u.warlord) for u in read.units]
    if read.points is not None and not quiet:
        _say()(f"{roster}: '{read.title}', {len(units)} units; the roster counts {read.points} points")
    return units
