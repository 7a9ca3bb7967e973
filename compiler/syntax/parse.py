"""Stage 1: source text → Lark parse tree, or a syntax diagnostic in words.

The grammar and the parser built from it are loaded once and lazily by
:mod:`compiler.syntax.grammar` (its names are importable from here too).  A syntax
error becomes one located diagnostic whose message says, in words, what was expected:
from a table of bad examples (:data:`SYNTAX_ERRORS`, Lark's ``match_examples``) when
one matches, else from the terminals the parser would have accepted.

>>> tree, diags = parse_text('stat BS "Ballistic Skill" 1..10: "Aim."\\n', "x.rules")
>>> str(tree.data), diags
('start', ())
"""
from __future__ import annotations

import functools

from lark import Token, Tree, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError

from compiler import codes
from compiler.diagnostics import Diagnostic, Severity, Span
from compiler.limits import (MAX_LINE_CHARS, MAX_NESTING, MAX_NUMBER_DIGITS, MAX_TOKENS, TooDeep, TooLongNumber,
                             TooManyTokens, long_line, tree_depth)
from compiler.syntax.grammar import GRAMMAR_FILE, RulesIndenter, grammar_text, parser

__all__ = ["GRAMMAR_FILE", "SYNTAX_ERRORS", "TERMINAL_WORDS", "RulesIndenter", "describe_expected",
           "describe_terminal", "grammar_text", "parse_text", "parser", "syntax_diagnostic"]

# Words for the terminals a user may meet in "expected …" messages.
TERMINAL_WORDS = {
    "NAME": "a name",
    "INT": "a whole number",
    "DECIMAL": "a decimal number",
    "STRING": 'a quoted text ("…")',
    "PROSE": 'a prose block ("""…""")',
    "DICE": "dice such as d6 or 2D6",
    "INCHES": 'a distance such as 6"',
    "RULESET_ID": "a ruleset id such as my-rules",
    "VERSION": "a version such as 1.0.0",
    "VERSION_REQ": "a version such as 1.0.0",
    "DATE": "a date such as 2026-01-31",
    "CELL_TARGET": "a target such as 4+",
    "REROLL_ONES": "1s",
    "_NL": "the end of the line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the indented block",
    "$END": "the end of the file",
    "COLON": '":"',
    "LPAR": '"("',
    "RPAR": '")"',
    "COMMA": '","',
    "EQUAL": '"="',
    "PLUS": '"+"',
    "MINUS": '"-"',
    "STAR": '"*"',
    "SLASH": '"/"',
    "DOT": '"."',
    "MORETHAN": '">"',
    "LESSTHAN": '"<"',
    "PLUSMINUS": '"±"',
}


def describe_terminal(name: str) -> str:
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    try:
        pattern = parser().get_terminal(name).pattern
    except (KeyError, AttributeError):
        return name.lower()
    if pattern.type == "str":
        return f'"{pattern.value}"'
    return name.lower()


VALUE_STARTERS = {"NAME", "INT", "DICE", "DECIMAL", "INCHES", "STRING", "LPAR", "MINUS",
                  "NEVER", "ALWAYS", "NONE", "TRUE", "FALSE", "IF", "NOT"}
DECLARATION_KEYWORDS = {"STAT", "TABLE", "TEST", "UNIT", "WEAPON", "SECTION", "RULE", "FORMULA",
                        "MODIFIER", "ABILITY", "ATTACK", "SQUAD", "ARMY", "GAME", "EXAMPLE", "PROPERTY", "CLAIM",
                        "KEYWORD", "STATUS", "TERM", "SITUATION", "DIE", "ASSUMPTION", "OPEN", "DESIGNER", "PROSE_WORD", "SCENARIO"}


def describe_expected(expected: set[str] | frozenset[str]) -> str:
    expected = set(expected)
    summary = []
    if {"NAME", "INT", "DICE"} <= expected:
        expected -= VALUE_STARTERS
        summary.append("a value (a number, a name, dice such as d6, a target such as 4+…)")
    if len(expected & DECLARATION_KEYWORDS) >= 8:
        expected -= DECLARATION_KEYWORDS
        expected -= {"INCLUDE", "REPLACE", "REMOVE", "EXTEND", "RULESET"}
        summary.append("a declaration (section, rule, stat, table, test, unit, weapon, …)")
    words = summary + sorted({describe_terminal(t) for t in expected if not t.startswith("__")})
    if not words:
        return "something else"
    keywords = [w for w in words if w.startswith('"')]
    others = [w for w in words if not w.startswith('"')]
    shown = others + keywords
    if len(shown) > 8:
        shown = shown[:8] + [f"… ({len(words) - 8} more)"]
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " or " + shown[-1]


