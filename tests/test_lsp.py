"""``warscribe lsp`` driven as an editor drives it: a real LSP client (pygls) over stdio.

Each test copies bundled rulesets into a temporary folder, starts ``python -m compiler lsp``
there, opens a file, and checks what an author would see: the diagnostic on the line they
broke, its quick fix, hovers with the lexicon's text and the odds, definitions and
references across files and into an overlay's base, completion, rename, the outline,
formatting and semantic tokens.  No timing is asserted; waits only guard against a hang.
"""
from __future__ import annotations

import asyncio
import threading
import shutil
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest
from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

RULES = Path(__file__).resolve().parent.parent / "rules"
HANG = 120  # seconds: a guard against a hung server, not a speed requirement


class Editor:
    """A client plus the diagnostics the server has published, by URI."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("warscribe-test", "1")
        self.diagnostics: dict[str, list[T.Diagnostic]] = {}
        self.changed = asyncio.Event()
        self.versions: dict[str, int] = {}

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: T.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.changed.set()

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "compiler", "lsp", "--stdio", "--debounce", "0.05",
                                   cwd=str(self.root))
        await self.client.initialize_async(T.InitializeParams(
            capabilities=T.ClientCapabilities(), root_uri=from_fs_path(str(self.root)),
            workspace_folders=[T.WorkspaceFolder(from_fs_path(str(self.root)), "rules")]))
        self.client.initialized(T.InitializedParams())

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), HANG)
            self.client.exit(None)
        finally:
            server = getattr(self.client, "_server", None)
            if server is not None and server.returncode is None:
                try:
                    await asyncio.wait_for(server.wait(), HANG)
                except asyncio.TimeoutError:
                    server.kill()
            await self.client.stop()

    def uri(self, relative: str) -> str:
        return from_fs_path(str(self.root / relative))

    def open(self, relative: str) -> str:
        uri = self.uri(relative)
        self.versions[uri] = 1
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
            uri, "warscribe", 1, (self.root / relative).read_text(encoding="utf-8"))))
        return uri

    def replace_all(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(self.versions[uri], uri),
            [T.TextDocumentContentChangeWholeDocument(text)]))

    async def wait_for(self, check: Callable[[], Any]) -> Any:
        """Wait until ``check()`` is truthy after a publication; return it."""
        async def loop() -> Any:
            while True:
                found = check()
                if found:
                    return found
                self.changed.clear()
                await self.changed.wait()
        return await asyncio.wait_for(loop(), HANG)


def run(root: Path, scenario: Callable[[Editor], Awaitable[None]]) -> None:
    async def main() -> None:
        editor = Editor(root)
        await editor.start()
        try:
            await asyncio.wait_for(scenario(editor), 4 * HANG)
        finally:
            await editor.stop()
    # In a thread of its own: a browser test in the same worker may leave an event loop running
    # in the main thread (Playwright's sync API), and asyncio.run() refuses to nest in one.
    failure: list[BaseException] = []

    def in_thread() -> None:
        try:
            asyncio.run(main())
        except BaseException as err:  # noqa: BLE001 — handed to the test's thread below
            failure.append(err)

    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def copy(tmp_path: Path, *names: str) -> Path:
    for name in names:
        shutil.copytree(RULES / name, tmp_path / "rules" / name)
    return tmp_path


def at(root: Path, relative: str, needle: str, nth: int = 0) -> T.Position:
    """The position of the ``nth`` occurrence of ``needle`` in a file."""
    lines = (root / relative).read_text(encoding="utf-8").splitlines()
    seen = 0
    for number, line in enumerate(lines):
        col = line.find(needle)
        while col >= 0:
            if seen == nth:
                return T.Position(number, col)
            seen += 1
            col = line.find(needle, col + 1)
    raise AssertionError(f"{needle!r} not in {relative}")


def doc(uri: str) -> T.TextDocumentIdentifier:
    return T.TextDocumentIdentifier(uri)


def test_console_40k_diagnostic_hover_definition(tmp_path: Path) -> None:
    """What an author sees in the editor: the diagnostic on the broken line, a hover with the stat's text,
    a definition in the ruleset's files; plus the quick fix and references."""
    root = copy(tmp_path, "console-40k")
    rulebook = "rules/console-40k/rulebook.rules"
    text = (root / rulebook).read_text(encoding="utf-8")
    broken_at = at(root, rulebook, "roll d6 against to_hit(BS)")
    call = T.Position(broken_at.line, broken_at.character + len("roll d6 against "))

    async def scenario(ed: Editor) -> None:
        uri = ed.open(rulebook)
        # A clean ruleset: no error anywhere (notes for open questions are fine).
        await ed.wait_for(lambda: uri in ed.diagnostics)
        assert not [d for d in ed.diagnostics[uri] if d.severity == T.DiagnosticSeverity.Error]

        # Break a name as you type: the unsaved buffer is checked, not the file on disk.
        lines = text.split("\n")
        lines[call.line] = lines[call.line].replace("to_hit(BS)", "to_hti(BS)")
        ed.replace_all(uri, "\n".join(lines))

        def broken() -> list[T.Diagnostic]:
            return [d for d in ed.diagnostics.get(uri, []) if d.severity == T.DiagnosticSeverity.Error]
        errors = await ed.wait_for(broken)
        assert [d.range.start.line for d in errors] == [call.line]
        error = errors[0]
        assert error.code and str(error.code).startswith("W") and "to_hti" in error.message
        assert error.source == "warscribe"

        # "did you mean" becomes a quick fix that writes the right name.
        actions = await ed.client.text_document_code_action_async(T.CodeActionParams(
            doc(uri), error.range, T.CodeActionContext([error])))
        assert actions, "a quick fix for a misspelt name"
        fix = actions[0]
        assert isinstance(fix, T.CodeAction) and fix.edit is not None and fix.edit.changes is not None
        (edit,) = fix.edit.changes[uri]
        assert edit.new_text == "to_hit" and edit.range.start.line == call.line

        # Fix it again: the error goes away.
        ed.replace_all(uri, text)
        await ed.wait_for(lambda: not broken())

        # Hover a stat: its lexicon text.
        hover = await ed.client.text_document_hover_async(T.HoverParams(
            doc(uri), T.Position(call.line, call.character + len("to_hit("))))
        assert hover is not None and isinstance(hover.contents, T.MarkupContent)
        assert "Ballistic Skill" in hover.contents.value
        assert "How accurately the model shoots." in hover.contents.value

        # Hover a table: each cell's target and chance.
        hover = await ed.client.text_document_hover_async(T.HoverParams(doc(uri), T.Position(call.line, call.character + 1)))
        assert hover is not None and "4+ · 50%" in hover.contents.value  # type: ignore[union-attr]

        # Go to definition: the stat BS lives in another file, lexicon.rules.
        found = await ed.client.text_document_definition_async(T.DefinitionParams(
            doc(uri), T.Position(call.line, call.character + len("to_hit("))))
        assert isinstance(found, list) and len(found) == 1
        target = found[0]
        assert isinstance(target, T.Location) and target.uri == ed.uri("rules/console-40k/lexicon.rules")
        assert target.range.start == at(root, "rules/console-40k/lexicon.rules", "BS \"Ballistic Skill\"")

        # Find references: BS is used in the profiles, the rulebook and the lexicon.
        refs = await ed.client.text_document_references_async(T.ReferenceParams(
            text_document=doc(uri), position=T.Position(call.line, call.character + len("to_hit(")),
            context=T.ReferenceContext(include_declaration=True)))
        files = {r.uri.rsplit("/", 1)[-1] for r in refs or []}
        assert {"lexicon.rules", "rulebook.rules", "profiles.rules"} <= files

    run(root, scenario)


