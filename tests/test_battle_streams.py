"""The draws of a battle (compiler.battle.streams): each game's SplitMix64 stream from its seed, the
first draws of many games made at once bit for bit equal to it, and battle logs of version 1
replayed on the Mersenne Twister they were played on."""
from __future__ import annotations

import io
import json
import random

from compiler.battle import Battle, GreedyPolicy, Rules, read_log, replay, write_log
from compiler.battle.streams import Stream, first_draws, game_seed, game_seeds, mix
from compiler.battle.log import ReplayMismatch
from compiler.driver import compile_text

import pytest

from battle_duels import OGRES

# the reference values of SplitMix64 (Vigna's splitmix64.c seeded with 1234567: its first outputs)
SPLITMIX_1234567 = [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_the_stream_is_splitmix64() -> None:
    state, out = 1234567, []
    for _ in range(3):
        state = (state + 0x9E3779B97F4A7C15) % 2 ** 64
        out.append(mix(state))
    assert out == SPLITMIX_1234567
    s = Stream(1234567)
    assert [s.random() for _ in range(3)] == [(z >> 11) / 2 ** 53 for z in SPLITMIX_1234567]


def test_draws_made_at_once_are_the_streams_own() -> None:
    seeds = [0, 1, 2 ** 63, 2 ** 64 - 1] + game_seeds(3, 0, 60)
    ahead = first_draws(seeds, 9)
    for seed, row in zip(seeds, ahead):
        s = Stream(seed)
        assert row == [s.random() for _ in range(9)]
        assert Stream(seed, 9).random() == s.random()  # a stream taken up after the draws made ahead
    assert game_seeds(3, 10, 20) == [game_seed(3, i) for i in range(10, 20)]
    assert len(set(game_seeds(3, 0, 1000))) == 1000


def test_draws_are_uniform() -> None:
    draws = [u for row in first_draws(game_seeds(1, 0, 4000), 10) for u in row]
    assert all(0.0 <= u < 1.0 for u in draws)
    counts = [0] * 20
    for u in draws:
        counts[int(u * 20)] += 1
    expected = len(draws) / 20
    stat = sum((c - expected) ** 2 / expected for c in counts)
    assert stat < 43.8  # chi-square, 19 degrees of freedom, p = 0.001


def test_a_log_of_version_1_replays_on_the_dice_it_was_played_on() -> None:
    model = compile_text(OGRES, "ogres.rules").rulesets[0]
    rules, sc = Rules(model), model.get("ogres")
    seed = game_seed(2, 0)
    old = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], seed, draws=random.Random(seed))
    old.run()
    assert old.events != Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], seed).run() and old.events
    out = io.StringIO()
    write_log(out, old, model.id, seed)
    head, *rest = out.getvalue().splitlines()
    as_v1 = "\n".join([json.dumps({**json.loads(head), "version": 1})] + rest)
    played = replay(rules, read_log(io.StringIO(as_v1)))
    assert played.events == old.events
    with pytest.raises(ReplayMismatch):  # the same log read as version 2 is played on other dice
        replay(rules, read_log(io.StringIO(out.getvalue())))
