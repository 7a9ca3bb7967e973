"""The renderer: the Markdown tree made from the bundled rulesets and from hostile ones."""
from __future__ import annotations

import posixpath
import re
import textwrap
from pathlib import Path

from html import unescape
from html.parser import HTMLParser

import jinja2
import jinja2.meta
import markdown
import pytest

from compiler import ast as A
from compiler.driver import compile_paths, compile_text
from compiler.site import RenderError, SiteOptions, site
from compiler.site.compare import Matchup
from compiler.site.env import environment, template_names
from compiler.site.markup import plain, prose
from compiler.site.pages import TEMPLATE_CONTEXT, checked_context
from compiler.site.sitemap import SiteMap
from test_diff import SKIRMISH, edit, git, needs_git, write

ROOT = Path(__file__).resolve().parent.parent

MATCHUP = Matchup.from_config({
    "id": "marines", "title": "Marines shoot Orks", "ask": "Orks removed",
    "rulesets": {"console-40k": "shooting(10 space_marine, boltgun, 10 ork_boy).killed",
                 "classic-40k": {"expression": "shooting(10 space_marine, boltgun, 10 ork_boy).killed",
                                 "note": "in the open"}},
})

# The Markdown extensions of the bundled mkdocs.yml, to look at the HTML a page becomes.
EXTENSIONS = ["tables", "admonition", "abbr", "attr_list", "md_in_html", "toc", "pymdownx.details",
              "pymdownx.superfences", "pymdownx.highlight", "pymdownx.inlinehilite"]

ANCHOR = re.compile(r"\{:? #([A-Za-z0-9_.-]+) \}|id=\"([^\"]+)\"")
LINK = re.compile(r"\]\(([^)\s\"]*)(?: \"[^\"]*\")?\)")


@pytest.fixture(scope="module")
def bundled():
    compilation = compile_paths([str(ROOT / "rules")])
    assert compilation.ok
    return compilation, site(compilation, SiteOptions(matchups=(MATCHUP,)))


def anchors_of(markdown_text: str) -> list[str]:
    return [a or b for a, b in ANCHOR.findall(markdown_text)]


def html_of(markdown_text: str) -> str:
    return markdown.markdown(markdown_text, extensions=EXTENSIONS)


def test_every_ruleset_has_its_pages(bundled):
    compilation, out = bundled
    paths = {p.path for p in out.pages}
    assert {"index.md", "comparison.md"} <= paths
    for rs in compilation.rulesets:
        for page in ("index", "lexicon", "quick-reference", "datasheets", "examples", "notes"):
            assert f"{rs.id}/{page}.md" in paths
        for sec in rs.items:
            if isinstance(sec, A.Section):
                assert f"{rs.id}/rulebook/{sec.id}.md" in paths
    home = out.page("index.md").markdown
    for rs in compilation.rulesets:
        assert f"]({rs.id}/index.md)" in home


def test_every_declaration_is_anchored_once_at_its_home(bundled):
    compilation, out = bundled
    sitemap = SiteMap(compilation.rulesets)
    by_page = {p.path: anchors_of(p.markdown) for p in out.pages}
    for rs in compilation.rulesets:
        seen: dict[str, int] = {}
        for path, anchors in by_page.items():
            if path.startswith(rs.id + "/"):
                for a in anchors:
                    seen[a] = seen.get(a, 0) + 1
        for id_ in rs.symbols:
            place = sitemap.get(rs.id, id_)
            assert place is not None, id_
            assert id_ in by_page[place.page], f"{rs.id}: {id_} has no anchor on {place.page}"
            assert seen[id_] == 1, f"{rs.id}: {id_} is anchored {seen[id_]} times"


def test_every_link_resolves_to_a_page_and_an_anchor(bundled):
    _, out = bundled
    pages = {p.path: set(anchors_of(p.markdown)) for p in out.pages}
    checked = 0
    for p in out.pages:
        for target in LINK.findall(p.markdown):
            if target.startswith(("http:", "https:", "mailto:")) or not target:
                continue
            path, _, anchor = target.partition("#")
            key = posixpath.normpath(posixpath.join(posixpath.dirname(p.path), path)) if path else p.path
            assert key in pages, f"{p.path}: link to missing page {target}"
            if anchor:
                assert anchor in pages[key], f"{p.path}: link to missing anchor {target}"
            checked += 1
    assert checked > 1000


