"""Reading the language server's messages: a framing error drops one message, never the server.

An LSP message is a block of headers (``Content-Length: N``, each line ended by ``\\r\\n``), a
blank line and N bytes of JSON.  pygls' own loop trusts the framing: a ``Content-Length`` of a
trillion bytes tried to read them all (the server died), and a malformed header made it read
every later message as headers (the server went deaf).  :func:`read_messages` reads header
lines of bounded length, reads a header's name in any case and a line ended by ``\\n`` alone,
refuses a body over :data:`BODY_LIMIT`, and after any framing error finds its way back at the
next ``Content-Length`` header — also one that follows the leftovers of a dropped body on the
same line — so that every well-framed message after it is answered.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO, Callable

__all__ = ["BODY_LIMIT", "HEADER_LIMIT", "BoundedReader", "read_messages"]

#: The longest header line read as one (longer is not a header of this protocol).
HEADER_LIMIT = 4096
#: The largest message body accepted: far above any rules file an editor sends.
BODY_LIMIT = 64 * 2**20

_HEADER = re.compile(rb"([A-Za-z0-9-]+)[ \t]*:[ \t]*(.*?)[ \t]*\r?\n")
# A Content-Length header at the end of a line, after whatever is left of a dropped message.
_RESYNC = re.compile(rb"content-length[ \t]*:[ \t]*(\d{1,19})[ \t]*\r?\n$", re.IGNORECASE)


class BoundedReader:
    """Standard input read without blocking the event loop, one header line at most
    :data:`HEADER_LIMIT` bytes long."""

    def __init__(self, stream: BinaryIO, executor: ThreadPoolExecutor | None = None) -> None:
        self.stream, self.executor = stream, executor

    async def readline(self) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.stream.readline, HEADER_LIMIT)

    async def read(self, n: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.stream.read, n)


async def read_messages(stop: threading.Event, reader: BoundedReader, protocol: Any, logger: logging.Logger,
                        error_handler: Callable[[Exception, Any], Any] | None = None) -> None:
    """Hand each well-framed message to ``protocol`` until the input ends or ``stop`` is set;
    a message whose headers or length are wrong is dropped with a warning in the log."""
    length: int | None = None
    broken = False  # this header block had a line that is no header, or a length refused
    while not stop.is_set():
        line = await reader.readline()
        if not line:
            return
        if not line.strip():  # the end of a header block
            if length is not None and not broken:
                body = await reader.read(length)
                if len(body) < length:
                    return  # the input ended inside the body
                _handle(body, protocol, logger, error_handler)
            elif length is not None or broken:
                logger.warning("dropped a message whose headers were not readable")
            length, broken = None, False
            continue
        header = _HEADER.fullmatch(line)
        if header is not None and header.group(1).lower() == b"content-length":
            length, broken = _length(header.group(2), logger), False
            broken = length is None
            continue
        if header is not None:
            continue  # Content-Type, or another header: nothing to do
        again = _RESYNC.search(line)
        if again is not None:  # what is left of a dropped message, then the next message's length
            length, broken = _length(again.group(1), logger), False
            broken = length is None
            continue
        broken = True


def _length(value: bytes, logger: logging.Logger) -> int | None:
    if not value.isdigit() or len(value) > 19:
        logger.warning("dropped a message with the length %r", value[:40])
        return None
    n = int(value)
    if n > BODY_LIMIT:
        logger.warning("dropped a message of %d bytes (the limit is %d)", n, BODY_LIMIT)
        return None
    return n


def _handle(body: bytes, protocol: Any, logger: logging.Logger,
            error_handler: Callable[[Exception, Any], Any] | None) -> None:
    """One message to the protocol, as pygls' own loop does it (an error is logged and reported)."""
    from pygls.exceptions import JsonRpcException

    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except JsonRpcException as exc:  # JSON, but not a message of the protocol (a position of -5)
        logger.warning("dropped a message that is not one of the protocol: %s", exc.message)
        _refuse(body, protocol, exc)
        return
    except Exception as exc:
        logger.exception("Unable to handle message")
        if error_handler is not None:
            error_handler(exc, JsonRpcException)
        return
    try:
        protocol.handle_message(message)
    except Exception as exc:  # any error in one message leaves the server answering the next
        logger.exception("Unable to handle message")
        if error_handler is not None:
            error_handler(exc, JsonRpcException)


def _refuse(body: bytes, protocol: Any, error: Any) -> None:
    """Answer a request that could not be read with its error (InvalidParams): a request is always
    answered, or the editor waits for the answer for ever.  A notification gets no answer."""
    try:
        raw = json.loads(body)
    except ValueError:
        return
    if not isinstance(raw, dict) or "method" not in raw:
        return
    msg_id = raw.get("id")
    if isinstance(msg_id, bool) or not isinstance(msg_id, (int, str)):
        return
    method = str(raw["method"])[:100]
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {  # (pygls has no public way to answer)
        "code": error.code, "message": f"{error.message or 'invalid message'}: the parameters of {method} "
                                       f"are not those the protocol gives it"}})
