"""Each check on its own: a small ruleset with one mistake, and the diagnostic it must give."""
from __future__ import annotations

import textwrap

import pytest

from compiler.driver import compile_paths, compile_text

HEAD = 'ruleset demo "Demo":\n  version 1.0.0\n'
LEX = ('stat BS "Ballistic Skill" 1..10\nstat S "Strength" 1..10\nstat T "Toughness" 1..10\n'
       'stat Sv "Save" target\nstat W "Wounds" 1..10\nstat A "Attacks" dice\nstat AP "AP" -6..0\n')


def diags(body: str, lex: str = LEX):
    result = compile_text(HEAD + lex + textwrap.dedent(body))
    return result.diagnostics


def codes(body: str, lex: str = LEX) -> list[str]:
    return [d.code for d in diags(body, lex) if d.severity.value != "note"]


def only(body: str, code: str, lex: str = LEX):
    found = [d for d in diags(body, lex) if d.severity.value != "note"]
    assert [d.code for d in found] == [code], [(d.code, d.message) for d in found]
    return found[0]


def line_of(body: str, needle: str, lex: str = LEX) -> int:
    text = HEAD + lex + textwrap.dedent(body)
    for n, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(needle)


def test_clean_ruleset_has_no_diagnostics() -> None:
    assert codes("""
        table to_hit(BS) "To hit":
          1 -> 6+
          2 -> 5+
          3..10 -> 4+
        test hit(BS) "Hit":
          roll d6 against to_hit(BS)
          natural 1 fails
        unit m "Marine":
          BS 4  S 4  T 4  Sv 3+  W 1
        """) == []


def test_unknown_stat_in_profile_suggests_the_close_name() -> None:
    body = 'unit m "Marine":\n  BS 4  SV 3+\n'
    d = only(body, "W101")
    assert d.message == "unknown stat 'SV'"
    assert d.hint == "did you mean 'Sv'? the stats are: A, AP, BS, S, Sv, T, W"
    assert (d.span.line, d.span.column) == (line_of(body, "SV 3+"), 9)


def test_unknown_name_in_expression() -> None:
    body = 'formula f(S) "F" = S + Tough\n'
    d = only(body, "W101")
    assert "unknown name 'Tough'" in d.message and d.span.column == 24


def test_unknown_function_and_arity() -> None:
    assert codes('formula f(S) "F" = wund(S)\n') == ["W101"]
    d = only('table t(S) "T":\n  otherwise -> 4+\nformula f(S) "F" = t(S, S)\n', "W203")
    assert "takes 1 value (S), but 2 are given" in d.message


def test_duplicate_ids_point_at_both() -> None:
    d = only('rule a "A": "x"\nrule a "B": "y"\n', "W102")
    assert "'a' is already defined (as a rule)" in d.message
    assert d.related and d.related[0][0].line == d.span.line - 1


def test_value_outside_stat_range() -> None:
    d = only('unit m "M":\n  BS 11\n', "W202")
    assert d.message == "M's BS is 11, outside its range 1..10"


def test_target_where_a_number_is_needed() -> None:
    d = only('table t(S) "T":\n  otherwise -> 4+\ntest x(S) = roll d6 >= t(S)\n', "W201")
    assert "already a target" in d.message and d.hint == "write: roll … against t(…)"


def test_number_where_a_target_is_needed() -> None:
    d = only('test x(S) = roll d6 against S + 1\n', "W201")
    assert "'against' needs a target" in d.message


def test_stat_value_of_the_wrong_kind() -> None:
    d = only('unit m "M":\n  Sv 3\n', "W201")
    assert "is a target such as 3+" in d.message and d.hint == "write 3+ for a roll of 3 or more"


def test_cycle_between_definitions() -> None:
    d = only('formula f(S) "F" = g(S)\nformula g(S) "G" = f(S) + 1\n', "W401")
    assert "f → g → f" in d.message


def test_table_gap_d6_outcome_without_a_six() -> None:
    # The shape of a published mounted-infantry roll: nothing says what a 6 does.
    body = 'table terrain(roll: 1..6) "Terrain":\n  1 -> "removed"\n  2..5 -> "moves on"\n'
    d = only(body, "W301")
    assert d.message == "table 'terrain' says nothing for roll = 6"


def test_unreachable_row_in_an_ordered_case_list() -> None:
    # A published power table as printed: the 5+ row swallows the 6+ row.
    body = """
    stat P "Power" 1..10
    table attack(P, T) "Attack":
      P >= 2 * T -> 2+
      P > T -> 3+
      P == T -> 4+
      P < T -> 5+
      T >= 2 * P -> 6+
    """
    d = only(body, "W302")
    assert d.span.line == line_of(body, "T >= 2 * P")
    assert "can never be used" in d.message