def test_prose_links_become_links_with_the_definition_as_tooltip(bundled):
    _, out = bundled
    page = out.page("console-40k/rulebook/setup.md").markdown
    assert '[[' not in re.sub(r"```.*?```", "", page, flags=re.S)
    # [[BS]] in the characteristics table: a link to the lexicon entry, titled with its one-line meaning.
    assert '[BS](../lexicon.md#BS "How accurately the model shoots.")' in page


def test_quick_reference_shows_targets_and_chances(bundled):
    _, out = bundled
    qr = out.page("console-40k/quick-reference.md").markdown
    # each cell: what the roll needs over its chance; a roll that cannot succeed reads "never"
    assert "4+<small>50%</small>" in qr and "3+<small>67%</small>" in qr and ">never</span>" in qr
    assert "<small>0%</small>" not in qr and "<small>100%</small>" not in qr
    assert 'style="--ws-p:0.500"' in qr
    assert "## Sequence of play" in qr and "## Modifiers" in qr


def test_heat_map_cells_pass_through_markdown_as_they_are(bundled):
    """A heat-map cell is generated HTML, marked so that Markdown keeps it as it is: each comes
    out whole in its table cell, the table around it still Markdown's."""
    import markdown
    from compiler.site.rawblocks import RawBlocks
    _, out = bundled
    qr = out.page("console-40k/quick-reference.md").markdown
    cells = re.findall(r"<!--ws:-->(.*?)<!--:ws-->", qr)
    assert len(cells) > 50 and all("<!--" not in c for c in cells)
    assert any('class="ws-heat"' in c for c in cells)
    html = markdown.Markdown(extensions=["tables", "attr_list", "md_in_html", "pymdownx.details", RawBlocks()]).convert(qr)
    assert "<!--ws" not in html and "wzxhzdk" not in html
    for c in cells:
        assert re.search(r"<td[^>]*>" + re.escape(c) + "</td>", html), c


def test_examples_have_charts_with_a_text_alternative(bundled):
    _, out = bundled
    ex = out.page("console-40k/examples.md").markdown
    assert ex.count("<svg") >= 5
    svg = re.search(r"<svg[^>]*>", ex).group(0)
    assert 'role="img"' in svg and "aria-label=" in svg
    # the numbers behind each chart: generated HTML, which Markdown passes on as it is
    numbers = re.search(r"<!--ws-raw-->\n *<table>\n *<thead>.*?</table>\n *<!--/ws-raw-->", ex, re.S)
    assert numbers is not None and '<th style="text-align: right;">at least this</th>' in numbers.group(0)
    import markdown
    from compiler.site.rawblocks import RawBlocks
    html = markdown.Markdown(extensions=["tables", "pymdownx.details", RawBlocks()]).convert(ex)
    assert "ws-raw" not in html and html.count("<td") >= ex.count("<td")
    rows = re.findall(r"<tr>\n(?: *<t[dh][^\n]*\n)+ *</tr>", numbers.group(0))
    assert rows and all(re.sub(r"\n +", "\n", row) in html for row in rows)  # passed on as they are
    assert "✓ holds" in ex and "✗" not in ex


def test_comparison_page_answers_the_matchup_under_each_ruleset(bundled):
    _, out = bundled
    cmp = out.page("comparison.md").markdown
    assert "Marines shoot Orks" in cmp
    assert "25/9" in cmp and "10/3" in cmp  # console-40k (6+ save) and classic-40k (save lost to AP 5)
    assert "| 2.78 |" in cmp and "| 3.33 |" in cmp  # the table's means, to two decimals
    assert cmp.count("<svg") == 1  # one chart, every ruleset on the same scale
    svg = cmp[cmp.index("<svg"):cmp.index("</svg>")]
    assert 'class="ws-cbar ws-series-0"' in svg and 'class="ws-cbar ws-series-1"' in svg


