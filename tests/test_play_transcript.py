"""`warscribe play` for people: a transcript of every bundled scenario read as a reader would,
and the grammar that writes it, table-tested."""
from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import app
from compiler.words import a_or_an, agree, is_plural, plural

ROOT = Path(__file__).resolve().parent.parent


def scenarios() -> list[tuple[str, str, tuple[str, ...]]]:
    from compiler import ast as A
    from compiler.driver import compile_paths

    out = []
    for rs in compile_paths([str(ROOT / "rules")]).rulesets:
        for sc in rs.of_type(A.Scenario):
            if (ROOT / "rules" / rs.id).is_dir():
                out.append((rs.id, sc.id, tuple(s.title for s in sc.sides)))
    return out


SCENARIOS = scenarios()


def play(*args: str) -> str:
    import os

    before = os.getcwd()
    os.chdir(ROOT)
    try:
        r = CliRunner().invoke(app, ["play", *args], env={"NO_COLOR": "1", "FORCE_COLOR": None, "COLUMNS": "400"})
    finally:
        os.chdir(before)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    assert r.exit_code == 0, r.output
    return r.stdout


def test_every_bundled_ruleset_has_a_scenario_here() -> None:
    assert {rs for rs, _, _ in SCENARIOS} >= {"console-40k", "classic-40k", "gemini-arap", "nuceria-rts", "40k-s"}


@pytest.mark.parametrize("ruleset, scenario, sides", SCENARIOS, ids=[f"{r}/{s}" for r, s, _ in SCENARIOS])
def test_a_transcript_reads_as_words(ruleset: str, scenario: str, sides: tuple[str, ...], tmp_path: Path) -> None:
    log = tmp_path / "battle.log"
    text = play(f"rules/{ruleset}", scenario, "--auto", "--seed", "1", "--log", str(log))
    lines = [line for line in text.splitlines() if line.strip()]
    # no raw Python data: lists, floats with a trailing .0, dict reprs
    assert not re.search(r"\[\s*[\d'\"]|\d\.0\b(?!\d)|\{'", text), text
    # grammar: no "(s)", no "a" before a vowel sound, no "1 models"
    assert "(s)" not in text
    assert not re.search(r"\b1 (models|units|actions|dice)\b", text)
    assert not re.search(r"\ba (Ork|[AEIO]\w)", text)
    first = next(line for line in lines if " first; " in line)
    assert first.startswith(agree(next(s for s in sides if first.startswith(s)), "goes", "go") + " first")
    # each side's units told apart: every volley names its shooter and its target with their sides
    titles = tuple(f"{s}: " for s in sides)
    volleys = [n for n, line in enumerate(lines) if " → " in line and not line.startswith("    ")]
    assert volleys, text
    for n in volleys:
        line = lines[n]
        shooter, target = line.split(" → ", 1)
        assert shooter.startswith(titles) and target.startswith(titles), line
        assert re.search(r"\(\d+ models?\)", shooter), line  # how many models fire: labelled
        assert re.search(r"\([^()]+, rules/[\w/.-]+\.rules:\d+\)", line), line  # the rule, with its file and line
        # its dice, a step a line: the number of dice, then each test's faces (or its counts, and
        # why the faces are not shown) with the rule, then the models removed
        block = list(itertools.takewhile(lambda x: x.startswith("    "), lines[n + 1:]))
        if block[0].startswith("    (dice not shown: "):  # steps that depend on each other: counts alone
            assert len(block) == 2 and re.fullmatch(r"    \(dice not shown: [^()]+\)", block[0]), block
            assert re.fullmatch(r"    \d+ models? removed \(on average \d+\.\d\d\); \d+ models? left\.", block[1]), block
            continue
        assert re.fullmatch(r"    \w+: \d+", block[0]), block
        steps = block[1:-1]
        assert steps, block
        for step in steps:
            assert re.fullmatch(r"    \w+: ((\d( \d)*|no dice) → \d+|\d+ of \d+ \(faces not shown: [^()]+\))"
                                r" \(.+, rules/[\w/.-]+\.rules:\d+\)", step), step
            faces = re.match(r"    \w+: (\d( \d)*) → (\d+)", step)
            if faces:
                assert int(faces.group(3)) <= len(faces.group(1).split()), step
        assert re.fullmatch(r"    \d+ models? removed \(on average \d+\.\d\d\); \d+ models? left\.", block[-1]), block
    assert re.search(r"^    \w+: \d( \d)* → \d+ ", text, re.M), text  # faces shown somewhere in every battle
    # the end in words: who won and why, then each side's models by name
    last = lines[-1]
    counts = ", ".join(rf"{re.escape(s)} \d+" for s in sides)
    assert re.search(rf"models left: {counts}\.$", last), last
    assert re.match(r"(A draw|.+ wins?) ", last), last
    # the header names each side and its units with their models
    assert lines[0].endswith("(seed 1)")
    for s, line in zip(sides, lines[1:1 + len(sides)]):
        assert line.strip().startswith(f"{s}: ") and re.search(r"\(\d+ models?\)", line)
    # the replay prints the same battle, header included, finding the rules from the log
    assert play("--replay", str(log)) == text
    if (ruleset, scenario) == ("console-40k", "sample_battle"):  # the excerpts the docs show are this battle's
        for doc in ("README.md", "site/language.md"):
            blocks = re.findall(r"```text\n(.*?)```", (ROOT / doc).read_text(encoding="utf-8"), re.S)
            excerpts = [b for b in blocks if "\n    hits: " in b]
            assert excerpts and all(b in text + "\n" for b in excerpts), doc
    # every kind of event the battle had is told to the reader
    assert not unprinted(ruleset, sides, log), f"events never printed: {unprinted(ruleset, sides, log)}"


