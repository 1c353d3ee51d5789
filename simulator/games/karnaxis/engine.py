"""Karnaxis engine: Game Setup and the resumable loop of steps (rulebook:
shared/rules/karnaxis.md).

A game is two arrays, ``state`` int64 and ``rng`` uint64[N_STREAMS]; the rules are one
read-only int64 array and the policies' knobs a float64 table (layout: :mod:`state`).  Rule
functions take ``(state, rules[, knobs, rng][, trace])`` and scalars, and are compiled without
numba's reference counting (``rule``, :mod:`simulator.core.kernel`): only the functions that
allocate (``allocating``: a new game's streams, the search's scores and re-deal; ``entry``:
the games loops Python calls, with a chunk's buffers) count references.  ``trace``
int64[max_events, TRACE_WIDTH] has zero rows in bulk runs.

The rules live in one module per stage of the rulebook, each rule function citing its section:
:mod:`money` (bookkeeping, Loan Odds 'n Ends, Fulfilling Your Karnaxis), :mod:`new_year`
(1. Update New Year: events and stocks), :mod:`actions` (2. Take Action!), :mod:`business`
(businesses, franchises, the level-4 firms, Buy/Sell Stock), :mod:`year_end` (3. Year End
Review and Game End).  Decisions go through :func:`decide.choose`: the engine lists the legal
options in the state's OPTIONS block and the seat's policy picks an index, so an illegal move
cannot be expressed.

This module sets a game up and plays it step by step.  The loop position lives in the state
(PHASE, SEAT_I, TURN), so :func:`advance` resumes from any step boundary; a step is one
seat's character choice, one year's Update New Year, one action square (with the Karnaxis
cards its player uses before it), or one Year End Review.  The search player copies the state
at a step boundary and plays on from there (search.py).
"""

from simulator.core.kernel import allocating, layer, rule
from simulator.core.rng import SETUP, rng_new, shuffle
from simulator.games.karnaxis import actions, decide, money, new_year, year_end
from simulator.games.karnaxis import state as S

# ---------------------------------------------------------------- Game Setup


@allocating
def new_game(state, rules, knobs, rng, seed, seat_policies):
    """A fresh game, set up up to the character choices.  ``seat_policies`` int8[n_players]:
    each seat's policy; a seat playing `search` makes the game's MODE PROBE."""
    state[:] = 0
    rng[:] = rng_new(seed)
    state[S.OWNERS : S.OWNERS + S.N_OWNERS * rules[S.CFG_DECK_WIDTH]] = S.NONE
    state[S.MODE] = S.PLAIN
    for p in range(rules[S.CFG_PLAYERS]):
        state[S.SEAT_POLICY + p] = seat_policies[p]
        if decide.is_search(knobs, seat_policies[p]):
            state[S.MODE] = S.PROBE
    setup(state, rules, rng)


@rule
def setup(state, rules, rng):
    """Game Setup: $10,000 each; black business at 5; job and business cards by player-count
    symbol; shuffle the event and Karnaxis decks and the character cards to deal.  Seat 0 is
    the starting player (the highest die roll)."""
    for b in range(rules[S.CFG_N_BIZ]):
        if S.biz(rules, b, S.B_AVAILABLE) == 0:
            state[S.owners(rules, S.OWN_BIZ) + b] = S.REMOVED
    for j in range(rules[S.CFG_N_JOBS]):
        if S.job(rules, j, S.J_AVAILABLE) == 0:
            state[S.owners(rules, S.OWN_JOB) + j] = S.REMOVED
    deal_deck(state, rules, rng, S.DECK_EVENTS, rules[S.CFG_N_EVENTS])
    deal_deck(state, rules, rng, S.DECK_CARDS, rules[S.CFG_N_KCARDS])
    deal_deck(state, rules, rng, S.DECK_CHARS, rules[S.CFG_N_CHARS])
    state[S.FUND] = rules[S.CFG_FUND_START]
    state[S.SHARE_POOL] = rules[S.CFG_SHARE_TOKENS]
    state[S.RETIRE_POOL] = rules[S.CFG_RETIREMENT_TOKENS]
    state[S.FRANCHISES_LEFT] = rules[S.CFG_FRANCHISE_CARDS]
    black = rules[S.CFG_PLAYERS]
    state[S.stock(black) + S.ACTIVE] = 1
    state[S.stock(black) + S.VALUE] = rules[S.CFG_STOCK_START]
    for p in range(rules[S.CFG_PLAYERS]):
        state[S.row(p) + S.CASH] = rules[S.CFG_START_CASH]
        state[S.row(p) + S.JOB], state[S.row(p) + S.JOB_B] = S.NONE, S.NONE
    state[S.PHASE], state[S.SEAT_I] = S.AT_CHARACTER, 0


@rule
def deal_deck(state, rules, rng, deck, n):
    """Shuffle: cards 0..n-1 in a random order into row ``deck`` of the card block."""
    at = S.owners(rules, deck)
    for k in range(n):
        state[at + k] = k
    shuffle(rng, SETUP, state[at : at + n])


