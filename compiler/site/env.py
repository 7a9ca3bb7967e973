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
from fractions import Fraction
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from compiler.site.markup import attribute, plain
from compiler.words import chance_words, exact_words, mean_words, plural

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
    env.filters["mean"] = mean_with_exact
    env.filters["plural"] = lambda n, one, many=None: plural(int(n), one, many)
    return env


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in warscribe's cache folder (compiling them is a tenth of a
    build): each is found by its name and source, under warscribe's and Jinja's versions, and
    sealed with the user's key like every cache entry (compiled templates are code: one another
    user planted is never loaded)."""
    from compiler.ast.cached import cache_folder, fingerprint

    folder = cache_folder()
    if folder is None:
        return None
    try:
        key = hashlib.sha256(fingerprint() + jinja2.__version__.encode()).hexdigest()[:16]
    except (OSError, ValueError):
        return None
    return SealedBytecodeCache(folder, key)


class SealedBytecodeCache(jinja2.BytecodeCache):
    """Jinja's compiled templates in the cache folder, each a sealed entry (:mod:`compiler.cachedir`)."""

    def __init__(self, folder: Path, prefix: str) -> None:
        self.folder, self.prefix = folder, prefix

    def _name(self, bucket: jinja2.bccache.Bucket) -> str:
        return hashlib.sha256(f"{self.prefix}-{bucket.key}".encode()).hexdigest() + ".jinja"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        from compiler.cachedir import read_entry

        payload = read_entry(self.folder, self._name(bucket))
        if payload is not None:
            bucket.bytecode_from_string(payload)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        from compiler.cachedir import write_entry

        write_entry(self.folder, self._name(bucket), bucket.bytecode_to_string())


def cell(s: object) -> Markup:
    """Markdown for a table cell: a pipe inside it must not end the cell."""
    return Markup(str(escape(s)).replace("|", "\\|"))


def percent(p: float | None) -> str:
    """A chance as a reader likes it: 50%, 2.8%, 0.46%, <0.01% (:func:`compiler.words.chance_words`)."""
    return chance_words(p)


def mean_with_exact(m: object) -> Markup:
    """An average to two decimals, its exact fraction on hover (a number, or text left as it is).

    >>> str(mean_with_exact("25/18")), str(mean_with_exact(2)), str(mean_with_exact("4+"))
    ('<abbr class="ws-exact" title="exactly 25/18">1.39</abbr>', '2', '4+')
    """
    if isinstance(m, str):
        text = m
        try:
            m = Fraction(text)
        except ValueError:
            return Markup(plain(text))
    if not isinstance(m, (Fraction, int, float)) or isinstance(m, bool):
        return Markup(plain(str(m)))
    shown, exact = mean_words(m), exact_words(m)
    if shown == exact:
        return Markup(shown)
    return Markup(f'<abbr class="ws-exact" title="exactly {attribute(exact)}">{shown}</abbr>')


def template_names(env: jinja2.Environment) -> list[str]:
    """Every packaged (or overridden) page and item template."""
    return sorted(n for n in env.list_templates() if n.endswith(TEMPLATE_SUFFIX))