# Syntax errors in words: each message is matched by the parser state its bad
# examples fail in (Lark's ``match_examples``).  tests/test_parse.py checks
# that every example still maps to its message.
SYNTAX_ERRORS: dict[str, list[str]] = {
    "a block must follow the colon: indent the lines that belong to it": [
        'section s "S":\nstat X "X"\n',
        'unit u "U":\nweapon w "W":\n  A 1\n',
    ],
    "a declaration needs an id (a name such as hit or to_wound) after its keyword": [
        'table "Wound chart":\n  otherwise -> 4+\n',
        'stat "Ballistic Skill" 1..10\n',
        'unit "Space Marine":\n  BS 4\n',
    ],
    "a declaration needs its display title in quotes after the id": [
        "section shooting:\n  \"\"\"x\"\"\"\n",
        "unit marine:\n  BS 4\n",
    ],
    "a table row needs '->' between the case and the result": [
        'table t(x) "T":\n  x == 1 4+\n',
    ],
    "an attack step reads 'name = expression'": [
        'attack a(u) "A":\n  hits attacks each hit(u)\n',
    ],
    "a profile line lists stats and values, such as 'BS 4  Sv 3+'": [
        'unit u "U":\n  BS\n',
    ],
    "this expression is incomplete: an operand is missing": [
        'formula f(x) "F" = x +* 2\n',
        'formula f(x) "F" = (x + 1\n',
    ],
}


@functools.lru_cache(maxsize=1)
def _example_states() -> dict[str, list[str]]:
    return SYNTAX_ERRORS


def _match_message(error: UnexpectedInput, text: str) -> str | None:
    try:
        return error.match_examples(
            lambda t: parser().parse(t, start="start"), _example_states(), use_accepts=True
        )
    except Exception:  # a bad example must never hide the real error
        return None


def _token_words(token: Token) -> str:
    """A token in words, read after "unexpected": "unexpected indentation", "unexpected 'with'"."""
    if token.type == "$END":
        return "end of the file"
    if token.type == "_NL":
        return "end of line"
    if token.type == "_INDENT":
        return "indentation"
    if token.type == "_DEDENT":
        return "end of an indented block"
    value = str(token)
    if len(value) > 30:
        value = value[:27] + "…"
    return f"'{value}'"


def syntax_diagnostic(error: Exception, text: str, path: str) -> Diagnostic:
    """Turn a Lark exception into a located diagnostic with a message in words; when what went
    wrong is a tab in the indentation or a bracket left open on an earlier line, say that."""
    found = _syntax_diagnostic(error, text, path)
    lines = text.splitlines()
    if found.code == codes.BAD_INDENT.code or found.message in ("unexpected indentation",
                                                                 "unexpected end of an indented block"):
        source = lines[found.span.line - 1] if 0 < found.span.line <= len(lines) else ""
        lead = source[:len(source) - len(source.lstrip())]
        if "\t" in lead:
            return Diagnostic(found.code, Severity.ERROR, f"this line is indented with a tab, which counts as "
                              f"{RulesIndenter.tab_len} spaces", Span(path, found.span.line, 1, found.span.line,
                                                                        len(lead) + 1),
                              "indent with spaces, two for each block, as the lines around it are")
    if isinstance(error, UnexpectedToken) and error.token.type not in ("$END",) and error.token.start_pos is not None:
        opened = _open_bracket(text, error.token.start_pos)
        if opened is not None and opened[0] < (error.token.line or 0):
            line, col, ch = opened
            return Diagnostic(found.code, Severity.ERROR, f"this '{ch}' is not closed, so line {error.token.line} "
                              "reads as more of it", Span(path, line, col, line, col + 1),
                              f"close it with '{')' if ch == '(' else ']'}' before the end of line {line}")
    return found