def test_repeated_key_in_keyed_table() -> None:
    d = only('table t(BS) "T":\n  1 -> 6+\n  1 -> 5+\n  otherwise -> 4+\n', "W303")
    assert d.message == "table 't' lists 1 twice"


def test_grid_with_missing_column_and_ragged_row() -> None:
    found = codes('table g(S, T) "G":\n  grid S by T:\n    T: 1 2\n    1: 4+ 5+ 6+\n')
    assert "W304" in found and "W301" in found


def test_table_checks_cover_situations() -> None:
    body = ('situation close "Close"\n'
            'table ext(need: 1..9) "Ext":\n  need <= 6 -> need+\n  need == 7 -> 6 then 4+\n'
            '  need == 8 and close -> 6 then 5+\n  need == 9 and close -> 6 then 6+\n')
    d = only(body, "W301")
    assert "need = 8, close = no" in d.message


def test_custom_die_needs_one_face_per_side() -> None:
    d = only('die D3 = d6 as 1, 2, 3\n', "W204")
    assert "needs 6 faces, not 3" in d.message


def test_unknown_choice_of_a_situation() -> None:
    d = only('situation cover "Cover" one of open, soft, hard\nmodifier m "M": -1 to hit when cover is sfot\n'
             'test hit(BS) = roll d6 >= BS\n', "W101")
    assert d.message == "'sfot' is not a choice of 'cover'" and d.hint == "did you mean 'soft'?"


def test_modifier_names_an_unknown_test() -> None:
    d = only('modifier m "M": -1 to hti\ntest hit(BS) = roll d6 >= BS\n', "W101")
    assert d.message == "unknown test 'hti'" and d.hint == "did you mean 'hit'?"


def test_has_names_a_known_keyword() -> None:
    body = ('keyword vehicle "Vehicle"\ntest hit(BS) = roll d6 >= BS\n'
            'attack a(shooter, target) "A":\n  n = shooter.models\n'
            'modifier m "M": +1 to hit when target has vehicel\n')
    d = only(body, "W101")
    assert d.message == "unknown keyword or ability 'vehicel'" and d.hint == "did you mean 'vehicle'?"


def test_prose_link_to_an_unknown_name() -> None:
    body = 'section s "S":\n  """\n  See the [[to_wund|chart]].\n  """\ntable to_wound(S, T) "W":\n  otherwise -> 4+\n'
    d = only(body, "W107")
    assert "'to_wund'" in d.message and d.hint == "did you mean 'to_wound'?"


def test_open_questions_are_listed_as_notes() -> None:
    ds = diags('open question q "Should arrivals suffer -1 to hit?": "Unclear."\n')
    assert [(d.code, d.severity.value, d.message) for d in ds] == [
        ("W501", "note", "open question: Should arrivals suffer -1 to hit?")]


def test_ability_argument_checks() -> None:
    body = ('ability sus(N: 1..3) "Sustained Hits":\n  on natural 6 to hit: N extra hits\n'
            'test hit(BS) = roll d6 >= BS\nunit m "M":\n  BS 4\n  abilities sus(4), sus\n')
    assert codes(body) == ["W202", "W203"]


def test_squad_checks() -> None:
    assert sorted(codes('squad s "S":\n  models nobody 5..1\n')) == ["W101", "W202"]


def test_overlay_operation_without_a_base() -> None:
    d = only('remove cover\n', "W601")
    assert "extends none" in d.message


def test_example_uses_attack_steps_and_situations() -> None:
    body = """
    situation cover "Cover" one of open, soft
    test hit(BS) = roll d6 >= BS
    attack shoot(shooter, target) "Shoot":
      attacks = shooter.models
      hits = attacks each hit(shooter.BS)
    unit m "M":
      BS 4
    example e "E":
      let r = shoot(5 m, 5 m) with cover = soft
      expect mean(r.hits) = 5/2
    example bad "Bad":
      let r = shoot(5 m, 5 m) with cover = wet, windy
    """
    found = [(d.code, d.message) for d in diags(body)]
    assert found == [("W202", "'wet' is not a choice of 'cover'"), ("W101", "unknown situation 'windy'")]


# ---------------------------------------------------------------------------
# Folders: includes, overlays, versions
# ---------------------------------------------------------------------------


def test_includes_follow_order_and_stay_inside(write_ruleset) -> None:
    folder = write_ruleset({
        "ruleset.rules": HEAD + 'include "lexicon.rules"\ninclude "../outside.rules"\ninclude "missing.rules"\n',
        "lexicon.rules": 'stat BS "Ballistic Skill" 1..10\n',
        "stray.rules": 'stat X "X" 1..10\n',
    })
    result = compile_paths([str(folder)])
    got = sorted((d.code, d.severity.value) for d in result.diagnostics)
    assert got == [("W104", "error"), ("W404", "warning"), ("W701", "error")]
    assert "BS" in result.rulesets[0].stats


