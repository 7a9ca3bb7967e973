"""The user's cache folder, where warscribe keeps what it worked out once (ASTs, built parsers…),
and the one way in and out of it: entries sealed with a key only the user can read.

``$WARSCRIBE_CACHE_DIR``, else ``$XDG_CACHE_HOME/warscribe``, else ``~/.cache/warscribe``, with
an ``ast`` folder inside, made private to the user (0700).  Nothing read from it runs as code
unless the user's own warscribe wrote it:

* every entry is **sealed**: a header, the version of the format and an HMAC-SHA256 of the
  entry's name and content under a per-user key (``key`` in the folder, 0600, made once from
  ``os.urandom``); an entry whose seal does not verify is a miss, never read further;
* the folder is **checked at each open**, not once per process (a long-running ``lsp`` or
  ``serve`` can have its folder swapped under it): it must be a real folder (not a link), the
  user's, and writable by nobody else; so must each entry and the key.  Otherwise there is no
  cache, and one warning on standard error says why;
* what a sealed entry holds is read by :func:`loads`, an unpickler that knows only warscribe's
  own data classes and a few plain built-in types: no function, no other module's class.

No folder (None) when ``WARSCRIBE_CACHE=0`` is set or the folder cannot be made or written.

>>> import os
>>> os.environ.get("WARSCRIBE_CACHE") == "0" or find_cache_folder() is None or find_cache_folder().name == "ast"
True
>>> seal(b"k" * 32, "x.ast", b"payload")[:4]
b'WSC1'
>>> unseal(b"k" * 32, "x.ast", seal(b"k" * 32, "x.ast", b"payload"))
b'payload'
>>> unseal(b"k" * 32, "y.ast", seal(b"k" * 32, "x.ast", b"payload")) is None   # bound to its name
True
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import hmac
import importlib
import io
import os
import pickle
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["KEY_NAME", "MAGIC", "TEMP_PREFIX", "dumps", "existing_cache_folder", "find_cache_folder", "folder_problem", "loads",
           "read_entry", "seal", "unseal", "write_entry"]

#: The per-user key's file name in the cache folder.
KEY_NAME = "key"
#: The first bytes of every sealed entry, then one byte of format version.
MAGIC = b"WSC1"
_VERSION = 1
_HEAD = len(MAGIC) + 1 + 32
#: Temporary files the cache writes (and only those may be pruned as leftovers).
TEMP_PREFIX = ".ws-"
#: The largest entry read back (a bigger file is not one the cache wrote).
MAX_ENTRY_BYTES = 512 * 1024 * 1024

_keys: dict[str, bytes] = {}
_warned: set[str] = set()


def _base() -> Path:
    base = os.environ.get("WARSCRIBE_CACHE_DIR")
    if base:
        return Path(base)
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home) / "warscribe"


def _warn(folder: Path, problem: str) -> None:
    """One warning per folder and process: the cache is not used, and why."""
    if str(folder) in _warned:
        return
    _warned.add(str(folder))
    try:
        sys.stderr.write(f"warscribe: warning: not using the cache folder {folder}: {problem}; "
                         f"everything is worked out afresh\n")
    except (OSError, ValueError):
        pass


def _mine(st: os.stat_result) -> bool:
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` must not be used as the cache (None when it may): a link, not a folder,
    another user's, or writable by group or others."""
    try:
        st = os.lstat(folder)
    except OSError as e:
        return f"it cannot be read ({e.strerror or e})"
    if stat.S_ISLNK(st.st_mode):
        return "it is a link"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    if not _mine(st):
        return "it belongs to another user"
    if st.st_mode & 0o022:
        return "other users can write to it"
    return None


def find_cache_folder() -> Path | None:
    """The cache folder, made if missing and checked now; None when caching is off or the folder
    is unusable (with one warning when it is unsafe rather than merely read-only)."""
    if os.environ.get("WARSCRIBE_CACHE", "1") == "0":
        return None
    folder = _base() / "ast"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    problem = folder_problem(folder)
    if problem is not None:
        _warn(folder, problem)
        return None
    if not os.access(folder, os.W_OK):
        return None
    return folder


def existing_cache_folder() -> Path | None:
    """The cache folder when it already exists and is safe, even with ``WARSCRIBE_CACHE=0`` (made
    by nothing here): where a parser built from warscribe's own grammar may still be read."""
    folder = _base() / "ast"
    if not folder.is_dir() or folder_problem(folder) is not None:
        return None
    return folder


