"""`warscribe build` and `render`: atomic, confined to their output folder, and reproducible."""
from __future__ import annotations

import gzip
import os
import shutil
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cli import app
from compiler.site.output import FIXED_EPOCH, source_date_epoch
from test_diff import SKIRMISH
from test_mkdocs_plugin import project

BROKEN = "\ntest broken(x) = roll d6 >= nope\n"


def build(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    return CliRunner().invoke(app, ["build", *args])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_failing_build_leaves_the_previous_site_untouched(tmp_path, monkeypatch):
    root = project(tmp_path, {"skirmish": SKIRMISH})
    ok = build(root, monkeypatch)
    assert ok.exit_code == 0, ok.output
    before = snapshot(root / "public")
    assert "skirmish/index.html" in before and "index.html" in before
    with open(root / "rules" / "skirmish" / "ruleset.rules", "a", encoding="utf-8") as f:
        f.write(BROKEN)
    failed = build(root, monkeypatch)
    assert failed.exit_code == 1, failed.output
    assert "left as it was" in failed.output
    assert snapshot(root / "public") == before  # byte for byte, and nothing added or removed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mkdocs.yml", "public", "rules", "site"]  # no leftovers


def test_a_good_build_replaces_the_whole_site(tmp_path, monkeypatch):
    root = project(tmp_path, {"skirmish": SKIRMISH})
    (root / "public" / "search").mkdir(parents=True)  # a MkDocs site from before the build marker
    (root / "public" / "search" / "search_index.json").write_text("{}", encoding="utf-8")
    (root / "public" / "sitemap.xml").write_text("<urlset/>", encoding="utf-8")
    (root / "public" / "stale.html").write_text("old", encoding="utf-8")
    result = build(root, monkeypatch)
    assert result.exit_code == 0, result.output
    assert not (root / "public" / "stale.html").exists()
    assert (root / "public" / "skirmish" / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mkdocs.yml", "public", "rules", "site"]


@pytest.mark.parametrize("where", [".", "rules", "site", "..", "rules/skirmish", "site/out"])
def test_build_refuses_to_write_over_the_project(tmp_path, monkeypatch, where):
    root = project(tmp_path / "p", {"skirmish": SKIRMISH}) if (tmp_path / "p").mkdir() is None else None
    assert root is not None
    before = snapshot(tmp_path)
    result = build(root, monkeypatch, "--out", str(root / where))
    assert result.exit_code == 2, result.output
    assert "refusing to build into" in result.output
    assert snapshot(tmp_path) == before


def test_two_builds_of_the_same_sources_are_byte_identical(tmp_path, monkeypatch):
    root = project(tmp_path, {"skirmish": SKIRMISH})
    config = root / "mkdocs.yml"
    config.write_text("site_url: https://rules.example.org/\n" + config.read_text(encoding="utf-8"),
                      encoding="utf-8")
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    first = build(root, monkeypatch, "--out", str(tmp_path / "a"))
    assert first.exit_code == 0, first.output
    second = build(root, monkeypatch, "--out", str(tmp_path / "b"))
    assert second.exit_code == 0, second.output
    a, b = snapshot(tmp_path / "a"), snapshot(tmp_path / "b")
    assert a.keys() == b.keys()
    assert [name for name in a if a[name] != b[name]] == []
    assert "search/search_index.json" in a
    # not in git: the fixed date, in the sitemap and in the gzip header
    assert b"<lastmod>2000-01-01</lastmod>" in a["sitemap.xml"]
    assert struct.unpack("<I", a["sitemap.xml.gz"][4:8])[0] == FIXED_EPOCH
    assert gzip.decompress(a["sitemap.xml.gz"]) == a["sitemap.xml"]
    assert "SOURCE_DATE_EPOCH" not in os.environ  # the build does not leave it behind


def test_source_date_epoch_comes_from_the_environment_then_git_then_a_fixed_time(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert source_date_epoch(tmp_path) == "1700000000"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert source_date_epoch(tmp_path) == str(FIXED_EPOCH)
    if shutil.which("git"):
        from test_diff import git
        (tmp_path / "rules").mkdir()
        (tmp_path / "rules" / "x.rules").write_text("x", encoding="utf-8")
        git(tmp_path, "init", "-q")
        git(tmp_path, "add", ".")
        git(tmp_path, "commit", "-q", "-m", "x", "--date", "@1600000000")
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
        stamp = source_date_epoch(tmp_path / "rules")
        assert stamp.isdigit() and stamp != str(FIXED_EPOCH)


def test_render_writes_atomically_and_never_through_a_link(tmp_path, monkeypatch):
    folder = tmp_path / "rules" / "skirmish"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(SKIRMISH, encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text("keep me", encoding="utf-8")
    out = tmp_path / "md"
    (out / "skirmish").mkdir(parents=True)
    (out / ".warscribe-build").write_text("", encoding="utf-8")  # a folder render wrote before
    (out / "skirmish" / "index.md").symlink_to(outside)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["render", str(folder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert outside.read_text(encoding="utf-8") == "keep me"
    assert not (out / "skirmish" / "index.md").is_symlink()
    assert (out / "nav.yml").is_file() and (out / "skirmish" / "changes.md").is_file()
    # no temporary files left; the marker says the folder is render's own to write again
    assert [p.name for p in out.rglob("*") if p.name.startswith(".")] == [".warscribe-build"]
    # a render that fails writes nothing
    with open(folder / "ruleset.rules", "a", encoding="utf-8") as f:
        f.write(BROKEN)
    before = snapshot(out)
    assert CliRunner().invoke(app, ["render", str(folder), "--out", str(out)]).exit_code == 1
    assert snapshot(out) == before


def test_a_build_into_a_log_says_each_stage_as_it_starts(tmp_path):
    """Not on a terminal (CI, a log file): one line on stderr per stage, in order, so a long build
    never sits silent; the summary on stdout."""
    import subprocess
    import sys

    root = project(tmp_path, {"skirmish": SKIRMISH})
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["NO_MKDOCS_2_WARNING"] = "1"
    result = subprocess.run([sys.executable, "-m", "compiler", "build"], cwd=root, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    stages = [line for line in result.stderr.splitlines() if line.startswith("warscribe: ")]
    pages = len([p for p in (root / "public").rglob("index.html")])
    assert stages == ["warscribe: compiling and rendering the rules …", f"warscribe: building pages ({pages}) …",
                      f"warscribe: writing pages ({pages}) …"], result.stderr
    assert result.stdout.startswith(f"built {pages} pages into ")
