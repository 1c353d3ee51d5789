"""Karnaxis kernel calls and outputs: allocate the output arrays, play games or trace one, and
turn the kernel's arrays into the contract's tables (simulator.core.game)."""

import numpy as np

from policies import karnaxis as policies
from simulator.core.game import KNOB_BEHAVIOUR
from simulator.core.trace import new_trace
from simulator.games.karnaxis import games
from simulator.games.karnaxis.state import (
    CFG_PLAYERS,
    CFG_YEARS,
    COUNT_NAMES,
    G_END_REASON,
    G_LENGTH,
    G_SEARCH_DECISIONS,
    G_SHARES_LEFT,
    G_UNEMPLOYMENT_LEFT,
    G_WINNER,
    L_SALARY,
    N_DEALT_KEPT,
    N_GAME_OUT,
    N_PLAYER,
    N_PLAYER_OUT,
    N_YEAR_OUT,
    P_ATTR_TOTAL,
    P_BUSINESSES,
    P_CARDS,
    P_CARDS_UNUSED,
    P_CASH_BEFORE_END,
    P_CHARACTER,
    P_COLLEGE,
    P_DEALT,
    P_FINAL_JOB,
    P_FRANCHISES,
    P_GROWTH,
    P_INCOME,
    P_JOBS_HELD,
    P_KARNAXIS_DONE,
    P_KARNAXIS_REVOKED,
    P_KARNAXIS_YEAR,
    P_LOANS_COUNT,
    P_NOTICES,
    P_PEAK_LOANS,
    P_RANK_TITLE,
    P_RETIRE_TOKENS,
    P_SCORE,
    P_SHARES_HELD,
    P_SMART_YEARS,
    P_UNIVERSITY,
    P_WON,
    RANK_TITLES,
    Y_BRACKET,
    Y_BUSINESS_INCOME,
    Y_CASH,
    Y_GROWTH,
    Y_INCOME,
    Y_LOANS,
    Y_NOTICES,
    Y_SALARY,
    Y_SEAT,
    Y_SMART,
    Y_TAX,
    Y_YEAR,
)

# players columns copied from the ledger (state.L_*), in ledger order
LEDGER_COLUMNS = (
    "salary_total_usd",
    "business_income_total_usd",
    "dividends_usd",
    "unemployment_usd",
    "karnaxis_reward_usd",
    "loans_taken_usd",
    "shares_sold_usd",
    "event_gains_usd",
    "karnaxis_card_cash_usd",
    "received_from_players_usd",
    "bank_benefits_usd",
    "bank_paid_delinquent_usd",
    "retirement_payout_usd",
    "interest_received_usd",
    "taxes_paid_usd",
    "interest_paid_usd",
    "principal_repaid_usd",
    "shares_bought_usd",
    "paid_to_bank_usd",
    "paid_to_players_usd",
    "event_losses_usd",
    "notice_penalty_usd",
    "karnaxis_payback_usd",
)
# players columns copied from the player row as they are: the ledger, then the counts (state.COUNTS)
COPIED_COLUMNS = LEDGER_COLUMNS + tuple(f"count_{name}" for name in COUNT_NAMES)
assert len(COPIED_COLUMNS) == N_PLAYER - L_SALARY


def allocate(rules: np.ndarray, n: int):
    p, years = rules[CFG_PLAYERS], rules[CFG_YEARS]
    return (
        np.zeros((n, N_GAME_OUT), np.int64),
        np.zeros((n, p, N_PLAYER_OUT + len(COPIED_COLUMNS)), np.int64),
        np.zeros((n * years * p, N_YEAR_OUT), np.int64),
    )


def searching(knobs: np.ndarray, seat_policies: np.ndarray) -> bool:
    """Whether any seat plays a policy that runs the `search` behaviour."""
    search_ids = np.flatnonzero(knobs[:, KNOB_BEHAVIOUR] == policies.SEARCH)
    return bool(np.isin(seat_policies, search_ids).any())


def play(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray) -> dict:
    """Play ``len(seeds)`` games; the contract's three tables (see simulator.core.game)."""
    rules, knobs = params[0], params[1]
    out_games, out_players, out_years = allocate(rules, len(seeds))
    seat_policies = np.asarray(seat_policies, np.int8)
    kernel = games.play_search_games if searching(knobs, seat_policies) else games.play_games
    kernel(
        rules,
        knobs,
        np.asarray(seeds, np.uint64),
        seat_policies,
        out_games,
        out_players,
        out_years,
        new_trace(0),
    )
    return output_tables(params, out_games, out_players, out_years)


