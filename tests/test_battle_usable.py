"""Which attacks the battle engine plays with which weapons: a weapon whose profile lacks what an
attack reads is skipped, an attack the probe could not answer for want of the battle's situation
is played (its exact law), one the rules leave unanswered is an error naming the attack where it
is written, and one whose test reads a step's total is refused by ``check`` where it is read."""
from __future__ import annotations

import pickle
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from battle_duels import OGRES
from conftest import warscribe
from compiler.battle import Rules, Unit
from compiler.battle.joint import CountError
from compiler.diagnostics import Span
from compiler.driver import compile_text
from compiler.model.ruleset import Ruleset
from compiler.resolve import ResolveError
from compiler.resolve.core import ProfileLacks

#: the duel, its hit roll read from the distance (``24 / distance``: 2+ at 12", no answer at 0")
BY_DISTANCE = OGRES.replace("test hit(BS) = roll d6 >= BS",
                            'test hit(BS) = roll d6 >= BS\nsituation distance "Distance" 0..48\nstat S "Strength" 1..10') \
    .replace("hits = shots each hit(shooter.BS)", "hits = shots each hit(24 / distance)") \
    .replace("weapon pistol", 'weapon fist "Fist":\n  S 3\nweapon stub "Stub gun":\n  A -\nweapon pistol') \
    .replace("weapons pistol", "weapons pistol, fist, stub")


def compiled(text: str) -> Ruleset:
    result = compile_text(text, "duel.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


@pytest.fixture(scope="module")
def rules() -> Rules:
    return Rules(compiled(BY_DISTANCE), exact=True)


def unit(profile: str, models: int, weapons: tuple[str, ...] = ()) -> Unit:
    return Unit(0, 0, "", profile, weapons, models, 1, 0, 0.0)


def test_an_attack_the_probe_cannot_answer_is_played_with_its_exact_law(rules: Rules) -> None:
    attack = rules.model.get("shooting")
    gunners, ogres = unit("gunner", 6, ("pistol", "fist", "stub")), unit("ogre", 2, ("cleaver",))
    assert rules.usable(attack, gunners, "pistol", ogres)  # the probe (distance unset: 24 / 0) is not the battle
    law = rules.volley(attack, gunners, "pistol", ogres, (("distance", 12),))
    p = Fraction(5, 6) * Fraction(4, 6)  # a 2+ to hit at 12", then the ogre's 5+ save failed
    expected: dict[tuple[int, int], Fraction] = {}
    for n in range(7):  # n unsaved wounds of six shots on two ogres of three wounds
        key = (2, 0) if n >= 6 else (n // 3, n % 3)
        expected[key] = expected.get(key, Fraction(0)) + comb(6, n) * p ** n * (1 - p) ** (6 - n)
    assert dict(law.outcomes()) == {k: v for k, v in expected.items() if v}


def test_a_weapon_lacking_what_the_attack_reads_is_skipped(rules: Rules) -> None:
    attack = rules.model.get("shooting")
    gunners, ogres = unit("gunner", 6, ("pistol", "fist", "stub")), unit("ogre", 2, ("cleaver",))
    assert not rules.usable(attack, gunners, "fist", ogres)  # no A at all
    assert not rules.usable(attack, gunners, "stub", ogres)  # A written '-': no number of shots
    assert not rules.usable(attack, unit("gunner", 6), None, ogres)  # no weapon to shoot with


@pytest.mark.parametrize("counted", [None, "unsaved"])  # a volley, or one drawn with a count a counter reads
def test_what_the_rules_leave_unanswered_in_battle_names_the_attack(rules: Rules, counted: str | None) -> None:
    attack = rules.model.get("shooting")
    gunners, ogres = unit("gunner", 6, ("pistol",)), unit("ogre", 2, ("cleaver",))
    with pytest.raises(ResolveError) as raised:
        if counted is None:
            rules.volley(attack, gunners, "pistol", ogres, (("distance", 0),))
        else:
            rules.volley_counting(attack, gunners, "pistol", ogres, (("distance", 0),), counted)
    err = raised.value
    assert err.message.startswith("attack 'shooting' with pistol at ogre: ")
    line = BY_DISTANCE.splitlines().index("  hits = shots each hit(24 / distance)") + 1
    assert err.span is not None and (err.span.file, err.span.line) == ("duel.rules", line)


@pytest.mark.parametrize("step, read, col", [
    ("unsaved = hits each hit(hits + 2)", "hits", 27),
    ("unsaved = hits each not save(shots)", "shots", 32),
])
def test_a_test_rolled_per_attack_reading_a_step_total_is_refused(step: str, read: str, col: int) -> None:
    text = OGRES.replace("unsaved = hits each not save(target.Sv)", step)
    found = [(d.code, d.span.line, d.span.column) for d in compile_text(text, "duel.rules").diagnostics
             if d.severity == "error"]
    line = text.splitlines().index(f"  {step}") + 1
    assert found == [("W101", line, col)]
    assert step.index(read, step.index("(")) + 3 == col  # the total, where it is read


@pytest.mark.parametrize("step", [
    "unsaved = 3 each hit(hits)",  # a fixed number of fresh rolls over the total
    "unsaved = hits each becomes min(shots, 2)",  # what each attack becomes: worked out over totals
])
def test_a_step_over_totals_still_reads_them(step: str) -> None:
    compiled(OGRES.replace("unsaved = hits each not save(target.Sv)", step))


#: the duel fought at 0": the shots' ``24 / distance`` has no answer in the battle itself
AT_ZERO = BY_DISTANCE.replace('distance 12"', 'distance 0"')


@pytest.mark.parametrize("args", [
    ("simulate", "{path}", "--games", "2"),
    ("test", "--coverage", "{path}"),
    ("render", "{path}", "-o", "{out}"),
])
def test_an_unanswered_battle_is_one_located_sentence(write_ruleset, tmp_path: Path, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    path = write_ruleset({"duel.rules": AT_ZERO})
    r = warscribe(*(a.format(path=path, out=tmp_path / "site") for a in args))
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    line = AT_ZERO.splitlines().index("  hits = shots each hit(24 / distance)") + 1
    assert f"duel.rules:{line}:25: " in r.stderr and "attack 'shooting' with " in r.stderr and "division by zero" in r.stderr


def test_a_resolver_error_keeps_its_place_across_processes() -> None:
    span = Span("duel.rules", 13, 25, 13, 38)
    for err in (ResolveError("division by zero", span, "a hint"), ProfileLacks("Fist has no A", span),
                CountError("its steps count from different dice", span)):
        back = pickle.loads(pickle.dumps(err))
        assert (type(back), back.message, back.span, back.hint, str(back)) == \
            (type(err), err.message, err.span, err.hint, str(err))
