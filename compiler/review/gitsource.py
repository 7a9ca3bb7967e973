"""Rulesets as they were at a git revision.

``warscribe diff`` compares a ruleset folder with another folder, or with the
same folder at a git revision (``HEAD~1``, ``v1.0``, a commit id).  For a
revision the ruleset's files — and the rulesets beside it, where an overlay
finds its base — are read with ``git archive`` into a temporary folder and
compiled there like any other folder; diagnostics are reported as
``REV:path/file.rules:12:3`` so a reader knows which side they come from.

Git runs as a local subprocess in the repository that holds the path, through
:func:`compiler.gitrun.git` (none of the repository's own commands — fsmonitor, hooks,
filters — ever runs); it never touches the network and never changes the repository.

>>> parse_sides(["rules/a", "rules/b"], exists=lambda p: True)
[SideSpec(revision=None, path='rules/a'), SideSpec(revision=None, path='rules/b')]
>>> parse_sides(["HEAD~1", "rules/x"], exists=lambda p: p == "rules/x")
[SideSpec(revision='HEAD~1', path='rules/x'), SideSpec(revision=None, path='rules/x')]
>>> parse_sides(["v1.0", "HEAD", "rules/x"], exists=lambda p: True)
[SideSpec(revision='v1.0', path='rules/x'), SideSpec(revision='HEAD', path='rules/x')]
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Mapping

from compiler.ast.cached import passing
from compiler.diagnostics import Diagnostic, Span
from compiler.driver import Compilation, compile_paths
from compiler.gitrun import GIT_TIMEOUT, blob_id, git
from compiler.model.load import UsageError
from compiler.model.ruleset import Ruleset


class SourceError(UsageError):
    """A side of a comparison that cannot be found: an unknown revision or path (exit status 2)."""


#: What reading a ruleset from git can fail with when nothing is wrong with warscribe: a side that
#: cannot be found or compiled from its files (:class:`SourceError`, and the ``UsageError`` of
#: compiling a folder), git missing or failing to start (``OSError``) or timing out
#: (``subprocess.SubprocessError``), git's output not being UTF-8 text.
#: A caller for whom git is optional (the Changes page, ``check``'s W607) catches these and no more.
GIT_FAILURES: tuple[type[Exception], ...] = (UsageError, OSError, subprocess.SubprocessError, UnicodeDecodeError)


@dataclass(frozen=True)
class SideSpec:
    """One side of a comparison: a path, in the working tree (``revision`` None) or at a revision."""

    revision: str | None
    path: str

    @property
    def label(self) -> str:
        """``rules/x`` or ``HEAD~1:rules/x``."""
        return f"{self.revision}:{self.path}" if self.revision else self.path


@dataclass(frozen=True)
class Loaded:
    """A side compiled: the model of its ruleset (None on errors), its diagnostics and sources."""

    spec: SideSpec
    model: Ruleset | None
    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, str]

    @property
    def ok(self) -> bool:
        return self.model is not None and not any(d.is_error for d in self.diagnostics)


def parse_sides(args: list[str], exists: Callable[[str], bool] = os.path.exists) -> list[SideSpec]:
    """Read ``OLD NEW`` or ``REV1 REV2 PATH`` (see ``warscribe diff --help``) as two sides.

    * ``FOLDER FOLDER``: two folders in the working tree;
    * ``REV PATH``: the path at a revision against the same path in the working tree;
    * ``REV1 REV2 PATH``: the path at two revisions.

    Raises :class:`SourceError` for anything else.
    """
    if len(args) == 2:
        a, b = args
        if exists(a) and exists(b):
            return [SideSpec(None, a), SideSpec(None, b)]
        if exists(a):
            raise SourceError(f"no such file or folder: {b} (to compare with a revision, write: warscribe diff REV {a})")
        if exists(b):
            return [SideSpec(a, b), SideSpec(None, b)]
        raise SourceError(f"no such file or folder: {b}")
    if len(args) == 3:
        return [SideSpec(args[0], args[2]), SideSpec(args[1], args[2])]
    raise SourceError("warscribe diff takes OLD NEW (two folders, or a revision and a folder) "
                      "or REV1 REV2 PATH")


# ---------------------------------------------------------------------------
# git
# ---------------------------------------------------------------------------


def _git(repo: Path, *args: str, binary: bool = False, stdin: bytes | None = None) -> subprocess.CompletedProcess[Any]:
    return git(repo, *args, binary=binary, stdin=stdin, timeout=GIT_TIMEOUT)


def _blobs_at(repo: Path, commit: str, specs: list[str]) -> dict[str, str] | None:
    """The files (regular files, links left out) under ``specs`` at ``commit``, each with its blob
    id; None when git fails."""
    r = _git(repo, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *specs)
    if r.returncode != 0:
        return None
    out: dict[str, str] = {}
    for row in r.stdout.split("\0"):
        meta, _, path = row.partition("\t")
        parts = meta.split()
        if path and len(parts) == 3 and parts[1] == "blob" and parts[0] in ("100644", "100755"):
            out[path] = parts[2]
    return out


def _work_tree_ids(repo: Path, paths: list[str], length: int) -> dict[str, str]:
    """The blob id of each of ``paths`` (relative to ``repo``) as the work tree holds it, hashed
    here with no filter (a path that is not a regular file is left out)."""
    out: dict[str, str] = {}
    for rel in paths:
        full = repo / rel
        try:
            if full.is_symlink() or not full.is_file():
                continue
            out[rel] = blob_id(full.read_bytes(), length)
        except OSError:
            continue
    return out


def repo_root(path: Path) -> Path | None:
    """The top folder of the git work tree that holds ``path`` (None outside git, or without git)."""
    probe = path.resolve()
    while not os.path.exists(probe) and probe != probe.parent:
        probe = probe.parent
    if os.path.isfile(probe):
        probe = probe.parent
    try:
        r = _git(probe, "rev-parse", "--show-toplevel")
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0 or not r.stdout.strip():
        return None
    return Path(r.stdout.strip()).resolve()


def resolve_revision(repo: Path, revision: str) -> str:
    """The commit id of ``revision``; :class:`SourceError` when git does not know it."""
    if not revision or revision.startswith("-"):
        raise SourceError(f"unknown revision '{revision}'")
    r = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
    if r.returncode != 0 or not r.stdout.strip():
        raise SourceError(f"unknown revision '{revision}' in the git repository {repo}")
    return str(r.stdout).strip()


def relative_in_repo(repo: Path, path: Path) -> PurePosixPath:
    try:
        rel = path.resolve().relative_to(repo)
    except ValueError:
        raise SourceError(f"{path} is not inside the git repository {repo}") from None
    return PurePosixPath(rel.as_posix())


def _files_at(repo: Path, commit: str, under: PurePosixPath) -> list[str]:
    spec = "." if str(under) == "." else str(under)
    r = _git(repo, "ls-tree", "-r", "-z", "--name-only", commit, "--", spec)
    if r.returncode != 0:
        return []
    return [f for f in r.stdout.split("\0") if f]


def unchanged_since(repo: Path, commit: str, folders: list[Path]) -> bool:
    """Whether the ``.rules`` files of each of ``folders`` (a ruleset's folder and its bases') are
    in the work tree as they are at ``commit``: none changed, added or removed since.  Then the
    ruleset compiled from the work tree is the one that commit holds.  The work tree's files are
    hashed here, never handed to git's filters."""
    try:
        rels = [str(relative_in_repo(repo, f.resolve())) for f in folders]
    except SourceError:
        return False  # a base outside the repository: not known to be the same
    at = _blobs_at(repo, commit, sorted(set(rels)))
    if at is None:
        return False
    length = len(next(iter(at.values()), "0" * 40))
    for rel in rels:
        def own(path: str) -> bool:
            folder, _, name = path.rpartition("/")
            return (folder or ".") == rel and name.endswith(".rules")
        committed = {p: oid for p, oid in at.items() if own(p)}
        if not committed:
            return False  # each folder's files must be found, or nothing is known
        try:
            here = sorted(p.name for p in (repo / rel).iterdir() if p.name.endswith(".rules"))
        except OSError:
            return False
        listed = [name if rel == "." else f"{rel}/{name}" for name in here]
        if _work_tree_ids(repo, listed, length) != committed or len(listed) != len(committed):
            return False
    return True


