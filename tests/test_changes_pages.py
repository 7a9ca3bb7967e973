"""The "What these house rules change" page of an overlay and the Changes page of every ruleset."""
from __future__ import annotations

from pathlib import Path

import pytest

from compiler.driver import compile_paths
from compiler.site import SiteOptions, site
from test_diff import HISTORY_EDITS, SKIRMISH, edit, git, needs_git, two_releases, write

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bundled():
    compilation = compile_paths([str(ROOT / "rules" / "classic-40k"), str(ROOT / "rules" / "dark-millennia")])
    assert compilation.ok
    return compilation, site(compilation, SiteOptions())


def test_overlay_has_a_house_rules_page_listing_every_change(bundled):
    compilation, out = bundled
    md = out.page("dark-millennia/house-rules.md").markdown
    overlay = next(rs for rs in compilation.rulesets if rs.id == "dark-millennia")
    from compiler.review.diff import diff_models
    d = diff_models(overlay.base, overlay)
    for c in d.changes:
        if c.kind != "ruleset":
            assert (c.title or c.id).split()[0] in md, c.id
    # replaced: linked to both entries, before and after side by side
    assert "[Armour save](rulebook/shooting_phase.md#save " in md
    assert "(../classic-40k/rulebook/shooting_phase.md#save " in md
    assert "| title | `Saving throw` | `Armour save` |" in md
    # removed: named, linked to the base's entry
    assert "The designer's note “One save, never two” of Classic 40K" in md
    assert "../classic-40k/rulebook/shooting_phase.md#cover_one_roll" in md
    # the odds: the standard matchups (the rules' own expectations: 25/18 → 25/27 in light cover,
    # the base's cover saves being the source's 6+/5+/4+) and the examples whose results moved
    assert ("| 10 Imperial Guardsman with Lasgun at 10 Ork Boy | Cover the target is in: light | 1.39 | 0.93 "
            "| -33% |") in md
    assert "| `mean(r_soft.killed)` | 10/9 (≈ 1.11111) | 25/54 (≈ 0.462963) |" in md


def test_overlay_page_answers_first_then_explains(bundled):
    _, out = bundled
    md = out.page("dark-millennia/house-rules.md").markdown
    odds, plain, replaced = md.index("## Effect on the odds"), md.index("## What changed"), md.index("## Replaced")
    assert odds < plain < replaced
    assert md.index("### Standard matchups") < plain
    head = md[:odds]
    assert len(head.splitlines()) <= 8  # one short paragraph before the answer
    table = md[odds:md.index("### Example results")]
    # situations by their titles, never as ids or settings, and no bare "n/a"
    assert "target_cover" not in table and "cover_method" not in table and "n/a" not in table
    assert "Alternate cover method in use: extra save" in table
    # a row with one number says why the other side has none
    assert "Classic 40K has no “Alternate cover method in use”" in table
    for line in table.splitlines():
        if line.startswith("| ") and "—" in line.split("|")[3]:
            assert "has no" in line or "cannot work it out" in line, line


def test_overlay_page_says_each_change_in_a_sentence_and_diffs_text_word_by_word(bundled):
    _, out = bundled
    md = out.page("dark-millennia/house-rules.md").markdown
    plain = md[md.index("## What changed"):md.index("## Replaced")]
    assert "| Change | Declaration |" not in md  # no table of jargon
    assert "- The rule [Alternate cover](" in plain and "(was “Taking a cover save”)" in plain
    assert "its title and text changed" in plain
    assert "- A new battlefield condition, [Alternate cover method in use](" in plain
    section = md[md.index("{ #ws-change-cover_saves }"):md.index("{ #ws-change-overwatch }")]
    diff = section[section.index('<div class="ws-word-diff">'):]
    assert "<del>" in diff and "<ins>" in diff
    assert "its text changed" not in md
    # the rules code is folded away: every fence after the plain-words part is inside a note
    rest = md[md.index("## Replaced"):]
    fences = [line for line in rest.splitlines() if line.lstrip().startswith("```warscribe")]
    assert fences and all(line.startswith("    ```") for line in fences)
    assert '??? note "The rules code, before and after"' in rest


def test_word_diff_marks_words_and_escapes_them():
    from compiler.site.overlay import word_diff

    assert word_diff("Roll one die.", "Roll two dice.") == "Roll <del>one die.</del><ins>two dice.</ins>"
    hostile = word_diff("a <b>", 'a <script>alert(1)</script> & "x"')
    # escaped, with a word joiner after the "<" so that a script writing it back keeps it text
    assert "<script>" not in hostile and "&lt;\u2060script&gt;" in hostile and "&amp;" in hostile
    assert word_diff("same words", "same words") == "same words"
    assert word_diff("", "new") == "<ins>new</ins>"


