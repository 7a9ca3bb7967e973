"""Red team: author text in the machine-readable outputs a terminal shows (``--json``, ``export``,
``diff --markdown`` for a pull-request comment) is shown, never obeyed, and the JSON stays the same
data.  ``json.dumps(…, ensure_ascii=False)`` writes C0 controls as escapes but lets C1 controls
(U+009B is a CSI) and the bidirectional overrides through raw; Markdown escaped none."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import warscribe

ESC, BEL, RLO, CSI = "\x1b", "\x07", "\u202e", "\x9b"
EVIL = f"{ESC}]0;pwned{BEL}{RLO}{CSI}31m"
RAW = (ESC, BEL, RLO, CSI)

RULES = f'''\
ruleset rt "RT":
  version 1.0.0

stat BS "Skill" 1..10: "Aim."

unit marine "Marine {EVIL}":
  BS 4
  points 60

army a1 "Army {EVIL}":
  points 100
  require points <= limit: "Too much {EVIL}"
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rt")
    for name, text in (("new", RULES), ("old", RULES.replace("Army ", "Armee ").replace("Marine ", "Marin "))):
        (root / name / "rt").mkdir(parents=True)
        (root / name / "rt" / "ruleset.rules").write_text(text, encoding="utf-8")
    (root / "list.txt").write_text("1 marine\n1 marine\n", encoding="utf-8")
    (root / "bad" / "rt").mkdir(parents=True)
    (root / "bad" / "rt" / "ruleset.rules").write_text(RULES.replace("BS 4", "BS 11"), encoding="utf-8")
    return root


def strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for v in data.values():
            yield from strings(v)
    elif isinstance(data, list):
        for v in data:
            yield from strings(v)


def no_raw(out: str) -> None:
    for raw in RAW:
        assert raw not in out, (raw, out)


@pytest.mark.parametrize("args, status", [
    (("army", "check", "new/rt", "list.txt", "--json"), 1),
    (("export", "new/rt"), 0),
    (("diff", "old/rt", "new/rt", "--json"), 0),
    (("check", "bad/rt", "--json"), 1),
])
def test_json_on_a_terminal_escapes_every_control_and_keeps_the_data(project: Path, args: tuple[str, ...],
                                                                      status: int) -> None:
    ran = warscribe(*args, cwd=project)
    assert ran.returncode == status, ran
    no_raw(ran.stdout)
    assert any(EVIL in text for text in strings(json.loads(ran.stdout))), ran.stdout  # the same text, read back


def test_the_markdown_diff_for_a_comment_shows_controls_escaped(project: Path) -> None:
    ran = warscribe("diff", "old/rt", "new/rt", "--markdown", cwd=project)
    assert ran.returncode == 0, ran
    no_raw(ran.stdout)
    assert "Army \\u001b\\]0;pwned\\u0007\\u202e\\u009b31m" in ran.stdout, ran.stdout


def test_fmt_shows_a_file_name_s_controls_escaped(tmp_path: Path) -> None:
    folder = tmp_path / f"rules{EVIL}"
    folder.mkdir()
    name = f"more{EVIL}.rules"
    (folder / "ruleset.rules").write_text(f'ruleset rt "RT":\n    version 1.0.0\ninclude "{name}"\n', encoding="utf-8")
    (folder / name).write_text('stat   BS "B" 1..6:  "x"\n', encoding="utf-8")
    ran = warscribe("fmt", str(folder), "--check", cwd=tmp_path)
    assert ran.returncode == 1 and ran.stdout.count("would reformat") == 2, ran
    no_raw(ran.stdout)
    ran = warscribe("fmt", str(folder), "--check", "--json", cwd=tmp_path)
    assert any(p.endswith(name) for p in json.loads(ran.stdout)["would_reformat"]), ran.stdout


def test_the_hint_to_include_a_file_writes_its_name_as_the_language_reads_it(tmp_path: Path) -> None:
    # A file name with line breaks printed them raw in the hint: lines of its own ("0 errors")
    # under the diagnostic. The hint now writes the name escaped, and following it works.
    folder = tmp_path / "rt"
    folder.mkdir()
    header = folder / "ruleset.rules"
    header.write_text('ruleset rt "RT":\n  version 1.0.0\n', encoding="utf-8")
    (folder / 'b\n0 errors, "all" fine\\\nc.rules').write_text('stat BS "Skill" 1..6: "Aim."\n', encoding="utf-8")
    ran = warscribe("check", str(folder))
    hint = next(line for line in ran.stderr.splitlines() if "= hint:" in line)
    assert not any(line.startswith("0 errors") for line in ran.stderr.splitlines()), ran.stderr
    written = hint.split(": ", 2)[2]
    assert written == 'include "b\\n0 errors, \\"all\\" fine\\\\\\nc.rules"', hint
    header.write_text(header.read_text(encoding="utf-8") + written + "\n", encoding="utf-8")
    ran = warscribe("check", str(folder))
    assert ran.returncode == 0 and "W404" not in ran.stderr, ran