def _open_bracket(text: str, end: int) -> tuple[int, int, str] | None:
    """The innermost bracket still open at ``end`` (its line, column and character), reading past
    comments, quoted text and prose blocks; None when every bracket before ``end`` is closed."""
    stack: list[tuple[int, int, str]] = []
    line, start, i = 1, 0, 0
    while i < end:
        c = text[i]
        if text.startswith('"""', i):
            close = text.find('"""', i + 3)
            stop = len(text) if close < 0 else close + 3
            line += text.count("\n", i, stop)
            start = text.rfind("\n", 0, stop) + 1 if "\n" in text[i:stop] else start
            i = stop
            continue
        if c == '"' and not (i and text[i - 1].isdigit()):  # a quoted text, not the inches of 6"
            close = text.find('"', i + 1, text.find("\n", i) if "\n" in text[i:] else len(text))
            i = (close + 1) if close > 0 else i + 1
            continue
        if c == "#":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        if c == "\n":
            line, start = line + 1, i + 1
        elif c in "([":
            stack.append((line, i - start + 1, c))
        elif c in ")]" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


def _syntax_diagnostic(error: Exception, text: str, path: str) -> Diagnostic:
    """Turn a Lark exception into a located diagnostic with a message in words."""
    lines = text.splitlines() or [""]
    if isinstance(error, DedentError):
        # The indenter does not know the line; find the first badly dedented line.
        line_no, col = _find_bad_dedent(text)
        span = Span(path, line_no, col, line_no, col + 1)
        return Diagnostic(codes.BAD_INDENT.code, Severity.ERROR,
                          "this line is indented less than its block but more than the block around it",
                          span, "indent it to line up with the lines above it")
    if isinstance(error, UnexpectedCharacters):
        line, col = error.line, error.column
        pos = error.pos_in_stream or 0
        ch = text[pos] if pos < len(text) else ""
        span = Span(path, line, col, line, col + 1)
        message = f"unexpected character '{ch}'"
        if ch == '"':
            message = "this quoted text is not closed on its line"
            hint = 'close it with " on the same line, or use """ … """ for text over several lines'
        else:
            expected = describe_expected(error.allowed or set())
            hint = f"expected {expected} here"
        return Diagnostic(codes.SYNTAX_ERROR.code, Severity.ERROR, message, span, hint)
    if isinstance(error, UnexpectedEOF):
        line = len(lines)
        col = len(lines[-1]) + 1
        span = Span(path, line, col, line, col + 1)
        return Diagnostic(codes.UNEXPECTED_END.code, Severity.ERROR, "the file ends in the middle of a declaration", span,
                          f"expected {describe_expected({str(t) for t in error.expected})}")
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END" or token.line is None:
            line = len(lines)
            col = len(lines[-1]) + 1
            span = Span(path, line, col, line, col + 1)
            code, message = codes.UNEXPECTED_END.code, "the file ends in the middle of a declaration"
        else:
            line, col = token.line, token.column
            end_col = (token.end_column or col + 1) if token.end_line == line else col + 1
            if token.type == "_INDENT" and token.end_line and token.end_line > line:
                # The indentation itself: the spaces that open the line no block expects.
                line, col, end_col = token.end_line, 1, max(token.end_column or 2, 2)
            elif token.type in ("_NL", "_DEDENT", "_INDENT"):
                # Point at the end of the line where something was missing.
                prev = _previous_code_line(lines, line)
                line, col = prev, len(lines[prev - 1].rstrip()) + 1
                end_col = col + 1
            span = Span(path, line, col, line, max(end_col, col + 1))
            code, message = codes.SYNTAX_ERROR.code, f"unexpected {_token_words(token)}"
            if token.type == "_NL":
                message = "this line ends too early"
        friendly = _match_message(error, text)
        expected = describe_expected({str(t) for t in (error.accepts or error.expected)})
        if friendly:
            return Diagnostic(code, Severity.ERROR, friendly, span, f"expected {expected}")
        return Diagnostic(code, Severity.ERROR, message, span, f"expected {expected}")
    span = Span(path, 1, 1, 1, 2)
    return Diagnostic(codes.SYNTAX_ERROR.code, Severity.ERROR, f"cannot parse this file: {error}", span)