def test_completion_rename_outline_format_tokens(tmp_path: Path) -> None:
    root = copy(tmp_path, "console-40k")
    profiles = "rules/console-40k/profiles.rules"
    text = (root / profiles).read_text(encoding="utf-8")

    async def scenario(ed: Editor) -> None:
        uri = ed.open(profiles)
        await ed.wait_for(lambda: uri in ed.diagnostics)

        # Completing a stat in a profile's stat line.
        line = at(root, profiles, "WS 4  BS 4").line
        items = await ed.client.text_document_completion_async(T.CompletionParams(doc(uri), T.Position(line, 4)))
        labels = {i.label for i in (items.items if isinstance(items, T.CompletionList) else items or [])}
        assert {"BS", "Sv", "WS"} <= labels and "to_hit" not in labels

        # After "keywords": the lexicon's keywords.
        kw = at(root, profiles, "keywords space_marines")
        items = await ed.client.text_document_completion_async(T.CompletionParams(
            doc(uri), T.Position(kw.line, kw.character + len("keywords "))))
        labels = {i.label for i in (items.items if isinstance(items, T.CompletionList) else items or [])}
        assert "space_marines" in labels and "orks" in labels and "BS" not in labels

        # Rename a weapon: its declaration and every use, across the ruleset's files.
        pos = at(root, profiles, "weapon boltgun")
        edit = await ed.client.text_document_rename_async(T.RenameParams(
            doc(uri), T.Position(pos.line, pos.character + len("weapon ")), "bolter"))
        assert edit is not None and edit.changes
        uses = sum(len(v) for v in edit.changes.values())
        assert uses >= 3 and all(e.new_text == "bolter" for v in edit.changes.values() for e in v)
        assert ed.uri("rules/console-40k/examples.rules") in edit.changes

        # The outline: the datasheets section holds the units.
        symbols = await ed.client.text_document_document_symbol_async(T.DocumentSymbolParams(doc(uri)))
        assert symbols is not None
        top = {s.name: s for s in symbols if isinstance(s, T.DocumentSymbol)}
        assert "datasheets" in top
        inner = {c.name for c in top["datasheets"].children or []}
        assert {"space_marine", "ork_boy", "boltgun"} <= inner

        # Workspace symbols: search the ruleset's names.
        found = await ed.client.workspace_symbol_async(T.WorkspaceSymbolParams(query="to_wou"))
        names = {s.name for s in found or []}
        assert "to_wound" in names and "roll_to_wound" in names and "boltgun" not in names

        # Semantic tokens cover the file.
        toks = await ed.client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(doc(uri)))
        assert toks is not None and len(toks.data) > 100 and len(toks.data) % 5 == 0

        # Formatting: a formatted file needs no edit; a messy one is set right by fmt.
        assert not await ed.client.text_document_formatting_async(T.DocumentFormattingParams(
            doc(uri), T.FormattingOptions(2, True)))
        messy = text.replace("WS 4  BS 4  S 4", "WS 4 BS   4  S 4", 1)
        ed.replace_all(uri, messy)
        edits = await ed.client.text_document_formatting_async(T.DocumentFormattingParams(
            doc(uri), T.FormattingOptions(2, True)))
        assert edits and len(edits) == 1 and edits[0].new_text == text

    run(root, scenario)


