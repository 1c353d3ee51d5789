"""Karmaggän rules, one scenario each: Traps (Ring Traps, Rollers, Piston, Rotations, Ram,
Flash, hatches) and Objects.

Rulebook: shared/rules/karmaggan.md; see test_karmaggan_rules.py for how these tests run.
"""

import pytest
from karmaggan_scenes import (
    RANDOM,
    SUPPORTER,
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
)

from simulator.games.karmaggan import core, egg, movement, objects, traps
from simulator.games.karmaggan.state import (
    ACT_PLAY,
    ARROWS_WALL,
    B_OPEN,
    BLOOD_STONE,
    CONJURE,
    D_TEMPLE,
    ECLIPSE,
    F_POS,
    G_BANK,
    G_EGG_LEFT_ROUND,
    G_MEDALLION_BANK,
    G_OFFSET,
    G_POLE,
    G_ROLLERS_ON,
    G_ROUND,
    G_STEPS_LEFT,
    G_TDRAW,
    GREEDY,
    HELM,
    OPT_A,
    OPT_ACT,
    OPT_B,
    P_COINS,
    P_HAND_N,
    P_MEDALLIONS,
    P_TURNS,
    POLE,
    POWER,
    SALIVA,
    SPARK,
    SRC_ARROWS,
    SWORD,
    T_ACID,
    T_ARROWS,
    T_CLOSE_ALL,
    T_FIRE,
    T_FLASH,
    T_OPEN_DAY,
    T_OPEN_NIGHT,
    T_PISTON,
    T_RAM,
    T_ROT_MIDDLE,
    TUMULT,
)

# a column of three one-row rings; the trap walls sit on the inner side of row 2 (the
# Centre's edge) in columns 0 (Arrows), 2 (Acid) and 4 (Fire), and of row 1 in column 6
TRAPS = ["SSSSSSSS", "........", "........"]
TRAP_WALLS = ["        ", "      a ", "a c f   "]


def coins(W, *seats):
    return [int(W.state[P_COINS + s]) for s in seats]


# --- Ring Traps -------------------------------------------------------------------------------


@pytest.mark.parametrize("card,col", [(T_ARROWS, 0), (T_FIRE, 4)])
def test_arrows_cost_one_coin_and_fire_two(card, col):
    """Ring Traps: Arrows, you lose 1 Blood Coin; Fire, 2 — to the bank."""
    W = scene(TRAPS, walls_in=TRAP_WALLS)
    put(W, 0, 1, col)
    bank = W.state[G_BANK]
    W.call(traps.resolve_temple_card, 0, card)
    lost = {T_ARROWS: 1, T_FIRE: 2}[card]
    assert coins(W, 0) == [4 - lost] and W.state[G_BANK] == bank + lost


def test_acid_costs_a_die_minus_two():
    """Ring Traps: Acid, you lose (1D6) - 2 Blood Coins; the Free-for-All example rolls once
    for every victim of the activation."""
    for seed in range(1, 12):
        W = scene(TRAPS, seed=seed, walls_in=["        ", "      c ", "a c f   "])
        W.seats(P_COINS)[:2] = 9
        put(W, 0, 0, 2)
        put(W, 1, 1, 6)
        die = next_dice(W, 1)[0]
        W.call(traps.resolve_temple_card, 0, T_ACID)
        assert coins(W, 0, 1) == [9 - max(0, die - 2)] * 2


