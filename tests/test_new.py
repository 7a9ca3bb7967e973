"""``warscribe new NAME``: from an empty folder, a ruleset that checks, tests, formats and builds at once."""
from __future__ import annotations

from pathlib import Path

import pytest

from compiler.driver import compile_paths
from compiler.syntax.fmt import format_text
from compiler.resolve.runner import run_ruleset
from compiler.syntax.scaffold import create, default_title, scaffold_files, target_folder
from conftest import Ran, warscribe


def run(*args: str, cwd: Path) -> Ran:
    """warscribe in this process; tests/test_console_script.py runs the real console script."""
    return warscribe(*args, cwd=cwd)


def test_new_works_from_an_empty_folder(tmp_path: Path) -> None:
    r = run("new", "my-skirmish", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    folder = tmp_path / "rules" / "my-skirmish"
    assert sorted(p.name for p in folder.iterdir()) == sorted(scaffold_files("my-skirmish", "x"))
    assert "created rules/my-skirmish" in r.stdout
    check = run("check", "--strict", cwd=tmp_path)
    assert check.returncode == 0, check.stdout
    assert "1 ruleset checked, 0 errors, 0 warnings" in check.stdout
    test = run("test", cwd=tmp_path)
    assert test.returncode == 0, test.stdout
    assert "4 passed, 0 failed" in test.stdout
    fmt = run("fmt", "--check", cwd=tmp_path)
    assert fmt.returncode == 0, fmt.stdout
    build = run("build", cwd=tmp_path)
    assert build.returncode == 0, build.stdout + build.stderr
    assert (tmp_path / "public" / "index.html").exists()


def test_new_refuses_an_existing_folder_and_a_bad_name(tmp_path: Path) -> None:
    (tmp_path / "rules" / "taken").mkdir(parents=True)
    (tmp_path / "rules" / "taken" / "keep.rules").write_text("# mine\n", encoding="utf-8")
    r = run("new", "taken", cwd=tmp_path)
    assert r.returncode == 2 and "already exists" in r.stderr
    assert [p.name for p in (tmp_path / "rules" / "taken").iterdir()] == ["keep.rules"]
    for bad in ("My_Rules", "a--b", "../escape", "x y", "-x"):
        r = run("new", bad, cwd=tmp_path)
        assert r.returncode == 2, bad
        assert "not a ruleset id" in r.stderr or bad.startswith("-"), bad  # -x reads as an option
    assert sorted(p.name for p in (tmp_path / "rules").iterdir()) == ["taken"]


def test_new_with_dir_and_title(tmp_path: Path) -> None:
    r = run("new", "house-rules", "--dir", "drafts", "--title", 'Our "House" Rules', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    folder = tmp_path / "drafts" / "house-rules"
    text = (folder / "ruleset.rules").read_text(encoding="utf-8")
    assert 'ruleset house-rules "Our \\"House\\" Rules":' in text  # the title kept, its quotes escaped
    assert text.startswith('# Our "House" Rules:')
    assert run("check", str(folder), cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("title", ['Two\nlines', 'Triple """ quotes', 'Back \\ slash "and" quotes\n"""'])
def test_a_title_with_a_newline_or_triple_quotes_gives_a_ruleset_that_checks(tmp_path: Path, title: str) -> None:
    r = run("new", "odd", "--title", title, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    folder = tmp_path / "rules" / "odd"
    check = run("check", "--strict", str(folder), cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    result = compile_paths([folder])
    assert result.ok and result.rulesets[0].title.split() == title.split()  # a line break reads as a space
    assert run("test", str(folder), cwd=tmp_path).returncode == 0
    assert run("fmt", "--check", str(folder), cwd=tmp_path).returncode == 0


def test_the_scaffold_covers_every_concept_and_is_formatted(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    create("demo", folder)
    texts = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()))
    for concept in ("ruleset ", "section ", "[[", "assumption ", "designer note ", "stat ", "keyword ", "status ",
                    "term ", "situation ", "die ", "table ", "test ", "modifier ", "ability ", "on natural",
                    "attack ", "unit ", "weapon ", "squad ", "army ", "game ", "example ", "property ", "# "):
        assert concept in texts, concept
    for path in folder.iterdir():
        text = path.read_text(encoding="utf-8")
        assert format_text(text, str(path)) == text, path.name
    result = compile_paths([str(folder)])
    assert result.ok and not [d for d in result.diagnostics if d.severity.value == "warning"]
    assert all(r.passed for r in run_ruleset(result.rulesets[0]))


def test_target_folder_and_title() -> None:
    assert target_folder("x", None, Path("/p")) == Path("/p/rules/x")
    assert target_folder("x", "d", Path("/p")) == Path("d/x")
    assert default_title("my-skirmish-2") == "My Skirmish 2"


def test_a_failed_scaffold_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.atomic

    calls = []

    def failing(path: Path, text: str) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        Path(path).write_text(text, encoding="utf-8")
    monkeypatch.setattr(compiler.atomic, "write_atomic", failing)
    with pytest.raises(OSError):
        create("demo", tmp_path / "demo")
    assert not (tmp_path / "demo").exists()
