"""How the formatter sees a file's tokens, and the canonical spaces between two of them.

:func:`tokens` lists every token of a parse tree (kept whole by
:func:`compiler.syntax.grammar.token_parser`) in source order, each with the rule it
belongs to and the rules around it.  :func:`canonical_gap` says how many spaces go
between two tokens on one line; :func:`align_kind` says what a token may be lined up
with on the lines around it.

>>> from compiler.syntax.grammar import token_parser
>>> toks = tokens(token_parser().parse('stat BS "B" 1..6\\n'))
>>> [t.value for t in toks]
['stat', 'BS', '"B"', '1', '..', '6']
>>> [canonical_gap(a, b) for a, b in zip(toks, toks[1:])]
[1, 1, 1, 0, 0]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lark import Token, Tree

# Tokens that carry no text of their own (the indentation post-lexer's).
_LAYOUT = {"_NL", "_INDENT", "_DEDENT"}
# A sign directly before its number: no space after it.
_UNARY_PARENTS = {"neg", "signed_int", "sign"}
# A target's or a stat value's trailing + / -: no space before it.
_POSTFIX_PARENTS = {"v_high", "v_low", "target_high", "target_low", "crit_from", "crit_from_param"}
# A "(" that opens the arguments of a call or the parameters of a declaration.
_CALL_PARENS = {"call", "params", "ability_use"}
# Lines whose columns authors line up.
_TABULAR = {"stat_line", "grid_header", "grid_row"}


@dataclass(frozen=True)
class Tok:
    """A token with what the formatter needs to know about it."""

    type: str
    value: str
    line: int
    column: int  # 1-based
    end_line: int
    end_column: int  # 1-based, exclusive
    parent: str  # the rule the token belongs to
    ancestors: frozenset[str]
    tight: bool = False  # ".." between two single values (1..10), "/" between two numbers (25/18)



def tokens(tree: Tree[Token]) -> list[Tok]:
    """Every token of the tree, in source order, with its parent rule (iteratively: trees can be deep)."""
    out: list[Tok] = []
    stack: list[tuple[Any, str, frozenset[str], bool]] = [(tree, "start", frozenset(), False)]
    while stack:
        node, parent, ancestors, tight = stack.pop()
        if isinstance(node, Tree):
            here = ancestors | {node.data}
            tight_here = (node.data == "range" and _simple_range(node)) or (node.data == "div" and _fraction(node))
            for child in reversed(node.children):
                if child is not None:
                    stack.append((child, str(node.data), here, tight_here))
        elif isinstance(node, Token) and node.type not in _LAYOUT:
            out.append(Tok(node.type, str(node), node.line or 0, node.column or 0, node.end_line or 0,
                           node.end_column or 0, parent, ancestors, tight and str(node) in ("..", "/")))
    out.sort(key=lambda t: (t.line, t.column))
    return out


def _simple_range(node: Tree[Token]) -> bool:
    """Is this range written between two single values (``1..10``, ``-2..3``, ``lo..hi``)?"""
    ends = [c for c in node.children if not (isinstance(c, Token) and str(c) == "..")]

    def single(e: Any) -> bool:
        if isinstance(e, Token):
            return True
        if isinstance(e, Tree) and e.data in ("int", "name", "signed_int", "neg", "decimal", "inches"):
            return all(single(c) for c in e.children if c is not None) and \
                sum(1 for c in e.children if isinstance(c, Tree)) <= 1
        return False
    return len(ends) == 2 and all(single(e) for e in ends)


def _fraction(node: Tree[Token]) -> bool:
    """Is this division a fraction written with two whole numbers (``25/18``)?"""
    parts = [c for c in node.children if c is not None]
    return len(parts) == 3 and all(isinstance(p, Tree) and p.data == "int" for p in (parts[0], parts[2]))


# ---------------------------------------------------------------------------
# Spacing between two tokens on one line
# ---------------------------------------------------------------------------


def _is_unary(t: Tok) -> bool:
    return t.value in ("-", "+") and t.parent in _UNARY_PARENTS


def _is_postfix(t: Tok) -> bool:
    return t.value in ("-", "+") and t.parent in _POSTFIX_PARENTS


def canonical_gap(a: Tok, b: Tok) -> int:
    """Spaces between ``a`` and ``b`` in the canonical layout: 0, 1, or 2 between a profile's stats."""
    if b.value in (",", ")", ":") or a.value == "(":
        return 0
    if a.value == "." or b.value == ".":
        return 0
    if _is_unary(a) or _is_postfix(b):
        return 0
    if b.value in ("+", "-") and b.parent == "sign" and "v_dice" in b.ancestors:
        return 0  # D3+1 on a profile line
    if b.value == "(" and b.parent in _CALL_PARENS:
        return 0
    if a.tight or b.tight:
        return 0
    if b.parent == "stat_pair" and b.type == "NAME" and "stat_pair" in a.ancestors:
        return 2  # WS 4  BS 4  S 4: two spaces between a profile's stats
    return 1


def align_kind(a: Tok, b: Tok) -> str | None:
    """What ``b`` may be lined up with on the lines around it (None: it keeps its canonical gap)."""
    if a.value in (",", "(", ".", "=", "->") or _is_unary(a) or canonical_gap(a, b) == 0:
        return None
    if b.value == "->":
        return "->"
    if b.value == "=" or b.parent == "expect_op":
        return "="
    if b.type == "PLUSMINUS":
        return "±"
    if b.ancestors & _TABULAR:
        return "cell"
    if b.type == "STRING" and b.parent != "label":
        return "title"
    return None