def test_every_wall_of_the_type_fires_outward_to_the_first_figure():
    """Ring Traps: all traps of the type fire, from the wall outward; the path stops at the
    first Plunderer or Spawn (Spawns are immune, Other Traps), or at another wall; Abyss
    Tiles do not stop it.  Arrows walls ('^') under row 2 in columns 0, 2, 3, 4 and under
    row 1 in column 6; 'a' is a Spawn:

        column    0   1   2   3   4   5   6
        row 0     1   .   .   .   .   .   .
        row 1     0   .   .   2   a   .   .
        row 2     .   .   3   .   .   .   .
                  ^       ^   ^   ^
    """
    W = scene(walls_in=["        ", "      a ", "a aaa   "])
    put(W, 0, 1, 0)  # first in the line of column 0: hit
    put(W, 1, 0, 0)  # behind seat 0: spared
    put(W, 3, 2, 2)  # on the wall's own cell: hit
    put(W, 2, 1, 3)  # column 3: hit
    f = spawn(W, 0)
    put(W, f, 1, 4)  # a Spawn stops the arrow and loses nothing
    W.seats(P_COINS)[:4] = 5
    W.call(traps.fire_wall_traps, ARROWS_WALL, 1, SRC_ARROWS)
    assert coins(W, 0, 1, 2, 3) == [4, 5, 4, 4]
    assert W.state[F_POS + f] == at(W, 1, 4)
    W2 = scene(["SSSSSSSS", "........", "........"], walls_in=["   -    ", "        ", "   a    "])
    put(W2, 0, 0, 3)  # the wall under (0,3) stops the arrow from (2,3)
    W2.call(traps.fire_wall_traps, ARROWS_WALL, 1, SRC_ARROWS)
    assert coins(W2, 0) == [4]
    W3 = scene(["SSSSSSSS", "...#....", "........"], walls_in=["        ", "        ", "   a    "])
    put(W3, 0, 0, 3)  # an Abyss between does not stop it
    W3.call(traps.fire_wall_traps, ARROWS_WALL, 1, SRC_ARROWS)
    assert coins(W3, 0) == [3]


# --- The Rollers -------------------------------------------------------------------------------


def rollers_scene(seed=1):
    W = scene(seed=seed, rollers=(1,), ring_rows=[2, 1])
    W.seats(P_COINS)[:4] = 20
    W.state[G_ROLLERS_ON] = 1
    return W


def test_the_rollers_are_placed_when_the_egg_first_leaves_the_centre():
    """The Rollers / The Alien Egg: placed when the Egg leaves the Central Tile for the first
    time, and not before."""
    W = scene()
    put(W, 0, centre(W))
    W.call(egg.pick_up_egg, 0)
    assert W.state[G_ROLLERS_ON] == 0
    W.state[G_ROUND] = 4
    put(W, 0, 2, 3)
    assert W.state[G_ROLLERS_ON] == 1 and W.state[G_EGG_LEFT_ROUND] == 4


def test_crossing_a_roller_costs_a_die_minus_one():
    """The Rollers: crossing the space between the Tiles on which a Roller sits costs (1D6) - 1,
    rolled for each crossing; they reach only the Outer Ring (here rows 0 and 1, Roller between
    columns 1 and 2); Spawns are immune."""
    for seed in range(1, 8):
        W = rollers_scene(seed)
        put(W, 0, 0, 1)
        die = next_dice(W, 1)[0]
        W.call(movement.begin_turn, 0)
        W.state[G_STEPS_LEFT] = 6
        W.call(movement.step_plunderer, 0, at(W, 0, 2))  # across the Roller
        assert coins(W, 0) == [20 - (die - 1)]
        W.call(movement.step_plunderer, 0, at(W, 0, 3))  # no Roller there
        put(W, 1, 2, 1)
        W.call(movement.begin_turn, 1)
        W.state[G_STEPS_LEFT] = 6
        W.call(movement.step_plunderer, 1, at(W, 2, 2))  # the inner ring: no Roller
        assert coins(W, 0, 1) == [20 - (die - 1), 20]
    W = rollers_scene()
    W.state[G_ROLLERS_ON] = 0
    put(W, 0, 0, 1)
    W.call(movement.step_plunderer, 0, at(W, 0, 2))  # not placed yet
    assert coins(W, 0) == [20]