def unprinted(ruleset: str, sides: tuple[str, ...], log: Path) -> set[str]:
    """The kinds of event of a logged battle that the narrator never puts in words."""
    import json

    from compiler.cli.narrate import Narrator
    from compiler.driver import compile_paths

    model = compile_paths([str(ROOT / "rules" / ruleset)]).rulesets[0]
    narrator = Narrator(model, sides)
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()[1:-1]]
    kinds = {row["event"] for row in rows}
    return kinds - {row["event"] for row in rows if narrator.line(row) is not None}


#: One event of each kind the engine emits, as it logs it.
EVENTS: dict[str, dict[str, object]] = {
    "start": {"first": "orks", "first_title": "Orks", "distance": 24},
    "turn": {"title": "Orks"},
    "move": {"unit": "Orks: Ork Boy", "inches": 6, "distance": 18.0},
    "action": {"unit": "Orks: Ork Boy", "action": "advance", "title": "Advance"},
    "volley": {"rule": "shooting", "unit": "Space Marines: Space Marine", "models": 5, "target": "Orks: Ork Boy",
               "weapon": "boltgun", "removed": 1, "mean": 1.39, "left": 9},
    "test": {"rule": "morale", "unit": "Orks: Ork Boy", "chance": 0.58, "passed": False},
    "activation": {"rule": "activation", "unit": "Orks: Ork Boy", "dice": 3, "successes": 2, "bust": False,
                   "chance": 0.5},
    "engage": {"unit": "Orks: Ork Boy", "target": "Space Marines: Space Marine", "status": "locked"},
    "left_melee": {"unit": "Orks: Ork Boy"},
    "rest": {"unit": "Orks: Ork Boy", "weapon": "boltgun", "turns": 2, "rule": "shooting"},
    "disengage": {"unit": "Orks: Ork Boy", "foes": ["Space Marines: Space Marine"]},
    "charge_roll": {"unit": "Orks: Ork Boy", "target": "Space Marines: Space Marine", "rolled": 7, "distance": 9.0},
    "out_of_reach": {"unit": "Orks: Ork Boy", "reach": 24.0},
    "out_of_sight": {"unit": "Orks: Ork Boy"},
    "no_target": {"unit": "Orks: Ork Boy"},
    "status": {"unit": "Orks: Ork Boy", "status": "charging", "until": "turn"},
    "destroyed": {"unit": "Orks: Ork Boy", "models": 0},
    "activated": {"unit": "Orks: Ork Boy", "title": "Orks"},
    "order": {"unit": "Orks: Ork Boy", "order": "first_fire", "title": "First fire"},
    "reaction": {"unit": "Orks: Ork Boy", "reaction": "charged", "cause": "Space Marines: Space Marine"},
    "spent": {"unit": "Orks: Ork Boy", "reaction": "charged"},
    "initiative": {"first": "orks", "first_title": "Orks", "tie": True, "ties": "keep"},
    "removed": {"unit": "Orks: Ork Boy", "removed": 2, "left": 8},
    "counter": {"unit": "Orks: Ork Boy", "counter": "pins", "value": 2, "change": 1, "why": "shot"},
    "control": {"holders": {"centre": "orks", "north": None}},
    "score": {"score": "kills", "to": "orks", "points": 5.0, "why": "Space Marines: Space Marine", "total": 15.0},
    "end": {"winner": "orks", "winner_title": "Orks", "reason": "annihilation", "survivors": [0, 9],
            "scores": [0.0, 15.0]},
}


