"""One attack's tokens through its steps: the paths of :mod:`compiler.resolve.tokens` that the
hook tests did not reach, each against an enumeration of every die written here.

A custom die as damage, two hooks that each add ``+1 D``, a hook that fires only on a roll that
passes, a valued ability whose hook also re-rolls, a token on its way to a later step at an
amount step, the 64-token limit of ``each becomes``, a test whose roll has a cut-off part; and
the same answers while what is used is recorded (``warscribe test --coverage``), which takes
the general way everywhere.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import pytest

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression
from compiler.trace import recording
from test_hook_effects import BASE, ask, enumerate_attacks

RULES = '''
die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3
test blaze(N: 1..12) = roll explode(d6, 6, 1) >= N

ability sharp "Sharp": "A natural 6 to hit deals one more damage."
  on natural 6 to hit: +1 D
ability rend "Rend": "A natural 6 to wound deals one more damage."
  on natural 6 to wound: +1 D
ability keen(N: 1..2) "Keen": "A natural 5+ to hit wounds N more easily, and re-rolls the wound."
  on natural 5+ to hit: +N to wound, reroll failures to wound
ability skewer "Skewer": "A natural 6 to hit scores one unsaved wound."
  on natural 6 to hit: 1 extra unsaved
ability blast(N: 1..70) "Blast": "Each hit counts N times."

weapon d3_gun "D3 gun":
  A 1  S 4  AP 0  D D3
weapon twin_edge "Twin edge":
  A 1  S 4  AP 0  D 1
  abilities sharp, rend
weapon keen_gun "Keen gun":
  A 1  S 3  AP 0  D 1
  abilities keen(1)
weapon blunt "Blunt":
  A 1  S 1  AP 0  D 1
  abilities rend
weapon skewer_gun "Skewer gun":
  A 1  S 4  AP 0  D 1
  abilities skewer, sharp
weapon blast64 "Blast 64":
  A 1  S 4  AP 0  D 1
  abilities blast(64)
weapon blast65 "Blast 65":
  A 1  S 4  AP 0  D 1
  abilities blast(65)

unit wall "Wall":
  T 10  W 1  Sv 6+

attack mid(shooter, weapon, target) "Damage counted before the save":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  wounds  = hits each wound(weapon.S, target.T)
  wdmg    = wounds each weapon.D
  unsaved = wounds each not save(target.Sv, weapon.AP)

attack boom(shooter, weapon, target) "Each hit counts N times":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  blasted = hits each becomes weapon.blast

attack flare(shooter, weapon, target) "A roll that may explode past its limit":
  attacks = shooter.models * weapon.A
  hits    = attacks each blaze(8)
'''


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_text(BASE + RULES)
    assert not result.diagnostics, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def d3_damage(atts: tuple[tuple[int, ...], ...]) -> int:
    (h, w, s, d), = atts  # Q4, 4+ to wound, the victim's 3+ save, D3 on a d6 as 1-3 twice
    return (d - 1) % 3 + 1 if h >= 4 and w >= 4 and s < 3 else 0


def twin_edge_damage(atts: tuple[tuple[int, ...], ...]) -> int:
    (h, w, s), = atts  # one more damage for a natural 6 to hit, one more for a natural 6 to wound
    return 1 + (h == 6) + (w == 6) if h >= 4 and w >= 4 and s < 3 else 0


def keen_wounds(atts: tuple[tuple[int, ...], ...]) -> int:
    (h, w1, w2), = atts  # S3 against T4 wounds on 5+; a natural 5+ to hit: +1, and re-rolled
    if h < 4:
        return 0
    if h >= 5:
        return int(w1 + 1 >= 5 or w2 + 1 >= 5)
    return int(w1 >= 5)


def skewer_wdmg(atts: tuple[tuple[int, ...], ...]) -> int:
    (h, w), = atts  # the extra unsaved wound of a 6 is on its way to ``unsaved``: no damage here
    return 1 + (h == 6) if h >= 4 and w >= 4 else 0


QUESTIONS = [
    ("shoot(1 gunner, d3_gun, 3 victim).damage", 4, d3_damage),
    ("shoot(1 gunner, twin_edge, 3 victim).damage", 3, twin_edge_damage),
    ("shoot(1 gunner, keen_gun, 3 victim).wounds", 3, keen_wounds),
    ("mid(1 gunner, skewer_gun, 3 victim).wdmg", 2, skewer_wdmg),
]


@pytest.mark.parametrize("question, dice, play", QUESTIONS, ids=[q.split("(")[0] + q.split(")")[1] for q, _, _ in QUESTIONS])
def test_each_path_of_a_token_against_an_enumeration(model: Any, question: str, dice: int, play: Any) -> None:
    assert ask(model, question) == enumerate_attacks(1, dice, play)


def test_a_hook_fires_only_on_a_roll_that_passes(model: Any) -> None:
    # S1 against T10 never wounds: a natural 6 to wound fails too, so Rend's hook never fires
    # and does not make the 6 a success.
    assert ask(model, "shoot(2 gunner, blunt, 3 wall).wounds") == {0: 1}


def test_what_is_recorded_is_the_same_answer(model: Any) -> None:
    """While what is used is recorded, every step takes the general way: the same laws, and
    the hooks' abilities among what was used."""
    for question, dice, play in QUESTIONS:
        with recording() as used:
            traced = dict(Evaluator(model).evaluate(parse_expression(question)).probabilities())
        assert traced == enumerate_attacks(1, dice, play), question
        weapon = question.split(", ")[1]
        abilities = {"twin_edge": {"sharp", "rend"}, "keen_gun": {"keen"}, "skewer_gun": {"sharp", "skewer"}}
        assert abilities.get(weapon, set()) <= used, (question, used)


