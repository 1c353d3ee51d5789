"""The Ekonos `search` player: determinized flat Monte Carlo with step replay.

Why flat Monte Carlo and not a tree (UCT): Ekonos is stochastic (every turn's deal) and hides
information (the other seats' hands), so every playout starts from a fresh determinization;
with a few hundred playouts a tree would stay a level or two deep and its statistics would be
dominated by that noise.  Flat Monte Carlo over the ``top_k`` options of a good scripted
scorer, finished by a scripted ``rollout_policy``, is the standard strong baseline for such
games, cheap, and exactly reproducible.

How (the engine's nested rule functions stay as they are): at every step boundary
:func:`search_step` copies the state into a snapshot and plays the step as *probes* on a work
copy (decide.py explains the modes).  A probe that meets no search decision is the real
outcome.  One that meets a pending search decision ``j`` is thrown away; each candidate is
played out ``rollouts / candidates`` times (round-robin, at least once each): copy the
snapshot, replay the step's logged decisions, determinize at ``j`` from a seed drawn from the
real game's SEARCH stream, force the candidate, and play on with every seat on
``rollout_policy`` to the horizon.  Every round of the round-robin uses one seed for all
candidates (common random numbers: the same hands, deals and tie-breaks), so candidates are
compared pair by pair on the same futures, and the rollout policy's own choice (candidate 0)
is kept unless another beats it clearly (policies.search.clear_gain): a flat best mean over a
few noisy playouts mostly picked a move that was luckier, not better.  The choice is logged
and the step is probed again.  The real game draws only from its SEARCH stream.

Knobs ``[policies.search]``: ``rollouts`` per decision, ``rollout_policy``, ``horizon`` (0: to
the end of the game; h: to the end of the h-th turn after the current one, scored by the
provisional score cash + shares x current values) and ``top_k``.
"""

import numpy as np

from policies.ekonos import HORIZON, ROLLOUT_POLICY_KNOB, ROLLOUTS
from policies.search import (
    clear_gain,
    margin_to_best_other,
    outcome_value,
    rollout_seed,
    tally,
    win_share,
)
from simulator.core.kernel import allocating, rule
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.games.ekonos.board import put_row, score_parts
from simulator.games.ekonos.engine import advance, play_step
from simulator.games.ekonos.state import (
    CANDIDATES,
    CFG_PLAYERS,
    CFG_TURNS,
    CODES,
    DECISIONS,
    EV_SEARCH,
    EV_SEARCH_OPTION,
    FORCED,
    LOG,
    LOG_LEN,
    MODE,
    NOTES,
    PENDING,
    PENDING_CANDIDATES,
    PENDING_EVENT,
    PENDING_KIND,
    PENDING_OPTIONS,
    PENDING_SEAT,
    PROBE,
    REPLAY,
    ROLLOUT_POLICY,
    SEARCH_DECISIONS,
    SEAT_POLICY,
    TURN,
)

MARGIN_SCALE = 20.0  # M.U.: about one standard deviation of a final score at 4 players
SNAPSHOT, PROBE_COPY, ROLLOUT_COPY = range(3)  # rows of the work buffers
SUMS, COUNTS, SCORES, GAINS, SQUARES = range(5)  # rows of the values buffer
CLEAR = 1.0  # standard errors by which a candidate must beat the rollout policy's own choice
MILLION = 1_000_000


@rule
def scores_now(state, rules, out):
    """Scoring, provisionally at any point: as at the end, with the companies' current values
    and presidencies."""
    for p in range(rules[CFG_PLAYERS]):
        cash, holdings, presidencies = score_parts(state, rules, p)
        out[p] = cash + holdings + presidencies


