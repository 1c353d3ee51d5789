"""Karmaggän: Combat — rounds, the comparison table, the end of combat.

Rulebook: shared/rules/karmaggan.md, section "Combat".
"""

import numpy as np

from simulator.core.kernel import allocating, rule
from simulator.games.karmaggan.board import is_jungle, update_adjacency
from simulator.games.karmaggan.core import (
    add_to_hand,
    controller,
    discard_card,
    draw_object,
    place_figure,
    record,
    take_from_hand,
)
from simulator.games.karmaggan.death import plunderer_dies
from simulator.games.karmaggan.decide import choose
from simulator.games.karmaggan.egg import bfs_local, fling_egg, give_egg, pick_up_egg
from simulator.games.karmaggan.state import (
    ACT_MOVE,
    ACT_PLAY,
    ALIVE,
    B_OCC,
    CFG_CENTRE,
    CFG_COMBAT_HAND,
    CFG_COMBAT_ROUNDS,
    CFG_HAND_MAX,
    CFG_NODES,
    CFG_PLAYERS,
    CFG_THROW,
    COMBAT_CARD,
    EGG_WON,
    ELIMINATED,
    EV_COMBAT,
    EV_COMBAT_ROUND,
    EV_ELIMINATED,
    EV_SPAWN,
    EV_THROWN,
    F_KIND,
    F_OWNER,
    F_POS,
    G_BANK,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_SEAT,
    G_TURN_ENDED,
    MAX_OPTIONS,
    NO_CARD,
    NOBODY,
    OFF,
    OPT_A,
    OPT_B,
    P_COINS,
    P_COMBATS_LOST,
    P_COMBATS_WON,
    P_GAIN_COMBAT,
    P_HAND_N,
    P_LOST_COMBAT,
    P_STATUS,
    SPAWN,
    THROW_DEST,
    adj_row,
    beats,
    card_value,
    hand_slot,
    set_option,
)
from simulator.games.karmaggan.traps import roller_damage, step_crossings


@rule
def round_result(rules, a, b):
    """Comparing Combat Values: +1 when value a wins the round, -1 when b wins, 0 for a tie.
    A card beats no card (End of Combat: not playing costs a coin); two missing cards tie
    (each would pay the other one coin)."""
    if a == NO_CARD and b == NO_CARD:
        return 0
    if b == NO_CARD:
        return 1
    if a == NO_CARD:
        return -1
    if beats(rules, a, b) == 1:
        return 1
    if beats(rules, b, a) == 1:
        return -1
    return 0


@rule
def reveal_card(state, rules, knobs, rng, seat, fig):
    """Rounds: the player reveals an Object card (or none); returns (card id, combat value)."""
    set_option(state, 0, ACT_PLAY, -1, NO_CARD)
    n = 1
    if seat >= 0:
        for slot in range(rules[CFG_HAND_MAX]):
            card = state[hand_slot(seat, slot)]
            if card >= 0:
                set_option(state, n, ACT_PLAY, slot, card_value(rules, card))
                n += 1
    if n == 1:
        return -1, NO_CARD
    i = choose(state, rules, knobs, rng, COMBAT_CARD, seat, n)
    slot = state[OPT_A + i]
    if slot < 0:
        return -1, NO_CARD
    return take_from_hand(state, seat, slot), state[OPT_B + i]


@rule
def spawn_dies(state, rules, trace, fig):
    record(state, trace, EV_SPAWN, state[F_OWNER + fig], state[F_POS + fig], -1, 0, 0)
    place_figure(state, rules, fig, OFF)


