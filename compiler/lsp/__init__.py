"""The language server: the compiler's names, spans, diagnostics and odds in an editor.

``warscribe lsp`` speaks the Language Server Protocol over stdio (pygls).  The chain::

    editor buffers ──▶ index.snapshot (compile the folder, tokenise, index names)
                   ──▶ features (diagnostics, hover, definition, references, completion,
                                 rename, outline, formatting, semantic tokens, quick fixes)
                   ──▶ server (pygls: one immutable snapshot per ruleset, recompiled on change, debounced)
"""
from __future__ import annotations

from compiler.lsp.index import Occurrence, Snapshot, snapshot

__all__ = ["Occurrence", "Snapshot", "snapshot"]
