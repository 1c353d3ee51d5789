"""Karmaggän: Objects — playing an Object card and its effect.

Rulebook: shared/rules/karmaggan.md, sections "Objects", "Object Effects".
"""

from simulator.core.kernel import rule
from simulator.core.rng import DICE, rng_below, roll_die
from simulator.games.karmaggan.board import is_jungle
from simulator.games.karmaggan.core import (
    add_to_hand,
    discard_card,
    discard_hand,
    draw_object,
    gain_coins,
    record,
    take_from_hand,
)
from simulator.games.karmaggan.decide import choose
from simulator.games.karmaggan.state import (
    ACT_STOP,
    ALIVE,
    BLOOD_STONE,
    CARDS,
    CFG,
    CFG_GREEDY,
    CFG_HAND_MAX,
    CFG_RINGS,
    CFG_SPARK,
    CFG_TUMULT,
    CONJURE,
    ECLIPSE,
    ELIMINATED,
    EV_PLAY,
    EV_STONE,
    F_POS,
    FIGS,
    G_CONJURE,
    G_MEDALLION_BANK,
    G_PLAYS_LEFT,
    G_POLE,
    G_STEPS_LEFT,
    GAME,
    GREEDY,
    HANDS,
    HELM,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    P_COINS,
    P_GAIN_OTHER,
    P_HAND_N,
    P_LOST_OTHER,
    P_MEDALLIONS,
    P_OBJECTS_PLAYED,
    P_STATUS,
    PLAYERS,
    POLE,
    RNG,
    SALIVA,
    SPARK,
    STONE_TARGET,
    TUMULT,
    VICTIM,
)
from simulator.games.karmaggan.traps import (
    draw_temple_card,
    resolve_temple_card,
    set_hatches,
    turn_ring,
)


@rule
def play_object(W, seat, slot, paid_medallion):
    """Objects / Object Effects: play one card (one per turn, one more per Golden Medallion
    paid; never in a player's first turn) and carry out its effect immediately."""
    game, players, cards, rng, cfg = W[GAME], W[PLAYERS], W[CARDS], W[RNG], W[CFG]
    if paid_medallion:
        players[seat, P_MEDALLIONS] -= 1
        game[G_MEDALLION_BANK] += 1
    else:
        game[G_PLAYS_LEFT] -= 1
    card = take_from_hand(W, seat, slot)
    effect = cards[card, 0]
    discard_card(W, card)
    players[seat, P_OBJECTS_PLAYED] += 1
    record(W, EV_PLAY, seat, effect, paid_medallion, players[seat, P_COINS], 0)
    if effect == GREEDY:
        greedy_fingers(W, seat)
    elif effect == TUMULT:
        for _ in range(cfg[CFG_TUMULT]):
            draw_object(W, seat)
    elif effect == POLE:
        game[G_POLE] = 1
    elif effect == CONJURE:
        game[G_CONJURE] = 1
    elif effect == BLOOD_STONE:
        blood_stone(W, seat)
    elif effect == HELM:
        turn_ring(W, seat, 0, cfg[CFG_RINGS])  # Helm of Contact: any ring, either way
    elif effect == SPARK:
        game[G_STEPS_LEFT] += cfg[CFG_SPARK]
    elif effect == SALIVA:
        # Saliva of Khaleidas activates Temple cards wherever the player stands: the text asks
        # for no Temple tile (a Flash then takes it to a Temple tile of its ring)
        draw_object(W, seat)
        for _ in range(roll_die(rng, 6)):
            if players[seat, P_STATUS] != ALIVE:
                break
            resolve_temple_card(W, seat, draw_temple_card(W))
    elif effect == ECLIPSE:
        set_hatches(W, -1, 0)
        discard_hand(W, seat)
    # GAZE: reveals the top cards; ASSUMED no effect, as no policy reads hidden cards.
    # SWORD: no effect when played (its value is in combat).


@rule
def greedy_fingers(W, seat):
    """Greedy Fingers: steal a random card from one or two different players, whom the player
    picks (a teammate too: the text excludes nobody).  Plunderers outside the Temple are
    immune (Final Moments); the hand limit of 8 stops the theft."""
    players, hands, figs, options = W[PLAYERS], W[HANDS], W[FIGS], W[OPTIONS]
    robbed = -1
    for k in range(W[CFG][CFG_GREEDY]):
        n = 0
        if k > 0:  # "one or two": the second victim is optional
            options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_STOP, -1, 0
            n = 1
        for s in range(players.shape[0]):
            if (
                s != seat
                and s != robbed
                and players[s, P_HAND_N] > 0
                and players[s, P_STATUS] != ELIMINATED
                and not (players[s, P_STATUS] == ALIVE and is_jungle(W, figs[s, F_POS]))
            ):
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_STOP, s, 0
                n += 1
        if n == 0 or players[seat, P_HAND_N] >= W[CFG][CFG_HAND_MAX]:
            return
        victim = options[choose(VICTIM, seat, n, W), OPT_A]
        if victim < 0:
            return
        robbed = victim
        pick = rng_below(W[RNG], DICE, players[victim, P_HAND_N])
        for slot in range(hands.shape[1]):
            if hands[victim, slot] >= 0:
                if pick == 0:
                    add_to_hand(W, seat, take_from_hand(W, victim, slot))
                    break
                pick -= 1


@rule
def blood_stone(W, seat):
    """Blood Stone: gain one coin, or give one of your coins to another player (ASSUMED: only
    while keeping at least one, to a plunderer still in the Temple)."""
    players, options = W[PLAYERS], W[OPTIONS]
    options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_STOP, -1, 0
    n = 1
    if players[seat, P_COINS] >= 2:
        for s in range(players.shape[0]):
            if s != seat and players[s, P_STATUS] == ALIVE and not is_jungle(W, W[FIGS][s, F_POS]):
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_STOP, s, 0
                n += 1
    target = options[choose(STONE_TARGET, seat, n, W), OPT_A]
    before = players[seat, P_COINS]
    if target < 0:
        gain_coins(W, seat, 1, P_GAIN_OTHER)
    else:
        players[seat, P_COINS] -= 1
        players[seat, P_LOST_OTHER] += 1
        players[target, P_COINS] += 1
        players[target, P_GAIN_OTHER] += 1
    record(W, EV_STONE, seat, target, before, players[seat, P_COINS], 0)