def _previous_code_line(lines: list[str], line: int) -> int:
    n = min(line, len(lines))
    while n > 1 and (not lines[n - 1].strip() or lines[n - 1].strip().startswith("#")):
        n -= 1
    return max(n, 1)


def _find_bad_dedent(text: str) -> tuple[int, int]:
    stack = [0]
    in_prose = False
    for number, raw in enumerate(text.splitlines(), 1):
        quotes = raw.count('"""')
        if in_prose:
            if quotes % 2 == 1:
                in_prose = False
            continue
        stripped = raw.strip()
        if quotes % 2 == 1:
            in_prose = True
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw.expandtabs(8)) - len(raw.expandtabs(8).lstrip())
        if indent > stack[-1]:
            stack.append(indent)
        else:
            while indent < stack[-1]:
                stack.pop()
            if indent != stack[-1]:
                return number, indent + 1
    return 1, 1


def parse_text(text: str, path: str, start: str = "start") -> tuple[Tree[Token] | None, tuple[Diagnostic, ...]]:
    """Parse ``text``; return the tree, or None and one syntax diagnostic.

    ``start`` is ``"start"`` for a file, ``"eval_input"`` for one expression.

    >>> tree, diags = parse_text('stat BS "Ballistic Skill" 1..10\\n', "x.rules")
    >>> str(tree.data), diags
    ('start', ())
    >>> tree, (error,) = parse_text('table "Wound chart":\\n  otherwise -> 4+\\n', "x.rules")
    >>> tree, error.code, error.span.line, error.span.column
    (None, 'W001', 1, 7)
    >>> error.message
    'a declaration needs an id (a name such as hit or to_wound) after its keyword'
    """
    text = text.replace("\r\n", "\n")  # Windows line endings: the same rules, the same prose
    if not text.endswith("\n"):
        text += "\n"
    too_long = long_line(text)
    if too_long is not None:
        line, length = too_long
        return None, (Diagnostic(codes.LINE_TOO_LONG.code, Severity.ERROR,
                                 f"this line is {length:,} characters long; the limit is {MAX_LINE_CHARS:,}",
                                 Span(path, line, 1, line, 2),
                                 'break it up: prose can run over several lines inside """ … """'),)
    try:
        tree = parser().parse(text, start=start)
    except (UnexpectedInput, DedentError) as error:
        return None, (syntax_diagnostic(error, text, path),)
    except TooManyTokens as error:
        span = Span(path, error.line, error.column, error.line, error.column + 1)
        return None, (Diagnostic(codes.TOO_MANY_TOKENS.code, Severity.ERROR,
                                 f"this file has more than {MAX_TOKENS:,} words, numbers and symbols",
                                 span, "split it into several files joined with include"),)
    except TooLongNumber as error:
        span = Span(path, error.line, error.column, error.line, error.column + 1)
        return None, (Diagnostic(codes.NUMBER_TOO_LONG.code, Severity.ERROR,
                                 f"this number has {error.digits:,} digits; the limit is {MAX_NUMBER_DIGITS:,}",
                                 span, "write a number a game can use"),)
    except TooDeep as error:
        span = Span(path, error.line, error.column, error.line, error.column + 1)
        return None, (Diagnostic(codes.TOO_DEEP.code, Severity.ERROR,
                                 f"brackets here open more than {MAX_NESTING} levels deep",
                                 span, "split it: give a part its own name with let, a formula or a table"),)
    except RecursionError:
        span = Span(path, 1, 1, 1, 2)
        return None, (Diagnostic(codes.TOO_DEEP.code, Severity.ERROR, "this file nests too deeply to read", span),)
    if tree_depth(tree) > MAX_NESTING:
        line, column = _deepest(tree)
        return None, (Diagnostic(codes.TOO_DEEP.code, Severity.ERROR,
                                 f"this nests more than {MAX_NESTING} levels deep (brackets, operators or blocks)",
                                 Span(path, line, column, line, column + 1),
                                 "split it: give a part its own name with let, a formula or a table"),)
    return tree, ()


def _deepest(tree: Tree[Token]) -> tuple[int, int]:
    """Line and column of a node nested deeper than the limit."""
    stack: list[tuple[Tree[Token], int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            return getattr(meta, "line", 1) or 1, getattr(meta, "column", 1) or 1
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))
    return 1, 1
