"""The check stage's names as they were imported before the stage was split by family of passes.

``from compiler.check.passes import run_checks, Context, Scope, check_expr, param_domain`` keeps
working; new code imports the same names from :mod:`compiler.check`.
"""
from __future__ import annotations

from compiler.check import (ARMY_NAMES, BUILTIN_ATTRS, BUILTIN_WORDS, BUILTINS, CHECKS, PROSE_REF, Check, Context,
                            Scope, check_cycles, check_dice, check_duplicates, check_effect, check_expect,
                            check_expr, check_header, check_hook, check_names, check_notes, check_params,
                            check_profiles, check_prose, check_range, check_setting, check_situations,
                            check_stat_value, check_tables, check_types, param_domain, removed_by, report_removed,
                            report_unknown, run_checks, situation_domain, static_kind)

__all__ = [
    "ARMY_NAMES", "BUILTINS", "BUILTIN_ATTRS", "BUILTIN_WORDS", "CHECKS", "PROSE_REF", "Check", "Context",
    "Scope", "check_cycles", "check_dice", "check_duplicates", "check_effect", "check_expect", "check_expr",
    "check_header", "check_hook", "check_names", "check_notes", "check_params", "check_profiles", "check_prose",
    "check_range", "check_setting", "check_situations", "check_stat_value", "check_tables", "check_types",
    "param_domain", "removed_by", "report_removed", "report_unknown", "run_checks", "situation_domain",
    "static_kind",
]
