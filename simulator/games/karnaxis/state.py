"""Karnaxis state layout: the named slots of a game's two arrays and of the rules array.

Shared by the engine, the wrapper and the policies, so none imports another's internals.

A game is two arrays: ``state`` (int64, below) and ``rng`` (uint64[N_STREAMS],
simulator.core.rng).  The rules of one player count are one read-only int64 array ``rules`` (a
header of numbers and offsets, then the lookup tables and the card rows) and the policies'
knobs one float64[n_policies, 1 + n_knobs] table.  Copying a game is ``work[:] = state``.

``state``: fixed-size blocks at compile-time offsets, sized for MAX_PLAYERS; only the card
block's width depends on the rules (``rules[CFG_DECK_WIDTH]``, the longest deck)::

    offset        block                                              slots
    0             board, loop position, search bookkeeping           N_SCALARS
    SEAT_POLICY   policy id of each seat                             MAX_PLAYERS
    PLAYERS       player boards, seat-major: row(p) + CASH           MAX_PLAYERS x N_PLAYER
    STOCKS        stock rows (row n_players: black): stock(s)+VALUE  (MAX_PLAYERS + 1) x N_STOCK
    SHARES        shares held, seat-major: share(p, s)               MAX_PLAYERS x MAX_STOCKS
    OPTIONS       the current decision's option rows                 MAX_OPTIONS x OPT_WIDTH
    LOG, NOTES    search: the step's decisions; trace rows of each   MAX_LOG each
    CANDIDATES    search: options a pending decision weighs          MAX_OPTIONS
    OWNERS        card holders and deck orders: owners(rules, k)+i   N_OWNERS x deck width
    rules[CFG_UNSEEN]  search: scratch for re-dealing hidden cards   deck width

Rule code reads ``state[row(p) + CASH]``, ``state[stock(s) + VALUE]``,
``state[share(p, s)]``, ``state[owners(rules, OWN_JOB) + j]``; rules data
``rules[CFG_LOAN_CAP]``, ``table(rules, T_DIE, i)``, ``job(rules, j, J_SALARY)``.
"""

import numpy as np

from simulator.core.kernel import rule

# The slot tables are laid out by hand, a block of names per line.
# fmt: off
MAX_PLAYERS = 6
MAX_STOCKS = MAX_PLAYERS + 1      # one business per seat and the black business
MAX_OPTIONS = 256
MAX_LOG = 64         # decisions of one step a search can log (the rest play the fallback)
MAX_DECK = 1000      # cards in any one deck (the card block is N_OWNERS x the longest deck)
MAX_JOBS = 60        # JOBS_SEEN is a bit mask of job cards
MAX_BUSINESSES = 60

N_ATTR = 4          # attributes on a character card / player board
NONE = -1           # no seat, no job, no card

