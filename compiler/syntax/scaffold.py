"""``warscribe new NAME``: a new ruleset folder with a short, commented example of every concept.

The files are a working ruleset: ``warscribe check``, ``warscribe test``,
``warscribe fmt --check`` and ``warscribe build`` pass on them as they are, so
an author starts from something that works and changes it one piece at a time.

Where the folder goes: ``rules/NAME`` (``rules/`` is made if it is missing), so
that ``warscribe check``, ``test`` and ``build`` — which read ``rules/`` — work at
once from the same folder; ``--dir DIR`` puts it in ``DIR/NAME`` instead.  An
existing folder is never touched.

>>> sorted(scaffold_files("my-skirmish", "My Skirmish"))
['examples.rules', 'lexicon.rules', 'profiles.rules', 'rules.rules', 'ruleset.rules']
"""
from __future__ import annotations

import re
from datetime import date
from pathlib import Path

RULESET_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")

_RULESET = '''\
# {comment}: the ruleset's header file.  `warscribe check`, `warscribe test` and
# `warscribe build` read it first; it pulls in the other files with `include`.
# The language is described in site/language.md; `#` starts a comment.

ruleset {name} "{title}":
  version 0.1.0  # semantic version: bump it when the rules change
  authors "Your name"
  licence "CC-BY-4.0"
  summary: "One line that says what kind of game this is."
  history:
    0.1.0 {today}: "First draft."
  """
  A paragraph introducing the game. Prose is Markdown between triple quotes;
  a name in double brackets, such as [[hit]], links to its definition.
  """

include "lexicon.rules"   # stats, keywords, terms, situations, dice
include "rules.rules"     # the rulebook: sections, tables, tests, modifiers
include "profiles.rules"  # units, weapons, squads, the army and the game
include "examples.rules"  # examples and properties: `warscribe test` runs them
'''

_LEXICON = '''\
# The lexicon: every name a player needs, with a short definition.

# A stat and its type: a range of whole numbers, `target` (3+), `distance`
# (6"), `dice` (D3) or `number`.  Profiles are checked against it.
stat BS "Ballistic Skill" 1..6: "How well a model shoots: it hits on a roll of 7 - BS or more."
stat S "Strength" 1..10: "How hard a weapon hits."
stat T "Toughness" 1..10: "How hard a model is to hurt."
stat W "Wounds" 1..10 role wounds: "How many wounds a model can lose before it is removed."
stat Sv "Save" target: "The roll a model needs to shrug off a wound."
stat A "Attacks" dice: "How many shots a weapon fires."
stat D "Damage" dice: "Wounds each unsaved hit causes."

# Keywords, statuses and terms: a name, a short definition, and a long text.
keyword infantry "Infantry": "Soldiers on foot."
status pinned "Pinned": "The unit is keeping its head down."
  """A pinned unit may not move until its next turn."""
term cover "Cover": "Terrain between the shooter and the target."

# A situation is a fact about the moment of play that modifiers depend on:
# yes/no, one of a list, or a number.  Examples set them with `with`.
situation in_cover "The target is in cover"
situation range_band "How far away the target is" one of close, long

# A custom die says what each face of a real die counts as.
die D3 "D3 (halve a d6, round up)" = d6 as 1, 1, 2, 2, 3, 3
'''

_RULES = '''\
# The rulebook: sections of prose with the mechanics they describe.

section combat "Combat":
  """
  Pick a target, roll [[hit|to hit]] for each shot, then [[wound]] for each
  hit; the target makes a [[save]] for each wound.
  """

  # A table: the first row whose case holds gives the result.
  table to_wound(S, T) "Wound chart":
    S >= 2 * T -> 2+
    S > T      -> 3+
    S == T     -> 4+
    2 * S <= T -> 6+
    otherwise  -> 5+

  # A test: one roll against a target, with the rules that decide it.
  test hit(BS) "Roll to hit":
    roll d6 >= 7 - BS
    natural 1 fails

  test wound(S, T) "Roll to wound":
    roll d6 against to_wound(S, T)
    natural 1 fails

  test save(Sv) "Armour save":
    roll d6 >= Sv
    natural 1 fails

  # A modifier: an effect on a test or a stat, and when it applies.
  modifier cover_bonus "Cover": -1 to hit when in_cover
  modifier long_range "Long range": -1 to hit when range_band is long

  # An ability: rules text, and hooks on the tests it changes.
  ability rending "Rending": "A natural 6 to wound ignores armour."
    on natural 6 to wound: no save

  # An attack sequence: each step passes every attack through one test.
  attack shooting(shooter, weapon, target) "Shooting":
    shots   = shooter.models * weapon.A
    hits    = shots each hit(shooter.BS)
    wounds  = hits each wound(weapon.S, target.T)
    unsaved = wounds each not save(target.Sv)
    killed  = unsaved removes target, damage weapon.D

  # Notes: an assumption (pinned by the example that fixes it), an open
  # question (`warscribe check` lists it), or a designer's note.
  assumption wound_chart_gaps "Strength between the rows":
    """A Strength the chart does not list wounds on 5+."""
    pinned by wound_chart

  designer note why_rending "Why rending ignores armour":
    "Heavy blades should threaten even the best-armoured models."
'''

