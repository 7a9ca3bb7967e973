"""Writing files so that a crash, a full disk or Ctrl-C never leaves half a file.

:func:`write_atomic` writes to a temporary file in the same folder, flushes it
to disk, then renames it over the target in one step (``os.replace``): a
reader sees the old file or the new one, never a mixture, and on any error the
old file is left as it was and the temporary file is removed.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_atomic(folder / "x.rules", "stat BS \\"Ballistic Skill\\" 1..10\\n")
>>> (folder / "x.rules").read_text()
'stat BS "Ballistic Skill" 1..10\\n'
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: Path | str, text: str | bytes, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` atomically, keeping its permissions (a new file gets the umask's)."""
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()  # write the file the link points to; keep the link
    data = text.encode(encoding) if isinstance(text, str) else text
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is None:
            mode = 0o666 & ~current_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Flush the folder entry of the rename to disk (best effort: not every system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def current_umask() -> int:
    """The process's umask (read by setting it and putting it back: there is no other way)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
