"""Red team: ``warscribe serve`` answers what any web page open in the browser can ask of
127.0.0.1 (``<img src="http://127.0.0.1:8000/…">``): a path outside the site is not found, and a
path holding a NUL byte (``/%00``) is not found either — it was a 500 with an error logged to
the author's terminal, from ``open()`` raising ValueError.  The request is served in this process
(the server is never bound), one WSGI call each."""
from __future__ import annotations

from pathlib import Path

import pytest

from compiler.site.devserver import _Server


@pytest.mark.parametrize("path, status", [
    ("/", "200 OK"),
    ("/\0", "404 Not Found"),
    ("/a\0b.html", "404 Not Found"),
    ("/../../../../etc/passwd", "404 Not Found"),
    ("//etc/passwd", "404 Not Found"),
])
def test_a_path_no_page_of_the_site_has_is_not_found(tmp_path: Path, path: str, status: str,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "index.html").write_text("<html><body>the site</body></html>", encoding="utf-8")
    server = _Server(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    answered: list[str] = []
    environ = {"PATH_INFO": path, "REQUEST_METHOD": "GET", "QUERY_STRING": "", "wsgi.url_scheme": "http",
               "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000"}
    body = b"".join(server.serve_request(environ, lambda s, headers: answered.append(s)))
    assert answered == [status]
    assert (b"the site" in body) == (status == "200 OK") and b"root:" not in body
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
