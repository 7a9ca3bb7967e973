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


#: color-contrast's verdict on an element depends only on its computed colour, font (size, weight,
#: family, style), text shadow and stroke, the stack of backgrounds behind it (its own and its
#: ancestors' background colours and images, opacity, filters, blending, positioning, up to the
#: first opaque one), what lies over it (anything positioned or transformed that it meets), the
#: ancestors that clip it, and whether axe reads its text at all (visible; not a lone character or
#: only symbols).  Elements alike in all of these get the same verdict, so the colour rules run on
#: one element of each class (left in ``window.__wsSubset`` with every link, for
#: link-in-text-block) and the rest of axe on the whole page.  On a long page that is a few hundred
#: elements of thousands.  Returns the counts, and the classes left without a member in the subset
#: (none: that is asserted).
COLOUR_SUBSET = r"""
() => {
  const SKIP = '.ws-heat, pre';
  // What an element's stack of backgrounds is made of, for each element met (and kept: shared
  // ancestors are read once).  The stack ends at the first opaque background; above it only what
  // changes how the stack shows through (opacity, filters, blending) counts.
  const facts = new Map();
  const opaque = c => /^rgb\(/.test(c);
  const pseudo = el => ['::before', '::after'].map(p => {
    const q = getComputedStyle(el, p);
    return q.content === 'none' || q.content === 'normal' ? '' : `${p}(${q.backgroundColor} ${q.backgroundImage} ${q.position} ${q.opacity} ${q.zIndex})`;
  }).join('');
  const fact = el => {
    let f = facts.get(el);
    if (f) return f;
    const s = getComputedStyle(el);
    const stop = opaque(s.backgroundColor) && s.opacity === '1' && s.mixBlendMode === 'normal';
    const pos = ['absolute', 'fixed', 'sticky'].includes(s.position) || s.zIndex.startsWith('-') ? s.position + s.zIndex : '';
    f = {stop, bg: [el.tagName, s.backgroundColor, s.backgroundImage, s.backgroundClip, s.opacity, s.mixBlendMode,
                    s.filter, s.backdropFilter, pos, pseudo(el)].join(' '),
         above: s.opacity !== '1' || s.filter !== 'none' || s.mixBlendMode !== 'normal' ? `${s.opacity} ${s.filter} ${s.mixBlendMode}` : '',
         clips: s.overflowX !== 'visible' || s.overflowY !== 'visible' || s.clip !== 'auto' || s.clipPath !== 'none'};
    facts.set(el, f);
    return f;
  };
  // What may lie over an element without being one of its ancestors: anything positioned or moved
  // (filed by bands of the page's height, to find quickly those that meet an element).
  const BAND = 200, bands = new Map();
  for (const e of document.body.querySelectorAll('*')) {
    const s = getComputedStyle(e);
    if ((s.position === 'static' || s.position === 'relative' && s.zIndex === 'auto') && s.transform === 'none') continue;
    const r = e.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    for (let b = Math.floor(r.top / BAND); b <= Math.floor(r.bottom / BAND); b++) {
      if (!bands.has(b)) bands.set(b, []);
      bands.get(b).push([e, r]);
    }
  }
  // (Meeting by more than a pixel: a column that sticks, at rest, touches its neighbours.)
  const meets = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const within = (a, b) => a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;
  const stack = el => {
    const chain = [], above = [];
    let stopped = false;
    for (let a = el; a && a.nodeType === 1; a = a.parentElement) {
      const f = fact(a);
      if (!stopped) chain.push(f.bg); else if (f.above) above.push(f.above);
      if (f.stop) stopped = true;
    }
    return chain.join(' < ') + ' | ' + above.join(' < ');
  };
  // Each element with text of its own (what color-contrast looks at) and its class; a form control,
  // a label or anything disabled is a class of its own.
  const keyOf = new Map();
  let unique = 0;
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest(SKIP)) continue;
    const text = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join('').trim();
    const control = el.matches('input, select, textarea, button, [contenteditable], [aria-disabled], :disabled, label');
    if (!text && !control) continue;
    const r = el.getBoundingClientRect();
    if (control || el.closest('[aria-disabled], fieldset[disabled]')) { keyOf.set(el, 'solo ' + unique++); continue; }
    // What lies over it (a column that sticks while its table is scrolled): the stack of that
    // element, and whether it covers this one wholly or in part.
    const over = new Set();
    for (let b = Math.floor(r.top / BAND); b <= Math.floor(r.bottom / BAND); b++)
      for (const [m, mr] of bands.get(b) || [])
        if (!m.contains(el) && !el.contains(m) && meets(r, mr)) over.add((within(r, mr) ? 'under ' : 'partly under ') + stack(m));
    const s = getComputedStyle(el);
    const visible = el.checkVisibility({opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true})
                    && r.width > 0 && r.height > 0;
    // Text that is all symbols or a single character axe leaves alone: its own class, by the text.
    const own = [s.color, s.fontSize, s.fontWeight, s.fontFamily, s.fontStyle, s.textShadow, s.webkitTextStroke,
                 s.webkitTextFillColor, s.visibility, s.textIndent, visible,
                 /[\p{L}\p{N}]/u.test(text) && text.length > 1 ? 'words' : 'odd ' + text].join(' ');
    // Inside, partly outside or outside each ancestor that clips (a scrolled table).
    const clips = [];
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (!fact(a).clips) continue;
      const c = a.getBoundingClientRect();
      clips.push(within(r, c) ? 'in' : meets(r, c) ? 'part' : 'out');
    }
    keyOf.set(el, [own, stack(el), clips.join(' '), [...over].sort().join(' ; ')].join(' | '));
  }
  // The representative of a class: its member with the fewest elements inside (axe checks an
  // included element's whole subtree).
  const best = new Map();
  for (const [el, key] of keyOf) {
    const size = el.getElementsByTagName('*').length;
    const b = best.get(key);
    if (!b || size < b[1]) best.set(key, [el, size]);
  }
  const reps = new Set([...best.values()].map(([el]) => el));
  // Coverage: every class of the page has a member inside what axe is handed.
  const covered = new Set();
  let inside = 0;
  for (const [el, key] of keyOf)
    for (let a = el; a; a = a.parentElement) if (reps.has(a)) { covered.add(key); inside++; break; }
  const missing = [...new Set(keyOf.values())].filter(k => !covered.has(k));
  // link-in-text-block looks at links (and their paragraph, wherever it is): all of them.
  window.__wsSubset = [...reps, ...document.querySelectorAll('a[href], [role=link]')];
  return {candidates: keyOf.size, classes: best.size, reps: reps.size, inside, solo: unique, missing};
}
"""


