"""What every command of the ``warscribe`` command line shares: the application,
how usage errors and diagnostics are printed, compiling the one ruleset a command is about."""
from __future__ import annotations

import errno

import os
import sys
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click
from click.exceptions import Exit

if TYPE_CHECKING:  # the CLI imports the compiler only when a command runs
    from compiler.diagnostics import Diagnostic
    from compiler.driver import Compilation
    from compiler.model.ruleset import Ruleset
    from compiler.resolve.evaluator import ResolveError

__all__ = ["Arg", "Exit", "app", "compile_one", "ruleset_path", "console", "unknown_name", "is_quiet", "is_verbose", "json_option",
           "print_diagnostics", "refuse", "report_resolve_error", "rules_have_errors", "say", "summary_line",
           "usage_error", "use_color"]

F = TypeVar("F", bound=Callable[..., Any])

# -- the options every command shares ---------------------------------------------------------------
# ``--color/--no-color``, ``-q/--quiet`` and ``-v/--verbose`` are accepted before the command
# (``warscribe --no-color check``) and after it (``warscribe check --no-color``), as ruff and
# pytest do; what they chose is kept in the root context's ``meta`` and read through
# :func:`use_color`, :func:`is_quiet` and :func:`is_verbose`. A command with a ``--verbose`` of
# its own keeps it (and reads :func:`is_verbose` too).

_COLOR, _QUIET, _VERBOSE = "warscribe.color", "warscribe.quiet", "warscribe.verbose"


def _remember(key: str) -> Any:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is None or (value is False and key != _COLOR):
            return value
        ctx.find_root().meta[key] = value
        if key == _COLOR:
            ctx.color = bool(value)
            ctx.find_root().color = bool(value)
        return value
    return callback


def shared_options() -> list[click.Option]:
    """New instances of the options every command accepts (they expose no value to the command)."""
    return [
        click.Option(["--color/--no-color"], default=None, expose_value=False, is_eager=True,
                     callback=_remember(_COLOR),
                     help="Colour the output or not (default: on a terminal, unless NO_COLOR is set; "
                          "FORCE_COLOR forces it)."),
        click.Option(["--quiet", "-q"], is_flag=True, default=False, expose_value=False, callback=_remember(_QUIET),
                     help="Print only the answer and the errors: no progress, no summary."),
        click.Option(["--verbose", "-v"], is_flag=True, default=False, expose_value=False,
                     callback=_remember(_VERBOSE), help="Say more: every message, every item."),
    ]


def _meta(key: str) -> Any:
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.find_root().meta.get(key)


def is_quiet() -> bool:
    """Whether ``-q/--quiet`` was given (before or after the command)."""
    return bool(_meta(_QUIET))


def is_verbose() -> bool:
    """Whether ``-v/--verbose`` was given (before or after the command)."""
    return bool(_meta(_VERBOSE))


def _env_color() -> bool | None:
    """What the environment says about colour: ``NO_COLOR`` wins over ``FORCE_COLOR``, any
    non-empty value counts (no-color.org, force-color.org); None when it says nothing."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return None


def json_option(help: str = "Print JSON, for tools.") -> Callable[[F], F]:
    """``--json``: the one spelling of "print JSON" across commands (exposed as ``as_json``)."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def refuse(**given: Any) -> None:
    """Refuse options that cannot combine, with a sentence: the first option named excludes every
    other one; ``refuse(**{"--replay": log, "--seed": seed})`` is a usage error when both are given."""
    (first, value), *others = given.items()
    named = [name for name, v in others if v not in (None, False, ())]
    if value not in (None, False, ()) and named:
        raise usage_error(f"{first} cannot be combined with {' or '.join(named)}"
                          f"{'; ' + REFUSALS[first] if first in REFUSALS else ''}")


#: Why an option excludes others, said after the refusal.
REFUSALS = {
    "--replay": "a replay plays back the log's own seed, sides and choices",
    "--auto": "with --auto the policies play every side",
    "--strict": "--strict judges the coverage report; add --coverage",
    "--format": "use --json alone",
}


class Arg(click.Argument):
    """A positional argument with a line of help, listed under "Arguments" in ``--help``."""

    def __init__(self, param_decls: list[str], help: str | None = None, **attrs: Any) -> None:
        super().__init__(param_decls, **attrs)
        self.help = help

    def help_record(self, ctx: click.Context) -> tuple[str, str]:
        return self.make_metavar(ctx), self.help or ""


