"""Karmaggän rules, one scenario each: Combat, Spawns, the Alien Egg, Final Moments and the
round structure.

Rulebook: shared/rules/karmaggan.md; see test_karmaggan_rules.py for how these tests run.
Combat cards are dealt so that any card a player may reveal has the same value.
"""

import numpy as np
import pytest
from karmaggan_scenes import RANDOM, at, cards_of, centre, give, hand, next_dice, put, scene, spawn

from simulator.games.karmaggan import (
    combat,
    core,
    death,
    egg,
    engine,
    movement,
    objects,
    spawns,
    traps,
)
from simulator.games.karmaggan.state import (
    ACT_MEDALLION,
    ACT_PASS,
    ACT_PLAY,
    ACT_SACRIFICE,
    ACT_TAKE,
    ACT_THROW,
    ATTACK,
    B_BLOOD,
    B_OCC,
    B_OPEN,
    B_SWARM,
    B_TILE,
    COUNTER,
    D_TEMPLE,
    DEAD,
    ELIMINATED,
    END_ALL_DEAD,
    END_EGG,
    END_ROUND_CAP,
    F_POS,
    G_BANK,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_END,
    G_ROLLERS_ON,
    G_ROUND,
    G_SEAT,
    G_STEPS_LEFT,
    G_TDRAW,
    G_WINNER,
    GREEDY,
    INVOCATION,
    NO_CARD,
    NOTHING,
    OFF,
    OPT_A,
    OPT_ACT,
    OPT_B,
    P_COINS,
    P_HAND_N,
    P_MEDALLIONS,
    P_SPAWN_TURNS,
    P_STATUS,
    P_SWARM,
    P_TURNS,
    POWER,
    T_ARROWS,
    T_CLOSE_ALL,
)


def coins(W, *seats):
    return [int(W.state[P_COINS + s]) for s in seats]


def deal(W, seat, value, k=3):
    """Give ``seat`` ``k`` cards of one combat value, none of them in another's hand."""
    held = set(W.hands.ravel().tolist())
    give(W, seat, [c for c in cards_of(W, value=value) if c not in held][:k])


def kill(W, seat):
    """Seat ``seat`` has died (off the board): it plays its swarm."""
    W.state[P_STATUS + seat] = DEAD
    W.state[P_COINS + seat] = 0
    put(W, seat, OFF)


def distance(W, a, b):
    dist = np.empty(W.n_nodes, np.int64)
    W.call(egg.bfs_local, dist, a)
    return int(dist[b])


# --- Combat ------------------------------------------------------------------------------------


def test_comparing_combat_values():
    """Comparing Combat Values: Attack beats Nothing; Counterattack beats Attack; Absolute Power
    beats Nothing, Attack and Counterattack; every other pair ties (Nothing vs Counterattack
    too).  ASSUMED: a card beats no card (the one without pays, End of Combat)."""
    rules = scene().rules
    wins = {
        (ATTACK, NOTHING),
        (COUNTER, ATTACK),
        (POWER, NOTHING),
        (POWER, ATTACK),
        (POWER, COUNTER),
    }
    for a in (NOTHING, ATTACK, COUNTER, POWER):
        for b in (NOTHING, ATTACK, COUNTER, POWER):
            expected = 1 if (a, b) in wins else -1 if (b, a) in wins else 0
            assert combat.round_result(rules, a, b) == expected, (a, b)
        assert combat.round_result(rules, a, NO_CARD) == 1
        assert combat.round_result(rules, NO_CARD, a) == -1
    assert combat.round_result(rules, NO_CARD, NO_CARD) == 0


