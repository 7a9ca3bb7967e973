"""Shared fixtures: rulesets written into temporary folders, and the golden-file flag."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HEADER = 'ruleset demo "Demo":\n  version 1.0.0\n'


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the expected diagnostic texts in tests/golden/")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def write_ruleset(tmp_path: Path):
    """Write ``{name: text}`` files into a ruleset folder and return the folder."""
    def write(files: dict[str, str] | str, folder: str = "demo") -> Path:
        if isinstance(files, str):
            files = {"ruleset.rules": files}
        target = tmp_path / folder
        target.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (target / name).write_text(textwrap.dedent(text), encoding="utf-8")
        return target
    return write