@allocating
def resolve_combat(state, rules, knobs, rng, trace, att, dfd, node):
    """Combat: ``att`` (the figure whose turn it is) steps onto ``dfd``'s tile ``node``.

    Three Rounds of simultaneous reveals; the loser of a round gives 1 coin to the winner (to
    the bank when the winner is a Spawn); a Spawn dies as soon as it loses a round; a
    plunderer with no coins dies and loses; tied cards return at the end; the most rounds won
    wins, the Defender on a tie.  End of Combat: the loser is thrown 3 tiles (eliminated in the
    jungle), the Egg passes to the winner (a Spawn flings it 1 tile), both draw up to 3.  A
    Spawn that loses on the Defender's tie rule has lost no round, so it lives and is thrown
    like a plunderer ("it will die as soon as it loses a Round"; "The defeated Player is
    thrown by the Winner").  Returns True when the attacker won."""
    n_players = rules[CFG_PLAYERS]
    sa, sd = controller(state, rules, att), controller(state, rules, dfd)
    a_spawn, d_spawn = att >= n_players, dfd >= n_players
    won_a, won_d = 0, 0
    aside = np.full(2 * rules[CFG_COMBAT_ROUNDS], -1, dtype=np.int64)
    aside_owner = np.full(2 * rules[CFG_COMBAT_ROUNDS], -1, dtype=np.int64)
    n_aside = 0
    loser = -1
    record(state, trace, EV_COMBAT, sa, att, dfd, node, 0)
    for r in range(rules[CFG_COMBAT_ROUNDS]):
        ca, va = reveal_card(state, rules, knobs, rng, sa, att)
        cd, vd = reveal_card(state, rules, knobs, rng, sd, dfd)
        res = round_result(rules, va, vd)
        record(state, trace, EV_COMBAT_ROUND, sa, va, vd, res, r)
        if res == 0:
            if ca >= 0:
                aside[n_aside], aside_owner[n_aside] = ca, sa
                n_aside += 1
            if cd >= 0:
                aside[n_aside], aside_owner[n_aside] = cd, sd
                n_aside += 1
            if va == NO_CARD and a_spawn != d_spawn:
                # End of Combat: a round without a card costs the plunderer 1 coin even against
                # a Spawn that played none either (two plunderers would pay each other)
                payer, payee = (dfd, att) if a_spawn else (att, dfd)
                paid = pay_round(state, rules, payer, payee)
                if state[P_COINS + payer] == 0 and paid >= 0:
                    loser = payer
                    break
            continue
        if ca >= 0:
            discard_card(state, rules, ca)
        if cd >= 0:
            discard_card(state, rules, cd)
        win_fig, lose_fig = (att, dfd) if res > 0 else (dfd, att)
        if res > 0:
            won_a += 1
        else:
            won_d += 1
        if lose_fig >= n_players:
            loser = lose_fig
            break
        paid = pay_round(state, rules, lose_fig, win_fig)
        if state[P_COINS + lose_fig] == 0 and paid >= 0:
            loser = lose_fig
            break
    for i in range(n_aside):
        if not add_to_hand(state, rules, aside_owner[i], aside[i]):
            discard_card(state, rules, aside[i])
    killed = loser >= 0  # a round killed the loser: a Spawn lost one, or a plunderer its coins
    if loser < 0:
        loser = att if won_d >= won_a else dfd
    winner = dfd if loser == att else att
    s_win, s_lose = controller(state, rules, winner), controller(state, rules, loser)
    if s_win >= 0:
        state[P_COMBATS_WON + s_win] += 1
    if s_lose >= 0:
        state[P_COMBATS_LOST + s_lose] += 1
    for s in (sa, sd):
        if s >= 0 and state[P_STATUS + s] != ELIMINATED:
            while state[P_HAND_N + s] < rules[CFG_COMBAT_HAND] and draw_object(
                state, rules, rng, s
            ):
                pass
    end_of_combat(state, rules, knobs, rng, trace, winner, loser, node, killed)
    return winner == att


@rule
def pay_round(state, rules, lose_fig, win_fig):
    """Rounds: the loser gives 1 coin to the winner; against a Spawn it is discarded to the
    bank.  Returns the coins paid (-1 if the loser had none)."""
    if state[P_COINS + lose_fig] == 0:
        return -1
    state[P_COINS + lose_fig] -= 1
    state[P_LOST_COMBAT + lose_fig] += 1
    if win_fig >= rules[CFG_PLAYERS]:
        state[G_BANK] += 1
    else:
        state[P_COINS + win_fig] += 1
        state[P_GAIN_COMBAT + win_fig] += 1
    return 1


