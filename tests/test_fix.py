"""``warscribe check --fix``: the certain fixes, made by spans, printed, idempotent, safe."""
from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path
from typing import Any

from conftest import ROOT, warscribe

# The last commit whose rules/ were written for 0.1.0: the next one declared `role wounds`, which
# `removes` needs since (W412).
BEFORE_ROLE_WOUNDS = "3e18ce839660a47ce747d80a90a47b623d8bd865"
OLD_RULESETS = ("40k-s", "classic-40k", "console-40k", "dark-millennia")


def old_rules(into: Path) -> Path:
    """rules/ as it was at :data:`BEFORE_ROLE_WOUNDS`, extracted from git into ``into``."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    archive = subprocess.run(["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-C", str(ROOT),
                              "archive", "--format=tar", BEFORE_ROLE_WOUNDS, *(f"rules/{r}" for r in OLD_RULESETS)],
                             capture_output=True, check=True, env=env, timeout=60).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "rules"


def texts(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text("utf-8") for p in sorted(folder.rglob("*.rules"))}


def test_rules_written_for_the_previous_release_become_clean_and_their_examples_pass(tmp_path: Path) -> None:
    rules = old_rules(tmp_path)
    before = texts(rules)
    for name in OLD_RULESETS[:3]:
        r = warscribe("check", f"rules/{name}", cwd=tmp_path)
        assert r.returncode == 1 and "error[W412]" in r.stderr, r.stderr
    for name in OLD_RULESETS:
        r = warscribe("check", "--fix", "--no-versions", f"rules/{name}", cwd=tmp_path)
        assert r.returncode == 0, r.stdout + r.stderr
    after = texts(rules)
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"40k-s/lexicon.rules", "classic-40k/characteristics.rules", "console-40k/lexicon.rules"}
    for k in changed:  # one line each: the wounds stat, `role wounds` added, the rest as written
        old_lines, new_lines = before[k].splitlines(), after[k].splitlines()
        diff = [(a, b) for a, b in zip(old_lines, new_lines) if a != b]
        assert len(old_lines) == len(new_lines) and len(diff) == 1, diff
        (a, b), = diff
        assert b == a.replace('"Wounds" 1..', '"Wounds" 1..').replace(": \"", " role wounds: \"", 1), (a, b)
    # Each change is printed; a second run makes none and leaves every byte as it is.
    r = warscribe("check", "--fix", "--no-versions", "rules/console-40k", cwd=tmp_path)
    assert "0 fixes made" in r.stdout and texts(rules) == after
    for name in OLD_RULESETS:
        r = warscribe("test", f"rules/{name}", cwd=tmp_path)
        assert r.returncode == 0 and " 0 failed" in r.stdout, r.stdout


SMALL = '''ruleset s "S":
  version 1.0.0

# The wounds, as the game calls them.
stat W "Wounds" 1..10: "w"   # kept
stat Sv "Save" target: "s"

ability fnp(X: 2..6) "FNP": "x"
  on each damage: ignored on X+     # the old form

test save(Sv) = roll d6 >= Sv
unit trooper "Trooper":
  W 2  Sv 4+
  abilities fnp(5)
attack shoot(target) "Shoot":
  attacks = target.models
  unsaved = attacks each not save(target.SV)
  killed  = unsaved removes target
'''


def test_each_fix_is_made_in_place_keeping_comments_and_layout(tmp_path: Path) -> None:
    folder = tmp_path / "rules" / "s"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(SMALL, "utf-8")
    r = warscribe("check", "--fix", "--no-versions", "rules/s", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    fixed = (folder / "ruleset.rules").read_text("utf-8")
    assert fixed == SMALL.replace('1..10: "w"   # kept', '1..10 role wounds: "w"   # kept').replace(
        "on each damage: ignored on X+     # the old form", "on each damage: roll d6, ignored on X+     # the old form"
    ).replace("target.SV)", "target.Sv)")
    for code, line in (("W412", 5), ("W413", 9), ("W101", 17)):
        assert f"rules/s/ruleset.rules:{line}:" in r.stdout and f"fixed {code}" in r.stdout, (code, r.stdout)
    assert "3 fixes made" in r.stdout
    assert "  + stat W \"Wounds\" 1..10 role wounds: \"w\"   # kept" in r.stdout
    again = warscribe("check", "--fix", "--no-versions", "rules/s", cwd=tmp_path)
    assert "0 fixes made" in again.stdout and (folder / "ruleset.rules").read_text("utf-8") == fixed


def test_a_name_with_more_than_one_close_match_is_not_renamed(tmp_path: Path) -> None:
    folder = tmp_path / "rules" / "s"
    folder.mkdir(parents=True)
    text = SMALL.replace('stat Sv "Save" target: "s"', 'stat Sv "Save" target: "s"\nstat SW "Swim" 1..6: "s"')
    text = text.replace("target.SV)", "target.S)")
    (folder / "ruleset.rules").write_text(text, "utf-8")
    r = warscribe("check", "--fix", "--no-versions", "rules/s", cwd=tmp_path)
    assert r.returncode == 1 and "error[W101]" in r.stderr
    assert "target.S)" in (folder / "ruleset.rules").read_text("utf-8")


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path: Path, monkeypatch: Any) -> None:
    folder = tmp_path / "rules" / "s"
    folder.mkdir(parents=True)
    source = folder / "ruleset.rules"
    source.write_text(SMALL, "utf-8")
    import compiler.driver

    real = compiler.driver.compile_paths

    def compile_then_edit(paths: Any, *args: Any, **kwargs: Any) -> Any:
        result = real(paths, *args, **kwargs)
        source.write_text(source.read_text("utf-8") + "# typed meanwhile\n", "utf-8")
        return result
    monkeypatch.setattr(compiler.driver, "compile_paths", compile_then_edit)
    r = warscribe("check", "--fix", "--no-versions", "rules/s", cwd=tmp_path)
    assert "changed since it was read; not fixed" in r.stderr
    assert source.read_text("utf-8").startswith(SMALL) and source.read_text("utf-8").endswith("# typed meanwhile\n")
    assert "role wounds" not in source.read_text("utf-8")


def test_fix_with_json_keeps_stdout_for_the_diagnostics(tmp_path: Path) -> None:
    import json
    folder = tmp_path / "rules" / "s"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(SMALL, "utf-8")
    r = warscribe("check", "--fix", "--no-versions", "--format", "json", "rules/s", cwd=tmp_path)
    assert json.loads(r.stdout)["diagnostics"] == [] and r.returncode == 0
    assert "fixed W413" in r.stderr


def test_the_language_server_offers_the_same_fixes(tmp_path: Path) -> None:
    from lsprotocol import types as T

    from compiler.fixes import _line_starts
    from compiler.lsp import features as F
    from compiler.lsp.index import real, snapshot

    folder = tmp_path / "rules" / "s"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(SMALL, "utf-8")
    path = real(str(folder / "ruleset.rules"))
    snap = snapshot(str(folder))
    diagnostics = F.lsp_diagnostics(snap)[path]
    assert sorted(str(d.code) for d in diagnostics if d.severity == T.DiagnosticSeverity.Error) == \
        ["W101", "W412", "W413"]
    actions = F.code_actions(snap, "file://" + path, path, diagnostics)
    fixes = [a for a in actions if isinstance(a, T.CodeAction) and a.title.startswith("Fix: ")]
    assert len(fixes) == 3 and all(a.is_preferred for a in fixes)
    text = SMALL
    starts = _line_starts(text)
    edits = [e for a in fixes for e in (a.edit.changes or {}).get("file://" + path, [])]  # type: ignore[union-attr]
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a = starts[e.range.start.line] + e.range.start.character
        b = starts[e.range.end.line] + e.range.end.character
        text = text[:a] + e.new_text + text[b:]
    r = warscribe("check", "--fix", "--no-versions", "rules/s", cwd=tmp_path)
    assert r.returncode == 0 and text == (folder / "ruleset.rules").read_text("utf-8")


def test_a_base_rulesets_file_outside_the_paths_given_is_not_written(tmp_path: Path) -> None:
    rules = old_rules(tmp_path)
    lexicon = rules / "classic-40k" / "characteristics.rules"
    before = lexicon.read_bytes()
    r = warscribe("check", "--fix", "--no-versions", "rules/dark-millennia", cwd=tmp_path)
    assert r.returncode == 1 and lexicon.read_bytes() == before
    assert "rules/classic-40k/characteristics.rules: outside rules/dark-millennia; not fixed" in r.stderr


CHOICES = '''ruleset c "C":
  version 1.0.0

stat BS "Ballistic Skill" 2..6: "b"
situation cover "Cover" one of open, soft, hard
test hit(BS) = roll d6 >= BS
modifier hiding "Hiding": -1 to hit when cover is sfot   # a typo
rule cover_rule "Cover": "Hits on a unit [[hidign|in hiding]] are harder."

example e "E":
  let h = hit(4) with cover = hadr
  expect P(h) = 1/3
'''


def test_a_misspelt_choice_and_link_are_fixed_where_the_match_is_certain(tmp_path: Path) -> None:
    folder = tmp_path / "rules" / "c"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(CHOICES, "utf-8")
    r = warscribe("check", "--fix", "--no-versions", "rules/c", cwd=tmp_path)
    fixed = (folder / "ruleset.rules").read_text("utf-8")
    assert fixed == CHOICES.replace("is sfot", "is soft").replace("[[hidign|", "[[hiding|").replace(
        "= hadr", "= hard"), r.stdout + r.stderr
    assert r.returncode == 0 and "3 fixes made" in r.stdout
