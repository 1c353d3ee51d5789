"""Ekonos wrapper (rulebook: shared/rules/ekonos.md).

The wrapper checks the rules, turns them into the kernel's arrays, allocates outputs and
decodes traces; the kernels in :mod:`engine` only loop.
"""

import numpy as np

from policies import ekonos as policies
from policies.learned import sample_rows
from policies.search import MAX_ROLLOUTS
from simulator.core.game import Game, StudyPlan, policy_knobs
from simulator.core.rules import RulesError, require
from simulator.games.ekonos import chunk, features
from simulator.games.ekonos import state as S

ENGINE_VERSION = "ekonos-7"
MAX_POINTS = 1000  # largest points per unit a [scoring] key may give


def board_spaces(layout: list[str]) -> list[tuple[int, int]]:
    """(row, column) of each '.' cell of an ASCII layout: the spaces, numbered row by row."""
    return [(r, c) for r, line in enumerate(layout) for c, ch in enumerate(line) if ch == "."]


def board_adjacency(layout: list[str]) -> np.ndarray:
    """int64[n_spaces, 4] orthogonal neighbours (-1 pads) of the '.' cells of an ASCII layout."""
    cells = board_spaces(layout)
    index = {cell: i for i, cell in enumerate(cells)}
    adjacency = np.full((len(cells), 4), -1, dtype=np.int64)
    for i, (r, c) in enumerate(cells):
        near = [index[n] for n in ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c)) if n in index]
        adjacency[i, : len(near)] = near
    return adjacency


def neighbour_masks(adjacency: np.ndarray) -> list[int]:
    """Each space's neighbours as a bit mask (bit s = space s)."""
    return [sum(1 << int(t) for t in row if t >= 0) for row in adjacency]


def check(rules: dict) -> None:
    """Impossible values, and what the engine's fixed-size state blocks and the narrow output
    columns can hold (state.py), each refused naming its key."""
    setup, companies = rules["setup"], rules["companies"]
    counts = setup["player_counts"]
    n_companies = len(companies["names"])
    for key in ("turns", "cards_per_turn", "money_per_turn"):
        require(
            rules,
            f"setup.{key}",
            len(setup[key]) == len(counts),
            f"needs one entry per player count ({len(counts)})",
        )
        require(rules, f"setup.{key}", all(v >= 1 for v in setup[key]), "entries must be >= 1")
    require(
        rules,
        "setup.player_counts",
        all(3 <= n <= S.MAX_PLAYERS for n in counts) and counts,
        f"player counts must be 3..{S.MAX_PLAYERS}",
    )
    require(
        rules,
        "setup.turns",
        all(v <= S.MAX_TURNS for v in setup["turns"]),
        f"at most {S.MAX_TURNS} turns (the games' rounds are counted in 16 bits)",
    )
    require(
        rules,
        "setup.cards_per_turn",
        all(v <= S.MAX_HAND for v in setup["cards_per_turn"]),
        f"at most {S.MAX_HAND} cards per turn (a hand's three options a card fit a 63-bit mask)",
    )
    require(rules, "setup.start_money", setup["start_money"] >= 0, "must be >= 0")
    require(
        rules,
        "companies.names",
        3 <= n_companies <= S.MAX_COMPANIES,
        f"needs 3..{S.MAX_COMPANIES} companies",
    )
    require(
        rules, "companies.market_indicators", companies["market_indicators"] >= 1, "must be >= 1"
    )
    small, large = companies["growth_small"], companies["growth_large"]
    require(rules, "companies.growth_small", 1 <= small, "must be >= 1")
    require(rules, "companies.growth_large", large > small, "must exceed companies.growth_small")
    for key in ("expand_small", "expand_large"):
        require(rules, f"companies.{key}", companies[key] >= 0, "must be >= 0")
    indicators = rules["shares"]["indicators_per_player"]
    require(
        rules,
        "shares.indicators_per_player",
        1 <= indicators <= S.MAX_SHARE_INDICATORS,
        f"must be 1..{S.MAX_SHARE_INDICATORS} (shares held are counted in 16 bits)",
    )
    for key, low in (("per_indicator", 0), ("per_mu", 0), ("per_presidency", -MAX_POINTS)):
        require(
            rules,
            f"scoring.{key}",
            low <= rules["scoring"][key] <= MAX_POINTS,
            f"must be {low}..{MAX_POINTS} (points per unit; scores stay far inside 64 bits)",
        )
    layout = rules["board"]["layout"]
    n_spaces = sum(line.count(".") for line in layout)
    require(rules, "board.layout", n_spaces >= 2, "needs at least two '.' spaces")
    require(
        rules,
        "board.layout",
        n_spaces <= S.MAX_SPACES,
        f"at most {S.MAX_SPACES} '.' spaces (the engine keeps the board as 64-bit masks); "
        f"this layout has {n_spaces}",
    )
    cards = rules["deck"]["cards"]
    require(rules, "deck.cards", len(cards) <= S.MAX_CARDS, f"at most {S.MAX_CARDS} cards")
    require(
        rules,
        "deck.cards",
        all(len(card) == 3 for card in cards),
        "each card lists three companies",
    )
    require(
        rules,
        "deck.cards",
        all(0 <= c < n_companies for card in cards for c in card),
        f"company indices must be 0..{n_companies - 1}",
    )
    most = max(n * cards_each for n, cards_each in zip(counts, setup["cards_per_turn"]))
    require(
        rules, "deck.cards", len(cards) >= most, f"{len(cards)} cards cannot deal {most} per turn"
    )


