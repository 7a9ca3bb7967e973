"""A battle's stream of draws at its edges: a peek is the next draw and draws nothing, the draws
made at once for many games (each at its own count) are each game's own, bit for bit, and an
empty run draws nothing."""
from __future__ import annotations

import random

import numpy as np

from compiler.battle.streams import Stream, draws_at, first_draws, game_seed, game_seed_array, game_seeds, stream


def test_a_peek_is_the_next_draw_and_draws_nothing() -> None:
    s = Stream(game_seed(3, 0))
    ahead = s.peek()
    assert s.peek() == ahead and s.random() == ahead and s.peek() != ahead
    assert next(iter(s)) == Stream(game_seed(3, 0), skip=1).random()  # the second draw


def test_draws_made_at_once_at_each_games_own_count_are_its_streams() -> None:
    seeds = [game_seed(5, i) for i in range(4)]
    counts = np.array([0, 3, 1, 6])
    got = draws_at(np.array(seeds, dtype=np.uint64), counts).tolist()
    want = []
    for seed, k in zip(seeds, counts.tolist()):
        s = Stream(seed)
        for _ in range(k):
            s.random()
        want.append(s.random())
    assert got == want
    assert draws_at(np.array(seeds, dtype=np.uint64), 2).tolist() == [first_draws([x], 3)[0][2] for x in seeds]


def test_an_empty_run_draws_nothing() -> None:
    assert first_draws([], 5) == []
    assert game_seeds(4, 7, 7) == [] and game_seeds(4, 7, 3) == []
    assert game_seed_array(4, 2, 2).dtype == np.uint64 and len(game_seed_array(4, 2, 2)) == 0


def test_a_log_of_version_1_is_played_on_the_mersenne_twister_and_any_later_on_the_stream() -> None:
    assert stream(9, 1).random() == random.Random(9).random()
    assert stream(9).random() == stream(9, 3).random() == Stream(9).random()
