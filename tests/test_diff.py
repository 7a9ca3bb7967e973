"""warscribe diff and the version checks: the semantic diff, its impact, git revisions, W605–W607, W407."""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import compiler.review
import compiler.review.cells
import compiler.review.diff
import compiler.review.fields
import compiler.review.odds
import compiler.review.report
import compiler.review.gitsource
import compiler.syntax.unparse
from compiler import ast as A
from compiler.review.diff import Cell, CellChange, FieldChange, ProseChange, StatChange, diff_models, impact
from compiler.review.report import diff_json, diff_markdown, diff_text
from compiler.driver import compile_paths, compile_text
from compiler.resolve.evaluator import parse_expression
from compiler.syntax.unparse import canonical, expr_text

ROOT = Path(__file__).resolve().parent.parent

SKIRMISH = '''\
ruleset skirmish "Skirmish":
  version 1.0.0
  history:
    1.0.0 2026-01-01: "First version."

stat BS "Ballistic Skill" 1..6: "How well a model shoots."
stat S "Strength" 1..6
stat T "Toughness" 1..6
stat Sv "Save" target
stat W "Wounds" 1..3 role wounds
stat A "Attacks" 1..4

section shooting_phase "Shooting":
  """Roll to hit, then to wound, then save."""

  table to_wound(S, T) "Wound chart":
    T - S <= -1 -> 3+
    T - S == 0  -> 4+
    T - S == 1  -> 5+
    otherwise   -> 6+

  test hit(BS) "Roll to hit":
    roll d6 >= 7 - BS
    natural 1 fails

  test wound(S, T) "Roll to wound":
    roll d6 against to_wound(S, T)

  test save(Sv) "Armour save":
    roll d6 >= Sv

  attack shooting(shooter, weapon, target) "Shooting":
    shots   = shooter.models * weapon.A
    hits    = shots each hit(shooter.BS)
    wounds  = hits each wound(weapon.S, target.T)
    unsaved = wounds each not save(target.Sv)
    killed  = unsaved removes target

  rule range "Range": "Measure from the closest model."

section movement "Movement":
  rule move "Moving": "Move 6 inches."
  rule charge "Charging": "Charge 2d6 inches."

unit marine "Marine":
  BS 4  S 4  T 4  Sv 3+  W 1

unit ork "Ork":
  BS 2  S 3  T 4  Sv 6+  W 1

weapon bolter "Bolter":
  A 1  S 4

example marines_fire "Marines fire at Orks":
  let r = shooting(5 marine, bolter, 10 ork)
  expect mean(r.killed) = 25/18
  expect to_wound(3, 4) = 5+
'''


def edit(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ruleset.rules").write_text(text, encoding="utf-8")
    return folder


def model_of(folder: Path):  # type: ignore[no-untyped-def]
    result = compile_paths([str(folder)])
    assert result.ok, [d.message for d in result.diagnostics]
    (model,) = result.rulesets
    return model


@dataclasses.dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str, cwd: Path | None = None) -> Ran:
    """warscribe in this process (fast), from folder ``cwd``."""
    from click.testing import CliRunner

    from compiler.cli import app

    before = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        r = CliRunner().invoke(app, list(args), env={"NO_COLOR": "1"})
    finally:
        os.chdir(before)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Ran(r.exit_code, r.stdout, r.stderr)


def run_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """warscribe as a user runs it: a separate process."""
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "compiler", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=300)


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env, timeout=60)


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


# ---------------------------------------------------------------------------
# The diff of two folders
# ---------------------------------------------------------------------------

CHANGED_TEXT = edit(
    SKIRMISH,
    ("    T - S == 1  -> 5+\n", "    T - S == 1  -> 6+\n"),  # a table row: five cells change
    ("BS 2  S 3  T 4  Sv 6+  W 1", "BS 2  S 3  T 4  Sv 5+  W 1"),  # a stat
    ('"Roll to hit, then to wound, then save."', '"Roll to hit, then to wound, then take a save."'),  # prose
    ('  rule range "Range": "Measure from the closest model."\n\n', ""),  # a rule removed…
    ('  rule move "Moving": "Move 6 inches."\n',
     '  rule move "Moving": "Move 6 inches."\n  rule run "Running": "Run d6 inches."\n'  # …one added
     '  rule range "Range": "Measure from the closest model."\n'),  # …and one moved
    ("    natural 1 fails\n", ""),  # a test clause
    ("  expect to_wound(3, 4) = 5+\n", "  expect to_wound(3, 4) = 6+\n"),
)


