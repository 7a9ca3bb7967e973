"""Running git in a repository someone else may have written: the one way warscribe calls git.

``check``, ``build`` and ``diff`` ask git about the repository that holds the rules (the
releases of a ruleset, whether its files changed, a ruleset as it was at a commit).  That
repository may have come from anywhere, and git obeys settings kept inside it: a
``core.fsmonitor`` command runs whenever git looks at the work tree, hooks run on some
commands, filter drivers (``filter.NAME.clean``/``smudge``) and diff drivers run on file
contents.  So every call goes through :func:`git`, which

* turns off the settings that run commands: ``core.fsmonitor=false``, ``core.hooksPath=/dev/null``,
  ``log.showSignature=false`` (a signature check runs ``gpg.program``), no pager;
* takes every path literally (``--literal-pathspecs``): a folder named ``:(glob)*`` is a folder;
* gives up on a repository where git once ran out of time (a ref or settings file that is a
  named pipe blocks git until the timeout): later calls in the same process fail at once, so a
  command waits :data:`GIT_TIMEOUT` seconds once, not once per question it asks;
* gives git no standard input and no terminal: a configuration file may include ``/dev/stdin``
  or ``/dev/tty`` (``[include] path = /dev/stdin``), and git would wait there for the user's
  keys, or read the messages an editor sends the language server;
* and is only ever asked what needs no filter: warscribe reads blobs raw (``cat-file``, never
  ``archive``) and compares the work tree with a commit by hashing the files itself
  (:func:`blob_id`), never with ``status`` or ``diff``, which would run the clean filters.

>>> blob_id(b"", 40)   # git hash-object /dev/null
'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
>>> SAFE_OPTIONS[:4]
('-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null')
"""
from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["GIT_TIMEOUT", "SAFE_OPTIONS", "blob_id", "git"]

GIT_TIMEOUT = 60
#: The repositories where git ran out of time in this process: not asked again.
_STALLED: set[str] = set()

#: Given before every git command: no command of the repository's runs, every path is literal.
SAFE_OPTIONS: tuple[str, ...] = (
    "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "log.showSignature=false",
    "-c", "core.pager=cat", "-c", "diff.external=", "--no-pager", "--literal-pathspecs",
)


def git(repo: Path | str, *args: str, binary: bool = False, stdin: bytes | str | None = None,
        timeout: float = GIT_TIMEOUT) -> subprocess.CompletedProcess[Any]:
    """``git -C repo ARGS`` with :data:`SAFE_OPTIONS`, its output captured (text unless ``binary``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_SSH_COMMAND")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1",
                "GIT_NO_REPLACE_OBJECTS": "1"})
    feed: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    command = ["git", *SAFE_OPTIONS, "-C", str(repo), *args]
    key = _work_tree(repo)
    if key in _STALLED:
        raise subprocess.TimeoutExpired(command, 0)
    try:
        return subprocess.run(command, capture_output=True, text=not binary, env=env, timeout=timeout, check=False,
                              start_new_session=True, **feed)
    except subprocess.TimeoutExpired:
        _STALLED.add(key)
        raise


def _work_tree(folder: Path | str) -> str:
    """The nearest folder holding ``.git`` at or above ``folder`` (``folder`` itself when none does):
    the repository git would find, found without asking git."""
    start = Path(os.path.abspath(folder))
    for place in (start, *start.parents):
        try:
            if os.path.lexists(place / ".git"):
                return str(place)
        except (OSError, ValueError):
            break
    return str(start)


def blob_id(data: bytes, length: int) -> str:
    """The id git gives a file of ``data`` (no filter applied): SHA-1, or SHA-256 when ids are 64 long."""
    h = hashlib.sha256() if length == 64 else hashlib.sha1()  # noqa: S324 — git's object id, not a secret
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()
