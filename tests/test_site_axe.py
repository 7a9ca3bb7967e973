"""axe-core on the website: no serious or critical accessibility fault on a page of each kind, in
either colour scheme (the dark one in tests/test_site_axe_dark.py).  Apart from
tests/test_site_player_view.py, and one file a scheme, so that the browser work can run on two
workers at once; the site is each worker's one build (tests/browser_site.py)."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from browser_site import HAVE_CHROMIUM, ROOT

if not HAVE_CHROMIUM and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (apt-get install chromium); CI=true makes this a failure",
                allow_module_level=True)

DESKTOP = {"width": 1280, "height": 900}


def ruleset_ids() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "rules").glob("*/ruleset.rules"))


def axe_script() -> str:
    """axe-core's script, from the test extra's axe-playwright-python (no network at test time)."""
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def axe_sample(built_site: Path) -> list[str]:
    """The site's own pages and a page of each ruleset, each of a kind in turn (a full crawl in both
    schemes would be minutes of the suite: axe takes seconds on a page of thousands of elements)."""
    kinds = ["quick-reference/", "rulebook/", "datasheets/", "examples/", "lexicon/", "battles/", "notes/", ""]
    out = ["", "comparison/", "language/"]
    turn = 0
    for rs_id in ruleset_ids():
        taken = 0
        while taken < 1 and turn < 10 * len(kinds):
            kind = kinds[turn % len(kinds)]
            turn += 1
            folder = built_site / rs_id / kind
            if kind == "rulebook/" and folder.is_dir():
                kind += sorted(p.name for p in folder.iterdir())[0] + "/"
            if (built_site / rs_id / kind / "index.html").is_file():
                out.append(f"{rs_id}/{kind}")
                taken += 1
    return out + [f"{rs_id}/house-rules/" for rs_id in ruleset_ids()
                  if (built_site / rs_id / "house-rules" / "index.html").is_file()]


def test_axe_finds_no_serious_or_critical_violation_in_the_light_scheme(page: Any, site_url: str,
                                                                        built_site: Path) -> None:
    check_axe(page, site_url, built_site, "light")


#: The axe rules whose verdict can change with the colour scheme: the colours themselves.  What the
#: scheme changes besides colours is which of the theme's header controls shows (the palette
#: switch's two labels), the same on every page: the dark sweep runs every rule on the home page
#: and these on the rest of the sample (colour contrast is most of axe's time on a long page).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def check_axe(page: Any, site_url: str, built_site: Path, scheme: str, *, only: list[str] | None = None) -> None:
    """axe on each page of :func:`axe_sample` in ``scheme``: no serious or critical violation
    (``only``: these rules on every page but the first, which runs them all)."""
    script = axe_script()
    page.set_viewport_size(DESKTOP)
    page.emulate_media(color_scheme=scheme)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    found = {}
    sample = axe_sample(built_site)
    kinds = {p.split("/", 1)[1].split("/")[0] for p in sample if "/" in p[:-1]}
    assert len(sample) == 10 and kinds >= {"quick-reference", "rulebook", "datasheets", "examples", "house-rules",
                                            "lexicon", "battles"}
    for path in sample:
        rules = None if only is None or path == sample[0] else only
        page.goto(site_url + path)
        assert page.locator("body").get_attribute("data-md-color-scheme") == {"light": "default", "dark": "slate"}[scheme]
        page.add_script_tag(content=script)
        # The heat cells (hundreds on a quick reference) and code blocks (a span per token) are left
        # to the tests above and below, which check every one of their colours: through axe they
        # would take minutes.
        bad = page.evaluate("""async (rules) => (await axe.run({exclude: [['.ws-heat'], ['pre']]},
                  rules ? {resultTypes: ['violations'], runOnly: rules} : {resultTypes: ['violations']})).violations
            .filter(v => v.impact === 'serious' || v.impact === 'critical')
            .map(v => v.id + ' ×' + v.nodes.length + ': ' + v.nodes[0].target.join(' ')
                      + ' — ' + (v.nodes[0].failureSummary || '').slice(0, 160))""", rules)
        if bad:
            found[path] = bad
    assert not found, found