def test_a_ring_turning_drags_plunderers_across_the_rollers():
    """The Rollers: a Plunderer dragged by the turn of the Outer Ring pays for every Roller it
    crosses, rolling for each; one on another ring pays nothing."""
    for seed in range(1, 6):
        W = scene(seed=seed, rollers=(1, 5))
        W.seats(P_COINS)[:4] = 20
        W.state[G_ROLLERS_ON] = 1
        put(W, 0, 0, 0)
        put(W, 1, 1, 0)
        dice = next_dice(W, 2)
        W.call(traps.rotate_ring, 0, 3)  # 6 columns: crosses 1|2 and 5|6
        assert coins(W, 0, 1) == [20 - (dice[0] - 1) - (dice[1] - 1), 20]


# --- The Piston, Rotations, the Ram, the Flash, hatches ---------------------------------------


@pytest.mark.parametrize("have,lose", [(7, 3), (1, 0), (4, 2), (5, 2), (2, 1)])
def test_the_piston_crushes_the_centre_for_half_rounded_in_favour(have, lose):
    """The Piston: only the Central Tile; half the Blood Coins, rounded in the victim's favour
    ("if it has 7, it loses 3; if it has 1, it loses none")."""
    W = scene()
    W.seats(P_COINS)[:2] = have
    put(W, 0, centre(W))
    put(W, 1, 2, 0)
    W.call(traps.resolve_temple_card, 1, T_PISTON)
    assert coins(W, 0, 1) == [have - lose, have]


def rotated(offset):
    """The board of the rotation test with the middle ring turned ``offset`` columns."""
    row = [". "] * 8
    row[offset % 8] = "1|"
    return "\n".join(["0 . . . . . . .", "".join(row).rstrip(), ". . . . . . . .", "centre @"])


def test_a_rotation_turns_one_ring_a_die_of_sectors_either_way():
    """Rotations: a Ring turns by 1 to 6 sectors, as a D6 shows, in either direction (ASSUMED:
    the player who activated the card picks it); tiles, walls and figures turn with it.  The
    middle ring carries seat 1 and a radial wall ('|'), the other rings stay:

        0 . . . . . . .
        1|. . . . . . .      -> turned by a die of sectors (2 columns each) either way
        . . . . . . . .
    """
    ways = set()
    for seed in range(1, 20):
        W = scene(seed=seed, policy=RANDOM, walls_cw=["        ", "|       ", "        "])
        put(W, 0, 0, 0)
        put(W, 1, 1, 0)
        assert draw(W) == rotated(0)
        die = next_dice(W, 1)[0]
        W.call(traps.resolve_temple_card, 0, T_ROT_MIDDLE)
        offset = int(W.state[G_OFFSET + 1])
        assert offset in ((2 * die) % 8, (-2 * die) % 8)
        assert W.state[G_OFFSET] == 0 and W.state[G_OFFSET + 2] == 0
        assert draw(W) == rotated(offset)
        if die % 4:
            ways.add(offset == (2 * die) % 8)
    assert ways == {True, False}


def test_the_ram_swaps_the_hand_for_four_cards():
    """The Ram: the activating Plunderer discards its hand and draws four cards."""
    W = scene()
    put(W, 0, 1, 0)
    old = cards_of(W, effect=SWORD)[:2]
    give(W, 0, old)
    W.call(traps.resolve_temple_card, 0, T_RAM)
    assert W.state[P_HAND_N + 0] == 4 and not set(old) & set(hand(W, 0))


FLASH = ["SSSSSSSS", "T..T..T.", ".T......"]


def test_the_flash_moves_to_another_temple_tile_of_the_ring():
    """The Flash: the Plunderer resumes its movement from another Temple Tile of the same Ring,
    without activating it or counting a move (ASSUMED: only a free one; the Centre, a large
    Temple Tile, belongs to the Central Ring)."""
    seen = set()
    for seed in range(1, 25):
        W = scene(FLASH, seed=seed, policy=RANDOM)
        put(W, 0, 1, 0)
        put(W, 1, 1, 6)
        W.call(movement.begin_turn, 0)
        W.state[G_STEPS_LEFT] = 2
        W.call(traps.resolve_temple_card, 0, T_FLASH)
        seen.add(int(W.state[F_POS + 0]))
        assert W.state[G_STEPS_LEFT] == 2 and W.state[G_TDRAW] == 0
    assert seen == {at(W, 1, 3)}
    W = scene(FLASH)
    put(W, 0, centre(W))
    W.call(traps.iris_flash, 0)
    assert W.state[F_POS + 0] == at(W, 2, 1)  # the Central ring's Temple tile
    W.call(traps.iris_flash, 0)
    assert W.state[F_POS + 0] == centre(W)  # and back to the Centre