@rule
def end_of_combat(state, rules, knobs, rng, trace, winner, loser, node, killed):
    """End of Combat: throw (or eliminate) the loser, place the attacker, move the Egg.  A
    Spawn that ``killed`` (it lost a round) is removed; one beaten on the Defender's tie rule
    is thrown."""
    n_players = rules[CFG_PLAYERS]
    carried = state[G_EGG_CARRIER] == loser
    if carried:
        state[G_EGG_CARRIER] = -1
    if loser >= n_players and killed:
        spawn_dies(state, rules, trace, loser)
    elif is_jungle(rules, node):
        # Final Moments: losing a combat in the jungle eliminates the plunderer.
        state[P_STATUS + loser] = ELIMINATED
        record(state, trace, EV_ELIMINATED, loser, node, 0, 0, 0)
        place_figure(state, rules, loser, OFF)
    else:
        throw_figure(state, rules, knobs, rng, trace, winner, loser, node)
    if (
        state[F_POS + winner] != node
        and state[F_POS + winner] != OFF
        and state[B_OCC + node] == NOBODY
    ):
        place_figure(state, rules, winner, node)
    if carried:
        if winner < n_players:
            give_egg(state, rules, trace, loser, winner, EGG_WON)
        else:
            fling_egg(state, rules, knobs, rng, trace, node)
    elif winner < n_players:
        pick_up_egg(state, rules, trace, winner)
    if loser < n_players and state[P_COINS + loser] == 0 and state[P_STATUS + loser] == ALIVE:
        plunderer_dies(state, rules, trace, loser)
    if loser == state[G_SEAT]:
        state[G_TURN_ENDED] = 1


@allocating
def throw_figure(state, rules, knobs, rng, trace, thrower, fig, node):
    """End of Combat: the loser is thrown 3 tiles (not necessarily straight), without
    activating them; one tile further while the landing tile is occupied, or (a thrown Spawn)
    holds the loose Egg (The Alien Egg: Spawns may not stand on its tile).  Rollers crossed on
    the way cost their damage (ASSUMED: along a shortest path to the landing tile; Spawns are
    immune)."""
    n_nodes = rules[CFG_NODES]
    dist = np.empty(n_nodes, dtype=np.int64)
    place_figure(state, rules, fig, OFF)
    bfs_local(state, rules, dist, node)
    want = rules[CFG_THROW]
    barred = state[G_EGG_POS] if state[F_KIND + fig] == SPAWN else NOBODY
    n = 0
    while n == 0 and want < n_nodes:
        for other in range(rules[CFG_CENTRE] + 1):
            free = state[B_OCC + other] == NOBODY and other != barred
            if dist[other] == want and free and n < MAX_OPTIONS:
                set_option(state, n, ACT_MOVE, fig, other)
                n += 1
        want += 1
    if n == 0:
        dest = node  # ASSUMED: nowhere to land, the loser stays where the combat was
    else:
        dest = state[
            OPT_B
            + choose(state, rules, knobs, rng, THROW_DEST, controller(state, rules, thrower), n)
        ]
    place_figure(state, rules, fig, dest)
    record(state, trace, EV_THROWN, controller(state, rules, fig), fig, node, dest, 0)
    roller_damage(state, rules, rng, trace, fig, path_crossings(state, rules, dist, dest))
    if state[G_EGG_POS] == dest:
        pick_up_egg(state, rules, trace, fig)


@rule
def path_crossings(state, rules, dist, dest):
    """Roller crossings along one shortest path (from ``dist``'s source) to ``dest``."""
    update_adjacency(state, rules)
    total = 0
    node = dest
    while dist[node] > 0:
        prev = -1
        for j in range(1, state[adj_row(rules, node) + 0] + 1):
            if dist[state[adj_row(rules, node) + j]] == dist[node] - 1:
                prev = state[adj_row(rules, node) + j]
                break
        if prev < 0:
            break
        total += step_crossings(state, rules, prev, node)
        node = prev
    return total
