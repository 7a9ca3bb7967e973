"""Red team: the language server against a hostile client or document.  A document whose URI
holds a NUL byte (``%00``) is no file: it used to make every later request fail with a Python
traceback, for every document, until the editor restarted.  An unsaved buffer larger than
the file limit is refused as ``check`` refuses the saved file, not checked clean.  A request
whose parameters are not the protocol's (a position of -5, a line past 2**31) got no answer at
all, so the editor waited for ever: it gets its error (InvalidParams)."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from compiler import codes, limits
from compiler.lsp.index import snapshot
from test_lsp_robust import Server, frame, request, started

RULES = '''\
ruleset rt "RT":
  version 1.0.0

stat BS "Ballistic Skill" 1..10: "Aim."
'''


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lsp") / "rt"
    root.mkdir()
    (root / "ruleset.rules").write_text(RULES, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def server(folder: Path) -> Iterator[Server]:
    s = started(folder)
    yield s
    s.close()


def opened(uri: str, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "warscribe", "version": 1, "text": text}}}


def hovered(server: Server, params: dict[str, Any], name: str) -> dict[str, Any]:
    """The answer to a hover once the server has checked the document it was just sent (a hover
    that comes first is answered with no result: the check runs a moment after the edit), asked
    again up to 100 times."""
    for k in range(100):
        server.send(frame(request(f"{name}-{k}", "textDocument/hover", params)))  # type: ignore[arg-type]
        answer = server.answer(f"{name}-{k}")  # type: ignore[arg-type]
        if answer.get("result") is not None or "error" in answer:
            return answer
        time.sleep(0.05)
    return answer


def test_a_uri_no_file_can_have_never_breaks_the_next_requests(server: Server, folder: Path) -> None:
    for id_, bad in enumerate(("file:///tmp/a%00b.rules", f"{folder.as_uri()}/%00.rules", "untitled:%00.rules"), 10):
        server.send(frame(opened(bad, RULES)))
        server.send(frame(request(id_, "textDocument/hover", {"textDocument": {"uri": bad},
                                                             "position": {"line": 3, "character": 5}})))
        assert server.answer(id_) == {"jsonrpc": "2.0", "id": id_, "result": None}
    good = (folder / "ruleset.rules").as_uri()
    server.send(frame(opened(good, RULES)))
    answer = hovered(server, {"textDocument": {"uri": good}, "position": {"line": 3, "character": 5}}, "good")
    assert "error" not in answer and "Ballistic Skill" in str(answer["result"]), answer
    assert server.proc.poll() is None


def test_an_unsaved_buffer_over_the_file_limit_is_refused_like_the_saved_file(folder: Path) -> None:
    path = os.path.realpath(folder / "ruleset.rules")
    prose = '  """\n' + ("é" * 70 + "\n") * (limits.MAX_FILE_BYTES // 140 + 1) + '  """\n'  # 2 bytes a letter
    big = RULES + prose
    assert len(big) < limits.MAX_FILE_BYTES < len(big.encode("utf-8"))
    snap = snapshot(str(folder), {path: big})
    assert snap.compilation is not None
    found = [d for d in snap.compilation.diagnostics if d.code == codes.FILE_TOO_LARGE.code]
    assert len(found) == 1 and f"the limit is {limits.MAX_FILE_BYTES:,}" in found[0].message, found
    assert not [d for d in snapshot(str(folder), {path: RULES}).compilation.diagnostics if d.is_error]


@pytest.mark.parametrize("position", [{"line": -5, "character": 0}, {"line": 2**31, "character": 0},
                                      {"line": 3, "character": None}])
def test_a_request_the_protocol_cannot_read_is_answered_with_its_error(server: Server, folder: Path,
                                                                       position: dict[str, Any]) -> None:
    good = (folder / "ruleset.rules").as_uri()
    at = {"textDocument": {"uri": good}, "position": position}
    server.send(frame(opened(good, RULES)))
    server.send(frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {  # a notification: no answer
        "textDocument": {"uri": good, "version": 2}, "contentChanges": [{"range": {"start": position, "end": position},
                                                                           "text": "x"}]}}))
    for id_ in (30, "thirty"):  # an id is a number or a text: the answer carries the same
        server.send(frame({**request(0, "textDocument/hover", at), "id": id_}))
        error = server.answer(id_)["error"]  # type: ignore[arg-type]
        assert error["code"] == -32602 and "textDocument/hover" in error["message"], error
    assert "Ballistic Skill" in str(hovered(server, {**at, "position": {"line": 3, "character": 5}}, "after")["result"])
