"""Situations that repeat what the profiles already say.

A situation is for what a profile cannot know: cover, range, whether a unit charged.  When a
situation's choices (or a yes/no situation's name) repeat a keyword that units or weapons carry
— ``situation target_kind one of infantry, mounted`` beside ``unit rough_rider … keywords
mounted`` — the reader has to set by hand what the profile already knows, and a question asked
without setting it silently gets the wrong answer.  Conditions can read the profile instead:
``target has mounted``, ``weapon has blast``.

>>> from compiler.driver import compile_text
>>> text = ('ruleset demo "Demo":\\n  version 1.0.0\\nkeyword mounted "Mounted"\\n'
...         'situation target_kind "Target" one of foot, mounted\\nstat W "W" 1..3\\n'
...         'modifier m "M": -1 W when target_kind is mounted\\n'
...         'unit rider "Rider":\\n  W 1\\n  keywords mounted\\n')
>>> [(d.code, d.message) for d in compile_text(text).diagnostics]  # doctest: +NORMALIZE_WHITESPACE
[('W109', "situation 'target_kind' offers 'mounted', a keyword the profiles carry (rider)")]
"""
from __future__ import annotations

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context


def _names_choice(choice: str, keyword: str) -> bool:
    """A choice names a keyword when it is the keyword or its first words: ``mounted`` names
    ``mounted``, ``monstrous`` names ``monstrous_creature``; ``infantry_pistols`` is more than
    ``infantry`` and does not."""
    return choice == keyword or keyword.startswith(choice + "_")


def _names_flag(situation: str, keyword: str) -> bool:
    """A yes/no situation names a keyword when its name is the keyword, or the keyword and a
    word: ``blast``, ``blast_shot``."""
    return situation == keyword or situation.startswith(keyword + "_")


def carried_keywords(ctx: Context) -> dict[str, list[str]]:
    """Each keyword some unit or weapon carries, with the ids of the profiles that carry it."""
    carried: dict[str, list[str]] = {}
    for profile in list(ctx.ruleset.of_type(A.Profile)) + list(ctx.ruleset.of_type(A.Squad)):
        for keyword, _ in profile.keywords:
            carried.setdefault(keyword, []).append(profile.id)
    return carried


def read_by_conditions(ctx: Context) -> set[str]:
    """The names the rules read in their expressions: conditions, steps, hooks, modifiers —
    not the examples and properties, which set situations rather than ask about them, and not a
    table's parameter list, which only names the values a table ranges over."""
    names: set[str] = set()
    for decl in ctx.ruleset.walk():
        if isinstance(decl, (A.Example, A.Property)):
            continue
        names |= {s.id for s in ctx.ruleset.sub_expressions(decl) if isinstance(s, A.Name)}
    return names


def check_situation_keywords(ctx: Context) -> None:
    """Pass: a condition does not ask the reader for a keyword the profiles carry (W109)."""
    carried = carried_keywords(ctx)
    if not carried:
        return
    read = read_by_conditions(ctx)
    for sit in ctx.ruleset.of_type(A.Situation):
        if sit.id not in read:
            continue
        words = sit.choices if sit.choices else (sit.id,)
        same = _names_choice if sit.choices else _names_flag
        for word in words:
            for keyword in sorted(carried):
                if not same(word, keyword):
                    continue
                owners = carried[keyword]
                shown = ", ".join(owners[:3]) + (f" and {len(owners) - 3} more" if len(owners) > 3 else "")
                what = f"offers '{word}'," if sit.choices else "is named after"
                ctx.sink.warning(codes.SITUATION_REPEATS_PROFILE,
                                 f"situation '{sit.id}' {what} a keyword the profiles carry ({shown})",
                                 sit.span,
                                 f"read it from the profile instead: 'target has {keyword}' or "
                                 f"'weapon has {keyword}', so that nobody has to set it by hand")
                break
