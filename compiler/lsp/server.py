"""The pygls server: routes LSP requests to :mod:`compiler.lsp.features`.

State is one immutable :class:`~compiler.lsp.index.Snapshot` per ruleset folder.  Opening a
document compiles its folder at once; each change replaces the open buffers' texts and
recompiles the folder after a short pause (``debounce`` seconds), in a worker thread, then
swaps the snapshot and publishes the diagnostics of every file of the ruleset and its base.
A compile overtaken by a newer change is dropped.
"""
from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any, BinaryIO

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from compiler import __version__
from compiler.lsp import features as F
from compiler.lsp.hover import hover_text
from compiler.lsp.index import Snapshot, real, snapshot

__all__ = ["RulesServer", "create_server", "serve"]

log = logging.getLogger("warscribe.lsp")
REQUEST_FAILED = -32803  # LSP's RequestFailed: the request was understood, and refused


class RulesServer(LanguageServer):
    """A language server for ``.rules`` files that keeps one snapshot per ruleset folder."""

    def __init__(self, debounce: float = 0.3) -> None:
        super().__init__("warscribe", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.debounce = debounce
        self.snapshots: dict[str, Snapshot] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.generation: dict[str, int] = {}
        self.uris: dict[str, str] = {}  # real path -> the URI the client uses for it
        self.published: dict[str, set[str]] = {}  # folder -> paths given diagnostics last time

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio, reading messages with :func:`~compiler.lsp.framing.read_messages`:
        a message with a broken frame (an oversized length, a malformed header) is dropped and
        the server answers the next ones (pygls' own loop dies or goes deaf on them)."""
        from threading import Event

        from pygls.io_ import StdoutWriter

        from compiler.lsp.framing import BoundedReader, read_messages

        self._stop_event = Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = BoundedReader(stdin or sys.stdin.buffer, self.thread_pool)
        try:
            asyncio.run(read_messages(self._stop_event, reader, self.protocol, log, self.report_server_error))
        except BrokenPipeError:
            log.error("the connection to the client is lost; the server stops")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    # -- documents -------------------------------------------------------------

    def path_of(self, uri: str) -> str | None:
        """The real path of a ``.rules`` document, or None for any other URI (another scheme, another
        kind of file, or a path no file can have: a NUL byte, which would make every later request fail)."""
        path = to_fs_path(uri)
        if path is None or not path.endswith(".rules") or "\0" in path:
            return None
        try:
            key = real(path)
        except (OSError, ValueError):
            return None
        self.uris.setdefault(key, uri)
        return key

    def uri_of(self, path: str) -> str:
        return self.uris.get(path) or from_fs_path(path) or path

    def overrides(self) -> tuple[dict[str, str], dict[str, int]]:
        """The open buffers' texts and versions, by real path."""
        texts, versions = {}, {}
        for uri, doc in list(self.workspace.text_documents.items()):
            path = self.path_of(uri)
            if path is not None:
                texts[path] = doc.source
                if doc.version is not None:
                    versions[path] = doc.version
        return texts, versions

    def compile(self, folder: str, texts: dict[str, str] | None = None,
                versions: dict[str, int] | None = None) -> Snapshot:
        if texts is None or versions is None:
            texts, versions = self.overrides()
        snap = snapshot(folder, texts, versions)
        _ = snap.occurrences  # index now, in the worker thread, not in a request
        return snap

    def snapshot_for(self, path: str) -> Snapshot:
        """The latest snapshot of the document's ruleset (compiled now if there is none yet)."""
        folder = os.path.dirname(path)
        snap = self.snapshots.get(folder)
        if snap is None:
            snap = self.compile(folder)
            self.snapshots[folder] = snap
        return snap

    def publish(self, snap: Snapshot) -> None:
        by_path = F.lsp_diagnostics(snap)
        before = self.published.get(snap.folder, set())
        for gone in before - set(by_path):
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(self.uri_of(gone), []))
        for path, diags in sorted(by_path.items()):
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                self.uri_of(path), diags, version=snap.versions.get(path)))
        self.published[snap.folder] = set(by_path)

    def publish_failure(self, folder: str, texts: dict[str, str], versions: dict[str, int], err: Exception) -> None:
        """Replace what was published for the open files of ``folder`` with one error saying the check
        failed: an editor must never keep showing "no problems" for text that was not checked."""
        paths = sorted(p for p in texts if os.path.dirname(p) == folder)
        message = (f"warscribe could not check this ruleset (an error in warscribe: {type(err).__name__}: "
                   f"{str(err)[:200]}); the problems shown are not up to date")
        start = T.Position(0, 0)
        for path in paths:
            diag = T.Diagnostic(T.Range(start, start), message, severity=T.DiagnosticSeverity.Error, source="warscribe")
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                self.uri_of(path), [diag], version=versions.get(path)))
        self.published[folder] = self.published.get(folder, set()) | set(paths)

    async def recompile(self, folder: str, delay: float) -> None:
        """Compile ``folder`` after ``delay`` seconds unless a newer change comes first."""
        generation = self.generation.get(folder, 0) + 1
        self.generation[folder] = generation
        if delay > 0:
            await asyncio.sleep(delay)
        if self.generation.get(folder) != generation:
            return
        texts, versions = self.overrides()  # read the buffers here, not in the worker thread
        try:
            snap = await asyncio.to_thread(self.compile, folder, texts, versions)
        except Exception as err:  # a bug in warscribe: say so, keep the last good snapshot
            log.exception("checking %s failed", folder)
            self.window_log_message(T.LogMessageParams(T.MessageType.Error, f"warscribe: checking {folder} failed: {err!r}"))
            self.publish_failure(folder, texts, versions, err)
            return
        if self.generation.get(folder) != generation:
            return  # overtaken by a newer change
        self.snapshots[folder] = snap
        self.publish(snap)

    def schedule(self, path: str, delay: float) -> None:
        folder = os.path.dirname(path)
        task = self.pending.get(folder)
        if task is not None and not task.done():
            task.cancel()
        self.pending[folder] = asyncio.get_running_loop().create_task(self.recompile(folder, delay))


