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
    ADJ,
    ALIVE,
    B_OCC,
    BEATS,
    BOARD,
    CARDS,
    CFG,
    CFG_CENTRE,
    CFG_COMBAT_HAND,
    CFG_COMBAT_ROUNDS,
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
    F_OWNER,
    F_POS,
    FIGS,
    G_BANK,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_SEAT,
    G_TURN_ENDED,
    GAME,
    HANDS,
    MAX_OPTIONS,
    NO_CARD,
    NOBODY,
    OFF,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    P_COINS,
    P_COMBATS_LOST,
    P_COMBATS_WON,
    P_GAIN_COMBAT,
    P_HAND_N,
    P_LOST_COMBAT,
    P_STATUS,
    PLAYERS,
    THROW_DEST,
)
from simulator.games.karmaggan.traps import roller_damage, step_crossings


@rule
def round_result(beats, a, b):
    """Comparing Combat Values: +1 when value a wins the round, -1 when b wins, 0 for a tie.
    A card beats no card (End of Combat: not playing costs a coin); two missing cards tie
    (each would pay the other one coin)."""
    if a == NO_CARD and b == NO_CARD:
        return 0
    if b == NO_CARD:
        return 1
    if a == NO_CARD:
        return -1
    if beats[a, b] == 1:
        return 1
    if beats[b, a] == 1:
        return -1
    return 0


@rule
def reveal_card(W, seat, fig):
    """Rounds: the player reveals an Object card (or none); returns (card id, combat value)."""
    hands, options, cards = W[HANDS], W[OPTIONS], W[CARDS]
    options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_PLAY, -1, NO_CARD
    n = 1
    if seat >= 0:
        for slot in range(hands.shape[1]):
            card = hands[seat, slot]
            if card >= 0:
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = (
                    ACT_PLAY,
                    slot,
                    cards[card, 1],
                )
                n += 1
    if n == 1:
        return -1, NO_CARD
    i = choose(COMBAT_CARD, seat, n, W)
    slot = options[i, OPT_A]
    if slot < 0:
        return -1, NO_CARD
    return take_from_hand(W, seat, slot), options[i, OPT_B]


@rule
def spawn_dies(W, fig):
    record(W, EV_SPAWN, W[FIGS][fig, F_OWNER], W[FIGS][fig, F_POS], -1, 0, 0)
    place_figure(W, fig, OFF)


@allocating
def resolve_combat(W, att, dfd, node):
    """Combat: ``att`` (the figure whose turn it is) steps onto ``dfd``'s tile ``node``.

    Three Rounds of simultaneous reveals; the loser of a round gives 1 coin to the winner (to
    the bank when the winner is a Spawn); a Spawn dies as soon as it loses a round; a
    plunderer with no coins dies and loses; tied cards return at the end; the most rounds won
    wins, the Defender on a tie.  End of Combat: the loser is thrown 3 tiles (eliminated in the
    jungle), the Egg passes to the winner (a Spawn flings it 1 tile), both draw up to 3.
    Returns True when the attacker won."""
    cfg, players, beats = W[CFG], W[PLAYERS], W[BEATS]
    n_players = cfg[CFG_PLAYERS]
    sa, sd = controller(W, att), controller(W, dfd)
    a_spawn, d_spawn = att >= n_players, dfd >= n_players
    won_a, won_d = 0, 0
    aside = np.full(2 * cfg[CFG_COMBAT_ROUNDS], -1, dtype=np.int64)
    aside_owner = np.full(2 * cfg[CFG_COMBAT_ROUNDS], -1, dtype=np.int64)
    n_aside = 0
    loser = -1
    record(W, EV_COMBAT, sa, att, dfd, node, 0)
    for r in range(cfg[CFG_COMBAT_ROUNDS]):
        ca, va = reveal_card(W, sa, att)
        cd, vd = reveal_card(W, sd, dfd)
        res = round_result(beats, va, vd)
        record(W, EV_COMBAT_ROUND, sa, va, vd, res, r)
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
                paid = pay_round(W, payer, payee)
                if players[payer, P_COINS] == 0 and paid >= 0:
                    loser = payer
                    break
            continue
        if ca >= 0:
            discard_card(W, ca)
        if cd >= 0:
            discard_card(W, cd)
        win_fig, lose_fig = (att, dfd) if res > 0 else (dfd, att)
        if res > 0:
            won_a += 1
        else:
            won_d += 1
        if lose_fig >= n_players:
            loser = lose_fig
            break
        paid = pay_round(W, lose_fig, win_fig)
        if players[lose_fig, P_COINS] == 0 and paid >= 0:
            loser = lose_fig
            break
    for i in range(n_aside):
        if not add_to_hand(W, aside_owner[i], aside[i]):
            discard_card(W, aside[i])
    if loser < 0:
        loser = att if won_d >= won_a else dfd
    winner = dfd if loser == att else att
    s_win, s_lose = controller(W, winner), controller(W, loser)
    if s_win >= 0:
        players[s_win, P_COMBATS_WON] += 1
    if s_lose >= 0:
        players[s_lose, P_COMBATS_LOST] += 1
    for s in (sa, sd):
        if s >= 0 and players[s, P_STATUS] != ELIMINATED:
            while players[s, P_HAND_N] < cfg[CFG_COMBAT_HAND] and draw_object(W, s):
                pass
    end_of_combat(W, winner, loser, node)
    return winner == att


