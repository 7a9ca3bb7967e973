"""Mutation testing for one module: do the tests notice a small change?

    .venv/bin/python bench/mutate.py compiler/resolve/tokens.py -- tests/test_resolver.py
    .venv/bin/python bench/mutate.py compiler/check/traps.py --sample 40 --seed 1 --jobs 2 \\
        -- tests/test_checks.py -k trap
    .venv/bin/python bench/mutate.py compiler/resolve/effects.py --list   # the mutants, no run
    .venv/bin/python bench/mutate.py compiler/resolve/effects.py --survivors old.json -- tests/…  # those again

Each *mutant* is the module with one small change: a comparison moved by one (``<`` to ``<=``,
``==`` to ``!=``, ``in`` to ``not in``), an integer constant ±1, ``True``/``False`` swapped,
``and``/``or`` swapped, ``+``/``-`` (``*``/``//``, ``|``/``&``) swapped, ``+=``/``-=`` swapped, a
``not`` dropped, an ``if``'s condition negated, an ``if`` branch or ``else`` branch dropped
(``pass``), a returned value replaced by ``None``.  Docstrings, strings, annotations and lines
marked ``# pragma: no mutate`` are left alone; a mutant that does not compile is not counted.

The tree (the git-tracked and untracked-but-not-ignored files of the module's repository, as
they are on disk) is copied once per job into a temporary folder; the mutant is written there,
never into the work tree.  The selected tests run there with ``-x`` in a fresh process
(``python -m pytest -x -q -n 0 -p no:cacheprovider …``) with that copy first on the import path,
an empty cache folder of its own (``WARSCRIBE_CACHE_DIR``) and ``CI=true`` (the derandomised
Hypothesis profile), under a per-mutant timeout (default: 3 × the unmutated run + 10 s).

A mutant is *killed* (a test failed), *survived* (every selected test passed: a hole in the
tests, or an equivalent mutant), or *timed out* (counted as killed in the score, as is usual:
the change made the code loop).  The unmutated run must pass first.  The report ends with the
score, ``(killed + timed out) / mutants``, and each survivor as ``file:line: change``;
``--json PATH`` writes the same as JSON.  Exit status 0, or 2 when the unmutated run fails.
Stopped (Ctrl-C or SIGTERM), it ends the test runs it started and removes its copies (130).

Why not mutmut or cosmic-ray: mutmut 3 rewrites the whole package into a ``mutants/`` folder
beside the sources and first runs the whole suite to map tests to functions; cosmic-ray mutates
the files in place and keeps a session database.  Neither fits a targeted run of one module
against a few test files on two shared cores without touching the work tree.
"""
from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Mutant", "mutants", "main"]

PRAGMA = "pragma: no mutate"

_COMPARE_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
_BINOP_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr,
    ast.LShift: ast.RShift, ast.RShift: ast.LShift,
}
_SYMBOL = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%",
    ast.BitOr: "|", ast.BitAnd: "&", ast.LShift: "<<", ast.RShift: ">>",
}


@dataclass(frozen=True)
class Mutant:
    """One change: where (1-based line), what it does in words, and the mutated source."""

    line: int
    change: str
    source: str


def _segment(lines: list[str], node: ast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, node.end_lineno or node.lineno,  # type: ignore[attr-defined]
            node.end_col_offset if node.end_col_offset is not None else 0)  # type: ignore[attr-defined]


def _offset(lines: list[str], line: int, col: int) -> int:
    """Character offset of (1-based line, UTF-8 byte column) in the joined text."""
    before = sum(len(text) for text in lines[:line - 1])
    return before + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8"))


