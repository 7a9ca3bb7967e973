"""Inputs from outside besides rules files, for ``bench/fuzz.py --kinds io``: battle logs,
army lists and command lines.

Each maker returns one input from a random generator; :func:`exercise_io` runs it the way a user
would (``play --replay``, ``army check``, any command with any options) through the CLI in this
process, and raises when anything but a usage error, a diagnostic or an exit status comes out: a
traceback, a hang, a blow-up.  Commands that would write outside a scratch folder are given one
inside it.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
CONSOLE = str(ROOT / "rules" / "console-40k")
SMALL = str(ROOT / "bench" / "ruleset")

#: Texts that have broken something somewhere: markup, escapes, huge and odd numbers, paths.
NASTY = ["", " ", "-", "--", "[/]", "[bold", "[link=http://x]y[/link]", "\x1b]0;title\x07", "\x00", "é", "🎲",
         "9" * 5000, "-1", "0", "1e308", "1e999", "nan", "inf", "²", "١", "0x10", "1_000", " 3 ", "\n", "'", '"',
         "../../etc/passwd", "/dev/zero", "/dev/null", "{", "}", "%s", "$(id)"]


def _value(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(NASTY)
    if roll < 0.5:
        return rng.choice([0, 1, -1, 2**63, 2**64, 10**30, -(10**30), 3])
    if roll < 0.6:
        return rng.choice([1e308, -1e308, 0.5, float(rng.random())])
    if roll < 0.7:
        return rng.choice([None, True, False])
    if roll < 0.8:
        return [_value(rng) for _ in range(rng.randint(0, 3))]
    if roll < 0.85:
        depth = rng.choice([5, 50, 5000])
        return json.loads("[" * depth + "]" * depth) if depth < 900 else "[" * depth
    return {"k": _value(rng)}


# -- battle logs ----------------------------------------------------------------------------------

def log_lines() -> list[str]:
    """A real battle log of the console game, to damage."""
    import io

    from compiler.battle import GreedyPolicy, RandomPolicy, Rules, write_log
    from compiler.battle.engine import Battle
    from compiler.driver import compile_paths

    model = compile_paths([CONSOLE]).rulesets[0]
    battle = Battle(Rules(model), model.get("sample_battle"), [RandomPolicy(1), GreedyPolicy()], seed=7)
    battle.run()
    out = io.StringIO()
    write_log(out, battle, model.id, 7, path=CONSOLE)
    return out.getvalue().splitlines()


def make_log(rng: random.Random, lines: list[str]) -> bytes:
    """A battle log damaged by one to three edits: a field given another value, lines cut, doubled
    or swapped, a line replaced by junk, bytes flipped."""
    rows = list(lines)
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        i = rng.randrange(len(rows))
        if kind < 0.45:
            try:
                row = json.loads(rows[i])
            except ValueError:
                continue
            if isinstance(row, dict) and row:
                key = rng.choice(sorted(row)) if rng.random() < 0.8 else rng.choice(NASTY) or "x"
                row[key] = _value(rng)
                rows[i] = json.dumps(row, ensure_ascii=rng.random() < 0.5)
        elif kind < 0.55:
            del rows[i]
        elif kind < 0.65:
            rows.insert(i, rows[i])
        elif kind < 0.75:
            j = rng.randrange(len(rows))
            rows[i], rows[j] = rows[j], rows[i]
        elif kind < 0.9:
            rows[i] = str(rng.choice(NASTY))
        else:
            raw = bytearray(rows[i].encode("utf-8"))
            if raw:
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            rows[i] = raw.decode("utf-8", "replace")
    data = ("\n".join(rows) + "\n").encode("utf-8")
    return data if rng.random() < 0.95 else data + bytes(rng.randrange(256) for _ in range(20))


# -- army lists -----------------------------------------------------------------------------------

UNITS = ["space_marine", "ork_boy", "space_marine_squad", "ork_boyz_mob", "boltgun", "nobody"]


def make_army(rng: random.Random) -> bytes:
    """An army list: lines of counts and names, some damaged; now and then binary junk."""
    if rng.random() < 0.05:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    lines = []
    for _ in range(rng.randint(0, 8)):
        count = rng.choice(["1", "5", "10", "0", "-3", "9" * rng.choice([3, 7, 5000]), "x", "²", ""])
        line = f"{count} {rng.choice(UNITS)}"
        if rng.random() < 0.3:
            line += " with " + ", ".join(rng.choice(UNITS) for _ in range(rng.randint(0, 3)))
        if rng.random() < 0.2:
            line = str(rng.choice(NASTY)) + line
        if rng.random() < 0.1:
            line += "  # " + str(rng.choice(NASTY))
        lines.append(line)
    return "\n".join(lines).encode("utf-8", "surrogatepass")


# -- command lines -------------------------------------------------------------------------------

#: Commands fuzzed, with the positional arguments each takes (a maker each) — none that serves,
#: waits for an editor or writes outside the scratch folder without being told where.
def _commands(scratch: Path) -> dict[str, list[Callable[[random.Random], str]]]:
    path = lambda rng: rng.choice([CONSOLE, SMALL, CONSOLE, str(scratch / "missing"), "/dev/null", str(scratch)])  # noqa: E731
    # a whole folder's files formatted, checked or tested again is the rules fuzzer's work, not this one's
    small = lambda rng: rng.choice([SMALL, SMALL, SMALL, str(scratch / "missing"), "/dev/null", str(scratch)])  # noqa: E731
    expr = lambda rng: rng.choice(["d6", "2d6 + 1", "mean(d6)", "P(d6 >= 4)", "keep_highest(99, 100, d6)",  # noqa: E731
                                   "d6 * " + "1" + "0" * 310, "shooting(5 space_marine, boltgun, 10 ork_boy)",
                                   "shooting(5 spaec_marine, boltgun, 10 ork_boy)", "1/0", "d1000 / d999",
                                   str(rng.choice(NASTY))])
    word = lambda rng: str(rng.choice(["sample_battle", "full_armies", "to_hit", "wound", "nothing",  # noqa: E731
                                       *NASTY[:12]]))
    return {"check": [small], "eval": [path, expr], "table": [path, word], "test": [small], "export": [path],
            "play": [path, word], "simulate": [path, word], "army check": [path, path], "version": [],
            "fmt": [small], "diff": [small, small], "new": [word]}


def _option_value(rng: random.Random, param: Any, scratch: Path) -> list[str]:
    import click

    name = rng.choice(param.opts)
    if getattr(param, "is_flag", False):
        return [name]
    kind = param.type
    if isinstance(kind, (click.IntRange, click.types.IntParamType)):
        value = rng.choice(["0", "1", "2", "3", "-1", "10000", str(10**12), "x", "", "9" * 5000, "1e3"])
    elif isinstance(kind, click.Choice):
        value = rng.choice([*kind.choices, "nope"])
    elif isinstance(kind, click.Path) or name in ("--out", "-o", "--log", "--dir", "-d", "--config", "-c",
                                                     "--battlescribe", "--replay"):
        value = rng.choice([str(scratch / "out"), str(scratch / "x.json"), CONSOLE + "/ruleset.rules", CONSOLE,
                            "/dev/zero", str(scratch / "missing" / "x"), str(scratch / "log.jsonl")])
    else:
        value = str(rng.choice(NASTY + ["greedy", "random", "space_marines=" + str(scratch / "army.txt")]))
    return [name, value]


def make_command(rng: random.Random, scratch: Path) -> list[str]:
    """A command line: a command, its arguments (now and then one too many or too few) and a few of
    its options with odd values."""
    import click

    from compiler.cli import app

    commands = _commands(scratch)
    name = rng.choice(sorted(commands))
    argv = name.split()
    cmd: Any = app
    for part in argv:
        cmd = cmd.get_command(click.Context(cmd), part)
    args = [make(rng) for make in commands[name]]
    if len(args) > 1 and rng.random() < 0.1:  # (never none: the default is every bundled ruleset)
        args = args[:-1] if rng.random() < 0.5 else [*args, str(rng.choice(NASTY))]
    options = [p for p in getattr(cmd, "params", []) if getattr(p, "opts", None) and p.opts[0].startswith("-")
               and p.name not in ("scheduler", "help")]
    chosen: list[str] = []
    for p in rng.sample(options, k=min(len(options), rng.randint(0, 3))):
        chosen += _option_value(rng, p, scratch)
    if name == "fmt" and "--check" not in chosen and "--diff" not in chosen:
        chosen.append("--check")  # never rewrite the bundled rules
    if name == "new":
        chosen += ["--dir", str(scratch / "new")]
    if name == "play" and "--auto" not in chosen and "--replay" not in chosen:
        chosen.append("--auto")  # no one to answer
    if name == "simulate":
        chosen = [c if c not in (str(10**6), "10000") else "3" for c in chosen]
        chosen += ["--games", rng.choice(["1", "3", str(10**12)])] if "--games" not in chosen else []
    return [*argv, *args, *chosen]


# -- running an input ----------------------------------------------------------------------------

def remember_compiles() -> None:
    """The bundled rulesets never change during a run (nothing the fuzzer runs may write them: that
    is what the output guard is for), so each is compiled once per worker: most of an input's time
    would otherwise be compiling the same files again, not the door being fuzzed."""
    import compiler.driver as driver

    real = driver.compile_paths
    memo: dict[tuple[str, ...], Any] = {}
    fixed = (str(Path(CONSOLE).resolve()), str(Path(SMALL).resolve()))

    def compile_paths(paths: Any, *args: Any, **kwargs: Any) -> Any:
        key = tuple(str(Path(p).resolve()) for p in paths)
        if args or kwargs or not key or not all(k in fixed for k in key):
            return real(paths, *args, **kwargs)
        if key not in memo:
            memo[key] = real(paths)
        return memo[key]
    driver.compile_paths = compile_paths  # type: ignore[assignment]


def exercise_io(kind: str, data: bytes | list[str], scratch: Path) -> int:
    """Run one input through the CLI in this process; its exit status.  Raises what escaped the CLI
    (a traceback's exception): the fuzzer counts it as a crash."""
    from click.testing import CliRunner

    from compiler.cli import app

    if kind == "log":
        assert isinstance(data, bytes)
        (scratch / "in.jsonl").write_bytes(data)
        argv = ["play", CONSOLE, "--replay", str(scratch / "in.jsonl")]
    elif kind == "army":
        assert isinstance(data, bytes)
        (scratch / "army.txt").write_bytes(data)
        argv = ["army", "check", CONSOLE, str(scratch / "army.txt")]
    else:
        assert isinstance(data, list)
        argv = data
    result = CliRunner().invoke(app, argv, input="1\n" * 50)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    if "Traceback" in result.output:
        raise AssertionError("a traceback was printed: " + result.output[-300:])
    return result.exit_code
