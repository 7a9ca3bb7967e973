"""Text ↔ tree: the grammar (``grammar/``) loaded once, parsing with syntax errors in words,
the Pygments lexer, printing source back (``unparse``, ``fmt``) and ``warscribe new``.

* :mod:`~compiler.syntax.grammar` — the ``.lark`` text and the parsers built from it, once;
* :mod:`~compiler.syntax.parse` — :func:`~compiler.syntax.parse.parse_text`: text → Lark tree,
  or one syntax diagnostic in words;
* :mod:`~compiler.syntax.lexer` — the Pygments lexer (highlighting on the site and in terminals);
* :mod:`~compiler.syntax.unparse` — AST nodes printed back as source text;
* :mod:`~compiler.syntax.fmt` — ``warscribe fmt``, laid out by :mod:`~compiler.syntax.spacing`
  (the spaces between two tokens) and :mod:`~compiler.syntax.layout` (lines and columns);
* :mod:`~compiler.syntax.scaffold` — ``warscribe new``.

The entry points are imported from their modules (``from compiler.syntax.parse import
parse_text``): importing this package stays cheap for the Pygments lexer, which loads no
parser.
"""
