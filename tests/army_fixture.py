"""A ruleset whose army rules use every kind of requirement the army builder mirrors, and lists for it.

Shared by tests/test_army_data.py (the data, in Python) and tests/test_army_builder_browser.py (the
page's checker in Chromium against ``warscribe army check``).
"""
from __future__ import annotations

import random

# Keyword counts (characters and special points by a keyword's role), arithmetic with exact fractions, comparisons, and/or/not, ranges, if-else,
# a table call worked out at build time, a division by a quantity that can be zero (the command
# then leaves the requirement out), a squad with no points per extra model.
RULES = '''ruleset armytest "Army test":
  version 1.0.0

stat W "Wounds" 1..10 role wounds
keyword infantry "Infantry": "On foot."
keyword heavy "Heavy" role special: "Big guns."
keyword elite "Elite" role characters: "The best."

formula cap_for(size: 1..5000) "The cap" = size / 2

section forces "Forces":
  unit trooper "Trooper":
    W 1
    keywords infantry
    points 10
  unit tank "Tank":
    W 10
    keywords heavy
    points 120
  unit hero "Hero":
    W 3
    keywords infantry, elite
    points 55
  unit scout "Scout":
    W 1
  squad troop_squad "Troop squad":
    models trooper 5..10
    points 50 + 10 per extra model
    keywords infantry
  squad veteran_squad "Veteran squad":
    models hero 3..5
    points 150 + 45 per extra model
    keywords elite
  squad loose_band "Loose band":
    models scout 1..3
    points 30

section building "Building an army":
  army main "The main army":
    points 500 or 1000
    require points <= limit: "Too many points."
    require infantry >= 1 and not (heavy > 2): "Infantry needed, and at most two heavy units."
    require elite * 3 <= units or points < 200: "At most a third of the units elite, unless the army is small."
    require models in 5..60: "Between 5 and 60 models."
    require (if heavy > 0 then infantry >= heavy else true): "Each heavy unit needs an infantry unit."
    require points - heavy * 120 >= cap_for(limit) / 4: "A quarter of the half-game in other units."
    require points / units >= 20: "Units average at least 20 points."
    require -squads > -7: "At most six units."
    require detachments in 1..2 and warlords <= 1: "One or two detachments, led by one warlord at most."
    require reserve_points * 2 <= points and reserve_warlords == 0: "Half the points in reserve, the warlord on the table."
  army skirmish "A skirmish":
    require points <= 300: "A skirmish is small."
    require max(points, 100) == points or squads == 0: "A list that is not empty costs at least 100."
    require units != 3: "Never three units."
    require characters <= 2 or warlords == 1: "At most two characters, unless one leads."
    require special_points <= 150: "At most 150 points of special units."
'''

ENTRIES = ("trooper", "tank", "hero", "scout", "troop_squad", "veteran_squad", "loose_band")
SIZES = {"troop_squad": (5, 10), "veteran_squad": (3, 5), "loose_band": (1, 3)}


def random_lists(seed: int, ids: list[str], sizes: dict[str, tuple[int, int]], count: int,
                 most_units: int = 6, marks: bool = True,
                 weapons: list[str] | None = None) -> list[list[tuple[int, str, str]]]:
    """``count`` lists of (models, id, marks): mostly within each squad's size range, sometimes out of
    it; with ``marks``, mostly one warlord a list (sometimes none or two), a unit in four in reserve and
    some in a second or third detachment (``marks`` is what the list line writes after the unit, in the
    order the page writes them: `` as warlord in reserve in detachment 2``, or ""); with ``weapons``, a
    unit in three is listed ``with`` one to three of them (for the ``require each unit:`` lines)."""
    rng = random.Random(seed)
    out: list[list[tuple[int, str, str]]] = [[]]
    while len(out) < count:
        units = []
        size = rng.randint(1, most_units)
        lead = set(rng.sample(range(size), min(size, rng.choice([0, 1, 1, 1, 2])))) if marks else set()
        for i in range(size):
            name = rng.choice(ids)
            low, high = sizes.get(name, (1, 12))
            n = rng.randint(low, high) if rng.random() < 0.8 else rng.choice([max(1, low - 1), high + 1])
            mark = (" as warlord" if i in lead else "") + (" in reserve" if marks and rng.random() < 0.25 else "") \
                + (f" in detachment {rng.choice([2, 3])}" if marks and rng.random() < 0.3 else "")
            if weapons and rng.random() < 0.35:
                mark = " with " + ", ".join(rng.sample(weapons, rng.randint(1, min(3, len(weapons))))) + mark
            units.append((n, name, mark))
        out.append(units)
    return out


# Rules on each unit (`require each unit:`) over every kind of quantity a unit has: models, points (a
# squad's by its cost law), weapons listed or its own, melee and ranged weapons, a weapon's id, an
# ability of its weapons, a keyword (on the squad or its profile), a stat (and one given as `-`, which
# the unit neither meets nor breaks), a table call worked out at build time; one the page cannot mirror
# (a yes/no used as a number) is left to the command.
EACH_RULES = '''ruleset eachtest "Each test":
  version 1.0.0

stat A "Attacks" 0..10: "a"
stat Range "Range" distance: "r"
keyword infantry "Infantry": "On foot."
keyword elite "Elite": "The best."
ability extra "Extra": "A bonus blade."
ability basic "Basic": "Bare hands."
formula half(n: 0..100) "Half" = n / 2

section forces "Forces":
  unit trooper "Trooper":
    A 1  Range -
    keywords infantry
    points 10
    weapons rifle, fists
  unit drone "Drone":
    A -  Range -
    points 15
    weapons laser
  unit hero "Hero":
    A 3  Range -
    points 40
  squad guard "Guard":
    models trooper 3..6
    points 40 + 12 per extra model
    keywords elite
    weapons rifle, rifle, fists
  weapon rifle "Rifle":
    Range 24"
  weapon laser "Laser":
    Range 36"
  weapon fists "Fists":
    Range -
    abilities basic
  weapon blade "Blade":
    Range -
    abilities extra
  weapon sword "Sword":
    Range -

section building "Building an army":
  army each "Each unit":
    require points <= 2000: "At most 2000 points."
    require each unit: models <= 8: "At most eight models a unit."
    require each unit: A == 0 or (basic >= 1) != (melee_weapons - extra - basic >= 1): "Fists or a blade."
    require each unit: laser + rifle <= 1 or ranged_weapons * 2 <= weapons + 1: "Few guns."
    require each unit: points <= models * half(20) + 30 or elite == 1: "Not too dear a model."
    require each unit: (infantry == 1 and A >= 1) or (infantry == 0 and weapons <= 2): "Infantry fight."
    require each unit: (models > 4) + 1 <= 2: "A yes/no as a number."
'''

EACH_ENTRIES = ("trooper", "drone", "hero", "guard")
EACH_WEAPONS = ["rifle", "laser", "fists", "blade", "sword"]
