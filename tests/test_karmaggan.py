"""Karmaggän engine: the rulebook's numbers, positions drawn as text, invariants over many games.

Rulebook: shared/rules/karmaggan.md.  The jitted kernels compile once (module fixtures) and
later runs load them from NUMBA_CACHE_DIR.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

from simulator.game import get_game
from simulator.games.karmaggan import game as K
from simulator.games.karmaggan import board as B
from simulator.games.karmaggan import combat, core, egg, movement, traps
from simulator.games.karmaggan.state import (
    ACT_MOVE, ALIVE, ATTACK, BOARD, CELLS, CFG, CFG_CENTRE, COUNTER, DEAD, F_POS, FIGS, G_BANK,
    G_EGG_CARRIER, G_EGG_POS, G_OFFSET, G_ROLLERS_ON, GAME, HANDS, NO_CARD, NOTHING, OFF, P_COINS,
    P_COMBATS_WON, P_HAND_N, P_STATUS, P_TEAM, PLAYERS, POWER, RNG, SRC_ARROWS, ARROWS_WALL, C_WALL_IN,
    CARDS, END_REASONS, TRACE_WIDTH)
from simulator.rules import RulesError

RANDOM, RUSHER, HUNTER, SUPPORTER = 0, 1, 2, 3
MIXED = np.array([RUSHER, HUNTER, SUPPORTER, RANDOM], np.int8)


@pytest.fixture(scope="module")
def game():
    return get_game("karmaggan")


@pytest.fixture(scope="module")
def rules(game):
    return game.rules()


@pytest.fixture(scope="module")
def params(game, rules):
    return game.prepare(rules, 4)


@pytest.fixture(scope="module")
def mixed_games(game, params):
    """2,000 four-player games, seats rotating through the four policies."""
    n = 2000
    seeds = np.arange(1, n + 1, dtype=np.uint64)
    seats = np.array([np.roll(MIXED, g % 4) for g in range(n)], np.int8)
    return game.play(params, seeds, seats)


def fresh_world(params, seed=7, policies=(RUSHER,) * 4):
    return K.world(params, seed, np.array(policies, np.int8))


def draw(W):
    figures = {int(W[FIGS][s, F_POS]): str(s) for s in range(W[PLAYERS].shape[0])
               if W[FIGS][s, F_POS] >= 0}
    return "\n".join(B.draw_rows(W, figures))


# --- Setup, Continued -------------------------------------------------------------------------

@pytest.mark.parametrize("n_players,coins", [(2, 2), (3, 3), (4, 4), (5, 4), (6, 4), (7, 5), (8, 5)])
def test_starting_blood_coins_by_player_count(game, rules, n_players, coins):
    """Setup, Continued: 7-8 players 5 coins, 4-6 players 4, 3 players 3, 2 players 2; each
    player also gets 4 Object cards and 1 Golden Medallion; the bank pays the coins."""
    W = fresh_world(game.prepare(rules, n_players), policies=(RUSHER,) * n_players)
    players = W[PLAYERS]
    assert players[:, P_COINS].tolist() == [coins] * n_players
    assert players[:, P_HAND_N].tolist() == [4] * n_players
    assert W[GAME][G_BANK] == 60 - coins * n_players
    # Setup: alternate a player from each team around the board
    assert players[:, P_TEAM].tolist() == [s % 2 for s in range(n_players)]


def test_starting_coins_reach_the_dataset(game, rules):
    params8 = game.prepare(rules, 8)
    out = game.play(params8, np.arange(1, 4, dtype=np.uint64), np.full((3, 8), RUSHER, np.int8))
    assert (out["players"]["start_blood_coins"] == 5).all()
    # the variant key of the 4-6 player bracket (a designer's "3 coins instead of 4")
    three = game.prepare(game.rules(sets=("setup.blood_coins_4_6=3",)), 5)
    assert (fresh_world(three, policies=(RUSHER,) * 5)[PLAYERS][:, P_COINS] == 3).all()


# --- Movement -----------------------------------------------------------------------------------

def test_movement_roll_is_the_max_of_two_dice(params):
    """Movement: the higher of two dice; P(max = k) = (2k - 1) / 36.  200,000 rolls: the
    standard error of each frequency is below 0.0011, the tolerance 0.005 is ~5 of them."""
    W = fresh_world(params)
    n = 200_000
    rolls = np.array([movement.movement_roll(W[RNG], False) for _ in range(n)])
    freq = np.bincount(rolls, minlength=7)[1:] / n
    exact = np.array([(2 * k - 1) / 36 for k in range(1, 7)])
    assert np.abs(freq - exact).max() < 0.005
    carrier = np.array([movement.movement_roll(W[RNG], True) for _ in range(60_000)])
    assert np.abs(np.bincount(carrier, minlength=7)[1:] / 60_000 - 1 / 6).max() < 0.01


# --- Board and Rotations -------------------------------------------------------------------------

BEFORE = """\
0 . . O|. . . B 2 . . O|3 . . B
. T . # P . O|. . T . # O . P|B
O .|B . . T 1 # . O|. B . . T .
. # . P . O . T|# . . . P . O|.
T . O|. B . # . T|. O . B . #|.
. B . T|. . O . . B . T|. . O .
centre @"""

# the middle ring (rows 2 and 3) turned one sector (two columns) clockwise: its tiles, its
# walls and seat 1 moved with it; the other rings did not
AFTER = """\
0 . . O|. . . B 2 . . O|3 . . B
. T . # P . O|. . T . # O . P|B
T . O .|B . . T 1 # . O|. B . .
O|. . # . P . O . T|# . . . P .
T . O|. B . # . T|. O . B . #|.
. B . T|. . O . . B . T|. . O .
centre @"""


def test_rotation_moves_tiles_walls_and_figures_with_the_ring(params):
    """Board / Rotations: a ring turns by sectors; figures and tiles turn with it and the
    cells facing each other across its edges change."""
    W = fresh_world(params)
    core.place_figure(W, 1, 2 * 16 + 6)          # seat 1 on the middle ring, row 2, column 6
    assert draw(W) == BEFORE
    outer = 1 * 16 + 6                         # outer ring, row 1, column 6: open inward
    adjacency = B.adjacency(W)
    assert 2 * 16 + 6 in adjacency[outer, 1:1 + adjacency[outer, 0]]
    traps.rotate_ring(W, 1, 1)
    assert draw(W) == AFTER
    assert W[FIGS][1, F_POS] == 2 * 16 + 6     # same cell of its ring ...
    assert B.phys_col(W, 2 * 16 + 6) == 8      # ... now two columns clockwise
    adjacency = B.adjacency(W)
    inward = adjacency[outer, 1:1 + adjacency[outer, 0]]
    assert 2 * 16 + 4 in inward and 2 * 16 + 6 not in inward
    traps.rotate_ring(W, 1, -1)
    assert draw(W) == BEFORE


def test_a_full_turn_restores_the_board(params):
    W = fresh_world(params)
    before = draw(W)
    for _ in range(8):
        traps.rotate_ring(W, 0, 1)
    assert draw(W) == before


def test_rollers_charge_each_crossing(params):
    """The Rollers: (1D6) - 1 per crossing, only once the Egg has left the Centre; here they
    sit between columns 5|6 and 13|14 of the outer ring.  E[(1D6) - 1] = 2.5; 600 crossings
    give a standard error of 0.07, the tolerance is 0.3."""
    W = fresh_world(params)
    assert traps.roller_crossings(W, 5, 6, 1, 1) == 1
    assert traps.roller_crossings(W, 4, 5, 1, 1) == 0
    assert traps.roller_crossings(W, 6, 5, -1, 1) == 1
    assert traps.roller_crossings(W, 4, 12, 1, 8) == 1        # sweeping past 5|6 only
    assert traps.roller_crossings(W, 4, 14, 1, 10) == 2       # ... and past 13|14
    assert traps.roller_crossings(W, 0, 0, 1, 16) == 2        # a full turn crosses both
    for seat in (1, 2, 3):
        core.place_figure(W, seat, OFF)

    def dragged(start_col, sectors):
        W[GAME][G_OFFSET] = 0
        core.place_figure(W, 0, start_col)                   # outer row 0
        W[PLAYERS][0, P_COINS] = 20
        traps.rotate_ring(W, 0, sectors)
        return 20 - W[PLAYERS][0, P_COINS]

    assert dragged(4, 1) == 0                             # Rollers not placed yet
    W[GAME][G_ROLLERS_ON] = 1
    assert dragged(0, 1) == 0                             # columns 0 -> 2: no Roller
    losses = [dragged(4, 1) for _ in range(600)]          # columns 4 -> 6: one crossing
    assert set(losses) <= {0, 1, 2, 3, 4, 5}
    assert abs(np.mean(losses) - 2.5) < 0.3
    assert {dragged(4, 5) for _ in range(50)} <= set(range(0, 11))    # 4 -> 14: two crossings


# --- Traps ----------------------------------------------------------------------------------------

def test_wall_trap_fires_outward_and_stops_at_the_first_figure(params):
    """Ring Traps: every Arrows wall fires outward; the first plunderer in the line loses 1
    coin and stops it.  Column 13 below: the Arrows wall is on the inner side of row 3.

        row 0   .      cell 13          (not hit: seat 1 stops the arrow first)
        row 1   1      cell 29  seat 1  <- hit, loses 1
        row 2   .      cell 45
        row 3   .      cell 61
                ~~~~~  Arrows wall
    """
    W = fresh_world(params)
    assert W[CELLS][61, C_WALL_IN] == ARROWS_WALL
    for seat in (0, 2, 3):
        core.place_figure(W, seat, OFF)
    core.place_figure(W, 1, 29)
    core.place_figure(W, 0, 13)
    bank = W[GAME][G_BANK]
    traps.fire_wall_traps(W, ARROWS_WALL, 1, SRC_ARROWS)
    assert W[PLAYERS][1, P_COINS] == 3
    assert W[PLAYERS][0, P_COINS] == 4
    assert W[GAME][G_BANK] == bank + 1


def test_spawns_stop_traps_but_are_immune(params):
    """Other Traps: Spawns are immune to Temple traps, but they stop Wall Traps."""
    W = fresh_world(params)
    for seat in (0, 2, 3):
        core.place_figure(W, seat, OFF)
    core.place_figure(W, 1, 29)
    spawn = W[PLAYERS].shape[0]                    # first spawn of swarm 0
    core.place_figure(W, spawn, 45)
    traps.fire_wall_traps(W, ARROWS_WALL, 1, SRC_ARROWS)
    assert W[PLAYERS][1, P_COINS] == 4
    assert W[FIGS][spawn, F_POS] == 45


@pytest.mark.parametrize("coins,lost", [(7, 3), (1, 0), (4, 2), (5, 2), (2, 1)])
def test_piston_takes_half_rounded_in_the_victims_favour(params, coins, lost):
    """The Piston: 'if it has 7, it loses 3; if it has 1, it loses none'."""
    assert traps.piston_loss(coins) == lost
    W = fresh_world(params)
    W[PLAYERS][0, P_COINS] = coins
    core.place_figure(W, 0, W[CFG][CFG_CENTRE])
    traps.piston(W)
    assert W[PLAYERS][0, P_COINS] == coins - lost
    assert W[PLAYERS][1, P_COINS] == 4              # only the Centre is crushed


# --- Combat ----------------------------------------------------------------------------------------

def test_combat_comparison_table(params):
    """Comparing Combat Values: Attack beats Nothing; Counterattack beats Attack; Absolute Power
    beats Nothing, Attack and Counterattack; every other pair ties.  No card loses to any card
    (End of Combat: it pays 1 coin per round without a card)."""
    beats = params[5]
    wins = {(ATTACK, NOTHING), (COUNTER, ATTACK), (POWER, NOTHING), (POWER, ATTACK), (POWER, COUNTER)}
    for a in (NOTHING, ATTACK, COUNTER, POWER):
        for b in (NOTHING, ATTACK, COUNTER, POWER):
            expected = 1 if (a, b) in wins else -1 if (b, a) in wins else 0
            assert combat.round_result(beats, a, b) == expected, (a, b)
        assert combat.round_result(beats, a, NO_CARD) == 1
        assert combat.round_result(beats, NO_CARD, a) == -1
    assert combat.round_result(beats, NO_CARD, NO_CARD) == 0
    assert combat.round_result(beats, NOTHING, COUNTER) == 0     # printed as a tie


def give_hand(W, seat, value, count):
    """Replace a seat's hand with ``count`` cards of one combat value."""
    cards = np.nonzero(W[CARDS][:, 1] == value)[0]
    W[HANDS][seat, :] = -1
    W[HANDS][seat, :count] = cards[:count]
    W[PLAYERS][seat, P_HAND_N] = count