def test_temple_cards_open_and_close_the_hatches():
    """Setup: all hatches start closed; ASSUMED (not printed): Temple cards open the Day or
    the Night hatches, or close them all."""
    W = scene()
    jungle = [centre(W) + 1, centre(W) + 2]  # a Day hatch, a Night hatch
    W.call(traps.resolve_temple_card, 0, T_OPEN_DAY)
    assert W.nodes(B_OPEN)[jungle].tolist() == [1, 0]
    W.call(traps.resolve_temple_card, 0, T_OPEN_NIGHT)
    assert W.nodes(B_OPEN)[jungle].tolist() == [1, 1]
    W.call(traps.resolve_temple_card, 0, T_CLOSE_ALL)
    assert W.nodes(B_OPEN)[jungle].tolist() == [0, 0]


# --- Objects -----------------------------------------------------------------------------------


def play_options(W, seat):
    n = W.call(movement.list_step_options, seat)
    return [
        (int(W.state[OPT_A + i]), int(W.state[OPT_B + i]))
        for i in range(n)
        if W.state[OPT_ACT + i] == ACT_PLAY
    ]


def test_one_card_a_turn_one_more_per_medallion_none_in_the_first_turn():
    """Objects: only one card may be played per turn; paying a Golden Medallion allows one
    more; no Object card in a player's first turn; cards drawn this turn may be played."""
    W = scene()
    put(W, 0, 1, 0)
    give(W, 0, cards_of(W, effect=SWORD)[:2])
    W.call(movement.begin_turn, 0)  # its first turn
    assert play_options(W, 0) == []
    W.call(movement.begin_turn, 0)
    assert play_options(W, 0) == [(0, 0), (1, 0)]
    W.call(objects.play_object, 0, 0, 0)
    assert play_options(W, 0) == [(1, 1)]  # paying the medallion
    bank = W.state[G_MEDALLION_BANK]
    W.call(objects.play_object, 0, 1, 1)
    assert W.state[P_MEDALLIONS + 0] == 0 and W.state[G_MEDALLION_BANK] == bank + 1
    W.call(core.draw_object, 0)
    assert play_options(W, 0) == []
    W.call(movement.begin_turn, 0)
    assert play_options(W, 0) == [(0, 0)]  # the card drawn is playable


def play(W, seat, effect):
    """Play a card of ``effect`` from ``seat``'s hand (added for the purpose)."""
    card = cards_of(W, effect=effect)[0]
    W.call(core.add_to_hand, seat, card)
    W.call(objects.play_object, seat, list(W.hands[seat]).index(card), 0)


def test_greedy_fingers_robs_one_or_two_chosen_players():
    """Greedy Fingers: steal a random card from one or two different Players — anyone but the
    player itself (a teammate too) and Plunderers outside the Temple (Final Moments)."""
    robbed, most = set(), 0
    for seed in range(1, 30):
        W = scene(seed=seed, policy=RANDOM, hatches=(0,))
        for seat, col in ((0, 1), (1, 2), (2, 3), (3, 4)):
            put(W, seat, 1, col)
        W.state[B_OPEN + centre(W) + 1] = 1
        put(W, 3, centre(W) + 1)  # seat 3 is in the jungle
        for seat in range(4):
            give(W, seat, [10 + 2 * seat, 11 + 2 * seat] if seat else [])
        play(W, 0, GREEDY)
        lost = {s for s in (1, 2, 3) if W.state[P_HAND_N + s] < 2}
        assert 1 <= len(lost) <= 2 and 3 not in lost
        assert W.state[P_HAND_N + 0] == len(lost)
        robbed |= lost
        most = max(most, len(lost))
    assert robbed == {1, 2} and most == 2