def test_each_lost_round_pays_the_winner_then_both_draw_to_three():
    """Combat / Rounds: three Rounds; the loser of a Round gives 1 Blood Coin to the winner and
    both cards are discarded; End of Combat: both draw up to a hand of 3; the Egg passes to the
    winner."""
    W = scene()
    put(W, 0, 1, 2)
    put(W, 1, 1, 3)
    deal(W, 0, ATTACK)
    deal(W, 1, NOTHING)
    played = hand(W, 0) + hand(W, 1)
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 1, -1
    assert W.call(combat.resolve_combat, 0, 1, at(W, 1, 3))
    assert coins(W, 0, 1) == [7, 1]
    assert W.state[P_HAND_N + 0] == 3 and W.state[P_HAND_N + 1] == 3
    assert not set(played) & set(hand(W, 0) + hand(W, 1))
    assert W.state[G_EGG_CARRIER] == 0 and W.state[F_POS + 0] == at(W, 1, 3)


def test_the_most_rounds_won_wins_and_the_defender_wins_ties():
    """Combat: the Player who won the most Rounds wins; a tie in Rounds won goes to the
    Defender; Rounds that tie return their cards to their owners at the end."""
    W = scene()
    put(W, 0, 1, 2)
    put(W, 1, 1, 3)
    deal(W, 0, ATTACK)
    give(W, 1, cards_of(W, value=COUNTER)[:1] + cards_of(W, value=NOTHING)[:2])
    assert W.call(combat.resolve_combat, 0, 1, at(W, 1, 3))  # 2 rounds to 1
    assert coins(W, 0, 1) == [5, 3]
    W = scene()
    put(W, 0, 1, 2)
    put(W, 1, 1, 3)
    deal(W, 0, COUNTER)
    deal(W, 1, COUNTER)
    kept = (hand(W, 0), hand(W, 1))
    assert not W.call(combat.resolve_combat, 0, 1, at(W, 1, 3))  # three ties
    assert (hand(W, 0), hand(W, 1)) == kept and coins(W, 0, 1) == [4, 4]
    assert W.state[F_POS + 1] == at(W, 1, 3)


def test_a_plunderer_dying_in_combat_loses_and_falls_where_it_is_thrown():
    """Combat: a Plunderer that dies during a combat has lost it; End of Combat: "it is first
    thrown, and wherever its body falls" its Invocation tile appears (A New Life)."""
    W = scene()
    put(W, 0, 1, 2)
    put(W, 1, 1, 3)
    deal(W, 0, ATTACK)
    deal(W, 1, NOTHING)
    dealt = hand(W, 0)
    W.state[P_COINS + 1] = 1
    assert W.call(combat.resolve_combat, 0, 1, at(W, 1, 3))
    assert W.state[P_STATUS + 1] == DEAD and coins(W, 0) == [5]
    assert W.state[P_HAND_N + 0] == 3 and len(set(hand(W, 0)) & set(dealt)) == 2  # one round
    tiles = np.nonzero(W.nodes(B_TILE) == INVOCATION)[0].tolist()
    assert len(tiles) == 2 and max(distance(W, at(W, 1, 3), n) for n in tiles) == 3


# a ring corridor (walls on both sides of row 1): from (1,0) the tiles 3 away are (1,3), (1,5)
CORRIDOR = dict(walls_in=["--------", "--------", "        "])


def test_the_loser_is_thrown_three_tiles_without_activating_them():
    """End of Combat: the defeated Player is thrown 3 Tiles away without activating any of
    them; one Tile further (or as many as necessary) past occupied ones."""
    W = scene(["SSSSSSSS", "TTTTTTTT", "........"], **CORRIDOR)
    put(W, 0, 1, 1)
    put(W, 1, 1, 0)
    deal(W, 0, POWER)
    deal(W, 1, NOTHING)
    assert W.call(combat.resolve_combat, 0, 1, at(W, 1, 0))
    assert W.state[F_POS + 1] in (at(W, 1, 3), at(W, 1, 5)) and W.state[G_TDRAW] == 0
    W = scene(**CORRIDOR)
    put(W, 0, 1, 1)
    put(W, 1, 1, 0)
    put(W, 2, 1, 3)
    put(W, 3, 1, 5)
    deal(W, 0, POWER)
    deal(W, 1, NOTHING)
    W.call(combat.resolve_combat, 0, 1, at(W, 1, 0))
    assert W.state[F_POS + 1] == at(W, 1, 4)


