"""Text ↔ tree: the grammar (``grammar/``) loaded once, parsing with syntax errors in words,
the Pygments lexer, printing source back (``unparse``, ``fmt``) and ``warscribe new``.
"""