def output_tables(params: tuple, out_games, out_players, out_years) -> dict:
    """The kernel's output arrays as the contract's tables."""
    rules = params[0]
    games_ = {
        "winner_seat": out_games[:, G_WINNER],
        "length": out_games[:, G_LENGTH],
        "end_reason": out_games[:, G_END_REASON],
        "unemployment_fund_left_usd": out_games[:, G_UNEMPLOYMENT_LEFT],
        "share_tokens_left": out_games[:, G_SHARES_LEFT].astype(np.int16),
        "search_decisions": out_games[:, G_SEARCH_DECISIONS].astype(np.int32),
    }
    o = out_players
    char_labels = params[2].tolist()
    job_labels = ["none"] + params[3].tolist()
    players = {
        "score": o[:, :, P_SCORE].astype(np.float64),
        "won": o[:, :, P_WON].astype(bool),
        "character": (o[:, :, P_CHARACTER], char_labels),
        "final_cash_usd": o[:, :, P_SCORE],
        "rank_title": (o[:, :, P_RANK_TITLE], RANK_TITLES),
        "cash_before_end_usd": o[:, :, P_CASH_BEFORE_END],
        "retirement_tokens": o[:, :, P_RETIRE_TOKENS].astype(np.int16),
        "delinquent_notices": o[:, :, P_NOTICES].astype(np.int16),
        "loans_taken": o[:, :, P_LOANS_COUNT].astype(np.int32),
        "peak_loans_outstanding_usd": o[:, :, P_PEAK_LOANS],
        "karnaxis_fulfilled": o[:, :, P_KARNAXIS_DONE].astype(bool),
        "karnaxis_year": o[:, :, P_KARNAXIS_YEAR].astype(np.int16),
        "karnaxis_revoked": o[:, :, P_KARNAXIS_REVOKED].astype(bool),
        "businesses": o[:, :, P_BUSINESSES].astype(np.int16),
        "franchises": o[:, :, P_FRANCHISES].astype(np.int16),
        "jobs_held": o[:, :, P_JOBS_HELD].astype(np.int16),
        "college_years": o[:, :, P_COLLEGE].astype(np.int16),
        "university_years": o[:, :, P_UNIVERSITY].astype(np.int16),
        "smart_tax_years": o[:, :, P_SMART_YEARS].astype(np.int16),
        "business_growth_usd": o[:, :, P_GROWTH],
        "business_income_level_usd": o[:, :, P_INCOME],
        "karnaxis_cards_bought": o[:, :, P_CARDS].astype(np.int16),
        "final_job": (o[:, :, P_FINAL_JOB] + 1, job_labels),
        "shares_held": o[:, :, P_SHARES_HELD].astype(np.int16),
        "attribute_total": o[:, :, P_ATTR_TOTAL].astype(np.int16),
        "karnaxis_cards_unused": o[:, :, P_CARDS_UNUSED].astype(np.int16),
    }
    dealt_labels = ["none"] + char_labels
    for k in range(N_DEALT_KEPT):
        players[f"dealt_character_{k + 1}"] = (o[:, :, P_DEALT + k] + 1, dealt_labels)
    for k, name in enumerate(COPIED_COLUMNS):
        column = o[:, :, N_PLAYER_OUT + k]
        players[name] = column.astype(np.int32) if name.startswith("count_") else column
    y = out_years
    rows = rules[CFG_YEARS] * rules[CFG_PLAYERS]
    years = {
        "game_index": np.repeat(np.arange(len(out_games), dtype=np.int64), rows),
        "year": y[:, Y_YEAR].astype(np.int16),
        "seat": y[:, Y_SEAT].astype(np.int8),
        "cash_usd": y[:, Y_CASH],
        "income_usd": y[:, Y_INCOME],
        "tax_bracket": y[:, Y_BRACKET].astype(np.int8),
        "tax_paid_usd": y[:, Y_TAX],
        "smart_tax": y[:, Y_SMART].astype(bool),
        "loans_outstanding_usd": y[:, Y_LOANS],
        "delinquent_notices": y[:, Y_NOTICES].astype(np.int16),
        "salary_usd": y[:, Y_SALARY],
        "business_income_usd": y[:, Y_BUSINESS_INCOME],
        "business_growth_usd": y[:, Y_GROWTH],
    }
    return {"games": games_, "players": players, "years": years}


def trace_game(params: tuple, seed: int, seat_policies: np.ndarray, max_events: int = 20_000):
    """The trace rows (int64[k, TRACE_WIDTH]) of one game, and its output rows."""
    out_game, out_players, out_years = allocate(params[0], 1)
    trace = new_trace(max_events)
    seat_policies = np.array([seat_policies], np.int8)
    kernel = games.play_search_games if searching(params[1], seat_policies) else games.play_games
    n = kernel(
        params[0],
        params[1],
        np.array([seed], np.uint64),
        seat_policies,
        out_game,
        out_players,
        out_years,
        trace,
    )
    return trace[:n], out_players[0]
