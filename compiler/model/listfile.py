"""An army list file read into the units of a list, each bad line said with its line and column.

One unit a line: its models, the squad's or unit's id, the weapons it takes (``with boltgun,
flamer``) and its marks — ``as warlord`` (the army's warlord), ``in reserve`` (held back in
reserve) and ``in detachment 2`` (the detachment it belongs to; 1 without the mark), each at most
once, after the weapons.  ``#`` starts a comment.  The army builder's page
(compiler/site/assets/army.js) reads the same lines with the same messages.

>>> got = read_list_file("5 scouts with rifle in reserve\\n1 boss as warlord\\n1 boss as warlrd\\n",
...                      {"scouts", "boss"}, {"rifle"}, "demo")
>>> [(u.count, u.name, u.weapons, u.warlord, u.reserve) for u in got.units]
[(5, 'scouts', ('rifle',), False, True), (1, 'boss', (), True, False)]
>>> [(e.line, e.column, e.message, e.hint) for e in got.errors]
[(3, 11, "'warlrd': a unit is marked `as warlord`", "did you mean 'warlord'?")]
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from compiler import ast as A
from compiler.diagnostics import Span, suggestion
from compiler.limits import MAX_COUNT

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_HEAD = re.compile(r"\s*([0-9]+)\s+(" + _NAME + ")")
_WORD = re.compile(_NAME + r"|,|[^\sA-Za-z_,]\S*")
#: The marks of a line: a first word and the words that may follow it (``in detachment`` then a number).
MARKS = {"as": ("warlord",), "in": ("reserve", "detachment")}
_ANY_MARK = "`as warlord`, `in reserve` or `in detachment N`"
#: The most detachments a list may name (``in detachment 99``).
MAX_DETACHMENT = 99


@dataclass(frozen=True, slots=True)
class ListError:
    """A line of a list file that cannot be read: where, why, and what to write instead."""

    line: int
    column: int
    message: str
    hint: str | None = None


@dataclass(frozen=True, slots=True)
class ListFile:
    """The units of a list file and the lines it cannot take (all of them: the list is read whole or not at all)."""

    units: tuple[A.SideUnit, ...]
    errors: tuple[ListError, ...]


def read_list_file(text: str, units: set[str], weapons: set[str], ruleset: str, path: str = "<list>",
                   sample: str = "space_marine_squad") -> ListFile:
    """The units of an army list file ``text`` whose squads and units are ``units``; ``sample`` is the
    id a line that cannot be read gives as its example."""
    out: list[A.SideUnit] = []
    errors: list[ListError] = []
    for n, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0]
        if not body.strip():
            continue
        got = _line(body, n, units, weapons, ruleset, sample)
        if isinstance(got, ListError):
            errors.append(got)
            continue
        count, name, picked, marks = got
        out.append(A.SideUnit(Span(path, n, 1, n, len(line) + 1), count, name, picked,
                              warlord="warlord" in marks, reserve="reserve" in marks,
                              detachment=marks.get("detachment", 1)))
    return ListFile(tuple(out), tuple(errors))


def _line(body: str, n: int, units: set[str], weapons: set[str], ruleset: str,
          sample: str) -> ListError | tuple[int, str, tuple[str, ...], dict[str, int]]:
    head = _HEAD.match(body)
    if head is None:
        return ListError(n, 1, f"cannot read this line; write e.g. `10 {sample}`")
    digits = head.group(1)
    if len(digits) > 6 or not 1 <= int(digits) <= MAX_COUNT:
        return ListError(n, head.start(1) + 1, f"a unit of {digits[:12]}{'…' if len(digits) > 12 else ''} "
                         f"models; write from 1 to {MAX_COUNT:,}")
    name = head.group(2)
    if name not in units:
        return ListError(n, head.start(2) + 1, f"'{name}' is not a unit, squad or weapon of {ruleset}",
                         suggestion(name, units, "units and squads"))
    words = [(m.group(0), m.start() + 1) for m in _WORD.finditer(body, head.end())]
    if words and head.end() == words[0][1] - 1:  # glued to the name: `10 boyz!`
        return ListError(n, words[0][1], f"cannot read '{words[0][0]}' after the unit's name")
    picked: list[str] = []
    i = 0
    if words and words[0][0] == "with":
        i = 1
        while True:
            if i >= len(words) or not _is_name(words[i][0]):
                col = words[i][1] if i < len(words) else len(body.rstrip()) + 1
                return ListError(n, col, "`with` is followed by the weapons the unit takes: `with boltgun, flamer`")
            weapon, col = words[i]
            if weapon not in weapons:
                return ListError(n, col, f"'{weapon}' is not a unit, squad or weapon of {ruleset}",
                                 suggestion(weapon, weapons, "weapons"))
            picked.append(weapon)
            i += 1
            if i < len(words) and words[i][0] == ",":
                i += 1
                continue
            break
    marks: dict[str, int] = {}
    end = len(body.rstrip()) + 1
    while i < len(words):
        word, col = words[i]
        if word not in MARKS:
            where = "the weapons come first, after `with`" if word == "with" else \
                f"after the unit come `with` and its weapons, then {_ANY_MARK}"
            return ListError(n, col, f"cannot read '{word}' here; {where}")
        seconds = MARKS[word]
        said = " or ".join(f"`{word} {w}{' N' if w == 'detachment' else ''}`" for w in seconds)
        if i + 1 >= len(words):
            return ListError(n, end, f"`{word}` ends the line; a unit is marked {said}")
        what, at = words[i + 1]
        if what not in seconds:
            return ListError(n, at, f"'{what}': a unit is marked {said}", suggestion(what, seconds))
        if what in marks:
            return ListError(n, col, f"the unit is marked `{word} {what}` twice")
        i += 2
        if what == "detachment":
            number = words[i][0] if i < len(words) else ""
            if not re.fullmatch(r"[0-9]{1,2}", number) or int(number) < 1:
                return ListError(n, words[i][1] if i < len(words) else end,
                                 f"`in detachment` takes the detachment's number, from 1 to {MAX_DETACHMENT}")
            marks[what] = int(number)
            i += 1
        else:
            marks[what] = 1
    return int(digits), name, tuple(picked), marks


def _is_name(word: str) -> bool:
    return bool(re.fullmatch(_NAME, word))