def test_a_throw_across_a_roller_costs_its_damage():
    """End of Combat: a thrown Plunderer crossing a Roller suffers its damage, (1D6) - 1.  The
    outer ring is a corridor with a Roller between columns 1 and 2; (0,5) is taken, so the
    loser lands on (0,3), across the Roller."""
    W = scene(rollers=(1,), walls_in=["--------", "        ", "        "])
    W.state[G_ROLLERS_ON] = 1
    put(W, 0, 0, 7)
    put(W, 1, 0, 0)
    put(W, 2, 0, 5)
    deal(W, 0, POWER)
    deal(W, 1, NOTHING)
    W.state[P_COINS + 1] = 20
    die = next_dice(W, 1)[0]
    W.call(combat.resolve_combat, 0, 1, at(W, 0, 0))
    assert W.state[F_POS + 1] == at(W, 0, 3) and coins(W, 1) == [20 - 3 - (die - 1)]


def test_a_round_without_a_card_costs_a_coin_even_against_a_spawn():
    """End of Combat: a Player who plays no card pays 1 Blood Coin for each such Round — to a
    Plunderer, or to the bank against a Spawn, even when the Spawn plays none either."""
    W = scene()
    put(W, 0, 1, 2)
    put(W, 1, 1, 3)
    deal(W, 0, ATTACK)
    deal(W, 1, NOTHING, 0)
    W.call(combat.resolve_combat, 0, 1, at(W, 1, 3))
    assert coins(W, 0, 1) == [7, 1]
    W = scene()
    kill(W, 1)
    f = spawn(W, int(W.state[P_SWARM + 1]))
    put(W, 0, 1, 2)
    put(W, f, 1, 3)
    deal(W, 0, NOTHING, 0)
    deal(W, 1, NOTHING, 0)
    bank = W.state[G_BANK]
    assert not W.call(combat.resolve_combat, 0, f, at(W, 1, 3))  # three tied rounds
    assert coins(W, 0) == [1] and W.state[G_BANK] == bank + 3 and W.state[F_POS + f] == at(W, 1, 3)


def test_spawns_take_coins_to_the_bank_and_die_on_a_lost_round():
    """End of Combat: a Plunderer losing a Round to a Spawn discards its Blood Coin instead of
    giving it; each Spawn has 1 Life point and dies as soon as it loses a Round."""
    W = scene()
    kill(W, 1)
    W.state[G_SEAT] = 1
    f = spawn(W, int(W.state[P_SWARM + 1]))
    put(W, f, 1, 2)
    put(W, 0, 1, 3)
    deal(W, 1, POWER)
    deal(W, 0, NOTHING)
    bank = W.state[G_BANK]
    assert W.call(combat.resolve_combat, f, 0, at(W, 1, 3))
    assert coins(W, 0, 1) == [1, 0] and W.state[G_BANK] == bank + 3
    W = scene()
    kill(W, 1)
    W.state[G_SEAT] = 1
    put(W, f, 1, 2)
    put(W, 0, 1, 3)
    deal(W, 1, NOTHING)
    deal(W, 0, POWER)
    dealt = hand(W, 0)
    assert not W.call(combat.resolve_combat, f, 0, at(W, 1, 3))
    assert W.state[F_POS + f] == OFF and coins(W, 0) == [4]
    assert W.state[P_HAND_N + 0] == 3 and len(set(hand(W, 0)) & set(dealt)) == 2  # one round


def tied_spawn_attack(W):
    """Spawn s of dead seat 1, in its turn, attacks seat 0 on (1,3) from (1,2) in the corridor
    of row 1, Counterattack against Counterattack for three tied Rounds; returns s."""
    kill(W, 1)
    W.state[G_SEAT] = 1
    f = spawn(W, int(W.state[P_SWARM + 1]))
    put(W, f, 1, 2)
    put(W, 0, 1, 3)
    deal(W, 1, COUNTER)
    deal(W, 0, COUNTER)
    assert not W.call(combat.resolve_combat, f, 0, at(W, 1, 3))
    return f