def test_folder_diff_lists_exactly_what_changed(tmp_path: Path) -> None:
    old = model_of(write(tmp_path / "old", SKIRMISH))
    new = model_of(write(tmp_path / "new", CHANGED_TEXT))
    d = diff_models(old, new)
    assert [(c.id, c.change) for c in d.changes] == [
        ("shooting_phase", "changed"), ("to_wound", "changed"), ("hit", "changed"), ("wound", "changed"),
        ("run", "added"), ("range", "moved"), ("ork", "changed"), ("marines_fire", "changed")]
    assert d.counts() == {"added": 1, "removed": 0, "changed": 6, "moved": 1}

    section = d.get("shooting_phase")
    assert section is not None and section.prose == (ProseChange(
        "", "Roll to hit, then to wound, then save.", "Roll to hit, then to wound, then take a save."),)
    assert section.prose[0].unified() == ["@@ -1 +1 @@", "-Roll to hit, then to wound, then save.",
                                          "+Roll to hit, then to wound, then take a save."]

    table = d.get("to_wound")
    assert table is not None and table.kind == "table" and table.title == "Wound chart" and not table.indirect
    assert table.fields == (FieldChange("rows", "T - S <= -1 -> 3+\nT - S == 0 -> 4+\nT - S == 1 -> 5+\notherwise -> 6+",
                                        "T - S <= -1 -> 3+\nT - S == 0 -> 4+\nT - S == 1 -> 6+\notherwise -> 6+"),)
    assert table.cells == tuple(
        CellChange((("S", s), ("T", s + 1)), Cell("5+", "1/3"), Cell("6+", "1/6")) for s in range(1, 6))

    hit = d.get("hit")
    assert hit is not None and hit.fields == (FieldChange("natural fails", "natural 1 fails", None),)
    assert [(c.where(), c.old, c.new) for c in hit.cells] == [("BS = 6", Cell(None, "5/6"), Cell(None, "1"))]

    wound = d.get("wound")  # its text is the same; the table it rolls against changed
    assert wound is not None and wound.indirect and not wound.fields and len(wound.cells) == 5
    assert wound.cells[0] == CellChange((("S", 1), ("T", 2)), Cell(None, "1/3"), Cell(None, "1/6"))

    moved = d.get("range")
    assert moved is not None and (moved.section, moved.moved_from) == ("movement", "shooting_phase")
    added = d.get("run")
    assert added is not None and (added.kind, added.title, added.section) == ("rule", "Running", "movement")

    ork = d.get("ork")
    assert ork is not None and ork.kind == "unit" and ork.stats == (StatChange("Sv", "6+", "5+"),)
    assert ork.fields == ()


def test_removed_and_retitled_declarations_and_header(tmp_path: Path) -> None:
    newer = edit(SKIRMISH, ("version 1.0.0", "version 1.1.0"),
                 ('  history:\n', '  history:\n    1.1.0 2026-02-01: "No charging."\n'),
                 ('  rule charge "Charging": "Charge 2d6 inches."\n', ""),
                 ('weapon bolter "Bolter":', 'weapon bolter "Boltgun":'))
    d = diff_models(model_of(write(tmp_path / "a", SKIRMISH)), model_of(write(tmp_path / "b", newer)))
    assert [(c.id, c.kind, c.change) for c in d.changes] == [
        ("skirmish", "ruleset", "changed"), ("charge", "rule", "removed"), ("bolter", "weapon", "changed")]
    head = d.changes[0]
    assert head.fields[0] == FieldChange("version", "1.0.0", "1.1.0")
    assert head.fields[1].field == "history" and head.fields[1].lines()[0] == "+ 1.1.0 2026-02-01: No charging."
    assert d.get("charge").section == "movement"  # type: ignore[union-attr]
    assert d.get("bolter").fields == (FieldChange("title", "Bolter", "Boltgun"),)  # type: ignore[union-attr]


