"""The exact solver where positions look alike: two volleys of one unit (two weapons alike) reach
the same table and the same law, and are not the same position (the second comes after the
first), nor are a shot with another to come and the last one, or a turn's shot and the next
turn's — each law worked out here; a battle certain to end one way has that one ending; a battle
of many rolls and few positions is worked out position by position; and what an exact law answers
(wins, draws, models left, turns)."""
from __future__ import annotations

from fractions import Fraction
from math import comb

from compiler.battle import Rules
from compiler.battle.exact import ExactLaw, mean, report, solve
from compiler.driver import compile_text

RULES = '''
ruleset arms "Arms":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, weapon, target) "Shooting":
  hits = shooter.models each hit(weapon.BS)
  killed = hits removes target
unit gunner "Gunner":
  BS 4  W 1
  weapons pistol, rifle
unit trooper "Trooper":
  BS 4  W 1
weapon pistol "Pistol":
  BS 4
weapon rifle "Rifle":
  BS 4
game g "A game":
  turns 1
  activation whole_army
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation
scenario range "A range":
  game g
  distance 12"
  first red
  side red "Red":
    1 gunner
  side blue "Blue":
    2 trooper
'''


def test_two_volleys_alike_are_two_positions_not_one() -> None:
    """The gunner fires its pistol, then its rifle (each a hit on 4+, a hit a kill) at two troopers
    who cannot shoot back: 0, 1 or 2 fall, binomially; two is an annihilation."""
    result = compile_text(RULES, "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    law = solve(Rules(model, exact=True), model.get("range"))
    quarter = Fraction(1, 4)
    assert law.endings == {(0, 1, (1, 0)): quarter, (None, 1, (1, 1)): 2 * quarter, (None, 1, (1, 2)): quarter}


def test_two_units_alike_volleys_alike_are_kept_apart() -> None:
    """Two gunners, each firing both weapons (four shots, a kill on 4+ each) at three troopers: the
    first gunner's rifle after its pistol killed one, and the second gunner's pistol after the
    first's rifle did, meet the same table and the same roll, with a different number of volleys
    still to come.  Blue's models left: 3 less a binomial count of four, the last ending the battle."""
    text = RULES.replace("    1 gunner\n", "    1 gunner\n    1 gunner\n").replace("    2 trooper\n", "    3 trooper\n")
    result = compile_text(text, "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    law = solve(Rules(model, exact=True), model.get("range"))
    sixteenth = Fraction(1, 16)
    assert law.endings == {(0, 1, (2, 0)): 5 * sixteenth, (None, 1, (2, 1)): 6 * sixteenth,
                           (None, 1, (2, 2)): 4 * sixteenth, (None, 1, (2, 3)): sixteenth}


def test_what_an_exact_law_answers() -> None:
    law = ExactLaw({(0, 1, (5, 0)): Fraction(1, 2), (None, 3, (3, 2)): Fraction(1, 6),
                    (1, 2, (0, 4)): Fraction(1, 3)}, 7, 2)
    assert (law.win(0), law.win(1), law.draw()) == (Fraction(1, 2), Fraction(1, 3), Fraction(1, 6))
    assert law.survivors(0) == {0: Fraction(1, 3), 3: Fraction(1, 6), 5: Fraction(1, 2)}
    assert list(law.survivors(1)) == [0, 2, 4]
    assert law.turns() == {1: Fraction(1, 2), 2: Fraction(1, 3), 3: Fraction(1, 6)}
    assert mean(law.turns()) == Fraction(1, 2) + Fraction(2, 3) + Fraction(1, 2)
    result = compile_text(RULES, "arms.rules")
    out = report("arms", result.rulesets[0].get("range"), law, ["greedy", "greedy"])
    red, blue = out["sides"]
    assert (red["id"], red["win"], red["survivors"], red["survivors_mean"]) == \
        ("red", "1/2", {"0": "1/3", "3": "1/6", "5": "1/2"}, "3/1")
    assert (blue["win"], out["draw"], out["turns"], out["states"]) == ("1/3", "1/6", {"1": "1/2", "2": "1/3", "3": "1/6"}, 7)


def dice_rules(turns: int, ready: int, red: str, blue: str) -> str:
    """The arms ruleset under activation dice (two a unit, a success on ``ready``+; never bust)."""
    return RULES.replace("stat W ", "stat Rd \"Readiness\" 1..6\nstat W ") \
        .replace("test hit(BS) = roll d6 >= BS\n", "test hit(BS) = roll d6 >= BS\ntest ready(Rd) = roll d6 >= Rd\n") \
        .replace("  BS 4  W 1\n", f"  BS 4  Rd {ready}  W 1\n").replace("weapons pistol, rifle", "weapons rifle") \
        .replace("  turns 1\n  activation whole_army\n",
                 f"  turns {turns}\n  activation activation_rolls\n  activation dice 2..2 of ready(Rd), bust on 3 failures\n") \
        .replace("    1 gunner\n", red).replace("    2 trooper\n", blue)


def test_a_volley_with_another_action_to_come_is_not_the_last_one() -> None:
    """Activation dice, two a turn for two turns: each success a shot (a kill on 4+) at three
    troopers.  The gunner's first shot with two successes rolled and its only shot with one meet the
    same table and the same roll, and differ only in the actions still to come (where the engine
    stands in its turn); its shot in the second turn after a first turn of no kill meets the table of
    the first turn but for the clock.  Each of the four dice gives a kill with chance 1/2 × 1/2, so
    the kills are binomial (4, 1/4), and a third ends the battle."""
    text = dice_rules(2, 4, "    1 gunner\n", "    3 trooper\n")
    result = compile_text(text, "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    kills = [comb(4, k) * Fraction(1, 4) ** k * Fraction(3, 4) ** (4 - k) for k in range(5)]
    law = solve(Rules(model, exact=True), model.get("range"))
    assert law.endings == {(0, 2, (1, 0)): kills[3] + kills[4], (None, 2, (1, 1)): kills[2],
                           (None, 2, (1, 2)): kills[1], (None, 2, (1, 3)): kills[0]}


def test_a_battle_certain_to_end_one_way_has_that_one_ending() -> None:
    """The gunner is always ready (two successes, each 1+) and always hits (BS 1): the lone trooper
    falls to its first shot.  The dice's other counts cannot happen: no ending of chance 0 is listed."""
    result = compile_text(dice_rules(1, 1, "    1 gunner\n", "    1 trooper\n").replace("  BS 4\n", "  BS 1\n"),
                          "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    assert solve(Rules(model, exact=True), model.get("range")).endings == {(0, 1, (1, 0)): Fraction(1)}


def test_a_battle_of_many_rolls_and_few_positions_is_worked_out_position_by_position() -> None:
    """Two troopers with no weapon roll their activation dice each turn for twelve turns: 3^24 ways
    through the rolls, and every way leaves the table as it was.  Each turn's two rolls are two
    positions, each worked out once: 24 positions, one ending (a draw at the turn limit)."""
    result = compile_text(dice_rules(12, 4, "    1 trooper\n", "    1 trooper\n"), "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    law = solve(Rules(model, exact=True), model.get("range"))
    assert (law.endings, law.states) == ({(None, 12, (1, 1)): Fraction(1)}, 24)


MELEE = '''
ruleset melee "Melee":
  version 1.0.0
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
test blow(Ld) = roll d6 >= Ld
status locked "Locked": "In combat."
attack brawl(attacker, defender) "Brawl":
  hits = attacker.models each blow(attacker.Ld)
  killed = hits removes defender
unit trooper "Trooper":
  Ld 4  W 1
unit brute "Brute":
  Ld 12  W 1
game g "A game":
  turns 1
  activation whole_army
  phase assault "Assault":
    must action charge "Charge": engage within 6" as locked
  phase fight "Fight":
    combat brawl in order of Ld
  victory wipe "Annihilation" by annihilation
scenario clash "A clash":
  game g
  distance 4"
  first red
  side red "Red":
    1 trooper
    1 trooper
    1 trooper
  side blue "Blue":
    4 brute
'''


def test_fighters_alike_in_one_combat_are_told_apart_by_which_strikes() -> None:
    """Three lone troopers charge four brutes, whose blows never land (a d6 of 12 or more): each of the two
    combats (Red's turn, then Blue's) is three blows, a kill on 4+.  The second trooper striking after
    the first killed one and the third striking after the second did meet the same table and the same
    roll, with a different number of blows still to come; only which unit strikes (the combat's
    loop) tells them apart.  The kills are binomial (6, 1/2), a fourth ending the battle."""
    result = compile_text(MELEE, "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    law = solve(Rules(model, exact=True), model.get("clash"))
    kills = [Fraction(comb(6, k), 64) for k in range(7)]
    assert law.endings == {(None, 1, (3, 4 - k)): kills[k] for k in range(4)} | {(0, 1, (3, 0)): sum(kills[4:])}