def test_each_becomes_takes_64_tokens_of_one_attack_and_no_more(model: Any) -> None:
    assert ask(model, "boom(1 gunner, blast64, 3 victim).blasted") == {0: Fraction(1, 2), 64: Fraction(1, 2)}
    with pytest.raises(ResolveError, match="more than 64 tokens") as refused:
        Evaluator(model).evaluate(parse_expression("boom(1 gunner, blast65, 3 victim).blasted"))
    assert refused.value.span is not None
    assert (BASE + RULES).splitlines()[refused.value.span.line - 1].strip().startswith("blasted")


def test_a_step_through_a_roll_with_a_cut_off_part(model: Any) -> None:
    # explode(d6, 6, 1) >= 8: a 6 then 2-5 passes; a 6 then a 6 would roll again, past the
    # limit: that part is cut off, and reported so, never counted as a pass or a failure.
    passes, fails = Fraction(4, 36), Fraction(31, 36)
    hits = Evaluator(model).evaluate(parse_expression("flare(2 gunner, d3_gun, 3 victim).hits"))
    assert dict(hits.probabilities()) == {k: comb(2, k) * passes ** k * fails ** (2 - k) for k in range(3)}
    assert hits.truncated == 1 - (passes + fails) ** 2


# -- the work a step does is shared: by the questions of one ruleset, and by matchups ----------

SHARED = '''
situation dark "In the dark"
modifier gloom "Gloom": +1 to wound when dark

weapon plain "Plain":
  A 1  S 4  AP 0  D 1
weapon twin "Twin":
  A 1  S 4  AP 0  D 1
  abilities sustained
ability sustained "Sustained": "A natural 6 to hit scores one more hit."
  on natural 6 to hit: 1 extra hits
'''