# ---------------------------------------------------------------- rules array
# header: the rules numbers for this player count, then the counts and offsets of the tables
(CFG_PLAYERS, CFG_YEARS, CFG_START_CASH, CFG_DEALT, CFG_ACTIONS, CFG_ATTR_MAX, CFG_KARNAXIS_BONUS,
 CFG_FUND_START, CFG_FUND_INCREMENT,
 CFG_STOCK_START, CFG_STOCK_TOP, CFG_DIVIDEND, CFG_AFTER_DIVIDEND, CFG_AFTER_CRASH, CFG_SHARE_PRICE,
 CFG_SHARES_PER_START, CFG_SHARE_TOKENS, CFG_MAX_TRADES,
 CFG_TC_DISCOUNT, CFG_LOAN_CAP, CFG_LOAN_UNIT, CFG_INTEREST_PCT, CFG_NOTICE_PENALTY,
 CFG_SECOND_NOTICE_OVER,
 CFG_CARD_COST, CFG_COLLEGE_COST, CFG_COLLEGE_YEARS, CFG_UNIVERSITY_COST, CFG_UNIVERSITY_ATTRS,
 CFG_RETIREMENT_COST, CFG_ACCOUNTANT_COST, CFG_INSURANCE_COST, CFG_STUDY_ATTRS, CFG_CONSULTANT_FEE,
 CFG_PROFESSOR_FEE, CFG_RETIREMENT_TOKENS, CFG_EXTRA_TOKEN, CFG_FRANCHISE_CARDS,
 CFG_AD_FIRM_DISCOUNT, CFG_INS_FIRM_DISCOUNT,
 CFG_FIRM_ACCOUNTING, CFG_FIRM_INSURANCE, CFG_FIRM_ADVERTISING,   # business index or NONE
 CFG_JOB_TAX_COLLECTOR, CFG_JOB_CONSULTANT, CFG_JOB_PROFESSOR, CFG_JOB_BANKER,  # job index or NONE
 CFG_INCOME_MAX, CFG_NOTICES_BELOW_CAP, CFG_COLLEGE_APTITUDE,
 # how many cards of each kind, where each table starts in ``rules``, and the state's sizes
 CFG_N_CHARS, CFG_N_JOBS, CFG_N_BIZ, CFG_N_EVENTS, CFG_N_KCARDS,
 CFG_TABLES, CFG_TABLE_WIDTH, CFG_CHARS, CFG_JOBS, CFG_BIZ, CFG_EVENTS, CFG_KCARDS,
 CFG_DECK_WIDTH, CFG_UNSEEN, CFG_STATE_SIZE,
 N_CFG) = range(66)
APTITUDE = 0        # the attribute College raises as "Aptitude" (setup.attributes[0])

# lookup tables: rows of CFG_TABLE_WIDTH; unused tail is zero; row T_LEN holds the length of
# every other row: table_len(rules, T_DIE) faces on the stock die
(T_BRACKET_MAX, T_TAX_STANDARD, T_TAX_SMART, T_DIE, T_DUE_YEAR, T_DUE_PCT, T_RETIRE_PAYOUT,
 T_LEVEL_COST, T_FRANCHISE_COST, T_FRANCHISE_GROWTH, T_AD_LEVEL, T_AD_COST, T_AD_GROWTH,
 T_BUY_LOTS, T_SELL_LOTS, T_LEN, N_TABLE) = range(17)

# characters: rows of C_WIDTH
(C_ATTR, C_ABILITY, C_ABILITY_VALUE, C_KARNAXIS, C_KARNAXIS_VALUE, C_KARNAXIS_JOB,
 C_FORFEIT) = (0, 4, 5, 6, 7, 8, 9)
C_WIDTH = 10
ABILITIES = ("none", "growth_bonus", "stock_reroll", "photography", "tax_discount",
             "tuition_discount", "salary_bonus", "study_bonus", "unemployment_bonus",
             "retirement_bonus", "karnaxis_discount", "always_insured", "business_discount",
             "income_bonus", "franchise_discount")
(AB_NONE, AB_GROWTH_BONUS, AB_STOCK_REROLL, AB_PHOTOGRAPHY, AB_TAX_DISCOUNT, AB_TUITION_DISCOUNT,
 AB_SALARY_BONUS, AB_STUDY_BONUS, AB_UNEMPLOYMENT_BONUS, AB_RETIREMENT_BONUS, AB_KARNAXIS_DISCOUNT,
 AB_ALWAYS_INSURED, AB_BUSINESS_DISCOUNT, AB_INCOME_BONUS, AB_FRANCHISE_DISCOUNT) = range(15)
AMBITIONS = ("growth", "shares", "businesses", "jobs", "job", "college", "retirement", "cash",
             "dividends", "level", "franchises", "attribute", "income", "cards", "salary")
(K_GROWTH, K_SHARES, K_BUSINESSES, K_JOBS, K_JOB, K_COLLEGE, K_RETIREMENT, K_CASH, K_DIVIDENDS,
 K_LEVEL, K_FRANCHISES, K_ATTRIBUTE, K_INCOME, K_CARDS, K_SALARY) = range(15)

