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
from simulator.games.karnaxis.actions import action_square, start_actions
from simulator.games.karnaxis.decide import choose, is_search
from simulator.games.karnaxis.money import add_option, record
from simulator.games.karnaxis.new_year import update_new_year
from simulator.games.karnaxis.state import (
    ACTIVE,
    AT_ACTION,
    AT_CHARACTER,
    AT_END,
    AT_NEW_YEAR,
    AT_YEAR_END,
    ATTR,
    B_AVAILABLE,
    C_ATTR,
    CASH,
    CFG_DEALT,
    CFG_DECK_WIDTH,
    CFG_FRANCHISE_CARDS,
    CFG_FUND_START,
    CFG_N_BIZ,
    CFG_N_CHARS,
    CFG_N_EVENTS,
    CFG_N_JOBS,
    CFG_N_KCARDS,
    CFG_PLAYERS,
    CFG_RETIREMENT_TOKENS,
    CFG_SHARE_TOKENS,
    CFG_START_CASH,
    CFG_STOCK_START,
    CFG_YEARS,
    CHARACTER,
    D_CHARACTER,
    DEALT,
    DECISIONS,
    DECK_CARDS,
    DECK_CHARS,
    DECK_EVENTS,
    EV_CHARACTER,
    FRANCHISES_LEFT,
    FUND,
    GROWTH,
    J_AVAILABLE,
    JOB,
    JOB_B,
    LOANS,
    MODE,
    N_ATTR,
    N_DEALT_KEPT,
    N_OWNERS,
    NONE,
    NOTICES,
    OPT_ACTION,
    OWN_BIZ,
    OWN_JOB,
    OWNERS,
    PHASE,
    PLAIN,
    PROBE,
    REMOVED,
    RETIRE_POOL,
    SEAT_I,
    SEAT_POLICY,
    SHARE_POOL,
    VALUE,
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
    YEAR,
    YEAR_BRACKET,
    YEAR_BUSINESS,
    YEAR_SALARY,
    YEAR_SMART,
    YEAR_TAX,
    biz,
    character,
    job,
    opt,
    owners,
    row,
    stock,
)
from simulator.games.karnaxis.year_end import year_end

# ---------------------------------------------------------------- Game Setup


@allocating
def new_game(state, rules, knobs, rng, seed, seat_policies):
    """A fresh game, set up up to the character choices.  ``seat_policies`` int8[n_players]:
    each seat's policy; a seat playing `search` makes the game's MODE PROBE."""
    state[:] = 0
    rng[:] = rng_new(seed)
    state[OWNERS : OWNERS + N_OWNERS * rules[CFG_DECK_WIDTH]] = NONE
    state[MODE] = PLAIN
    for p in range(rules[CFG_PLAYERS]):
        state[SEAT_POLICY + p] = seat_policies[p]
        if is_search(knobs, seat_policies[p]):
            state[MODE] = PROBE
    setup(state, rules, rng)


@rule
def setup(state, rules, rng):
    """Game Setup: $10,000 each; black business at 5; job and business cards by player-count
    symbol; shuffle the event and Karnaxis decks and the character cards to deal.  Seat 0 is
    the starting player (the highest die roll)."""
    for b in range(rules[CFG_N_BIZ]):
        if biz(rules, b, B_AVAILABLE) == 0:
            state[owners(rules, OWN_BIZ) + b] = REMOVED
    for j in range(rules[CFG_N_JOBS]):
        if job(rules, j, J_AVAILABLE) == 0:
            state[owners(rules, OWN_JOB) + j] = REMOVED
    deal_deck(state, rules, rng, DECK_EVENTS, rules[CFG_N_EVENTS])
    deal_deck(state, rules, rng, DECK_CARDS, rules[CFG_N_KCARDS])
    deal_deck(state, rules, rng, DECK_CHARS, rules[CFG_N_CHARS])
    state[FUND] = rules[CFG_FUND_START]
    state[SHARE_POOL] = rules[CFG_SHARE_TOKENS]
    state[RETIRE_POOL] = rules[CFG_RETIREMENT_TOKENS]
    state[FRANCHISES_LEFT] = rules[CFG_FRANCHISE_CARDS]
    black = rules[CFG_PLAYERS]
    state[stock(black) + ACTIVE] = 1
    state[stock(black) + VALUE] = rules[CFG_STOCK_START]
    for p in range(rules[CFG_PLAYERS]):
        state[row(p) + CASH] = rules[CFG_START_CASH]
        state[row(p) + JOB], state[row(p) + JOB_B] = NONE, NONE
    state[PHASE], state[SEAT_I] = AT_CHARACTER, 0


