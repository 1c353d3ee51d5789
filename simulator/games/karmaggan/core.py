"""Karmaggän engine core: a new game, the trace, figures on the board, coins and cards.

Rulebook: shared/rules/karmaggan.md (Components, Objects: drawing and the hand limit).  The
state layout is described in :mod:`engine`.
"""

from simulator.core import trace as traces
from simulator.core.kernel import allocating, rule
from simulator.core.rng import SETUP, rng_new, shuffle
from simulator.games.karmaggan import state as S


@allocating
def new_game(state, rules, rng, seed, seat_policies):
    """A fresh game, not yet set up: ``state`` int64[rules[CFG_STATE_SIZE]] cleared (figures
    off the board, empty hands and decks), ``rng`` uint64[N_STREAMS] seeded from ``seed``,
    ``seat_policies`` int8[n_players] each seat's policy."""
    state[:] = 0
    state[S.F_POS : S.F_POS + S.N_FIG * S.MAX_FIGS] = S.OFF
    state[S.HANDS : S.HANDS + S.MAX_PLAYERS * S.MAX_HAND] = -1
    decks = S.deck(rules, S.D_TEMPLE)
    state[decks : decks + 3 * rules[S.CFG_DECK_LEN]] = -1
    state[S.G_DCACHE_WRITTEN] = S.ALL_WRITTEN
    rng[:] = rng_new(seed)
    for seat in range(rules[S.CFG_PLAYERS]):
        state[S.SEAT_POLICY + seat] = seat_policies[seat]


@rule
def record(state, trace, event, seat, a, b, c, d):
    """Append one trace row of this round when tracing (simulator.core.trace)."""
    traces.record(state, S.G_NEV, trace, event, state[S.G_ROUND], seat, a, b, c, d)


@rule
def egg_node(state):
    carrier = state[S.G_EGG_CARRIER]
    return state[S.F_POS + carrier] if carrier >= 0 else state[S.G_EGG_POS]


@rule
def egg_moved(state, rules):
    """The Rollers: they are placed when the Egg leaves the Central Tile for the first time."""
    if state[S.G_EGG_LEFT_ROUND] < 0 and egg_node(state) != rules[S.CFG_CENTRE]:
        state[S.G_EGG_LEFT_ROUND] = state[S.G_ROUND]
        state[S.G_ROLLERS_ON] = 1


@rule
def place_figure(state, rules, fig, node):
    """Move a figure to ``node`` (or OFF), keeping occupancy and the carried Egg in step.  A
    figure crossing an ally's tile (Movement) leaves that tile's occupant in place."""
    old = state[S.F_POS + fig]
    if old >= 0 and state[S.B_OCC + old] == fig:
        state[S.B_OCC + old] = S.NOBODY
    state[S.F_POS + fig] = node
    if node >= 0 and state[S.B_OCC + node] == S.NOBODY:
        state[S.B_OCC + node] = fig
    if state[S.G_EGG_CARRIER] == fig:
        egg_moved(state, rules)


@rule
def controller(state, rules, fig):
    """Seat acting for a figure: a plunderer's own seat, a spawn's seat whose turn it is when
    its swarm acts, else (Controlling the Swarm: the swarm's players decide who defends) the
    dead seat of that swarm with the most cards (ASSUMED)."""
    if state[S.F_KIND + fig] == S.PLUNDERER:
        return fig
    swarm = state[S.F_OWNER + fig]
    seat = state[S.G_SEAT]
    if state[S.P_STATUS + seat] == S.DEAD and state[S.P_SWARM + seat] == swarm:
        return seat
    best, best_cards = -1, -1
    for s in range(rules[S.CFG_PLAYERS]):
        if (
            state[S.P_STATUS + s] == S.DEAD
            and state[S.P_SWARM + s] == swarm
            and state[S.P_HAND_N + s] > best_cards
        ):
            best, best_cards = s, state[S.P_HAND_N + s]
    return best


@rule
def side_of(state, fig, team_mode):
    """The side a figure fights for: a plunderer's team (its seat in Free-for-All), a swarm's
    team in Team mode, and -1 - swarm for the Free-for-All swarm (everyone's enemy)."""
    if state[S.F_KIND + fig] == S.PLUNDERER:
        return state[S.P_TEAM + fig]
    if team_mode == 1:
        return state[S.F_OWNER + fig]
    return -1 - state[S.F_OWNER + fig]


@rule
def friends(state, fig_a, fig_b, team_mode):
    """Allies never fight: teammates and their swarm (Team mode), spawns of one swarm."""
    ta, tb = side_of(state, fig_a, team_mode), side_of(state, fig_b, team_mode)
    return ta == tb


@rule
def gain_coins(state, seat, amount, column):
    """Take up to ``amount`` coins from the bank (Components: 60 Blood Coins)."""
    amount = min(amount, state[S.G_BANK])
    state[S.G_BANK] -= amount
    state[S.P_COINS + seat] += amount
    state[column + seat] += amount
    return amount


@rule
def reshuffle_objects(state, rules, rng):
    n = state[S.G_ODISC_N]
    for i in range(n):
        state[S.deck(rules, S.D_OBJECTS) + state[S.G_ODECK_N] + i] = state[
            S.deck(rules, S.D_DISCARD) + i
        ]
        state[S.deck(rules, S.D_DISCARD) + i] = -1
    state[S.G_ODECK_N] += n
    state[S.G_ODISC_N] = 0
    objects = S.deck(rules, S.D_OBJECTS)
    shuffle(rng, SETUP, state[objects : objects + state[S.G_ODECK_N]])


@rule
def add_to_hand(state, rules, seat, card):
    for slot in range(rules[S.CFG_HAND_MAX]):
        if state[S.hand_slot(seat, slot)] < 0:
            state[S.hand_slot(seat, slot)] = card
            state[S.P_HAND_N + seat] += 1
            return True
    return False


@rule
def draw_object(state, rules, rng, seat):
    """Objects: draw the top Object card unless the hand holds the maximum (8).  ASSUMED: an
    empty Object deck is rebuilt from the shuffled discards."""
    if state[S.P_HAND_N + seat] >= rules[S.CFG_HAND_MAX]:
        return False
    if state[S.G_ODECK_N] == 0:
        reshuffle_objects(state, rules, rng)
        if state[S.G_ODECK_N] == 0:
            return False
    state[S.G_ODECK_N] -= 1
    card = state[S.deck(rules, S.D_OBJECTS) + state[S.G_ODECK_N]]
    state[S.deck(rules, S.D_OBJECTS) + state[S.G_ODECK_N]] = -1
    add_to_hand(state, rules, seat, card)
    return True


@rule
def take_from_hand(state, seat, slot):
    card = state[S.hand_slot(seat, slot)]
    state[S.hand_slot(seat, slot)] = -1
    state[S.P_HAND_N + seat] -= 1
    return card


@rule
def discard_card(state, rules, card):
    state[S.deck(rules, S.D_DISCARD) + state[S.G_ODISC_N]] = card
    state[S.G_ODISC_N] += 1


@rule
def discard_hand(state, rules, seat):
    for slot in range(rules[S.CFG_HAND_MAX]):
        if state[S.hand_slot(seat, slot)] >= 0:
            discard_card(state, rules, take_from_hand(state, seat, slot))