def test_tumult_draws_three():
    """Tumult: draw 3 cards from the Object Deck (Objects: up to 8 in hand)."""
    W = scene()
    give(W, 0, [])
    play(W, 0, TUMULT)
    assert W.state[P_HAND_N + 0] == 3
    give(W, 0, list(range(40, 46)))
    play(W, 0, TUMULT)
    assert W.state[P_HAND_N + 0] == 8


def test_the_pole_lets_a_plunderer_cross_an_abyss():
    """Abyss Tiles: they cannot be stepped on; Pole: allows it, but not to end the turn there."""
    W = scene(["SSSSSSSS", ".#......", "........"])
    put(W, 0, 1, 0)
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 3
    abyss = at(W, 1, 1)
    n = W.call(movement.list_step_options, 0)
    assert abyss not in W.state[OPT_B : OPT_B + n].tolist()
    give(W, 0, [])
    play(W, 0, POLE)
    assert W.state[G_POLE] == 1
    n = W.call(movement.list_step_options, 0)
    assert abyss in W.state[OPT_B : OPT_B + n].tolist()
    W.state[G_STEPS_LEFT] = 1
    n = W.call(movement.list_step_options, 0)
    assert abyss not in W.state[OPT_B : OPT_B + n].tolist()  # it would end there


def conjured_walk(row1, *cols):
    """Seat 0 plays Unpronounceable Conjuring on (1,0), then steps along row 1 to ``cols``;
    returns the cards it drew."""
    W = scene(["SSSSSSSS", row1, "........"])
    put(W, 0, 1, 0)
    give(W, 0, [])
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 4
    play(W, 0, CONJURE)
    for col in cols:
        W.call(movement.step_plunderer, 0, at(W, 1, col))
    return int(W.state[P_HAND_N + 0])


def test_unpronounceable_conjuring_cancels_the_next_tile_whatever_it_is():
    """Unpronounceable Conjuring: cancels the effect of the next Tile stepped on — a Blank tile
    too, so an Object Tile after it draws a card; an Object Tile stepped on next draws none."""
    assert conjured_walk("..O.....", 1, 2) == 1
    assert conjured_walk(".O......", 1) == 0


def test_unpronounceable_conjuring_lasts_only_its_turn():
    """Unpronounceable Conjuring: "cancels the effect of the next Tile you step on this turn".
    Seat 0 plays it on (1,0) and ends its turn without a step; in its next turn the Object
    tile it steps on draws a card:

        row 1   0 O . . . . . .
    """
    W = scene(["SSSSSSSS", ".O......", "........"])
    put(W, 0, 1, 0)
    give(W, 0, [])
    W.state[P_TURNS + 0] = 3  # not its first turn
    W.call(movement.begin_turn, 0)
    play(W, 0, CONJURE)
    W.call(movement.finish_turn, 0)
    W.call(movement.begin_turn, 0)
    W.state[G_STEPS_LEFT] = 1
    W.call(movement.step_plunderer, 0, at(W, 1, 1))
    assert W.state[P_HAND_N + 0] == 1


def test_blood_stone_gains_a_coin_or_gives_one_away():
    """Blood Stone: gain one Blood Coin (from the bank), or transfer one of yours to another
    Player (ASSUMED: only while keeping one, to a Plunderer in the Temple)."""
    outcomes = set()
    for seed in range(1, 30):
        W = scene(seed=seed, policy=RANDOM)
        for seat in range(4):
            put(W, seat, 1, seat)
        give(W, 0, [])
        total = sum(coins(W, 0, 1, 2, 3)) + W.state[G_BANK]
        play(W, 0, BLOOD_STONE)
        after = coins(W, 0, 1, 2, 3)
        assert after[0] in (3, 5) and sum(after) + W.state[G_BANK] == total
        outcomes.add(after[0])
    assert outcomes == {3, 5}
    for seed in range(1, 10):
        W = scene(seed=seed, policy=RANDOM)
        for seat in range(4):
            put(W, seat, 1, seat)
        W.state[P_COINS + 0] = 1
        play(W, 0, BLOOD_STONE)
        assert coins(W, 0) == [2]