@rule
def choose_character(state, rules, knobs, rng, trace, p):
    """Game Setup: deal 3 character cards to the player, who keeps 1 and marks its four
    attribute numbers; the other 2 are removed from play."""
    n = deal_characters(state, rules, p)
    i = decide.choose(state, rules, knobs, rng, trace, S.D_CHARACTER, p, S.NONE, n)
    keep_character(state, rules, trace, p, i)


@rule
def deal_characters(state, rules, p):
    """The character cards dealt to ``p``, listed in the OPTIONS block; returns how many."""
    dealt = rules[S.CFG_DEALT]
    deck = S.owners(rules, S.DECK_CHARS)
    for k in range(S.N_DEALT_KEPT):
        state[S.row(p) + S.DEALT + k] = state[deck + p * dealt + k] if k < dealt else S.NONE
    for k in range(dealt):
        c = state[deck + p * dealt + k]
        money.add_option(state, k, c, 0, 0, 0)
    return dealt


@rule
def keep_character(state, rules, trace, p, i):
    """``p`` keeps the dealt character of option ``i`` and marks its attribute numbers."""
    c = S.opt(state, i, S.OPT_ACTION)
    state[S.row(p) + S.CHARACTER] = c
    for a in range(S.N_ATTR):
        state[S.row(p) + S.ATTR + a] = S.character(rules, c, S.C_ATTR + a)
    money.record(state, trace, S.EV_CHARACTER, p, c, 0, 0, state[S.row(p) + S.CASH])


@rule
def next_character_seat(state, rules):
    """Game Setup: on to the next seat's character choice, after the last to the first year."""
    state[S.SEAT_I] += 1
    if state[S.SEAT_I] == rules[S.CFG_PLAYERS]:
        state[S.PHASE] = S.AT_NEW_YEAR


# ---------------------------------------------------------------- the loop


@layer
def play_step(state, rules, knobs, rng, trace):
    """Play one step from the loop position (module docstring)."""
    phase = state[S.PHASE]
    state[S.DECISIONS] = 0
    if phase == S.AT_CHARACTER:
        choose_character(state, rules, knobs, rng, trace, state[S.SEAT_I])
        next_character_seat(state, rules)
    elif phase == S.AT_NEW_YEAR:
        new_year.update_new_year(state, rules, knobs, rng, trace, state[S.YEAR] + 1)
        actions.start_actions(state, rules)
        state[S.PHASE] = S.AT_ACTION
    elif phase == S.AT_ACTION:
        if actions.action_square(state, rules, knobs, rng, trace):
            state[S.PHASE] = S.AT_YEAR_END
    elif phase == S.AT_YEAR_END:
        year_end.year_end(state, rules, trace)
        state[S.PHASE] = S.AT_END if state[S.YEAR] >= rules[S.CFG_YEARS] else S.AT_NEW_YEAR


@rule
def advance(state, rules, knobs, rng, trace, last_year):
    """Play from a step boundary until the game ends or year ``last_year`` is over."""
    while state[S.PHASE] != S.AT_END and not (
        state[S.PHASE] == S.AT_NEW_YEAR and state[S.YEAR] >= last_year
    ):
        play_step(state, rules, knobs, rng, trace)


@rule
def play_to_end(state, rules, knobs, rng, trace, out_years):
    """Play from a step boundary to the end of the game, writing each year's rows of the
    `years` timeline into ``out_years`` (state.YEAR_ROW)."""
    while state[S.PHASE] != S.AT_END:
        year_ends = state[S.PHASE] == S.AT_YEAR_END
        play_step(state, rules, knobs, rng, trace)
        if year_ends:
            write_years(state, rules, out_years)


@rule
def write_years(state, rules, out_years):
    """The `years` timeline: one row per seat after the Year End Review of year YEAR
    (``out_years`` of state.YEAR_ROW, years * n_players rows)."""
    n = rules[S.CFG_PLAYERS]
    first = (state[S.YEAR] - 1) * n
    for p in range(n):
        r = S.row(p)
        out = out_years[first + p]
        out["cash_usd"] = state[r + S.CASH]
        out["income_usd"] = state[r + S.YEAR_SALARY] + state[r + S.YEAR_BUSINESS]
        out["tax_bracket"] = state[r + S.YEAR_BRACKET]
        out["tax_paid_usd"] = state[r + S.YEAR_TAX]
        out["smart_tax"] = state[r + S.YEAR_SMART] != 0
        out["loans_outstanding_usd"] = state[r + S.LOANS]
        out["delinquent_notices"] = state[r + S.NOTICES]
        out["salary_usd"] = state[r + S.YEAR_SALARY]
        out["business_income_usd"] = state[r + S.YEAR_BUSINESS]
        out["business_growth_usd"] = state[r + S.GROWTH]