def test_identical_inputs_give_an_empty_diff(tmp_path: Path) -> None:
    a = model_of(write(tmp_path / "a", SKIRMISH))
    # The same rules, laid out differently, with a comment: still no difference.
    b = model_of(write(tmp_path / "b", SKIRMISH.replace("    shots   = ", "    # how many\n    shots = ")))
    d = diff_models(a, b)
    assert d.empty and d.changes == () and d.counts() == {"added": 0, "removed": 0, "changed": 0, "moved": 0}
    effect = impact(a, b)
    assert not effect.changed and effect.examples == () and effect.matchups == ()
    data = diff_json(d, effect)
    assert data["changes"] == [] and data["summary"]["identical"] is True
    assert data["impact"] == {"examples": [], "matchups": []}
    assert "no differences in the rules" in diff_text(d, effect)
    r = run("diff", str(tmp_path / "a"), str(tmp_path / "b"), "--exit-code")
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_changed_stat_range_reaches_every_test_that_uses_it(tmp_path: Path) -> None:
    old = model_of(write(tmp_path / "old", SKIRMISH))
    new = model_of(write(tmp_path / "new", edit(SKIRMISH, ('stat BS "Ballistic Skill" 1..6', 'stat BS "Ballistic Skill" 1..7'))))
    d = diff_models(old, new)
    assert [(c.id, c.change, c.indirect) for c in d.changes] == [("BS", "changed", False), ("hit", "changed", True)]
    assert d.get("BS").fields == (FieldChange("type", "1..6", "1..7"),)  # type: ignore[union-attr]
    assert d.get("hit").cells == (CellChange((("BS", 7),), None, Cell(None, "5/6")),)  # type: ignore[union-attr]


def test_modifiers_abilities_and_game_structure_clause_by_clause() -> None:
    head = ('ruleset d "D":\n  version 1.0.0\nstat BS "BS" 1..6\nsituation cover "Cover" one of open, soft, hard\n'
            'test hit(BS) = roll d6 >= 7 - BS\n')
    old = head + (
        'modifier soft_cover "Soft cover": -1 to hit when cover is soft\n'
        'ability sustained(N: 1..3) "Sustained Hits": "Extra hits."\n  on natural 6 to hit: N extra hits\n'
        'game battle "The battle":\n  turns 4\n  activation alternating_units\n'
        '  phase movement "Movement phase": "Move each squad up to 6 inches."\n'
        '  score warlord "Killing the warlord": 5\n')
    new = head + (
        'modifier soft_cover "Soft cover":\n  -1 to hit\n  -1 BS\n  when cover is soft or cover is hard\n  group cover\n'
        'ability sustained(N: 1..3) "Sustained Hits": "Extra hits."\n  on natural 5+ to hit: N extra hits\n'
        '  stacking highest\n'
        'game battle "The battle":\n  turns 5\n  activation alternating_units\n'
        '  phase movement "Movement phase": "Move each squad up to 5 inches."\n'
        '  score warlord "Killing the warlord": 5\n  victory ten "Ten points": "The first to ten wins."\n')
    a, b = compile_text(old), compile_text(new)
    assert a.ok and b.ok
    d = diff_models(a.rulesets[0], b.rulesets[0])
    assert [(c.id, c.kind, [(f.field, f.old, f.new) for f in c.fields]) for c in d.changes] == [
        ("soft_cover", "modifier", [("effects", "-1 to hit", "-1 to hit\n-1 BS"),
                                    ("when", "cover is soft", "cover is soft or cover is hard"),
                                    ("group", None, "cover")]),
        ("sustained", "ability", [("hooks", "on natural 6 to hit: N extra hits", "on natural 5+ to hit: N extra hits"),
                                  ("stacking", None, "highest")]),
        ("battle", "game", [("turns", "4", "5"),
                            ("phase movement", 'phase movement "Movement phase": Move each squad up to 6 inches.',
                             'phase movement "Movement phase": Move each squad up to 5 inches.'),
                            ("victory ten", None, 'victory ten "Ten points": The first to ten wins.')])]


def test_every_bundled_ruleset_against_itself_is_empty() -> None:
    for folder in sorted((ROOT / "rules").iterdir()):
        a, b = model_of(folder), model_of(folder)
        assert diff_models(a, b).empty, folder.name
        assert not impact(a, b).changed, folder.name


def test_impact_on_examples_and_standard_matchups(tmp_path: Path) -> None:
    old = model_of(write(tmp_path / "old", SKIRMISH))
    new = model_of(write(tmp_path / "new", CHANGED_TEXT))
    effect = impact(old, new)
    (ex,) = effect.examples
    assert ex.id == "marines_fire" and ex.changed
    killed, chart = ex.values
    assert (killed.subject, killed.old_exact, killed.new_exact) == ("mean(r.killed)", "25/18", "10/9")
    assert killed.old_holds is True and killed.new_holds is False and killed.expected == "= 25/18"
    assert (chart.subject, chart.old_exact, chart.new_exact, chart.new_holds) == ("to_wound(3, 4)", "5+", "6+", True)
    (m,) = effect.matchups
    assert m.expression == "shooting(5 marine, bolter, 10 ork)"
    assert m.label == "Shooting: 5 Marine, Bolter, 10 Ork"
    assert (m.step, m.old_mean, m.new_mean) == ("killed", Fraction(25, 18), Fraction(10, 9))
    assert m.sources == ("marines_fire.r",) and not m.explicit
    assert m.summary() == "mean killed 1.39 → 1.11, -20%"