@rule
def pay_round(W, lose_fig, win_fig):
    """Rounds: the loser gives 1 coin to the winner; against a Spawn it is discarded to the
    bank.  Returns the coins paid (-1 if the loser had none)."""
    players = W[PLAYERS]
    if players[lose_fig, P_COINS] == 0:
        return -1
    players[lose_fig, P_COINS] -= 1
    players[lose_fig, P_LOST_COMBAT] += 1
    if win_fig >= W[CFG][CFG_PLAYERS]:
        W[GAME][G_BANK] += 1
    else:
        players[win_fig, P_COINS] += 1
        players[win_fig, P_GAIN_COMBAT] += 1
    return 1


@rule
def end_of_combat(W, winner, loser, node):
    """End of Combat: throw (or eliminate) the loser, place the attacker, move the Egg."""
    game, figs, players = W[GAME], W[FIGS], W[PLAYERS]
    n_players = W[CFG][CFG_PLAYERS]
    carried = game[G_EGG_CARRIER] == loser
    if carried:
        game[G_EGG_CARRIER] = -1
    if loser >= n_players:
        spawn_dies(W, loser)
    elif is_jungle(W, node):
        # Final Moments: losing a combat in the jungle eliminates the plunderer.
        players[loser, P_STATUS] = ELIMINATED
        record(W, EV_ELIMINATED, loser, node, 0, 0, 0)
        place_figure(W, loser, OFF)
    else:
        throw_figure(W, winner, loser, node)
    if (
        figs[winner, F_POS] != node
        and figs[winner, F_POS] != OFF
        and W[BOARD][node, B_OCC] == NOBODY
    ):
        place_figure(W, winner, node)
    if carried:
        if winner < n_players:
            give_egg(W, loser, winner, EGG_WON)
        else:
            fling_egg(W, node)
    elif winner < n_players:
        pick_up_egg(W, winner)
    if loser < n_players and players[loser, P_COINS] == 0 and players[loser, P_STATUS] == ALIVE:
        plunderer_dies(W, loser)
    if loser == game[G_SEAT]:
        game[G_TURN_ENDED] = 1


@allocating
def throw_figure(W, thrower, fig, node):
    """End of Combat: the loser is thrown 3 tiles (not necessarily straight), without
    activating them; one tile further while the landing tile is occupied.  Rollers crossed on
    the way cost their damage (ASSUMED: along a shortest path to the landing tile)."""
    cfg, board, options = W[CFG], W[BOARD], W[OPTIONS]
    n_nodes = cfg[CFG_NODES]
    dist = np.empty(n_nodes, dtype=np.int64)
    place_figure(W, fig, OFF)
    bfs_local(W, dist, node)
    want = cfg[CFG_THROW]
    n = 0
    while n == 0 and want < n_nodes:
        for other in range(cfg[CFG_CENTRE] + 1):
            if dist[other] == want and board[other, B_OCC] == NOBODY and n < MAX_OPTIONS:
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, fig, other
                n += 1
        want += 1
    if n == 0:
        dest = node  # ASSUMED: nowhere to land, the loser stays where the combat was
    else:
        dest = options[choose(THROW_DEST, controller(W, thrower), n, W), OPT_B]
    place_figure(W, fig, dest)
    record(W, EV_THROWN, controller(W, fig), fig, node, dest, 0)
    roller_damage(W, fig, path_crossings(W, dist, dest))
    if W[GAME][G_EGG_POS] == dest:
        pick_up_egg(W, fig)


@rule
def path_crossings(W, dist, dest):
    """Roller crossings along one shortest path (from ``dist``'s source) to ``dest``."""
    update_adjacency(W)
    adj = W[ADJ]
    total = 0
    node = dest
    while dist[node] > 0:
        prev = -1
        for j in range(1, adj[node, 0] + 1):
            if dist[adj[node, j]] == dist[node] - 1:
                prev = adj[node, j]
                break
        if prev < 0:
            break
        total += step_crossings(W, prev, node)
        node = prev
    return total
