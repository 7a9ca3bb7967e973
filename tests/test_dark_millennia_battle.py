"""Dark Millennia against its base game in battle: the house rules change the bundled battle
across the gorge, whoever plays it, by an amount an independent Markov chain gives exactly."""
from __future__ import annotations

from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

import compiler
from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.battle.exact import Ending, solve
from compiler.model.ruleset import Ruleset

ROOT = Path(__file__).resolve().parent.parent

#: A Marine's boltgun shot at an Ork Boy in the open, the same under both rulesets: hit on 3+
#: (BS 4), wound on 4+ (S 4 against T 4), and AP 5 leaves the Ork's 6+ armour nothing.
MARINE_SHOT = Fraction(2, 3) * Fraction(1, 2)
#: An Ork's shoota shot at a Marine in the trench line (hard cover).  Base game: hit on 5+ (BS 2),
#: wound on 4+, and the 3+ armour beats the 4+ cover save.  House rules: BS 2 - 2 held at 1 (hit on
#: 6), T 4 + 1 (wound on 5+), and the 3+ armour still rolled.
ORK_SHOT = {"classic-40k": Fraction(1, 3) * Fraction(1, 2) * Fraction(1, 3),
            "dark-millennia": Fraction(1, 6) * Fraction(1, 3) * Fraction(1, 3)}


@pytest.fixture(scope="module")
def models() -> dict[str, Ruleset]:
    result = compiler.compile_paths([ROOT / "rules" / "classic-40k", ROOT / "rules" / "dark-millennia"])
    return {rs.id: rs for rs in result.rulesets}


def _losses(shots: int, p: Fraction, cap: int) -> list[tuple[int, Fraction]]:
    """Models lost (never more than ``cap``) to ``shots`` shots that each kill with chance ``p``."""
    law = [Fraction(comb(shots, k)) * p ** k * (1 - p) ** (shots - k) for k in range(shots + 1)]
    capped = [(k, q) for k, q in enumerate(law[:cap])] + [(cap, sum(law[cap:], Fraction(0)))]
    return [(k, q) for k, q in capped if q]


def standing_firefight(ork_shot: Fraction, turns: int = 4) -> dict[Ending, Fraction]:
    """Five Marines and ten Orks who stay where they are and fire every turn, the Orks first (two
    shots a model, one for a Marine): a side wiped out loses at once; after the last turn the larger
    share of its force left wins (Marines m of 5 against Orks o of 10), equal shares a draw."""
    endings: dict[Ending, Fraction] = {}

    def add(ending: Ending, p: Fraction) -> None:
        endings[ending] = endings.get(ending, Fraction(0)) + p

    states = {(5, 10): Fraction(1)}
    for turn in range(1, turns + 1):
        after: dict[tuple[int, int], Fraction] = {}
        for (m, o), p in states.items():
            for lost, q in _losses(2 * o, ork_shot, m):
                if m - lost == 0:
                    add((1, turn, (0, o)), p * q)
                    continue
                for killed, r in _losses(m - lost, MARINE_SHOT, o):
                    if o - killed == 0:
                        add((0, turn, (m - lost, 0)), p * q * r)
                    else:
                        key = (m - lost, o - killed)
                        after[key] = after.get(key, Fraction(0)) + p * q * r
        states = after
    for (m, o), p in states.items():
        add((0 if 2 * m > o else 1 if 2 * m < o else None, turns, (m, o)), p)
    return endings


@pytest.mark.parametrize("name", ["classic-40k", "dark-millennia"])
def test_the_gorge_is_a_standing_firefight_whose_law_the_cover_rules_decide(models: dict[str, Ruleset],
                                                                            name: str) -> None:
    """Nobody can cross the gorge, so the battle is the two sides firing from where they stand: its
    exact law (greedy players) is the Markov chain of that firefight with the ruleset's own chance
    of an Ork shot killing a Marine in the trench."""
    model = models[name]
    law = solve(Rules(model, exact=True), model.get("gorge"), "greedy")
    assert law.endings == standing_firefight(ORK_SHOT[name])


def test_the_house_rules_turn_the_gorge_from_an_ork_win_into_a_marine_win() -> None:
    """The change the house rules make, exactly: the Marines in the trench win about a quarter of
    the base game's battles and over three quarters of Dark Millennia's; dropping the alternate
    cover (the same chance of a kill in both) would leave no change at all."""
    base, house = standing_firefight(ORK_SHOT["classic-40k"]), standing_firefight(ORK_SHOT["dark-millennia"])

    def wins(law: dict[Ending, Fraction], side: int) -> Fraction:
        return sum((p for (w, _, _), p in law.items() if w == side), Fraction(0))
    assert sum(base.values()) == sum(house.values()) == 1
    assert wins(base, 0) < Fraction(3, 10) < Fraction(3, 4) < wins(house, 0)
    assert wins(base, 1) > Fraction(2, 3) > Fraction(1, 5) > wins(house, 1)