def test_combat_loser_pays_is_thrown_and_gives_up_the_egg(params):
    """Combat / End of Combat: three rounds; each lost round pays 1 coin to the winner; the
    loser is thrown 3 tiles; the Egg passes to the winner; both draw back up to 3 cards."""
    W = fresh_world(params)
    give_hand(W, 0, ATTACK, 3)
    give_hand(W, 1, NOTHING, 3)
    src, node = 1 * 16 + 4, 2 * 16 + 4
    core.place_figure(W, 0, src)
    core.place_figure(W, 1, node)
    W[GAME][G_EGG_CARRIER], W[GAME][G_EGG_POS] = 1, -1
    total = W[PLAYERS][:, P_COINS].sum() + W[GAME][G_BANK]
    assert combat.resolve_combat(W, 0, 1, node)
    assert W[PLAYERS][0, P_COINS] == 7 and W[PLAYERS][1, P_COINS] == 1
    assert W[GAME][G_EGG_CARRIER] == 0
    assert W[FIGS][0, F_POS] == node
    dist = np.empty(W[BOARD].shape[0], np.int64)
    egg.bfs_local(W, dist, node)
    assert dist[W[FIGS][1, F_POS]] >= 3
    assert W[PLAYERS][0, P_COMBATS_WON] == 1
    assert W[PLAYERS][:, P_HAND_N][:2].tolist() == [3, 3]
    assert W[PLAYERS][:, P_COINS].sum() + W[GAME][G_BANK] == total


