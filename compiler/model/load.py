"""Finding rulesets on disk and reading their files.

A *ruleset* is a folder holding ``.rules`` files; exactly one of them starts
with the ``ruleset`` header, and it pulls in the others with ``include``.
``warscribe check rules/`` takes every ruleset folder under ``rules/``.

Paths never leave the ruleset's project: an ``include`` that climbs out of the
ruleset folder, or a symlink that points outside it, is refused.
"""
from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from compiler import ast as A
from compiler import codes
from compiler.ast.cached import read_rules
from compiler.diagnostics import Sink, Span
from compiler.diagnostics import UsageError as UsageError  # re-exported: commands import it from here
from compiler.diagnostics import display_path as display_path
from compiler.limits import MAX_FILE_BYTES, MAX_FILES, MAX_RULESET_BYTES
from compiler.safepaths import has_rules, is_inside, is_loop, leads_out


@dataclass(frozen=True)
class RulesetSource:
    """The files of one ruleset folder, parsed, in include order."""

    folder: str
    header: A.Header | None
    files: tuple[A.File, ...]
    texts: tuple[tuple[str, str], ...]  # (display path, text) for every file read


def find_ruleset_folders(paths: list[str]) -> list[Path]:
    """Ruleset folders named by ``paths`` (a ruleset folder, a file in one, or a folder of them)."""
    folders: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise UsageError(f"no such file or folder: {raw}")
        if not p.is_file() and not p.is_dir():
            raise UsageError(f"{raw} is neither a file nor a folder (a pipe or a device?): name a ruleset folder")
        if p.is_file():
            if p.suffix != ".rules":
                raise UsageError(f"not a .rules file: {raw}")
            folders.append(p.resolve().parent)
        elif has_rules(p):
            folders.append(p.resolve())
        else:
            # Links that lead out of the folder are not followed (the driver reports them, W701).
            subs = sorted(c.resolve() for c in p.iterdir()
                          if c.is_dir() and has_rules(c) and not (c.is_symlink() and leads_out(c, p)))
            if not subs:
                raise UsageError(f"no rulesets in {raw}: a ruleset is a folder of .rules files")
            folders.extend(subs)
    seen: set[Path] = set()
    unique = []
    for f in folders:
        if f not in seen:
            seen.add(f)
            unique.append(f)
    return unique


def read_text(path: Path, shown: str, sink: Sink, overrides: Mapping[str, str] | None = None) -> str | None:
    """The text of one file, or None after a diagnostic: too large, not UTF-8, unreadable.

    ``overrides`` (absolute path -> text) stands in for files an editor has not saved.
    """
    if overrides is not None and str(path.absolute()) in overrides:
        text = overrides[str(path.absolute())]
        if len(text) > MAX_FILE_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
            sink.error(codes.FILE_TOO_LARGE, f"this file is {len(text.encode('utf-8', 'surrogatepass')):,} bytes; "
                       f"the limit is {MAX_FILE_BYTES:,}", Span.point(shown), "split it into several files joined with include")
            return None
        return text
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe or a device would block or never end: never opened
            sink.error(codes.UNREADABLE, "this is not a regular file (a pipe, a device or a socket)",
                       Span.point(shown), "a ruleset is made of ordinary .rules files")
            return None
        size = info.st_size
        if size > MAX_FILE_BYTES:
            sink.error(codes.FILE_TOO_LARGE, f"this file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}",
                       Span.point(shown), "split it into several files joined with include")
            return None
        data = path.read_bytes()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            # Said once, where the first such byte stands. Text with stray bytes (a "café" saved as
            # Latin-1) is read on, each such byte as U+FFFD, so that it is one error, not one more
            # for every use of every name the file defines; binary data (a NUL byte) is not read.
            start = data.rfind(b"\n", 0, e.start) + 1
            column = len(data[start:e.start].decode("utf-8", errors="replace")) + 1
            sink.error(codes.NOT_UTF8, f"this file is not UTF-8 text (byte 0x{data[e.start]:02X})",
                       Span.point(shown, data.count(b"\n", 0, e.start) + 1, column), "save it as UTF-8")
            return None if b"\0" in data else data.decode("utf-8", errors="replace")
    except OSError as e:
        sink.error(codes.UNREADABLE, f"cannot read this file: {e.strerror}", Span.point(shown))
    return None


def _inside(path: Path, folder: Path) -> bool:
    return is_inside(path, folder)


def _total_bytes(files: list[Path], overrides: Mapping[str, str] | None) -> int:
    """The bytes of ``files`` together, counted before any is read (an editor's buffer in its place)."""
    total = 0
    for path in files:
        text = overrides.get(str(path.absolute())) if overrides is not None else None
        try:
            total += len(text) if text is not None else path.stat().st_size
        except OSError:
            continue  # said when the file is read
    return total