def _open_private(path: Path, private: int) -> int | None:
    """A file descriptor of ``path`` when it is a regular file of the user's that no one else can
    write (``private``: the mode bits that must be clear), else None.  Links are never followed."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    if not stat.S_ISREG(st.st_mode) or not _mine(st) or st.st_mode & private or st.st_size > MAX_ENTRY_BYTES:
        os.close(fd)
        return None
    return fd


def _key(folder: Path) -> bytes | None:
    """The user's key for ``folder`` (made on first use: 32 random bytes, 0600)."""
    found = _keys.get(str(folder))
    if found is not None:
        return found
    path = folder / KEY_NAME
    for _ in range(2):
        fd = _open_private(path, 0o077)
        if fd is not None:
            with os.fdopen(fd, "rb") as f:
                key = f.read(64)
            if len(key) != 32:
                _warn(folder, f"its key file {KEY_NAME} is damaged (remove it to make a new one)")
                return None
            _keys[str(folder)] = key
            return key
        if os.path.lexists(path):
            _warn(folder, f"its key file {KEY_NAME} is not a private file of the user's")
            return None
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:
            continue  # made by a run beside this one: read it
        except OSError:
            return None
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(32))
    return None


def seal(key: bytes, name: str, payload: bytes) -> bytes:
    """``payload`` with its header and its HMAC under ``key``, bound to the entry's ``name``."""
    mac = hmac.new(key, name.encode("utf-8", "surrogatepass") + b"\0" + payload, hashlib.sha256).digest()
    return MAGIC + bytes([_VERSION]) + mac + payload


def unseal(key: bytes, name: str, data: bytes) -> bytes | None:
    """The payload of a sealed entry, or None when its header or HMAC is not right."""
    if len(data) < _HEAD or data[:len(MAGIC)] != MAGIC or data[len(MAGIC)] != _VERSION:
        return None
    payload = data[_HEAD:]
    mac = hmac.new(key, name.encode("utf-8", "surrogatepass") + b"\0" + payload, hashlib.sha256).digest()
    return payload if hmac.compare_digest(mac, data[len(MAGIC) + 1:_HEAD]) else None


def _usable(folder: Path) -> bool:
    problem = folder_problem(folder)
    if problem is not None:
        _warn(folder, problem)
        return False
    return True


def read_entry(folder: Path, name: str) -> bytes | None:
    """The payload of the entry ``name`` in ``folder`` when the folder, the entry and its seal are
    all right (checked now); None otherwise."""
    if not _usable(folder):
        return None
    key = _key(folder)
    if key is None:
        return None
    fd = _open_private(folder / name, 0o022)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_ENTRY_BYTES + 1)
    return unseal(key, name, data)


def write_entry(folder: Path, name: str, payload: bytes) -> bool:
    """Seal ``payload`` and store it as ``name`` in ``folder`` atomically; False when it cannot."""
    if not _usable(folder):
        return False
    key = _key(folder)
    if key is None:
        return False
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=TEMP_PREFIX, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(seal(key, name, payload))
        os.replace(tmp, folder / name)
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False


# -- what an entry holds -------------------------------------------------------

#: The built-in types an entry may hold besides what pickle writes without naming a type.
_BUILTINS = frozenset({"set", "frozenset", "complex", "slice", "bytearray"})


@functools.lru_cache(maxsize=1024)
def _allowed(module: str, name: str) -> Any:
    if module == "builtins" and name in _BUILTINS:
        return getattr(__import__("builtins"), name)
    if module == "fractions" and name == "Fraction":
        from fractions import Fraction
        return Fraction
    if (module == "compiler" or module.startswith("compiler.")) and name.isidentifier():
        found = getattr(importlib.import_module(module), name, None)
        if isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum)):
            return found
    return None


class _Unpickler(pickle.Unpickler):
    """An unpickler that builds only warscribe's data classes, enums and plain built-in values
    (with ``plain``, only what pickle writes without naming a type: dicts, lists, tuples, strings,
    bytes, numbers, booleans and None)."""

    def __init__(self, file: io.BytesIO, plain: bool) -> None:
        super().__init__(file)
        self.plain = plain

    def find_class(self, module: str, name: str) -> Any:
        found = None if self.plain else _allowed(module, name)
        if found is None:
            raise pickle.UnpicklingError(f"a cache entry may not hold {module}.{name}")
        return found


def loads(payload: bytes, plain: bool = False) -> object:
    """What :func:`dumps` wrote: warscribe's data classes and plain values only (else
    ``UnpicklingError``); with ``plain``, plain values only.

    >>> loads(dumps({"a": (1, 2.5, None)}), plain=True)
    {'a': (1, 2.5, None)}
    >>> import os; loads(dumps(os.getcwd))
    Traceback (most recent call last):
    _pickle.UnpicklingError: a cache entry may not hold posix.getcwd
    """
    return _Unpickler(io.BytesIO(payload), plain).load()


def dumps(value: object) -> bytes:
    """``value`` as bytes for :func:`loads`."""
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