def test_defender_wins_a_tied_combat_and_ties_return_cards(params):
    W = fresh_world(params)
    give_hand(W, 0, COUNTER, 3)
    give_hand(W, 1, COUNTER, 3)
    core.place_figure(W, 0, 1 * 16 + 4)
    core.place_figure(W, 1, 2 * 16 + 4)
    assert not combat.resolve_combat(W, 0, 1, 2 * 16 + 4)
    assert W[PLAYERS][0, P_COINS] == 4 and W[PLAYERS][1, P_COINS] == 4
    assert W[PLAYERS][0, P_HAND_N] == 3 and W[PLAYERS][1, P_HAND_N] == 3
    assert W[FIGS][1, F_POS] == 2 * 16 + 4          # the defender keeps its tile


def test_a_spawn_dies_on_losing_a_round(params):
    """Combat: each Spawn has only 1 Life point and dies as soon as it loses a round; a
    plunderer beaten by a Spawn discards its coin to the bank."""
    W = fresh_world(params)
    W[PLAYERS][1, P_STATUS] = DEAD
    core.place_figure(W, 1, OFF)
    give_hand(W, 1, NOTHING, 0)
    give_hand(W, 0, POWER, 3)
    spawn = 4 + 6 * 1                               # first spawn of swarm 1 (seat 1's team)
    core.place_figure(W, 0, 1 * 16 + 4)
    core.place_figure(W, spawn, 2 * 16 + 4)
    assert combat.resolve_combat(W, 0, spawn, 2 * 16 + 4)
    assert W[FIGS][spawn, F_POS] == OFF
    assert W[PLAYERS][0, P_COINS] == 4              # nothing is paid by a dying Spawn