def load_ruleset(folder: Path, sink: Sink, overrides: Mapping[str, str] | None = None) -> RulesetSource:
    """Parse a ruleset folder: the header file first, then its includes in order.

    ``overrides`` maps absolute paths to texts read instead of the files (an editor's unsaved buffers).
    """
    rules_files = sorted(p for p in folder.iterdir() if p.suffix == ".rules" and p.is_file())
    if len(rules_files) > MAX_FILES:
        sink.error(codes.TOO_MANY_FILES, f"this ruleset folder has {len(rules_files):,} .rules files; the limit is {MAX_FILES:,}",
                   Span.point(display_path(folder)), "a ruleset is a handful of files; split it into several rulesets")
        return RulesetSource(str(folder), None, (), ())
    total = _total_bytes(rules_files, overrides)
    if total > MAX_RULESET_BYTES:
        sink.error(codes.RULESET_TOO_LARGE, f"the .rules files of this ruleset folder come to {total:,} bytes; the "
                   f"limit is {MAX_RULESET_BYTES:,}", Span.point(display_path(folder)),
                   "a ruleset is a handful of files; split it into several rulesets")
        return RulesetSource(str(folder), None, (), ())
    parsed: dict[Path, A.File] = {}
    texts: dict[str, str] = {}

    def parse_one(path: Path) -> A.File | None:
        if path in parsed:
            return parsed[path]
        shown = display_path(path)
        if path.is_symlink() and not _inside(path, folder):
            sink.error(codes.OUTSIDE_PATH, "this file is a link to a place outside the ruleset folder",
                       Span.point(shown), "copy the file into the ruleset folder instead")
            return None
        text = read_text(path, shown, sink, overrides)
        if text is None:
            return None
        texts[shown] = text
        file, diags = read_rules(text, shown)  # parsed (recovering from syntax errors) and built, kept between runs
        sink.extend(diags)
        parsed[path] = file if file is not None else A.File(shown, ())
        return parsed[path]

    files = [f for f in (parse_one(p) for p in rules_files) if f is not None]
    headed = [f for f in files if f.header is not None]
    folder_shown = display_path(folder)
    if not headed:
        syntax_failed = any(not f.items and f.header is None for f in files)
        if not syntax_failed:
            sink.error(codes.NO_HEADER, "this ruleset folder has no file with a 'ruleset' header",
                       Span.point(display_path(rules_files[0]) if rules_files else folder_shown),
                       'start one file with: ruleset my-rules "My rules":')
        return RulesetSource(str(folder), None, tuple(files), tuple(sorted(texts.items())))
    if len(headed) > 1:
        for f in headed[1:]:
            assert f.header is not None and headed[0].header is not None
            sink.error(codes.TWO_HEADERS, "a ruleset has one header file; this folder has two", f.header.span,
                       related=[(headed[0].header.span, "the other header")])
    main = headed[0]

    # Follow includes from the header file, depth first, in the order written.
    ordered: list[A.File] = []
    visiting: set[str] = set()

    def follow(file: A.File) -> None:
        if file.path in visiting:
            return
        visiting.add(file.path)
        ordered.append(file)
        for inc in file.includes:
            target = (Path(file.path).parent / inc.path)
            if not inc.path.endswith(".rules"):
                sink.error(codes.BAD_INCLUDE, f"an include names a .rules file, not '{inc.path}'", inc.span)
                continue
            if is_loop(target):
                sink.error(codes.OUTSIDE_PATH, f"'{inc.path}' is a link that never reaches a file (a loop of links)", inc.span,
                           "replace the link with the file itself")
                continue
            if not _inside(target, folder):
                sink.error(codes.OUTSIDE_PATH, f"'{inc.path}' is outside the ruleset folder", inc.span,
                           "rulesets include only files inside their own folder")
                continue
            if not target.exists():
                sink.error(codes.BAD_INCLUDE, f"cannot find the included file '{inc.path}'", inc.span,
                           f"it should be in {display_path(target.parent)}")
                continue
            child = parse_one(target.resolve())
            if child is None:
                continue
            if child.header is not None and child is not main:
                sink.error(codes.TWO_HEADERS, "an included file cannot have its own ruleset header", inc.span)
                continue
            if child.path in visiting:
                sink.error(codes.CYCLE, f"'{inc.path}' is included twice (or includes itself)", inc.span)
                continue
            follow(child)

    follow(main)
    included = {f.path for f in ordered}
    for f in files:
        if f.path not in included and f.header is None:
            name = Path(f.path).name  # as a string of the language: a line break is written \n
            written = name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
            hint = (f"add to {main.path}: include \"{written}\"" if written.isprintable()
                    else "rename the file: its name holds a character an include cannot write")
            sink.warning(codes.NOT_INCLUDED, "this file is not included by the ruleset, so it is ignored",
                         Span.point(f.path), hint)
    return RulesetSource(str(folder), main.header, tuple(ordered), tuple(sorted(texts.items())))
