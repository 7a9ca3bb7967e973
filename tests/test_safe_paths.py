"""Safe paths: includes stay in the ruleset folder, bases among the rulesets beside it — links included.

Every test builds a small project in a temporary folder with a ``rules/``
folder and an ``outside/`` folder next to it, then checks that nothing is
read from ``outside/`` and that each attempt is a diagnostic, not a crash.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.driver import compile_paths
from compiler.safepaths import is_inside, is_loop, outward_links, real_path

HEADER = 'ruleset {id} "{id}":\n  version 1.0.0\n'
STAT = 'stat BS "Ballistic Skill" 1..10\n'

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """tmp/project/rules/{base,house}, and tmp/outside/{evil/, x.rules} beside the project."""
    root = tmp_path / "project"
    (root / "rules" / "base").mkdir(parents=True)
    (root / "rules" / "base" / "ruleset.rules").write_text(HEADER.format(id="base") + STAT, encoding="utf-8")
    (root / "rules" / "house").mkdir()
    outside = tmp_path / "outside"
    (outside / "evil").mkdir(parents=True)
    (outside / "evil" / "ruleset.rules").write_text(HEADER.format(id="evil") + STAT, encoding="utf-8")
    (outside / "x.rules").write_text('stat S "Strength" 1..10\n', encoding="utf-8")
    return root


def house(project: Path, body: str, header_extra: str = "") -> Path:
    folder = project / "rules" / "house"
    (folder / "ruleset.rules").write_text(HEADER.format(id="house") + header_extra + body, encoding="utf-8")
    return folder


def errors(result) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(d.code, d.message) for d in result.diagnostics if d.is_error]


def assert_nothing_read_outside(result, project: Path) -> None:  # type: ignore[no-untyped-def]
    for shown in result.sources:
        assert is_inside(Path(shown), project), f"read {shown}, outside the project"


def test_an_include_climbing_out_with_dotdot_is_refused(project: Path) -> None:
    folder = house(project, 'include "../../../outside/x.rules"\n')
    result = compile_paths([str(folder)])
    assert ("W701", "'../../../outside/x.rules' is outside the ruleset folder") in errors(result)
    assert_nothing_read_outside(result, project)


def test_an_include_of_a_sibling_ruleset_is_refused(project: Path) -> None:
    folder = house(project, 'include "../base/ruleset.rules"\n')
    result = compile_paths([str(folder)])
    assert [c for c, _ in errors(result)] == ["W701"]


def test_an_absolute_include_is_refused(project: Path) -> None:
    target = project.parent / "outside" / "x.rules"
    folder = house(project, f'include "{target.as_posix()}"\n')
    result = compile_paths([str(folder)])
    assert [c for c, _ in errors(result)] == ["W701"]
    assert_nothing_read_outside(result, project)


def test_a_file_that_links_outside_is_refused(project: Path) -> None:
    folder = house(project, 'include "link.rules"\n')
    (folder / "link.rules").symlink_to(project.parent / "outside" / "x.rules")
    result = compile_paths([str(folder)])
    codes = [c for c, _ in errors(result)]
    assert codes and set(codes) == {"W701"}
    assert_nothing_read_outside(result, project)


def test_a_folder_that_links_outside_is_refused(project: Path) -> None:
    folder = house(project, 'include "sub/x.rules"\n')
    (folder / "sub").symlink_to(project.parent / "outside")
    result = compile_paths([str(folder)])
    assert [c for c, _ in errors(result)] == ["W701"]
    assert_nothing_read_outside(result, project)


def test_a_link_inside_the_ruleset_folder_is_followed(project: Path) -> None:
    folder = house(project, 'include "alias.rules"\n')
    (folder / "parts").mkdir()
    (folder / "parts" / "real.rules").write_text(STAT, encoding="utf-8")
    (folder / "alias.rules").symlink_to(Path("parts") / "real.rules")
    result = compile_paths([str(folder)])
    assert result.ok, errors(result)
    assert "BS" in result.rulesets[0].stats


def test_a_loop_of_links_is_a_diagnostic_not_a_crash(project: Path) -> None:
    folder = house(project, 'include "loop.rules"\n')
    (folder / "loop.rules").symlink_to("loop2.rules")
    (folder / "loop2.rules").symlink_to("loop.rules")
    assert is_loop(folder / "loop.rules") and real_path(folder / "loop.rules") is None
    result = compile_paths([str(folder)])
    assert [c for c, _ in errors(result)] == ["W701"]
    assert "loop" in errors(result)[0][1]


def test_a_broken_link_is_a_missing_file(project: Path) -> None:
    folder = house(project, 'include "gone.rules"\n')
    (folder / "gone.rules").symlink_to("nowhere.rules")
    result = compile_paths([str(folder)])
    assert [c for c, _ in errors(result)] == ["W104"]


def test_a_base_ruleset_beside_the_overlay_is_found(project: Path) -> None:
    folder = house(project, "", "  extends base 1.0.0\n")
    result = compile_paths([str(folder)])
    assert result.ok, errors(result)


def test_a_base_that_links_outside_the_project_is_not_followed(project: Path) -> None:
    (project / "rules" / "evil").symlink_to(project.parent / "outside" / "evil")
    folder = house(project, "", "  extends evil 1.0.0\n")
    result = compile_paths([str(folder)])
    [(code, message)] = errors(result)
    assert code == "W105"
    hint = next(d.hint for d in result.diagnostics if d.code == "W105")
    assert "outside the project" in (hint or "")
    assert_nothing_read_outside(result, project)


def test_a_base_elsewhere_on_disk_is_not_found(project: Path) -> None:
    folder = house(project, "", "  extends evil 1.0.0\n")  # evil exists, but outside rules/
    result = compile_paths([str(folder)])
    assert [c for c, _ in errors(result)] == ["W105"]
    assert_nothing_read_outside(result, project)


def test_a_base_id_cannot_be_a_path() -> None:
    from compiler.driver import compile_text

    result = compile_text('ruleset x "X":\n  version 1.0.0\n  extends ../outside/evil\n')
    assert [d.code for d in result.diagnostics if d.is_error] == ["W001"]


def test_checking_a_folder_of_rulesets_skips_links_leading_out(project: Path) -> None:
    house(project, STAT)
    (project / "rules" / "evil").symlink_to(project.parent / "outside" / "evil")
    assert outward_links([str(project / "rules")]) == [project / "rules" / "evil"]
    result = compile_paths([str(project / "rules")])
    assert sorted(r.id for r in result.rulesets) == ["base", "house"]
    assert [c for c, _ in errors(result)] == ["W701"]
    assert_nothing_read_outside(result, project)


def test_a_link_to_a_ruleset_inside_the_project_is_checked_once(project: Path) -> None:
    house(project, STAT)
    (project / "rules" / "alias").symlink_to("base")
    result = compile_paths([str(project / "rules")])
    assert result.ok, errors(result)
    assert sorted(r.id for r in result.rulesets) == ["base", "house"]


def test_a_ruleset_named_on_the_command_line_is_read_where_it_is(project: Path) -> None:
    # Naming a folder explicitly is the user's choice, as with any command-line tool.
    result = compile_paths([str(project.parent / "outside" / "evil")])
    assert result.ok and [r.id for r in result.rulesets] == ["evil"]


def test_the_check_command_reports_links_without_a_traceback(project: Path) -> None:
    folder = house(project, 'include "loop.rules"\ninclude "../../../outside/x.rules"\n')
    (folder / "loop.rules").symlink_to("loop.rules")
    (project / "rules" / "evil").symlink_to(project.parent / "outside" / "evil")
    r = subprocess.run([sys.executable, "-m", "compiler", "check", "rules"], capture_output=True, text=True,
                       cwd=project, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert r.returncode == 1
    assert "Traceback" not in r.stdout + r.stderr
    assert r.stderr.count("error[W701]") == 3, r.stderr


# --- paths that are not regular files ------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX thing")
def test_an_included_named_pipe_is_refused_without_opening_it(tmp_path: Path) -> None:
    import threading

    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "ruleset.rules").write_text('ruleset demo "Demo":\n  version 1.0.0\ninclude "pipe.rules"\n',
                                          encoding="utf-8")
    os.mkfifo(folder / "pipe.rules")
    found: list[object] = []
    # Opening a pipe nobody writes to blocks forever: compile in a thread so a regression fails, not hangs.
    worker = threading.Thread(target=lambda: found.append(compile_paths([str(folder)])), daemon=True)
    worker.start()
    worker.join(120)
    assert found, "compiling a ruleset that includes a named pipe never finished"
    result = found[0]
    assert [(d.code, d.message) for d in result.diagnostics if d.is_error] == [  # type: ignore[attr-defined]  # found holds a Compilation
        ("W006", "this is not a regular file (a pipe, a device or a socket)")]


@pytest.mark.parametrize("command", [["check", "/dev/null"], ["test", "/dev/null"], ["eval", "/dev/null", "1"],
                                     ["table", "/dev/null", "t"]])
def test_a_device_given_as_a_ruleset_is_a_usage_error(command: list[str]) -> None:
    from conftest import warscribe

    result = warscribe(*command)
    assert result.returncode == 2
    assert "/dev/null is neither a file nor a folder" in result.stderr