def _read_blobs(repo: Path, commit: str, names: list[str], ids: list[str]) -> list[bytes]:
    """The bytes of each blob, unfiltered: all at once with ``cat-file --batch``, else one by one.

    The batch is fed on git's standard input, and a repository's settings may include
    ``/dev/stdin`` (``[include] path = /dev/stdin``): git then reads the batch as settings and
    stops.  Asked one blob at a time, git is given no input at all."""
    r = _git(repo, "cat-file", "--batch", binary=True, stdin="".join(f"{i}\n" for i in ids).encode())
    out: list[bytes] = []
    data, at = r.stdout, 0
    for name in names if r.returncode == 0 else ():  # each "<id> blob <size>\n<bytes>\n", in the order asked
        head_end = data.find(b"\n", at)
        parts = data[at:head_end].split() if head_end >= 0 else []
        if len(parts) != 3 or parts[1] != b"blob" or not parts[2].isdigit():
            raise SourceError(f"git cat-file could not read {name} at {commit[:12]}")
        size = int(parts[2])
        out.append(data[head_end + 1:head_end + 1 + size])
        at = head_end + 1 + size + 1
    if r.returncode == 0:
        return out
    for name, oid in zip(names, ids):
        one = _git(repo, "cat-file", "blob", oid, binary=True)
        if one.returncode != 0:
            raise SourceError(f"git cat-file could not read {name} at {commit[:12]}: "
                              f"{one.stderr.decode('utf-8', 'replace').strip()}")
        out.append(one.stdout)
    return out