@allocating
def search_step(state, rules, knobs, rng, trace, work, work_rng, values):
    """Play one step of a game with search seats (see the module docstring).

    work int64[3, state size] and work_rng uint64[3, N_STREAMS]: snapshot, probe and rollout
    copies; values float64[3, MAX_OPTIONS]: per-candidate sums and counts, and seat scores."""
    snap, snap_rng = work[SNAPSHOT], work_rng[SNAPSHOT]
    probe, probe_rng = work[PROBE_COPY], work_rng[PROBE_COPY]
    snap[:] = state
    snap_rng[:] = rng
    snap[MODE], snap[DECISIONS], snap[LOG_LEN], snap[PENDING] = PROBE, 0, 0, 0
    while True:
        probe[:] = snap
        probe_rng[:] = snap_rng
        play_step(probe, rules, knobs, probe_rng, trace)
        if probe[PENDING] == 0:
            break
        j = probe[LOG_LEN]
        snap[LOG : LOG + j] = probe[LOG : LOG + j]  # the other seats' decisions before j
        snap[NOTES : NOTES + j] = probe[NOTES : NOTES + j]
        best = weigh(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values)
        snap[LOG + j] = probe[CANDIDATES + best]
        snap[LOG_LEN] = j + 1
        snap[SEARCH_DECISIONS] += 1
    search = rng[SEARCH_STREAM]
    state[:] = probe
    rng[:] = probe_rng
    rng[SEARCH_STREAM] = search
    state[MODE] = PROBE


@allocating
def weigh(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values):
    """Play the rollouts of the pending decision of ``probe``; returns the best candidate's
    rank and writes the values weighed into the trace (when tracing)."""
    seat = probe[PENDING_SEAT]
    policy = probe[SEAT_POLICY + seat]
    m = probe[PENDING_CANDIDATES]
    total = max(np.int64(knobs[policy, ROLLOUTS]), m)
    horizon = np.int64(knobs[policy, HORIZON])
    last_turn = rules[CFG_TURNS] - 1
    if horizon > 0:
        last_turn = min(last_turn, probe[TURN] + horizon)
    roll, roll_rng = work[ROLLOUT_COPY], work_rng[ROLLOUT_COPY]
    sums, counts, scores = values[SUMS], values[COUNTS], values[SCORES]
    gains, squares = values[GAINS], values[SQUARES]
    sums[:m] = 0.0
    counts[:m] = 0.0
    gains[:m] = 0.0
    squares[:m] = 0.0
    no_trace = trace[:0]
    seed = np.uint64(0)
    own = 0.0
    for r in range(total):
        candidate = r % m
        if candidate == 0:  # common random numbers: every candidate meets the same futures
            seed = rollout_seed(rng)
        roll[:] = snap
        roll_rng[:] = snap_rng
        roll_rng[SEARCH_STREAM] = seed
        roll[MODE], roll[FORCED] = REPLAY, probe[CANDIDATES + candidate]
        roll[ROLLOUT_POLICY] = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
        advance(roll, rules, knobs, roll_rng, no_trace, last_turn)
        scores_now(roll, rules, scores)
        n_players = rules[CFG_PLAYERS]
        value = outcome_value(
            win_share(scores, n_players, seat),
            margin_to_best_other(scores, n_players, seat),
            MARGIN_SCALE,
        )
        own = tally(sums, counts, gains, squares, candidate, value, own)
    best = clear_gain(gains, squares, counts, m, CLEAR)
    if trace.shape[0] > 0:
        note_values(probe, snap, trace, sums, counts, total)
    return best


@rule
def note_values(probe, snap, trace, sums, counts, total):
    """Trace rows of a search decision, at the place the decision takes in the step; the next
    probe steps over them (decide.choose_in_search_step)."""
    seat, kind, m = probe[PENDING_SEAT], probe[PENDING_KIND], probe[PENDING_CANDIDATES]
    at, turn = probe[PENDING_EVENT], probe[TURN]
    put_row(trace, at, EV_SEARCH, turn, seat, kind, probe[PENDING_OPTIONS], m, total)
    for r in range(m):
        mean = np.int64(round(sums[r] / counts[r] * MILLION))
        put_row(
            trace,
            at + 1 + r,
            EV_SEARCH_OPTION,
            turn,
            seat,
            kind,
            probe[CODES + r],
            mean,
            np.int64(counts[r]),
        )
    snap[NOTES + probe[LOG_LEN]] = m + 1
