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
    CFG_GREEDY,
    CFG_HAND_MAX,
    CFG_PLAYERS,
    CFG_RINGS,
    CFG_SPARK,
    CFG_TUMULT,
    CONJURE,
    ECLIPSE,
    ELIMINATED,
    EV_PLAY,
    EV_STONE,
    F_POS,
    G_CONJURE,
    G_MEDALLION_BANK,
    G_PLAYS_LEFT,
    G_POLE,
    G_STEPS_LEFT,
    GREEDY,
    HELM,
    OPT_A,
    P_COINS,
    P_GAIN_OTHER,
    P_HAND_N,
    P_LOST_OTHER,
    P_MEDALLIONS,
    P_OBJECTS_PLAYED,
    P_STATUS,
    POLE,
    SALIVA,
    SPARK,
    STONE_TARGET,
    TUMULT,
    VICTIM,
    card_effect,
    hand_slot,
    set_option,
)
from simulator.games.karmaggan.traps import (
    draw_temple_card,
    resolve_temple_card,
    set_hatches,
    turn_ring,
)


@rule
def play_object(state, rules, knobs, rng, trace, seat, slot, paid_medallion):
    """Objects / Object Effects: play one card (one per turn, one more per Golden Medallion
    paid; never in a player's first turn) and carry out its effect immediately."""
    if paid_medallion:
        state[P_MEDALLIONS + seat] -= 1
        state[G_MEDALLION_BANK] += 1
    else:
        state[G_PLAYS_LEFT] -= 1
    card = take_from_hand(state, seat, slot)
    effect = card_effect(rules, card)
    discard_card(state, rules, card)
    state[P_OBJECTS_PLAYED + seat] += 1
    record(state, trace, EV_PLAY, seat, effect, paid_medallion, state[P_COINS + seat], 0)
    if effect == GREEDY:
        greedy_fingers(state, rules, knobs, rng, seat)
    elif effect == TUMULT:
        for _ in range(rules[CFG_TUMULT]):
            draw_object(state, rules, rng, seat)
    elif effect == POLE:
        state[G_POLE] = 1
    elif effect == CONJURE:
        state[G_CONJURE] = 1
    elif effect == BLOOD_STONE:
        blood_stone(state, rules, knobs, rng, trace, seat)
    elif effect == HELM:
        # Helm of Contact: any ring, either way
        turn_ring(state, rules, knobs, rng, trace, seat, 0, rules[CFG_RINGS])
    elif effect == SPARK:
        state[G_STEPS_LEFT] += rules[CFG_SPARK]
    elif effect == SALIVA:
        # Saliva of Khaleidas activates Temple cards wherever the player stands: the text asks
        # for no Temple tile (a Flash then takes it to a Temple tile of its ring)
        draw_object(state, rules, rng, seat)
        for _ in range(roll_die(rng, 6)):
            if state[P_STATUS + seat] != ALIVE:
                break
            resolve_temple_card(
                state, rules, knobs, rng, trace, seat, draw_temple_card(state, rules, rng)
            )
    elif effect == ECLIPSE:
        set_hatches(state, rules, trace, -1, 0)
        discard_hand(state, rules, seat)
    # GAZE: reveals the top cards; ASSUMED no effect, as no policy reads hidden cards.
    # SWORD: no effect when played (its value is in combat).


@rule
def greedy_fingers(state, rules, knobs, rng, seat):
    """Greedy Fingers: steal a random card from one or two different players, whom the player
    picks (a teammate too: the text excludes nobody).  Plunderers outside the Temple are
    immune (Final Moments); the hand limit of 8 stops the theft."""
    robbed = -1
    for k in range(rules[CFG_GREEDY]):
        n = 0
        if k > 0:  # "one or two": the second victim is optional
            set_option(state, 0, ACT_STOP, -1, 0)
            n = 1
        for s in range(rules[CFG_PLAYERS]):
            if (
                s != seat
                and s != robbed
                and state[P_HAND_N + s] > 0
                and state[P_STATUS + s] != ELIMINATED
                and not (state[P_STATUS + s] == ALIVE and is_jungle(rules, state[F_POS + s]))
            ):
                set_option(state, n, ACT_STOP, s, 0)
                n += 1
        if n == 0 or state[P_HAND_N + seat] >= rules[CFG_HAND_MAX]:
            return
        victim = state[OPT_A + choose(state, rules, knobs, rng, VICTIM, seat, n)]
        if victim < 0:
            return
        robbed = victim
        pick = rng_below(rng, DICE, state[P_HAND_N + victim])
        for slot in range(rules[CFG_HAND_MAX]):
            if state[hand_slot(victim, slot)] >= 0:
                if pick == 0:
                    add_to_hand(state, rules, seat, take_from_hand(state, victim, slot))
                    break
                pick -= 1


@rule
def blood_stone(state, rules, knobs, rng, trace, seat):
    """Blood Stone: gain one coin, or give one of your coins to another player (ASSUMED: only
    while keeping at least one, to a plunderer still in the Temple)."""
    set_option(state, 0, ACT_STOP, -1, 0)
    n = 1
    if state[P_COINS + seat] >= 2:
        for s in range(rules[CFG_PLAYERS]):
            if (
                s != seat
                and state[P_STATUS + s] == ALIVE
                and not is_jungle(rules, state[F_POS + s])
            ):
                set_option(state, n, ACT_STOP, s, 0)
                n += 1
    target = state[OPT_A + choose(state, rules, knobs, rng, STONE_TARGET, seat, n)]
    before = state[P_COINS + seat]
    if target < 0:
        gain_coins(state, seat, 1, P_GAIN_OTHER)
    else:
        state[P_COINS + seat] -= 1
        state[P_LOST_OTHER + seat] += 1
        state[P_COINS + target] += 1
        state[P_GAIN_OTHER + target] += 1
    record(state, trace, EV_STONE, seat, target, before, state[P_COINS + seat], 0)