def prepare(rules: dict, n_players: int) -> tuple:
    """(rules array, knobs) for one player count: the rules array is the header (CFG_*), the
    spaces' neighbour masks and the deck, laid out as state.py describes."""
    setup, companies = rules["setup"], rules["companies"]
    counts = setup["player_counts"]
    if n_players not in counts:
        raise RulesError(
            "setup.player_counts", f"no Ekonos setup for {n_players} players (have {counts})"
        )
    row = counts.index(n_players)
    cards = rules["deck"]["cards"]
    adjacency = board_adjacency(rules["board"]["layout"])
    n_spaces = len(adjacency)
    cfg = np.zeros(S.DECK + 3 * len(cards), dtype=np.int64)
    cfg[S.CFG_PLAYERS] = n_players
    cfg[S.CFG_TURNS] = setup["turns"][row]
    cfg[S.CFG_CARDS_PER_TURN] = setup["cards_per_turn"][row]
    cfg[S.CFG_MONEY_PER_TURN] = setup["money_per_turn"][row]
    cfg[S.CFG_START_MONEY] = setup["start_money"]
    cfg[S.CFG_MARKERS] = companies["market_indicators"]
    cfg[S.CFG_SHARE_INDICATORS] = rules["shares"]["indicators_per_player"]
    cfg[S.CFG_GROWTH_SMALL], cfg[S.CFG_GROWTH_LARGE] = (
        companies["growth_small"],
        companies["growth_large"],
    )
    cfg[S.CFG_EXPAND_SMALL], cfg[S.CFG_EXPAND_LARGE] = (
        companies["expand_small"],
        companies["expand_large"],
    )
    cfg[S.CFG_COMPANIES] = len(companies["names"])
    cfg[S.CFG_REPLACED_RETURN] = companies["replaced_markers_return"]
    cfg[S.CFG_PRESIDENCY_INDICATOR] = rules["shares"]["presidency_uses_indicator"]
    scoring = rules["scoring"]
    cfg[S.CFG_SCORE_INDICATOR], cfg[S.CFG_SCORE_MU] = scoring["per_indicator"], scoring["per_mu"]
    cfg[S.CFG_SCORE_PRESIDENCY] = scoring["per_presidency"]
    cfg[S.CFG_SPACES] = n_spaces
    cfg[S.CFG_ALL_SPACES] = (1 << n_spaces) - 1
    cfg[S.CFG_CARDS] = len(cards)
    cfg[S.CFG_UNSEEN] = S.DECK_ORDER + len(cards)
    cfg[S.CFG_STATE_SIZE] = S.DECK_ORDER + 2 * len(cards)
    cfg[S.NEIGHBOURS : S.NEIGHBOURS + n_spaces] = neighbour_masks(adjacency)
    cfg[S.DECK :] = np.array(cards, dtype=np.int64).reshape(-1)
    knobs = policy_knobs(rules, GAME.policy_set(rules), policies.KNOBS)
    return cfg, knobs


