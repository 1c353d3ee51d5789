"""Karmaggän position features: what the `learned` player's value reads of a position, and
the race for the Egg the search values a cut playout by.

The `learned` player (turns.py, :func:`~simulator.games.karmaggan.turns.learned_step`)
values the position after each of its plunderer's step options by these features (their
weighted sum, or a network of tanh units over them: policies.learned.position_value), seen
from the deciding seat: only what that seat can see (positions, coins, hand
sizes, who carries the Egg, open hatches; its own hand's size), never another hand, a deck
order or a face-down Blood value.  The weights are data (``[policies.learned] weights``, fitted
by :mod:`simulator.experiments.learn`), appended to the policy's row of the knobs table
(:func:`simulator.core.game.policy_knobs`).
"""

import numpy as np

from policies import learned
from simulator.core.kernel import rule
from simulator.games.karmaggan import board
from simulator.games.karmaggan import state as S

RACE_SCALE = 3.0  # steps: a side this many steps nearer to winning than the best other, e to 1
RACE_CAP = 40.0  # steps counted at most (a side with no plunderer alive, or no way through)
STEPS_UNIT = 10.0  # steps and coins are counted in tens, so that every feature is about 0..4
PRIOR_CAP = 10.0  # tiles: a rollout policy's score is clipped to ±this (it marks the
# impossible with -1000 and the exit with the Egg with +100)

# The features, in the order of the weights
FEATURES = (
    "won",  # the seat's side has won (the step took the Egg out of the Temple)
    "race",  # the side's chance in the race for the Egg (race_share)
    "side_steps",  # the side's nearest living plunderer's steps from winning, in tens
    "rival_steps",  # the best other side's, in tens
    "carries",  # the seat carries the Egg
    "team_carries",  # a teammate carries it
    "rival_carries",  # a plunderer of another side carries it
    "own_steps",  # the seat's own steps from winning, in tens (RACE_CAP when dead)
    "coins",  # the seat's blood coins, in tens
    "coin_margin",  # its side's coins minus the best other side's, in tens
    "hand",  # the seat's Object cards, as a share of the hand's limit
    "alive",  # the seat is alive
    "friends",  # its living teammates
    "rivals",  # the living plunderers of other sides
    "prior",  # the rollout policy's score of the step, in tens of tiles (clipped)
)
N_FEATURES = len(FEATURES)
(
    WON,
    RACE,
    SIDE_STEPS,
    RIVAL_STEPS,
    CARRIES,
    TEAM_CARRIES,
    RIVAL_CARRIES,
    OWN_STEPS,
    COINS,
    COIN_MARGIN,
    HAND,
    ALIVE_NOW,
    FRIENDS,
    RIVALS,
    PRIOR,
) = range(N_FEATURES)
SCRATCH = N_FEATURES + S.MAX_PLAYERS  # a features row's width: the features, then per-side room
SAMPLE_WIDTH = learned.SAMPLE_HEAD + N_FEATURES  # a samples row (policies/learned.py)
SAMPLE_COLUMNS = learned.sample_columns(FEATURES)


@rule
def side_won(state, rules, seat):
    """Whether ``seat``'s side has won: its team (Team mode), itself (Free-for-All)."""
    winner = state[S.G_WINNER]
    team_mode = rules[S.CFG_TEAM_MODE] == 1
    return winner >= 0 and (
        winner == seat or (team_mode and state[S.G_WIN_TEAM] == state[S.P_TEAM + seat])
    )


@rule
def steps_to_win(state, rules, seat, d_exit, d_egg, egg):
    """``seat``'s steps from winning: the carrier's to an exit, anyone else's to the Egg (or
    its carrier) and then from there to an exit; RACE_CAP at most, and for the dead."""
    if state[S.P_STATUS + seat] != S.ALIVE:
        return RACE_CAP
    pos = state[S.F_POS + seat]
    far = d_exit[pos] if seat == state[S.G_EGG_CARRIER] else d_egg[pos] + d_exit[egg]
    return min(float(far), RACE_CAP)