def test_overlay_definition_in_base(tmp_path: Path) -> None:
    """An overlay's names lead into its base ruleset's files."""
    root = copy(tmp_path, "classic-40k", "dark-millennia")
    relative = "rules/dark-millennia/cover.rules"
    pos = at(root, relative, "target_cover")

    async def scenario(ed: Editor) -> None:
        uri = ed.open(relative)
        await ed.wait_for(lambda: uri in ed.diagnostics)
        assert not [d for d in ed.diagnostics[uri] if d.severity == T.DiagnosticSeverity.Error]
        found = await ed.client.text_document_definition_async(T.DefinitionParams(doc(uri), pos))
        assert isinstance(found, list) and found
        assert "/classic-40k/" in found[0].uri
        hover = await ed.client.text_document_hover_async(T.HoverParams(doc(uri), pos))
        assert hover is not None and "base ruleset" in hover.contents.value  # type: ignore[union-attr]

    run(root, scenario)


@pytest.mark.parametrize("target, shown", [("4+", "4+ · 50%"), ("2+", "2+ · 83%"), ("3-", "3- · 50%")])
def test_target_chance(target: str, shown: str) -> None:
    from compiler.lsp.hover import target_chance
    assert target_chance(target) == shown


# -- the VS Code extension's TextMate grammar agrees with the Pygments lexer -------------------

