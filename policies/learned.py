"""The game-independent parts of the `learned` player: its value of a position, and the samples
its fit reads (simulator.experiments.learn).

A game's learned player values the position each option leaves by its features (seen from the
deciding seat: only what that seat can see) and its weights, which are data: ``[policies.learned]
weights``, stored after the last knob of the policy's row of the knobs table
(:func:`simulator.core.game.policy_knobs`).  The value is the features' weighted sum (one weight
per feature), or for a game whose value model is a network (``Game.learned_model``) a layer of
tanh units over the features (:func:`simulator.core.game.network_length`).

Samples: row HEADER holds the rows written (itself included) and the decisions; then one row
per option of each decision the search weighed: the game (its index in the chunk), the seat,
the decision's number, the option, whether it is the rollout policy's own pick, the search's
mean value of it (NaN: not a candidate), whether the seat's side won the game, then the
position's features.
"""

import numpy as np

from simulator.core.kernel import rule

HEADER = 0
ROWS, DECISIONS = range(2)
S_GAME, S_SEAT, S_DECISION, S_OPTION, S_OWN, S_VALUE, S_WON = range(7)
SAMPLE_HEAD = 7
SAMPLE_COLUMNS = ("game", "seat", "decision", "option", "own", "value", "side_won")


def sample_columns(features: tuple[str, ...]) -> tuple[str, ...]:
    """The names of a samples row's columns, the game's features last."""
    return (*SAMPLE_COLUMNS, *features)


def sample_rows(play, n_games: int, columns: tuple[str, ...], rows: int = 200_000):
    """The sample rows ``play(samples)`` writes while it plays ``n_games`` games (it returns
    the rows filled, row HEADER included), and their column names: at most ``rows``; a chunk
    that fills them is refused, never cut."""
    samples = np.zeros((rows, len(columns)))
    filled = play(samples)
    if filled >= rows:
        raise ValueError(f"{n_games} games wrote more than {rows} sample rows: play fewer a chunk")
    return samples[1:filled], columns


@rule
def position_value(row, knobs_row, first, count, n_features):
    """The learned value of the features in ``row`` by the ``count`` weights in
    ``knobs_row[first:]``: ``n_features`` of them weigh the features (a linear value), else they
    are a network of one layer of tanh hidden units (simulator.core.game.network_length), each
    unit's sum accumulated on its own (no buffer: a kernel allocates nothing)."""
    value = 0.0
    if count == n_features:
        for f in range(n_features):
            value += knobs_row[first + f] * row[f]
        return value
    hidden = np.int64(knobs_row[first])
    b1 = first + 1 + n_features * hidden
    w2 = b1 + hidden
    value = knobs_row[w2 + hidden]
    for h in range(hidden):
        at = first + 1 + h * n_features  # the unit's weights of the features, in a row
        unit = knobs_row[b1 + h] + unit_sum(row, knobs_row, at, n_features)
        value += knobs_row[w2 + h] * tanh(unit)
    return value


@rule
def unit_sum(row, knobs_row, at, n_features):
    """The features in ``row`` weighted by ``knobs_row[at:at + n_features]``, summed in four
    interleaved partial sums: one chain of additions waits on each addition before the next,
    four chains in flight take about half the time of a network's value (the same order on
    every machine, unlike a vectorising compiler's)."""
    s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0
    f = 0
    while f + 4 <= n_features:
        s0 += knobs_row[at + f] * row[f]
        s1 += knobs_row[at + f + 1] * row[f + 1]
        s2 += knobs_row[at + f + 2] * row[f + 2]
        s3 += knobs_row[at + f + 3] * row[f + 3]
        f += 4
    while f < n_features:
        s0 += knobs_row[at + f] * row[f]
        f += 1
    return (s0 + s1) + (s2 + s3)


@rule
def tanh(x):
    """tanh(x) by one exponential, (1 - e^-2|x|) / (1 + e^-2|x|) with x's sign: the math
    library's tanh took twice the time."""
    t = np.exp(-2.0 * abs(x))
    magnitude = (1.0 - t) / (1.0 + t)
    return magnitude if x >= 0 else -magnitude


@rule
def note_sample(samples, seat, option, own, value, row, n_features):
    """One option's row of a decision the search weighed (the columns above; the game and
    whether its side won are the chunk's to fill: :func:`note_outcomes`); a full ``samples``
    drops it."""
    at = np.int64(samples[HEADER, ROWS])
    if at >= samples.shape[0]:
        return
    out = samples[at]
    out[S_GAME], out[S_WON] = -1.0, 0.0
    out[S_SEAT], out[S_DECISION], out[S_OPTION] = seat, samples[HEADER, DECISIONS], option
    out[S_OWN], out[S_VALUE] = own, value
    for f in range(n_features):
        out[SAMPLE_HEAD + f] = row[f]
    samples[HEADER, ROWS] = at + 1


@rule
def note_outcomes(samples, first, game, won):
    """The game's index and whether each row's seat's side won (``won[seat]``), into the rows
    it wrote from ``first`` on."""
    for at in range(first, np.int64(samples[HEADER, ROWS])):
        samples[at, S_GAME] = game
        samples[at, S_WON] = won[np.int64(samples[at, S_SEAT])]