def test_every_kind_of_event_the_engine_emits_is_put_in_words() -> None:
    from compiler.cli.narrate import Narrator
    from compiler.driver import compile_paths

    emitted = set()
    for source in (ROOT / "compiler" / "battle").glob("*.py"):
        emitted |= set(re.findall(r"""\bemit\(\s*["'](\w+)["']""", source.read_text(encoding="utf-8")))
    assert emitted and emitted <= set(EVENTS), f"events without a sample here: {emitted - set(EVENTS)}"
    model = compile_paths([str(ROOT / "rules" / "console-40k")]).rulesets[0]
    narrator = Narrator(model, ["Space Marines", "Orks"], side_ids=["space_marines", "orks"])
    said = {}
    for kind, fields in EVENTS.items():
        text = narrator.line({"event": kind, "turn": 1, "side": "orks", "phase": "", **fields})
        assert text is not None, kind
        said[kind] = re.sub(r"\[/?[a-z][^\]]*\]", "", text)
    assert said["reaction"] == "Orks: Ork Boy reacts: charged by Space Marines: Space Marine."
    assert said["control"] == "Objectives: centre held by Orks; north held by no one."
    assert said["score"] == "Orks score 5 points for Space Marines: Space Marine (kills); 15 in all."
    assert said["initiative"] == "Initiative: Orks go first (a tie: the order is kept)."
    assert said["counter"] == "Orks: Ork Boy: pins rises by 1 to 2 (shot)."
    assert said["disengage"] == "Orks: Ork Boy breaks off from Space Marines: Space Marine."
    assert said["charge_roll"] == ("Orks: Ork Boy charges Space Marines: Space Marine, 9\" away, and rolls 7\": "
                                   "short, it moves that far and stops.")
    assert narrator.line({"event": "control", "holders": {"centre": "orks", "north": None}}) is None  # no news


def test_rules_link_to_the_built_site_with_site() -> None:
    text = play("rules/console-40k", "--auto", "--seed", "1", "--site", "https://rules.example.org/")
    assert "(Shooting, https://rules.example.org/console-40k/rulebook/" in text
    assert re.search(r"https://rules\.example\.org/console-40k/rulebook/[\w-]+/#shooting\)", text)
    assert re.search(r"\n    hits: [\d ]+ → \d+ \(Roll to hit, https://rules\.example\.org/console-40k/rulebook/[\w-]+/#hit\)",
                     text)  # the dice's rules too