def test_explicit_matchups_are_always_listed(tmp_path: Path) -> None:
    old = model_of(write(tmp_path / "old", SKIRMISH))
    effect = impact(old, old, ["shooting(10 ork, bolter, 10 marine)", "P(hit(4))"])
    assert [(m.expression, m.explicit, m.changed) for m in effect.matchups] == [
        ("shooting(10 ork, bolter, 10 marine)", True, False), ("P(hit(4))", True, False)]
    assert effect.matchups[1].old_mean == Fraction(2, 3) and effect.matchups[1].step is None
    everything = impact(old, old, unchanged=True)
    assert [m.expression for m in everything.matchups] == ["shooting(5 marine, bolter, 10 ork)"]
    assert [e.id for e in everything.examples] == ["marines_fire"]


def test_a_matchup_that_cannot_be_read_is_a_usage_error(tmp_path: Path) -> None:
    folder = str(write(tmp_path / "a", SKIRMISH))
    r = run("diff", folder, folder, "--matchup", "shooting(5 marine,")
    assert r.returncode == 2 and "cannot read --matchup" in r.stderr
    r = run("diff", folder, folder, "--matchup", "shooting(5 marine, bolter, 10 ork)")
    assert r.returncode == 0 and "Shooting: 5 Marine, Bolter, 10 Ork: mean killed 1.39 → 1.39" in r.stdout
    assert run("diff", folder, folder, "--json", "--markdown").returncode == 2


def test_a_matchup_missing_on_one_side_is_reported_not_raised(tmp_path: Path) -> None:
    old = model_of(write(tmp_path / "old", SKIRMISH))
    newer = edit(SKIRMISH, ('stat A "Attacks" 1..4\n', 'stat A "Attacks" 1..4\nsituation cover "Cover"\n'),
                 ("  let r = shooting(5 marine, bolter, 10 ork)\n",
                  "  let r = shooting(5 marine, bolter, 10 ork)\n  let c = shooting(5 marine, bolter, 10 ork) with cover\n"))
    effect = impact(old, model_of(write(tmp_path / "new", newer)))
    (m,) = effect.matchups
    assert m.old_mean is None and m.old_error == "unknown situation 'cover'" and m.new_mean == Fraction(25, 18)
    assert m.label == "Shooting: 5 Marine, Bolter, 10 Ork (cover)" and m.changed


# ---------------------------------------------------------------------------
# Renderers and the JSON shape
# ---------------------------------------------------------------------------