# jobs: rows of J_WIDTH; J_AVAILABLE is 0 when the player count removes the card
(J_SALARY, J_COLLEGE, J_ATTR, J_BENEFIT, J_AVAILABLE) = (0, 1, 2, 6, 7)
J_WIDTH = 8
BENEFITS = ("none", "tax_collector", "consultant", "professor", "banker", "extra_action")
(BEN_NONE, BEN_TAX_COLLECTOR, BEN_CONSULTANT, BEN_PROFESSOR, BEN_BANKER,
 BEN_EXTRA_ACTION) = range(6)

# businesses: rows of B_WIDTH
(B_LEVEL, B_GROWTH, B_ATTR, B_FIRM, B_AVAILABLE, B_ONLY_CHARACTER) = (0, 1, 2, 6, 7, 8)
B_WIDTH = 9
FIRMS = ("none", "accounting", "insurance", "advertising")
FIRM_NONE, FIRM_ACCOUNTING, FIRM_INSURANCE, FIRM_ADVERTISING = range(4)

# events: rows of E_WIDTH
E_EFFECT, E_VALUE, E_WIDTH = range(3)
EVENT_EFFECTS = ("none", "cash", "lottery", "medical", "stock_all", "stock_black", "salary",
                 "business_income", "tax", "tuition_free", "layoff", "growth", "unemployment")
(EF_NONE, EF_CASH, EF_LOTTERY, EF_MEDICAL, EF_STOCK_ALL, EF_STOCK_BLACK, EF_SALARY,
 EF_BUSINESS_INCOME, EF_TAX, EF_TUITION_FREE, EF_LAYOFF, EF_GROWTH, EF_UNEMPLOYMENT) = range(13)

# Karnaxis cards: rows of KC_WIDTH
KC_EFFECT, KC_VALUE, KC_WIDTH = range(3)
CARD_EFFECTS = ("cash", "attributes", "growth", "retirement", "black_shares", "college",
                "tax_free", "forgive", "dice_cash")
(KE_CASH, KE_ATTRIBUTES, KE_GROWTH, KE_RETIREMENT, KE_BLACK_SHARES, KE_COLLEGE, KE_TAX_FREE,
 KE_FORGIVE, KE_DICE_CASH) = range(9)


@rule
def table(rules, t, i):
    return rules[rules[CFG_TABLES] + t * rules[CFG_TABLE_WIDTH] + i]


@rule
def table_len(rules, t):
    return table(rules, T_LEN, t)


@rule
def payout_for(rules, tokens):
    """Retirement Fund (At Game End): what ``tokens`` retirement tokens pay by the ASSUMED
    payout table, each token beyond it ``retirement.extra_token_usd`` more (before any
    character's bonus per token).  Shared by the Game End settlement and the policies."""
    last = table_len(rules, T_RETIRE_PAYOUT) - 1
    if tokens <= last:
        return table(rules, T_RETIRE_PAYOUT, tokens)
    return table(rules, T_RETIRE_PAYOUT, last) + (tokens - last) * rules[CFG_EXTRA_TOKEN]


@rule
def character(rules, c, field):
    return rules[rules[CFG_CHARS] + c * C_WIDTH + field]


@rule
def job(rules, j, field):
    return rules[rules[CFG_JOBS] + j * J_WIDTH + field]


@rule
def biz(rules, b, field):
    return rules[rules[CFG_BIZ] + b * B_WIDTH + field]


@rule
def event(rules, e, field):
    return rules[rules[CFG_EVENTS] + e * E_WIDTH + field]


@rule
def kcard(rules, k, field):
    return rules[rules[CFG_KCARDS] + k * KC_WIDTH + field]


