"""The review stage: what changed between two versions of a ruleset, and what that did to the odds.

It reads two rules models (two folders, a folder at two git revisions, or an
overlay and its base) and returns plain, frozen data; it never changes a model
and never writes a file::

    Ruleset (old) ─┐  diff.diff_models ─▶ RulesetDiff ──┐
                   ├─                                   ├─ report ─▶ text / Markdown / JSON
    Ruleset (new) ─┘  impact.impact    ─▶ Impact ───────┘

* :mod:`compiler.review.diff` — the declaration-level diff (:func:`diff_models`),
  reading each declaration through :mod:`~compiler.review.fields` (its clauses,
  stats and prose) and :mod:`~compiler.review.cells` (tables, formulas and tests
  worked out cell by cell);
* :mod:`compiler.review.odds` — examples and standard matchups worked out under
  both versions (:func:`impact`);
* :mod:`compiler.review.report` — the renderers: :func:`diff_text`,
  :func:`diff_markdown`, :func:`diff_json`;
* :mod:`compiler.review.gitsource` — a ruleset as it was at a git revision
  (:func:`load_side`, :func:`releases`);
* :mod:`compiler.review.versions` — ``warscribe check``'s W607: a result changed
  but the version did not (:func:`version_warnings`).

>>> from compiler.driver import compile_text
>>> from compiler.review import diff_models, diff_text
>>> head = 'ruleset demo "Demo":\\n  version 1.0.0\\n'
>>> old = compile_text(head + 'test hit(BS: 1..6) = roll d6 >= BS\\n').rulesets[0]
>>> new = compile_text(head + 'test hit(BS: 1..6) = roll d6 >= BS + 1\\n').rulesets[0]
>>> for line in diff_text(diff_models(old, new, old_label="old", new_label="new"))[:7]:
...     print(line)
demo 1.0.0 (old) → demo 1.0.0 (new)
1 changed
<BLANKLINE>
~ test hit
    roll: roll d6 >= BS → roll d6 >= BS + 1
    cells (6 changed):
      BS = 1: P 1 → P 5/6
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from compiler.lazy import lazy_names

if TYPE_CHECKING:  # imported on first use: ``warscribe check`` reads only version_warnings
    from compiler.review.diff import RulesetDiff, diff_models
    from compiler.review.gitsource import Loaded, SideSpec, SourceError, load_side, parse_sides, releases
    from compiler.review.odds import Impact, changed_examples, impact
    from compiler.review.report import diff_json, diff_markdown, diff_text
    from compiler.review.versions import version_warnings

__all__ = ["Impact", "Loaded", "RulesetDiff", "SideSpec", "SourceError", "changed_examples", "diff_json",
           "diff_markdown", "diff_models", "diff_text", "impact", "load_side", "parse_sides", "releases",
           "version_warnings"]

# Where each public name lives; ``from compiler.review import diff_models`` imports its module then.
_PUBLIC = {
    "RulesetDiff": "diff", "diff_models": "diff",
    "Loaded": "gitsource", "SideSpec": "gitsource", "SourceError": "gitsource", "load_side": "gitsource",
    "parse_sides": "gitsource", "releases": "gitsource",
    "Impact": "odds", "changed_examples": "odds", "impact": "odds",
    "diff_json": "report", "diff_markdown": "report", "diff_text": "report",
    "version_warnings": "versions",
}


__getattr__, __dir__ = lazy_names(__name__, {name: f"compiler.review.{module}" for name, module in _PUBLIC.items()},
                                  globals())