VSCODE = Path(__file__).resolve().parent.parent / "editors" / "vscode"


def _make_grammar() -> Any:
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_grammar", VSCODE / "scripts" / "make_grammar.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_textmate_grammar_is_generated_from_the_lexer() -> None:
    assert _make_grammar().main(["--check"]) == 0, "run python editors/vscode/scripts/make_grammar.py"


def test_textmate_grammar_classifies_every_bundled_file_like_pygments() -> None:
    """Every token Pygments colours gets the same scope from the TextMate grammar, run by
    vscode-textmate + vscode-oniguruma as VS Code runs it (node; `.ci/run` installs them)."""
    import json
    import os
    import subprocess

    from compiler.lsp.index import tokenize

    if shutil.which("node") is None or not (VSCODE / "node_modules" / "vscode-textmate").is_dir():
        if os.environ.get("CI"):
            pytest.fail("node and editors/vscode/node_modules are needed: .ci/run runs npm ci there")
        pytest.skip("run `npm ci` in editors/vscode to check the TextMate grammar (CI=true makes this a failure)")
    scope = _make_grammar().scope
    files = sorted(str(p) for p in RULES.rglob("*.rules"))
    out = json.loads(subprocess.run(["node", str(VSCODE / "test" / "tokenize.js"), *files],
                                    capture_output=True, text=True, check=True).stdout)
    wrong: list[str] = []
    checked = 0
    for f in files:
        tm: dict[tuple[int, int], str] = {}
        for line, start, end, scopes in out[f]:
            for c in range(start, end):
                tm[(line, c)] = scopes[-1]
        for tok in tokenize(Path(f).read_text(encoding="utf-8")):
            want = scope(tok.type)
            if want is None:
                continue
            checked += 1
            got = tm.get((tok.line, tok.start), "source.warscribe")
            if got != want:
                wrong.append(f"{f}:{tok.line + 1}:{tok.start + 1}: {tok.text!r} is {want} in Pygments, {got} in TextMate")
    assert checked > 10_000
    assert not wrong, "\n".join(wrong[:20])


# -- completion by context and the unsaved-buffer hook, without a server -----------------------

DEMO = '''ruleset demo "Demo":
  version 1.0.0

stat BS "Ballistic Skill" 1..10: "How well a model shoots."
stat Sv "Save" target: "The armour save."
keyword infantry "Infantry": "On foot."
situation cover "Target's cover" one of open, soft, hard

test hit(shooter) "Roll to hit":
  roll d6 >= 7 - shooter.BS

modifier soft_cover "Soft cover": -1 to hit when cover is soft
'''


def test_completion_by_context_on_an_unsaved_buffer(tmp_path: Path) -> None:
    from compiler.lsp.features import completions
    from compiler.lsp.index import real, snapshot

    folder = tmp_path / "rules" / "demo"
    folder.mkdir(parents=True)
    path = folder / "ruleset.rules"
    path.write_text('ruleset demo "Demo":\n  version 1.0.0\n', encoding="utf-8")  # the file on disk is older
    key = real(str(path))
    snap = snapshot(str(folder), {key: DEMO})
    assert snap.model is not None and "cover" in snap.symbols, "the buffer, not the file on disk, is compiled"
    lines = DEMO.splitlines()

    def labels(line_no: int, text_before: str) -> set[str]:
        assert lines[line_no].startswith(text_before) or text_before in lines[line_no]
        col = lines[line_no].index(text_before) + len(text_before)
        return {i.label for i in completions(snap, key, line_no, col)}

    roll = next(i for i, x in enumerate(lines) if "shooter.BS" in x)
    assert labels(roll, "shooter.") == {"BS", "Sv"}
    when = next(i for i, x in enumerate(lines) if "cover is soft" in x)
    assert labels(when, "cover is ") == {"open", "soft", "hard"}
    assert "cover" in labels(when, "when ")