def _ruleset_folder(repo: Path, commit: str, rel: PurePosixPath, files: list[str]) -> PurePosixPath:
    """The ruleset folder named by ``rel`` at the commit (``rel`` itself, or the folder of a .rules file)."""
    if str(rel) in files:
        if rel.suffix != ".rules":
            raise SourceError(f"not a .rules file: {rel}")
        return rel.parent
    return rel


def extract_at(repo: Path, commit: str, rel: PurePosixPath, target: Path) -> PurePosixPath:
    """Write the ruleset at ``rel`` as of ``commit`` into ``target``, with the rulesets beside it.

    Returns the ruleset folder (relative to the repository).  Only ``.rules``
    files are written.  Raises :class:`SourceError` when the path holds no
    ``.rules`` file at that commit.
    """
    all_under = _files_at(repo, commit, rel)
    folder = _ruleset_folder(repo, commit, rel, all_under)
    prefix = "" if str(folder) == "." else str(folder) + "/"
    parent = folder.parent if str(folder) != "." else folder
    beside = _files_at(repo, commit, parent)  # the folder's files are among its parent's
    own = [f for f in beside if f.endswith(".rules") and f.startswith(prefix)]
    if not own:
        raise SourceError(f"{rel} holds no .rules files at this revision ({commit[:12]})")
    wanted = sorted({f for f in beside if f.endswith(".rules")})
    blobs = _blobs_at(repo, commit, wanted) or {}
    names = sorted(blobs)
    root = str(target.resolve()) + os.sep
    for name, body in zip(names, _read_blobs(repo, commit, names, [blobs[n] for n in names])):
        dest = (target / name).resolve()
        if not str(dest).startswith(root):
            continue  # never write outside the temporary folder
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(body)
    return folder


def _remap(diags: tuple[Diagnostic, ...], sources: Mapping[str, str], prefixes: list[str],
           label: str) -> tuple[tuple[Diagnostic, ...], dict[str, str]]:
    def fix(path: str) -> str:
        for p in prefixes:
            if path.startswith(p):
                return f"{label}:{path[len(p):]}"
        return path

    def fix_span(s: Span) -> Span:
        return dataclasses.replace(s, file=fix(s.file))
    out = tuple(dataclasses.replace(d, span=fix_span(d.span),
                                    related=tuple((fix_span(s), m) for s, m in d.related)) for d in diags)
    return out, {fix(k): v for k, v in sources.items()}