def test_a_spawn_losing_on_the_defenders_tie_is_thrown_not_killed():
    """Combat: "In case of a tie in the number of Rounds won, the Defender has won the
    combat"; a Spawn "will die as soon as it loses a Round", and End of Combat: "The defeated
    Player is thrown by the Winner a total of 3 Tiles away".  After three tied Rounds the
    attacking Spawn s lives, thrown 3 tiles from (1,3) to (1,0) or (1,6); seat 0 keeps its
    tile and its coins:

        row 1   . . s 0 . . . .   ->   s . . 0 . . . .   or   . . . 0 . . s .
    """
    W = scene(**CORRIDOR)
    f = tied_spawn_attack(W)
    assert W.state[F_POS + f] in (at(W, 1, 0), at(W, 1, 6))
    assert W.state[F_POS + 0] == at(W, 1, 3) and coins(W, 0) == [4]


def test_a_spawn_is_not_thrown_onto_the_loose_egg():
    """The Alien Egg: Spawns may not stand on the Egg's tile, so a Spawn thrown after a tied
    combat does not land on the loose Egg 3 tiles away at (1,0); (1,6), the other tile 3 away,
    is seat 2's, so it goes one tile further, to (1,7) (End of Combat: "as many as necessary"):

        row 1   E . s 0 . . 2 .   ->   E . . 0 . . 2 s
    """
    W = scene(**CORRIDOR)
    W.state[G_EGG_POS] = at(W, 1, 0)
    put(W, 2, 1, 6)
    f = tied_spawn_attack(W)
    assert W.state[F_POS + f] == at(W, 1, 7)


def test_the_swarms_players_choose_who_defends():
    """Controlling the Swarm: the Player whose turn it is attacks with a Spawn; when a Spawn is
    attacked the swarm's players choose who defends (ASSUMED: the one holding most cards)."""
    W = scene(players=6)
    for seat in (1, 3, 5):
        kill(W, seat)
    give(W, 1, [1])
    give(W, 3, [2, 3, 4])
    give(W, 5, [5, 6])
    f = spawn(W, int(W.state[P_SWARM + 1]))
    W.state[G_SEAT] = 0
    assert W.call(core.controller, f) == 3
    W.state[G_SEAT] = 5
    assert W.call(core.controller, f) == 5


def test_losing_a_combat_in_the_jungle_eliminates():
    """Final Moments: when a Plunderer loses a combat in the Jungle it is eliminated from the
    game; the winner takes the Egg and must endure one last turn."""
    W = scene()
    jungle = centre(W) + 1
    W.state[B_OPEN + jungle] = 1
    put(W, 1, jungle)
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 1, -1
    put(W, 0, 0, 0)
    deal(W, 0, POWER)
    deal(W, 1, NOTHING)
    assert W.call(combat.resolve_combat, 0, 1, jungle)
    assert W.state[P_STATUS + 1] == ELIMINATED and W.state[F_POS + 1] == OFF
    assert W.state[G_EGG_CARRIER] == 0 and W.state[F_POS + 0] == jungle


# --- Spawns: A New Life ------------------------------------------------------------------------


def invocation_tiles(W, swarm=None):
    keep = W.nodes(B_TILE) == INVOCATION
    if swarm is not None:
        keep &= W.nodes(B_SWARM) == swarm
    return set(np.nonzero(keep)[0].tolist())


