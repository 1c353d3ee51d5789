"""Karmaggän rules, one scenario each: Components, Setup, Board, Movement, Tiles.

Rulebook: shared/rules/karmaggan.md; each test names its section.  Boards are drawn as text
(``karmaggan_scenes``); the tests call the rule functions and stay small, because ``make
mutants`` runs them under NUMBA_DISABLE_JIT=1 against every listed rule mutation.
"""

import numpy as np
import pytest
from karmaggan_scenes import (
    DEFAULTS,
    RANDOM,
    at,
    cards_of,
    centre,
    draw,
    give,
    hand,
    next_dice,
    put,
    scene,
    spawn,
    world,
)

from simulator.games.karmaggan import board as B
from simulator.games.karmaggan import movement, spawns, tiles
from simulator.games.karmaggan.state import (
    ABYSS,
    ACT_MOVE,
    ACT_STOP,
    B_BLOOD,
    B_OCC,
    B_OPEN,
    B_TILE,
    BLANK,
    BLOOD_TILE,
    C_HATCH_KIND,
    C_START,
    C_TILE0,
    C_WALL_CW,
    C_WALL_IN,
    CENTRE_TILE,
    CFG_COLS,
    CFG_HATCHES,
    D_TEMPLE,
    DEAD,
    F_POS,
    G_BANK,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_ODECK_N,
    G_OFFSET,
    G_ROLLERS_ON,
    G_SEAT,
    G_STEPS_LEFT,
    G_TDRAW,
    MEDALLION_VALUE,
    OPT_ACT,
    OPT_B,
    P_COINS,
    P_HAND_N,
    P_MEDALLIONS,
    P_STATUS,
    P_SWARM,
    P_TEAM,
    PASSAGE_TILE,
    T_OPEN_DAY,
    TEMPLE_TILE,
)


def options(W, n):
    return W.options(n)


def moves(W, seat):
    n = W.call(movement.list_step_options, seat)
    return {int(W.state[OPT_B + i]) for i in range(n) if W.state[OPT_ACT + i] == ACT_MOVE}


# --- Components -----------------------------------------------------------------------------


def test_components_of_the_default_rules():
    """Components: 60 Blood Coins, 9 Golden Medallions, 20 Temple tiles, 9 Blood tiles, 6 + 6
    Invocation tiles and 6 Spawns a swarm, 75 Object and 73 Temple cards; Passage Tiles: four;
    Setup: eight Starting Points."""
    W = world()
    tiles = W.cells(C_TILE0)[: centre(W)]
    assert (tiles == TEMPLE_TILE).sum() == 20
    assert (tiles == PASSAGE_TILE).sum() == 4
    assert (W.cells(C_START) >= 0).sum() == 8
    assert len(DEFAULTS["setup"]["blood_tiles"]) == 9
    assert (W.nodes(B_TILE) == BLOOD_TILE).sum() == 9  # one spare space stays Blank
    setup, turn = DEFAULTS["setup"], DEFAULTS["turn"]
    assert (setup["bank_coins"], setup["medallion_supply"]) == (60, 9)
    assert (turn["spawn_max"], turn["invocation_tiles"]) == (6, 6)
    assert sum(e["count"] for e in DEFAULTS["objects"]) == 75
    assert sum(DEFAULTS["temple_deck"].values()) == 73


# --- Setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n_players,coins", [(2, 2), (3, 3), (4, 4), (5, 4), (6, 4), (7, 5), (8, 5)]
)
def test_setup_coins_cards_and_medallion(n_players, coins):
    """Setup, Continued: 7-8 players 5 Blood Coins, 4-6 players 4, 3 players 3, 2 players 2,
    paid by the bank; 4 Object cards and 1 Golden Medallion each."""
    W = world(n_players)
    assert W.seats(P_COINS).tolist() == [coins] * n_players
    assert W.state[G_BANK] == 60 - coins * n_players
    assert W.seats(P_HAND_N).tolist() == [4] * n_players
    assert W.seats(P_MEDALLIONS).tolist() == [1] * n_players


def test_setup_egg_rings_hatches_and_blood_tiles():
    """Setup: the Egg on the Centre, every Ring aligned, every hatch closed, no Rollers yet,
    and the 9 Blood tiles face down on the Blood spaces in a shuffled order."""
    W = world(seed=3)
    game = W.state
    assert game[G_EGG_POS] == centre(W) and game[G_EGG_CARRIER] == -1
    assert (game[G_OFFSET : G_OFFSET + 4] == 0).all() and game[G_ROLLERS_ON] == 0
    assert (W.nodes(B_OPEN)[centre(W) + 1 :] == 0).all()
    spaces = np.nonzero(W.cells(C_TILE0) == BLOOD_TILE)[0]
    dealt = W.nodes(B_BLOOD)[spaces]
    tokens = [v or MEDALLION_VALUE for v in DEFAULTS["setup"]["blood_tiles"]]
    assert sorted(dealt[dealt > 0].tolist()) == sorted(tokens)
    orders = {tuple(world(seed=s).nodes(B_BLOOD)[spaces]) for s in range(1, 6)}
    assert len(orders) > 1