@pytest.mark.parametrize("outside", [False, True])
def test_a_plunderer_outside_the_temple_gets_no_blood_stone_coin(outside):
    """Final Moments of the Game: a Plunderer outside the Temple "is immune to all effects of
    Object cards".  A supporter with coins to spare gives its dying teammate (seat 2, one
    coin) a Blood Stone coin in the Temple; with seat 2 in the jungle beyond hatch 0 it may
    not, and gains the coin itself:

        row 1   . . 0 . . 2 . .      (or seat 2 in the jungle)
    """
    W = scene(policy=SUPPORTER)
    put(W, 0, 1, 2)
    put(W, 2, centre(W) + 1 if outside else at(W, 1, 5))
    W.state[P_COINS + 2] = 1
    W.call(objects.blood_stone, 0)
    assert coins(W, 0, 2) == ([5, 1] if outside else [3, 2])


def test_helm_of_contact_turns_a_chosen_ring_a_die_of_sectors():
    """Helm of Contact: choose a Ring and a direction, then a D6 gives the sectors."""
    rings = set()
    for seed in range(1, 30):
        W = scene(seed=seed, policy=RANDOM)
        die = next_dice(W, 1)[0]
        if die == 4:
            continue  # a full turn changes nothing
        play(W, 0, HELM)
        offsets = W.state[G_OFFSET : G_OFFSET + 3].tolist()
        turned = [r for r in range(3) if offsets[r]]
        assert len(turned) == 1 and offsets[turned[0]] in ((2 * die) % 8, (-2 * die) % 8)
        rings |= set(turned)
    assert rings == {0, 1, 2}


def test_stone_of_the_spark_adds_two_steps():
    """Stone of the Spark: move two additional Tiles."""
    W = scene()
    W.state[G_STEPS_LEFT] = 1
    play(W, 0, SPARK)
    assert W.state[G_STEPS_LEFT] == 3


def test_saliva_draws_a_card_and_activates_a_die_of_temple_cards():
    """Saliva of Khaleidas: draw a new Object card and activate as many Temple cards as a die
    shows — wherever the player stands (the text asks for no Temple tile)."""
    for seed in range(1, 6):
        W = scene(seed=seed)
        put(W, 0, 1, 0)
        give(W, 0, [])
        W.deck(D_TEMPLE)[:] = T_OPEN_DAY
        die = next_dice(W, 1)[0]
        play(W, 0, SALIVA)
        assert W.state[G_TDRAW] == die and W.state[P_HAND_N + 0] == 1


def test_deliberate_eclipse_closes_every_hatch_and_discards_the_hand():
    """Deliberate Eclipse: closes all the hatches of the Temple and discards the rest of the
    hand."""
    W = scene()
    W.nodes(B_OPEN)[centre(W) + 1 :] = 1
    give(W, 0, cards_of(W, effect=SWORD)[:3])
    play(W, 0, ECLIPSE)
    assert (W.nodes(B_OPEN)[centre(W) + 1 :] == 0).all() and W.state[P_HAND_N + 0] == 0


def test_the_sword_has_no_effect_when_played_but_absolute_power_in_combat():
    """The Sword: no effect when played, "extremely effective in combat" (ASSUMED: Absolute
    Power, the value that beats every other)."""
    W = scene()
    assert {int(W.cards[c, 1]) for c in cards_of(W, effect=SWORD)} == {POWER}
    before = W.seats(P_COINS).copy()
    give(W, 0, [])
    play(W, 0, SWORD)
    assert (W.seats(P_COINS) == before).all() and W.state[P_HAND_N + 0] == 0
