"""The Karnaxis `search` player: determinized flat Monte Carlo with step replay.

Why flat Monte Carlo and not a tree (UCT): Karnaxis is stochastic (stock dice, events, card
draws) and hides information (the order of the event and Karnaxis decks, the cards other
players have saved), so every playout starts from a fresh determinization; with a few hundred
playouts a tree would stay a level or two deep and its statistics would be dominated by that
noise.  Flat Monte Carlo over the ``top_k`` options of a good scripted scorer, finished by a
scripted ``rollout_policy``, is the standard strong baseline for such games, cheap, and
exactly reproducible.

How (the engine's nested rule functions stay as they are): at every step boundary
:func:`search_step` copies the state into a snapshot and plays the step as *probes* on a work
copy (decide.py explains the modes).  A probe that meets no search decision is the real
outcome.  One that meets a pending search decision ``j`` is thrown away; each candidate is
played out ``rollouts / candidates`` times (round-robin, at least once each): copy the
snapshot, replay the step's logged decisions, determinize at ``j`` from a seed drawn from the
real game's SEARCH stream, force the candidate, and play on with every seat on
``rollout_policy`` to the horizon.  The best mean outcome (ties: the better scripted score) is
logged and the step is probed again.  The real game draws only from its SEARCH stream.

Knobs ``[policies.search]``: ``rollouts`` per decision, ``rollout_policy``, ``top_k`` and
``horizon``: 0 plays each rollout to the end of the game; h plays it to the end of the h-th
year after the decision's year (h = 1: the rest of this year and all of the next).  The outcome
for the deciding seat is win first, then margin (policies.search.outcome_value) on the
*provisional final cash* of every seat at the horizon: the cash each would finish with if the
game ended there — cash plus the retirement payout, less $100,000 per delinquent notice and the
outstanding loans plus their interest (the Banker's interest free, and paid to the Banker) —
exactly Game End's count, so at the end of the game it is the final score.
"""

import numpy as np

from policies.karnaxis import HORIZON, ROLLOUT_POLICY_KNOB, ROLLOUTS
from policies.search import best_mean, margin_to_best_other, outcome_value, rollout_seed, win_share
from simulator.core.kernel import allocating, rule
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.games.karnaxis.engine import advance, play_step
from simulator.games.karnaxis.money import job_holder
from simulator.games.karnaxis.state import (
    AT_NEW_YEAR,
    CANDIDATES,
    CASH,
    CFG_JOB_BANKER,
    CFG_NOTICE_PENALTY,
    CFG_PLAYERS,
    CFG_YEARS,
    DECISIONS,
    FORCED,
    LOANS,
    LOG,
    LOG_LEN,
    MODE,
    NOTES,
    NOTICES,
    PENDING,
    PENDING_CANDIDATES,
    PENDING_EVENT,
    PENDING_SEAT,
    PHASE,
    PROBE,
    REPLAY,
    ROLLOUT_POLICY,
    SEARCH_DECISIONS,
    SEAT_POLICY,
    YEAR,
    row,
)
from simulator.games.karnaxis.year_end import interest_on, interest_rate, retirement_payout

MARGIN_SCALE = 250_000.0  # $: a margin this large earns the whole margin bonus (about one
# standard deviation of the final cash of a 4-player game)
SNAPSHOT, PROBE_COPY, ROLLOUT_COPY = range(3)  # rows of the work buffers
SUMS, COUNTS, SCORES = range(3)  # rows of the values buffer
MILLION = 1_000_000


@rule
def provisional_cash(state, rules, out):
    """Game End, counted now without changing the state: each seat's cash plus its retirement
    payout, less its delinquent notices and its loans plus interest (module docstring)."""
    n = rules[CFG_PLAYERS]
    banker = job_holder(state, rules, rules[CFG_JOB_BANKER])
    for p in range(n):
        r = row(p)
        out[p] = (
            state[r + CASH]
            + retirement_payout(state, rules, p)
            - state[r + NOTICES] * rules[CFG_NOTICE_PENALTY]
            - state[r + LOANS]
        )
    for p in range(n):
        interest = interest_on(state[row(p) + LOANS], interest_rate(state, rules, p))
        out[p] -= interest
        if banker >= 0 and banker != p:
            out[banker] += interest


@rule
def decision_year(state):
    """The year a decision at this step boundary belongs to (Update New Year starts the next)."""
    return state[YEAR] + 1 if state[PHASE] == AT_NEW_YEAR else state[YEAR]


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


@allocating
def weigh(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values):
    """Play the rollouts of the pending decision of ``probe``; returns the best candidate's
    rank and writes the values weighed into the trace (when tracing)."""
    seat = probe[PENDING_SEAT]
    policy = probe[SEAT_POLICY + seat]
    m = probe[PENDING_CANDIDATES]
    total = max(np.int64(knobs[policy, ROLLOUTS]), m)
    horizon = np.int64(knobs[policy, HORIZON])
    last_year = rules[CFG_YEARS]
    if horizon > 0:
        last_year = min(last_year, decision_year(snap) + horizon)
    roll, roll_rng = work[ROLLOUT_COPY], work_rng[ROLLOUT_COPY]
    sums, counts, scores = values[SUMS], values[COUNTS], values[SCORES]
    sums[:m] = 0.0
    counts[:m] = 0.0
    no_trace = trace[:0]
    no_years = trace[:0]
    n_players = rules[CFG_PLAYERS]
    for r in range(total):
        candidate = r % m
        roll[:] = snap
        roll_rng[:] = snap_rng
        roll_rng[SEARCH_STREAM] = rollout_seed(rng)
        roll[MODE], roll[FORCED] = REPLAY, probe[CANDIDATES + candidate]
        roll[ROLLOUT_POLICY] = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
        advance(roll, rules, knobs, roll_rng, no_trace, no_years, last_year)
        provisional_cash(roll, rules, scores)
        value = outcome_value(
            win_share(scores, n_players, seat),
            margin_to_best_other(scores, n_players, seat),
            MARGIN_SCALE,
        )
        sums[candidate] += value
        counts[candidate] += 1.0
    best = best_mean(sums, counts, m)
    at = probe[PENDING_EVENT]
    if at >= 0:
        note_values(trace, at, sums, counts, m, total)
        snap[NOTES + probe[LOG_LEN]] = m + 1
    return best


@rule
def note_values(trace, at, sums, counts, m, total):
    """Fill in the trace rows of a search decision (written by decide.mark_pending): the
    rollouts played, and each candidate's mean value (in millionths) and rollouts."""
    trace[at, 6] = total
    for r in range(m):
        trace[at + 1 + r, 5] = np.int64(round(sums[r] / counts[r] * MILLION))
        trace[at + 1 + r, 6] = np.int64(counts[r])
