"""Policies per side (``--policy A:B``) and tournaments of policies in both seatings."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from compiler.cli import app

CONSOLE = str(Path(__file__).resolve().parent.parent / "rules" / "console-40k")


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args) + ["-q"])  # no progress line on a busy machine
    return res.exit_code, res.output


def test_each_side_plays_its_own_policy_and_a_tournament_seats_them_both_ways() -> None:
    code, text = run("simulate", CONSOLE, "--games", "250", "--seed", "3", "--policy", "random:greedy", "--json")
    assert code == 0, text
    mixed = json.loads(text)
    assert mixed["policy"] == {"space_marines": "random", "orks": "greedy"}
    code, text = run("simulate", CONSOLE, "--games", "250", "--seed", "3", "--tournament", "--policies", "greedy,random",
                     "--json")
    assert code == 0, text
    rows = {tuple(r["policies"]): r for r in json.loads(text)["tournament"]}
    assert set(rows) == {("greedy", "greedy"), ("greedy", "random"), ("random", "greedy"), ("random", "random")}
    # the same games as the run above: the same seeds, the same policies in the same seats
    assert [s["wins"] for s in rows[("random", "greedy")]["sides"]] == [s["wins"] for s in mixed["sides"]]
    # the greedy Space Marines win far more against random Orks than random Marines against greedy Orks
    greedy_seat = rows[("greedy", "random")]["sides"][0]
    random_seat = rows[("random", "greedy")]["sides"][0]
    assert greedy_seat["ci95"][0] > random_seat["ci95"][1]
    code, text = run("simulate", CONSOLE, "--games", "250", "--tournament", "--policies", "greedy")
    assert code == 0 and "greedy" in text and "%" in text


def test_bad_policies_are_refused_in_one_sentence() -> None:
    for args, says in ((["--policy", "greedy:mcst"], "unknown policy 'mcst'"),
                       (["--policy", "greedy:random:greedy"], "names 3 policies for 2 sides"),
                       (["--policies", "greedy"], "add one of them"),
                       (["--tournament", "--policies", "greedy,nope"], "unknown policy 'nope'")):
        code, text = run("simulate", CONSOLE, "--games", "10", *args)
        assert code == 2 and says in text, (args, text)
        assert "Traceback" not in text


def test_a_house_rule_judgement_names_its_policy_and_is_checked_under_others() -> None:
    root = Path(CONSOLE).parent
    code, text = run("simulate", str(root / "dark-millennia"), "--against", str(root / "classic-40k"), "--policy",
                     "greedy", "--games", "300", "--seed", "2", "-q", "--policies", "greedy,random", "--json")
    assert code == 0, text
    judged = json.loads(text)["against"]
    assert judged["policy"] == "greedy"
    for c in judged["change"]:
        lo, hi = c["ci95"]
        assert lo <= c["change"] <= hi
        assert c["verdict"] == ("more wins" if lo > 0 else "fewer wins" if hi < 0 else "no clear change")
    under = {r["policy"]: r["change"] for r in judged["under"]}
    assert set(under) == {"greedy", "random"} and under["greedy"] == judged["change"]
    flipped = [c["id"] for k, c in enumerate(judged["change"])
               if min(r[k]["change"] for r in under.values()) < 0 < max(r[k]["change"] for r in under.values())]
    assert judged["flags"] == flipped
    code, text = run("simulate", str(root / "dark-millennia"), "--against", str(root / "classic-40k"), "--policy",
                     "greedy", "--games", "300", "--seed", "2", "-q", "--policies", "greedy,random")
    assert code == 0 and "(policy greedy)" in text and "under each policy:" in text
    assert ("warning: the change for" in text) == bool(flipped)


def test_the_battles_page_names_its_policy_and_how_sure_each_change_is() -> None:
    import compiler
    from compiler.battle import Rules
    from compiler.site import battles
    from compiler.site.env import environment

    root = Path(CONSOLE).parent
    model = compiler.compile_paths([root / "dark-millennia"]).rulesets[0]
    views = battles.scenario_views(model)
    view = next(v for v in views if v.changes)
    assert view.policy == battles.page_policy(model, Rules(model), view.scenario, battles.rules_key(model))
    for c in view.changes:
        assert c.verdict == ("more wins" if c.low > 0 else "fewer wins" if c.high < 0 else "no clear change")
    class Page:  # the ruleset's page helpers, reduced to what the page calls
        def heading(self, level: int, d: object) -> str:
            return "#" * level + " " + getattr(d, "title", "")

        def prose(self, *args: object) -> str:
            return ""

        def link(self, *args: object) -> str:
            return ""

    text = environment().get_template("battles.md.j2").render(
        site={}, rs=model, r=Page(), views=[view], games=battles.GAMES, seed=battles.SEED, left_out=[], words={},
        not_played=[])
    assert f"played by the {view.policy} policy" in text and "| How sure |" in text
    assert all(f"| {c.verdict} |" in text for c in view.changes)


def test_without_a_policy_a_judgement_takes_the_strongest_player_the_budget_affords() -> None:
    import compiler
    from compiler.battle import Rules
    from compiler.battle.budget import STRONGEST_FIRST, strongest

    root = Path(CONSOLE).parent
    model = compiler.compile_paths([root / "dark-millennia"]).rulesets[0]
    rules, sc = Rules(model), model.get("firefight")
    pick = strongest(rules, sc, 2000, 1e9)
    assert pick == strongest(rules, sc, 2000, 1e9)  # the same estimate on every run
    cost = [pick.estimates[k] for k in ("mcts", "lookahead", "greedy")]
    assert cost == sorted(cost, reverse=True) and pick.policy == "mcts"  # the strongest player costs most
    assert STRONGEST_FIRST == ("mcts", "greedy")  # lookahead (depth 1) is weaker than greedy as console-40k's Orks
    between = (pick.estimates["mcts"] + pick.estimates["lookahead"]) / 2
    assert strongest(rules, sc, 2000, between).policy == "greedy"
    assert strongest(rules, sc, 2000, pick.estimates["greedy"] / 2).policy == "greedy"  # greedy always fits
    assert strongest(rules, sc, 20, between).policy == "mcts"  # fewer games: the strongest fits
    code, text = run("simulate", str(root / "dark-millennia"), "firefight", "--against", str(root / "classic-40k"),
                     "--games", "1", "--seed", "2", "--json")
    assert code == 0, text
    judged = json.loads(text)["against"]
    chosen = strongest(rules, sc, 1, judged["chosen"]["budget_cpu_s"], sides=2)
    assert judged["policy"] == judged["chosen"]["policy"] == chosen.policy
    assert judged["chosen"]["estimated_cpu_s"][chosen.policy] <= judged["chosen"]["budget_cpu_s"]