@rule
def race_maps(state, rules):
    """The distance maps the race reads (:func:`race_steps`), from the state's cache or
    computed into it: to the exits (to the hatches' cells while every hatch is closed) and to
    the Egg or its carrier; and the Egg's node."""
    carrier = state[S.G_EGG_CARRIER]
    egg = state[S.G_EGG_POS] if carrier < 0 else state[S.F_POS + carrier]
    target = board.EXITS if state[S.G_OPEN_HATCHES] > 0 else board.HATCH_CELLS
    d_exit = board.distance_map(state, rules, target)
    return d_exit, board.distance_map(state, rules, egg), egg


@rule
def race_steps(state, rules, n_sides, steps):
    """Each side's nearest living plunderer's steps from winning (:func:`steps_to_win`) into
    ``steps[:n_sides]``.  Steps to an exit count to the hatches' cells while every hatch is
    closed (The Jungle: the carrier waits for one to open).  Returns the distance maps to the
    exits and to the Egg, and the Egg's node."""
    d_exit, d_egg, egg = race_maps(state, rules)
    steps[:n_sides] = RACE_CAP
    for s in range(rules[S.CFG_PLAYERS]):
        k = state[S.P_TEAM + s]
        steps[k] = min(steps[k], steps_to_win(state, rules, s, d_exit, d_egg, egg))
    return d_exit, d_egg, egg


@rule
def steps_ahead(steps, n_sides, side):
    """How many steps ``side`` is behind the best other side (negative: ahead)."""
    ahead = -np.inf
    for k in range(n_sides):
        if k != side:
            ahead = max(ahead, steps[side] - steps[k])
    return ahead


@rule
def race_share(state, rules, side, n_sides, steps):
    """The chance of ``side`` in the race for the Egg: a logistic in the steps its nearest
    living plunderer is ahead of the best other side's (:func:`race_steps`), RACE_SCALE steps
    for odds of e to 1."""
    race_steps(state, rules, n_sides, steps)
    return 1.0 / (1.0 + np.exp(steps_ahead(steps, n_sides, side) / RACE_SCALE))


@rule
def features(state, rules, seat, prior, row):
    """The features of the position in ``state`` seen from ``seat`` (FEATURES) into
    ``row[:N_FEATURES]`` (float64[SCRATCH]: the rest is room for each side's steps);
    ``prior`` is the rollout policy's score of the step that led here."""
    n_players = rules[S.CFG_PLAYERS]
    team_mode = rules[S.CFG_TEAM_MODE] == 1
    n_sides = 2 if team_mode else n_players
    side = state[S.P_TEAM + seat]
    steps = row[N_FEATURES:]
    d_exit, d_egg, egg = race_steps(state, rules, n_sides, steps)
    row[:N_FEATURES] = 0.0
    row[WON] = side_won(state, rules, seat)
    ahead = steps_ahead(steps, n_sides, side)
    row[RACE] = 1.0 / (1.0 + np.exp(ahead / RACE_SCALE))
    row[SIDE_STEPS] = steps[side] / STEPS_UNIT
    row[RIVAL_STEPS] = (steps[side] - ahead) / STEPS_UNIT
    carrier = state[S.G_EGG_CARRIER]
    if carrier >= 0:
        mine = state[S.P_TEAM + carrier] == side
        row[CARRIES] = carrier == seat
        row[TEAM_CARRIES] = mine and carrier != seat
        row[RIVAL_CARRIES] = not mine
    row[OWN_STEPS] = steps_to_win(state, rules, seat, d_exit, d_egg, egg) / STEPS_UNIT
    row[COINS] = state[S.P_COINS + seat] / STEPS_UNIT
    best_other = -np.inf
    for k in range(n_sides):
        steps[k] = 0.0  # each side's coins now
    for s in range(n_players):
        steps[state[S.P_TEAM + s]] += state[S.P_COINS + s]
        if state[S.P_STATUS + s] == S.ALIVE and s != seat:
            if state[S.P_TEAM + s] == side:
                row[FRIENDS] += 1.0
            else:
                row[RIVALS] += 1.0
    for k in range(n_sides):
        if k != side:
            best_other = max(best_other, steps[k])
    row[COIN_MARGIN] = (steps[side] - best_other) / STEPS_UNIT
    row[HAND] = state[S.P_HAND_N + seat] / max(rules[S.CFG_HAND_MAX], 1)
    row[ALIVE_NOW] = state[S.P_STATUS + seat] == S.ALIVE
    row[PRIOR] = min(PRIOR_CAP, max(-PRIOR_CAP, prior)) / STEPS_UNIT
