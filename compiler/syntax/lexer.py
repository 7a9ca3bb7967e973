"""A Pygments lexer for the warscribe rules language.

Registered through the ``pygments.lexers`` entry point (see pyproject.toml), so
``pygmentize -l warscribe`` works and ```` ```warscribe ```` fences are
highlighted on the documentation site (MkDocs + pymdownx.highlight).

The lexer follows grammar/warscribe.lark but is deliberately forgiving: it is a
highlighter, not a parser. It never raises and produces an Error token only for
characters the language has no use for (outside strings, prose and comments).

Token categories:

* ``# …``                                   Comment.Single
* ``\"\"\"…\"\"\"`` prose                   String.Doc (multi-line)
* ``"…"``                                   String.Double (``\\x`` String.Escape)
* ``[[id]]`` / ``[[id|text]]`` in either    Name.Label
* declaration keywords at the start of a line (``table``, ``unit``,
  ``open question`` …, also after ``replace``)   Keyword.Declaration
* the id a declaration declares             Name.Function (table, test, formula,
  attack, ability), Name.Class (unit, weapon, squad, army, game),
  Name.Namespace (ruleset), Name.Variable (let), Name.Constant (the rest)
* other keywords                            Keyword; ``true false none never
  always`` Keyword.Constant; the stat types ``target distance dice number``
  are keywords only after a stat's title (elsewhere they are names)
* dice ``d6 2D6 D3``, targets ``4+ 3-``, distances ``24"``     Number
* integers Number.Integer, decimals Number.Float, versions Number,
  dates Literal.Date
* operators ``-> == != >= <= > < + - * / = .. ± ~``      Operator
* built-ins called with ``(`` (``P mean natural min max …``)  Name.Builtin
* other calls Name.Function, ``x.attr`` attributes Name.Attribute,
  step names (``hits = …``) Name.Variable, other names Name.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from pygments.lexer import RegexLexer, default, words
from pygments.lexer import bygroups as _untyped_bygroups
from pygments.token import string_to_tokentype
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Literal,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

from compiler.syntax.builtins import BUILTINS

__all__ = ["WarscribeLexer"]

# Pygments' ``bygroups`` (token types in, a callback Pygments calls with a match out),
# given the type its stubs leave out.
bygroups: Callable[..., Any] = _untyped_bygroups

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_RULESET_ID = r"[a-z0-9]+(?:-[a-z0-9]+)*"

# Declaration keywords, by the token given to the id they declare.
_DECL_FUNCTION = ("table", "test", "formula", "attack", "ability")
_DECL_CLASS = ("unit", "weapon", "squad", "army", "game")
_DECL_CONSTANT = (
    "section", "rule", "stat", "keyword", "status", "term", "situation",
    "modifier", "example", "property", "claim", "phase", "step", "score", "victory",
    "assumption", "remove", "extend", "scenario", "side", "action",
)
# Declaration keywords that are not followed by an id of their own.
_DECL_BARE = ("die", "include", "replace", "result", "grid")

_KEYWORDS = (
    "roll", "against", "natural", "fails", "succeeds", "never", "better",
    "worse", "than", "modifiers", "between", "reroll", "failures",
    "otherwise", "each", "not", "and", "or", "if", "then", "else", "in", "is", "has",
    "with", "when", "to", "of", "needs", "on", "extra", "automatically", "no",
    "ignored", "damage", "removes", "expect", "for", "version", "authors",
    "source", "licence", "extends", "summary", "history", "keywords",
    "abilities", "weapons", "points", "models", "per", "model", "special",
    "require", "turns", "activation", "by", "one", "stacking", "highest",
    "sum", "once", "group", "unclamped", "role", "pinned", "see", "aka", "as", "class", "mortal", "spill",
    "ignore", "attacked", "without", "it", "becomes", "capped",
    "unless", "within", "engage", "sets", "clears", "until", "failing", "surviving", "toward",
    "away", "nearest", "disengages",
)
# Stat types: keywords only right after a stat's title (stat Sv "Save" target:);
# elsewhere they are ordinary names (removes target, distance > 24").
_STAT_TYPES = ("target", "distance", "dice", "number")
_CONSTANTS = ("true", "false", "none", "never", "always")
# Keywords that may legitimately stand right before "," or ")".
_KEYWORDS_BEFORE_COMMA = ("failures", "automatically", "once", "sum", "highest", "succeeds")

# The built-in functions, grouped by the token type the registry gives each.
_BUILTIN_RULES = tuple(
    (words(tuple(n for n, b in BUILTINS.items() if b.highlight == kind), prefix=r"\b", suffix=r"(?=[ \t]*\()"),
     string_to_tokentype(kind))
    for kind in sorted({b.highlight for b in BUILTINS.values()}))

# At the start of a line (after indentation and an optional "replace").
_LINE_START = r"^([ \t]*)(?:(replace)([ \t]+))?"
# A word used as a name, not as a keyword: an attribute owner (target.T), a
# step / keyword argument (score = …), or a parameter (…, target) ).
_AS_NAME = r"(?=[ \t]*(?:\.(?!\.)|=(?!=)))"
_AS_PARAM = r"(?=[ \t]*[,)])"


def _decl(keywords: tuple[str, ...], id_token: Any) -> tuple[str, Any]:
    """The rule for a declaration keyword at the start of a line and the id it declares."""
    return (
        _LINE_START + r"(%s)\b(?![ \t]*(?:\.(?!\.)|=(?!=)))(?:([ \t]+)(%s))?"
        % ("|".join(keywords), _NAME),
        bygroups(Whitespace, Keyword.Declaration, Whitespace,
                 Keyword.Declaration, Whitespace, id_token),
    )


class WarscribeLexer(RegexLexer):
    """Lexer for warscribe ``.rules`` files (tabletop wargame rules).

    >>> from pygments import lex
    >>> for kind, text in lex('table to_wound(S, T) "Wound chart":  # 10th\\n', WarscribeLexer()):
    ...     if text.strip():
    ...         print(str(kind).removeprefix("Token."), repr(text))
    Keyword.Declaration 'table'
    Name.Function 'to_wound'
    Punctuation '('
    Name 'S'
    Punctuation ','
    Name 'T'
    Punctuation ')'
    Literal.String.Double '"'
    Literal.String.Double 'Wound chart'
    Literal.String.Double '"'
    Punctuation ':'
    Comment.Single '# 10th'
    >>> WarscribeLexer.analyse_text('ruleset my-rules "My rules"\\n')
    0.9
    """

    name = "warscribe"
    aliases = ["warscribe", "rules"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-warscribe"]
    flags = re.MULTILINE

    tokens = {
        "root": [
            (r"\n", Whitespace),
            # -- declarations, only at the start of a line ------------------
            (_LINE_START + r"(open)([ \t]+)(question)\b(?:([ \t]+)(%s))?" % _NAME,
             bygroups(Whitespace, Keyword.Declaration, Whitespace,
                      Keyword.Declaration, Whitespace, Keyword.Declaration,
                      Whitespace, Name.Constant)),
            (_LINE_START + r"(designer)([ \t]+)(note)\b(?:([ \t]+)(%s))?" % _NAME,
             bygroups(Whitespace, Keyword.Declaration, Whitespace,
                      Keyword.Declaration, Whitespace, Keyword.Declaration,
                      Whitespace, Name.Constant)),
            (_LINE_START + r"(prose)([ \t]+)(only)\b(?:([ \t]+)(%s))?" % _NAME,
             bygroups(Whitespace, Keyword.Declaration, Whitespace,
                      Keyword.Declaration, Whitespace, Keyword.Declaration,
                      Whitespace, Name.Constant)),
            (_LINE_START + r"(ruleset)\b(?:([ \t]+)(%s))?" % _RULESET_ID,
             bygroups(Whitespace, Keyword.Declaration, Whitespace,
                      Keyword.Declaration, Whitespace, Name.Namespace)),
            (r"^([ \t]*)(let)\b(?:([ \t]+)(%s))?" % _NAME,
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Name.Variable)),
            _decl(_DECL_FUNCTION, Name.Function),
            _decl(_DECL_CLASS, Name.Class),
            _decl(_DECL_CONSTANT, Name.Constant),
            (_LINE_START + r"(%s)\b(?![ \t]*(?:\.(?!\.)|=(?!=)))"
             % "|".join(_DECL_BARE),
             bygroups(Whitespace, Keyword.Declaration, Whitespace,
                      Keyword.Declaration)),
            # an attack step: "hits = attacks each hit(shooter.BS)"
            (r"^([ \t]*)(%s)(?=[ \t]*=(?!=))" % _NAME,
             bygroups(Whitespace, Name.Variable)),
            # -- a stat type, after the title ----------------------------------
            (r'(?<=")([ \t]+)(%s)\b(?=[ \t]*(?::|unclamped\b|#|\r?$))'
             % "|".join(_STAT_TYPES),
             bygroups(Whitespace, Keyword)),
            # -- layout and comments ------------------------------------------
            (r"[ \t\f]+", Whitespace),
            (r"\\[ \t\f]*\r?\n", Text),  # line continuation
            (r"\r", Whitespace),
            (r"#.*?$", Comment.Single),
            # -- text -----------------------------------------------------------
            (r'"""', String.Doc, "prose"),
            # a distance (24") before a string can open
            (r'\d+(?:\.\d+)?"', Number),
            (r'"', String.Double, "string"),
            # -- ruleset ids after "extends", versions, dates -------------------
            (r"(extends)([ \t]+)(%s)" % _RULESET_ID,
             bygroups(Keyword, Whitespace, Name.Namespace)),
            (r"(?:\^|~|>=|==)?\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?", Number),
            (r"\d{4}-\d{2}-\d{2}(?![\w.])", Literal.Date),
            # -- numbers ---------------------------------------------------------
            (r"\d*[dD]\d+(?![A-Za-z0-9_])", Number),         # dice
            (r"1s(?![A-Za-z0-9_])", Keyword),                  # reroll 1s
            (r"\d+[+\-](?=[ \t]|\r?\n|[#,):\]]|$)", Number),  # targets
            (r"\d+\.\d+", Number.Float),
            (r"\d+", Number.Integer),
            # -- operators and punctuation --------------------------------------
            (r"->|==|!=|>=|<=|\.\.|\+-|[±≥≤≠≈~<>+\-*/=]", Operator),
            (r"(\.)(%s)" % _NAME, bygroups(Punctuation, Name.Attribute)),
            (r"[():,.\[\]…]", Punctuation),
            # -- words ------------------------------------------------------------
            *_BUILTIN_RULES,
            (r"never(?=[ \t]+(?:better|worse)\b)", Keyword),
            (words(_CONSTANTS, prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(_KEYWORDS_BEFORE_COMMA, prefix=r"\b", suffix=r"\b" + _AS_NAME), Name),
            (words(_KEYWORDS_BEFORE_COMMA, prefix=r"\b", suffix=r"\b"), Keyword),
            (words(_KEYWORDS, prefix=r"\b", suffix=r"\b" + _AS_NAME), Name),
            (words(_KEYWORDS, prefix=r"\b", suffix=r"\b" + _AS_PARAM), Name),
            (words(_KEYWORDS, prefix=r"\b", suffix=r"\b"), Keyword),
            (_NAME + r"(?=[ \t]*\()", Name.Function),
            (_NAME, Name),
            # anything else is not warscribe
            (r".", Error),
        ],
        "string": [
            (r'"', String.Double, "#pop"),
            (r"\[\[[^\]|\n]+(?:\|[^\]\n]*)?\]\]", Name.Label),
            (r'[^"\\\n\[]+', String.Double),
            (r"\\[^\n]", String.Escape),
            (r"[\\\[]", String.Double),
            # an unterminated string ends at the end of its line
            default("#pop"),
        ],
        "prose": [
            (r'"""', String.Doc, "#pop"),
            (r'\[\[(?:(?!""")[^\]|])+(?:\|(?:(?!""")[^\]])*)?\]\]', Name.Label),
            (r'[^"\[]+', String.Doc),
            (r'["\[]', String.Doc),
        ],
    }

    @staticmethod
    def analyse_text(text: str) -> float:
        if re.search(r'^ruleset[ \t]+[a-z0-9-]+[ \t]+"', text, re.MULTILINE):
            return 0.9
        if re.search(r"^(table|test|attack)[ \t]+\w+\(.*\).*:[ \t]*$", text,
                     re.MULTILINE):
            return 0.3
        return 0.0
