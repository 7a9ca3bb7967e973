"""A ``.rules`` file's text → its AST (parse, then build), remembered between runs.

Parsing is most of what ``warscribe check`` does (Lark's LALR parser in pure Python: about
0.5 s for the bundled rulesets), and an author re-checks files that mostly did not change.
So the AST of each file, with its diagnostics, is kept in the user's cache folder under a key
that holds everything the answer depends on: the text, the path shown in its spans, and a
fingerprint of warscribe's own code and grammar (every module's size and modification time),
Lark's and Python's versions.  Anything changed, and the file is parsed again.

The cache never changes an answer and never stops one: a folder that cannot be made or
written (a read-only home, no home at all), a file that cannot be read back, or
``WARSCRIBE_CACHE=0`` in the environment, and the file is simply parsed.  The folder is
private to the user (0700), checked at every read and write, and each entry is sealed with the
user's key (:mod:`compiler.cachedir`): nothing another user planted is ever read.  It holds about
:data:`MAX_ENTRIES` files at most, the oldest half dropped when a run finds it full (and again
after every ``MAX_ENTRIES // 2`` files a long run writes); only files named as the cache names
its entries are ever removed.

:func:`remembered` keeps other answers that depend only on what their key names the same way
(the website's diff of two committed releases of a ruleset, which needs both compiled; the
rendered pages of a ruleset); :func:`recall` and :func:`keep` are its two halves.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import pickle
import re
import sys
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar, cast

from compiler import ast as A
from compiler.ast.moved import moved
from compiler.cachedir import dumps, find_cache_folder, loads, read_entry, write_entry
from compiler.diagnostics import Diagnostic, Span

if TYPE_CHECKING:  # only for the annotation: parsing loads Lark
    from compiler.syntax.recover import Recovered

__all__ = ["MAX_ENTRIES", "cache_folder", "fingerprint", "keep", "passing", "read_rules", "recall", "remembered"]

T = TypeVar("T")

MAX_ENTRIES = 4096
_state: dict[str, object] = {}  # this process's folder and fingerprint, found once


def cache_folder() -> Path | None:
    """Where ASTs are kept: ``$WARSCRIBE_CACHE_DIR``, else ``$XDG_CACHE_HOME/warscribe``, else
    ``~/.cache/warscribe``; None when caching is off or the folder is unusable."""
    if "folder" in _state:
        found = _state["folder"]
        return found if isinstance(found, Path) else None
    _state["folder"] = None
    folder = find_cache_folder()
    if folder is None:
        return None
    try:
        _prune(folder)
    except OSError:
        return None
    _state["folder"] = folder
    return folder


#: The names of the entries the cache writes (:func:`_entry`): only these are ever pruned.
ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.[a-z]+")


def _prune(folder: Path) -> None:
    """Drop the older half of the entries when there are too many; any other file is left alone."""
    entries = [e for e in os.scandir(folder) if ENTRY_NAME.fullmatch(e.name) and e.is_file(follow_symlinks=False)]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime)
    for e in entries[: len(entries) // 2]:
        try:
            os.unlink(e.path)
        except OSError:
            pass


def fingerprint() -> bytes:
    """What a cached answer depends on besides its key: warscribe's code and grammar, Lark, Python."""
    return _fingerprint()