#: axe twice: every rule but the colour rules on the whole page (unless ``all`` is false), then
#: the colour rules on :data:`COLOUR_SUBSET`'s elements; the serious and critical violations.
AXE_RUNS = """async ([all, colour]) => {
  const exclude = [['.ws-heat'], ['pre']];
  const off = Object.fromEntries(colour.map(id => [id, {enabled: false}]));
  const runs = [await axe.run({include: window.__wsSubset, exclude}, {resultTypes: ['violations'], runOnly: colour})];
  if (all) runs.push(await axe.run({exclude}, {resultTypes: ['violations'], rules: off}));
  return runs.flatMap(r => r.violations).filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => v.id + ' ×' + v.nodes.length + ': ' + v.nodes[0].target.join(' ')
              + ' — ' + (v.nodes[0].failureSummary || '').slice(0, 160));
}"""


def check_axe(page: Any, site_url: str, built_site: Path, scheme: str, *, colour_only: bool = False) -> None:
    """axe on each page of :func:`axe_sample` in ``scheme``: no serious or critical violation
    (``colour_only``: only :data:`COLOUR_RULES` on every page but the first, which runs them all)."""
    script = axe_script()
    page.set_viewport_size(DESKTOP)
    page.emulate_media(color_scheme=scheme)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    found: dict[str, list[str]] = {}
    sample = axe_sample(built_site)
    kinds = {p.split("/", 1)[1].split("/")[0] for p in sample if "/" in p[:-1]}
    assert len(sample) == 10 and kinds >= {"quick-reference", "rulebook", "datasheets", "examples", "house-rules",
                                            "lexicon", "battles"}
    for path in sample:
        page.goto(site_url + path)
        assert page.locator("body").get_attribute("data-md-color-scheme") == {"light": "default", "dark": "slate"}[scheme]
        page.add_script_tag(content=script)
        # The heat cells (hundreds on a quick reference) and code blocks (a span per token) are left
        # to the tests above and below, which check every one of their colours: through axe they
        # would take minutes.
        subset = page.evaluate(COLOUR_SUBSET)
        assert subset["classes"] > 0 and not subset["missing"], (path, subset)
        bad = page.evaluate(AXE_RUNS, [not colour_only or path == sample[0], COLOUR_RULES])
        if bad:
            found[path] = bad
    assert not found, found
