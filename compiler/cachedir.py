"""The user's cache folder, where warscribe keeps what it worked out once (ASTs, built parsers…).

``$WARSCRIBE_CACHE_DIR``, else ``$XDG_CACHE_HOME/warscribe``, else ``~/.cache/warscribe``, with
an ``ast`` folder inside, made private to the user (0700).  No folder (None) when
``WARSCRIBE_CACHE=0`` is set, when it cannot be made or written, or when another user owns it
(its files are unpickled: never what someone else could write).  Nothing here is remembered:
:func:`compiler.ast.cached.cache_folder` looks once per process and keeps the folder small.

>>> import os
>>> os.environ.get("WARSCRIBE_CACHE") == "0" or find_cache_folder() is None or find_cache_folder().name == "ast"
True
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["find_cache_folder"]


def find_cache_folder() -> Path | None:
    """The cache folder, made if missing; None when caching is off or the folder is unusable."""
    if os.environ.get("WARSCRIBE_CACHE", "1") == "0":
        return None
    try:
        base = os.environ.get("WARSCRIBE_CACHE_DIR")
        if base:
            folder = Path(base)
        else:
            home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
            folder = Path(home) / "warscribe"
        folder = folder / "ast"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.stat()
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            return None  # someone else's folder: never unpickle what another user could write
        if not os.access(folder, os.W_OK):
            return None
    except OSError:
        return None
    return folder