@pytest.mark.parametrize("mode", ["team", "free_for_all"])
def test_a_death_leaves_invocation_tiles(mode):
    """A New Life: where the body was, an Invocation Tile of its swarm; the first to die (Team
    mode: the first of its team) places a second one on an adjacent Tile; a full Blood Tile
    turned into one loses its Coins (Invocation Tiles)."""
    W = scene(["SSSSSSSS", "..B.....", "........"], mode=mode)
    W.state[B_BLOOD + at(W, 1, 2)] = 4
    for seat, col in ((0, 2), (2, 5), (1, 0)):
        put(W, seat, 1, col)
    W.call(death.lose_coins, 0, 4, 0)
    swarm = int(W.state[P_SWARM + 0])
    first = invocation_tiles(W, swarm)
    assert at(W, 1, 2) in first and len(first) == 2 and W.state[B_BLOOD + at(W, 1, 2)] == 0
    assert all(distance(W, at(W, 1, 2), n) <= 1 for n in first)
    W.call(death.lose_coins, 2, 4, 0)  # 0's teammate: one tile
    assert invocation_tiles(W, swarm) == first | {at(W, 1, 5)}
    W.call(death.lose_coins, 1, 4, 0)  # first of the other team
    expected = 1 if mode == "free_for_all" else 2
    assert len(invocation_tiles(W) - first - {at(W, 1, 5)}) == expected


def test_each_swarm_has_six_invocation_tiles():
    """Components: 6 Illuminated and 6 Dark Invocation tiles, one set per swarm (ASSUMED: once
    all are on the board a death or sacrifice places none); another swarm's tile is replaced."""
    W = scene(turn__invocation_tiles=2)
    W.call(death.invocation_tile, at(W, 1, 0), 0)
    W.call(death.invocation_tile, at(W, 1, 1), 0)
    W.call(death.invocation_tile, at(W, 1, 2), 0)
    assert invocation_tiles(W, 0) == {at(W, 1, 0), at(W, 1, 1)}
    W.call(death.invocation_tile, at(W, 1, 1), 1)
    assert invocation_tiles(W, 1) == {at(W, 1, 1)} and invocation_tiles(W, 0) == {at(W, 1, 0)}


def test_invoking_places_a_spawn_on_a_free_invocation_tile_of_the_swarm():
    """Controlling the Swarm: INVOKE places a new Spawn on an unoccupied Invocation Tile (ASSUMED:
    of its own swarm's colour), never on the loose Egg; at most 6 Spawns a swarm; a Golden
    Medallion invokes one at any moment; Players controlling Spawns play no Object card."""
    W = scene(turn__spawn_max=2)
    kill(W, 1)
    swarm = int(W.state[P_SWARM + 1])
    for col, owner in ((0, swarm), (1, swarm), (2, swarm), (3, 1 - swarm), (5, swarm)):
        W.call(death.invocation_tile, at(W, 1, col), owner)
    put(W, 2, 1, 1)
    W.state[G_EGG_POS] = at(W, 1, 2)
    n = W.call(spawns.list_invocation_options, 1, ACT_MEDALLION, 0)
    assert W.state[OPT_B : OPT_B + n].tolist() == [at(W, 1, 0), at(W, 1, 5)]
    W.state[G_EGG_POS] = centre(W)
    W.call(spawns.invoke_spawn, 1, at(W, 1, 0))
    W.call(spawns.invoke_spawn, 1, at(W, 1, 2))
    assert W.state[B_OCC + at(W, 1, 0)] == spawn(W, swarm)
    assert W.call(spawns.list_invocation_options, 1, ACT_MEDALLION, 0) == 0  # 2 of 2 Spawns
    first = spawn(W, swarm)
    n = W.call(spawns.list_swarm_options, 1, first)
    assert ACT_PLAY not in W.state[OPT_ACT : OPT_ACT + n].tolist()


def test_the_swarm_moves_with_the_higher_of_two_dice_split_among_spawns():
    """Controlling the Swarm: MOVE rolls the dice and keeps the higher result, to be split
    among the Spawns as the player wishes."""
    for seed in range(1, 8):
        W = scene(
            ["SSSSSSSS", "#.#.....", "........"],
            seed=seed,
            walls_in=["--------", "--------", "        "],
        )
        kill(W, 1)
        a = spawn(W, int(W.state[P_SWARM + 1]))
        put(W, a, 1, 1)  # boxed in: the roll stays unspent
        W.state[P_MEDALLIONS + 1] = 0
        dice = next_dice(W, 2)
        W.call(spawns.swarm_turn, 1)
        assert W.state[G_STEPS_LEFT] == max(dice) and W.state[F_POS + a] == at(W, 1, 1)
    W = scene()
    kill(W, 1)
    swarm = int(W.state[P_SWARM + 1])
    a, b = spawn(W, swarm), spawn(W, swarm, 1)
    put(W, a, 1, 0)
    put(W, b, 1, 4)
    W.state[G_STEPS_LEFT] = 3
    W.call(spawns.step_spawn, 1, a, at(W, 1, 1))
    W.call(spawns.step_spawn, 1, b, at(W, 1, 5))
    W.call(spawns.step_spawn, 1, a, at(W, 1, 2))
    assert W.state[G_STEPS_LEFT] == 0
    assert W.call(spawns.list_swarm_options, 1, a) == 1 + 2  # stop, two sacrifices