def allocate(cfg: np.ndarray, n: int):
    """The kernel's four output arrays (chunk.play_games).  The company columns are all
    int16 or bool in the tables (:func:`play`), so their arrays are int16: the kernel writes
    about 40% fewer bytes a game."""
    p, c = cfg[S.CFG_PLAYERS], cfg[S.CFG_COMPANIES]
    return (
        np.zeros((n, S.N_GAME_OUT), np.int64),
        np.zeros((n, p, S.N_PLAYER_OUT), np.int64),
        np.zeros((n, 2 * c), np.int16),
        np.zeros((n, p, 3 * c), np.int16),
    )


def play(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray) -> dict:
    cfg, knobs = params
    out_games, out_players, company_games, company_players = allocate(cfg, len(seeds))
    chunk.play_games(
        cfg,
        knobs,
        seeds,
        seat_policies,
        out_games,
        out_players,
        company_games,
        company_players,
        np.zeros((0, S.TRACE_WIDTH), np.int64),
    )
    n_companies = cfg[S.CFG_COMPANIES]
    columns = {
        "winner_seat": out_games[:, S.G_WINNER],
        "length": out_games[:, S.G_LENGTH],
        "end_reason": out_games[:, S.G_END_REASON],
        "rounds": out_games[:, S.G_ROUNDS].astype(np.int16),
        "search_decisions": out_games[:, S.G_SEARCH_DECISIONS].astype(np.int32),
    }
    for c in range(n_companies):
        columns[f"company{c}_value"] = company_games[:, c].astype(np.int16)
    for c in range(n_companies):  # at mid-game (chunk.mid_turn): before the outcome
        columns[f"company{c}_value_mid"] = company_games[:, n_companies + c].astype(np.int16)
    names = (
        "score",
        "won",
        "cash",
        "holdings_value",
        "shares_bought",
        "shares_sold",
        "spent_on_shares",
        "received_from_sales",
        "money_dealt",
        "expansions",
        "markers_placed",
        "markers_protected",
        "growth_raised",
        "cards_discarded",
        "expansions_empty",
        "expansions_early",
        "expansions_waited",
        "presidents_named",
    )
    players = {name: out_players[:, :, i] for i, name in enumerate(names)}
    players["won"] = players["won"].astype(bool)
    for name in names[2:]:
        players[name] = players[name].astype(np.int32)
    for c in range(n_companies):
        players[f"company{c}_shares"] = company_players[:, :, c].astype(np.int16)
        players[f"company{c}_president"] = company_players[:, :, n_companies + c].astype(bool)
    for c in range(n_companies):
        players[f"company{c}_president_mid"] = company_players[:, :, 2 * n_companies + c].astype(
            bool
        )
    return {"games": columns, "players": players}


def sample(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray, rows: int = 200_000):
    """The positions of games with search seats or learned seats with a teacher's budget
    (policies/search_driver.py, :func:`learned_choice`): float64[k, SAMPLE_WIDTH] rows, one per
    candidate of each decision the search weighed, and their column names (at most ``rows``;
    a chunk that fills them is refused, never cut)."""
    cfg, knobs = params
    seeds, seat_policies = np.asarray(seeds, np.uint64), np.asarray(seat_policies, np.int8)
    outputs = allocate(cfg, len(seeds))
    return sample_rows(
        lambda samples: chunk.play_sample_games(cfg, knobs, seeds, seat_policies, outputs, samples),
        len(seeds),
        features.SAMPLE_COLUMNS,
        rows,
    )


