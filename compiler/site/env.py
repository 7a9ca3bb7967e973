"""The Jinja2 environment of the renderer.

Templates are found first in an override folder (a project's ``site/``
folder: a file there with the same name as a packaged template replaces it),
then in the package (``compiler/render/templates``).  Undefined names are
errors (``StrictUndefined``): a template that asks for something its context
does not give fails the build instead of printing an empty string.
Autoescaping is on for every template, Markdown ones included: author text
that reaches a page without going through a helper is HTML-escaped, and the
helpers (``r.prose``, ``r.link``, ``|plain``…) return Markdown already made
safe.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from compiler.site.markup import plain

TEMPLATE_SUFFIX = ".md.j2"


def environment(overrides: str | Path | None = None) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = []
    if overrides is not None and Path(overrides).is_dir():
        loaders.append(jinja2.FileSystemLoader(str(overrides)))
    loaders.append(jinja2.PackageLoader("compiler.site", "templates"))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_bytecode_cache(),
    )
    env.filters["plain"] = lambda s: Markup(plain(None if s is None else str(s)))
    env.filters["pct"] = percent
    env.filters["cell"] = cell
    return env


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in warscribe's cache folder (compiling them is a tenth of a
    build): each is found by its name and source, under warscribe's and Jinja's versions."""
    from compiler.ast.cached import cache_folder, fingerprint

    folder = cache_folder()
    if folder is None:
        return None
    try:
        key = hashlib.sha256(fingerprint() + jinja2.__version__.encode()).hexdigest()[:16]
    except (OSError, ValueError):
        return None
    return jinja2.FileSystemBytecodeCache(str(folder), f"{key}-%s.jinja")


def cell(s: object) -> Markup:
    """Markdown for a table cell: a pipe inside it must not end the cell."""
    return Markup(str(escape(s)).replace("|", "\\|"))


def percent(p: float | None) -> str:
    """A chance as a reader likes it: 50%, 2.8%, 0.46%, <0.01%."""
    if p is None:
        return ""
    x = float(p) * 100
    if x == 0:
        return "0%"
    if x >= 99.995 and x < 100:
        return ">99.99%"
    if x >= 10 or x == round(x):
        return f"{x:.0f}%"
    if x >= 1:
        return f"{x:.1f}%"
    if x >= 0.01:
        return f"{x:.2f}%"
    return "<0.01%"


def template_names(env: jinja2.Environment) -> list[str]:
    """Every packaged (or overridden) page and item template."""
    return sorted(n for n in env.list_templates() if n.endswith(TEMPLATE_SUFFIX))
