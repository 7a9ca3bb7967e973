"""The flat arrays of a walk's kept chance nodes (compiler.battle.flat), walked many games at once:
each game's draw at a chance node must find the outcome :meth:`Law.index` finds for it, whether it
is read from the law's slices of [0, 1) or counted in its cumulative chances, and each game must
go on to what was kept after that outcome — the next chance node (a draw further down its
stream), an end of the battle, or nothing kept yet (the game handed back with where it stood)."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np

from compiler.battle.flat import SLICES, Flat
from compiler.battle.rules import Law, bernoulli, binomial, law_over, uniform
from compiler.battle.streams import draws_at, game_seed_array

# laws whose cumulative chances fall inside slices of [0, 1), at their edges, or nearly at 1: a
# fair coin, a die, five shots hitting on 4+, a tiny chance, and chances that do not sum to 1
LAWS = [bernoulli(Fraction(1, 2)), uniform(6), binomial(5, Fraction(1, 2)), bernoulli(Fraction(1, 1000)),
        law_over((0, 1, 2), (0.1, 0.2, 0.30000000000000004)), law_over((0, 1, 2, 3), (0.3, 0.0, 0.4, 0.3))]
SEEDS = game_seed_array(4, 0, 4 * 1024)


def ends_of(flat: Flat, counts: np.ndarray) -> Counter[object]:
    return Counter({flat.ends[k]: int(n) for k, n in enumerate(counts.tolist()) if n})


def one_node_each(laws: list[Law]) -> tuple[Flat, list[int]]:
    """A flat walk with a chance node per law, each of its outcomes ending the battle (end (row, i))."""
    flat = Flat()
    rows = [flat.step(law, law.cumulative) for law in laws]
    for row, law in zip(rows, laws):
        for i in range(len(law.values)):
            flat.link(row, i, flat.end((row, i)))
    return flat, rows


def test_each_draw_finds_the_outcome_law_index_finds() -> None:
    u = draws_at(SEEDS, 0).tolist()
    for games in (SEEDS[:2 * SLICES - 1], SEEDS):  # too few to slice the laws, then enough
        flat, rows = one_node_each(LAWS)
        for row, law in zip(rows, LAWS):
            counts, back = flat.walk(games, np.full(len(games), row))
            assert back == []
            assert ends_of(flat, counts) == Counter((row, law.index(x)) for x in u[:len(games)]), (row, len(games))
        assert flat.sliced == (len(LAWS) if len(games) >= 2 * SLICES else 0)


def test_a_games_next_draw_is_the_next_of_its_stream_and_an_outcome_with_nothing_kept_hands_it_back() -> None:
    """A coin at the root: heads ends the battle, tails goes on to a die (the game's second draw),
    whose 6 ends it and whose other faces have nothing kept after them yet."""
    coin, die = bernoulli(Fraction(1, 2)), uniform(6)
    flat = Flat()
    root = flat.step(coin, coin.cumulative)
    then = flat.step(die, die.cumulative)
    flat.link(root, 1, flat.end("heads"))
    flat.link(root, 0, then)
    flat.link(then, 5, flat.end("six"))
    first, second = draws_at(SEEDS, 0).tolist(), draws_at(SEEDS, 1).tolist()
    for _ in range(2):  # the second time, the first two draws of every game are made at once
        counts, back = flat.walk(SEEDS, np.full(len(SEEDS), root))
        heads = [g for g, x in enumerate(first) if coin.index(x) == 1]
        sixes = [g for g, x in enumerate(first) if coin.index(x) == 0 and die.index(second[g]) == 5]
        assert ends_of(flat, counts) == Counter({"heads": len(heads), "six": len(sixes)})
        expected = [(g, then, die.index(second[g]), 2) for g, x in enumerate(first)
                    if coin.index(x) == 0 and die.index(second[g]) != 5]
        assert sorted(back) == expected and len(heads) + len(sixes) + len(back) == len(SEEDS)
    # games taken up at the die after their first draw: they draw their second there
    counts, back = flat.walk(SEEDS, np.full(len(SEEDS), then), np.ones(len(SEEDS), dtype=np.int64))
    assert ends_of(flat, counts) == Counter({"six": sum(1 for x in second if die.index(x) == 5)})
    assert sorted(back) == [(g, then, die.index(x), 2) for g, x in enumerate(second) if die.index(x) != 5]
    # games at an end, or at nothing kept, before any draw
    counts, back = flat.walk(SEEDS[:2], np.array([flat.end("heads"), -1]))
    assert ends_of(flat, counts) == Counter({"heads": 1}) and back == [(1, -1, -1, 0)]


def test_a_slice_holds_the_outcome_of_its_draws_exactly_when_they_all_find_one() -> None:
    """Each slice of [0, 1), [b/64, (b+1)/64), holds the outcome its every draw finds (by
    Law.index, at its least draw and at its greatest, the last multiple of 2⁻⁵³ below the next
    slice: the outcomes between lie between them), and -1 when its draws find more than one — the
    coin's slice from 1/2 on holds heads from its first draw; a walk of fewer than 2 × 64 games
    works none out."""
    flat, rows = one_node_each(LAWS)
    flat.walk(SEEDS[:2 * SLICES - 1], np.full(2 * SLICES - 1, rows[0]))
    assert flat.sliced == 0
    flat.walk(SEEDS[:2 * SLICES], np.full(2 * SLICES, rows[0]))
    assert flat.sliced == len(LAWS)
    for row, law in zip(rows, LAWS):
        expected = []
        for b in range(SLICES):
            least, greatest = law.index(b / SLICES), law.index((b + 1) / SLICES - 2.0 ** -53)
            expected.append(least if least == greatest else -1)
        assert flat.slices[flat.law[row]].tolist() == expected, row
    assert flat.slices[flat.law[rows[0]]].tolist() == [0] * 32 + [1] * 32  # the coin: no slice straddles 1/2


def test_no_games_walked_end_nowhere() -> None:
    flat, rows = one_node_each(LAWS)
    counts, back = flat.walk(SEEDS[:0], np.zeros(0, dtype=np.int64))
    assert counts.tolist() == [0] * len(flat.ends) and back == []