def test_json_shape(tmp_path: Path) -> None:
    write(tmp_path / "old", SKIRMISH)
    write(tmp_path / "new", CHANGED_TEXT)
    r = run("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data) == {"old", "new", "summary", "changes", "impact"}
    assert set(data["old"]) == {"id", "version", "title", "label"}
    assert data["old"]["id"] == "skirmish" and data["new"]["version"] == "1.0.0"
    assert data["summary"] == {"added": 1, "removed": 0, "changed": 6, "moved": 1, "identical": False}
    change = next(c for c in data["changes"] if c["id"] == "to_wound")
    assert set(change) == {"id", "kind", "title", "change", "section", "moved_from", "indirect", "details"}
    assert set(change["details"]) == {"fields", "stats", "cells", "prose"}
    assert change["details"]["cells"][0] == {"at": {"S": 1, "T": 2}, "old": {"result": "5+", "p": "1/3", "mean": None},
                                             "new": {"result": "6+", "p": "1/6", "mean": None}}
    ork = next(c for c in data["changes"] if c["id"] == "ork")
    assert ork["details"]["stats"] == [{"stat": "Sv", "old": "6+", "new": "5+"}]
    prose = next(c for c in data["changes"] if c["id"] == "shooting_phase")["details"]["prose"][0]
    assert set(prose) == {"where", "old", "new", "diff"} and prose["diff"][0].startswith("@@")
    assert set(data["impact"]) == {"examples", "matchups"}
    (ex,) = data["impact"]["examples"]
    assert set(ex["values"][0]) == {"subject", "old", "new", "old_exact", "new_exact", "changed", "expected",
                                    "old_holds", "new_holds"}
    (m,) = data["impact"]["matchups"]
    assert {k: m[k] for k in ("expression", "step", "old", "new", "change_text")} == {
        "expression": "shooting(5 marine, bolter, 10 ork)", "step": "killed", "old": "25/18", "new": "10/9",
        "change_text": "-20%"}
    assert abs(m["change"] + 0.2) < 1e-12 and m["sources"] == ["marines_fire.r"]
    r = run("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--json", "--no-impact")
    assert json.loads(r.stdout)["impact"] is None


def test_text_and_markdown_output(tmp_path: Path) -> None:
    old = model_of(write(tmp_path / "old", SKIRMISH))
    new = model_of(write(tmp_path / "new", CHANGED_TEXT))
    d, effect = diff_models(old, new, old_label="v1", new_label="v2"), impact(old, new)
    text = "\n".join(diff_text(d, effect))
    assert text.splitlines()[0] == "skirmish 1.0.0 (v1) → skirmish 1.0.0 (v2)"
    assert "~ table to_wound \"Wound chart\"" in text
    assert "      - T - S == 1 -> 5+\n      + T - S == 1 -> 6+" in text
    assert "S = 1, T = 2: 5+ (1/3) → 6+ (1/6)" in text
    assert "    Sv: 6+ → 5+" in text
    assert "> rule range \"Range\"  (moved from shooting_phase to movement)" in text
    assert "mean(r.killed): 25/18 (≈ 1.38889) → 10/9 (≈ 1.11111)  (expects = 25/18: it now fails)" in text
    assert "Shooting: 5 Marine, Bolter, 10 Ork: mean killed 1.39 → 1.11, -20%" in text
    assert "\x1b[" not in text and "\x1b[" in "\n".join(diff_text(d, effect, color=True))
    md = diff_markdown(d, effect)
    assert md.startswith("## skirmish 1.0.0 → skirmish 1.0.0\n")
    assert "| 1 | 2 | 5+ (1/3) | 6+ (1/6) |" in md
    assert "| Sv | 6+ | 5+ |" in md
    assert "```diff\n  T - S <= -1 -> 3+" in md
    assert "| Shooting: 5 Marine, Bolter, 10 Ork | killed | 1.39 | 1.11 | -20% |" in md
    assert "| `marines_fire` | `mean(r.killed)` |" in md


def test_markdown_escapes_author_text(tmp_path: Path) -> None:
    old = model_of(write(tmp_path / "old", SKIRMISH))
    new = model_of(write(tmp_path / "new", edit(SKIRMISH, ('rule move "Moving"', 'rule move "<b>Moving</b> | fast"'))))
    md = diff_markdown(diff_models(old, new), None)
    assert "&lt;b&gt;Moving&lt;/b&gt; \\| fast" in md and "<b>" not in md


def test_overlay_against_its_base(tmp_path: Path) -> None:
    """diff_models(overlay.base, overlay): what the house rules change (the site's overlay page)."""
    result = compile_paths([str(ROOT / "rules" / "dark-millennia")])
    (dm,) = result.rulesets
    d = diff_models(dm.base, dm)
    move = d.get("cavalry_move")
    assert move is not None and move.change == "changed"
    assert FieldChange("result", '6"', '12"') in move.fields
    assert [(c.old, c.new) for c in move.cells] == [(Cell("6"), Cell("12"))]
    assert d.get("cover_one_roll").change == "removed"  # type: ignore[union-attr]
    assert d.get("cover_method").change == "added"  # type: ignore[union-attr]
    effect = impact(dm.base, dm)
    soft = next(m for m in effect.matchups
                if m.expression == "shooting(10 guardsman, lasgun, 10 ork_boy) with target_cover = soft")
    assert (soft.old_mean, soft.new_mean) == (Fraction(10, 9), Fraction(25, 54))  # soft cover: 5+ in the base, as the seed has it
    assert soft.label == "Shooting at a unit: 10 Imperial Guardsman, Lasgun, 10 Ork Boy (target_cover = soft)"


# ---------------------------------------------------------------------------
# Git revisions
# ---------------------------------------------------------------------------


def two_releases(root: Path, *more: tuple[str, str]) -> Path:
    """A git repository at ``root`` with rules/skirmish committed twice: 1.0.0, then 1.1.0 with a
    wound chart row changed (and the ``more`` edits)."""
    write(root / "rules" / "skirmish", SKIRMISH)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "v1")
    write(root / "rules" / "skirmish", edit(SKIRMISH, ("    T - S == 0  -> 4+\n", "    T - S == 0  -> 5+\n"),
                                             ("version 1.0.0", "version 1.1.0"), *more))
    git(root, "commit", "-q", "-am", "v2")
    return root