def test_side_labels_and_dice_steps_are_shown_when_an_event_carries_them() -> None:
    from compiler.cli.narrate import Narrator
    from compiler.driver import compile_paths

    model = compile_paths([str(ROOT / "rules" / "console-40k")]).rulesets[0]
    narrator = Narrator(model, ["Space Marines", "Orks"])
    line = narrator.line({"event": "volley", "rule": "shooting", "unit": "Space Marines: Space Marine", "models": 5,
                          "target": "Orks: Ork Boy", "weapon": "boltgun", "removed": 1, "mean": 1.3888, "left": 9,
                          "dice": [{"step": "hits", "faces": [6, 5, 3, 3, 1], "passed": 2},
                                   {"step": "wounds", "faces": [4, 2], "passed": 1}]})
    assert line is not None
    plain = re.sub(r"\[/?[a-z][^\]]*\]", "", line)
    assert "hits: 6 5 3 3 1 → 2" in plain and "wounds: 4 2 → 1" in plain
    counts = narrator.line({**EVENTS["volley"], "event": "volley",
                            "dice": [{"step": "shots", "passed": 5},
                                     {"step": "hits", "rule": "hit", "rolled": 5, "passed": 3, "note": "the test re-rolls"}]})
    assert counts is not None
    assert re.search(r"\n    shots: 5\n    hits: 3 of 5 \(faces not shown: the test re-rolls\) \(Roll to hit, rules/console-40k/"
                     r"[\w.]+:\d+\)\n", re.sub(r"\[/?[a-z][^\]]*\]", "", counts))
    unshown = narrator.line({**EVENTS["volley"], "event": "volley", "dice_note": "an ability acts on its test 'hit'"})
    assert unshown is not None and "(dice not shown: an ability acts on its test 'hit')" in unshown
    assert "1 model removed (on average 1.39); 9 models left." in plain
    end = narrator.line({"event": "end", "winner": "space_marines", "winner_title": "Space Marines",
                         "reason": "on_points", "survivors": [5, 9], "scores": [70.0, 63.0]})
    assert end is not None
    assert re.sub(r"\[/?[a-z][^\]]*\]", "", end).strip().endswith(
        "score: Space Marines 70, Orks 63; models left: Space Marines 5, Orks 9.")
    assert re.sub(r"\[/?[a-z][^\]]*\]", "", end).strip().startswith("Space Marines win ")


def test_a_title_with_rich_markup_is_printed_as_written() -> None:
    from compiler.cli.narrate import Narrator
    from compiler.driver import compile_paths
    from rich.console import Console

    model = compile_paths([str(ROOT / "rules" / "console-40k")]).rulesets[0]
    narrator = Narrator(model, ["[red]Red force[/red]", "Blues"])
    line = narrator.line({"event": "start", "first": "reds", "first_title": "[red]Red force[/red]", "distance": 24})
    console = Console(record=True, no_color=True, width=200)
    console.print(line)
    assert console.export_text().startswith("[red]Red force[/red] goes first")  # as written, not read as markup


@pytest.mark.parametrize("subject, expected", [
    ("Orks", "Orks go"), ("Space Marines", "Space Marines go"), ("Red force", "Red force goes"),
    ("The Bastion", "The Bastion goes"), ("Ork Boyz", "Ork Boyz go"), ("Line troopers", "Line troopers go"),
    ("Chaos", "Chaos goes"), ("Imperial Guard", "Imperial Guard goes"), ("The Corpus", "The Corpus goes"),
])
def test_verb_agreement(subject: str, expected: str) -> None:
    assert agree(subject, "goes", "go") == expected


@pytest.mark.parametrize("phrase, expected", [
    ("Ork Boyz squad", "an Ork Boyz squad"), ("unit", "a unit"), ("hour", "an hour"), ("test", "a test"),
    ("Eldar", "an Eldar"), ("one-off", "a one-off"),
])
def test_articles(phrase: str, expected: str) -> None:
    assert a_or_an(phrase) == expected


@pytest.mark.parametrize("n, noun, many, expected", [
    (0, "model", None, "0 models"), (1, "model", None, "1 model"), (2, "action", None, "2 actions"),
    (1, "activation die", "activation dice", "1 activation die"),
    (3, "activation die", "activation dice", "3 activation dice"), (1, "unit", None, "1 unit"),
])
def test_plurals(n: int, noun: str, many: str | None, expected: str) -> None:
    assert plural(n, noun, many) == expected


def test_the_sites_battle_report_counts_in_words() -> None:
    from compiler.site.battles import _line

    said = _line({"event": "activation", "unit": "Red force: Trooper", "dice": 1, "successes": 1, "bust": False,
                  "rule": "activation"}, {})
    assert said is not None and said[0] == "Red force: Trooper rolls 1 activation die and scores 1 action."
    said = _line({"event": "volley", "unit": "Orks: Ork Boyz", "models": 1, "target": "Space Marines: Scout",
                  "weapon": None, "removed": 1, "mean": 0.5, "left": 4, "rule": "shooting"}, {})
    assert said is not None and said[0] == "Orks: Ork Boyz (1 model) strike Space Marines: Scout: 1 removed (expected 0.50), 4 left."
    said = _line({"event": "reaction", "unit": "Orks: Ork Boyz", "reaction": "charged", "cause": "Space Marines: Scout"}, {})
    assert said is not None and said[0] == "Orks: Ork Boyz reacts to Space Marines: Scout (charged)."
