"""The Ekonos `search` player: determinized flat Monte Carlo with step replay.

Why flat Monte Carlo and not a tree (UCT): Ekonos is stochastic (every turn's deal) and hides
information (the other seats' hands), so every playout starts from a fresh determinization;
with a few hundred playouts a tree would stay a level or two deep and its statistics would be
dominated by that noise.  Flat Monte Carlo over the ``top_k`` options of a good scripted
scorer, finished by a scripted ``rollout_policy``, is the standard strong baseline for such
games, cheap, and exactly reproducible.

How: the driver shared with Karnaxis (policies/search_driver.py) plays each step from a
snapshot as probes and weighs each pending search decision in paired rounds of rollouts; the
rollout policy's own choice (candidate 0) is kept unless a rival beats it in a paired one-sided
test corrected over the rivals (policies.search.paired_choice).  This module gives it the
Ekonos parts: where a rollout stops, the scores at its end and the trace rows.

Knobs ``[policies.search]``: ``rollouts`` per decision, ``rollout_policy``, ``horizon`` (0: to
the end of the game; h: to the end of the h-th turn after the current one, scored by the
provisional score cash + shares x current values) and ``top_k``.
"""

import numpy as np

import policies.ekonos
from policies.search_driver import COUNTS, LEARNING_DRIVER, SUMS, for_game
from simulator.core.kernel import rule
from simulator.games.ekonos import engine
from simulator.games.ekonos import state as layout
from simulator.games.ekonos.board import put_row, score_parts
from simulator.games.ekonos.engine import advance
from simulator.games.ekonos.features import (  # noqa: F401 (the driver reads them)
    N_FEATURES,
    SCRATCH,
    position_features,
)
from simulator.games.ekonos.state import (
    AT_END,
    CFG_PLAYERS,
    CFG_TURNS,
    CODES,
    EV_SEARCH,
    EV_SEARCH_OPTION,
    LOG_LEN,
    NOTES,
    PENDING_EVENT,
    PENDING_KIND,
    PENDING_OPTIONS,
    PENDING_SEAT,
    PHASE,
    TURN,
)

MARGIN_SCALE = 20.0  # M.U.: about one standard deviation of a final score at 4 players
MILLION = 1_000_000


@rule
def rollout_end(probe, snap, rules, horizon):
    """The last turn a rollout plays: the game's, or the h-th after the current one."""
    last_turn = rules[CFG_TURNS] - 1
    if horizon > 0:
        last_turn = min(last_turn, probe[TURN] + horizon)
    return last_turn


@rule
def game_over(state):
    return state[PHASE] == AT_END


@rule
def play_out(state, rules, knobs, rng, trace, last_turn):
    advance(state, rules, knobs, rng, trace, last_turn)


@rule
def seat_scores(state, rules, out):
    """Scoring, provisionally at any point: as at the end, with the companies' current values
    and presidencies."""
    for p in range(rules[CFG_PLAYERS]):
        cash, holdings, presidencies = score_parts(state, rules, p)
        out[p] = cash + holdings + presidencies


@rule
def note_values(probe, snap, trace, values, m, total):
    """Trace rows of a search decision, at the place the decision takes in the step; the next
    probe steps over them (decide.choose_in_search_step)."""
    if trace.shape[0] == 0:
        return
    seat, kind = probe[PENDING_SEAT], probe[PENDING_KIND]
    at, turn = probe[PENDING_EVENT], probe[TURN]
    put_row(trace, at, EV_SEARCH, turn, seat, kind, probe[PENDING_OPTIONS], m, total)
    for r in range(m):
        mean = np.int64(round(values[SUMS, r] / values[COUNTS, r] * MILLION))
        code = probe[CODES + r]
        put_row(
            trace,
            at + 1 + r,
            EV_SEARCH_OPTION,
            turn,
            seat,
            kind,
            code,
            mean,
            np.int64(values[COUNTS, r]),
        )
    snap[NOTES + probe[LOG_LEN]] = m + 1


(
    search_buffers,
    search_step,
    sample_step,
    learns,
    teaches,
    values_learned,
    value_options,
    kept_candidate,
    scored_rollout,
    rollout_result,
    weigh,
    pending_choice,
) = for_game(LEARNING_DRIVER, globals(), layout, policies.ekonos, engine)