def trace_game(params: tuple, seed: int, seat_policies: np.ndarray, max_events: int = 10_000):
    """The trace rows (int64[k, TRACE_WIDTH]) of one game."""
    cfg, knobs = params
    trace = np.zeros((max_events, S.TRACE_WIDTH), dtype=np.int64)
    n = chunk.play_games(
        cfg,
        knobs,
        np.array([seed], np.uint64),
        np.array([seat_policies], np.int8),
        *allocate(cfg, 1),
        trace,
    )
    return trace[:n]


def replay(params: tuple, seed: int, seat_policies: np.ndarray, rules: dict) -> list[str]:
    """A readable play-by-play of one game."""
    return [describe(row, rules) for row in trace_game(params, seed, seat_policies).tolist()]


DECISION_NAMES = (
    "which card",
    "where",
    "expand or wait",
    "what to sell",
    "what to buy",
    "who presides",
)


def describe_option(kind: int, code: int, rules: dict) -> str:
    """A search candidate from its trace code (state.py: EV_SEARCH_OPTION)."""
    names = rules["companies"]["names"]
    if kind == S.CHOOSE_CARD:
        card, function = divmod(code, 3)
        company = names[rules["deck"]["cards"][card][function]]
        return (
            f"card {card}, place {company}"
            if function == S.PLACE_FUNCTION
            else f"card {card}, raise {company} growth"
        )
    if kind == S.CHOOSE_SPACE:
        return f"space {code}"
    if kind == S.EXPAND_NOW:
        return "expand now" if code == 1 else "wait"
    if kind in (S.SELL, S.BUY):
        verb = "sell" if kind == S.SELL else "buy"
        return f"{verb} {names[code]}" if code != S.NONE else f"no {verb}ing"
    return f"seat {code} presides"


def describe(row, rules: dict) -> str:
    """One trace row (``[event, turn, seat, a, b, c, d]``, see state.py) as a line of text."""
    event, turn, seat, a, b, c, d = row
    names = rules["companies"]["names"]
    at = f"turn {turn + 1} seat {seat}:"
    if event == S.EV_TURN:
        return f"== turn {turn + 1}, seat {seat} starts"
    if event == S.EV_DEAL:
        return f"{at} dealt {b} cards and {a} M.U. (cash {c - a}→{c})"
    if event == S.EV_PLACE:
        return f"{at} places a marker of {names[a]} on space {b}"
    if event == S.EV_PROTECT:
        return f"{at} protects the marker of {names[a]} on space {b}"
    if event == S.EV_GROW:
        return f"{at} raises {names[a]} growth to {b}"
    if event == S.EV_EXPAND_WAIT:
        why = " (nothing can be placed)" if c else ""
        return f"{at} president of {names[a]} waits at growth {b}{why}"
    if event == S.EV_EXPAND and c == S.EMPTY:
        return f"{at} expands {names[a]} to space {b}"
    if event == S.EV_EXPAND:
        gone_to = (
            "its supply" if rules["companies"]["replaced_markers_return"] else "out of the game"
        )
        return f"{at} expands {names[a]} to space {b}, replacing {names[c]} (back to {gone_to})"
    if event == S.EV_EXPAND_EMPTY:
        why = (
            f"no {names[a]} marker left in supply"
            if b == S.NO_SUPPLY
            else f"no free or unprotected space next to {names[a]}"
        )
        return f"{at} president of {names[a]} expands but places nothing ({why}); growth back to 0"
    if event in (S.EV_SELL, S.EV_BUY):
        verb = "sells" if event == S.EV_SELL else "buys"
        return f"{at} {verb} a share of {names[a]} for {b} (cash {c}→{d})"
    if event == S.EV_PRESIDENT and seat == S.NONE:
        why = "its last share was sold" if c == 0 else "no holder has an indicator to show it"
        return f"turn {turn + 1}: {names[a]} has no president ({why})"
    if event == S.EV_PRESIDENT and d:
        return (
            f"turn {turn + 1}: seat {seat} becomes president of {names[a]} "
            "(more shares, and now a share indicator free to show it)"
        )
    if event == S.EV_PRESIDENT:
        return f"turn {turn + 1}: seat {seat} becomes president of {names[a]}"
    if event == S.EV_DISCARD:
        return f"{at} discards card {a} (no function can act)"
    if event == S.EV_SEARCH:
        return f"{at} search weighs {c} of {b} options ({DECISION_NAMES[a]}) over {d} rollouts:"
    if event == S.EV_SEARCH_OPTION:
        return f"{at}   {describe_option(a, b, rules)}: mean value {c / 1e6:.3f} over {d} rollouts"
    presidencies = f" + presidencies {d}" if d else ""  # EV_SCORE: points of each part
    return f"final seat {seat}: cash {a} + holdings {b}{presidencies} = score {c}"