def test_a_sacrificed_spawn_leaves_an_invocation_tile():
    """Controlling the Swarm: at any moment a Spawn may be sacrificed: an Invocation Tile of its
    swarm replaces the Tile where it was."""
    W = scene(["SSSSSSSS", "......O.", "........"])
    kill(W, 1)
    swarm = int(W.state[P_SWARM + 1])
    f = spawn(W, swarm)
    put(W, f, 1, 6)
    n = W.call(spawns.list_swarm_options, 1, f)
    assert (ACT_SACRIFICE, f, at(W, 1, 6)) in W.options(n)
    W.call(spawns.sacrifice, 1, f)
    assert W.state[F_POS + f] == OFF and invocation_tiles(W, swarm) == {at(W, 1, 6)}


def test_spawns_keep_off_the_loose_egg_and_inside_the_temple():
    """Controlling the Swarm: Spawns may NOT step onto the Egg's Tile unless a Plunderer carries
    it (then they attack); Spawns CANNOT LEAVE the Temple."""
    W = scene(hatches=(0,))
    kill(W, 1)
    f = spawn(W, int(W.state[P_SWARM + 1]))
    W.state[B_OPEN + centre(W) + 1] = 1
    put(W, f, 0, 1)
    W.state[G_EGG_POS] = at(W, 0, 2)
    W.state[G_STEPS_LEFT] = 3
    n = W.call(movement.list_moves, f, 0)
    assert set(W.state[OPT_B : OPT_B + n].tolist()) == {at(W, 1, 1), at(W, 0, 0)}
    put(W, 0, 0, 2)
    W.call(egg.pick_up_egg, 0)
    n = W.call(movement.list_moves, f, 0)
    assert at(W, 0, 2) in W.state[OPT_B : OPT_B + n].tolist()  # the carrier: attack
    put(W, 0, centre(W) + 1)  # the carrier goes out
    put(W, f, 0, 0)
    n = W.call(movement.list_moves, f, 0)
    assert centre(W) + 1 not in W.state[OPT_B : OPT_B + n].tolist()


def test_a_spawn_beating_the_carrier_flings_the_egg_one_tile():
    """Throwing the Egg: a Spawn that kills a Plunderer carrying the Gem throws the Plunderer
    3 Tiles and the Gem 1 Tile — one more past a Tile holding a Spawn."""
    W = scene(**CORRIDOR)
    kill(W, 1)
    W.state[G_SEAT] = 1
    swarm = int(W.state[P_SWARM + 1])
    f, other = spawn(W, swarm), spawn(W, swarm, 1)
    put(W, f, 1, 1)
    put(W, other, 1, 7)
    put(W, 0, 1, 0)
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 0, -1
    W.state[P_COINS + 0] = 1
    deal(W, 1, POWER)
    deal(W, 0, NOTHING)
    assert W.call(combat.resolve_combat, f, 0, at(W, 1, 0))
    assert W.state[P_STATUS + 0] == DEAD and W.state[F_POS + f] == at(W, 1, 0)
    assert W.state[G_EGG_CARRIER] == -1 and W.state[G_EGG_POS] == at(W, 1, 1)
    put(W, spawn(W, swarm, 2), 1, 1)  # both neighbours hold Spawns now
    W.call(egg.fling_egg, at(W, 1, 0))
    assert W.state[G_EGG_POS] in (at(W, 1, 2), at(W, 1, 6))