def test_the_default_player_of_a_judgement_plays_the_gorge_as_a_standing_firefight(models: dict[str, Ruleset]) -> None:
    """The player ``simulate --against`` picks for 4,000 games of the gorge is the searching one
    (its estimate is a count of the engine's questions, so the same on any machine); in each ruleset
    it plays the run's first game as the greedy player does — every unit stays put and fires — so the
    exact law above is the one the judgement samples."""
    from compiler.battle.budget import AGAINST_BUDGET, strongest
    from compiler.battle.search import MctsPolicy
    from compiler.battle.simulate import game_seed

    house = models["dark-millennia"]
    assert strongest(Rules(house), house.get("gorge"), 4000, AGAINST_BUDGET, sides=2).policy == "mcts"
    for name in ("classic-40k", "dark-millennia"):
        model = models[name]
        rules = Rules(model)
        searched = Battle(rules, model.get("gorge"), [MctsPolicy(), MctsPolicy()], game_seed(1, 0))
        searched.run()
        greedy = Battle(rules, model.get("gorge"), [GreedyPolicy(), GreedyPolicy()], game_seed(1, 0))
        greedy.run()
        actions = [e["action"] for e in searched.events if e["event"] == "action"]
        assert actions and set(actions) == {"shoot"}
        assert searched.events == greedy.events


def test_a_unit_on_overwatch_fires_at_the_orks_that_assault_it_before_they_engage(models: dict[str, Ruleset]) -> None:
    """Modified overwatch against a charge: under the house rules Marines on overwatch, assaulted by
    Orks 5" away, are asked whether to fire and, if so, fire their five boltguns at the chargers
    (the shooting sequence, the Orks in the open) before the two units are locked together, and are
    no longer on overwatch; the base game has no such reaction, so the Orks engage unshot."""
    from compiler.battle import Choice

    class Yes:
        """Takes the first option of every choice (assault; yes, react); remembers what it was asked."""

        def __init__(self) -> None:
            self.kinds: list[str] = []

        def choose(self, choice: Choice) -> int:
            self.kinds.append(choice.kind)
            return 0

    for name in ("classic-40k", "dark-millennia"):
        model = models[name]
        phase = next(p for p in model.get("battle").phases if p.id == "phase_assault")
        asked = Yes()
        battle = Battle(Rules(model), model.get("firefight"), [asked, asked], seed=1)
        marines, orks = battle.state.units
        orks.position = marines.position + 5
        marines.statuses["on_overwatch"] = ""
        assert battle.act(orks, phase)
        kinds = [e["event"] for e in battle.events]
        assert marines.engaged == [orks.uid] and orks.engaged == [marines.uid]
        if name == "classic-40k":
            assert "react" not in asked.kinds and kinds == ["action", "engage"] and orks.models == 10
            continue
        assert "react" in asked.kinds and kinds[:3] == ["action", "engage", "reaction"]
        (volley,) = [e for e in battle.events if e["event"] == "volley"]
        assert (volley["unit"], volley["target"], volley["rule"], volley["models"]) == \
            ("Space Marine", "Ork Boy", "shooting", 5)
        assert volley["mean"] == pytest.approx(float(5 * MARINE_SHOT), abs=1e-6)
        assert orks.models == 10 - volley["removed"] and "on_overwatch" not in marines.statuses


WALLED = '''
ruleset walled "Walled":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
status on_overwatch "On overwatch": "Watching."
status locked "Locked": "In combat."
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
game g "A game":
  turns 1
  activation whole_army
  terrain wall "Wall": blocks sight
  terrain hedge "Hedge": costs 2 inches per inch
  phase assault "Assault":
    action charge "Charge": engage within 13" as locked
  when charged if on_overwatch: attack shooting
scenario behind "A charge from behind a wall":
  game g
  table 24" by 24"
  first red
  terrain the_wall "The wall" KIND from 0", 10" to 24", 11"
  side red "Red":
    3 trooper at 12", 16"
  side blue "Blue":
    3 trooper at 12", 4"
'''


@pytest.mark.parametrize("kind, fired", [("wall", False), ("hedge", True)])
def test_overwatch_fire_never_goes_at_a_charger_out_of_sight(kind: str, fired: bool) -> None:
    """The house rule: enemies out of sight when the assault phase begins cannot be the target of
    overwatch fire. A charge from behind a wall that blocks sight draws no volley; across a hedge
    that does not, it does (12" away, 13" of move: the hedge's inch costs two)."""
    from compiler.driver import compile_text

    result = compile_text(WALLED.replace("KIND", kind), "walled.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("behind"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    red, blue = battle.state.units
    blue.statuses["on_overwatch"] = ""
    assert battle.state.in_sight(blue, red) is fired
    assert battle.act(red, model.get("g").phases[0])
    events = [e["event"] for e in battle.events]
    assert ("volley" in events) is fired and ("out_of_sight" in events) is not fired
    assert red.engaged == [blue.uid] or (fired and red.models == 0)


@pytest.mark.parametrize("name, rider_move, rider_assault", [("classic-40k", 6, 12), ("dark-millennia", 12, 6)])
def test_a_mounted_unit_moves_and_assaults_by_the_keyword_on_its_profile(models: dict[str, Ruleset], name: str,
                                                                         rider_move: int, rider_assault: int) -> None:
    """The base game's cavalry charge 12"; the house rules' mounted infantry move 12" and assault 6".
    The battle reads `mounted` from the profile: Rough Riders go so far, Space Marines 6" either way."""
    from compiler.battle.state import Unit
    model = models[name]
    rules = Rules(model)
    game = model.get("battle")
    (advance,) = [e for p in game.phases for a in p.actions if a.id == "advance" for e in a.effects if e.kind == "move"]
    (assault,) = [e for p in game.phases for a in p.actions if a.id == "assault" for e in a.effects if e.kind == "engage"]
    assert advance.value is not None and assault.value is not None
    for profile, move, reach in (("rough_rider", rider_move, rider_assault), ("space_marine", 6, 6)):
        unit = Unit(0, 0, profile, profile, (), 5, 5, 0, 0.0)
        assert (rules.number(advance.value, unit, 12.0), rules.number(assault.value, unit, 12.0)) == (move, reach)