def _replace(lines: list[str], start: tuple[int, int], end: tuple[int, int], text: str) -> str:
    source = "".join(lines)
    a, b = _offset(lines, *start), _offset(lines, *end)
    return source[:a] + text + source[b:]


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """Ids of nodes never mutated: annotations, docstrings, f-strings and what they hold."""
    skip: set[int] = set()

    def all_of(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            all_of(node.returns)
            for arg in node.args.args + node.args.kwonlyargs + node.args.posonlyargs:
                all_of(arg.annotation)
            all_of(node.args.vararg.annotation if node.args.vararg else None)
            all_of(node.args.kwarg.annotation if node.args.kwarg else None)
        elif isinstance(node, ast.AnnAssign):
            all_of(node.annotation)
        elif isinstance(node, ast.JoinedStr):
            all_of(node)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                all_of(body[0])
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            all_of(node)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            all_of(node)
    return skip


def _expression_mutants(node: ast.expr) -> list[tuple[str, ast.expr]]:
    """(change in words, replacement expression) for one expression node."""
    out: list[tuple[str, ast.expr]] = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            swap = _COMPARE_SWAP.get(type(op))
            if swap is not None:
                new = copy.deepcopy(node)
                new.ops[i] = swap()
                out.append((f"{_SYMBOL[type(op)]} -> {_SYMBOL[swap]}", new))
    elif isinstance(node, ast.BinOp):
        swap_op = _BINOP_SWAP.get(type(node.op))
        if swap_op is not None and not (isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant)
                                        and isinstance(node.left.value, str)):
            new_binop = copy.deepcopy(node)
            new_binop.op = swap_op()
            out.append((f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[swap_op]}", new_binop))
    elif isinstance(node, ast.BoolOp):
        new_bool = copy.deepcopy(node)
        new_bool.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append(("and -> or" if isinstance(node.op, ast.And) else "or -> and", new_bool))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        out.append(("not dropped" if isinstance(node.op, ast.Not) else "unary - dropped", node.operand))
    elif isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            out.append((f"{value} -> {not value}", ast.Constant(not value)))
        elif isinstance(value, int):
            out.append((f"{value} -> {value + 1}", ast.Constant(value + 1)))
            out.append((f"{value} -> {value - 1}", ast.Constant(value - 1)))
    return out


def mutants(path: Path) -> list[Mutant]:
    """Every mutant of the module at ``path``, in source order; those that do not compile left out."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    skip = _skipped_nodes(tree)
    found: list[Mutant] = []

    def add(node: ast.AST, change: str, source: str) -> None:
        line = node.lineno  # type: ignore[attr-defined]
        if PRAGMA in lines[line - 1]:
            return
        try:
            compile(source, str(path), "exec")
        except SyntaxError:
            return
        found.append(Mutant(line, change, source))

    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.expr) and hasattr(node, "end_col_offset"):
            for change, new in _expression_mutants(node):
                l0, c0, l1, c1 = _segment(lines, node)
                add(node, change, _replace(lines, (l0, c0), (l1, c1), "(" + ast.unparse(new) + ")"))
        if isinstance(node, ast.AugAssign) and type(node.op) in (ast.Add, ast.Sub):
            new_aug = copy.deepcopy(node)
            new_aug.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            l0, c0, l1, c1 = _segment(lines, node)
            sym = _SYMBOL[type(node.op)]
            add(node, f"{sym}= -> {'-' if sym == '+' else '+'}=",
                _replace(lines, (l0, c0), (l1, c1), ast.unparse(new_aug)))
        if isinstance(node, (ast.If, ast.While)):
            l0, c0, l1, c1 = _segment(lines, node.test)
            kind = "if" if isinstance(node, ast.If) else "while"
            add(node, f"{kind} condition negated",
                _replace(lines, (l0, c0), (l1, c1), "not (" + ast.unparse(node.test) + ")"))
        if isinstance(node, ast.If):
            first, last = node.body[0], node.body[-1]
            if not getattr(first, "decorator_list", None):
                l0, c0, _, _ = _segment(lines, first)
                _, _, l1, c1 = _segment(lines, last)
                add(node, "if branch dropped", _replace(lines, (l0, c0), (l1, c1), "pass"))
            if node.orelse:
                first, last = node.orelse[0], node.orelse[-1]
                l0, c0, _, _ = _segment(lines, first)
                is_elif = lines[l0 - 1][c0:].startswith("elif")
                if not is_elif and not getattr(first, "decorator_list", None):
                    _, _, l1, c1 = _segment(lines, last)
                    add(node, "else branch dropped", _replace(lines, (l0, c0), (l1, c1), "pass"))
        if isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            l0, c0, l1, c1 = _segment(lines, node.value)
            add(node, "return value -> None", _replace(lines, (l0, c0), (l1, c1), "None"))
    unique: dict[str, Mutant] = {}
    for m in found:  # `if not x` negated and its `not` dropped are one mutant
        unique.setdefault(m.source, m)
    return sorted(unique.values(), key=lambda m: m.line)


def _tree_files(root: Path) -> list[Path]:
    """The files to copy: git's tracked and untracked-not-ignored files, else everything but caches."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        return [Path(p) for p in out.decode("utf-8").split("\0") if p and (root / p).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache"}
        return [p.relative_to(root) for p in root.rglob("*")
                if p.is_file() and not skip & set(p.relative_to(root).parts)]


def _copy_tree(root: Path, files: list[Path], into: Path) -> None:
    for rel in files:
        target = into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)