# ---------------------------------------------------------------- state: scalars
# The board (the shared pieces) first, then the loop position: PHASE is the step ``advance``
# resumes at (AT_CHARACTER: seat SEAT_I chooses a character; AT_NEW_YEAR: Update New Year of
# year YEAR + 1; AT_ACTION: seat number SEAT_I of action turn TURN, MOST turns this year;
# AT_YEAR_END; AT_END).  Search bookkeeping (search.py, decide.py): MODE is PLAIN, PROBE,
# REPLAY or ROLLOUT; DECISIONS counts the decisions of the current step, LOG_LEN those
# logged; FORCED is the option a replay forces at decision LOG_LEN; ROLLOUT_POLICY the policy
# every seat plays in a rollout; PENDING (0/1), PENDING_SEAT, PENDING_KIND, PENDING_OPTIONS
# (how many), PENDING_CANDIDATES (how many weighed) and PENDING_EVENT (its trace row) describe
# the search decision a probe met; SEARCH_DECISIONS counts the game's search decisions.
(YEAR, FUND, STARTER, NEXT_STARTER, SHARE_POOL, RETIRE_POOL, EVENT, NEXT_CARD, FRANCHISES_LEFT,
 UNEMP_TAKEN, EVENT_SALARY, EVENT_INCOME, EVENT_TAX, EVENT_TUITION_FREE, TRACE_N,
 PHASE, SEAT_I, TURN, MOST,
 MODE, DECISIONS, LOG_LEN, FORCED, ROLLOUT_POLICY, PENDING, PENDING_SEAT, PENDING_KIND,
 PENDING_OPTIONS, PENDING_CANDIDATES, PENDING_EVENT, SEARCH_DECISIONS,
 N_SCALARS) = range(32)
AT_CHARACTER, AT_NEW_YEAR, AT_ACTION, AT_YEAR_END, AT_END = range(5)
PLAIN, PROBE, REPLAY, ROLLOUT = range(4)

SEAT_POLICY = N_SCALARS

# ---------------------------------------------------------------- state: player boards
# One row of N_PLAYER slots per seat: the player board plus the year's flags and the ledger.
# ATTR..ATTR+3 the four attributes (N_ATTR slots); JOB/JOB_B job cards held (index or NONE): at
# most two, JOB_B being one found by Job Search after going to work; WORKED 0/1 whether JOB was
# worked this year; INSURED a token bought for the next event, PROTECTED immune to events now;
# USED a bitmask of action spaces used this year; JOBS_SEEN a bitmask of jobs ever held;
# CARDS_HELD Karnaxis cards saved for later (which ones: owners row KC_HOLDER); ACTIONS action
# squares this year; DEALT..DEALT+2 the first three character cards dealt at setup (NONE when
# fewer are dealt); QUALIFIED_JOBS / QUALIFIED_BIZ the bit masks of the job and business cards
# whose prerequisites the player meets, for the college years and attributes at
# QUALIFIED_FOR..QUALIFIED_FOR+4 (each plus one: all 0 before the first listing);
# AMBITION_SLOT / AMBITION_AT the slot of this board and the count that fulfil the character's
# Karnaxis when the slot reaches it (NONE: an ambition no one slot tells), read from the rules
# for the character AMBITION_FOR - 1 (0 before the first check: money.check_karnaxis).
(CASH, CHARACTER, ATTR, _ATTR1, _ATTR2, _ATTR3, COLLEGE, RETIRE_TOKENS, LOANS, PEAK_LOANS,
 NOTICES, JOB, JOB_B, WORKED,
 GROWTH, INCOME, ACCOUNTANT, INSURED, N_BUSINESSES, N_FRANCHISES, MERGED_LEVEL, BUSINESS_YEAR,
 FRANCHISE_YEAR, ACTIONS, USED, KARNAXIS_DONE, KARNAXIS_YEAR, KARNAXIS_REVOKED, JOBS_SEEN,
 CARDS_HELD, CARDS_BOUGHT, TAX_FREE, YEAR_SALARY, YEAR_BUSINESS, YEAR_TAX, YEAR_BRACKET,
 YEAR_SMART, SMART_YEARS, LOANS_COUNT, UNIVERSITY_YEARS, DISTINCT_JOBS, FORFEIT_DUE,
 PROTECTED, BUSINESS_LEVEL, DEALT, _DEALT1, _DEALT2,
 QUALIFIED_FOR, _QUALIFIED_FOR1, _QUALIFIED_FOR2, _QUALIFIED_FOR3, _QUALIFIED_FOR4,
 QUALIFIED_JOBS, QUALIFIED_BIZ, AMBITION_FOR, AMBITION_SLOT, AMBITION_AT,
 # ledger: every dollar in or out of CASH goes through one of these (money.gain / money.spend)
 L_SALARY, L_BUSINESS_INCOME, L_DIVIDENDS, L_UNEMPLOYMENT, L_KARNAXIS, L_LOANS, L_SHARES_SOLD,
 L_EVENT_GAIN, L_CARD_CASH, L_FROM_PLAYERS, L_BANK_BENEFITS, L_BAILOUT, L_RETIREMENT_PAYOUT,
 L_INTEREST_RECEIVED, L_TAXES, L_INTEREST, L_PRINCIPAL, L_SHARES_BOUGHT, L_TO_BANK, L_TO_PLAYERS,
 L_EVENT_LOSS,
 L_NOTICE_PENALTY, L_KARNAXIS_PAYBACK, COUNTS) = range(81)