HISTORY_EDITS = (('  history:\n', '  history:\n    1.1.0 2026-02-01: "Harder to wound."\n'),
                 ("  expect mean(r.killed) = 25/18\n", "  expect mean(r.killed) = 25/27\n"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with rules/skirmish committed twice: v1, then a wound chart row changed (v2)."""
    return two_releases(tmp_path / "repo", *HISTORY_EDITS)


@needs_git
def test_diff_between_two_revisions_shows_cells_and_odds(repo: Path) -> None:
    r = run_process("diff", "HEAD~1", "HEAD", "rules/skirmish", cwd=repo)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert out.splitlines()[0] == "skirmish 1.0.0 (HEAD~1:rules/skirmish) → skirmish 1.1.0 (HEAD:rules/skirmish)"
    assert "    version: 1.0.0 → 1.1.0" in out
    assert "S = 4, T = 4: 4+ (1/2) → 5+ (1/3)" in out
    assert "Shooting: 5 Marine, Bolter, 10 Ork: mean killed 1.39 → 0.93, -33%" in out
    assert "mean(r.killed): 25/18 (≈ 1.38889) → 25/27 (≈ 0.925926)" in out
    assert run("diff", "HEAD~1", "HEAD", "rules/skirmish", "--exit-code", cwd=repo).returncode == 1


@needs_git
def test_releases_lists_each_version_with_its_commit(repo: Path, tmp_path: Path) -> None:
    from compiler.review.gitsource import SideSpec, load_side, releases
    found = releases(repo / "rules" / "skirmish")
    assert [r.version for r in found] == ["1.1.0", "1.0.0"]
    old, new = (load_side(SideSpec(r.commit, str(repo / "rules" / "skirmish"))).model for r in reversed(found))
    assert old is not None and new is not None
    assert [c.id for c in diff_models(old, new).changes] == ["skirmish", "to_wound", "wound", "marines_fire"]
    assert releases(write(tmp_path / "loose", SKIRMISH)) == []


@needs_git
def test_diff_of_a_revision_against_the_working_tree(repo: Path) -> None:
    r = run("diff", "HEAD", "rules/skirmish", "--exit-code", cwd=repo)
    assert r.returncode == 0 and "no differences in the rules" in r.stdout, r.stdout + r.stderr
    folder = repo / "rules" / "skirmish"
    (folder / "ruleset.rules").write_text(edit((folder / "ruleset.rules").read_text(),
                                               ("BS 4  S 4  T 4  Sv 3+", "BS 5  S 4  T 4  Sv 3+")))
    r = run("diff", "HEAD", str(folder), "--json", cwd=ROOT)  # from elsewhere, with an absolute path
    data = json.loads(r.stdout)
    assert data["old"]["label"] == f"HEAD:{folder}" and data["new"]["label"] == str(folder)
    assert [(c["id"], c["details"]["stats"]) for c in data["changes"]] == [
        ("marine", [{"stat": "BS", "old": "4", "new": "5"}])]


@needs_git
def test_diff_reports_bad_revisions_paths_and_broken_sides(repo: Path, tmp_path: Path) -> None:
    r = run("diff", "no-such-rev", "rules/skirmish", cwd=repo)
    assert r.returncode == 2 and "unknown revision 'no-such-rev'" in r.stderr
    r = run("diff", "HEAD~1", "HEAD", "rules/elsewhere", cwd=repo)
    assert r.returncode == 2 and "rules/elsewhere holds no .rules files" in r.stderr
    r = run("diff", "rules/skirmish", "not-there", cwd=repo)
    assert r.returncode == 2 and "no such file or folder: not-there" in r.stderr
    r = run("diff", "HEAD", str(write(tmp_path / "outside", SKIRMISH)))
    assert r.returncode == 2 and "not in a git repository" in r.stderr
    (repo / "rules" / "skirmish" / "ruleset.rules").write_text(SKIRMISH + "unit broken \"Broken\":\n  Zz 4\n")
    r = run("diff", "HEAD", "rules/skirmish", cwd=repo)
    assert r.returncode == 1 and "unknown stat 'Zz'" in r.stderr and "Traceback" not in r.stderr
    git(repo, "commit", "-q", "-am", "broken")
    r = run("diff", "HEAD", "HEAD~1", "rules/skirmish", cwd=repo)
    assert r.returncode == 1 and "HEAD:rules/skirmish/ruleset.rules:" in r.stderr


@needs_git
def test_overlay_at_a_revision_finds_its_base(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root / "rules" / "skirmish", SKIRMISH)
    write(root / "rules" / "house", 'ruleset house "House":\n  version 1.0.0\n  extends skirmish 1.0.0\n'
                                   'replace rule move "Moving": "Move 5 inches."\n')
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "v1")
    (root / "rules" / "house" / "ruleset.rules").write_text(
        'ruleset house "House":\n  version 1.1.0\n  extends skirmish 1.0.0\n'
        'replace rule move "Moving": "Move 4 inches."\n')
    r = run("diff", "HEAD", "rules/house", "--json", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(r.stdout)
    move = next(c for c in data["changes"] if c["id"] == "move")
    assert move["details"]["prose"][0]["diff"] == ["@@ -1 +1 @@", "-Move 5 inches.", "+Move 4 inches."]


# ---------------------------------------------------------------------------
# warscribe check: W607 (result changed, version did not) and W407
# ---------------------------------------------------------------------------


@needs_git
def test_check_warns_when_a_result_changes_but_the_version_does_not(repo: Path) -> None:
    clean = run("check", "rules/skirmish", cwd=repo)
    assert clean.returncode == 0 and "W607" not in clean.stderr, clean.stderr
    path = repo / "rules" / "skirmish" / "ruleset.rules"
    text = path.read_text()
    path.write_text(edit(text, ("BS 2  S 3  T 4  Sv 6+", "BS 2  S 3  T 4  Sv 5+")))
    r = run("check", "rules/skirmish", cwd=repo)
    assert r.returncode == 0 and "warning[W607]" in r.stderr, r.stderr
    assert ("the result of example 'marines_fire' changed since the last commit (mean(r.killed): "
            "25/27 (≈ 0.925926) → 20/27 (≈ 0.740741)) but the version is still 1.1.0") in r.stderr
    assert "hint: bump the version and add a history line" in r.stderr
    assert run("check", "--strict", "rules/skirmish", cwd=repo).returncode == 1
    assert "W607" not in run("check", "--no-versions", "rules/skirmish", cwd=repo).stderr
    # A new version: no warning.
    path.write_text(edit(path.read_text(), ("version 1.1.0", "version 1.2.0"),
                         ('  history:\n', '  history:\n    1.2.0 2026-03-01: "Orks save on 5+."\n')))
    assert "W607" not in run("check", "rules/skirmish", cwd=repo).stderr
    # A change of prose only: no warning either, and no work.
    path.write_text(edit(text, ("Measure from the closest model.", "Measure from the nearest model.")))
    assert "W607" not in run("check", "rules/skirmish", cwd=repo).stderr


@needs_git
def test_changed_folders_are_found_with_one_git_question_for_all(tmp_path: Path) -> None:
    """Which ruleset folders differ from HEAD, asked for several at once: an edited one, a clean
    one, one HEAD does not have, one in a nested repository and one outside git."""
    from compiler.review.gitsource import changed_since_head
    root = tmp_path / "repo"
    edited, clean = write(root / "rules" / "a b", SKIRMISH), write(root / "rules" / "clean", SKIRMISH)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "v1")
    (edited / "ruleset.rules").write_text(SKIRMISH.replace("Sv 6+", "Sv 5+"), encoding="utf-8")
    (edited / "notes.txt").write_text("not rules", encoding="utf-8")
    (clean / "notes.txt").write_text("not rules either", encoding="utf-8")
    new = write(root / "rules" / "new", SKIRMISH)
    nested = write(root / "rules" / "nested", SKIRMISH)
    git(nested, "init", "-q")
    git(nested, "add", ".")
    git(nested, "commit", "-q", "-m", "its own")
    loose = write(tmp_path / "loose", SKIRMISH)
    found = changed_since_head([edited, clean, new, nested, loose])
    assert found == {edited: True, clean: False, new: None, nested: False, loose: None}
    (nested / "ruleset.rules").write_text(SKIRMISH.replace("Sv 6+", "Sv 4+"), encoding="utf-8")
    assert changed_since_head([clean, nested]) == {clean: False, nested: True}


def test_version_check_is_silent_outside_git(tmp_path: Path) -> None:
    from compiler.review.versions import version_warnings
    folder = write(tmp_path / "loose", SKIRMISH)
    assert version_warnings([model_of(folder)]) == ()


def test_header_version_older_than_the_history() -> None:
    text = 'ruleset d "D":\n  version 1.0.0\n  history:\n    1.1.0 2026-01-02: "b"\n    1.0.0 2026-01-01: "a"\n'
    (d,) = compile_text(text).diagnostics
    assert (d.code, d.severity.value, d.span.line) == ("W407", "warning", 4)
    assert d.message == "the history lists version 1.1.0, newer than the current version 1.0.0"
    assert compile_text(text.replace("version 1.0.0", "version 1.1.0")).diagnostics == ()


# ---------------------------------------------------------------------------
# Overlays: a removal that leaves references dangling (W605), two overlays on one thing (W606)
# ---------------------------------------------------------------------------

BASE = ('ruleset base "Base":\n  version 1.0.0\nsection cover "Cover":\n  rule save "Save": "4+"\n'
        '  rule cavalry "Cavalry": "Fast."\n  """Cavalry is [[cavalry|fast]]."""\n'
        'term mount "Mount": "A horse."\n  see cavalry\n')
HOUSE = ('ruleset house "House":\n  version 1.0.0\n  extends base 1.0.0\n'
         'replace rule save "Save": "Cover adds to armour."\nremove cavalry\n')


def test_a_removal_that_leaves_references_dangling(tmp_path: Path) -> None:
    write(tmp_path / "base", BASE)
    result = compile_paths([str(write(tmp_path / "house", HOUSE))])
    found = [(d.code, d.message, d.span.line) for d in result.diagnostics]
    assert found == [
        ("W605", "'cavalry' was removed by this overlay (line 5) but the prose still links to it", 6),
        ("W605", "'cavalry' was removed by this overlay (line 5) but is still used here", 8)]
    assert all(d.related[0][0].file.endswith("house/ruleset.rules") for d in result.diagnostics)


def test_two_overlays_that_change_the_same_thing(tmp_path: Path) -> None:
    write(tmp_path / "base", BASE.replace("  see cavalry\n", "").replace('  """Cavalry is [[cavalry|fast]]."""\n', ""))
    write(tmp_path / "house", HOUSE)
    more = 'ruleset more "More":\n  version 1.0.0\n  extends house 1.0.0\nreplace rule save "Save": "Cover adds 2."\n'
    result = compile_paths([str(write(tmp_path / "more", more))])
    (d,) = result.diagnostics
    assert (d.code, d.severity.value) == ("W606", "warning")
    assert d.message == ("'save' is also changed by the overlay 'house' that this one extends; "
                         "this replacement overrides that change")
    assert d.related[0][1] == "changed by 'house' here" and d.related[0][0].line == 4
    # Said on purpose, in a note that names it: no warning.
    intended = more + 'designer note why "Why again":\n  """House cover was too strong."""\n  see save\n'
    assert compile_paths([str(write(tmp_path / "more", intended))]).diagnostics == ()


def test_bundled_overlay_is_clean() -> None:
    result = compile_paths([str(ROOT / "rules" / "dark-millennia")])
    assert [d.code for d in result.diagnostics if d.severity.value != "note"] == []


# ---------------------------------------------------------------------------
# The language written back: every expression of the bundled rulesets round-trips
# ---------------------------------------------------------------------------


def _expressions(value):  # type: ignore[no-untyped-def]
    if isinstance(value, A.Expr) and not isinstance(value, A.RangeExpr):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _expressions(getattr(value, f.name))
    elif isinstance(value, tuple):
        for v in value:
            yield from _expressions(v)


def test_expr_text_round_trips_every_bundled_expression() -> None:
    result = compile_paths([str(ROOT / "rules")])
    count = 0
    for model in result.rulesets:
        for decl in model.walk():
            for e in _expressions(decl):
                count += 1
                assert canonical(parse_expression(expr_text(e))) == canonical(e), expr_text(e)
    assert count > 1000


@pytest.mark.parametrize("text", ["if a > 1 then 6 then 4+ else never", "(T + 4 - S)+", "-(a - b) * 2",
                                  "not (a and b) or c", "n each not save(3+)", "x in 1..3 and y is soft",
                                  "max(1, 2 - d3) with cover = hard, not charged", "5/3", "1 - (2 - 3)"])
def test_expr_text_keeps_meaning(text: str) -> None:
    e = parse_expression(text)
    assert canonical(parse_expression(expr_text(e))) == canonical(e)
