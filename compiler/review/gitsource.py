"""Rulesets as they were at a git revision.

``warscribe diff`` compares a ruleset folder with another folder, or with the
same folder at a git revision (``HEAD~1``, ``v1.0``, a commit id).  For a
revision the ruleset's files — and the rulesets beside it, where an overlay
finds its base — are read with ``git archive`` into a temporary folder and
compiled there like any other folder; diagnostics are reported as
``REV:path/file.rules:12:3`` so a reader knows which side they come from.

Git runs as a local subprocess in the repository that holds the path; it never
touches the network and never changes the repository.

>>> parse_sides(["rules/a", "rules/b"], exists=lambda p: True)
[SideSpec(revision=None, path='rules/a'), SideSpec(revision=None, path='rules/b')]
>>> parse_sides(["HEAD~1", "rules/x"], exists=lambda p: p == "rules/x")
[SideSpec(revision='HEAD~1', path='rules/x'), SideSpec(revision=None, path='rules/x')]
>>> parse_sides(["v1.0", "HEAD", "rules/x"], exists=lambda p: True)
[SideSpec(revision='v1.0', path='rules/x'), SideSpec(revision='HEAD', path='rules/x')]
"""
from __future__ import annotations

import dataclasses
import io
import os
import re
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Mapping

from compiler.ast.cached import passing
from compiler.diagnostics import Diagnostic, Span
from compiler.driver import Compilation, compile_paths
from compiler.model.load import UsageError
from compiler.model.ruleset import Ruleset

GIT_TIMEOUT = 60


class SourceError(UsageError):
    """A side of a comparison that cannot be found: an unknown revision or path (exit status 2)."""


#: What reading a ruleset from git can fail with when nothing is wrong with warscribe: a side that
#: cannot be found or compiled from its files (:class:`SourceError`, and the ``UsageError`` of
#: compiling a folder), git missing or failing to start (``OSError``) or timing out
#: (``subprocess.SubprocessError``), git's output not being UTF-8 text, an unreadable archive.
#: A caller for whom git is optional (the Changes page, ``check``'s W607) catches these and no more.
GIT_FAILURES: tuple[type[Exception], ...] = (UsageError, OSError, subprocess.SubprocessError, UnicodeDecodeError,
                                             tarfile.TarError)


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


def _git(repo: Path, *args: str, binary: bool = False) -> subprocess.CompletedProcess[Any]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=not binary,
                          env=env, timeout=GIT_TIMEOUT, check=False)


def repo_root(path: Path) -> Path | None:
    """The top folder of the git work tree that holds ``path`` (None outside git, or without git)."""
    probe = path.resolve()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.is_file():
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
    ruleset compiled from the work tree is the one that commit holds."""
    try:
        rels = [str(relative_in_repo(repo, f.resolve())) for f in folders]
    except SourceError:
        return False  # a base outside the repository: not known to be the same
    specs = [":(glob)" + ("" if rel == "." else _GLOB_SPECIAL.sub(r"\\\g<0>", rel) + "/") + "*.rules" for rel in rels]
    tracked = _git(repo, "ls-files", "-z", "--", *specs)
    found = {f.rsplit("/", 1)[0] if "/" in f else "." for f in tracked.stdout.split("\0") if f}
    if tracked.returncode != 0 or not set(rels) <= found:
        return False  # each folder's files must be found, or nothing is known
    if _git(repo, "diff", "--quiet", commit, "--", *specs).returncode != 0:
        return False
    others = _git(repo, "ls-files", "--others", "-z", "--", *specs)
    return others.returncode == 0 and not others.stdout.strip("\0")


_GLOB_SPECIAL = re.compile(r"[*?\[\]\\]")  # taken literally in a :(glob) pathspec when escaped


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
    r = _git(repo, "archive", "--format=tar", commit, "--", *wanted, binary=True)
    if r.returncode != 0:
        raise SourceError(f"git archive failed: {r.stderr.decode('utf-8', 'replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(r.stdout)) as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".rules")]
        for m in members:
            dest = (target / m.name).resolve()
            if not str(dest).startswith(str(target.resolve()) + os.sep):
                continue  # never write outside the temporary folder
            dest.parent.mkdir(parents=True, exist_ok=True)
            data = tar.extractfile(m)
            if data is not None:
                dest.write_bytes(data.read())
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
    repo = repo_root(path if path.exists() else Path.cwd() / path)
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


_VERSION_LINE = r"^[[:space:]]+version[[:space:]]+[0-9]+\.[0-9]+\.[0-9]+"


def releases(path: str | Path, limit: int = 500) -> list[Release]:
    """Every version a ruleset folder's header has had in git, newest first, with its last commit.

    For a per-ruleset "Changes" page: ``diff_models`` of ``releases[i + 1]``
    against ``releases[i]`` (each loaded with :func:`load_side`) is what
    release ``i`` changed.  Looks at most ``limit`` commits that touch the
    folder, and reads the version from the first ``version X.Y.Z`` line of its
    ``.rules`` files at each (the header's, in any ordinary ruleset).  Returns
    [] outside git.
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
        found = _git(repo, "grep", "-z", "-E", _VERSION_LINE, *[c for c, _, _ in commits], "--",
                     f"{rel}/*.rules" if str(rel) != "." else "*.rules")
        if found.returncode == 0:
            for hit in found.stdout.splitlines():
                where, _, line = hit.partition("\0")
                if len(line.split()) >= 2:
                    versions.setdefault(where.partition(":")[0], []).append(line.split()[1])
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
        listed = _git(repo, "ls-tree", "-r", "-z", "--name-only", head.stdout.strip(), "--", *specs) \
            if head.returncode == 0 else None
        status = _git(repo, "status", "--porcelain", "--untracked-files=all", "--", *specs)
        at_head = [f for f in listed.stdout.split("\0") if f] if listed is not None and listed.returncode == 0 else []
        changed = [_status_path(line) for line in status.stdout.splitlines()] if status.returncode == 0 else None
        for folder, rel in inside:
            if not any(_under(f, rel) for f in at_head):
                out[folder] = None
            elif changed is None:
                out[folder] = None
            else:
                out[folder] = any(_under(p, rel) and p.endswith(".rules") for p in changed)
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


def _status_path(line: str) -> str:
    """The path of one line of ``git status --porcelain`` (the new one of a rename)."""
    path = line[3:].split(" -> ")[-1]
    return path[1:-1] if len(path) > 1 and path.startswith('"') and path.endswith('"') else path
