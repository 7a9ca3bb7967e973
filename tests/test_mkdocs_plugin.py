"""The MkDocs plugin and `warscribe build`: real builds of small projects in temporary folders."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent

CONFIG = """\
site_name: Test rulebooks
docs_dir: site
site_dir: public
theme:
  name: material
  font: false
  features: [content.tooltips]
plugins:
  - search
  - warscribe:
      rules_dir: rules
markdown_extensions:
  - tables
  - admonition
  - attr_list
  - md_in_html
  - toc
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.highlight: {pygments_lang_class: true}
validation:
  anchors: warn
"""

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def project(tmp_path: Path, rulesets: dict[str, str] | None = None, copy: tuple[str, ...] = ()) -> Path:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "about.md").write_text("# About\n\nA hand-written page.\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    rules = tmp_path / "rules"
    rules.mkdir()
    for name in copy:
        shutil.copytree(ROOT / "rules" / name, rules / name)
    for name, text in (rulesets or {}).items():
        (rules / name).mkdir()
        (rules / name / "ruleset.rules").write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def mkdocs(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(root / "mkdocs.yml"), *args],
                          capture_output=True, text=True, env=ENV, cwd=root, timeout=300)


def build_here(root: Path, monkeypatch: pytest.MonkeyPatch, strict: bool = False) -> None:
    """What `mkdocs build -f root/mkdocs.yml [--strict]` does, in this process (no interpreter
    and theme to start again); raises mkdocs' Abort where the command would fail.  The tests of
    what the command prints on a failure run it as a process (:func:`mkdocs`)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    cfg = load_config(str(root / "mkdocs.yml"), strict=strict)
    cfg.plugins.on_startup(command="build", dirty=False)
    try:
        build(cfg)
    finally:
        cfg.plugins.on_shutdown()