_PROFILES = '''\
# Profiles: units and weapons with their stats, squads, the army and the game.

section forces "The forces":
  unit trooper "Trooper":
    BS 3  S 3  T 3  W 1  Sv 5+
    keywords infantry
    weapons rifle
    points 10

  unit veteran "Veteran":
    BS 4  S 3  T 3  W 2  Sv 4+
    keywords infantry
    abilities rending
    weapons rifle
    points 18

  weapon rifle "Rifle":
    A 1  S 3  D 1

  # A squad: which models, how many, and what they cost.
  squad troopers "Trooper squad":
    models trooper 5..10
    points 50 + 10 per extra model

  # Army construction: a points limit and requirements.
  army standard "Choosing an army":
    points 500
    require squads >= 1: "At least one squad."

  # The structure of a game, for the rulebook.
  game battle "The battle":
    turns 5
    activation alternating_units
    phase movement "Movement phase": "Each unit may move up to 6 inches."
    phase shooting_phase "Shooting phase": "Each unit may shoot at one target."
    victory last_standing "Last squad standing": "The last side with models on the table wins."
'''

_EXAMPLES = '''\
# Examples pin the rules down; `warscribe test` (and `pytest rules/`) runs them.

section worked_examples "Worked examples":
  example wound_chart "Reading the wound chart":
    expect to_wound(3, 3) = 4+
    expect to_wound(6, 3) = 2+
    expect to_wound(3, 7) = 6+

  example hit_odds "The chance to hit":
    let covered = hit(3) with in_cover  # `with` sets a situation
    expect P(hit(3)) = 1/2
    expect P(covered) = 1/3

  example volley "Five troopers shoot at five troopers":
    let r = shooting(5 trooper, rifle, 5 trooper)
    expect mean(r.hits) = 5/2
    expect mean(r.killed) = 5/6
    expect P(r.killed >= 1) ~ 0.6 ± 0.01

  # A property is checked for every combination of its ranges.
  property more_strength "More Strength never makes wounding harder":
    for S in 1..9, T in 1..10
    expect P(wound(S + 1, T)) >= P(wound(S, T))
'''


def default_title(name: str) -> str:
    """``my-skirmish`` → ``My Skirmish``."""
    return " ".join(part.capitalize() for part in name.split("-"))


def quote_title(title: str) -> str:
    r"""A title as the inside of a one-line string: on one line (newlines, tabs and control characters
    become spaces, so neither the string nor the comment naming it can break), with backslashes and
    double quotes escaped, so three quotes cannot open prose.

    >>> print(quote_title('Say "hi"\n  back\\slash'))
    Say \"hi\" back\\slash
    """
    one_line = " ".join("".join(c if c.isprintable() else " " for c in title).split())
    return one_line.replace("\\", "\\\\").replace('"', '\\"')


def scaffold_files(name: str, title: str, today: str | None = None) -> dict[str, str]:
    """The files of a new ruleset, by name."""
    one_line = " ".join("".join(c if c.isprintable() else " " for c in title).split())
    values = {"name": name, "title": quote_title(title), "comment": one_line,
              "today": today or date.today().isoformat()}
    return {
        "ruleset.rules": _RULESET.format(**values),
        "lexicon.rules": _LEXICON,
        "rules.rules": _RULES,
        "profiles.rules": _PROFILES,
        "examples.rules": _EXAMPLES,
    }


def target_folder(name: str, folder: str | None, cwd: Path | None = None) -> Path:
    """Where ``warscribe new NAME`` puts the ruleset (see the module docstring)."""
    if folder is not None:
        return Path(folder) / name
    return (cwd or Path(".")) / "rules" / name


def create(name: str, folder: Path, title: str | None = None) -> list[Path]:
    """Write a new ruleset into ``folder`` (which must not exist); return the files written.

    Each file is written atomically; if anything fails, the half-made folder is removed.
    """
    import shutil

    from compiler.atomic import write_atomic

    if not RULESET_ID.fullmatch(name):
        raise ValueError(f"'{name}' is not a ruleset id: use lower-case letters, digits and dashes, "
                         "such as my-skirmish")
    if folder.exists() or folder.is_symlink():
        raise FileExistsError(f"{folder} already exists; warscribe new never overwrites anything")
    folder.mkdir(parents=True)
    written = []
    try:
        for file, text in scaffold_files(name, title or default_title(name)).items():
            write_atomic(folder / file, text)
            written.append(folder / file)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return written