def _fingerprint() -> bytes:
    """What a cached AST depends on besides its text: warscribe's code and grammar, Lark, Python."""
    found = _state.get("fingerprint")
    if isinstance(found, bytes):
        return found
    import importlib.resources
    import importlib.util

    h = hashlib.sha256()
    h.update(f"{sys.version}|{pickle.HIGHEST_PROTOCOL}\n".encode())
    # Lark's version, read from its files (importlib.metadata takes longer to load than the rest)
    lark = importlib.util.find_spec("lark")
    if lark is not None and lark.origin:
        for path in sorted(Path(lark.origin).parent.glob("*.py")):
            st = path.stat()
            h.update(f"lark/{path.name}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    try:  # the grammar (read here, not through compiler.syntax, which would load Lark)
        for res in sorted(importlib.resources.files("compiler.grammar").iterdir(), key=lambda r: r.name):
            if res.name.endswith(".lark"):
                h.update(res.name.encode() + b"\0" + res.read_bytes())
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    package = Path(__file__).resolve().parent.parent
    for path in sorted([*package.rglob("*.py"), *(package.parent / "grammar").glob("*.lark")]):
        st = path.stat()
        h.update(f"{path.relative_to(package.parent)}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    digest = h.digest()
    _state["fingerprint"] = digest
    return digest


def with_recovery(file: A.File, recovered: Recovered) -> A.File:
    """``file`` with what error recovery learnt: the broken ids and, when the header itself
    did not parse, a header made of its id and title (so that the ruleset is still counted)."""
    if not recovered.broken and recovered.header is None:
        return file
    header, guessed = file.header, False
    if header is None and recovered.header is not None:
        id_, title, line = recovered.header
        header, guessed = A.Header(Span(file.path, line, 1, line, 2), id_, title), True
    return dataclasses.replace(file, header=header, broken=recovered.broken, header_guessed=guessed)


def parse_file(text: str, path: str) -> tuple[A.File | None, tuple[Diagnostic, ...]]:
    """Parse (recovering from syntax errors one top-level declaration at a time) and build one
    file, without the cache: the AST (None when nothing could be read) and its diagnostics.

    >>> file, diags = parse_file('stat BS "BS" 1..6\\nstat oops oops\\nstat S "S" 1..10\\n', "x.rules")
    >>> [d.id for d in file.items], file.broken, [d.code for d in diags]
    (['BS', 'S'], ('oops',), ['W001'])
    """
    # Imported here: a run whose files all come from the cache never loads Lark.
    from compiler.ast.build import build_file
    from compiler.syntax.recover import parse_recovering

    tree, diags, recovered = parse_recovering(text, path)
    if tree is None:
        return None, diags
    file, more = build_file(tree, path)
    return with_recovery(file, recovered), diags + more


def read_rules(text: str, path: str) -> tuple[A.File | None, tuple[Diagnostic, ...]]:
    """The AST of one file's ``text`` (None on a syntax error) and the diagnostics found on the way.

    The same as :func:`parse_file` (parse with error recovery, then build),
    from the cache when this text was read before at the same ``path`` by the same warscribe,
    or moved from another path where this process read the same text.

    >>> file, diags = read_rules('stat BS "Ballistic Skill" 1..10: "Aim."\\n', "x.rules")
    >>> file.items[0].id, diags
    ('BS', ())
    """
    passing = _PASSING.get()
    key = path.encode("utf-8", "surrogatepass") + b"\0" + text.encode("utf-8", "surrogatepass")
    seen = _READ.get(text)
    if seen is not None and seen[0] != path:
        found = moved(seen[1], seen[0], path)
        if found is not None:
            if not passing:
                keep("ast", key, found)
            return found
    if passing:
        result = parse_file(text, path)
    else:
        result = remembered("ast", key, lambda: parse_file(text, path), _is_parsed)
    if len(_READ) >= MAX_READ:
        del _READ[next(iter(_READ))]
    _READ[text] = (path, result)
    return result


#: The texts this process read last (at most :data:`MAX_READ`), each with its path and AST: the
#: same text met again at another path (an old release of a ruleset, compiled from git into a
#: temporary folder, mostly holds files read already) is :func:`~compiler.ast.moved.moved` there.
_READ: dict[str, tuple[str, tuple[A.File | None, tuple[Diagnostic, ...]]]] = {}
MAX_READ = 512
_PASSING: ContextVar[bool] = ContextVar("passing", default=False)


@contextlib.contextmanager
def passing() -> Iterator[None]:
    """Files read inside are neither looked for nor kept in the cache folder: files in a temporary
    folder (an old release extracted from git), whose paths, part of the key, never come again."""
    token = _PASSING.set(True)
    try:
        yield
    finally:
        _PASSING.reset(token)


def _is_parsed(found: object) -> bool:
    if isinstance(found, tuple) and len(found) == 2 and isinstance(found[1], tuple):
        return found[0] is None or isinstance(found[0], A.File)
    return False


def remembered(kind: str, key: bytes, compute: Callable[[], T], valid: Callable[[object], bool]) -> T:
    """``compute()``, kept in the cache folder under ``kind`` and ``key`` (which must hold
    everything the answer depends on besides warscribe itself, whose fingerprint is added).

    A stored answer is returned only when ``valid`` accepts it; with the cache off or
    unusable, or an entry that cannot be read or written, ``compute()`` simply runs.

    >>> remembered("demo", b"six", lambda: 6, lambda found: isinstance(found, int))
    6
    """
    found = recall(kind, key, valid)
    if found is not None:
        return cast(T, found[0])  # checked by ``valid``
    result = compute()
    keep(kind, key, result)
    return result


def _entry(kind: str, key: bytes) -> Path | None:
    folder = cache_folder()
    if folder is None:
        return None
    try:
        h = hashlib.sha256(_fingerprint())
    except (OSError, ValueError):
        return None
    h.update(kind.encode() + b"\0" + key)
    return folder / f"{h.hexdigest()}.{kind}"


def recall(kind: str, key: bytes, valid: Callable[[object], bool]) -> tuple[object] | None:
    """The answer kept under ``kind`` and ``key`` (see :func:`remembered`), as a one-tuple;
    None when there is none that ``valid`` accepts, or the cache is off.  For a caller that
    works out its misses together (in forked workers) and then stores each with :func:`keep`.

    >>> keep("demo", b"seven", 7)
    >>> recall("demo", b"seven", lambda found: isinstance(found, int)) in [(7,), None]  # None: cache off
    True
    """
    entry = _entry(kind, key)
    if entry is None:
        return None
    payload = read_entry(entry.parent, entry.name)  # None unless sealed by this user's warscribe
    if payload is None:
        return None
    try:
        found = loads(payload)
        if valid(found):
            return (found,)
    except Exception:  # noqa: BLE001 — a damaged or foreign entry is a miss, never an answer
        pass
    return None


def keep(kind: str, key: bytes, value: object) -> None:
    """Store ``value`` under ``kind`` and ``key`` for :func:`recall` (nothing when the cache is off,
    the value cannot be pickled, or the folder cannot be written)."""
    entry = _entry(kind, key)
    if entry is None:
        return
    folder = entry.parent
    try:
        blob = dumps(value)
    except (RecursionError, pickle.PicklingError, TypeError, AttributeError):
        return  # a deeply nested tree: work it out again next time
    if not write_entry(folder, entry.name, blob):
        return
    written = int(str(_state.get("written", 0))) + 1
    _state["written"] = written
    if written % (MAX_ENTRIES // 2) == 0:  # a long run (a fuzzer, an editor) stays bounded too
        try:
            _prune(folder)
        except OSError:
            pass