# COUNTS + k: how often the player did COUNT_NAMES[k] over the game (the players table's
# `count_*` columns): the action spaces in ACT_* order (College and University apart), the
# trades in MK_* order, Karnaxis cards used and saved, stock dice re-rolled; slots CT_* below
COUNT_NAMES = ("collect_unemployment", "buy_karnaxis_card", "job_search", "go_to_work",
               "personal_study", "college", "retirement_fund", "buy_sell_stock",
               "start_business", "start_franchise", "advertise", "university",
               "hire_accountant", "buy_insurance", "sell_shares", "buy_shares",
               "use_karnaxis_card", "save_karnaxis_card", "reroll_stock_die")
N_PLAYER = COUNTS + len(COUNT_NAMES)
N_DEALT_KEPT = 3    # dealt characters kept for the players table (dealt_character_1..3)
LEDGER_IN = (L_SALARY, L_BUSINESS_INCOME, L_DIVIDENDS, L_UNEMPLOYMENT, L_KARNAXIS, L_LOANS,
             L_SHARES_SOLD, L_EVENT_GAIN, L_CARD_CASH, L_FROM_PLAYERS, L_BANK_BENEFITS, L_BAILOUT,
             L_RETIREMENT_PAYOUT, L_INTEREST_RECEIVED)
LEDGER_OUT = (L_TAXES, L_INTEREST, L_PRINCIPAL, L_SHARES_BOUGHT, L_TO_BANK, L_TO_PLAYERS,
              L_EVENT_LOSS, L_NOTICE_PENALTY, L_KARNAXIS_PAYBACK)
PLAYERS = SEAT_POLICY + MAX_PLAYERS

# ---------------------------------------------------------------- state: stocks and shares
# stock row s: seat s's business, row n_players the black business
VALUE, ACTIVE, N_STOCK = range(3)
STOCKS = PLAYERS + MAX_PLAYERS * N_PLAYER
SHARES = STOCKS + MAX_STOCKS * N_STOCK

# ---------------------------------------------------------------- state: decisions
# action spaces (bit k of USED); each option row is [ACTION, A, B, COST]
(ACT_UNEMPLOYMENT, ACT_KARNAXIS, ACT_JOB_SEARCH, ACT_WORK, ACT_STUDY, ACT_COLLEGE,
 ACT_RETIREMENT, ACT_MARKET, ACT_BUSINESS, ACT_FRANCHISE, ACT_ADVERTISE, N_SPACES) = range(12)