def create_server(debounce: float = 0.3) -> RulesServer:
    """A server with every feature registered (not started)."""
    server = RulesServer(debounce)

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: RulesServer, params: T.DidOpenTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is not None:
            ls.schedule(path, 0)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: RulesServer, params: T.DidChangeTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is not None:
            ls.schedule(path, ls.debounce)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: RulesServer, params: T.DidSaveTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is not None:
            ls.schedule(path, 0)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: RulesServer, params: T.DidCloseTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is not None:
            ls.schedule(path, 0)  # the file on disk counts again

    @server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched(ls: RulesServer, params: T.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = ls.path_of(change.uri)
            if path is not None:
                ls.schedule(path, ls.debounce)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls: RulesServer, params: T.HoverParams) -> T.Hover | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        snap = ls.snapshot_for(path)
        found = hover_text(snap, path, params.position.line, params.position.character)
        if found is None:
            return None
        text, tok = found
        rng = T.Range(T.Position(tok.line, tok.start), T.Position(tok.line, tok.end)) if tok else None
        return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text), rng)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulesServer, params: T.DefinitionParams) -> list[T.Location] | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        snap = ls.snapshot_for(path)
        occ = snap.occurrence_at(path, params.position.line, params.position.character)
        home = snap.definition(occ.name) if occ is not None else None
        if home is None:
            return None
        loc = F.location(home)
        return [T.Location(ls.uri_of(home.path), loc.range)]

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    def references(ls: RulesServer, params: T.ReferenceParams) -> list[T.Location] | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        snap = ls.snapshot_for(path)
        occ = snap.occurrence_at(path, params.position.line, params.position.character)
        if occ is None:
            return None
        return [T.Location(ls.uri_of(o.path), F.location(o).range)
                for o in snap.references(occ.name, params.context.include_declaration)]

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    def highlight(ls: RulesServer, params: T.DocumentHighlightParams) -> list[T.DocumentHighlight] | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        snap = ls.snapshot_for(path)
        occ = snap.occurrence_at(path, params.position.line, params.position.character)
        if occ is None:
            return None
        return [T.DocumentHighlight(F.location(o).range, T.DocumentHighlightKind.Write if o.defines
                                    else T.DocumentHighlightKind.Read)
                for o in snap.references(occ.name) if o.path == path]

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[".", " ", "="]))
    def completion(ls: RulesServer, params: T.CompletionParams) -> T.CompletionList | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        snap = ls.snapshot_for(path)
        doc = ls.workspace.get_text_document(params.text_document.uri)
        current = Snapshot(snap.folder, snap.compilation, {**snap.texts, path: doc.source}, snap.versions)
        items = F.completions(current, path, params.position.line, params.position.character)
        return T.CompletionList(is_incomplete=False, items=items)

    @server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: RulesServer, params: T.PrepareRenameParams) -> T.Range | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        return F.prepare_rename(ls.snapshot_for(path), path, params.position.line, params.position.character)

    @server.feature(T.TEXT_DOCUMENT_RENAME)
    def rename(ls: RulesServer, params: T.RenameParams) -> T.WorkspaceEdit | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        try:
            return F.rename(ls.snapshot_for(path), path, params.position.line, params.position.character,
                            params.new_name, ls.uris)
        except F.RenameRefused as refused:  # the editor shows the reason; nothing is changed
            raise JsonRpcException(str(refused), code=REQUEST_FAILED) from None

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: RulesServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol] | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        return F.document_symbols(ls.snapshot_for(path), path)

    @server.feature(T.WORKSPACE_SYMBOL)
    def workspace_symbols(ls: RulesServer, params: T.WorkspaceSymbolParams) -> list[T.WorkspaceSymbol]:
        """Every declaration of the rulesets opened so far whose id contains the query."""
        query = params.query.lower()
        out: list[T.WorkspaceSymbol] = []
        seen: set[tuple[str, str]] = set()
        for snap in list(ls.snapshots.values()):
            for id_ in snap.symbols:
                home = snap.definition(id_)
                if home is None or query not in id_.lower() or (home.path, id_) in seen:
                    continue
                seen.add((home.path, id_))
                kind = F.symbol_kind(snap.symbols[id_])
                out.append(T.WorkspaceSymbol(name=id_, kind=kind, location=T.Location(ls.uri_of(home.path), F.location(home).range)))
        return out

    @server.feature(T.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: RulesServer, params: T.DocumentFormattingParams) -> list[T.TextEdit] | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return F.formatting(doc.source, os.path.relpath(path))

    @server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, F.SEMANTIC_LEGEND)
    def tokens(ls: RulesServer, params: T.SemanticTokensParams) -> T.SemanticTokens | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        return F.semantic_tokens(ls.snapshot_for(path), path)

    @server.feature(T.TEXT_DOCUMENT_CODE_ACTION,
                    T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
    def actions(ls: RulesServer, params: T.CodeActionParams) -> list[T.CodeAction] | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        return F.code_actions(ls.snapshot_for(path), params.text_document.uri, path, params.context.diagnostics)

    return server


def serve(debounce: float = 0.3, **_: Any) -> None:
    """Run the server over stdio until the client exits."""
    logging.basicConfig(level=logging.WARNING)
    create_server(debounce).start_io()
