"""Ekonos state layout: the named slots of the engine's arrays.

A game is two arrays: ``state`` (int64, below) and ``rng`` (uint64[N_STREAMS], simulator.core.rng).
The rules of one player count are one read-only int64 array ``rules`` (below) and the policies'
knobs one float64[n_policies, 1 + n_knobs] table.  Copying a game is ``work[:] = state``.

Every block of ``state`` is field-major: a field holds one slot per seat, company or space,
so rule code reads ``state[S.CASH + seat]``, ``state[S.GROWTH + c]``, ``state[S.OWNER + space]``
(the engine's modules name this one ``S``: numba reads a module's names as compile-time
constants, so a qualified name costs nothing and no module lists the names it uses).
All offsets are compile-time constants except UNSEEN, whose offset (after the deck order)
depends on the deck's length and is stored in ``rules[CFG_UNSEEN]``::

    offset        block                                              slots
    0             loop position, search bookkeeping (scalars)        N_SCALARS
    SEAT_POLICY   policy id of each seat                         MAX_PLAYERS
    CASH ..       per-seat counters, one block each              MAX_PLAYERS x N_SEAT_FIELDS
    GROWTH ..     per-company fields, one block each             MAX_COMPANIES x N_COMPANY_FIELDS
    SHARES        shares held, seat-major (share_slot)           MAX_PLAYERS x MAX_COMPANIES
    OWNER         company on each space, EMPTY when free         MAX_SPACES
    HANDS         card ids, -1 for a played slot, seat-major         MAX_PLAYERS x MAX_HAND
    CARD_CODES    the hand's option codes by company, seat-major     MAX_PLAYERS x MAX_COMPANIES
    LOG, NOTES    the step's decisions; trace rows of their values   MAX_LOG each
    CANDIDATES    options a pending search decision weighs; CODES    MAX_OPTIONS each
    DECK_ORDER    this turn's shuffled deck (dealt, then undealt)    n_cards
    UNSEEN        scratch for re-dealing hidden cards                n_cards

The board is also kept as bit masks (bit s = space s, at most MAX_SPACES = 63 spaces so a
mask is a non-negative int64): MINE + c (company c's markers), OCCUPIED, PROTECTED.

The current decision's options are a mask too, OFFERED: option i is its i-th lowest item,
an option code whose meaning the decision's kind gives (below, "option codes").  And so is a
hand, by company: CARD_CODES + seat x MAX_COMPANIES + c holds the option codes of the seat's
cards whose function acts on company c (board.index_hand), so the card options are a few
masks combined, not a walk through the hand.
"""

# The slot tables are laid out by hand, a block of names per line.
# fmt: off
MAX_PLAYERS = 6
MAX_COMPANIES = 12
MAX_SPACES = 63       # bit 63 would be the int64 sign bit
MAX_HAND = 21         # 3 functions a card: a hand's option codes fit a mask
MAX_OPTIONS = 64
MAX_CARDS = 1000
MAX_TURNS = 100       # so rounds (turns x cards x players) fit the int16 `rounds` column
MAX_SHARE_INDICATORS = 1000   # a seat's shares fit the int16 `company{c}_shares` column
MAX_LOG = 96          # decisions in one step: card, space or expand-now, up to 63 expansions

# --- rules: header slots, then the neighbour masks and the deck -----------------------------
# (CFG_REPLACED_RETURN, CFG_PRESIDENCY_INDICATOR: the rules switches, 1 on, 0 off;
#  CFG_SCORE_INDICATOR, CFG_SCORE_MU, CFG_SCORE_PRESIDENCY: the points of the [scoring] keys;
#  CFG_SPACES: spaces on the board, CFG_ALL_SPACES: their mask, CFG_CARDS: deck length,
#  CFG_UNSEEN: offset of the UNSEEN block in the state, CFG_STATE_SIZE: the state's length)
(CFG_PLAYERS, CFG_TURNS, CFG_CARDS_PER_TURN, CFG_MONEY_PER_TURN, CFG_START_MONEY,
 CFG_MARKERS, CFG_SHARE_INDICATORS, CFG_GROWTH_SMALL, CFG_GROWTH_LARGE, CFG_EXPAND_SMALL,
 CFG_EXPAND_LARGE, CFG_COMPANIES, CFG_REPLACED_RETURN, CFG_PRESIDENCY_INDICATOR,
 CFG_SCORE_INDICATOR, CFG_SCORE_MU, CFG_SCORE_PRESIDENCY,
 CFG_SPACES, CFG_ALL_SPACES, CFG_CARDS, CFG_UNSEEN, CFG_STATE_SIZE, N_CFG) = range(23)
NEIGHBOURS = N_CFG                    # mask of the spaces orthogonally next to space s
DECK = NEIGHBOURS + MAX_SPACES        # card k's companies at DECK + 3k + function

# --- state ------------------------------------------------------------------------------------
# Loop position: the step `advance` resumes at.  PHASE is AT_DEAL (turn start), AT_CARD,
# AT_SELL, AT_BUY (the three parts of a round) or AT_END; ROUND counts the rounds played in
# this turn, ROUNDS in the game; SEAT is the seat whose round it is (STARTER + ROUND, kept
# so that the loop never divides by the player count); EVENTS counts trace rows written.
# Search bookkeeping (simulator/games/ekonos/search.py): MODE is PLAIN, PROBE, REPLAY or
# ROLLOUT; DECISIONS counts the decisions of the current step, LOG_LEN those logged; FORCED
# is the option a replay forces at decision LOG_LEN; ROLLOUT_POLICY the policy every seat plays
# in a rollout; PENDING (0/1), PENDING_SEAT, PENDING_KIND, PENDING_OPTIONS (how many),
# PENDING_CANDIDATES (how many weighed) and PENDING_EVENT (trace row) describe the search
# decision a probe met; SEARCH_DECISIONS counts the game's search decisions.
(TURN, STARTER, ROUND, SEAT, PHASE, ROUNDS, EVENTS,
 MODE, DECISIONS, LOG_LEN, FORCED, ROLLOUT_POLICY, PENDING, PENDING_SEAT, PENDING_KIND,
 PENDING_OPTIONS, PENDING_CANDIDATES, PENDING_EVENT, SEARCH_DECISIONS,
 OCCUPIED, PROTECTED, OFFERED, N_SCALARS) = range(23)