ACT_PASS = N_SPACES   # only when nothing else is legal
ACTION_NAMES = ("collect unemployment", "buy Karnaxis card", "job search", "go to work",
                "personal study", "college", "retirement fund", "buy/sell stock",
                "start business", "start franchise", "advertise", "pass")
# ACT_COLLEGE: A = 0 college, 1 university. ACT_WORK/ACT_JOB_SEARCH: A = job.
# ACT_BUSINESS: A = business. ACT_FRANCHISE: A = mother seat. ACT_ADVERTISE: A = tier.
# market decision rows: [MK_*, stock, shares, cost]
MK_DONE, MK_ACCOUNTANT, MK_INSURANCE, MK_SELL, MK_BUY = range(5)
# count slots (COUNTS + CT_*): an action space at its ACT_*, a University year, a trade at
# CT_TRADE + its MK_*, a card used or saved, a re-roll
CT_UNIVERSITY = N_SPACES
CT_TRADE = CT_UNIVERSITY + 1 - MK_ACCOUNTANT
CT_CARD_USED = CT_TRADE + MK_BUY + 1
CT_CARD_SAVED, CT_REROLL = CT_CARD_USED + 1, CT_CARD_USED + 2
assert CT_REROLL == len(COUNT_NAMES) - 1
# Karnaxis card decision rows: [CU_*, card, effect, value]; CU_SAVE with card NONE keeps every
# saved card
CU_SAVE, CU_USE = range(2)
# character rows: [character, 0, 0, 0]; attribute rows: [attribute, its value, 0, 0];
# re-roll rows: [0 keep / 1 re-roll, the die, the stock, 0]
OPT_ACTION, OPT_A, OPT_B, OPT_COST, OPT_WIDTH = range(5)
OPTIONS = SHARES + MAX_PLAYERS * MAX_STOCKS

# decision kinds a policy is asked about
D_CHARACTER, D_ACTION, D_ATTRIBUTE, D_MARKET, D_REROLL, D_CARD = range(6)
DECISION_NAMES = ("character", "action", "attribute", "trade", "re-roll", "card")

LOG = OPTIONS + MAX_OPTIONS * OPT_WIDTH
NOTES = LOG + MAX_LOG
CANDIDATES = NOTES + MAX_LOG

# ---------------------------------------------------------------- state: cards
# one row per kind, rules[CFG_DECK_WIDTH] wide.  OWN_BIZ / OWN_JOB: seat, NONE (on the board)
# or REMOVED (player-count symbol); FR_OWNER / FR_MOTHER: per franchise card, its seat and the
# seat whose (merged) business is its mother (NONE unused); DECK_EVENTS / DECK_CARDS /
# DECK_CHARS: event, Karnaxis card and character deck order; KC_HOLDER: per Karnaxis card, the
# seat saving it unused (NONE: in the deck or used), hidden from the other seats
(OWN_BIZ, OWN_JOB, FR_OWNER, FR_MOTHER, DECK_EVENTS, DECK_CARDS, KC_HOLDER, DECK_CHARS,
 N_OWNERS) = range(9)
REMOVED = -2
OWNERS = CANDIDATES + MAX_OPTIONS


@rule
def row(p):
    """Offset of seat p's player board."""
    return PLAYERS + p * N_PLAYER


@rule
def stock(s):
    """Offset of business s's stock row."""
    return STOCKS + s * N_STOCK


@rule
def share(p, s):
    """Offset of seat p's share count in business s."""
    return SHARES + p * MAX_STOCKS + s


@rule
def owners(rules, k):
    """Offset of row k (OWN_BIZ .. DECK_CHARS) of the card block."""
    return OWNERS + k * rules[CFG_DECK_WIDTH]


@rule
def opt(state, i, column):
    return state[OPTIONS + i * OPT_WIDTH + column]