def _pick(result: Compilation, spec: SideSpec) -> Ruleset | None:
    if len(result.rulesets) > 1:
        raise SourceError(f"{spec.label} holds {len(result.rulesets)} rulesets; name one ruleset folder, "
                          f"e.g. {spec.path.rstrip('/')}/{result.rulesets[0].id}")
    return result.rulesets[0] if result.rulesets else None


def load_side(spec: SideSpec) -> Loaded:
    """Compile one side: a folder in the working tree, or a path at a git revision."""
    if spec.revision is None:
        result = compile_paths([spec.path])
        model = _pick(result, spec)
        return Loaded(spec, model, result.diagnostics, result.sources)
    path = Path(spec.path)
    repo = repo_root(path if os.path.exists(path) else Path.cwd() / path)  # (never raises: a name too long)
    if repo is None:
        raise SourceError(f"{spec.path} is not in a git repository, so '{spec.revision}' means nothing there")
    return load_commit(repo, resolve_revision(repo, spec.revision), spec)


def load_commit(repo: Path, commit: str, spec: SideSpec) -> Loaded:
    """Compile ``spec``'s path as of ``commit`` (a commit id of the git repository ``repo``, as
    :func:`resolve_revision` gives it) in a temporary folder; its diagnostics say ``REVISION:path``."""
    assert spec.revision is not None
    rel = relative_in_repo(repo, Path(os.path.abspath(spec.path)))
    with tempfile.TemporaryDirectory(prefix="warscribe-") as tmp:
        folder = extract_at(repo, commit, rel, Path(tmp))
        with passing():  # the files' paths in the temporary folder never come again: no ASTs kept
            result = compile_paths([str(Path(tmp) / folder)])
        model = _pick(result, spec)
        real = str(Path(tmp).resolve())
        prefixes = [real + os.sep, tmp + os.sep]
        for p in list(prefixes):
            rel_shown = os.path.relpath(p)
            if not rel_shown.startswith(".."):
                prefixes.append(rel_shown.rstrip(os.sep) + os.sep)
        label = spec.revision
        diags, sources = _remap(result.diagnostics, result.sources, prefixes, label)
    return Loaded(spec, model, diags, sources)


@dataclass(frozen=True)
class Release:
    """A version of a ruleset as committed: the newest commit whose header has that version."""

    version: str
    commit: str
    date: str  # the commit's date, YYYY-MM-DD


#: The header's first line, and its version field (a version and at most a comment: a line of prose
#: that begins "version 9.9.9" is not one).
_HEADER_LINE = r"^ruleset[[:space:]]"
_VERSION_LINE = r"^[[:space:]]+version[[:space:]]+[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?[[:space:]]*(#.*)?$"


def releases(path: str | Path, limit: int = 500) -> list[Release]:
    """Every version a ruleset folder's header has had in git, newest first, with its last commit.

    For a per-ruleset "Changes" page: ``diff_models`` of ``releases[i + 1]``
    against ``releases[i]`` (each loaded with :func:`load_side`) is what
    release ``i`` changed.  Looks at most ``limit`` commits that touch the
    folder, and reads the version from the first ``version X.Y.Z`` line after the
    ``ruleset`` line of the folder's own ``.rules`` files at each (the header's, in any
    ordinary ruleset; never a line of prose in another file, or in a folder inside).
    Returns [] outside git.
    """
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    repo = repo_root(folder)
    if repo is None:
        return []
    rel = relative_in_repo(repo, folder)
    log = _git(repo, "log", f"--max-count={limit}", "--format=%H %cs", "--", str(rel))
    if log.returncode != 0:
        return []
    commits = [line.partition(" ") for line in log.stdout.splitlines()]
    # One `git grep` over every commit: each matching line comes as "COMMIT:PATH\0LINE", the
    # commits in the order given, each one's files and lines in the order a grep of it alone gives.
    versions: dict[str, list[str]] = {}
    if commits:
        found = _git(repo, "grep", "-z", "-E", "-e", _HEADER_LINE, "-e", _VERSION_LINE, *[c for c, _, _ in commits],
                     "--", str(rel))
        if found.returncode == 0:
            headed: set[str] = set()  # the commit:file pairs whose header line has come
            own = "" if str(rel) == "." else str(rel)
            for hit in found.stdout.splitlines():
                where, _, line = hit.partition("\0")
                commit, _, file = where.partition(":")
                if not file.endswith(".rules") or file.rpartition("/")[0] != own:
                    continue
                if line.startswith("ruleset"):
                    headed.add(where)
                elif where in headed and len(line.split()) >= 2:
                    versions.setdefault(commit, []).append(line.split()[1])
                    headed.discard(where)  # the header's version: a later line is not
    out: list[Release] = []
    seen: set[str] = set()
    for commit, _, date in commits:
        if not versions.get(commit):
            continue
        version = versions[commit][0]
        if version not in seen:
            seen.add(version)
            out.append(Release(version, commit, date))
    return out


