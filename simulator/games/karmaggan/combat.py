"""Karmaggän: Combat — rounds, the comparison table, the end of combat.

Rulebook: shared/rules/karmaggan.md, section "Combat".
"""

import numpy as np

from simulator.core.kernel import allocating, rule
from simulator.games.karmaggan import board, core, death, decide, egg, traps
from simulator.games.karmaggan import state as S


@rule
def round_result(rules, a, b):
    """Comparing Combat Values: +1 when value a wins the round, -1 when b wins, 0 for a tie.
    A card beats no card (End of Combat: not playing costs a coin); two missing cards tie
    (each would pay the other one coin)."""
    if a == S.NO_CARD and b == S.NO_CARD:
        return 0
    if b == S.NO_CARD:
        return 1
    if a == S.NO_CARD:
        return -1
    if S.beats(rules, a, b) == 1:
        return 1
    if S.beats(rules, b, a) == 1:
        return -1
    return 0


@rule
def reveal_card(state, rules, knobs, rng, seat, fig):
    """Rounds: the player reveals an Object card (or none); returns (card id, combat value)."""
    S.set_option(state, 0, S.ACT_PLAY, -1, S.NO_CARD)
    n = 1
    if seat >= 0:
        for slot in range(rules[S.CFG_HAND_MAX]):
            card = state[S.hand_slot(seat, slot)]
            if card >= 0:
                S.set_option(state, n, S.ACT_PLAY, slot, S.card_value(rules, card))
                n += 1
    if n == 1:
        return -1, S.NO_CARD
    i = decide.choose(state, rules, knobs, rng, S.COMBAT_CARD, seat, n)
    slot = state[S.OPT_A + i]
    if slot < 0:
        return -1, S.NO_CARD
    return core.take_from_hand(state, seat, slot), state[S.OPT_B + i]


@rule
def spawn_dies(state, rules, trace, fig):
    core.record(state, trace, S.EV_SPAWN, state[S.F_OWNER + fig], state[S.F_POS + fig], -1, 0, 0)
    core.place_figure(state, rules, fig, S.OFF)


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
    n_players = rules[S.CFG_PLAYERS]
    sa, sd = core.controller(state, rules, att), core.controller(state, rules, dfd)
    a_spawn, d_spawn = att >= n_players, dfd >= n_players
    won_a, won_d = 0, 0
    aside = np.full(2 * rules[S.CFG_COMBAT_ROUNDS], -1, dtype=np.int64)
    aside_owner = np.full(2 * rules[S.CFG_COMBAT_ROUNDS], -1, dtype=np.int64)
    n_aside = 0
    loser = -1
    core.record(state, trace, S.EV_COMBAT, sa, att, dfd, node, 0)
    for r in range(rules[S.CFG_COMBAT_ROUNDS]):
        ca, va = reveal_card(state, rules, knobs, rng, sa, att)
        cd, vd = reveal_card(state, rules, knobs, rng, sd, dfd)
        res = round_result(rules, va, vd)
        core.record(state, trace, S.EV_COMBAT_ROUND, sa, va, vd, res, r)
        if res == 0:
            if ca >= 0:
                aside[n_aside], aside_owner[n_aside] = ca, sa
                n_aside += 1
            if cd >= 0:
                aside[n_aside], aside_owner[n_aside] = cd, sd
                n_aside += 1
            if va == S.NO_CARD and a_spawn != d_spawn:
                # End of Combat: a round without a card costs the plunderer 1 coin even against
                # a Spawn that played none either (two plunderers would pay each other)
                payer, payee = (dfd, att) if a_spawn else (att, dfd)
                paid = pay_round(state, rules, payer, payee)
                if state[S.P_COINS + payer] == 0 and paid >= 0:
                    loser = payer
                    break
            continue
        if ca >= 0:
            core.discard_card(state, rules, ca)
        if cd >= 0:
            core.discard_card(state, rules, cd)
        win_fig, lose_fig = (att, dfd) if res > 0 else (dfd, att)
        if res > 0:
            won_a += 1
        else:
            won_d += 1
        if lose_fig >= n_players:
            loser = lose_fig
            break
        paid = pay_round(state, rules, lose_fig, win_fig)
        if state[S.P_COINS + lose_fig] == 0 and paid >= 0:
            loser = lose_fig
            break
    for i in range(n_aside):
        if not core.add_to_hand(state, rules, aside_owner[i], aside[i]):
            core.discard_card(state, rules, aside[i])
    killed = loser >= 0  # a round killed the loser: a Spawn lost one, or a plunderer its coins
    if loser < 0:
        loser = att if won_d >= won_a else dfd
    winner = dfd if loser == att else att
    s_win, s_lose = core.controller(state, rules, winner), core.controller(state, rules, loser)
    if s_win >= 0:
        state[S.P_COMBATS_WON + s_win] += 1
    if s_lose >= 0:
        state[S.P_COMBATS_LOST + s_lose] += 1
    for s in (sa, sd):
        if s >= 0 and state[S.P_STATUS + s] != S.ELIMINATED:
            while state[S.P_HAND_N + s] < rules[S.CFG_COMBAT_HAND] and core.draw_object(
                state, rules, rng, s
            ):
                pass
    end_of_combat(state, rules, knobs, rng, trace, winner, loser, node, killed)
    return winner == att