@pytest.fixture
def worked(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The tests of the steps looked for (``through``: not in the model's memo nor kept for the
    ruleset) and worked out afresh (``fresh``: not kept for the process either)."""
    from compiler.resolve import tokens
    done: dict[str, list[str]] = {"through": [], "fresh": []}
    through, fresh = tokens._through, tokens._advance_uncached

    def spy_through(ev: Any, bags: Any, test: Any, *rest: Any) -> Any:
        done["through"].append(test.id)
        return through(ev, bags, test, *rest)

    def spy_fresh(ev: Any, bags: Any, test: Any, *rest: Any) -> Any:
        done["fresh"].append(test.id)
        return fresh(ev, bags, test, *rest)
    monkeypatch.setattr(tokens, "_through", spy_through)
    monkeypatch.setattr(tokens, "_advance_uncached", spy_fresh)
    return done


def _shared_model() -> Any:
    result = compile_text(BASE + SHARED)
    assert not result.diagnostics, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def test_a_hooked_step_is_worked_out_once_for_both_backends(worked: dict[str, list[str]]) -> None:
    model = _shared_model()
    Evaluator(model).evaluate(parse_expression("shoot(3 gunner, twin, 3 victim).hits"))
    assert "hit" in worked["fresh"]
    worked["through"].clear()  # the fast backend asks the same per-attack step: the model's memo has it
    Evaluator(model, exact=False).evaluate(parse_expression("shoot(3 gunner, twin, 3 victim).hits"))
    assert "hit" not in worked["through"]


def test_a_step_through_a_closed_test_is_kept_for_the_ruleset(worked: dict[str, list[str]]) -> None:
    model = _shared_model()
    Evaluator(model).evaluate(parse_expression("shoot(2 gunner, plain, 3 victim).unsaved"))
    assert {"hit", "wound", "save"} <= set(worked["through"])
    worked["through"].clear()  # another target of the same toughness: its hit and wound steps are kept
    Evaluator(model).evaluate(parse_expression("shoot(2 gunner, plain, 3 grunt).unsaved"))
    assert worked["through"] == ["save"]


def test_a_step_without_hooks_is_shared_by_matchups_that_pass_as_often(worked: dict[str, list[str]]) -> None:
    # A modifier names the wound test, so it is not closed: its step is kept for the process,
    # keyed by the bags and the chance to pass (T4 either way, +1 in the dark: 3+).
    model = _shared_model()
    Evaluator(model).evaluate(parse_expression("shoot(2 gunner, plain, 3 victim).wounds with dark"))
    worked["through"].clear()
    worked["fresh"].clear()
    Evaluator(model).evaluate(parse_expression("shoot(2 gunner, plain, 3 grunt).wounds with dark"))
    assert "wound" in worked["through"] and "wound" not in worked["fresh"]


def test_counts_and_sums_of_the_bags_are_kept_and_the_same_while_recording(model: Any) -> None:
    from compiler.resolve.dist import Dist
    from compiler.resolve.tokens import per_attack_sum, sizes
    ev = Evaluator(model)
    bags = Dist.from_weights({((frozenset(), 2),): 1, (): 1, ((frozenset({("joins", "wounds")}), 1),): 2})
    counts = sizes(ev, bags)
    assert dict(counts.probabilities()) == {2: Fraction(1, 4), 0: Fraction(3, 4)}  # a token on its way: none here
    assert sizes(ev, bags) is counts  # kept on the bags
    d3 = Dist.from_weights({1: 1, 2: 1, 3: 1})
    total = per_attack_sum(ev, counts, d3, None)
    assert dict(total.probabilities()) == {0: Fraction(3, 4), **{k: Fraction(1, 4) * Fraction(n, 9) for k, n in
                                                                 ((2, 1), (3, 2), (4, 3), (5, 2), (6, 1))}}
    assert per_attack_sum(ev, counts, Dist.from_weights({1: 1, 2: 1, 3: 1}), None) is total  # kept for the process
    with recording():
        assert dict(sizes(ev, bags).probabilities()) == dict(counts.probabilities())
        assert dict(per_attack_sum(ev, counts, d3, None).probabilities()) == dict(total.probabilities())
