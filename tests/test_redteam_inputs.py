"""Red team: files and options from outside — a battle log sent by someone else, a project's
settings — refused with one sentence that names them, and nothing written that warscribe
itself would then refuse to read.

* ``play --seed -5 --log game.log`` wrote a log whose seed its own ``--replay`` refuses (a log
  holds a seed from 0 to 2**64 - 1): the game was lost.  The seed is now refused first.
* A log holding a number of 5,000 digits was refused with Python's own advice
  ("use sys.set_int_max_str_digits()").
* ``games = 10**23`` in warscribe.toml was blamed on an option the user never gave
  ("Invalid value for '--games'").
* A BattleScribe entry named with 20,000 letters stopped ``import battlescribe`` with a traceback
  (the ruleset made from it has a line over the limit); ``export --battlescribe`` of a title
  holding an escape sequence stopped with lxml's ValueError (XML cannot hold it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.limits import MAX_GAMES
from conftest import ROOT, warscribe
from test_terminal_text import RULES


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs") / "term"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(RULES, encoding="utf-8")
    return folder


@pytest.mark.parametrize("seed", ["-5", str(2**64)])
def test_a_seed_no_log_can_hold_is_refused_before_the_log_is_written(rules: Path, tmp_path: Path, seed: str) -> None:
    log = tmp_path / "game.log"
    ran = warscribe("play", str(rules), "--auto", "--seed", seed, "--log", str(log))
    assert ran.returncode == 2 and "Invalid value for '--seed'" in ran.stderr, ran
    assert not log.exists()


def test_the_largest_seed_is_played_logged_and_replayed(rules: Path, tmp_path: Path) -> None:
    log = tmp_path / "game.log"
    seed = 2**64 - 1
    played = warscribe("play", str(rules), "--auto", "--seed", str(seed), "--log", str(log), "--json")
    assert played.returncode == 0, played
    assert json.loads(log.read_text(encoding="utf-8").splitlines()[0])["seed"] == seed
    replayed = warscribe("play", "--replay", str(log), "--json")
    assert replayed.returncode == 0, replayed
    assert replayed.stdout == played.stdout  # the same game, event for event


def test_a_log_with_a_number_python_will_not_read_is_one_sentence(rules: Path, tmp_path: Path) -> None:
    log = tmp_path / "huge.log"
    head = {"format": "warscribe-battle-log", "path": str(rules), "ruleset": "term", "scenario": "clash",
            "seed": 1, "version": 2}
    log.write_text(json.dumps(head).replace('"seed": 1', '"seed": ' + "9" * 5000) + "\n", encoding="utf-8")
    ran = warscribe("play", "--replay", str(log))
    assert ran.returncode != 0
    assert ran.stderr.strip() == (f"warscribe: error: cannot replay {log}: line 1 holds a number of more than "
                                  "4,300 digits, which no battle log has"), ran.stderr


def test_too_many_games_in_the_settings_file_is_said_of_the_file(rules: Path, tmp_path: Path) -> None:
    (tmp_path / "warscribe.toml").write_text(f"games = {MAX_GAMES + 1}\n", encoding="utf-8")
    ran = warscribe("simulate", str(rules), cwd=tmp_path)
    assert ran.returncode == 2, ran
    assert f"warscribe.toml: 'games' should be from 1 to {MAX_GAMES:,}, not {MAX_GAMES + 1}" in ran.stderr, ran.stderr
    assert "--games" not in ran.stderr


def test_a_battlescribe_name_too_long_for_a_ruleset_is_one_sentence_and_nothing_is_written(tmp_path: Path) -> None:
    fixtures = ROOT / "tests" / "fixtures" / "battlescribe"
    catalogue = tmp_path / "long.cat"
    text = (fixtures / "marines.cat").read_text(encoding="utf-8")
    catalogue.write_text(text.replace('name="Tactical Squad"', 'name="' + "T" * 20_000 + '"', 1), encoding="utf-8")
    out = tmp_path / "out" / "skirmish"
    ran = warscribe("import", "battlescribe", str(fixtures / "skirmish.gst"), str(catalogue), "--out", str(out))
    assert ran.returncode == 2, ran
    assert ran.stderr.startswith("warscribe: error: the ruleset made from this data cannot be written: profiles.rules:")
    assert "characters long; the limit is 10,000; the data has a name or a text too long" in ran.stderr, ran.stderr
    assert not out.exists()


def test_export_to_battlescribe_of_a_title_xml_cannot_hold_is_one_sentence(rules: Path, tmp_path: Path) -> None:
    out = tmp_path / "bs"
    ran = warscribe("export", str(rules), "--battlescribe", str(out))
    assert ran.returncode == 2, ran
    assert ran.stderr.startswith("warscribe: error: 'Term \\u001b]0;pwned\\u0007 title' holds the control character "
                                 "U+001B, which BattleScribe data (XML) cannot hold"), ran.stderr
    assert "\x1b" not in ran.stderr and not out.exists()