@rule
def deal_deck(state, rules, rng, deck, n):
    """Shuffle: cards 0..n-1 in a random order into row ``deck`` of the card block."""
    at = owners(rules, deck)
    for k in range(n):
        state[at + k] = k
    shuffle(rng, SETUP, state[at : at + n])


@rule
def choose_character(state, rules, knobs, rng, trace, p):
    """Game Setup: deal 3 character cards to the player, who keeps 1 and marks its four
    attribute numbers; the other 2 are removed from play."""
    dealt = rules[CFG_DEALT]
    deck = owners(rules, DECK_CHARS)
    for k in range(N_DEALT_KEPT):
        state[row(p) + DEALT + k] = state[deck + p * dealt + k] if k < dealt else NONE
    for k in range(dealt):
        c = state[deck + p * dealt + k]
        add_option(state, k, c, 0, 0, 0)
    i = choose(state, rules, knobs, rng, trace, D_CHARACTER, p, NONE, dealt)
    c = opt(state, i, OPT_ACTION)
    state[row(p) + CHARACTER] = c
    for a in range(N_ATTR):
        state[row(p) + ATTR + a] = character(rules, c, C_ATTR + a)
    record(state, trace, EV_CHARACTER, p, c, 0, 0, state[row(p) + CASH])


# ---------------------------------------------------------------- the loop


@layer
def play_step(state, rules, knobs, rng, trace):
    """Play one step from the loop position (module docstring)."""
    phase = state[PHASE]
    state[DECISIONS] = 0
    if phase == AT_CHARACTER:
        choose_character(state, rules, knobs, rng, trace, state[SEAT_I])
        state[SEAT_I] += 1
        if state[SEAT_I] == rules[CFG_PLAYERS]:
            state[PHASE] = AT_NEW_YEAR
    elif phase == AT_NEW_YEAR:
        update_new_year(state, rules, knobs, rng, trace, state[YEAR] + 1)
        start_actions(state, rules)
        state[PHASE] = AT_ACTION
    elif phase == AT_ACTION:
        if action_square(state, rules, knobs, rng, trace):
            state[PHASE] = AT_YEAR_END
    elif phase == AT_YEAR_END:
        year_end(state, rules, trace)
        state[PHASE] = AT_END if state[YEAR] >= rules[CFG_YEARS] else AT_NEW_YEAR


@rule
def advance(state, rules, knobs, rng, trace, out_years, last_year):
    """Play from a step boundary until the game ends or year ``last_year`` is over, writing
    each year's rows of the `years` timeline into ``out_years`` (when it has rows)."""
    while state[PHASE] != AT_END and not (state[PHASE] == AT_NEW_YEAR and state[YEAR] >= last_year):
        year_ends = state[PHASE] == AT_YEAR_END
        play_step(state, rules, knobs, rng, trace)
        if year_ends:
            write_years(state, rules, out_years)


@rule
def write_years(state, rules, out_years):
    """The `years` timeline: one row per seat after the Year End Review of year YEAR
    (``out_years`` int64[years * n_players, N_YEAR_OUT], or no rows)."""
    n = rules[CFG_PLAYERS]
    first = (state[YEAR] - 1) * n
    if first + n > out_years.shape[0]:
        return
    for p in range(n):
        r = row(p)
        out = out_years[first + p]
        out[Y_YEAR], out[Y_SEAT] = state[YEAR], p
        out[Y_CASH] = state[r + CASH]
        out[Y_INCOME] = state[r + YEAR_SALARY] + state[r + YEAR_BUSINESS]
        out[Y_BRACKET] = state[r + YEAR_BRACKET]
        out[Y_TAX] = state[r + YEAR_TAX]
        out[Y_SMART] = state[r + YEAR_SMART]
        out[Y_LOANS] = state[r + LOANS]
        out[Y_NOTICES] = state[r + NOTICES]
        out[Y_SALARY] = state[r + YEAR_SALARY]
        out[Y_BUSINESS_INCOME] = state[r + YEAR_BUSINESS]
        out[Y_GROWTH] = state[r + GROWTH]