@rule
def pay_round(state, rules, lose_fig, win_fig):
    """Rounds: the loser gives 1 coin to the winner; against a Spawn it is discarded to the
    bank.  Returns the coins paid (-1 if the loser had none)."""
    if state[S.P_COINS + lose_fig] == 0:
        return -1
    state[S.P_COINS + lose_fig] -= 1
    state[S.P_LOST_COMBAT + lose_fig] += 1
    if win_fig >= rules[S.CFG_PLAYERS]:
        state[S.G_BANK] += 1
    else:
        state[S.P_COINS + win_fig] += 1
        state[S.P_GAIN_COMBAT + win_fig] += 1
    return 1


@rule
def end_of_combat(state, rules, knobs, rng, trace, winner, loser, node, killed):
    """End of Combat: throw (or eliminate) the loser, place the attacker, move the Egg.  A
    Spawn that ``killed`` (it lost a round) is removed; one beaten on the Defender's tie rule
    is thrown."""
    n_players = rules[S.CFG_PLAYERS]
    carried = state[S.G_EGG_CARRIER] == loser
    if carried:
        state[S.G_EGG_CARRIER] = -1
    if loser >= n_players and killed:
        spawn_dies(state, rules, trace, loser)
    elif board.is_jungle(rules, node):
        # Final Moments: losing a combat in the jungle eliminates the plunderer.
        state[S.P_STATUS + loser] = S.ELIMINATED
        core.record(state, trace, S.EV_ELIMINATED, loser, node, 0, 0, 0)
        core.place_figure(state, rules, loser, S.OFF)
    else:
        throw_figure(state, rules, knobs, rng, trace, winner, loser, node)
    if (
        state[S.F_POS + winner] != node
        and state[S.F_POS + winner] != S.OFF
        and state[S.B_OCC + node] == S.NOBODY
    ):
        core.place_figure(state, rules, winner, node)
    if carried:
        if winner < n_players:
            egg.give_egg(state, rules, trace, loser, winner, S.EGG_WON)
        else:
            egg.fling_egg(state, rules, knobs, rng, trace, node)
    elif winner < n_players:
        egg.pick_up_egg(state, rules, trace, winner)
    if loser < n_players and state[S.P_COINS + loser] == 0 and state[S.P_STATUS + loser] == S.ALIVE:
        death.plunderer_dies(state, rules, trace, loser)
    if loser == state[S.G_SEAT]:
        state[S.G_TURN_ENDED] = 1


@allocating
def throw_figure(state, rules, knobs, rng, trace, thrower, fig, node):
    """End of Combat: the loser is thrown 3 tiles (not necessarily straight), without
    activating them; one tile further while the landing tile is occupied, or (a thrown Spawn)
    holds the loose Egg (The Alien Egg: Spawns may not stand on its tile).  Rollers crossed on
    the way cost their damage (ASSUMED: along a shortest path to the landing tile; Spawns are
    immune)."""
    n_nodes = rules[S.CFG_NODES]
    dist = np.empty(n_nodes, dtype=np.int64)
    core.place_figure(state, rules, fig, S.OFF)
    egg.bfs_local(state, rules, dist, node)
    want = rules[S.CFG_THROW]
    barred = state[S.G_EGG_POS] if state[S.F_KIND + fig] == S.SPAWN else S.NOBODY
    n = 0
    while n == 0 and want < n_nodes:
        for other in range(rules[S.CFG_CENTRE] + 1):
            free = state[S.B_OCC + other] == S.NOBODY and other != barred
            if dist[other] == want and free and n < S.MAX_OPTIONS:
                S.set_option(state, n, S.ACT_MOVE, fig, other)
                n += 1
        want += 1
    if n == 0:
        dest = node  # ASSUMED: nowhere to land, the loser stays where the combat was
    else:
        dest = state[
            S.OPT_B
            + decide.choose(
                state, rules, knobs, rng, S.THROW_DEST, core.controller(state, rules, thrower), n
            )
        ]
    core.place_figure(state, rules, fig, dest)
    core.record(state, trace, S.EV_THROWN, core.controller(state, rules, fig), fig, node, dest, 0)
    traps.roller_damage(state, rules, rng, trace, fig, path_crossings(state, rules, dist, dest))
    if state[S.G_EGG_POS] == dest:
        egg.pick_up_egg(state, rules, trace, fig)


@rule
def path_crossings(state, rules, dist, dest):
    """Roller crossings along one shortest path (from ``dist``'s source) to ``dest``."""
    board.update_adjacency(state, rules)
    total = 0
    node = dest
    while dist[node] > 0:
        prev = -1
        for j in range(1, state[S.adj_row(rules, node) + 0] + 1):
            if dist[state[S.adj_row(rules, node) + j]] == dist[node] - 1:
                prev = state[S.adj_row(rules, node) + j]
                break
        if prev < 0:
            break
        total += traps.step_crossings(state, rules, prev, node)
        node = prev
    return total
