"""Ekonos state layout: the named slots of the engine's arrays (see engine.py's docstring).

Shared by the engine and the policies, so neither imports the other's internals.
"""

# cfg slots
# (CFG_REPLACED_RETURN, CFG_PRESIDENCY_INDICATOR: the rules switches, 1 on, 0 off)
(CFG_PLAYERS, CFG_TURNS, CFG_CARDS_PER_TURN, CFG_MONEY_PER_TURN, CFG_START_MONEY,
 CFG_MARKERS, CFG_SHARE_INDICATORS, CFG_GROWTH_SMALL, CFG_GROWTH_LARGE, CFG_EXPAND_SMALL,
 CFG_EXPAND_LARGE, CFG_COMPANIES, CFG_REPLACED_RETURN, CFG_PRESIDENCY_INDICATOR,
 N_CFG) = range(15)

# players columns; INDICATORS_LEFT counts the share indicators not on the board (neither on a
# share nor showing a presidency); EXPANSIONS counts expansions that placed at least one
# indicator, EMPTY_EXPANSIONS those that could place none
(CASH, INDICATORS_LEFT, MONEY_RECEIVED, BOUGHT, SOLD, SPENT, PROCEEDS, EXPANSIONS, PLACED,
 PROTECTED_PLAYS, GROWN, DISCARDED, EMPTY_EXPANSIONS, N_PLAYER) = range(14)

# companies columns; PRESIDENT is a seat or NONE; ON_BOARD counts all the company's markers,
# PROTECTED_ON_BOARD the protected ones among them
GROWTH, PRESIDENT, ON_BOARD, PROTECTED_ON_BOARD, SUPPLY, SHARES_OUT, N_COMPANY = range(7)
NONE = -1

# board columns; OWNER is a company or EMPTY
OWNER, PROTECTED, N_SPACE = range(3)
EMPTY = -1

# card functions (Playing a Card): function 1 places/protects, 2 and 3 raise growth
PLACE_FUNCTION, GROW_A, GROW_B = range(3)

# decision kinds a policy is asked about
CHOOSE_CARD, CHOOSE_SPACE, EXPAND_NOW, SELL, BUY, NAME_PRESIDENT = range(6)

# option columns: CHOOSE_CARD (hand slot, function, company); CHOOSE_SPACE (space, -, -);
# SELL / BUY (company or NONE for "no trade"); EXPAND_NOW (1 expand, 0 wait);
# NAME_PRESIDENT (seat)
OPT_A, OPT_B, OPT_C, OPT_WIDTH = range(4)

# trace rows: [event, turn, seat, a, b, c, d]; EV_PRESIDENT's seat is the new president or
# NONE, b the old one and c the shares left after a sale; EV_EXPAND_WAIT's c is 1 when nothing
# could be placed; EV_EXPAND_EMPTY's b is NO_SUPPLY or NO_SPACE
TRACE_WIDTH = 7
(EV_TURN, EV_DEAL, EV_PLACE, EV_PROTECT, EV_GROW, EV_EXPAND_WAIT, EV_EXPAND, EV_SELL, EV_BUY,
 EV_PRESIDENT, EV_DISCARD, EV_SCORE, EV_EXPAND_EMPTY) = range(13)
NO_SUPPLY, NO_SPACE = range(2)

# games output columns (and `games` categories)
G_WINNER, G_LENGTH, G_END_REASON, G_ROUNDS, N_GAME_OUT = range(5)
END_FINAL_TURN = 0
# players output columns before the per-company ones
(P_SCORE, P_WON, P_CASH, P_HOLDINGS, P_BOUGHT, P_SOLD, P_SPENT, P_PROCEEDS, P_RECEIVED,
 P_EXPANSIONS, P_PLACED, P_PROTECTED, P_GROWN, P_DISCARDED, P_EMPTY_EXPANSIONS,
 N_PLAYER_OUT) = range(16)
