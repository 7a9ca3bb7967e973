"""Stage 3, check: small passes over the rules model, each writing diagnostics to one sink.

``run_checks(model, sink)`` runs every pass of :data:`CHECKS`, in order, on one ruleset.  Each
pass is a function of a :class:`Context` (the ruleset and the sink) in the module of its family,
and can be run alone::

    header ─ duplicates ─ names ─ types ─ cycles ─ tables ─ profiles ─ dice ─ situations ─ prose ─ notes
    structure  structure  declarations types structure tables profiles dice structure  names   structure

No pass raises or stops the others; only the driver decides what fails.  The names pass records
the call graph that the cycle pass reads, so it runs first.  Codes: W1xx names, W2xx types and
values, W3xx tables, W4xx structure, W5xx notes, W6xx overlays (see :mod:`compiler.codes`).

>>> from compiler.driver import compile_text
>>> model = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\nformula f(S) "F" = S + Tough\\n').rulesets[0]
>>> sink = Sink()
>>> run_checks(model, sink)
>>> [(d.code, d.message) for d in sink.items]
[('W101', "unknown name 'Tough'")]
>>> check_dice(Context(model, Sink()))  # one pass alone
"""
from __future__ import annotations

from typing import Callable

from compiler.check.battles import check_battles
from compiler.check.carried import carried_in, check_carried
from compiler.check.builtins import ARMY_NAMES, BUILTIN_ATTRS, BUILTIN_WORDS, BUILTINS
from compiler.check.context import Context, Scope
from compiler.check.declarations import check_names
from compiler.check.dependence import check_dependent_results
from compiler.check.dice import check_dice
from compiler.check.expressions import (check_effect, check_expect, check_expr, check_hook, check_params,
                                        check_range, check_setting)
from compiler.check.names import PROSE_REF, check_prose, report_unknown
from compiler.check.overlays import removed_by, report_removed
from compiler.check.profiles import check_profiles, check_stat_value
from compiler.check.semantics import check_semantics
from compiler.check.situations import check_situation_keywords
from compiler.check.structure import check_cycles, check_duplicates, check_header, check_notes, check_situations
from compiler.check.traps import check_traps
from compiler.check.tables import check_tables, param_domain, situation_domain
from compiler.check.types import check_types, static_kind
from compiler.check.volleys import check_volley_sides
from compiler.diagnostics import Sink
from compiler.model.ruleset import Ruleset

#: A check pass: reads the context's ruleset, writes diagnostics to its sink.
Check = Callable[[Context], None]

#: Every pass, in the order :func:`run_checks` runs them.
CHECKS: tuple[Check, ...] = (
    check_header,
    check_duplicates,
    check_names,
    check_types,
    check_cycles,
    check_tables,
    check_profiles,
    check_dice,
    check_situations,
    check_situation_keywords,
    check_semantics,
    check_dependent_results,
    check_traps,
    check_battles,
    check_volley_sides,
    check_carried,
    check_prose,
    check_notes,
)


def run_checks(ruleset: Ruleset, sink: Sink, checks: tuple[Check, ...] = CHECKS) -> None:
    r"""Run ``checks`` (every pass, by default) on one ruleset, collecting diagnostics in ``sink``.

    >>> from compiler.driver import compile_text
    >>> text = 'ruleset demo "Demo":\n  version 1.0.0\ndie D3 "D3" = d6 as 1, 2, 3\n'
    >>> model = compile_text(text).rulesets[0]
    >>> sink = Sink()
    >>> run_checks(model, sink, (check_dice,))
    >>> [(d.code, d.message) for d in sink.items]
    [('W204', 'die D3 is made from a d6, so it needs 6 faces, not 3')]
    """
    ctx = Context(ruleset, sink)
    for check in checks:
        check(ctx)


__all__ = [
    "carried_in", "ARMY_NAMES", "BUILTINS", "BUILTIN_ATTRS", "BUILTIN_WORDS", "CHECKS", "PROSE_REF", "Check", "Context",
    "Scope", "check_cycles", "check_dice", "check_duplicates", "check_effect", "check_expect", "check_expr",
    "check_dependent_results", "check_header", "check_hook", "check_names", "check_notes", "check_params", "check_profiles", "check_prose", "check_semantics",
    "check_range", "check_setting", "check_situation_keywords", "check_situations", "check_stat_value", "check_tables", "check_traps", "check_types",
    "param_domain", "removed_by", "report_removed", "report_unknown", "run_checks", "situation_domain",
    "static_kind",
]