def test_house_rules_page_is_linked_from_the_overview_and_the_nav(bundled):
    _, out = bundled
    assert "](house-rules.md)" in out.page("dark-millennia/index.md").markdown
    assert "](changes.md)" in out.page("dark-millennia/index.md").markdown
    assert "house-rules.md" not in out.page("classic-40k/index.md").markdown
    paths = {p.path for p in out.pages}
    assert "classic-40k/house-rules.md" not in paths and "classic-40k/changes.md" in paths
    entry = next(e for e in out.nav if "Dark Millennia house rules" in e)["Dark Millennia house rules"]
    assert entry[1] == {"What these house rules change": "dark-millennia/house-rules.md"}  # next to the overview
    reference = next(e for e in entry if "Reference" in e)["Reference"]
    assert {"Changes": "dark-millennia/changes.md"} in reference


def test_changes_page_shows_the_declared_history(bundled):
    _, out = bundled
    md = out.page("classic-40k/changes.md").markdown
    assert "## History { #ws-history }" in md and "**1.0.0**" in md


def test_changes_page_without_git_has_only_the_history(tmp_path):
    folder = write(tmp_path / "loose" / "skirmish", SKIRMISH)
    md = site(compile_paths([str(folder)])).page("skirmish/changes.md").markdown
    assert "First version." in md and "Between releases" not in md


def test_a_failing_git_never_fails_the_page(tmp_path, monkeypatch):
    import compiler.review.gitsource as gs

    def boom(*a, **k):
        raise OSError("git exploded")
    monkeypatch.setattr(gs, "releases", boom)
    folder = write(tmp_path / "skirmish", SKIRMISH)
    assert "First version." in site(compile_paths([str(folder)])).page("skirmish/changes.md").markdown


@needs_git
def test_changes_page_diffs_consecutive_releases_from_git(tmp_path):
    root = two_releases(tmp_path / "repo", *HISTORY_EDITS)
    md = site(compile_paths([str(root / "rules" / "skirmish")])).page("skirmish/changes.md").markdown
    assert "Harder to wound." in md and "First version." in md
    assert "### 1.0.0 → 1.1.0 { #ws-release-1 }" in md
    assert "| Changed | [" in md and "#to_wound " in md


def test_an_unreadable_git_output_never_fails_the_page(tmp_path, monkeypatch):
    import compiler.review.gitsource as gs

    def garbled(*a, **k):
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    monkeypatch.setattr(gs, "releases", garbled)
    folder = write(tmp_path / "skirmish", SKIRMISH)
    assert "First version." in site(compile_paths([str(folder)])).page("skirmish/changes.md").markdown


def test_a_bug_while_reading_releases_fails_the_build(tmp_path, monkeypatch):
    """Only git's own failures are swallowed: anything else is a bug and must not become an empty page."""
    import compiler.review.gitsource as gs

    def bug(*a, **k):
        raise KeyError("a bug, not git")
    monkeypatch.setattr(gs, "releases", bug)
    folder = write(tmp_path / "skirmish", SKIRMISH)
    with pytest.raises(KeyError, match="a bug, not git"):
        site(compile_paths([str(folder)]))


@needs_git
def test_a_bug_in_the_diff_of_two_releases_fails_the_build(tmp_path, monkeypatch):
    import compiler.site.changes as changes

    root = tmp_path / "repo"
    write(root / "rules" / "skirmish", SKIRMISH)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "v1")
    write(root / "rules" / "skirmish", edit(SKIRMISH, ("version 1.0.0", "version 1.1.0")))
    git(root, "commit", "-q", "-am", "v2")

    def broken(*a, **k):
        raise RuntimeError("diff_models is broken")
    monkeypatch.setattr(changes, "diff_models", broken)
    with pytest.raises(RuntimeError, match="diff_models is broken"):
        site(compile_paths([str(root / "rules" / "skirmish")]))


def test_overlay_page_of_a_small_overlay(tmp_path):
    """An overlay that replaces one roll, its text with it; the base's one example attack is its matchup."""
    write(tmp_path / "rules" / "skirmish", SKIRMISH)
    write(tmp_path / "rules" / "harder", '''\
ruleset harder "Harder: a house rule":
  version 1.0.0
  extends skirmish ^1.0.0

replace test save(Sv) "Armour save":
  roll d6 >= Sv + 1
  """Saves are one <harder> than printed."""
''')
    compilation = compile_paths([str(tmp_path / "rules")])
    assert compilation.ok, compilation.diagnostics
    md = site(compilation, SiteOptions()).page("harder/house-rules.md").markdown
    assert "house rules for\n[Skirmish](../skirmish/index.md) (version 1.0.0 or a later 1.x)." in md
    assert md.index("## Effect on the odds") < md.index("## What changed")
    assert "n/a" not in md
    assert "- The roll [Armour save](" in md
    assert "&lt;\u2060harder&gt;" in md and "<harder>" not in md  # the word diff is escaped
    assert "<ins>" in md
    # the Orks' 6+ save becomes 7+ (never): 6/5 as many wounds get through, 25/18 → 5/3, +20%
    assert "1 standard matchup changed: these house rules raise the mean killed in 1 (+20%)." in md
    assert "| 1.39 | 1.67 | +20% |" in md


