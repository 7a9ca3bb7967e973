"""The language server against hostile input: a broken frame drops one message and the server
answers the next ones; a rename that would break the rules is refused with the reason; a hover
shows author text and loads no picture."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
from markdown_it import MarkdownIt

from compiler.lsp import features as F
from compiler.lsp.hover import describe
from compiler.lsp.index import snapshot

RULES = '''\
ruleset robust "Robust ![t](https://t.invalid/title.gif)":
  version 1.0.0

stat BS "Skill ![pixel](https://t.invalid/p.gif) <img src=https://t.invalid/q.gif>" 1..10: "Aim ![d](https://t.invalid/d.gif)."
  """
  A picture ![map](https://t.invalid/map.png), a reference one ![ref][r] and <img src=https://t.invalid/i.gif>.

  [r]: https://t.invalid/r.png

  A command [run](command:workbench.action.terminal.new), a file [f](file:///etc/passwd), a
  reference one [go][c] and a web page [site](https://t.invalid/s).

  [c]: command:workbench.action.reloadWindow

  `code keeps ![this](x) and <b>`
  """
stat W "Wounds" 1..10

test hit(BS) = roll d6 >= BS

table outcome(roll: 1..2) "Outcome":
  1 -> "```"
  2 -> "![x](https://t.invalid/t.gif) <img src=https://t.invalid/u.gif>"
'''


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lsp") / "robust"
    root.mkdir()
    (root / "ruleset.rules").write_text(RULES, encoding="utf-8")
    return root


# -- framing -----------------------------------------------------------------------------------


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(id_: int, method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


class Server:
    """``warscribe lsp`` in a process of its own, its answers read by a thread."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "compiler", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root)
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.answers.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, id_: int, timeout: float = 60) -> dict[str, Any]:
        """The response to request ``id_`` (notifications and other answers skipped)."""
        while True:
            message = self.answers.get(timeout=timeout)
            if message.get("id") == id_ and "method" not in message:
                return message

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


def started(root: Path) -> Server:
    """``warscribe lsp`` in ``root``, through the protocol's opening handshake."""
    s = Server(root)
    s.send(frame(request(1, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})))
    assert "capabilities" in s.answer(1)["result"]
    s.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    return s


@pytest.fixture(scope="module")
def server(folder: Path) -> Iterator[Server]:
    s = started(folder)
    yield s
    s.close()


BROKEN = {
    "a length of a trillion bytes": b"Content-Length: 1000000000000\r\n\r\n" + json.dumps(request(2, "shutdown")).encode(),
    "a length of forty digits": b"Content-Length: " + b"9" * 40 + b"\r\n\r\n" + json.dumps(request(2, "shutdown")).encode(),
    "a length that is no number": b"Content-Length: abc\r\n\r\n" + json.dumps(request(2, "shutdown")).encode(),
    "a negative length": b"Content-Length: -5\r\n\r\n" + json.dumps(request(2, "shutdown")).encode(),
    "no length at all": b"Content-Type: application/json\r\n\r\n" + json.dumps(request(2, "shutdown")).encode(),
    "a header line that is no header": b"Garbage without a colon\r\nContent-Length: 5\r\n\r\n{}{}{",
    "a header line of a megabyte": b"X-Padding: " + b"x" * 2**20 + b"\r\n\r\n",
    "a body that is no JSON": b"Content-Length: 7\r\n\r\n{oops!}",
    "a length shorter than the body": b"Content-Length: 10\r\n\r\n" + json.dumps(request(2, "shutdown")).encode(),
}


def test_a_broken_frame_is_dropped_and_the_next_message_answered(server: Server) -> None:
    next_id = 100
    for what, broken in BROKEN.items():
        server.send(broken)
        # The next well-framed messages are answered (one of them in lower case, with bare LFs).
        server.send(frame(request(next_id, "workspace/symbol", {"query": "BS"})))
        assert "result" in server.answer(next_id), what
        body = json.dumps(request(next_id + 1, "workspace/symbol", {"query": "W"})).encode()
        server.send(b"content-length: %d\n\n" % len(body) + body)
        assert "result" in server.answer(next_id + 1), what
        assert server.proc.poll() is None, what
        next_id += 2
    # No broken message was obeyed (several were a shutdown, after which a request is refused).
    server.send(frame(request(next_id, "workspace/symbol", {"query": "hit"})))
    answer = server.answer(next_id)
    assert "result" in answer and "error" not in answer, answer


def test_rename_is_refused_with_the_reason_through_the_protocol(server: Server, folder: Path) -> None:
    uri = (folder / "ruleset.rules").as_uri()
    server.send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "warscribe", "version": 1, "text": RULES}}}))
    line = RULES.splitlines().index("test hit(BS) = roll d6 >= BS")
    at = {"textDocument": {"uri": uri}, "position": {"line": line, "character": RULES.splitlines()[line].index("BS")}}
    for id_, name, reason in ((6, "W", "already the name of the stat 'W'"), (7, "roll", "is a word of the language"),
                              (8, "9lives", "is not a name")):
        server.send(frame(request(id_, "textDocument/rename", {**at, "newName": name})))
        error = server.answer(id_)
        assert error["error"]["code"] == -32803 and reason in error["error"]["message"], error
    server.send(frame(request(9, "textDocument/rename", {**at, "newName": "Skill"})))
    edits = server.answer(9)["result"]["changes"][uri]
    assert len(edits) == 3 and {e["newText"] for e in edits} == {"Skill"}
    server.send(frame(request(10, "shutdown")))
    assert server.answer(10) == {"jsonrpc": "2.0", "id": 10, "result": None}


