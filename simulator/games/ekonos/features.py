"""Ekonos position features: what the `learned` player's value reads of a position.

The `learned` player (policies/search_driver.py, :func:`value_options`) values the position
each of its best-scored options leaves, at the end of the step, as a weighted sum of these
features (policies/learned.py), seen from the deciding seat: only what it can see (cash,
shares, presidencies, the board, growth indicators, free share indicators; its own hand),
never another hand or the deck's order.  The weights are data (``[policies.learned]
weights``, fitted by :mod:`simulator.experiments.learn`).
"""

from policies.learned import SAMPLE_HEAD, sample_columns
from policies.search import margin_to_best_other, win_share
from simulator.core import bits
from simulator.core.kernel import rule
from simulator.games.ekonos import board
from simulator.games.ekonos import state as S

UNIT = 10.0  # points, shares and indicators are counted in tens: every feature about 0..5

# The features, in the order of the weights
FEATURES = (
    "own_card",  # the option is the rollout policy's own pick of a card and function
    "own_space",  # ... of a space
    "own_trade",  # ... of a sale or a purchase
    "own_other",  # ... of another decision (expand now or wait, who presides)
    "leads",  # the seat's share of the win on the scores now (1, 1/k tied, 0)
    "leads_late",  # the same times the share of the game's rounds played
    "margin",  # its score now minus the best other's, in tens
    "margin_late",  # the same times the share of the game's rounds played
    "cash",  # its cash points, in tens
    "holdings",  # its shares' points at the companies' values now, in tens
    "holdings_late",  # the same times the share of the game's rounds played
    "sale_value",  # what its shares would fetch sold now (Σ shares x shares out), in tens
    "presidencies",  # the companies it presides
    "held_growth",  # Σ shares x growth level / the large growth level, in tens
    "held_growth_late",  # the same times the share of the game's rounds played
    "presided_growth",  # Σ over the companies it presides of growth level / the large level
    "held_protected",  # Σ shares x the company's protected markers, in tens
    "held_room",  # Σ shares x the spaces the company could expand to, in tens
    "hand_held",  # Σ over its hand's cards and functions of the shares it holds there, in tens
    "indicators",  # its share indicators not on the board, in tens
    "rival_holdings",  # the best other seat's holdings points, in tens
    "rival_growth",  # the best other seat's Σ shares x growth level / the large level, in tens
)
N_FEATURES = len(FEATURES)
(
    OWN_CARD,
    OWN_SPACE,
    OWN_TRADE,
    OWN_OTHER,
    LEADS,
    LEADS_LATE,
    MARGIN,
    MARGIN_LATE,
    CASH,
    HOLDINGS,
    HOLDINGS_LATE,
    SALE_VALUE,
    PRESIDENCIES,
    HELD_GROWTH,
    HELD_GROWTH_LATE,
    PRESIDED_GROWTH,
    HELD_PROTECTED,
    HELD_ROOM,
    HAND_HELD,
    INDICATORS,
    RIVAL_HOLDINGS,
    RIVAL_GROWTH,
) = range(N_FEATURES)
SCRATCH = N_FEATURES + S.MAX_PLAYERS  # a features row's width: the features, then each score
SAMPLE_WIDTH = SAMPLE_HEAD + N_FEATURES  # a samples row (policies/learned.py)
SAMPLE_COLUMNS = sample_columns(FEATURES)


@rule
def played_share(state, rules):
    """The share of the game's rounds played: 0 at its start, 1 at its end."""
    per_turn = rules[S.CFG_CARDS_PER_TURN] * rules[S.CFG_PLAYERS]
    return (state[S.TURN] * per_turn + state[S.ROUND]) / (rules[S.CFG_TURNS] * per_turn)


@rule
def own_pick_feature(kind):
    """The feature that marks the rollout policy's own pick of a decision of ``kind``."""
    if kind == S.CHOOSE_CARD:
        return OWN_CARD
    if kind == S.CHOOSE_SPACE:
        return OWN_SPACE
    if kind == S.SELL or kind == S.BUY:
        return OWN_TRADE
    return OWN_OTHER


@rule
def held_growth(state, rules, seat):
    """Σ over the companies of ``seat``'s shares x growth level / the large growth level."""
    total = 0.0
    for c in range(rules[S.CFG_COMPANIES]):
        total += state[S.SHARES + seat * S.MAX_COMPANIES + c] * state[S.GROWTH + c]
    return total / rules[S.CFG_GROWTH_LARGE]


@rule
def position_features(state, rules, seat, kind, own_pick, row):
    """The features of the position in ``state`` seen from ``seat`` (FEATURES) into
    ``row[:N_FEATURES]`` (float64[SCRATCH]: the rest is room for every seat's score);
    ``own_pick``: the option of the decision of ``kind`` that led here is the rollout policy's
    own pick."""
    n_players = rules[S.CFG_PLAYERS]
    scores = row[N_FEATURES:SCRATCH]
    rival = -1
    for p in range(n_players):
        cash, holdings, presidencies = board.score_parts(state, rules, p)
        scores[p] = cash + holdings + presidencies
        if p == seat:
            own_cash, own_holdings = cash, holdings
        elif rival < 0 or scores[p] > scores[rival]:
            rival, rival_holdings = p, holdings
    late = played_share(state, rules)
    row[:N_FEATURES] = 0.0
    row[own_pick_feature(kind)] = own_pick
    row[LEADS] = win_share(scores, n_players, seat)
    row[LEADS_LATE] = row[LEADS] * late
    row[MARGIN] = margin_to_best_other(scores, n_players, seat) / UNIT
    row[MARGIN_LATE] = row[MARGIN] * late
    row[CASH] = own_cash / UNIT
    row[HOLDINGS] = own_holdings / UNIT
    row[HOLDINGS_LATE] = row[HOLDINGS] * late
    row[HELD_GROWTH] = held_growth(state, rules, seat) / UNIT
    row[HELD_GROWTH_LATE] = row[HELD_GROWTH] * late
    row[RIVAL_HOLDINGS] = rival_holdings / UNIT
    row[RIVAL_GROWTH] = held_growth(state, rules, rival) / UNIT
    large = rules[S.CFG_GROWTH_LARGE]
    for c in range(rules[S.CFG_COMPANIES]):
        shares = state[S.SHARES + seat * S.MAX_COMPANIES + c]
        if state[S.PRESIDENT + c] == seat:
            row[PRESIDENCIES] += 1.0
            row[PRESIDED_GROWTH] += state[S.GROWTH + c] / large
        if shares > 0:
            row[SALE_VALUE] += shares * state[S.SHARES_OUT + c] / UNIT
            protected = bits.count(state[S.MINE + c] & state[S.PROTECTED])
            row[HELD_PROTECTED] += shares * protected / UNIT
            room = bits.count(board.expand_targets(state, rules, c))
            row[HELD_ROOM] += shares * room / UNIT
    for slot in range(rules[S.CFG_CARDS_PER_TURN]):
        card = state[S.HANDS + seat * S.MAX_HAND + slot]
        if card >= 0:
            for f in range(3):
                c = rules[S.DECK + 3 * card + f]
                row[HAND_HELD] += state[S.SHARES + seat * S.MAX_COMPANIES + c] / UNIT
    row[INDICATORS] = state[S.INDICATORS_LEFT + seat] / UNIT
