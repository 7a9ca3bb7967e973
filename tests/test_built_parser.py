"""The built parser: saved under the grammar's hash, found again, rebuilt when the grammar changes."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lark import Token, Tree, UnexpectedInput
from lark.indenter import DedentError

from compiler.ast import cached
from compiler.syntax import grammar

SOURCE = 'stat BS "Ballistic Skill" 1..10\n'


def use_folder(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setattr(cached, "_state", {})
    monkeypatch.setenv("WARSCRIBE_CACHE_DIR", str(folder))
    monkeypatch.delenv("WARSCRIBE_CACHE", raising=False)
    grammar.parser.cache_clear()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    use_folder(monkeypatch, tmp_path)
    yield tmp_path / "ast"
    grammar.parser.cache_clear()


@pytest.fixture(scope="module")
def first_built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """The parser built in an empty cache folder (and saved there), once for the module."""
    folder = tmp_path_factory.mktemp("built")
    with pytest.MonkeyPatch.context() as monkeypatch:
        use_folder(monkeypatch, folder)
        try:
            return folder, grammar.parser()
        finally:
            grammar.parser.cache_clear()


def test_a_built_parser_is_saved_and_read_back(first_built: tuple[Path, object], monkeypatch: pytest.MonkeyPatch) -> None:
    folder, first = first_built
    cache = folder / "ast"
    use_folder(monkeypatch, folder)
    (saved,) = cache.glob("*.lark-parser")
    assert saved.name == grammar.built_parser_name("parser", grammar.grammar_text())
    grammar.parser.cache_clear()
    stamp = saved.stat().st_mtime_ns
    again = grammar.parser()
    assert again is not first and saved.stat().st_mtime_ns == stamp  # read, not written again
    assert again.parse(SOURCE, start="start") == first.parse(SOURCE, start="start")  # type: ignore[attr-defined]
    grammar.parser.cache_clear()


def test_a_changed_grammar_builds_a_new_parser(first_built: tuple[Path, object], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(first_built[0], tmp_path / "cache")  # a folder that holds the parser built already
    use_folder(monkeypatch, tmp_path / "cache")
    cache = tmp_path / "cache" / "ast"
    grammar.parser()
    text = grammar.grammar_text()
    # The same grammar with one more comment: another hash, so another file, built from it.
    changed = text + "\n// one more line\n"
    monkeypatch.setattr(grammar, "grammar_text", lambda: changed)
    grammar.parser.cache_clear()
    p = grammar.parser()
    names = sorted(f.name for f in cache.glob("*.lark-parser"))
    assert len(names) == 2 and grammar.built_parser_name("parser", changed) in names
    assert p.parse(SOURCE, start="start").data == "start"
    grammar.parser.cache_clear()


def test_without_a_cache_folder_the_parser_still_loads(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARSCRIBE_CACHE", "0")
    monkeypatch.setattr(cached, "_state", {})
    assert grammar.parser().parse(SOURCE, start="start").data == "start"
    assert not cache.exists()


def _positions(tree: Tree[Token]) -> list[tuple[str, dict[str, object]]]:
    return [(node.data, dict(vars(node.meta))) for node in tree.iter_subtrees()]


@pytest.mark.parametrize("variant", ["parser", "tokens"])
def test_passing_single_children_gives_the_same_trees_and_positions(variant: str) -> None:
    """The parser that skips Lark's work on single-child reductions against Lark's own callbacks,
    on every bundled rules file and every golden file: the same trees, the same positions (for
    the parser of the checks and the one of the formatter, which keeps every token)."""
    plain = grammar._load_or_build(variant)
    fast = grammar.pass_single_children(grammar._load_or_build(variant))
    skipped = [rule for rule, f in fast.parser.parser.parser.callbacks.items() if f is grammar._only_child]
    assert len(skipped) > 50  # the precedence levels of expressions, and more
    root = Path(__file__).resolve().parent.parent
    files = sorted((root / "rules").rglob("*.rules")) + sorted((root / "tests" / "golden").glob("*.rules"))
    assert len(files) > 60
    parsed = 0
    for path in files:
        text = path.read_text("utf-8")
        text = text if text.endswith("\n") else text + "\n"
        try:
            expected = plain.parse(text, start="start")
        except (UnexpectedInput, DedentError) as error:
            with pytest.raises(type(error)):
                fast.parse(text, start="start")
            continue
        got = fast.parse(text, start="start")
        assert got == expected, path
        assert _positions(got) == _positions(expected), path
        parsed += 1
    assert parsed > 55


def test_building_skips_the_collision_check_only_outside_strict_mode(cache: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Lark's look for colliding terminals (with interegular) only logs outside strict mode: the parser
    is built without it, and gives the same trees as the strict one, which still looks."""
    interegular = pytest.importorskip("interegular")
    import lark.lexer

    asked: list[int] = []
    real = interegular.Comparator.from_regexes

    def counting(*args: object, **kwargs: object) -> object:
        asked.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(interegular.Comparator, "from_regexes", counting)
    built = grammar.parser()
    assert asked == [] and lark.lexer.has_interegular is True
    strict = grammar.parser(strict=True)
    assert asked  # the strict parser still looks
    text = (Path(__file__).resolve().parent.parent / "rules" / "console-40k" / "profiles.rules").read_text("utf-8")
    assert built.parse(text, start="start") == strict.parse(text, start="start")