def test_overlay_merges_and_reports(write_ruleset) -> None:
    write_ruleset(HEAD.replace("demo", "base") + 'section cover "Cover":\n  rule save "Save": "4+"\n'
                  'rule cavalry "Cavalry": "Fast."\n', folder="base")
    over = write_ruleset('ruleset house "House":\n  version 1.0.0\n  extends base 1.0.0\n'
                         'replace rule save "Save": "Cover adds to armour."\n'
                         'remove cavalry\nremove nothing_here\n'
                         'extend cover:\n  rule light "Light": "-1 BS"\n', folder="house")
    result = compile_paths([str(over)])
    (house,) = result.rulesets
    assert [d.code for d in result.diagnostics] == ["W603"]
    assert house.get("cavalry") is None and house.get("light") is not None
    assert house.origin["save"] == "replaced" and house.origin["light"] == "added"
    assert house.origin["cover"] == "base"
    assert house.base is not None and house.base.id == "base"


def test_overlay_version_mismatch(write_ruleset) -> None:
    write_ruleset(HEAD.replace("demo", "base").replace("1.0.0", "2.0.0"), folder="base")
    over = write_ruleset('ruleset house "House":\n  version 1.0.0\n  extends base ^1.0.0\n', folder="house")
    result = compile_paths([str(over)])
    assert [d.code for d in result.diagnostics] == ["W604"]


def test_missing_header(write_ruleset) -> None:
    folder = write_ruleset({"a.rules": 'stat X "X" 1..10\n'})
    result = compile_paths([str(folder)])
    assert [d.code for d in result.diagnostics] == ["W402"]


@pytest.mark.parametrize("text, code", [
    (HEAD + "formula f(x", "W002"),
    (HEAD + 'table t(x) "T":', "W002"),
    (HEAD + "stat", "W001"),
    (HEAD + 'stat BS "BS" 1..10\n@@@ garbage line\n', "W001"),
])
def test_truncated_and_garbage_input_give_located_syntax_errors(text: str, code: str) -> None:
    (d,) = compile_text(text).diagnostics
    assert d.code == code and d.span.line >= 3


# ---------------------------------------------------------------------------
# The passes: a registered tuple, each pass runnable alone
# ---------------------------------------------------------------------------


def _model(body: str, lex: str = LEX):
    result = compile_text(HEAD + lex + textwrap.dedent(body))
    (model,) = result.rulesets
    return model


def _alone(check, body: str, lex: str = LEX) -> list[tuple[str, str]]:
    from compiler.check import Context
    from compiler.diagnostics import Sink

    sink = Sink()
    check(Context(_model(body, lex), sink))
    return [(d.code, d.message) for d in sink.items]


def test_the_passes_run_in_their_registered_order() -> None:
    from compiler import check

    assert [c.__name__ for c in check.CHECKS] == [
        "check_header", "check_duplicates", "check_names", "check_types", "check_cycles", "check_tables",
        "check_profiles", "check_dice", "check_situations", "check_situation_keywords", "check_semantics",
        "check_dependent_results", "check_traps", "check_battles", "check_volley_sides", "check_carried",
        "check_prose", "check_notes"]
    assert len(set(check.CHECKS)) == len(check.CHECKS)


@pytest.mark.parametrize("pass_name, body, expected", [
    ("check_dice", 'die D3 "D3" = d6 as 1, 2, 3\n', ["W204"]),
    ("check_duplicates", 'rule a "A": "x"\nrule a "B": "y"\n', ["W102"]),
    ("check_tables", 'table t(BS) "T":\n  1..5 -> 4+\n', ["W301"]),
    ("check_profiles", 'unit m "M":\n  BS 11\n', ["W202"]),
    ("check_types", 'test x(S) = roll d6 against S + 1\n', ["W201"]),
    ("check_prose", 'rule r "R": """See [[nowhere]]."""\n', ["W107"]),
    ("check_situations", 'situation cover "Cover" one of open, soft, soft\n', ["W102"]),
    ("check_names", 'formula f(S) "F" = S + Tough\n', ["W101"]),
    ("check_traps", 'formula f(S) "F" = S + 1 each d6\n', ["W418"]),
])
def test_each_pass_alone_reports_only_its_own_findings(pass_name: str, body: str, expected: list[str]) -> None:
    from compiler import check

    found = _alone(getattr(check, pass_name), body)
    assert [code for code, _ in found] == expected, found
    # ...and every other pass is silent on the same ruleset.
    others = [c for c in check.CHECKS if c.__name__ not in (pass_name, "check_header")]
    assert [f for c in others for f in _alone(c, body)] == [], pass_name