class Command(click.Command):
    """A command whose ``--help`` lists its arguments with their help, then its options; it
    accepts the shared options (:func:`shared_options`) unless it declares one of them itself."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        taken = {opt for p in self.params for opt in p.opts + p.secondary_opts}
        for option in shared_options():
            if not taken & set(option.opts + option.secondary_opts):
                self.params.append(option)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:
            _refuse_repeated(self, ctx, args)
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_usage(ctx, formatter)
        self.format_help_text(ctx, formatter)
        records = [p.help_record(ctx) for p in self.get_params(ctx) if isinstance(p, Arg)]
        if records:
            with formatter.section("Arguments"):
                formatter.write_dl(records)
        self.format_options(ctx, formatter)
        self.format_epilog(ctx, formatter)


def _refuse_repeated(command: click.Command, ctx: click.Context, args: list[str]) -> None:
    """An option that takes one value, given twice (``--games 10 --games 20``): a usage error, never
    the last one kept in silence.  Repeatable options (``--with``, ``--army``) and flags may repeat."""
    try:
        _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    except click.UsageError:
        return  # the parse proper says what is wrong with the call
    counts: dict[click.Option, int] = {}
    for param in order:
        if isinstance(param, click.Option) and not (param.multiple or param.count or param.is_flag):
            counts[param] = counts.get(param, 0) + 1
    for option, n in counts.items():
        if n > 1:
            name = max(option.opts, key=len)
            raise usage_error(f"{name} is given {'twice' if n == 2 else f'{n} times'}; give it once")


class Group(click.Group):
    """The application and its groups of commands.

    A command may be registered lazily: ``modules`` maps its name to the module that registers it,
    imported only when the command runs (or when ``--help`` lists every command, in the order of
    ``modules``, each with the first paragraph of its help in full). Called with no arguments, a
    group prints its help on standard output and exits 2; Ctrl-C exits 130 without a traceback.
    """

    command_class = Command
    group_class = type  # a group's sub-groups are Groups too

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.modules: dict[str, str] = {}

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.modules:
            import importlib

            importlib.import_module(self.modules[cmd_name])
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = [name for name in self.modules if self.get_command(ctx, name) is not None]
        return names + [name for name in self.commands if name not in names]

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        if cmd.short_help is None and cmd.help:
            cmd.short_help = " ".join(cmd.help.strip().split("\n\n")[0].split())
        super().add_command(cmd, name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.parent is None:
            bad = next((a for a in args if "\0" in a), None)
            if bad is not None:  # no path, name or number holds one: the system refuses such a path
                shown = bad.replace(chr(0), "\\0")[:60]
                raise usage_error(f"an argument holds a NUL character: {shown!r}")
            if ctx.color is None:
                ctx.color = _env_color()  # what --color/--no-color (parsed next) does not say
            if not ctx.resilient_parsing:
                from compiler.cli.config import SettingsError, current

                try:  # the project's settings file: the defaults of the commands' options
                    ctx.default_map = {**current().default_map(), **(ctx.default_map or {})}
                except SettingsError as err:
                    raise usage_error(err.message) from None
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            click.echo(ctx.get_help())
            ctx.exit(2)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Exit(130) from None
        except OSError as err:  # what a command did not foresee of the system: one sentence, never a traceback
            if isinstance(err, BrokenPipeError) or ctx.parent is not None:
                raise
            name = str(err.filename or "")
            where = f"{name[:80]}{'…' if len(name) > 80 else ''}: " if name else ""
            if err.errno == errno.ENAMETOOLONG:
                raise usage_error(f"{where}a name in this path is too long for the file system") from None
            click.echo(f"warscribe: error: {where}{err.strerror or err}", err=True)
            raise Exit(1) from None


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from compiler.cli import version_line

        click.echo(version_line())
        ctx.exit(0)


app = Group(
    name="warscribe",
    params=[click.Option(["--version", "-V"], is_flag=True, expose_value=False, is_eager=True, callback=_version,
                         help="Print warscribe's version and exit."), *shared_options()],
    help="Write tabletop wargame house rules in a small language: check them like a compiler, "
         "compute the exact odds of every mechanic, and publish them as a rulebook website.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"], "show_default": True},
)


def use_color(stream: object) -> bool:
    """Colour the output written to ``stream``: as ``--color/--no-color`` say; else not when
    ``NO_COLOR`` is set, yes when ``FORCE_COLOR`` is; else when ``stream`` is a terminal."""
    chosen = _meta(_COLOR)
    if chosen is not None:
        return bool(chosen)
    env = _env_color()
    if env is not None:
        return env
    isatty = getattr(stream, "isatty", None)
    return isatty is not None and bool(isatty())


def console(stderr: bool = False, **kwargs: Any) -> Any:
    """A Rich console on standard output (or error) that colours as :func:`use_color` says."""
    from rich.console import Console

    color = use_color(sys.stderr if stderr else sys.stdout)
    return Console(stderr=stderr, force_terminal=color, no_color=not color,
                   color_system="standard" if color else None, **{"highlight": False, "soft_wrap": True, **kwargs})


def unknown_name(message: str, name: str, known: list[str], plural: str) -> Exit:
    """A usage error for a name that is not one of ``known``: the closest names (by edit distance)
    and, when they are few, the whole list. The caller raises what this returns (exit 2)."""
    from compiler.diagnostics import suggestion

    hint = suggestion(name, known, plural) or (f"the {plural} are: {', '.join(sorted(known))}" if known else "")
    return usage_error(message + (f"; {hint}" if hint else ""))


def say(text: str, err: bool = False) -> None:
    """Print a line that holds author text (a title, a name, a table's result, a line of a file):
    its control characters shown escaped, never obeyed by the terminal (:mod:`compiler.terminal`)."""
    from compiler.terminal import shown

    click.echo(shown(text), err=err)


def usage_error(message: str) -> Exit:
    """Say (on standard error) what was wrong with the call; the caller raises what this returns (exit 2)."""
    say(f"warscribe: error: {message}", err=True)
    return Exit(2)


def print_diagnostics(diagnostics: tuple[Diagnostic, ...], sources: dict[str, str], limit: int = 200) -> None:
    """Print diagnostics on standard error: standard output carries only a command's answer."""
    from compiler.diagnostics import render

    color = use_color(sys.stderr)
    shown = 0
    for d in diagnostics:
        if shown >= limit:
            click.echo(f"… and {len(diagnostics) - shown} more", err=True)
            break
        click.echo(render(d, sources, color=color) + "\n", err=True, color=color)
        shown += 1


def rules_have_errors(where: str = "") -> None:
    """Say (on standard error) that a command stops because the rules have errors."""
    click.echo(f"{where}: the rules have errors; fix them first" if where else "the rules have errors; fix them first",
               err=True)


def summary_line(diagnostics: tuple[Diagnostic, ...], rulesets: int, seconds: float) -> str:
    from compiler.diagnostics import Severity

    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    notes = sum(1 for d in diagnostics if d.severity is Severity.NOTE)
    parts = [f"{rulesets} ruleset{'s' if rulesets != 1 else ''} checked",
             f"{errors} error{'s' if errors != 1 else ''}",
             f"{warnings} warning{'s' if warnings != 1 else ''}"]
    if notes:
        parts.append(f"{notes} note{'s' if notes != 1 else ''}")
    return ", ".join(parts) + f" ({seconds:.2f} s)"


def ruleset_path(path: str) -> str:
    """``path``, or, when it is a ruleset's id that is no path here (``warscribe eval ashfall …``,
    as the site's calculator writes it), that ruleset's folder in the project's rules folder."""
    from pathlib import Path

    if "/" not in path and "\\" not in path and not Path(path).exists():
        from compiler.cli.config import current

        rules = current().path("rules")
        if rules is not None and (rules / path).is_dir():
            return str(rules / path)
    return path


def compile_one(path: str) -> tuple[Compilation, Ruleset]:
    """Compile the one ruleset at ``path`` (:func:`ruleset_path`); on errors print them and exit 1.
    A command that hands the path on (to workers, to a log) takes :func:`ruleset_path` first."""
    from compiler.driver import compile_paths
    from compiler.model.load import UsageError

    path = ruleset_path(path)
    try:
        result = compile_paths([path])
    except UsageError as e:
        raise usage_error(str(e))
    if not result.ok:
        print_diagnostics(tuple(d for d in result.diagnostics if d.is_error), dict(result.sources))
        rules_have_errors(path)
        raise Exit(1)
    if len(result.rulesets) != 1:
        raise usage_error(f"{path} holds {len(result.rulesets)} rulesets; name one folder, e.g. rules/{result.rulesets[0].id}")
    return result, result.rulesets[0]


def report_resolve_error(err: ResolveError, sources: dict[str, str]) -> None:
    """Print a resolver error (in an expression given on the command line, or in the rules) as a diagnostic."""
    from compiler import codes
    from compiler.diagnostics import Diagnostic, Severity, Span, render

    span = err.span or Span("<expression>", 0, 0, 0, 0)
    color = use_color(sys.stderr)
    click.echo(render(Diagnostic(codes.REFUSED.code, Severity.ERROR, err.message, span, err.hint), sources,
                      color=color), err=True, color=color)