def test_strict_build_of_a_real_ruleset(tmp_path, monkeypatch):
    root = project(tmp_path, copy=("console-40k",))
    build_here(root, monkeypatch, strict=True)
    public = root / "public"
    for page in ("index.html", "console-40k/index.html", "console-40k/lexicon/index.html",
                 "console-40k/quick-reference/index.html", "console-40k/rulebook/setup/index.html",
                 "about/index.html", "assets/warscribe.css"):
        assert (public / page).is_file(), page
    lexicon = (public / "console-40k/lexicon/index.html").read_text(encoding="utf-8")
    assert 'id="BS"' in lexicon
    setup = (public / "console-40k/rulebook/setup/index.html").read_text(encoding="utf-8")
    assert 'href="../../lexicon/#BS" title="How accurately the model shoots."' in setup
    assert "warscribe.css" in setup
    index = (public / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "Ballistic Skill" in index  # generated pages are searchable


def test_rules_with_errors_fail_the_build_with_the_diagnostics(tmp_path):
    root = project(tmp_path, {"broken": '''\
        ruleset broken "Broken":
          version 1.0.0
        stat BS "Ballistic Skill" 1..10
        test hit(BS) "Hit" = roll d6 >= Sv
        '''})
    result = mkdocs(root)
    assert result.returncode != 0
    assert "rules/broken/ruleset.rules:4:" in result.stderr
    assert "error[W" in result.stderr and "'Sv'" in result.stderr
    assert "^" in result.stderr  # the caret under the span, as `warscribe check` prints it


def test_rules_warnings_fail_only_strict_builds(tmp_path, monkeypatch):
    root = project(tmp_path, {"loose": '''\
        ruleset loose "No version":
          authors "Sam"
        stat BS "Ballistic Skill" 1..10: "Aim."
        '''})
    build_here(root, monkeypatch)  # passes: the warning is printed, not fatal
    strict = mkdocs(root, "--strict")
    assert strict.returncode != 0
    assert "has no version" in strict.stderr


def test_hostile_names_stay_text_in_the_built_site(tmp_path, monkeypatch):
    root = project(tmp_path, {"evil": '''\
        ruleset evil "Evil <script>alert(1)</script>":
          version 1.0.0
        stat BS "Ballistic Skill" 1..10: "Aim."
        section s "<img src=x onerror=alert(2)>":
          """See [[u]] and <script>alert(3)</script>."""
          unit u "<script>alert(1)</script>":
            BS 4
        '''})
    build_here(root, monkeypatch, strict=True)
    for html in (root / "public").rglob("*.html"):
        # Inside <title> the browser reads text only (and shows the name as written), so the
        # theme's `page.title | striptags` there is harmless; everywhere else must be escaped.
        text = re.sub(r"<title>.*?</title>", "", html.read_text(encoding="utf-8"), flags=re.S)
        assert "<script>alert" not in text, html
        assert "<img src=x" not in text, html
    sheet = (root / "public" / "evil" / "datasheets" / "index.html").read_text(encoding="utf-8")
    assert "&lt;\u2060script&gt;alert(1)&lt;\u2060/script&gt;" in sheet  # text, also read back as HTML


def test_warscribe_build_needs_no_configuration(tmp_path, monkeypatch):
    """Without an mkdocs.yml, `warscribe build` makes a default site from rules/."""
    from click.testing import CliRunner

    from compiler.cli import app

    shutil.copytree(ROOT / "rules" / "console-40k", tmp_path / "rules" / "console-40k")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    result = CliRunner().invoke(app, ["build", "--out", str(tmp_path / "web")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "web" / "console-40k" / "lexicon" / "index.html").is_file()
    assert "built" in result.output and "pages" in result.output


def test_warscribe_build_explains_a_folder_without_rules(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from compiler.cli import app

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["build"])
    assert result.exit_code == 2
    assert "no mkdocs.yml and no rules/ folder" in result.output


def test_serve_rebuilds_only_the_pages_a_rules_change_touches(tmp_path, monkeypatch):
    """`warscribe serve` (mkdocs serve --dirty): a rebuild after editing one ruleset
    recompiles that ruleset alone and rewrites only the pages whose text changed."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    root = project(tmp_path, copy=("console-40k", "classic-40k"))
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    out = tmp_path / "served"

    def rebuild():
        cfg = load_config(str(root / "mkdocs.yml"), site_dir=str(out))
        build(cfg, serve_url="http://127.0.0.1:8000/", dirty=True)
        return cfg

    cfg = load_config(str(root / "mkdocs.yml"), site_dir=str(out))
    cfg.plugins.on_startup(command="serve", dirty=True)
    try:
        rebuild()
        pages = {p: p.stat().st_mtime_ns for p in out.rglob("index.html")}
        plugin = cfg.plugins["warscribe"]
        compiled = dict(plugin._compiled)
        lexicon = root / "rules" / "console-40k" / "lexicon.rules"
        lexicon.write_text(lexicon.read_text(encoding="utf-8").replace(
            "How accurately the model shoots.", "How accurately the model shoots, edited."), encoding="utf-8")
        rebuild()
        assert "shoots, edited." in (out / "console-40k" / "lexicon" / "index.html").read_text(encoding="utf-8")
        changed = {p.relative_to(out).as_posix() for p, t in pages.items() if p.stat().st_mtime_ns != t}
        assert "console-40k/lexicon/index.html" in changed
        assert not any(p.startswith("classic-40k/") for p in changed), changed
        assert "about/index.html" not in changed
        classic = next(f for f in compiled if f.name == "classic-40k")
        assert plugin._compiled[classic] is compiled[classic]  # the other ruleset was not recompiled
    finally:
        cfg.plugins.on_shutdown()


def test_the_wheel_ships_the_templates_and_the_plugin(wheel: Path) -> None:
    """The wheel (built once per run by conftest's ``wheel``) holds what the site needs."""
    import zipfile
    names = zipfile.ZipFile(wheel).namelist()
    for name in ("compiler/site/templates/lexicon.md.j2", "compiler/site/templates/item/table.md.j2",
                 "compiler/site/templates/_macros.md.j2", "compiler/site/assets/warscribe.css",
                 "compiler/site/mkdocs_plugin.py"):
        assert name in names, name
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "warscribe = compiler.site.mkdocs_plugin:WarscribePlugin" in zipfile.ZipFile(wheel).read(entry).decode()


def test_installed_wheel_builds_a_site_from_another_folder(installed: Path, tmp_path: Path) -> None:
    """Run from a folder that holds only rules/: the templates come from the installed package,
    and with no mkdocs.yml a default site is built into ./public."""
    work = tmp_path / "my-rules"
    shutil.copytree(ROOT / "rules" / "console-40k", work / "rules" / "console-40k")
    env = {**ENV, "PYTHONPATH": str(installed), "NO_COLOR": "1"}
    probe = subprocess.run([sys.executable, "-c", "import compiler.site as r; print(r.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True)
    assert probe.stdout.startswith(str(installed))
    render = subprocess.run([sys.executable, "-m", "compiler", "render", "--out", "md"], cwd=work, env=env,
                            capture_output=True, text=True, timeout=300)
    assert render.returncode == 0, render.stdout + render.stderr
    assert (work / "md" / "console-40k" / "quick-reference.md").is_file()
    build = subprocess.run([sys.executable, "-m", "compiler", "build"], cwd=work, env=env,
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    assert (work / "public" / "console-40k" / "lexicon" / "index.html").is_file()
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = subprocess.run([sys.executable, "-m", "compiler", "build"], cwd=empty, env=env,
                             capture_output=True, text=True, timeout=300)
    assert nothing.returncode == 2
    assert "no mkdocs.yml and no rules/ folder" in nothing.stderr


def test_serve_learns_of_a_saved_file_from_the_system_and_not_of_one_only_read(tmp_path):
    """`warscribe serve` swaps MkDocs' polling (every 0.5 s) for the system's file watcher:
    a saved file asks for a rebuild at once; a file opened and read (as every build does) does
    not, or each build would start the next one."""
    import logging
    import threading

    from mkdocs.livereload import LiveReloadServer
    from watchdog.observers.polling import PollingObserver

    from compiler.site.mkdocs_plugin import WarscribePlugin

    docs, rules, config = tmp_path / "site", tmp_path / "rules", tmp_path / "mkdocs.yml"
    docs.mkdir()
    rules.mkdir()
    (docs / "about.md").write_text("# About\n", encoding="utf-8")
    (rules / "demo.rules").write_text("# rules\n", encoding="utf-8")
    config.write_text("site_name: demo\n", encoding="utf-8")
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path / "out"))
    server.watch(str(docs))
    server.watch(str(config))
    assert isinstance(server.observer, PollingObserver)
    plugin = WarscribePlugin()
    plugin.load_config({"rules_dir": "rules"})

    class Config(dict):  # what on_serve reads of MkDocs' config
        docs_dir = str(docs)
        config_file_path = str(config)
    plugin.on_serve(server, Config(), None)
    assert not isinstance(server.observer, PollingObserver)
    assert server.build_delay <= 0.05

    # What the server's watch callback hears, from its own debug line per event, in order: a
    # watched folder's events arrive in the order they happened (one system watch each), so once
    # the change made last in each is heard, everything done before it there has been too.  No
    # clock is read and nothing sleeps; the wait below only guards against a hang.
    heard: list[str] = []
    news = threading.Condition()

    class Heard(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            with news:
                heard.append(record.getMessage())
                news.notify_all()

    logger = logging.getLogger("mkdocs.livereload")
    handler, level = Heard(level=logging.DEBUG), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    server.observer.start()  # the system watches are in place when start() returns
    try:
        for path in (rules / "demo.rules", docs / "about.md", config):
            path.read_text(encoding="utf-8")  # read as every build reads them: no rebuild
        saved = [rules / "demo.rules", docs / "about.md", config]
        for path in saved:
            path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        with news:
            assert news.wait_for(lambda: all(any(str(p) in h and "Modified" in h for h in heard) for p in saved),
                                 timeout=120), heard
        events = [h for h in heard if "Event(" in h]
        assert not [h for h in events if "Opened" in h or "ClosedNoWrite" in h], events
        assert server._want_rebuild  # a saved file asks for a rebuild
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        server.observer.stop()
        server.observer.join()


def test_search_reads_less_html_and_indexes_the_same(tmp_path, monkeypatch):
    """The plugin hands the theme's search each page without the insides of the blocks it skips
    (compiler.site.searchview): the search index and every page are byte for byte what the search
    plugin makes of the whole HTML."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    import compiler.site.mkdocs_plugin as plugin_module

    root = project(tmp_path, copy=("console-40k",))
    (root / "site" / "about.md").write_text(textwrap.dedent("""\
        # About

        A hand-written page with code, a table and a heading inside a folded block.

        ```python
        print("not searched")
        ```

        | a | b |
        |---|---|
        | 1 | 2 |

        <details><summary>More</summary><h3 id="inside">Inside</h3><p>Folded text.</p></details>
        """), encoding="utf-8")
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    viewed: list[str] = []
    real = plugin_module.search_view

    def counted(html: str) -> str | None:
        view = real(html)
        if view is not None:
            viewed.append(html)
        return view

    def built(out: Path) -> dict[str, bytes]:
        cfg = load_config(str(root / "mkdocs.yml"), site_dir=str(out))
        cfg.plugins.on_startup(command="build", dirty=False)
        try:
            build(cfg)
        finally:
            cfg.plugins.on_shutdown()
        return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    monkeypatch.setattr(plugin_module, "search_view", counted)
    fast = built(tmp_path / "fast")
    assert len(viewed) >= 8  # the generated pages were indexed from their views
    monkeypatch.setattr(plugin_module, "search_view", lambda html: None)
    whole = built(tmp_path / "whole")
    assert fast.keys() == whole.keys()
    assert fast["search/search_index.json"] == whole["search/search_index.json"]
    assert [p for p in fast if fast[p] != whole[p]] == []
    index = json.loads(fast["search/search_index.json"])
    assert any("Folded text." in doc["text"] for doc in index["docs"])  # not a skipped block: still searched
    assert not any("not searched" in doc["text"] for doc in index["docs"])


def test_a_mkdocs_build_never_publishes_the_mark_of_a_warscribe_build(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`mike deploy` runs `mkdocs build`, which keeps the hidden files of the folder it cleans:
    the mark a `warscribe build` left in public/ must not be published with the new site."""
    from compiler.site.output import MARKER

    root = project(tmp_path, {"tiny": 'ruleset tiny "Tiny":\n  version 1.0.0\n\nstat BS "Skill" 1..10: "Aim."\n'})
    (root / "public").mkdir()
    (root / "public" / MARKER).write_text("from an earlier warscribe build\n", encoding="utf-8")
    (root / "public" / ".kept").write_text("someone's hidden file\n", encoding="utf-8")
    build_here(root, monkeypatch)
    assert (root / "public" / "tiny" / "lexicon" / "index.html").is_file()
    assert not (root / "public" / MARKER).exists()
    assert (root / "public" / ".kept").is_file()  # MkDocs' own rule for hidden files stands otherwise


# A duel small enough to sweep in a test: three gunners (10 points each) against four troopers.
BALANCE_DUEL = '''\
    ruleset {id} "Duel {id}":
      version 1.0.0
    stat BS "Ballistic Skill" 1..10
    stat A "Attacks" 1..10
    stat Sv "Save" target
    stat W "Wounds" 1..10 role wounds
    test hit(BS) = roll d6 >= BS
    test save(Sv) = roll d6 >= Sv
    attack shooting(shooter, weapon, target) "Shooting":
      shots = shooter.models each weapon.A
      hits = shots each hit(shooter.BS)
      unsaved = hits each not save(target.Sv)
      killed = unsaved removes target
    unit gunner "Gunner":
      BS 4  W 1  Sv 6+
      weapons pistol
      points 10
    unit trooper "Trooper":
      BS 3  W 1  Sv 5+
      weapons carbine
      points 6
    weapon pistol "Pistol":
      A 2
    weapon carbine "Carbine":
      A 1
    game duel "A firefight":
      turns 4
      activation whole_army
      phase fire "Fire":
        action shoot "Shoot": attack shooting
      victory wipe_out "Annihilation" by annihilation: "A side with no model left loses."
    scenario skirmish "Gunners against troopers":
      game duel
      distance 12"
      first random
      side gunners "Gunners":
        3 gunner
      side troopers "Troopers":
        4 trooper
    '''
BALANCE_OPTION = "      balance:\n        swept: {scenario: skirmish, vary: gunner.points=6..14:2, games: 300}\n"


def test_balance_section_shows_the_sweep_that_balance_gives(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The Balance section of an opted-in scenario shows `warscribe balance`'s own answer for the
    same settings (its Python API, called here); a ruleset without the option has no section."""
    from compiler.battle.balance import parse_vary, sweep
    from compiler.driver import compile_paths

    from compiler.site import battles

    monkeypatch.setattr(battles, "GAMES", 20)  # the Battles pages' outcome tables are not what is tested here,
    monkeypatch.setattr(battles, "SITE_BUDGET", 0.0)  # nor their player (greedy): the Balance section is
    root = project(tmp_path, {"swept": BALANCE_DUEL.format(id="swept"), "plain": BALANCE_DUEL.format(id="plain")})
    config = root / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("      rules_dir: rules\n",
                                                                 "      rules_dir: rules\n" + BALANCE_OPTION),
                      encoding="utf-8")
    build_here(root, monkeypatch, strict=True)
    path = str(root / "rules" / "swept")
    model = compile_paths([path]).rulesets[0]
    sc = model.get("skirmish")
    expected = sweep(path, model, sc, parse_vary("gunner.points=6..14:2", model), 300, 1)
    assert [p["models"] for p in expected["points"]] == [5, 3, 3, 2, 2]  # 30 points of gunners at 6, 8, … 14

    page = (root / "public" / "swept" / "battles" / "index.html").read_text(encoding="utf-8")
    assert 'id="skirmish-balance"' in page
    section = page[page.index('id="skirmish-balance"'):page.index('id="skirmish-report"')]
    rows = re.findall(r"<tr>\s*<td>(\d+)</td>\s*<td>(\d+)</td>\s*<td>([\d.]+)%</td>\s*<td>([\d.]+)% – ([\d.]+)%</td>",
                      section)
    assert rows == [(str(p["value"]), str(p["models"]), f"{p['win_rate'] * 100:.1f}", f"{p['ci95'][0] * 100:.1f}",
                     f"{p['ci95'][1] * 100:.1f}") for p in expected["points"]]
    dots = re.findall(r'<circle class="ws-dot"[^>]*><title>(\d+): ([\d.]+)%', section)  # the chart: the same
    assert dots == [(str(p["value"]), f"{p['win_rate'] * 100:.1f}") for p in expected["points"]]
    fair = expected["fair"]
    if fair is None:
        assert "No fair value in this range" in section
    else:
        assert f"Fair value: {fair['value']:g} points a model" in section
        assert f"95% interval {fair['ci95'][0]:g} to\n{fair['ci95'][1]:g}" in section
        assert f"fair: {fair['value']:g}</text>" in section  # marked on the curve
    assert "--vary gunner.points=6..14:2 --games 300 --seed 1" in section

    other = (root / "public" / "plain" / "battles" / "index.html").read_text(encoding="utf-8")
    assert 'id="skirmish-outcome"' in other and "-balance" not in other and "Fair value" not in other


def test_balance_settings_that_cannot_be_swept_are_refused_in_one_sentence() -> None:
    import pytest

    from compiler.driver import compile_text
    from compiler.site.balance import check, settings

    model = compile_text(textwrap.dedent(BALANCE_DUEL.format(id="swept")), "swept.rules").rulesets[0]
    good = {"scenario": "skirmish", "vary": "gunner.points=6..14:2"}
    assert settings({"swept": good})[0].games == 400  # the default
    cases = [({"swept": {"vary": "gunner.points=6..8"}}, "needs a scenario and vary"),
             ({"swept": {**good, "games": 0}}, "a whole number from 1"),
             ({"swept": {**good, "policy": "clever"}}, "the policy 'clever'"),
             ({"nope": good}, "no ruleset 'nope'"),
             ({"swept": {**good, "scenario": "brawl"}}, "has no scenario 'brawl'"),
             ({"swept": {**good, "vary": "gunner.points=40..50"}}, "its army is empty"),
             ({"swept": {**good, "vary": "pistol.points=1..2"}}, "not a unit profile"),
             ({"swept": [good, good]}, "is given twice")]
    for raw, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            check(settings(raw), {"swept": model})


def test_balance_sweep_is_kept_by_the_rules_meaning(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A warm build plays no game of the sweep; an edit to a title keeps it, one to a stat does not."""
    import pytest

    from compiler.ast import cached
    from compiler.battle.rules import Rules
    from compiler.driver import compile_text
    from compiler.site import balance as site_balance
    from compiler.site.balance import BalanceSetting, balance_view
    from compiler.site.battles import rules_key

    source = textwrap.dedent(BALANCE_DUEL.format(id="swept"))
    models = [compile_text(text, "swept.rules").rulesets[0] for text in (
        source, source.replace('"Gunners against troopers"', '"Gunners and troopers"'),
        source.replace("BS 4  W 1  Sv 6+", "BS 3  W 1  Sv 6+"))]
    monkeypatch.setenv("WARSCRIBE_CACHE_DIR", str(tmp_path / "cache"))  # a cold cache folder
    monkeypatch.delenv("WARSCRIBE_CACHE", raising=False)
    monkeypatch.setattr(cached, "_state", {})
    setting = BalanceSetting("swept", "skirmish", "gunner.points=6..10:2", 60)

    def view(rs):  # type: ignore[no-untyped-def]
        return balance_view(rs, Rules(rs), rs.get("skirmish"), rules_key(rs), setting, 1)

    first = view(models[0])
    assert [p.value for p in first.points] == [6, 8, 10] and list((tmp_path / "cache").rglob("*.balance"))

    def played(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the sweep was played again")
    monkeypatch.setattr(site_balance, "sweep", played)
    assert view(models[0]) == first
    assert view(models[1]) == first
    with pytest.raises(AssertionError, match="played again"):
        view(models[2])
