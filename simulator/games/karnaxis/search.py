"""The Karnaxis `search` player: determinized flat Monte Carlo with step replay.

Why flat Monte Carlo and not a tree (UCT): Karnaxis is stochastic (stock dice, events, card
draws) and hides information (the order of the event and Karnaxis decks, the cards other
players have saved), so every playout starts from a fresh determinization; with a few hundred
playouts a tree would stay a level or two deep and its statistics would be dominated by that
noise.  Flat Monte Carlo over the ``top_k`` options of a good scripted scorer, finished by a
scripted ``rollout_policy``, is the standard strong baseline for such games, cheap, and
exactly reproducible.

How: the driver shared with Ekonos (policies/search_driver.py) plays each step from a snapshot
as probes and weighs each pending search decision in paired rounds of rollouts (every
candidate of a round on the same re-drawn future); the rollout policy's own choice (candidate
0) is kept unless a rival beats it in a paired one-sided test corrected over the rivals
(policies.search.paired_choice).  This module gives it the Karnaxis parts: where a rollout
stops, the provisional final cash at its end and the trace rows; turns.py binds the driver to
them (with the hooks of a search seat that reads the learned player, ``learned_value``).

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

from policies.search_driver import COUNTS, SUMS
from simulator.core.kernel import rule
from simulator.games.karnaxis import engine, money, year_end
from simulator.games.karnaxis import state as S

MARGIN_SCALE = 250_000.0  # $: a margin this large earns the whole margin bonus (about one
# standard deviation of the final cash of a 4-player game)
MILLION = 1_000_000


@rule
def seat_scores(state, rules, out):
    """Game End, counted now without changing the state: each seat's cash plus its retirement
    payout, less its delinquent notices and its loans plus interest (module docstring)."""
    n = rules[S.CFG_PLAYERS]
    banker = money.job_holder(state, rules, rules[S.CFG_JOB_BANKER])
    for p in range(n):
        r = S.row(p)
        out[p] = (
            state[r + S.CASH]
            + year_end.retirement_payout(state, rules, p)
            - state[r + S.NOTICES] * rules[S.CFG_NOTICE_PENALTY]
            - state[r + S.LOANS]
        )
    for p in range(n):
        interest = year_end.interest_on(
            state[S.row(p) + S.LOANS], year_end.interest_rate(state, rules, p)
        )
        out[p] -= interest
        if banker >= 0 and banker != p:
            out[banker] += interest


@rule
def decision_year(state):
    """The year a decision at this step boundary belongs to (Update New Year starts the next)."""
    return state[S.YEAR] + 1 if state[S.PHASE] == S.AT_NEW_YEAR else state[S.YEAR]


@rule
def rollout_end(probe, snap, rules, horizon):
    """The last year a rollout plays: the game's, or the h-th after the decision's year."""
    last_year = rules[S.CFG_YEARS]
    if horizon > 0:
        last_year = min(last_year, decision_year(snap) + horizon)
    return last_year


@rule
def play_out(state, rules, knobs, rng, trace, last_year):
    engine.advance(state, rules, knobs, rng, trace, last_year)


@rule
def note_values(probe, snap, trace, values, m, total):
    """Fill in the trace rows of a search decision (written by decide.mark_pending): the
    rollouts played, and each candidate's mean value (in millionths) and rollouts; the next
    probe steps over them."""
    at = probe[S.PENDING_EVENT]
    if at < 0:
        return
    trace[at, 6] = total
    for r in range(m):
        trace[at + 1 + r, 5] = np.int64(round(values[SUMS, r] / values[COUNTS, r] * MILLION))
        trace[at + 1 + r, 6] = np.int64(values[COUNTS, r])
    snap[S.NOTES + probe[S.LOG_LEN]] = m + 1