@needs_git
def test_a_release_diff_is_kept_between_builds(tmp_path, monkeypatch):
    """The diff of two committed releases is worked out once, then read back: the old versions
    are not compiled again, and the page is the same as without the cache."""
    import compiler.review.gitsource as gs
    from compiler.ast import cached

    root = two_releases(tmp_path / "repo")
    folder = str(root / "rules" / "skirmish")
    monkeypatch.setenv("WARSCRIBE_CACHE", "0")
    uncached = site(compile_paths([folder])).page("skirmish/changes.md").markdown
    monkeypatch.delenv("WARSCRIBE_CACHE")
    monkeypatch.setenv("WARSCRIBE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cached, "_state", {})
    first = site(compile_paths([folder])).page("skirmish/changes.md").markdown
    assert list((tmp_path / "cache" / "ast").glob("*.release"))
    # the current files' ASTs are kept; the old releases', read in a temporary folder, are not
    assert len(list((tmp_path / "cache" / "ast").glob("*.ast"))) == len(list(Path(folder).glob("*.rules")))

    def compiled_again(*a, **k):
        raise AssertionError("an old release was compiled again")
    monkeypatch.setattr(gs, "load_side", compiled_again)
    monkeypatch.setattr(gs, "load_commit", compiled_again)
    again = site(compile_paths([folder])).page("skirmish/changes.md").markdown
    assert first == again == uncached
    assert "### 1.0.0 → 1.1.0" in again and "#to_wound " in again


@needs_git
def test_the_newest_release_is_the_work_tree_when_its_rules_are_unchanged(tmp_path, monkeypatch):
    """The newest release's rules, as committed, are the work tree's: its model is the one compiled
    already (only the older release is compiled from git), and the page is the same.  With the
    work tree edited since, or a new file in it, the newest release is read from git again."""
    import subprocess

    import compiler.review.gitsource as gs
    from compiler.ast import cached

    root = two_releases(tmp_path / "repo")
    folder = root / "rules" / "skirmish"
    monkeypatch.setenv("WARSCRIBE_CACHE", "0")  # nothing kept between the builds below
    monkeypatch.setattr(cached, "_state", {})
    loads: list[str] = []
    real = gs.load_commit
    monkeypatch.setattr(gs, "load_commit", lambda repo, commit, spec: loads.append(commit) or real(repo, commit, spec))
    v1, v2 = subprocess.run(["git", "-C", str(root), "rev-list", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.split()[::-1]

    def page() -> str:
        loads.clear()
        return site(compile_paths([str(folder)])).page("skirmish/changes.md").markdown
    clean = page()
    assert loads == [v1] and "### 1.0.0 → 1.1.0" in clean and "#to_wound " in clean
    assert gs.unchanged_since(root, v2, [folder]) and not gs.unchanged_since(root, v1, [folder])
    assert not gs.unchanged_since(root, v2, [folder, tmp_path / "elsewhere"])  # a base outside the repository

    # an edit after the release: the release is read from git, and the page shows what it holds
    main = next(folder.glob("*.rules"))
    main.write_text(main.read_text().replace("    T - S == 0  -> 5+\n", "    T - S == 0  -> 6+\n"))
    assert page() == clean and loads == [v2, v1]
    main.write_text(main.read_text().replace("    T - S == 0  -> 6+\n", "    T - S == 0  -> 5+\n"))
    (folder / "extra.rules").write_text('rule extra "Extra": "Not committed."\n')
    assert not gs.unchanged_since(root, v2, [folder])
    (folder / "extra.rules").unlink()
    assert page() == clean and loads == [v1]


@needs_git
def test_unchanged_since_takes_a_folder_name_literally(tmp_path):
    """A folder named like a glob pattern is still the folder itself, not the files it would match."""
    import subprocess

    import compiler.review.gitsource as gs

    root = tmp_path / "repo"
    odd = write(root / "rules" / "sk[i]rmish*", SKIRMISH)
    write(root / "rules" / "skirmish", SKIRMISH)  # what the pattern would match
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "v1")
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert gs.unchanged_since(root, head, [odd])
    main = next(odd.glob("*.rules"))
    main.write_text(main.read_text() + "\n")
    assert not gs.unchanged_since(root, head, [odd])
    assert gs.unchanged_since(root, head, [root / "rules" / "skirmish"])
