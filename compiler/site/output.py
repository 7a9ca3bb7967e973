"""Where a build writes, and how: into a fresh folder swapped in only on success, reproducibly.

* :func:`check_output_folder` refuses an output folder that would overwrite the
  author's work: the project folder, the rules folder, the hand-written pages
  (``docs_dir``), or any folder holding one of them.
* :func:`staged` gives a temporary folder next to the output folder to build
  into; on success it replaces the output folder in one rename (the old site is
  moved aside first and removed afterwards), on any failure it is removed and the
  previous site is left exactly as it was.
* :func:`source_date_epoch` is the time a reproducible build stamps on its pages
  (MkDocs reads ``SOURCE_DATE_EPOCH`` for the sitemap dates and the gzip header):
  the environment's value if set, else the newest git commit touching the rules,
  else a fixed value.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> check_output_folder(root / "public", [root, root / "rules"]) == (root / "public").resolve()
True
>>> try:
...     check_output_folder(root, [], [root / "rules"])
... except OutputFolderError as err:
...     print("refused:", "it holds" in str(err))
refused: True
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

try:  # the project's atomic write, where present
    from compiler.atomic import write_atomic
except ImportError:  # pragma: no cover - a fallback with the same contract
    def write_atomic(path: Path | str, text: str | bytes, encoding: str = "utf-8") -> None:
        target = Path(path)
        data = text.encode(encoding) if isinstance(text, str) else text
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

__all__ = ["FIXED_EPOCH", "OutputFolderError", "check_output_folder", "source_date_epoch", "staged", "write_atomic"]

#: The build time when neither SOURCE_DATE_EPOCH nor git says one: 2000-01-01T00:00:00Z.
FIXED_EPOCH = 946684800


class OutputFolderError(Exception):
    """An output folder the build must not write into."""


def check_output_folder(out: Path | str, protected: Iterable[Path | str], sources: Iterable[Path | str] = ()) -> Path:
    """The resolved output folder, or :class:`OutputFolderError` when it is or holds a protected folder,
    or stands inside one of the ``sources`` folders (the rules, the hand-written pages)."""
    final = Path(out).resolve()
    sources = [Path(p).resolve() for p in sources]
    for src in sources:
        if final.is_relative_to(src):
            raise OutputFolderError(f"refusing to build into {final}: it is inside {src}, the sources of the "
                                    f"site; choose an output folder of its own (e.g. public/)")
    for p in [*protected, *sources]:
        keep = Path(p).resolve()
        if final == keep:
            raise OutputFolderError(f"refusing to build into {final}: it is {keep} itself, which the build would "
                                    f"replace; choose an output folder of its own (e.g. public/)")
        if keep.is_relative_to(final):
            raise OutputFolderError(f"refusing to build into {final}: it holds {keep}, which the build would "
                                    f"replace; choose an output folder of its own (e.g. public/)")
    return final


@contextlib.contextmanager
def staged(final: Path) -> Iterator[Path]:
    """A temporary folder beside ``final`` to build into, swapped in for ``final`` when the block succeeds."""
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.building-"))
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    os.chmod(staging, 0o777 & ~_umask())  # mkdtemp makes it private; a site is for reading
    old: Path | None = None
    if final.exists() or final.is_symlink():
        old = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.old-"))
        os.rmdir(old)
        os.replace(final, old)
    try:
        os.replace(staging, final)
    except BaseException:
        if old is not None:
            os.replace(old, final)  # put the old site back
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def source_date_epoch(rules_dir: Path | str) -> str:
    """SOURCE_DATE_EPOCH for a build: the environment's, the newest commit of the rules, or a fixed time."""
    given = os.environ.get("SOURCE_DATE_EPOCH")
    if given and given.strip().isdigit():
        return given.strip()
    folder = Path(rules_dir)
    try:
        r = subprocess.run(["git", "-C", str(folder), "log", "-1", "--format=%ct", "--", "."],
                           capture_output=True, text=True, timeout=30)
        stamp = r.stdout.strip()
        if r.returncode == 0 and stamp.isdigit():
            return stamp
    except (OSError, subprocess.SubprocessError):
        pass
    return str(FIXED_EPOCH)