def use_cache_folder(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make ``folder`` the cache folder (warscribe looks for it once per process)."""
    from compiler.ast import cached

    monkeypatch.setattr(cached, "_state", {})
    monkeypatch.setenv("WARSCRIBE_CACHE_DIR", str(folder))
    monkeypatch.delenv("WARSCRIBE_CACHE", raising=False)


@pytest.fixture(scope="module")
def kept_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder of this module's own, empty until :func:`rendered_again` keeps pages in it."""
    return tmp_path_factory.mktemp("kept") / "cache"


@pytest.fixture(scope="module")
def rendered_again(kept_folder):
    """The bundled rulesets compiled and rendered a second time, into a render cache and (``keep``)
    into an empty cache folder of the module's own: one more whole-site render serves the test of
    determinism, the render cache's (which reuses its pages) and the cache folder's (which reads
    its pages back)."""
    cache: dict = {}
    compilation = compile_paths([str(ROOT / "rules")])
    with pytest.MonkeyPatch.context() as monkeypatch:
        use_cache_folder(monkeypatch, kept_folder)
        again = site(compilation, SiteOptions(matchups=(MATCHUP,), keep=True), cache=cache)
    return compilation, again, cache


def test_output_is_deterministic(bundled, rendered_again):
    _, out = bundled
    _, again, _ = rendered_again
    assert again == out


HOSTILE = '''\
ruleset evil "<script>alert('title')</script> {{ 7*7 }}":
  version 1.0.0
  summary: "<img src=x onerror=alert(1)> {% raw %}"
  """
  Prose with <script>alert(2)</script> and <b onclick="alert(3)">bold</b>,
  a [link](javascript:alert(4)) and {: onclick="alert(5)" } and {{ 7*7 }}.

  [ref]: javascript:alert(6)

  ```{ .python onclick="alert(7)" }
  code with <tags> stays code
  ```
  """

stat BS "Ballistic <i>Skill</i>" 1..10: "Aim *well*: <script>alert(8)</script> {{ x }}"

section shoot "Shooting {: #x onclick=alert(9) }":
  """See [[BS|the <u>skill</u>]] and [[evil_unit]]."""

unit evil_unit "<script>alert(1)</script>":
  BS 4
  """A unit named to break the page."""
'''


@pytest.fixture(scope="module")
def hostile():
    compilation = compile_text(HOSTILE, "evil.rules")
    assert compilation.ok, [d.message for d in compilation.diagnostics]
    return site(compilation)


class Elements(HTMLParser):
    """Every element of a page, with its attributes, as the browser would see them."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}))


def test_author_text_never_becomes_html_or_a_template(hostile):
    for page in hostile.pages:
        for tag, attrs in Elements(html_of(page.markdown)).found:
            assert tag not in ("script", "img", "b", "i", "u", "iframe"), (page.path, tag)
            assert not any(k.startswith("on") for k in attrs), (page.path, tag, attrs)
            for k in ("href", "src"):
                assert not attrs.get(k, "").strip().lower().startswith(("javascript:", "data:")), (page.path, attrs)
    sheet = html_of(hostile.page("evil/datasheets.md").markdown)
    # shown as text, with a word joiner after `<` that keeps it text in a tooltip too (markup.inert)
    assert "&lt;\u2060script&gt;alert(1)&lt;\u2060/script&gt;" in sheet
    overview = unescape(html_of(hostile.page("evil/index.md").markdown))
    assert "{{ 7*7 }}" in overview and "49" not in overview  # Jinja syntax in author text stays literal
    assert "{% raw %}" in overview
    lexicon = unescape(html_of(hostile.page("evil/lexicon.md").markdown))
    assert "{{ x }}" in lexicon and "Aim <em>well</em>" in lexicon  # one-line texts are inline Markdown
    rulebook = html_of(hostile.page("evil/rulebook/shoot.md").markdown)
    assert 'href="../datasheets.md#evil_unit"' in rulebook


def test_plain_and_prose_helpers():
    assert plain("a|b") == "a&#124;b"
    assert plain("{ #id }") == "&#123; &#35;id &#125;"
    assert prose("x [y](JavaScript:alert(1)) z", lambda r, w: w or r).startswith("x [y](#")
    assert prose("`a < b` < c", lambda r, w: w or r) == "`a < b` &lt; c"


def test_a_template_override_replaces_the_packaged_one(tmp_path):
    (tmp_path / "notes.md.j2").write_text("# Notes of {{ rs.title|plain }}\n\nOverridden.\n", encoding="utf-8")
    (tmp_path / "item").mkdir()
    (tmp_path / "item" / "prose.md.j2").write_text("PROSE: {{ r.prose(d) }}\n", encoding="utf-8")
    out = site(compile_paths([str(ROOT / "rules" / "console-40k")]), SiteOptions(overrides=str(tmp_path)))
    assert out.page("console-40k/notes.md").markdown == \
        "# Notes of Warhammer 40,000: the console game\n\nOverridden.\n"
    assert "PROSE: Before the battle the player" in out.page("console-40k/rulebook/setup.md").markdown


def test_an_override_asking_for_an_unknown_name_fails_loudly(tmp_path):
    (tmp_path / "lexicon.md.j2").write_text("# Lexicon\n\n{{ no_such_name }}\n", encoding="utf-8")
    with pytest.raises(RenderError, match=r"lexicon\.md\.j2.*no_such_name"):
        site(compile_paths([str(ROOT / "rules" / "console-40k")]), SiteOptions(overrides=str(tmp_path)))


def test_templates_use_only_the_names_their_context_gives():
    env = environment()
    names = template_names(env)
    assert "lexicon.md.j2" in names and "item/table.md.j2" in names
    for name in names:
        if name.startswith("_"):
            continue  # macros: everything they use is a parameter
        source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
        used = jinja2.meta.find_undeclared_variables(env.parse(source))
        given = set(TEMPLATE_CONTEXT[name]) | {"page"}
        assert used <= given, f"{name} uses {sorted(used - given)}"


def test_every_template_is_given_exactly_the_names_it_declares(monkeypatch):
    """The renderer checks each context against TEMPLATE_CONTEXT: a page missing a declared name is a bug."""
    import compiler.site.pages as pages

    assert set(TEMPLATE_CONTEXT) >= {"home.md.j2", "lexicon.md.j2", "item/table.md.j2"}
    with pytest.raises(TypeError, match="lexicon.md.j2 is declared to get .*entries"):
        checked_context("lexicon.md.j2", {"site": {}, "rs": None, "r": None, "groups": []})
    with pytest.raises(TypeError, match="not declared"):
        checked_context("no-such.md.j2", {})
    declared = dict(TEMPLATE_CONTEXT)
    declared["changes.md.j2"] = declared["changes.md.j2"] + ("since",)
    monkeypatch.setattr(pages, "TEMPLATE_CONTEXT", declared)
    with pytest.raises(TypeError, match="changes.md.j2"):
        site(compile_paths([str(ROOT / "rules" / "console-40k")]))


def test_rules_with_errors_are_not_rendered():
    broken = compile_text('ruleset b "B":\n  version 1.0.0\ntest t(x) = roll d6 >= nope\n')
    assert not broken.ok
    with pytest.raises(RenderError, match="errors"):
        site(broken)


def test_overlay_pages_mark_what_changed(bundled):
    _, out = bundled
    shooting = out.page("dark-millennia/rulebook/shooting_phase.md").markdown
    assert "ws-added" in shooting
    assert "ws-added" not in out.page("classic-40k/rulebook/shooting_phase.md").markdown


def test_render_command_writes_the_tree_and_nav(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from compiler.cli import app

    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, ["render", "rules/console-40k", "--out", str(tmp_path / "md")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "md" / "console-40k" / "lexicon.md").is_file()
    assert (tmp_path / "md" / "assets" / "warscribe.css").is_file()
    nav = (tmp_path / "md" / "nav.yml").read_text(encoding="utf-8")
    assert "console-40k/quick-reference.md" in nav
    assert "wrote" in result.output


def test_export_command_writes_the_model_with_stable_ids(tmp_path):
    import json

    from click.testing import CliRunner

    from compiler.cli import app

    target = tmp_path / "model.json"
    result = CliRunner().invoke(app, ["export", str(ROOT / "rules" / "console-40k"), "--json", "--out", str(target)])
    assert result.exit_code == 0, result.output
    data = json.loads(target.read_text(encoding="utf-8"))
    rs = data["rulesets"][0]
    by_id = {d["id"]: d for d in rs["declarations"]}
    assert by_id["space_marine"]["stats"]["BS"] == "4"
    assert by_id["space_marine"]["page"] == "console-40k/datasheets.md"
    assert by_id["BS"]["anchor"] == "BS"
    cell = next(c for c in by_id["to_wound"]["cells"] if c["at"] == {"S": 4, "T": 4})
    assert cell["result"] == "4+" and cell["p"] == "1/2"
    assert set(by_id) >= set(compile_paths([str(ROOT / "rules" / "console-40k")]).rulesets[0].symbols)
    again = CliRunner().invoke(app, ["export", str(ROOT / "rules" / "console-40k")])
    assert json.loads(again.output) == data


def test_export_of_broken_rules_fails(tmp_path):
    from click.testing import CliRunner

    from compiler.cli import app

    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(textwrap.dedent('''\
        ruleset b "B":
          version 1.0.0
        test t(x) = roll d6 >= nope
        '''), encoding="utf-8")
    result = CliRunner().invoke(app, ["export", str(folder)])
    assert result.exit_code == 1
    assert "nope" in result.output


def test_table_chances_when_the_test_names_its_parameters_differently():
    """shoot_hit(BS) rolls against extended_low(BS), whose parameter is `need`."""
    from compiler.resolve.report import evaluate_table
    from compiler.resolve.evaluator import Evaluator

    rs = compile_paths([str(ROOT / "rules" / "gemini-arap")]).rulesets[0]
    data = evaluate_table(Evaluator(rs), rs.callables["extended_low"])
    cell = next(c for c in data["cells"] if c["at"] == {"need": -2})
    assert cell["result"] == "1 then 1-" and cell["p"] == "1/36"
    assert data["p_is"].startswith("P(shoot_hit)")


def test_a_render_cache_gives_the_same_site_and_skips_unchanged_rulesets(bundled, rendered_again, monkeypatch):
    _, out = bundled
    compilation, first, cache = rendered_again  # rendered with an empty cache, which it filled
    assert first == out
    import compiler.site as R

    calls: list[str] = []
    real = R.ruleset_data
    monkeypatch.setattr(R, "ruleset_data", lambda rs, *a: calls.append(rs.id) or real(rs, *a))
    assert site(compilation, SiteOptions(matchups=(MATCHUP,)), cache=cache) == out
    assert calls == []  # nothing changed: every ruleset's pages came from the cache
    site(compilation, SiteOptions(title="Another title", matchups=(MATCHUP,)), cache=cache)
    assert sorted(calls) == sorted(rs.id for rs in compilation.rulesets)  # the title is on every page


def test_rendering_in_worker_processes_gives_the_same_pages(bundled):
    compilation, out = bundled
    assert site(compilation, SiteOptions(matchups=(MATCHUP,), workers=2)) == out


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    """A cache folder of the test's own."""
    use_cache_folder(monkeypatch, tmp_path / "cache")
    return tmp_path / "cache" / "ast"


def test_pages_kept_in_the_cache_folder_are_the_pages_rendering_gives(bundled, rendered_again, kept_folder,
                                                                      monkeypatch):
    """``keep``: a later run (a new process: an empty in-memory cache) takes every ruleset's pages
    from the cache folder, byte for byte what rendering gives, and renders again what changed."""
    compilation, out = bundled
    _, first, _ = rendered_again  # the first run, into an empty cache folder: it rendered and kept
    assert first == out
    use_cache_folder(monkeypatch, kept_folder)
    assert len(list((kept_folder / "ast").glob("*.pages"))) == len(compilation.rulesets)
    options = SiteOptions(matchups=(MATCHUP,), keep=True)
    import compiler.site as R

    calls: list[str] = []
    real = R.ruleset_data
    monkeypatch.setattr(R, "ruleset_data", lambda rs, *a: calls.append(rs.id) or real(rs, *a))
    assert site(compilation, options) == out
    assert calls == []  # every ruleset's pages came from the cache folder
    # What else the key holds, on the matchup's two rulesets (rendering all of them again proves no more).
    pair = compile_paths([str(ROOT / "rules" / "console-40k"), str(ROOT / "rules" / "classic-40k")])
    one = compile_paths([str(ROOT / "rules" / "console-40k")])
    site(one, SiteOptions(keep=True))
    calls.clear()
    assert site(one, SiteOptions(keep=True)) == site(one, SiteOptions())  # without keep: rendered
    assert calls == ["console-40k"]
    calls.clear()
    retitled = SiteOptions(title="Another title", keep=True)
    assert site(one, retitled) == site(one, SiteOptions(title="Another title"))
    assert calls == ["console-40k"] * 2  # the title is on every page
    site(pair, SiteOptions(matchups=(MATCHUP,), keep=True))  # kept with a comparison page in the nav
    assert site(pair, SiteOptions(matchups=(), keep=True)) == site(pair, SiteOptions())


def test_kept_pages_follow_the_sources_of_an_overlay_and_of_its_base(tmp_path, cache_folder):
    import shutil

    for name in ("classic-40k", "dark-millennia"):
        shutil.copytree(ROOT / "rules" / name, tmp_path / "rules" / name)
    options = SiteOptions(keep=True)
    site(compile_paths([str(tmp_path / "rules")]), options)
    lexicon = tmp_path / "rules" / "classic-40k" / "characteristics.rules"
    text = lexicon.read_text("utf-8")
    assert "Skill with guns" in text
    lexicon.write_text(text.replace("Skill with guns", "Skill with rifles"), "utf-8")
    again = compile_paths([str(tmp_path / "rules")])
    out = site(again, options)
    assert out == site(again, SiteOptions())
    for page in ("classic-40k/lexicon.md", "dark-millennia/lexicon.md"):  # the overlay shows its base's entries
        assert "Skill with rifles" in out.page(page).markdown and "Skill with guns" not in out.page(page).markdown


@needs_git
def test_a_commit_gives_a_ruleset_new_kept_pages(tmp_path):
    """The Changes page reads the releases committed in git: a commit of files already rendered
    (the same sources) must still change the key of the pages kept between runs."""
    from compiler.site import _ruleset_key

    root = tmp_path / "repo"
    folder = write(root / "rules" / "skirmish", SKIRMISH)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "v1")
    write(root / "rules" / "skirmish", edit(SKIRMISH, ("version 1.0.0", "version 1.1.0")))

    def key() -> str:
        c = compile_paths([str(folder)])
        return _ruleset_key(c.rulesets[0], c.sources, "shared")

    before = key()
    assert key() == before
    git(root, "commit", "-q", "-am", "v2")
    assert key() != before
    assert _ruleset_key(compile_paths([str(folder)]).rulesets[0], {}, "other") != key()


def test_the_templates_are_compiled_before_the_workers_fork(tmp_path):
    """Each forked worker would compile the templates it renders; they are compiled once before.
    An override that does not compile is left to fail where a page renders it, as without workers."""
    from compiler.site import _compile_templates

    env = environment()
    _compile_templates(env)
    compiled = {key[1] for key in env.cache.keys()}
    assert compiled == {n for n in env.list_templates() if n.endswith(".j2")}
    assert {"lexicon.md.j2", "battles.md.j2", "item/table.md.j2"} <= compiled
    (tmp_path / "lexicon.md.j2").write_text("# Lexicon\n\n{% if %}\n", encoding="utf-8")
    (tmp_path / "notes.md.j2").write_bytes(b"# Notes \xff\n")
    broken = environment(tmp_path)
    _compile_templates(broken)  # nothing raised here
    rules = compile_paths([str(ROOT / "rules" / "console-40k"), str(ROOT / "rules" / "classic-40k")])
    for workers in (1, 2):
        with pytest.raises(RenderError, match=r"lexicon\.md\.j2|notes\.md\.j2"):
            site(rules, SiteOptions(overrides=str(tmp_path), workers=workers))
