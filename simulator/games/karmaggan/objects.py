"""Karmaggän: Objects — playing an Object card and its effect.

Rulebook: shared/rules/karmaggan.md, sections "Objects", "Object Effects".
"""

from simulator.core.kernel import rule
from simulator.core.rng import DICE, rng_below, roll_die
from simulator.games.karmaggan import board, core, decide, traps
from simulator.games.karmaggan import state as S


@rule
def play_object(state, rules, knobs, rng, trace, seat, slot, paid_medallion):
    """Objects / Object Effects: play one card (one per turn, one more per Golden Medallion
    paid; never in a player's first turn) and carry out its effect immediately."""
    if paid_medallion:
        state[S.P_MEDALLIONS + seat] -= 1
        state[S.G_MEDALLION_BANK] += 1
    else:
        state[S.G_PLAYS_LEFT] -= 1
    card = core.take_from_hand(state, seat, slot)
    effect = S.card_effect(rules, card)
    core.discard_card(state, rules, card)
    state[S.P_OBJECTS_PLAYED + seat] += 1
    core.record(state, trace, S.EV_PLAY, seat, effect, paid_medallion, state[S.P_COINS + seat], 0)
    if effect == S.GREEDY:
        greedy_fingers(state, rules, knobs, rng, seat)
    elif effect == S.TUMULT:
        for _ in range(rules[S.CFG_TUMULT]):
            core.draw_object(state, rules, rng, seat)
    elif effect == S.POLE:
        state[S.G_POLE] = 1
    elif effect == S.CONJURE:
        state[S.G_CONJURE] = 1
    elif effect == S.BLOOD_STONE:
        blood_stone(state, rules, knobs, rng, trace, seat)
    elif effect == S.HELM:
        # Helm of Contact: any ring, either way
        traps.turn_ring(state, rules, knobs, rng, trace, seat, 0, rules[S.CFG_RINGS])
    elif effect == S.SPARK:
        state[S.G_STEPS_LEFT] += rules[S.CFG_SPARK]
    elif effect == S.SALIVA:
        # Saliva of Khaleidas activates Temple cards wherever the player stands: the text asks
        # for no Temple tile (a Flash then takes it to a Temple tile of its ring)
        core.draw_object(state, rules, rng, seat)
        for _ in range(roll_die(rng, 6)):
            if state[S.P_STATUS + seat] != S.ALIVE:
                break
            traps.resolve_temple_card(
                state, rules, knobs, rng, trace, seat, traps.draw_temple_card(state, rules, rng)
            )
    elif effect == S.ECLIPSE:
        traps.set_hatches(state, rules, trace, -1, 0)
        core.discard_hand(state, rules, seat)
    # GAZE: reveals the top cards; ASSUMED no effect, as no policy reads hidden cards.
    # SWORD: no effect when played (its value is in combat).


@rule
def greedy_fingers(state, rules, knobs, rng, seat):
    """Greedy Fingers: steal a random card from one or two different players, whom the player
    picks (a teammate too: the text excludes nobody).  Plunderers outside the Temple are
    immune (Final Moments); the hand limit of 8 stops the theft."""
    robbed = -1
    for k in range(rules[S.CFG_GREEDY]):
        n = 0
        if k > 0:  # "one or two": the second victim is optional
            S.set_option(state, 0, S.ACT_STOP, -1, 0)
            n = 1
        for s in range(rules[S.CFG_PLAYERS]):
            if (
                s != seat
                and s != robbed
                and state[S.P_HAND_N + s] > 0
                and state[S.P_STATUS + s] != S.ELIMINATED
                and not (
                    state[S.P_STATUS + s] == S.ALIVE and board.is_jungle(rules, state[S.F_POS + s])
                )
            ):
                S.set_option(state, n, S.ACT_STOP, s, 0)
                n += 1
        if n == 0 or state[S.P_HAND_N + seat] >= rules[S.CFG_HAND_MAX]:
            return
        victim = state[S.OPT_A + decide.choose(state, rules, knobs, rng, S.VICTIM, seat, n)]
        if victim < 0:
            return
        robbed = victim
        pick = rng_below(rng, DICE, state[S.P_HAND_N + victim])
        for slot in range(rules[S.CFG_HAND_MAX]):
            if state[S.hand_slot(victim, slot)] >= 0:
                if pick == 0:
                    core.add_to_hand(state, rules, seat, core.take_from_hand(state, victim, slot))
                    break
                pick -= 1


@rule
def blood_stone(state, rules, knobs, rng, trace, seat):
    """Blood Stone: gain one coin, or give one of your coins to another player (ASSUMED: only
    while keeping at least one, to a plunderer still in the Temple)."""
    S.set_option(state, 0, S.ACT_STOP, -1, 0)
    n = 1
    if state[S.P_COINS + seat] >= 2:
        for s in range(rules[S.CFG_PLAYERS]):
            if (
                s != seat
                and state[S.P_STATUS + s] == S.ALIVE
                and not board.is_jungle(rules, state[S.F_POS + s])
            ):
                S.set_option(state, n, S.ACT_STOP, s, 0)
                n += 1
    target = state[S.OPT_A + decide.choose(state, rules, knobs, rng, S.STONE_TARGET, seat, n)]
    before = state[S.P_COINS + seat]
    if target < 0:
        core.gain_coins(state, seat, 1, S.P_GAIN_OTHER)
    else:
        state[S.P_COINS + seat] -= 1
        state[S.P_LOST_OTHER + seat] += 1
        state[S.P_COINS + target] += 1
        state[S.P_GAIN_OTHER + target] += 1
    core.record(state, trace, S.EV_STONE, seat, target, before, state[S.P_COINS + seat], 0)
