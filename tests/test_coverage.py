"""Executable coverage: what each example exercises, ``warscribe test --coverage [--strict]``,
and the "pinned by" lines of the rule pages."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.battle.ran import ran_in_battle
from compiler.cli import app
from compiler.driver import compile_paths, compile_text
from compiler.model.ruleset import Ruleset
from compiler.resolve.coverage import coverage, pins
from compiler.site import site

ROOT = Path(__file__).resolve().parent.parent

SMALL = '''ruleset small "Small":
  version 1.0.0

stat BS "BS" 1..10: "Aim."
situation smoke "Smoke between firer and target"

rule shooting "Shooting":
  """Roll to [[hit]]."""

rule charging "Charging": "Run at them and shout."

test hit(BS) "Hit" = roll d6 <= BS
test dodge(BS) "Dodge" = roll d6 >= BS
table need(BS) "Need":
  1..3 -> 5+
  otherwise -> 3+
modifier in_smoke "Smoke": -1 BS when smoke

example plain "Plain":
  expect P(hit(3)) = 1/2

example again "Again":
  expect P(hit(3)) = 1/2
  expect need(2) = 5+
'''


def _small(extra: str = "") -> Ruleset:
    comp = compile_text(SMALL + extra)
    assert comp.ok, comp.diagnostics
    return comp.rulesets[0]


def test_each_example_is_credited_with_what_it_used_even_from_the_memo() -> None:
    cov = coverage(_small())
    # 'again' asks what 'plain' already worked out: it is credited all the same.
    assert cov.pinned["hit"] == ("plain", "again")
    assert cov.pinned["need"] == ("again",)
    assert set(cov.unexercised) == {"dodge", "in_smoke"}  # the smoke never rose in any example


def test_a_modifier_is_exercised_only_where_it_changes_a_number() -> None:
    cov = coverage(_small('example smoky "Smoky":\n  let r = hit(3) with smoke\n  expect P(r) = 1/3\n'))
    assert cov.pinned["in_smoke"] == ("smoky",)
    assert cov.pinned["hit"] == ("plain", "again", "smoky")


def test_rules_drive_the_resolver_or_say_why_they_are_prose_only() -> None:
    cov = coverage(_small())
    assert cov.driving == ("shooting",)  # links to the hit test
    assert cov.unmarked == ("charging",) and cov.prose_only == ()
    assert pins(_small())["shooting"] == ("plain", "again")
    marked = SMALL.replace('rule charging "Charging": "Run at them and shout."',
                           'rule charging "Charging":\n  """Run at them and shout."""\n'
                           '  prose only "Shouting is not rolled": "Players just do it."')
    comp = compile_text(marked)
    assert comp.ok, comp.diagnostics
    cov = coverage(comp.rulesets[0])
    assert cov.unmarked == () and cov.prose_only == (("charging", "rule", "Shouting is not rolled"),)


def _write(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "small"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(text, encoding="utf-8")
    return folder


def test_cli_table_and_strict(tmp_path: Path) -> None:
    folder = _write(tmp_path, SMALL)
    runner = CliRunner()
    loose = runner.invoke(app, ["test", "--coverage", str(folder)])
    assert loose.exit_code == 0, loose.output
    assert "Executable coverage" in loose.output
    assert "not exercised: small test dodge" in loose.output
    assert "not exercised: small modifier in_smoke" in loose.output
    strict = runner.invoke(app, ["test", "--coverage", "--strict", str(folder)])
    assert strict.exit_code == 1
    data = json.loads(runner.invoke(app, ["test", "--coverage", "--json", str(folder)]).output)
    small = data["coverage"][0]
    assert small["by_kind"]["test"] == {"exercised": 1, "executable": 2}
    assert small["pinned_by"]["hit"] == ["plain", "again"]
    assert small["unmarked_rules"] == ["charging"]


def test_strict_passes_once_everything_is_exercised(tmp_path: Path) -> None:
    folder = _write(tmp_path, SMALL + 'example rest "Rest":\n  let r = dodge(3) with smoke\n  expect P(r) = 5/6\n')
    result = CliRunner().invoke(app, ["test", "--coverage", "--strict", str(folder)])
    assert result.exit_code == 0, result.output


def test_every_bundled_ruleset_exercises_all_its_tables_tests_formulas_modifiers_and_attacks() -> None:
    result = CliRunner().invoke(app, ["test", "--coverage", "--strict", str(ROOT / "rules")])
    assert result.exit_code == 0, result.output
    assert "not exercised" not in result.output


def test_rule_page_says_which_examples_pin_it() -> None:
    comp = compile_text(SMALL)
    md = "\n".join(p.markdown for p in site(comp).pages if p.path.startswith("small/"))
    assert "*Pinned by 2 examples: [Plain](" in md
    assert md.count("*Pinned by") == 1  # the prose-only rule says nothing


# A game the battle engine plays: one phase with an action, one that offers nothing, and a scenario.
BATTLE = '''ruleset skirmish "Skirmish":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Sv "Save" target
stat Range "Range" distance
stat W "Wounds" 1..10 role wounds
situation distance "Distance" 0..48
test hit(BS) = roll d6 >= 7 - BS
attack shooting(shooter, weapon, target) "Shooting":
  shots = if distance > weapon.Range then 0 else shooter.models
  hits = shots each hit(shooter.BS)
  killed = hits removes target, damage 1
unit marine "Marine":
  BS 4  W 1  Sv 3+
  weapons boltgun
  points 14
weapon boltgun "Boltgun":
  Range 24"
game volley "A volley":
  turns 1
  activation whole_army
  phase rally "Rally": "Players rally broken units."
  phase fire "Fire":
    action shoot "Shoot": attack shooting
rule firing "Firing":
  """Each unit fires in the [[fire]] phase."""
rule rallying "Rallying":
  """Broken units come back in the [[rally]] phase."""
rule turns "Turns":
  """A game lasts as long as [[volley]] says."""
rule setting_up "Setting up":
  """Place both sides as [[one_volley]] says."""
scenario one_volley "One volley":
  game volley
  distance 20"
  first blue
  side blue "Blue":
    5 marine
  side red "Red":
    5 marine
example plain "Plain":
  expect P(hit(4)) = 1/2
'''


def test_a_rule_linking_what_the_battle_engine_plays_drives_it() -> None:
    comp = compile_text(BATTLE)
    assert comp.ok, comp.diagnostics
    model = comp.rulesets[0]
    # linked but not yet played: nothing of the three ran, so none drives
    unplayed_cov = coverage(model)
    assert unplayed_cov.driving == () and unplayed_cov.links_only == ("firing", "rallying", "turns", "setting_up")
    ran = ran_in_battle(model, games=1)
    assert {"one_volley", "volley", "fire", "shoot", "shooting"} <= ran and "rally" not in ran
    cov = coverage(model, ran)
    # the acting phase, the game a scenario plays and the scenario ran; a phase where nothing happens did not
    assert cov.driving == ("firing", "turns", "setting_up") == cov.in_battle
    assert cov.unmarked == ("rallying",) and cov.links_only == ("rallying",)
    unplayed = BATTLE[:BATTLE.index("scenario one_volley")] + 'example plain "Plain":\n  expect P(hit(4)) = 1/2\n'
    unplayed = unplayed.replace('rule setting_up "Setting up":\n  """Place both sides as [[one_volley]] says."""\n', "")
    comp = compile_text(unplayed)
    assert comp.ok, comp.diagnostics
    cov = coverage(comp.rulesets[0])
    cov = coverage(comp.rulesets[0], ran_in_battle(comp.rulesets[0], games=1))
    assert cov.driving == () and cov.unmarked == ("firing", "rallying", "turns")  # no scenario plays the game


def test_a_rule_linking_a_table_nothing_uses_does_not_drive() -> None:
    """Linking is not running: a rule pointing at a table no example and no battle works out only
    links, and must say why (a 'prose only' note) like any rule that runs nothing."""
    text = SMALL.replace("  expect need(2) = 5+\n", "") + 'rule needing "Needing":\n  """What you [[need]] is on a table."""\n'
    comp = compile_text(text)
    assert comp.ok, comp.diagnostics
    cov = coverage(comp.rulesets[0], ran_in_battle(comp.rulesets[0]))
    assert "needing" not in cov.driving and cov.links_only == ("needing",)
    assert "needing" in cov.unmarked and "need" in cov.unexercised


#: Statuses whose effect the bundled battles apply (an order it allows: 40K-S's overwatch order
#: for a unit charged this turn; actions it bars: the locks of melee, routing, pinning).
APPLIED = {"40k-s": {"charged_this_turn", "engaged"},
           "gemini-arap": {"close_quarters", "routing", "pinned", "s_points"},  # s_points: -s_points BS, Ld
           "nuceria-rts": {"locked_in_combat"}}


def test_every_bundled_rule_drives_something_or_says_why_not() -> None:
    for model in compile_paths([ROOT / "rules"]).rulesets:
        ran = ran_in_battle(model, games=2)
        cov = coverage(model, ran)
        assert cov.unmarked == (), (model.id, cov.unmarked)
        assert APPLIED.get(model.id, set()) <= ran, model.id


def test_the_examples_page_reuses_what_the_coverage_run_worked_out(monkeypatch) -> None:
    """The coverage pins run every example, property and claim (recording what each uses); the
    Examples page then charts the same let values and shows the same results without working any
    of them out again, and its views are the ones a page made without the coverage run shows."""
    from compiler.resolve import claims, evaluator, runner
    from compiler.resolve.coverage import exercised_by
    from compiler.site import examples

    def fresh() -> Ruleset:
        comp = compile_paths([str(ROOT / "rules" / "dark-millennia")])
        assert comp.ok
        return next(rs for rs in comp.rulesets if rs.id == "dark-millennia")

    alone = examples.example_views(fresh())
    model = fresh()
    exercised_by(model)
    work: list[str] = []
    real_bind, real_property, real_judge = evaluator.Evaluator.bind_let, examples.run_property, claims._judge
    monkeypatch.setattr(evaluator.Evaluator, "bind_let", lambda ev, let, env: work.append(let.name) or real_bind(ev, let, env))
    monkeypatch.setattr(examples, "run_property", lambda *a: work.append("property") or real_property(*a))
    monkeypatch.setattr(claims, "_judge", lambda *a: work.append("claim") or real_judge(*a))
    again = examples.example_views(model)
    assert work == [] and again == alone
    assert any(v.charts for v in again.values()) and any(v.grid is not None for v in again.values())
    assert any(isinstance(d, runner.A.Property) for d in model.walk())


def test_the_overview_and_battles_pages_say_what_the_battles_play_and_leave_out() -> None:
    """The fidelity table is made from what ran: the rule linking the acting phase is played,
    the one linking a phase where nothing happens is not, with the reason its note gives."""
    text = BATTLE.replace('rule rallying "Rallying":\n  """Broken units come back in the [[rally]] phase."""\n',
                          'rule rallying "Rallying":\n  """Broken units come back in the [[rally]] phase."""\n'
                          '  prose only "Nobody breaks in these battles": "Morale is not rolled."\n')
    comp = compile_text(text)
    assert comp.ok, comp.diagnostics
    pages = {p.path: p.markdown for p in site(comp).pages}
    overview = pages["skirmish/index.md"]
    table = overview[overview.index("## What the battles play"):]
    assert re.search(r"\| \[Firing\]\([^)]*\) \| played in the simulated battles \|", table), table
    assert re.search(r"\| \[Rallying\]\([^)]*\) \| not played: Nobody breaks in these battles \|", table), table
    battles = pages["skirmish/battles.md"]
    left = battles[battles.index("## What these battles leave out"):battles.index("## One volley")]
    assert "Nobody breaks in these battles" in left and "[Firing]" not in left
    ended = battles[battles.index("How the battles ended"):battles.index("### A sample battle")]
    counts = [int(n) for n in re.findall(r"\| (\d+) of 400 \|", ended)]
    assert counts and sum(counts) == 400  # every battle ended one of the ways listed


def test_a_scenario_the_engine_cannot_play_is_reported_by_coverage_and_the_site(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ruleset that checks clean but whose scenario the engine cannot set going: the coverage
    table, its ``--json`` and the site's overview and Battles pages each say it was not played,
    where, and why — rather than quietly moving what it would have played to a lesser column.
    ``check`` now refuses the one such scenario known (a situation hanging on a die roll, W871);
    its check is switched off here to stand for a refusal ``check`` does not foresee."""
    import compiler.check.battles
    from test_battle_ran import UNPLAYABLE, UNPLAYED_AT, UNPLAYED_WHY

    monkeypatch.setattr(compiler.check.battles, "check_sure", lambda ctx, game: None)
    folder = _write(tmp_path, UNPLAYABLE)
    at = str(folder / "ruleset.rules") + UNPLAYED_AT[len("ran.rules"):]
    runner = CliRunner()
    out = runner.invoke(app, ["test", "--coverage", str(folder)], env={"COLUMNS": "400"})  # one line each
    assert out.exit_code == 0, out.output
    assert f"\nnot played: ran scenario clash: {at}: {UNPLAYED_WHY}\n" in out.output
    data = json.loads(runner.invoke(app, ["test", "--coverage", "--json", str(folder)]).output)
    assert data["coverage"][0]["not_played"] == [{"scenario": "clash", "reason": f"{at}: {UNPLAYED_WHY}"}]
    pages = {p.path: p.markdown for p in site(compile_text(UNPLAYABLE, "ran.rules")).pages}
    assert f"[A clash](battles.md#clash \"Scenario: A clash\"): not played: {UNPLAYED_AT}: {UNPLAYED_WHY}" \
        in pages["ran/index.md"]
    battles = pages["ran/battles.md"]
    assert f"### A clash {{ #clash }}\n\nNot played: {UNPLAYED_AT}: {UNPLAYED_WHY}" in battles
    assert battles.count("{ #clash }") == 1  # no view of a battle that was never played