# --- The Alien Egg ------------------------------------------------------------------------------


def test_a_plunderer_picks_up_the_egg_on_its_tile():
    """The Alien Egg: when a Plunderer occupies the Egg's Tile it picks it up automatically."""
    W = scene()
    W.state[G_EGG_POS] = at(W, 1, 3)
    put(W, 0, 1, 2)
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 2
    W.call(movement.step_plunderer, 0, at(W, 1, 3))
    assert W.state[G_EGG_CARRIER] == 0


def egg_options(W, seat):
    n = W.call(movement.list_step_options, seat)
    return {
        (int(W.state[OPT_ACT + i]), int(W.state[OPT_A + i]))
        for i in range(n)
        if W.state[OPT_ACT + i] in (ACT_PASS, ACT_TAKE, ACT_THROW)
    }


@pytest.mark.parametrize("mode", ["team", "free_for_all"])
def test_passing_the_egg_between_adjacent_teammates(mode):
    """Passing the Egg: between Plunderers of the same team on adjacent Tiles with no wall
    between, on the turn of either; never diagonally (Free-for-All: no allies).

        row 1   2 0|1 .       seat 0 carries; a wall between it and seat 1
        row 2   . 3 . .       seat 3 below seat 0; seat 2 (teammate) to its left
    """
    W = scene(mode=mode, walls_cw=["        ", " |      ", "        "])
    for seat, (row, col) in enumerate([(1, 1), (1, 2), (1, 0), (2, 1)]):
        put(W, seat, row, col)
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 0, -1
    W.call(movement.begin_turn, 0)
    expected = {(ACT_PASS, 2)} if mode == "team" else set()
    assert egg_options(W, 0) == expected
    W.call(movement.begin_turn, 2)
    assert egg_options(W, 2) == ({(ACT_TAKE, 0)} if mode == "team" else set())
    put(W, 2, 2, 0)  # diagonal to seat 0
    assert egg_options(W, 0) == set()


def test_throwing_the_egg_along_a_line_of_fire():
    """Throwing the Egg: to another Plunderer along a line of fire, as a Wall Trap runs — from
    the inside outward, no wall or other figure in between; from the Centre, out through every
    open cell of the last row.

        row 0   2 . . 3 .        a wall between rows 0 and 1 in column 1
        row 1   . . . 1 .
        row 2   0 . . . .        seat 0 carries: from (2,0), then (2,1), then the Centre
    """
    W = scene(walls_in=[" -      ", "        ", "        "])
    put(W, 0, 2, 0)
    put(W, 2, 0, 0)
    put(W, 1, 1, 3)
    put(W, 3, 0, 3)
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 0, -1
    W.call(movement.begin_turn, 0)
    assert egg_options(W, 0) == {(ACT_THROW, 2)}
    put(W, 0, 2, 1)
    put(W, 2, 0, 1)  # behind the wall
    assert egg_options(W, 0) == set()
    put(W, 0, 1, 1)  # the wall right outside it
    assert egg_options(W, 0) == set()
    put(W, 2, 0, 0)
    put(W, 0, centre(W))
    assert egg_options(W, 0) == {(ACT_THROW, 1), (ACT_THROW, 2)}  # seat 3 is behind seat 1


# --- Final Moments and the rounds -------------------------------------------------------------


