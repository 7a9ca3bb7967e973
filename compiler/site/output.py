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

from compiler.atomic import current_umask
from compiler.gitrun import git

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

__all__ = ["FIXED_EPOCH", "MARKER", "TEMPORARY", "VCS_FOLDERS", "OutputFolderError", "check_output_folder", "check_target",
           "clean_leftovers", "source_date_epoch", "staged", "write_atomic"]

#: The file a build leaves at the top of its site: the folder is then its own to replace.
MARKER = ".warscribe-build"
#: The file a build puts in each temporary folder it makes, as it makes it: only a folder holding
#: it (or a finished site's :data:`MARKER`) is ever removed as a leftover of a killed build.
TEMPORARY = ".warscribe-temporary"
#: Folders of version-control systems: never an output, never replaced.
VCS_FOLDERS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".jj", ".pijul", ".fossil"})

#: The build time when neither SOURCE_DATE_EPOCH nor git says one: 2000-01-01T00:00:00Z.
FIXED_EPOCH = 946684800


class OutputFolderError(Exception):
    """An output folder the build must not write into."""


def check_output_folder(out: Path | str, protected: Iterable[Path | str], sources: Iterable[Path | str] = ()) -> Path:
    """The resolved output folder, or :class:`OutputFolderError` when it is or holds a protected folder,
    or stands inside one of the ``sources`` folders (the rules, the hand-written pages)."""
    given = Path(out).absolute()
    check_target(given, "build into", folder=True)
    final = given.resolve()
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
    if final.is_dir() and not _is_previous_build(final):
        raise OutputFolderError(f"refusing to build into {final}: it holds files that are not a warscribe build "
                                f"(no {MARKER} file, no MkDocs sitemap.xml and search index); choose a new or "
                                f"empty folder, or remove {final} first")
    return final


def check_target(path: Path, verb: str, folder: bool) -> None:
    """Refuse an output ``path`` that is a link, a version-control folder (or inside one), or a file
    where a folder goes (``folder``) or a folder where a file goes."""
    path = Path(path).absolute()
    for part in path.parts:
        if part in VCS_FOLDERS:
            raise OutputFolderError(f"refusing to {verb} {path}: {part} is a version-control folder")
    if path.is_symlink():
        raise OutputFolderError(f"refusing to {verb} {path}: it is a symbolic link (to {os.readlink(path)}); "
                                f"give the real folder, or remove the link")
    if not os.path.lexists(path):
        return
    if folder and not path.is_dir():
        raise OutputFolderError(f"refusing to {verb} {path}: it is a file, not a folder")
    if not folder and path.is_dir():
        raise OutputFolderError(f"refusing to {verb} {path}: it is a folder, not a file")
    if not folder and not path.is_file():
        raise OutputFolderError(f"refusing to {verb} {path}: it is neither a file nor a folder")
    if folder and any((path / v).exists() for v in VCS_FOLDERS):
        raise OutputFolderError(f"refusing to {verb} {path}: it holds a version-control folder")


def _is_previous_build(folder: Path) -> bool:
    """Is ``folder`` empty, marked as a warscribe build, or a MkDocs site from before the marker?"""
    try:
        if not any(folder.iterdir()):
            return True
    except OSError:
        return False
    if (folder / MARKER).is_file():
        return True
    return (folder / "sitemap.xml").is_file() and (folder / "search" / "search_index.json").is_file()


def clean_leftovers(final: Path) -> list[Path]:
    """Remove the staging and old folders that killed builds left beside ``final`` (a folder whose
    build is still running, by its process id, is kept); return what was removed.  Only a folder
    the build made is removed: one holding its :data:`TEMPORARY` or :data:`MARKER` file, never
    another folder merely named like one."""
    removed: list[Path] = []
    try:
        siblings = list(final.parent.iterdir())
    except OSError:
        return removed
    for p in siblings:
        for kind in ("building", "old"):
            prefix = f".{final.name}.{kind}-"
            if not p.name.startswith(prefix) or p.is_symlink() or not p.is_dir():
                continue
            pid = p.name[len(prefix):].split("-", 1)[0]
            if pid.isdigit() and _alive(int(pid)):
                continue
            if not any(_regular(p / name) for name in (TEMPORARY, MARKER)):
                continue  # not a folder a build made
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


def _regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux renameat2 RENAME_EXCHANGE); False where not available."""
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: the file system cannot exchange
        return False
    raise OSError(err, os.strerror(err), str(b))


@contextlib.contextmanager
def staged(final: Path) -> Iterator[Path]:
    """A temporary folder beside ``final`` to build into, swapped in for ``final`` when the block succeeds."""
    final.parent.mkdir(parents=True, exist_ok=True)
    clean_leftovers(final)
    staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.building-{os.getpid()}-"))
    try:
        (staging / TEMPORARY).write_text("A site being built by warscribe.\n", encoding="utf-8")
        yield staging
        (staging / TEMPORARY).unlink(missing_ok=True)
        (staging / MARKER).write_text("A site built by warscribe: `warscribe build` replaces this folder.\n",
                                      encoding="utf-8")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    os.chmod(staging, 0o777 & ~current_umask())  # mkdtemp makes it private; a site is for reading
    try:
        if not os.path.lexists(final):
            os.rename(staging, final)  # one step: nothing was there
            return
        if _exchange(staging, final):  # one step: the new site in, the old one where the new was
            shutil.rmtree(staging, ignore_errors=True)
            return
        # No atomic exchange here: the old site aside, the new one in (a leftover is cleaned next time).
        old = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.old-{os.getpid()}-"))
        os.rmdir(old)
        os.replace(final, old)
        try:
            os.replace(staging, final)
        except BaseException:
            os.replace(old, final)  # put the old site back
            raise
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def source_date_epoch(rules_dir: Path | str) -> str:
    """SOURCE_DATE_EPOCH for a build: the environment's, the newest commit of the rules, or a fixed time."""
    given = os.environ.get("SOURCE_DATE_EPOCH")
    if given and given.strip().isdigit():
        return given.strip()
    folder = Path(rules_dir)
    try:
        r = git(folder, "log", "-1", "--format=%ct", "--", ".", timeout=30)
        stamp = str(r.stdout).strip()
        if r.returncode == 0 and stamp.isdigit():
            return stamp
    except (OSError, subprocess.SubprocessError):
        pass
    return str(FIXED_EPOCH)
