"""Karnaxis kernel calls and outputs: allocate the output arrays, play games or trace one, and
turn the kernel's arrays into the contract's tables (simulator.core.game)."""

import numpy as np

from policies import karnaxis as policies
from policies.learned import sample_rows
from simulator.core.game import KNOB_BEHAVIOUR
from simulator.core.trace import new_trace
from simulator.games.karnaxis import chunk, features
from simulator.games.karnaxis import state as S

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
# the players' count columns (state.COUNTS), after the ledger's
COUNT_COLUMNS = tuple(f"count_{name}" for name in S.COUNT_NAMES)
assert len(LEDGER_COLUMNS) == S.COUNTS - S.L_SALARY


def allocate(rules: np.ndarray, n: int):
    p, years = rules[S.CFG_PLAYERS], rules[S.CFG_YEARS]
    return (
        np.zeros((n, S.N_GAME_OUT), np.int64),
        np.zeros((n, p), S.PLAYER_ROW),
        np.zeros(n * years * p, S.YEAR_ROW),
    )


def searching(knobs: np.ndarray, seat_policies: np.ndarray) -> bool:
    """Whether any seat plays a policy that runs the `search` or the `learned` behaviour."""
    ids = np.flatnonzero(np.isin(knobs[:, KNOB_BEHAVIOUR], (policies.SEARCH, policies.LEARNED)))
    return bool(np.isin(seat_policies, ids).any())


def play(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray) -> dict:
    """Play ``len(seeds)`` games; the contract's three tables (see simulator.core.game)."""
    rules, knobs = params[0], params[1]
    out_games, out_players, out_years = allocate(rules, len(seeds))
    seat_policies = np.asarray(seat_policies, np.int8)
    kernel = chunk.play_search_games if searching(knobs, seat_policies) else chunk.play_games
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


def sample(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray, rows: int = 200_000):
    """The positions of games with learned seats with a teacher's budget (turns.py,
    "Sampling"): rows of policies/learned.py's columns, one per candidate of each decision the
    search weighed, and their names."""
    rules, knobs = params[0], params[1]
    out_games, out_players, out_years = allocate(rules, len(seeds))
    return sample_rows(
        lambda samples: chunk.play_sample_games(
            rules,
            knobs,
            np.asarray(seeds, np.uint64),
            np.asarray(seat_policies, np.int8),
            out_games,
            out_players,
            out_years,
            samples,
        ),
        len(seeds),
        features.SAMPLE_COLUMNS,
        rows,
    )


def output_tables(params: tuple, out_games, out_players, out_years) -> dict:
    """The kernel's output arrays as the contract's tables."""
    rules = params[0]
    games_ = {
        "winner_seat": out_games[:, S.G_WINNER],
        "length": out_games[:, S.G_LENGTH],
        "end_reason": out_games[:, S.G_END_REASON],
        "unemployment_fund_left_usd": out_games[:, S.G_UNEMPLOYMENT_LEFT],
        "share_tokens_left": out_games[:, S.G_SHARES_LEFT].astype(np.int16),
        "search_decisions": out_games[:, S.G_SEARCH_DECISIONS].astype(np.int32),
    }
    o = out_players
    char_labels = params[2].tolist()
    job_labels = ["none"] + params[3].tolist()
    players = {
        "score": o["final_cash_usd"].astype(np.float64),
        "won": o["won"],
        "character": (o["character"], char_labels),
        "final_cash_usd": o["final_cash_usd"],
        "rank_title": (o["rank_title"], S.RANK_TITLES),
    }
    dealt_labels = ["none"] + char_labels
    for name in S.PLAYER_ROW.names[4:]:  # in the record's order, the table's
        if name == "final_job":
            players[name] = (o[name] + 1, job_labels)
        elif name == "dealt_characters":
            for k in range(S.N_DEALT_KEPT):
                players[f"dealt_character_{k + 1}"] = (o[name][:, :, k] + 1, dealt_labels)
        elif name == "ledger":
            players.update({column: o[name][:, :, k] for k, column in enumerate(LEDGER_COLUMNS)})
        elif name == "counts":
            players.update({column: o[name][:, :, k] for k, column in enumerate(COUNT_COLUMNS)})
        else:
            players[name] = o[name]
    n, n_years, p = len(out_games), rules[S.CFG_YEARS], rules[S.CFG_PLAYERS]
    years = {  # a row's game, year and seat follow from its place (state.YEAR_ROW)
        "game_index": np.repeat(np.arange(n, dtype=np.int64), n_years * p),
        "year": np.tile(np.repeat(np.arange(1, n_years + 1, dtype=np.int16), p), n),
        "seat": np.tile(np.arange(p, dtype=np.int8), n * n_years),
    }
    years.update({name: out_years[name] for name in S.YEAR_ROW.names})
    return {"games": games_, "players": players, "years": years}


def trace_game(params: tuple, seed: int, seat_policies: np.ndarray, max_events: int = 20_000):
    """The trace rows (int64[k, TRACE_WIDTH]) of one game, and its output rows."""
    out_game, out_players, out_years = allocate(params[0], 1)
    trace = new_trace(max_events)
    seat_policies = np.array([seat_policies], np.int8)
    kernel = chunk.play_search_games if searching(params[1], seat_policies) else chunk.play_games
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