GAME = Game(
    name="ekonos",
    engine_version=ENGINE_VERSION,
    player_counts=range(3, 7),
    default_players=4,
    chunk_size=20_000,
    length_unit="turns",
    policies=policies.POLICIES,
    knob_names=policies.KNOBS,
    check=check,
    prepare=prepare,
    play=play,
    replay=replay,
    categories={"end_reason": ("final_turn",)},
    learned_features=features.FEATURES,
    sample=sample,
    # the learned seat values 4 candidates, one more than its teacher's 3: at 5 and 6 players
    # it fell 3 points short of the search valuing 3, within a point valuing 4 (docs/search.md)
    learn_budget=(("candidates", 4),),
    # at 5 players the teacher plays to the game's end (the search's end of the next turn left
    # the learned seat 1.5 points short on seed 2121, +0.8 to the end); at 6 players, 2 turns,
    # it already does, and valuing 6 candidates moved -0.7 to +0.1 (docs/search.md)
    learn_budget_at=((5, (("horizon", 0),)), (6, (("candidates", 6),))),
    search_limits=(
        ("rollouts", 0, MAX_ROLLOUTS),
        ("horizon", 0, S.MAX_TURNS),
        ("top_k", 0, S.MAX_OPTIONS),
        ("learned_value", 0, 1),
    ),
    exercised=(
        ("action", "place a market indicator", "markers_placed"),
        ("action", "protect a market indicator", "markers_protected"),
        ("action", "raise a growth indicator", "growth_raised"),
        ("action", "expand at level 4", "expansions_early"),
        ("action", "wait at level 4", "expansions_waited"),
        ("action", "sell a share", "shares_sold"),
        ("action", "buy a share", "shares_bought"),
        ("action", "name a president among tied holders", "presidents_named"),
        ("event", "expand (markers placed)", "expansions"),
        ("event", "expand with nothing to place", "expansions_empty"),
        ("event", "discard a card no function can play", "cards_discarded"),
    ),
    score_unit="final score (M.U.)",
    # a search seat at its default budget plays about 21 games a second per core (`balsim
    # bench`, 89c92a7)
    study=StudyPlan(
        n_games=12_000,
        player_counts=(3, 4, 5, 6),
        variants={"start_12": ("setup.start_money=12",)},
        variant_players=(4,),
        screen_spans={"setup.start_money": "0:12"},
        strong_games=8_000,
        strong_search_games=120,
        challenge_games=6_000,
        challenge_search_games=60,
        skill_games=1_008,  # rungs of 8, 16 and 32 rollouts: about 32 rollouts a game
    ),
    # one variant's adaptation: 195,000 games of a scoring variant in 14.4 s of one core
    # (docs/ladder.md "Cost", 2026-12-01)
    adapt_games=200_000,
    compile_seconds=15,  # cold, engine and search player, one core (2026-12-01)
)