def test_the_cycle_pass_reads_the_call_graph_of_the_names_pass() -> None:
    from compiler import check
    from compiler.diagnostics import Sink

    model = _model('formula f(S) "F" = g(S)\nformula g(S) "G" = f(S)\n')
    assert _alone(check.check_cycles, 'formula f(S) "F" = g(S)\nformula g(S) "G" = f(S)\n') == []
    sink = Sink()
    check.run_checks(model, sink, (check.check_names, check.check_cycles))
    assert [d.code for d in sink.items] == ["W401"]


def test_the_old_import_path_still_works() -> None:
    from compiler import check
    from compiler.check import passes

    for name in ("run_checks", "CHECKS", "Context", "Scope", "check_expr", "param_domain", "BUILTINS",
                 "BUILTIN_WORDS", "situation_domain", "check_names", "check_tables"):
        assert getattr(passes, name) is getattr(check, name), name


# ---------------------------------------------------------------------------
# Versions: ordered as versions, not as text
# ---------------------------------------------------------------------------


def test_a_newer_history_line_is_found_by_version_order_not_text_order() -> None:
    head = 'ruleset demo "Demo":\n  version 1.2.9\n  history:\n    1.2.10: "Later."\n    1.2.9: "Now."\n'
    (d,) = [d for d in compile_text(head + LEX).diagnostics]
    assert d.code == "W407"
    assert d.message == "the history lists version 1.2.10, newer than the current version 1.2.9"
    clean = 'ruleset demo "Demo":\n  version 1.2.10\n  history:\n    1.2.10: "Now."\n    1.2.9: "Before."\n'
    assert compile_text(clean + LEX).diagnostics == ()


@pytest.mark.parametrize("actual, requirement, ok", [
    ("1.2.0", "1.2.0", True), ("1.2.1", "1.2.0", False), ("1.2.0", "==1.2.0", True),
    ("1.10.0", "^1.2.0", True), ("1.1.9", "^1.2.0", False), ("2.0.0", "^1.2.0", False),
    ("0.3.0", "^0.2.0", True),  # caret keeps the major number only, as it always did
    ("1.2.10", "~1.2.3", True), ("1.3.0", "~1.2.3", False), ("1.2.2", "~1.2.3", False),
    ("10.0.0", ">=9.0.0", True), ("9.0.0", ">=10.0.0", False),
    ("1.2.0-beta", "1.2.0", True),  # a pre-release suffix takes no part in the comparison
    (None, "1.0.0", False), ("next", "next", True),
])
def test_version_requirements(actual: str | None, requirement: str, ok: bool) -> None:
    from compiler.model.ruleset import version_matches

    assert version_matches(actual, requirement) is ok


# --- situations that repeat what the profiles carry (W109) ------------------------------------

_PROFILES = ('ruleset demo "Demo":\n  version 1.0.0\nstat BS "BS" 1..6\nstat W "W" 1..3\n'
             'keyword mounted "Mounted"\nkeyword monstrous_creature "Monstrous creature"\nkeyword blast "Blast"\n'
             'unit rider "Rider":\n  BS 3  W 1\n  keywords mounted\n'
             'unit beast "Beast":\n  BS 3  W 3\n  keywords monstrous_creature\n'
             'weapon frag "Frag":\n  keywords blast\n')


def _w109(extra: str) -> list[str]:
    return [d.message for d in compile_text(_PROFILES + extra).diagnostics if d.code == "W109"]


@pytest.mark.parametrize("extra, repeated", [
    ('situation target_kind "Target" one of infantry, monstrous, mounted\n'
     'modifier m "M": -1 BS when target_kind is mounted\n', ["monstrous", "mounted"]),
    ('situation blast_shot "A blast"\nmodifier m "M": -1 BS when blast_shot\n', ["blast"]),
])
def test_a_condition_reading_a_keyword_as_a_situation_is_warned(extra: str, repeated: list[str]) -> None:
    messages = _w109(extra)
    assert len(messages) == len(repeated)
    for message, word in zip(messages, repeated):
        assert word in message and "keyword the profiles carry" in message


@pytest.mark.parametrize("extra", [
    # read from the profile: nothing to warn about
    'modifier m "M": -1 BS when target has mounted\n',
    # a situation only a table ranges over, or only examples set, is not a condition
    'situation kind "Kind" one of infantry, mounted\ntable t(k: kind) "T":\n  k is mounted -> 1\n  otherwise -> 0\n',
    # more than the keyword: the choice says something a profile does not
    'situation melee "Melee" one of clear, mounted_charge\nmodifier m "M": -1 BS when melee is mounted_charge\n',
])
def test_situations_that_profiles_cannot_know_are_not_warned(extra: str) -> None:
    assert _w109(extra) == []


def test_the_bundled_rulesets_read_keywords_from_their_profiles() -> None:
    result = compile_paths(["rules"])
    assert [d for d in result.diagnostics if d.code == "W109"] == []