# --- Invariants over many games ----------------------------------------------------------------

def test_blood_coins_are_conserved(mixed_games):
    """Components: 60 Blood Coins — every coin is with a player or in the bank."""
    final = mixed_games["players"]["final_blood_coins"].sum(axis=1)
    assert (final + mixed_games["games"]["bank_coins"] == 60).all()


def test_every_game_ends_with_a_reason(mixed_games, rules):
    g = mixed_games["games"]
    cap = rules["game"]["round_cap"]
    assert ((g["length"] >= 1) & (g["length"] <= cap)).all()
    reasons = np.asarray(g["end_reason"])
    escaped = reasons == END_REASONS.index("egg_escaped")
    assert (g["winner_seat"][escaped] >= 0).all() and (g["winner_seat"][~escaped] == -1).all()
    assert (g["length"][reasons == END_REASONS.index("round_cap")] == cap).all()
    assert escaped.mean() > 0.5                          # scripted mixes mostly finish
    assert (g["egg_left_centre_round"][escaped] >= 0).all()


def test_team_mode_scores_the_whole_winning_team(mixed_games):
    """Objective: the player or team who steals the Egg wins."""
    pl, g = mixed_games["players"], mixed_games["games"]
    won = g["winner_seat"] >= 0
    assert (pl["score"][won].sum(axis=1) == 2).all()     # 4 players: 2 per team
    assert (pl["team"][won, 0] == 0).all() and (pl["team"][won, 1] == 1).all()
    winners_team = pl["team"][won, :][np.arange(won.sum()), g["winner_seat"][won]]
    assert (winners_team == g["winning_team"][won]).all()
    assert (pl["score"][~won] == 0).all()