def test_the_starting_player_may_be_on_either_team():
    """Setup: "The player with the least honour starts" — seat 0 plays first and its team is
    drawn from the setup stream; seats alternate teams around the table."""
    firsts = set()
    for seed in range(1, 16):
        teams = world(seed=seed).seats(P_TEAM).tolist()
        assert teams in ([0, 1, 0, 1], [1, 0, 1, 0])
        firsts.add(teams[0])
    assert firsts == {0, 1}
    swarms = world(seed=1)
    assert (swarms.seats(P_SWARM) == swarms.seats(P_TEAM)).all()


@pytest.mark.parametrize("n_players", range(2, 9))
def test_plunderers_start_on_their_starting_points(n_players):
    """Setup: each Plunderer on one of the eight Starting Points (ASSUMED: which one, per seat,
    from ``board.start_points``)."""
    W = world(n_players)
    points = DEFAULTS["board"]["start_points"][str(n_players)]
    at_start = [int(W.rules[C_START + W.state[F_POS + s]]) for s in range(n_players)]
    assert at_start == points


def half_turn(W, node):
    """The cell a half turn of the whole board takes ``node`` to."""
    cols = int(W.rules[CFG_COLS])
    return at(W, node // cols, (node % cols + cols // 2) % cols)


@pytest.mark.parametrize("n_players", [2, 4, 6, 8])
def test_the_assumed_board_is_symmetric_between_the_teams(n_players):
    """Board (ASSUMED layout): a half turn maps every tile, wall, trap and starting point onto
    one of the same kind, every hatch onto a hatch of the same kind, the Rollers onto the
    Rollers, and one team's starting points onto the other team's."""
    W = world(n_players)
    cells = W.rules
    for node in range(centre(W)):
        other = half_turn(W, node)
        for col in (C_TILE0, C_WALL_CW, C_WALL_IN):
            assert cells[col + node] == cells[col + other], (node, col)
        assert (cells[C_START + node] >= 0) == (cells[C_START + other] >= 0)
    cols = int(W.rules[CFG_COLS])
    hatches = {
        (int(W.call(B.hatch_cell, h)), int(cells[C_HATCH_KIND + centre(W) + 1 + h]))
        for h in range(int(W.rules[CFG_HATCHES]))
    }
    assert {(half_turn(W, n), k) for n, k in hatches} == hatches
    rollers = set(DEFAULTS["board"]["roller_boundaries"])
    assert {(b + cols // 2) % cols for b in rollers} == rollers
    team_cells = [
        {int(W.state[F_POS + s]) for s in range(n_players) if W.state[P_TEAM + s] == t}
        for t in (0, 1)
    ]
    assert {half_turn(W, n) for n in team_cells[0]} == team_cells[1]


def test_every_starting_point_reaches_the_centre():
    """Board: the assumed layout lets every Starting Point reach the Centre (walls and Abysses
    respected, rings aligned)."""
    W = world()
    dist = W.distances(centre(W))
    starts = np.nonzero(W.cells(C_START) >= 0)[0]
    assert (dist[starts] < B.UNREACHABLE).all()


# --- Movement -----------------------------------------------------------------------------------


def test_steps_are_orthogonal_and_walls_are_impassable():
    """Movement: forward, backward and sideways, never diagonally; Board: all walls are
    impassable.  Cell (1,3) has a wall on its inner side and (1,2) one on its clockwise side:

        row 0   S S S S S S S S
        row 1   . .|X . . . . .      X = (1,3); '|' a radial wall, '-' below X a ring wall
        row 2   . . . . . . . .
    """
    W = scene(
        walls_cw=["        ", "  |     ", "        "], walls_in=["        ", "   -    ", "        "]
    )
    W.call(B.update_adjacency)
    x = at(W, 1, 3)
    assert set(W.neighbours(x)) == {at(W, 1, 4), at(W, 0, 3)}
    w = at(W, 1, 2)  # the cell whose clockwise side is walled
    assert set(W.neighbours(w)) == {at(W, 1, 1), at(W, 0, 2), at(W, 2, 2)}
    y = at(W, 1, 5)
    assert set(W.neighbours(y)) == {
        at(W, 1, 4),
        at(W, 1, 6),
        at(W, 0, 5),
        at(W, 2, 5),
    }


def test_the_movement_roll_is_the_higher_of_two_dice():
    """Movement: roll 2 dice, the higher one is the most Tiles to step on; The Alien Egg: its
    carrier rolls only the black die."""
    W = scene()
    for _ in range(20):
        two = next_dice(W, 2)
        assert movement.movement_roll(W.rng, False) == max(two)
        one = next_dice(W, 1)
        assert movement.movement_roll(W.rng, True) == one[0]


def test_the_egg_carrier_rolls_only_the_black_die_in_its_turn():
    """The Alien Egg: "The Plunderer carrying the Egg may only roll the black die"; Movement:
    the others roll 2 dice and keep the higher.  The steps of a real turn, on a seed whose
    next two dice differ, the first the lower: the carrier (seat 0) may step the first die,
    seat 2 after it the higher of the next two."""
    W = next(w for w in (scene(seed=s) for s in range(1, 40)) if np.subtract(*next_dice(w, 2)) < 0)
    put(W, 0, 1, 2)
    put(W, 2, 1, 5)
    W.state[G_EGG_CARRIER], W.state[G_EGG_POS] = 0, -1
    first = next_dice(W, 1)[0]
    assert W.call(movement.start_turn, 0) and W.state[G_STEPS_LEFT] == first
    two = next_dice(W, 2)
    assert W.call(movement.start_turn, 2) and W.state[G_STEPS_LEFT] == max(two)


def test_a_plunderer_may_stay_still_and_step_fewer_tiles():
    """Movement: it may move fewer Tiles or stay completely still (stopping is always an
    option on a tile of its own), one Tile per step."""
    W = scene()
    put(W, 0, 1, 2)
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 3
    n = W.call(movement.list_step_options, 0)
    assert (ACT_STOP, 0, at(W, 1, 2)) in options(W, n)
    assert moves(W, 0) == {at(W, 1, 1), at(W, 1, 3), at(W, 0, 2), at(W, 2, 2)}
    W.call(movement.step_plunderer, 0, at(W, 1, 3))
    assert W.state[G_STEPS_LEFT] == 2 and W.state[F_POS + 0] == at(W, 1, 3)
    W.state[G_STEPS_LEFT] = 0
    assert moves(W, 0) == set()


CROSSING = """\
. . . . . . . .
2 0 . . . . . .
. . . . . . . .
centre @"""


def test_an_allys_tile_may_be_crossed_but_not_ended_on():
    """Movement: "In NO case may a Plunderer or a Spawn end its turn on a Tile occupied by
    another" — only ending there is forbidden, so seat 0 may cross its teammate's tile with a
    step to spare (the Free-for-All example walks across another's tile); while on it, it may
    only move on; the teammate keeps its tile.  Seat 0 goes round the ring and back (CROSSING)."""
    W = scene()
    put(W, 0, 1, 1)
    put(W, 2, 1, 0)  # seat 2 is seat 0's teammate
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 1
    assert at(W, 1, 0) not in moves(W, 0)  # one step: it would end there
    W.state[G_STEPS_LEFT] = 2
    assert at(W, 1, 0) in moves(W, 0)
    W.state[G_STEPS_LEFT] = 3
    W.call(movement.step_plunderer, 0, at(W, 1, 0))
    assert W.state[F_POS + 0] == at(W, 1, 0) and W.state[B_OCC + at(W, 1, 0)] == 2
    assert W.call(movement.crossing, 0)
    n = W.call(movement.list_step_options, 0)
    assert {act for act, _, _ in options(W, n)} == {ACT_MOVE}
    W.call(movement.step_plunderer, 0, at(W, 1, 7))
    assert not W.call(movement.crossing, 0)
    W.call(movement.step_plunderer, 0, at(W, 1, 0))
    W.call(movement.step_plunderer, 0, at(W, 1, 1))
    assert draw(W) == CROSSING


def test_a_crossed_tile_is_not_activated():
    """Free-for-All example: "The Ishikawa Family is on an Object Tile, so Abuyi cannot activate
    it"; Invocation Tiles, Important: a Tile someone stands on counts as activated."""
    W = scene(["SSSSSSSS", ".O......", "........"])
    put(W, 0, 1, 0)
    put(W, 2, 1, 1)
    give(W, 0, [])
    step(W, 0, (1, 1), (1, 2))
    assert W.state[P_HAND_N + 0] == 0


def test_a_move_ending_on_anothers_tile_goes_back():
    """Movement: a plunderer whose move ends on another's tile (out of steps, or of ways on)
    goes back to the last tile it stood on alone (ASSUMED)."""
    W = scene()
    put(W, 0, 1, 2)
    put(W, 2, 1, 1)
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 2
    W.call(movement.step_plunderer, 0, at(W, 1, 1))
    W.state[G_STEPS_LEFT] = 0
    W.call(movement.settle, 0)
    assert W.state[F_POS + 0] == at(W, 1, 2) and W.state[B_OCC + at(W, 1, 1)] == 2


DEAD_END = ["SSSSSSSS", "#...#...", "........"]


def test_no_turn_ends_on_anothers_tile():
    """Movement: whatever a (random) player chooses, its turn never ends on another figure's
    tile nor on an Abyss.  Seat 0, its teammate seat 2 and their Spawn 'a' in a walled dead end:

        row 1   # 0 2 a # . . .      (rolling a 3, seat 0 may cross both and find no way on)
    """
    for seed in range(1, 200):
        W = scene(DEAD_END, seed=seed, policy=RANDOM, walls_in=["--------", "--------", "        "])
        put(W, 0, 1, 1)
        put(W, 2, 1, 2)
        put(W, spawn(W, int(W.state[P_SWARM + 0])), 1, 3)  # seat 0's own swarm
        W.state[P_HAND_N + 0] = 0
        W.state[P_MEDALLIONS + 0] = 0
        W.call(movement.plunderer_turn, 0)
        node = int(W.state[F_POS + 0])
        assert W.state[B_OCC + node] == 0 and W.state[B_TILE + node] != ABYSS, seed


def test_an_enemys_tile_means_combat():
    """Combat: stepping onto a rival's tile starts a combat (ASSUMED: no truce lets it pass)."""
    W = scene()
    put(W, 0, 1, 2)
    put(W, 1, 1, 3)
    give(W, 0, cards_of(W, value=3)[:3])
    give(W, 1, [])
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 2
    W.call(movement.step_plunderer, 0, at(W, 1, 3))
    assert W.state[P_COINS + 1] == 1 and W.state[P_COINS + 0] == 7


# --- Tiles -------------------------------------------------------------------------------------


def step(W, seat, *cells, steps=6):
    W.call(movement.begin_turn, seat)
    W.state[G_STEPS_LEFT] = steps
    for row, col in cells:
        W.call(movement.step_plunderer, seat, at(W, row, col))


def test_starting_points_and_blank_tiles_do_nothing():
    """Blank Tiles: nothing happens; Invocation Tiles, Important: the Starting Points are Blank
    Tiles for all effects."""
    W = scene()
    assert (W.cells(C_TILE0)[:8] == BLANK).all()
    put(W, 0, 1, 2)
    kept = [P_COINS, P_HAND_N, P_MEDALLIONS]
    before = [W.seats(field).tolist() for field in kept]
    step(W, 0, (0, 2), (0, 3))
    assert [W.seats(field).tolist() for field in kept] == before and W.state[G_TDRAW] == 0


def test_object_tiles_draw_a_card_up_to_the_hand_limit():
    """Object Tiles: stepping on one draws an Object card "if possible"; Objects: at most 8 in
    hand."""
    W = scene(["SSSSSSSS", "..OO....", "........"])
    put(W, 0, 1, 1)
    give(W, 0, [])
    step(W, 0, (1, 2))
    assert W.state[P_HAND_N + 0] == 1
    give(W, 0, list(range(10, 18)))
    deck = W.state[G_ODECK_N]
    step(W, 0, (1, 3))
    assert W.state[P_HAND_N + 0] == 8 and hand(W, 0) == list(range(10, 18))
    assert W.state[G_ODECK_N] == deck  # not drawn


def test_a_tile_activates_once_a_turn():
    """Invocation Tiles, Important: the same Plunderer cannot activate the same Tile twice in
    one turn; one it starts on must first be left (then it counts)."""
    W = scene(["SSSSSSSS", ".OO.....", "........"])
    put(W, 0, 1, 1)
    give(W, 0, [])
    step(W, 0, (1, 2), (1, 1), (1, 2), (1, 1))
    assert W.state[P_HAND_N + 0] == 2  # (1,1) after leaving it, (1,2) once


def test_temple_tiles_and_the_centre_flip_the_top_temple_card():
    """Temple Tiles: stepping on one flips the top Temple card and resolves it; "The Centre is
    a large Temple Tile"."""
    W = scene(["SSSSSSSS", "..T.....", "........"])
    W.deck(D_TEMPLE)[:3] = T_OPEN_DAY
    put(W, 0, 1, 1)
    step(W, 0, (1, 2))
    assert W.state[G_TDRAW] == 1 and W.state[B_OPEN + centre(W) + 1] == 1
    put(W, 0, 2, 2)
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 1
    W.call(movement.step_plunderer, 0, centre(W))
    assert W.state[G_TDRAW] == 2 and W.state[B_TILE + centre(W)] == CENTRE_TILE


@pytest.mark.parametrize("value,coins,medallions", [(3, 3, 0), (MEDALLION_VALUE, 0, 1)])
def test_a_full_blood_tile_is_consumed_then_blank(value, coins, medallions):
    """Blood Tiles: a full one yields its 2, 3 or 4 Blood Coins (from the bank) or a Golden
    Medallion, then is a Blank Tile for all effects."""
    W = scene(["SSSSSSSS", "..B.....", "........"])
    blood = at(W, 1, 2)
    W.state[B_BLOOD + blood] = value
    put(W, 0, 1, 1)
    bank = W.state[G_BANK]
    step(W, 0, (1, 2))
    assert W.state[P_COINS + 0] == 4 + coins and W.state[G_BANK] == bank - coins
    assert W.state[P_MEDALLIONS + 0] == 1 + medallions
    assert W.state[B_TILE + blood] == BLANK and W.state[B_BLOOD + blood] == 0


PASSAGES = ["SSSSSSSS", ".P...P..", "...P...."]


def test_passage_tiles_resume_from_any_other_free_one():
    """Passage Tiles: activating one lets the Plunderer resume its move from any of the other
    (free) ones, without counting a move; two different ones may be activated in a turn."""
    seen = set()
    for seed in range(1, 30):
        W = scene(PASSAGES, seed=seed, policy=RANDOM)
        put(W, 0, 1, 0)
        put(W, 1, 2, 3)  # an occupied Passage is no way out
        step(W, 0, (1, 1), steps=3)
        seen.add(int(W.state[F_POS + 0]))
        assert W.state[G_STEPS_LEFT] == 2
    assert seen == {at(W, 1, 1), at(W, 1, 5)}
    W = scene(PASSAGES)
    W.call(movement.begin_turn, 0)
    for col in (1, 5):
        put(W, 0, 1, col)
        W.call(tiles.activate_tile, 0, at(W, 1, col))
        assert W.call(tiles.was_activated, 0, at(W, 1, col))


def test_a_spawn_crossing_an_allys_tile_does_not_activate_it():
    """Invocation Tiles, Important: "A Tile on which a Plunderer already stands is considered
    activated"; Which Tiles Spawns Activate: Object Tiles.  Spawn a of dead seat 1 crosses its
    fellow Spawn b on an Object tile (no card), then steps onto a free one (a card):

        row 1   a b O . . . . .      (b stands on an Object tile)
    """
    W = scene(["SSSSSSSS", ".OO.....", "........"])
    W.state[P_STATUS + 1] = DEAD
    W.state[G_SEAT] = 1
    give(W, 1, [])
    swarm = int(W.state[P_SWARM + 1])
    a, b = spawn(W, swarm, 0), spawn(W, swarm, 1)
    put(W, a, 1, 0)
    put(W, b, 1, 1)
    W.call(movement.begin_turn, 1)
    W.state[G_STEPS_LEFT] = 2
    W.call(spawns.step_spawn, 1, a, at(W, 1, 1))
    assert W.state[P_HAND_N + 1] == 0 and W.state[B_OCC + at(W, 1, 1)] == b
    W.call(spawns.step_spawn, 1, a, at(W, 1, 2))
    assert W.state[P_HAND_N + 1] == 1 and W.state[F_POS + a] == at(W, 1, 2)


def test_spawns_activate_only_object_tiles():
    """Which Tiles Spawns Activate: not Temple, Blood or Passage Tiles, but Object Tiles (its
    player draws)."""
    W = scene(["SSSSSSSS", "TBPO....", "........"])
    W.state[B_BLOOD + at(W, 1, 1)] = 3
    W.state[P_STATUS + 1] = DEAD  # seat 1 died: it controls its swarm
    give(W, 1, [])
    f = spawn(W, int(W.state[P_SWARM + 1]))
    W.state[G_SEAT] = 1
    for col in range(4):
        put(W, f, 1, col)
        W.call(tiles.activate_tile, f, at(W, 1, col))
    assert W.state[G_TDRAW] == 0 and W.state[B_BLOOD + at(W, 1, 1)] == 3
    assert W.state[F_POS + f] == at(W, 1, 3) and W.state[P_HAND_N + 1] == 1