def test_only_the_carrier_and_its_pursuers_go_out_through_a_hatch():
    """Final Moments: a Plunderer leaves the Temple through an open hatch with the Egg; the
    others may follow through that same hatch to fight for it (ASSUMED: only to the carrier)."""
    W = scene(hatches=(0, 4))
    W.nodes(B_OPEN)[centre(W) + 1 :] = 1
    put(W, 0, 0, 0)
    put(W, 1, 0, 4)
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 3
    n = W.call(movement.list_moves, 0, 0)
    assert centre(W) + 1 not in W.state[OPT_B : OPT_B + n].tolist()  # without the Egg
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 0, -1
    n = W.call(movement.list_moves, 0, 0)
    assert centre(W) + 1 in W.state[OPT_B : OPT_B + n].tolist()
    W.call(movement.step_plunderer, 0, centre(W) + 1)
    assert W.state[G_STEPS_LEFT] == 0
    W.state[G_STEPS_LEFT] = 3
    n = W.call(movement.list_moves, 1, 0)
    assert centre(W) + 2 not in W.state[OPT_B : OPT_B + n].tolist()
    put(W, 1, 0, 0)
    n = W.call(movement.list_moves, 1, 0)
    assert centre(W) + 1 in W.state[OPT_B : OPT_B + n].tolist()


def test_outside_the_temple_no_objects_and_immune_to_them():
    """Final Moments: a Player whose Plunderer is outside the Temple may not use Object cards
    (its turn there is spent waiting) and is immune to Object and Temple cards."""
    W = scene(hatches=(0,), walls_in=["        ", "        ", "a       "])
    jungle = centre(W) + 1
    W.state[B_OPEN + jungle] = 1
    put(W, 0, 0, 0)
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 0, -1
    give(W, 0, cards_of(W, value=ATTACK)[:3])
    W.state[P_TURNS + 0] = 3  # not its first turn
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 2
    assert ACT_PLAY in {act for act, _, _ in W.options(W.call(movement.list_step_options, 0))}
    W.call(movement.step_plunderer, 0, jungle)  # out: no more cards this turn
    assert ACT_PLAY not in {act for act, _, _ in W.options(W.call(movement.list_step_options, 0))}
    W.call(movement.plunderer_turn, 0)
    assert W.state[F_POS + 0] == jungle and W.state[P_HAND_N + 0] == 3
    W.call(traps.resolve_temple_card, 1, T_ARROWS)  # its column's Arrows
    assert coins(W, 0) == [4]
    card = cards_of(W, effect=GREEDY)[0]  # seat 1 robs two players, not it
    W.call(core.add_to_hand, 1, card)
    W.call(objects.play_object, 1, list(W.hands[1]).index(card), 0)
    assert W.state[P_HAND_N + 0] == 3


def test_a_plunderer_beginning_its_turn_outside_with_the_egg_wins():
    """Final Moments: to declare victory a Plunderer must begin its turn with the Egg in the
    Jungle (the team wins with it)."""
    W = scene(hatches=(0,))
    jungle = centre(W) + 1
    W.state[B_OPEN + jungle] = 1
    put(W, 3, jungle)
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 3, -1
    W.state[B_OPEN + jungle] = 0  # nobody follows it out
    W.deck(D_TEMPLE)[:] = T_CLOSE_ALL
    for seat, col in ((0, 2), (1, 4), (2, 6)):
        put(W, seat, 2, col)
    W.call(engine.play_rounds)
    assert W.state[G_END] == END_EGG and W.state[G_WINNER] == 3 and W.state[G_ROUND] == 1


def test_the_game_ends_when_every_plunderer_is_dead_or_at_the_round_cap():
    """Turns: in seat order a living Plunderer moves, a dead player's swarm acts; Dead or Alive:
    with every Plunderer dead the Egg cannot leave (end_reason all_dead); ASSUMED: a round cap
    ends a game that would not finish (end_reason round_cap)."""
    W = scene()
    for seat in range(4):
        kill(W, seat)
    W.call(engine.play_rounds)
    assert W.state[G_END] == END_ALL_DEAD and W.state[G_ROUND] == 1
    assert W.seats(P_SPAWN_TURNS).tolist() == [1, 0, 0, 0]
    W = scene(
        game__round_cap=2, policy=RANDOM, walls_in=["--------"] * 3, walls_cw=["||||||||"] * 3
    )
    for seat in range(4):
        put(W, seat, 1, 2 * seat)
    W.call(engine.play_rounds)
    assert W.state[G_END] == END_ROUND_CAP and W.state[G_ROUND] == 2
    assert W.seats(P_TURNS).tolist() == [2, 2, 2, 2]