# ---------------------------------------------------------------- trace and outputs
# trace rows (simulator.core.trace): [event, year, seat, a, b, before, after].  A search
# decision is EV_SEARCH (a kind, b options, before candidates, after rollouts) followed by one
# EV_SEARCH_OPTION per candidate (a kind, b option index, before its mean value in
# millionths, after its rollouts); the decision's option rows follow as EV_SEARCH_ROW (a
# ACTION, b A, before B, after COST).
(EV_CHARACTER, EV_YEAR, EV_EVENT, EV_STOCK, EV_DIVIDEND, EV_CRASH, EV_ACTION, EV_FIRED, EV_LOAN,
 EV_NOTICE, EV_SALARY, EV_BUSINESS_INCOME, EV_TAX, EV_LOAN_PAYMENT, EV_KARNAXIS, EV_FORFEIT,
 EV_TRADE, EV_CARD, EV_RETIREMENT, EV_FINAL, EV_REROLL, EV_EVENT_CASH, EV_CARD_SAVED,
 EV_SEARCH, EV_SEARCH_OPTION) = range(25)

# games output columns
(G_WINNER, G_LENGTH, G_END_REASON, G_UNEMPLOYMENT_LEFT, G_SHARES_LEFT, G_SEARCH_DECISIONS,
 N_GAME_OUT) = range(7)
END_REASONS = ("final_year",)
END_FINAL_YEAR = 0

# the players table's rows, one per game x seat, each column at the width the dataset stores
# it (as the years rows below); a code column holds an index into its labels (outputs.py)
PLAYER_ROW = np.dtype(
    [
        ("final_cash_usd", np.int64),
        ("won", np.bool_),
        ("character", np.int16),
        ("rank_title", np.int8),
        ("cash_before_end_usd", np.int64),
        ("retirement_tokens", np.int16),
        ("delinquent_notices", np.int16),
        ("loans_taken", np.int32),
        ("peak_loans_outstanding_usd", np.int64),
        ("karnaxis_fulfilled", np.bool_),
        ("karnaxis_year", np.int16),
        ("karnaxis_revoked", np.bool_),
        ("businesses", np.int16),
        ("franchises", np.int16),
        ("jobs_held", np.int16),
        ("college_years", np.int16),
        ("university_years", np.int16),
        ("smart_tax_years", np.int16),
        ("business_growth_usd", np.int64),
        ("business_income_level_usd", np.int64),
        ("karnaxis_cards_bought", np.int16),
        ("final_job", np.int16),
        ("shares_held", np.int16),
        ("attribute_total", np.int16),
        ("karnaxis_cards_unused", np.int16),
        ("dealt_characters", np.int16, (N_DEALT_KEPT,)),
        ("ledger", np.int64, (COUNTS - L_SALARY,)),  # L_SALARY .. COUNTS of the player row
        ("counts", np.int32, (len(COUNT_NAMES),)),  # COUNTS .. N_PLAYER of the player row
    ]
)
RANK_TITLES = ("Unranked", "Amateur", "Novice", "Expert", "Elite")
RANK_THRESHOLDS = (500000, 1000000, 1500000, 2000000)   # Game End: the rank chart

# the `years` timeline's rows (one per game x year x seat, game-major, then year, then seat): the
# kernel writes each column at the width the dataset stores it, as a byte written costs more than
# the arithmetic of a row (docs/performance.md); `year` and `seat` follow from a row's place
YEAR_ROW = np.dtype(
    [
        ("cash_usd", np.int64),
        ("income_usd", np.int64),
        ("tax_bracket", np.int8),
        ("tax_paid_usd", np.int64),
        ("smart_tax", np.bool_),
        ("loans_outstanding_usd", np.int64),
        ("delinquent_notices", np.int16),
        ("salary_usd", np.int64),
        ("business_income_usd", np.int64),
        ("business_growth_usd", np.int64),
    ]
)