def commits_of(path: str | Path, limit: int = 500) -> str:
    """The commits that touched a ruleset folder, newest first, as one text ("" outside git):
    all that :func:`releases` of the folder depends on (what a commit holds never changes), so
    a key for anything worked out from them.  Git failing gives a text of its own, never ""."""
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    repo = repo_root(folder)
    if repo is None:
        return ""
    try:
        log = _git(repo, "log", f"--max-count={limit}", "--format=%H %cs", "--", str(relative_in_repo(repo, folder)))
    except GIT_FAILURES as err:
        return f"unreadable: {type(err).__name__}"
    return f"{repo}\n{log.returncode}\n{log.stdout}"


def changed_since_head(folders: list[Path]) -> dict[Path, bool | None]:
    """Which of ``folders`` differ from the last commit, asking git once per step for all the folders
    of one repository (a check of the six bundled rulesets runs 4 git commands, not one per step
    and folder).

    Each folder maps to True (a ``.rules`` file in it differs from HEAD), False, or None (outside
    git, or HEAD does not have the folder)."""
    out: dict[Path, bool | None] = {}
    members: dict[Path, list[tuple[Path, str]]] = {}
    for folder in folders:
        repo = next((r for r in members if _inside_work_tree(folder, r)), None) or repo_root(folder)
        rel = None
        if repo is not None:
            try:
                rel = str(relative_in_repo(repo, folder))
            except SourceError:
                pass
        if repo is None or rel is None:
            out[folder] = None
        else:
            members.setdefault(repo, []).append((folder, rel))
    for repo, inside in members.items():
        head = _git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
        specs = sorted({rel for _, rel in inside})
        at_head = _blobs_at(repo, head.stdout.strip(), specs) if head.returncode == 0 else None
        # the work tree's .rules files under the folders, tracked or not (ignored ones left out),
        # hashed here: git's status would run the repository's clean filters on them
        listed = _git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *specs)
        here = sorted({f for f in listed.stdout.split("\0") if f.endswith(".rules")}) if listed.returncode == 0 else None
        for folder, rel in inside:
            if not at_head or not any(_under(f, rel) for f in at_head):
                out[folder] = None
            elif here is None:
                out[folder] = None
            else:
                committed = {p: oid for p, oid in at_head.items() if _under(p, rel) and p.endswith(".rules")}
                mine = [p for p in here if _under(p, rel)]
                length = len(next(iter(at_head.values())))
                out[folder] = _work_tree_ids(repo, mine, length) != committed
    return out


def _inside_work_tree(folder: Path, repo: Path) -> bool:
    """Is ``folder`` in the work tree of ``repo`` (inside it, and in no nested work tree)?"""
    path = folder.resolve()
    if path != repo and repo not in path.parents:
        return False
    while path != repo:
        if (path / ".git").exists():
            return False
        path = path.parent
    return True


def _under(path: str, rel: str) -> bool:
    return rel == "." or path == rel or path.startswith(rel + "/")