_RUNNING: set[subprocess.Popen[bytes]] = set()  # the test runs under way, to end if we are stopped
_RUNNING_LOCK = threading.Lock()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM as Ctrl-C: the test runs are ended and the copies removed


def _end(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the group this script started, and only it
    except ProcessLookupError:
        pass
    proc.communicate()


@dataclass
class _Run:
    outcome: str  # "passed", "killed", "timeout"
    seconds: float
    tail: str


def _run_tests(copy_root: Path, pytest_args: list[str], timeout: float | None) -> _Run:
    cache = copy_root / ".mutate-cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir()
    env = dict(os.environ, CI="true", WARSCRIBE_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([str(copy_root)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider",
           "--no-header", *pytest_args]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=copy_root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    with _RUNNING_LOCK:
        _RUNNING.add(proc)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _end(proc)
        return _Run("timeout", time.monotonic() - start, "")
    except BaseException:
        _end(proc)
        raise
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(proc)
    tail = out.decode("utf-8", "replace").strip().splitlines()[-15:]
    # 0: every test passed; 5: no test collected is an error of the selection, not a kill
    if proc.returncode == 5:
        raise SystemExit("mutate: the pytest selection collects no test:\n" + "\n".join(tail))
    return _Run("passed" if proc.returncode == 0 else "killed", time.monotonic() - start, "\n".join(tail))


def _check_import(copy_root: Path, module: Path) -> None:
    """The copy, not an installed or editable package, must be what the tests import."""
    dotted = ".".join(module.with_suffix("").parts)
    env = dict(os.environ, PYTHONPATH=str(copy_root))
    out = subprocess.run([sys.executable, "-c", f"import {dotted} as m; print(m.__file__)"],
                         cwd=copy_root, env=env, capture_output=True, text=True)
    if out.returncode != 0 or not Path(out.stdout.strip()).resolve().is_relative_to(copy_root.resolve()):
        raise SystemExit(f"mutate: {dotted} is not imported from the copy ({out.stdout.strip() or out.stderr.strip()})")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pytest_args: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, pytest_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s MODULE [options] -- PYTEST-SELECTION…")
    parser.add_argument("module", type=Path, help="the .py file to mutate (a path inside the repository)")
    parser.add_argument("--root", type=Path, help="the tree to copy (default: the module's git work tree)")
    parser.add_argument("--sample", type=int, help="mutate only N mutants drawn at random")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once, one tree copy each (default 1)")
    parser.add_argument("--timeout", type=float, help="seconds per mutant (default 3 × the unmutated run + 10)")
    parser.add_argument("--lines", help="only mutants on lines A-B (several: A-B,C,D-E)")
    parser.add_argument("--survivors", type=Path, metavar="JSON",
                        help="only the survivors of an earlier report (--json), by line and change")
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument("--json", type=Path, help="write the report as JSON to this file")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)

    module = args.module.resolve()
    if not module.is_file():
        parser.error(f"no such file: {args.module}")
    root = args.root.resolve() if args.root else None
    if root is None:
        top = subprocess.run(["git", "-C", str(module.parent), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True)
        if top.returncode != 0:
            parser.error("the module is not in a git work tree: give --root")
        root = Path(top.stdout.strip()).resolve()
    rel = module.relative_to(root)

    chosen = mutants(module)
    if args.lines:
        spans = []
        for part in args.lines.split(","):
            a, _, b = part.strip().partition("-")
            spans.append((int(a), int(b or a)))
        chosen = [m for m in chosen if any(a <= m.line <= b for a, b in spans)]
    if args.survivors:
        wanted = {(s["line"], s["change"]) for s in json.loads(args.survivors.read_text(encoding="utf-8"))["survivors"]}
        chosen = [m for m in chosen if (m.line, m.change) in wanted]
    total = len(chosen)
    if args.sample is not None and args.sample < total:
        chosen = sorted(random.Random(args.seed).sample(chosen, args.sample), key=lambda m: m.line)
    if args.list:
        for m in chosen:
            print(f"{rel}:{m.line}: {m.change}")
        print(f"{len(chosen)} of {total} mutants")
        return 0
    if not pytest_args:
        parser.error("give the tests to run after --, e.g. -- tests/test_resolver.py")

    files = _tree_files(root)
    jobs = max(1, min(args.jobs, len(chosen) or 1))
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        copies: queue.Queue[Path] = queue.Queue()
        for j in range(jobs):
            target = Path(tmp) / f"tree{j}"
            _copy_tree(root, files, target)
            copies.put(target)
        first = copies.get()
        _check_import(first, rel)
        baseline = _run_tests(first, pytest_args, None)
        copies.put(first)
        if baseline.outcome != "passed":
            print("mutate: the tests fail without any mutant:\n" + baseline.tail, file=sys.stderr)
            return 2
        timeout = args.timeout if args.timeout is not None else 3 * baseline.seconds + 10
        print(f"{rel}: {len(chosen)} of {total} mutants; unmutated run {baseline.seconds:.1f} s, "
              f"timeout {timeout:.0f} s, {jobs} job(s)", flush=True)
        original = module.read_text(encoding="utf-8")
        lock = threading.Lock()
        results: list[tuple[Mutant, str]] = []

        def run(m: Mutant) -> None:
            tree = copies.get()
            try:
                (tree / rel).write_text(m.source, encoding="utf-8")
                outcome = _run_tests(tree, pytest_args, timeout).outcome
            finally:
                (tree / rel).write_text(original, encoding="utf-8")
                copies.put(tree)
            with lock:
                results.append((m, outcome))
                mark = {"killed": ".", "timeout": "T", "passed": "S"}[outcome]
                print(mark, end="", flush=True)

        pool = ThreadPoolExecutor(max_workers=jobs)
        try:
            list(pool.map(run, chosen))
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)  # what has not started never will
            with _RUNNING_LOCK:
                running = list(_RUNNING)
            for proc in running:  # their threads' own communicate() then returns
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            pool.shutdown(wait=True)
            print("\nmutate: stopped; the copies are removed", file=sys.stderr)
            return 130
        pool.shutdown()
        print()
    results.sort(key=lambda r: (r[0].line, r[0].change))
    killed = sum(1 for _, o in results if o == "killed")
    timed_out = sum(1 for _, o in results if o == "timeout")
    survivors = [m for m, o in results if o == "passed"]
    score = (killed + timed_out) / len(results) if results else 1.0
    print(f"{rel}: {len(results)} mutants: {killed} killed, {len(survivors)} survived, "
          f"{timed_out} timed out; score {score:.1%}")
    for m in survivors:
        print(f"  survived {rel}:{m.line}: {m.change}")
    if args.json:
        args.json.write_text(json.dumps({
            "module": str(rel), "mutants": len(results), "of": total, "killed": killed,
            "survived": len(survivors), "timed_out": timed_out, "score": score,
            "survivors": [{"line": m.line, "change": m.change} for m in survivors],
        }, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
