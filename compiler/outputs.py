"""The one guard of every file a command writes: no output option destroys a source.

``export --out``, ``play --log`` and ``render --out`` write where the user says; ``fmt``
rewrites ``.rules`` files; ``build`` replaces its site.  Before any work starts,
:func:`check_output_file` refuses (one sentence, exit status 2):

* a ``.rules`` file, also through a link — never, whatever the options;
* a path in a ruleset folder (a folder holding ``.rules`` files) or inside one of the folders the
  command reads — never: outputs go beside the rules, not among them;
* an existing file that is not the command's own output (its ``own`` test reads the start of
  the file: a battle log's first line, an export's format) — unless ``--force``;
* a folder where a file goes, a link loop, a folder that does not exist.

The write itself is atomic (:func:`compiler.atomic.write_atomic`): a reader sees the old file
or the new one.  :func:`unchanged_since` lets ``fmt`` refuse to replace a file someone saved
while it ran.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> (folder / "rules").mkdir(); _ = (folder / "rules" / "a.rules").write_text("stat S \\"S\\" 1..6\\n")
>>> check_output_file(folder / "log.jsonl", "write the log to", lambda head: False) == (folder / "log.jsonl").resolve()
True
>>> try:
...     check_output_file(folder / "rules" / "log.jsonl", "write the log to", lambda head: False)
... except OutputRefused as err:
...     print(err)  # doctest: +ELLIPSIS
refusing to write the log to .../rules/log.jsonl: it is inside the ruleset folder .../rules; write it elsewhere
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from compiler.safepaths import has_rules, real_path

__all__ = ["HEAD_BYTES", "OutputRefused", "check_output_file", "fingerprint", "ruleset_folder_of", "unchanged_since"]

#: How much of an existing file its ``own`` test sees.
HEAD_BYTES = 4096


class OutputRefused(Exception):
    """An output path the command must not write (the message is one sentence)."""


def ruleset_folder_of(path: Path) -> Path | None:
    """``path`` when it is a ruleset folder (it holds ``.rules`` files), else None.  (Deeper
    inside a ruleset is caught by the command's ``sources``; a stray ``.rules`` file in a
    home or temporary folder does not make every folder under it a ruleset.)"""
    return path if has_rules(path) else None


def check_output_file(path: Path | str, verb: str, own: Callable[[bytes], bool], force: bool = False,
                      sources: Iterable[Path | str] = ()) -> Path:
    """The real path to write ``path`` at, or :class:`OutputRefused` (see the module's list).

    ``verb`` completes "refusing to …" ("export to", "write the battle log to"); ``own`` says
    whether an existing file's first :data:`HEAD_BYTES` bytes are this command's own output;
    ``sources`` are folders the command reads (never written into)."""
    given = Path(path)
    shown = str(given)
    real = real_path(given.absolute())
    if real is None:
        raise OutputRefused(f"refusing to {verb} {shown}: it is a loop of links")
    through = f" (through the link {shown})" if given.is_symlink() else ""
    if real.suffix == ".rules":
        raise OutputRefused(f"refusing to {verb} {real}{through}: it is a .rules file, a source; write it elsewhere")
    if real.is_dir():
        raise OutputRefused(f"refusing to {verb} {shown}: it is a folder, not a file; name a file in it")
    if not real.parent.is_dir():
        raise OutputRefused(f"cannot {verb} {shown}: the folder {real.parent} does not exist")
    holder = ruleset_folder_of(real.parent)
    if holder is not None:
        raise OutputRefused(f"refusing to {verb} {real}{through}: it is inside the ruleset folder {holder}; "
                            f"write it elsewhere")
    for src in sources:
        root = real_path(Path(src).absolute())
        if root is not None and (real == root or root in real.parents):
            raise OutputRefused(f"refusing to {verb} {real}{through}: it is inside {root}, which this command "
                                f"reads; write it elsewhere")
    if os.path.lexists(real):
        if not real.is_file():
            raise OutputRefused(f"refusing to {verb} {shown}: it is neither a file nor a folder")
        if not force:
            try:
                with open(real, "rb") as f:
                    head = f.read(HEAD_BYTES)
            except OSError as err:
                raise OutputRefused(f"cannot {verb} {shown}: {err.strerror or err}") from None
            if not own(head):
                raise OutputRefused(f"refusing to {verb} {shown}: it exists and is not a file this command wrote; "
                                    f"give a new file, or --force to replace it")
    return real


def fingerprint(path: Path) -> tuple[int, int, int] | None:
    """What tells that a file changed: its size, modification time and inode (None when it is gone)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def unchanged_since(path: Path, seen: tuple[int, int, int] | None, content: bytes) -> bool:
    """Is ``path`` still the file read as ``content`` (with :func:`fingerprint` ``seen``)?"""
    if fingerprint(path) != seen:
        return False
    try:
        return path.read_bytes() == content
    except OSError:
        return False