AT_DEAL, AT_CARD, AT_SELL, AT_BUY, AT_END = range(5)
PLAIN, PROBE, REPLAY, ROLLOUT = range(4)
SEAT_POLICY = N_SCALARS

# per-seat fields; INDICATORS_LEFT counts the share indicators not on the board (neither on a
# share nor showing a presidency); EXPANSIONS counts expansions that placed at least one
# indicator, EMPTY_EXPANSIONS those that could place none; EARLY_EXPANSIONS and WAITS the
# president's choices at level 4 (expand now, wait), NAMED the presidents named among tied holders
SEAT_FIELDS = SEAT_POLICY + MAX_PLAYERS
(CASH, INDICATORS_LEFT, MONEY_RECEIVED, BOUGHT, SOLD, SPENT, PROCEEDS, EXPANSIONS, PLACED,
 PROTECTED_PLAYS, GROWN, DISCARDED, EMPTY_EXPANSIONS, EARLY_EXPANSIONS, WAITS, NAMED) = range(
    SEAT_FIELDS, SEAT_FIELDS + 16 * MAX_PLAYERS, MAX_PLAYERS)

# per-company fields; PRESIDENT is a seat or NONE; ON_BOARD counts the company's markers on the
# board; MINE is their mask
COMPANY_FIELDS = NAMED + MAX_PLAYERS
GROWTH, PRESIDENT, ON_BOARD, SUPPLY, SHARES_OUT, MINE = range(
    COMPANY_FIELDS, COMPANY_FIELDS + 6 * MAX_COMPANIES, MAX_COMPANIES)
NONE = -1

SHARES = MINE + MAX_COMPANIES
OWNER = SHARES + MAX_PLAYERS * MAX_COMPANIES
EMPTY = -1
HANDS = OWNER + MAX_SPACES
CARD_CODES = HANDS + MAX_PLAYERS * MAX_HAND
# option codes, the items of OFFERED, in the engine's order of the options (ascending):
# CHOOSE_CARD 3 x hand slot + function; CHOOSE_SPACE a space; SELL / BUY NO_TRADE or
# TRADED + company; EXPAND_NOW EXPAND_NOW_CODE, then WAIT_CODE; NAME_PRESIDENT a seat
NO_TRADE, TRADED = 0, 1
EXPAND_NOW_CODE, WAIT_CODE = 0, 1
PLACE_CODES = sum(1 << 3 * slot for slot in range(MAX_HAND))  # every slot's function 1
GROW_CODES = PLACE_CODES << 1 | PLACE_CODES << 2  # and its functions 2 and 3
LOG = CARD_CODES + MAX_PLAYERS * MAX_COMPANIES
NOTES = LOG + MAX_LOG
CANDIDATES = NOTES + MAX_LOG
CODES = CANDIDATES + MAX_OPTIONS
DECK_ORDER = CODES + MAX_OPTIONS

# card functions (Playing a Card): function 1 places/protects, 2 and 3 raise growth
PLACE_FUNCTION, GROW_A, GROW_B = range(3)

# decision kinds a policy is asked about
CHOOSE_CARD, CHOOSE_SPACE, EXPAND_NOW, SELL, BUY, NAME_PRESIDENT = range(6)

# trace rows: [event, turn, seat, a, b, c, d]; EV_PRESIDENT's seat is the new president or
# NONE, b the old one, c the shares left after a sale and d 1 when a holder passed over takes
# office once a share indicator is free (engine.claim_presidencies); EV_SCORE's a, b, d are
# the points of cash, holdings and presidencies and c the score; EV_EXPAND_WAIT's c is 1 when
# nothing could be placed; EV_EXPAND_EMPTY's b is NO_SUPPLY or NO_SPACE.  A search decision is
# EV_SEARCH (a kind, b options, c candidates, d rollouts) followed by one EV_SEARCH_OPTION per
# candidate (a kind, b option code, c mean value in millionths, d rollouts); option codes:
# card x 3 + function, a space, 1 expand / 0 wait, a company or NONE, a seat.
TRACE_WIDTH = 7
(EV_TURN, EV_DEAL, EV_PLACE, EV_PROTECT, EV_GROW, EV_EXPAND_WAIT, EV_EXPAND, EV_SELL, EV_BUY,
 EV_PRESIDENT, EV_DISCARD, EV_SCORE, EV_EXPAND_EMPTY, EV_SEARCH, EV_SEARCH_OPTION) = range(15)
NO_SUPPLY, NO_SPACE = range(2)

# games output columns (and `games` categories)
G_WINNER, G_LENGTH, G_END_REASON, G_ROUNDS, G_SEARCH_DECISIONS, N_GAME_OUT = range(6)
END_FINAL_TURN = 0
# players output columns before the per-company ones
(P_SCORE, P_WON, P_CASH, P_HOLDINGS, P_BOUGHT, P_SOLD, P_SPENT, P_PROCEEDS, P_RECEIVED,
 P_EXPANSIONS, P_PLACED, P_PROTECTED, P_GROWN, P_DISCARDED, P_EMPTY_EXPANSIONS,
 P_EARLY_EXPANSIONS, P_WAITS, P_NAMED, N_PLAYER_OUT) = range(19)