# -- rename, hover -------------------------------------------------------------------------------


def test_rename_refuses_words_of_the_language_and_names_taken(folder: Path) -> None:
    snap = snapshot(str(folder))
    path = str((folder / "ruleset.rules").resolve())
    line = RULES.splitlines().index("test hit(BS) = roll d6 >= BS")
    col = RULES.splitlines()[line].index("BS")
    for taken in ("W", "hit"):
        with pytest.raises(F.RenameRefused, match="already the name of"):
            F.rename(snap, path, line, col, taken, {})
    for word in ("roll", "table", "stat", "test", "d6", "not", "each", "otherwise"):
        with pytest.raises(F.RenameRefused, match="word of the language"):
            F.rename(snap, path, line, col, word, {})
    edit = F.rename(snap, path, line, col, "Skill", {})
    assert edit is not None and edit.changes is not None
    assert sum(len(v) for v in edit.changes.values()) == 3


def test_hover_shows_author_text_and_loads_no_picture(folder: Path) -> None:
    snap = snapshot(str(folder))
    assert snap.model is not None
    shown = describe(snap, snap.model.symbols["BS"])
    # As an editor renders it: no picture and no HTML (a picture shows as "!" and a link).
    rendered = MarkdownIt("commonmark").render(shown)
    assert "<img" not in rendered.replace("&lt;img", ""), rendered
    assert '<a href="https://t.invalid/map.png">map</a>' in rendered  # the address is still there
    # a link goes only to a web page: one to an editor's command or a file is shown as its text
    assert '<a href="https://t.invalid/s">site</a>' in rendered and "href=\"command:" not in rendered
    assert "href=\"file:" not in rendered and "[go][c]" in rendered and "(command:workbench.action.terminal.new)" in rendered
    assert "<code>code keeps ![this](x) and &lt;b&gt;</code>" in rendered  # code is shown as written
    assert "Skill ![pixel](https://t.invalid/p.gif) &lt;img src=https://t.invalid/q.gif&gt;" in rendered  # the title
    # A table's results cannot end the code block they are shown in.
    rendered = MarkdownIt("commonmark").render(describe(snap, snap.model.symbols["outcome"]))
    assert "<img" not in rendered.replace("&lt;img", "") and "https://t.invalid/t.gif" in rendered, rendered