def test_deaths_and_blood_accounting(mixed_games):
    pl, g = mixed_games["players"], mixed_games["games"]
    assert (pl["died"].sum(axis=1) + pl["eliminated"].sum(axis=1) >= g["deaths"]).all()
    assert (pl["died"].sum(axis=1) == g["deaths"]).all()
    lost = sum(pl[f"blood_lost_{s}"].astype(int) for s in K.LOSS_SOURCES)
    gained = (pl["blood_gained_tiles"].astype(int) + pl["blood_gained_combat"]
              + pl["blood_gained_other"])
    assert (pl["start_blood_coins"] + gained - lost == pl["final_blood_coins"]).all()
    assert (pl["final_blood_coins"][pl["died"]] == 0).all()
    assert (pl["turns_as_spawn"][~pl["died"]] == 0).all()


def test_round_timeline_follows_the_coins(mixed_games):
    t, g, pl = mixed_games["rounds"], mixed_games["games"], mixed_games["players"]
    assert len(t["game_index"]) == (np.minimum(g["length"], 80) * 4).sum()
    last = (t["round"] == g["length"][t["game_index"]])
    final = pl["final_blood_coins"][t["game_index"][last], t["seat"][last]]
    assert (t["blood_coins"][last] == final).all()


def test_free_for_all_and_round_cap_variants(game):
    rules = game.rules(sets=("game.mode=\"free_for_all\"", "game.round_cap=4"))
    params = game.prepare(rules, 5)
    out = game.play(params, np.arange(1, 301, dtype=np.uint64), np.full((300, 5), HUNTER, np.int8))
    g, pl = out["games"], out["players"]
    assert (g["length"] <= 4).all()
    capped = g["end_reason"] == END_REASONS.index("round_cap")
    assert capped.any() and (g["winner_seat"][capped] == -1).all()
    assert (pl["team"] == np.arange(5)).all()
    won = g["winner_seat"] >= 0
    assert (pl["score"][won].sum(axis=1) == 1).all()


# --- Rules checks, replay, jit cross-check ---------------------------------------------------

@pytest.mark.parametrize("assignment,key", [
    ("game.round_cap=0", "game.round_cap"),
    ("game.mode=\"solo\"", "game.mode"),
    ("setup.blood_coins_4_6=0", "setup.blood_coins_4_6"),
    ("board.tiles=[\"S.S\"]", "board.tiles"),
    ("setup.bank_coins=10", "setup.bank_coins"),
    ("combat.beats.attack=[\"attack\"]", "combat.beats.attack"),
])
def test_impossible_rules_are_rejected(game, assignment, key):
    with pytest.raises(RulesError) as err:
        game.rules(sets=(assignment,))
    assert err.value.key == key


def test_replay_is_a_readable_play_by_play(game, params, rules):
    lines = game.replay(params, 3, MIXED, rules)
    assert lines[0].startswith("== round 1, seat 0's turn (4 coins)")
    assert any("rolls two dice" in line for line in lines)
    assert any("->" in line and "coins" in line for line in lines)
    assert lines[-1].startswith("game over after")
    out = game.play(params, np.array([3], np.uint64), MIXED[None, :])
    assert lines[-1].startswith(f"game over after {out['games']['length'][0]} rounds")


def test_jitted_and_python_engines_agree(game, params):
    """Two implementations, one seed: the kernel under NUMBA_DISABLE_JIT=1 plays the same games."""
    seeds = np.arange(11, 15, dtype=np.uint64)
    seats = np.tile(MIXED, (4, 1))
    jitted = game.play(params, seeds, seats)
    code = ("import numpy as np, sys; from simulator.game import get_game; g = get_game('karmaggan');"
            "p = g.prepare(g.rules(), 4); o = g.play(p, np.arange(11, 15, dtype=np.uint64),"
            " np.tile(np.array([1, 2, 3, 0], np.int8), (4, 1)));"
            "print(o['games']['length'].tolist(), o['players']['final_blood_coins'].tolist())")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    expected = f"{jitted['games']['length'].tolist()} {jitted['players']['final_blood_coins'].tolist()}"
    assert res.stdout.strip() == expected


def test_trace_rows_are_compact(params):
    trace, out_game, _ = K.trace_game(params, 5, MIXED)
    assert trace.shape[1] == TRACE_WIDTH and 0 < len(trace) < K.MAX_TRACE
