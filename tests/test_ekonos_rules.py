"""Ekonos rules (shared/rules/ekonos.md), Preparation and Playing a Card: one small scenario per
rule, each citing its section.

Each test puts a position together (the board drawn as text), calls the rule function or plays
one step, and asserts what the rulebook says happens.  Where a rule involves a decision the
position leaves one legal option, or a policy's knobs fix the choice, or every option is tried.
These tests play at most one whole game: `make mutants` runs them under NUMBA_DISABLE_JIT=1.
"""

import numpy as np
import pytest
from ekonos_table import (
    ALPHA,
    ALWAYS,
    BETA,
    CARD_EVENTS,
    DELTA,
    GAME,
    NEVER,
    Table,
    alpha_presided,
    traced_game,
)

from policies.ekonos import EXPAND_EARLY, MARKET_BUILDER
from simulator.games.ekonos import board
from simulator.games.ekonos.state import (
    AT_DEAL,
    AT_END,
    CASH,
    CFG_CARDS_PER_TURN,
    CFG_MARKERS,
    CFG_MONEY_PER_TURN,
    CFG_TURNS,
    DISCARDED,
    EMPTY_EXPANSIONS,
    EV_BUY,
    EV_DISCARD,
    EV_EXPAND,
    EV_EXPAND_EMPTY,
    EV_EXPAND_WAIT,
    EV_GROW,
    EV_PRESIDENT,
    EV_TURN,
    EXPANSIONS,
    GROW_A,
    GROW_B,
    GROWTH,
    INDICATORS_LEFT,
    MONEY_RECEIVED,
    NO_SPACE,
    NO_SUPPLY,
    ON_BOARD,
    PHASE,
    PLACE_FUNCTION,
    PRESIDENT,
    PROTECTED,
    SHARES_OUT,
    SUPPLY,
)

# --- Preparation -------------------------------------------------------------------------------


def test_preparation_turn_table_by_player_count():
    """Preparation: turns, cards per turn and M.U. per turn for 3-6 players."""
    got = {}
    for n in (3, 4, 5, 6):
        cfg = GAME.prepare(GAME.rules(), n)[0]
        got[n] = (cfg[CFG_TURNS], cfg[CFG_CARDS_PER_TURN], cfg[CFG_MONEY_PER_TURN])
    assert got == {6: (2, 6, 12), 5: (3, 5, 10), 4: (3, 6, 12), 3: (4, 6, 12)}


@pytest.mark.parametrize("n_players", [4, 5])
def test_preparation_each_turn_deals_the_cards_and_money(n_players):
    """Preparation: at the start of each turn every player is dealt the turn's cards and M.U.
    (ASSUMED: from the whole deck, reshuffled, so the cards dealt are all different)."""
    t = Table(n_players=n_players)
    t.players[:, CASH] = 3
    t.deal()
    cards, money = t.cfg[CFG_CARDS_PER_TURN], t.cfg[CFG_MONEY_PER_TURN]
    dealt = t.hands[t.hands >= 0]
    assert (t.hands >= 0).sum(axis=1).tolist() == [cards] * n_players
    assert len(set(dealt.tolist())) == cards * n_players
    assert t.players[:, CASH].tolist() == [3 + money] * n_players


def test_preparation_money_is_dealt_at_the_start_of_every_turn():
    """Preparation: "At the start of each turn, cards and monetary units (M.U.) are dealt":
    one whole game of 3 players (4 turns), every seat gets 12 M.U. at every turn's deal."""
    t = Table(n_players=3)
    deals = 0
    while t.state[PHASE] != AT_END:
        before = t.players[:, CASH].copy()
        dealing = t.state[PHASE] == AT_DEAL
        t.step()
        if dealing:
            deals += 1
            assert (t.players[:, CASH] - before).tolist() == [t.cfg[CFG_MONEY_PER_TURN]] * 3
    assert deals == t.cfg[CFG_TURNS] == 4
    assert t.players[:, MONEY_RECEIVED].tolist() == [4 * 12] * 3


def test_preparation_starter_moves_left_and_play_passes_left():
    """Preparation: the starter completes the first round, then play passes to the left
    (seat + 1); the next turn's starter is the player to the left of the previous one.  Every
    player plays one round per card; growth indicators start at zero."""
    cfg, rows = traced_game(3)
    turns = cfg[CFG_TURNS]
    assert [seat for ev, turn, seat, *_ in rows if ev == EV_TURN] == [t % 3 for t in range(turns)]
    for turn in range(turns):
        players = [seat for ev, tt, seat, *_ in rows if ev in CARD_EVENTS and tt == turn]
        starter = turn % 3
        assert players == [(starter + k) % 3 for k in range(3)] * cfg[CFG_CARDS_PER_TURN]
    first_levels = {}
    for ev, _, _, c, level, *_ in rows:
        if ev == EV_GROW:
            first_levels.setdefault(c, level)
    assert set(first_levels.values()) == {1}


# --- Playing a Card ----------------------------------------------------------------------------


def test_playing_a_card_offers_each_function_that_can_act():
    """Playing a Card: a card has three functions (place/protect, raise one growth indicator,
    raise another) and the player chooses one."""
    t = Table()
    t.hands[0, 0] = t.card(ALPHA, BETA, DELTA)
    assert t.card_options(0) == {(0, PLACE_FUNCTION, ALPHA), (0, GROW_A, BETA), (0, GROW_B, DELTA)}


def test_growth_stops_at_level_six_without_a_president():
    """Playing a Card (growth): a company without a president cannot expand, so its growth
    indicator stops at level 6 (ASSUMED) and a card cannot raise it further."""
    t = Table()
    t.hands[0, 0] = t.card(ALPHA, BETA, DELTA)
    t.companies[BETA, GROWTH] = 6
    t.companies[DELTA, GROWTH] = 5
    assert t.card_options(0) == {(0, PLACE_FUNCTION, ALPHA), (0, GROW_B, DELTA)}


def test_function_one_needs_a_free_space_and_supply_or_a_marker_to_protect():
    """Playing a Card, function 1: place on a free space (needs an indicator in supply), or
    turn a placed unprotected indicator of the company."""
    t = Table("""
        B B B B
        B B B B
        B B B A
    """)
    t.hands[0, 0] = t.card(ALPHA, BETA, DELTA)
    assert (0, PLACE_FUNCTION, ALPHA) in t.card_options(0)  # no free space: protect A
    t = Table("""
        B B B B
        B B B B
        B B B a
    """)
    t.hands[0, 0] = t.card(ALPHA, BETA, DELTA)
    assert (0, PLACE_FUNCTION, ALPHA) not in t.card_options(0)  # A protected already
    t = Table()
    t.companies[ALPHA, SUPPLY] = 0
    t.hands[0, 0] = t.card(ALPHA, BETA, DELTA)
    assert (0, PLACE_FUNCTION, ALPHA) not in t.card_options(0)  # no Alpha indicator left


def test_function_one_targets_free_spaces_and_own_unprotected_markers():
    """Playing a Card, function 1: "placed on a free space on the board" (any free space), "or
    a previously placed indicator is turned" (its own, unprotected)."""
    t = Table("""
        A a B .
        . . . .
    """)
    assert t.place_targets(ALPHA) == [0, 3, 4, 5, 6, 7]
    t.companies[ALPHA, SUPPLY] = 0
    assert t.place_targets(ALPHA) == [0]


def test_function_one_places_a_marker_from_supply():
    """Playing a Card, function 1: the only card can only place Alpha, on the one free space."""
    t = Table("""
        B B B B
        B B B .
    """)
    t.companies[[BETA, DELTA], GROWTH] = 6  # its growth functions cannot act
    t.hands[0, 0] = t.card(ALPHA, BETA, DELTA)
    t.play_card(0)
    assert t.drawing() == "B B B B\nB B B A"
    assert t.companies[ALPHA, [ON_BOARD, SUPPLY]].tolist() == [1, t.cfg[CFG_MARKERS] - 1]
    assert t.hands[0, 0] == -1


def test_protecting_shields_a_marker_from_expansion():
    """Playing a Card, function 1: turning an Alpha indicator makes it protected, and growth
    replaces only unprotected indicators.  Board full, so the card can only protect:

        B A        B a
        . .   ->   . .   (Alpha's space 1 no longer a target for Beta)
    """
    t = Table("""
        B A
        B B
    """)
    t.companies[[BETA, DELTA], GROWTH] = 6
    t.hands[0, 0] = t.card(ALPHA, BETA, DELTA)
    assert t.expand_targets(BETA) == [1]
    supply, indicators = t.companies[ALPHA, SUPPLY], t.players[0, INDICATORS_LEFT]
    t.play_card(0)
    assert t.drawing() == "B a\nB B"
    assert t.state[PROTECTED] == 1 << 1
    assert t.expand_targets(BETA) == []
    # turning a placed marker takes nothing from a supply: no market nor share indicator
    assert t.companies[ALPHA, [ON_BOARD, SUPPLY]].tolist() == [1, supply]
    assert t.players[0, INDICATORS_LEFT] == indicators


def test_a_card_that_cannot_act_is_discarded():
    """Playing a Card (ASSUMED, the rulebook is silent): a card none of whose functions can act
    is discarded without effect."""
    t = Table("""
        B B
        B a
    """)
    t.companies[[BETA, DELTA], GROWTH] = 6
    t.hands[0, 0] = t.card(ALPHA, BETA, DELTA)
    t.play_card(0)
    assert t.hands[0, 0] == -1 and t.players[0, DISCARDED] == 1
    assert t.drawing() == "B B\nB a"
    assert [ev for ev, *_ in t.events()] == [EV_DISCARD]


def test_growth_raises_the_indicator_one_level():
    """Playing a Card, functions 2 and 3: the growth indicator is raised one level; without a
    president nothing else happens, even at level 4 or 6."""
    t = Table("""
        . . . .
        . A . .
    """)
    for level in range(1, 7):
        t.raise_growth(0, ALPHA)
        assert t.companies[ALPHA, GROWTH] == level
    assert t.companies[ALPHA, ON_BOARD] == 1


# --- Growth and expansion ------------------------------------------------------------------


def test_expansion_targets_are_next_to_the_company_and_skip_protected_markers():
    """Playing a Card (growth): indicators go "on spaces adjacent to indicators of the same
    company", replacing indicators of other companies "if unprotected".

        . B c .        A at space 5 touches 1 (B), 4 (empty), 6 (d, protected), 9 (empty);
        . A d .        space 2 (c) and 3, 7, 8, 10, 11 are not next to A
        . . . .
    """
    t = Table("""
        . B c .
        . A d .
        . . . .
    """)
    assert t.expand_targets(ALPHA) == [1, 4, 9]


def test_replaced_markers_return_to_their_supply():
    """Playing a Card (growth): a replaced indicator goes back to its company's supply
    (ASSUMED, companies.replaced_markers_return; off: it leaves the game)."""
    for back, supply in ((True, 1), (False, 0)):
        t = Table("A B", sets=(f"companies.replaced_markers_return={str(back).lower()}",))
        t.companies[BETA, SUPPLY] = 0
        assert board.place_marker(t.state, t.cfg, 1, ALPHA) == BETA
        assert t.drawing() == "A A"
        assert t.companies[BETA, [ON_BOARD, SUPPLY]].tolist() == [0, supply]
        assert t.companies[ALPHA, ON_BOARD] == 2


@pytest.mark.parametrize("early", [1.0, 0.0])
def test_growth_four_president_expands_by_two_or_waits(early):
    """Playing a Card: at growth 4 the president may place two indicators next to the company
    (then growth returns to zero), or wait.  Both choices, fixed by the expand_early knob."""
    t = alpha_presided(
        """
        . . . .
        . A . .
        . . . .
    """,
        growth=3,
        expand_early=early,
    )
    t.raise_growth(1, ALPHA)
    if early:
        assert t.companies[ALPHA, [ON_BOARD, GROWTH]].tolist() == [3, 0]
        assert t.players[0, EXPANSIONS] == 1
        owners = np.array(t.owners())
        for s in np.flatnonzero(owners == ALPHA):
            assert ALPHA in owners[t.adjacency[s][t.adjacency[s] >= 0]]
    else:
        assert t.companies[ALPHA, [ON_BOARD, GROWTH]].tolist() == [1, 4]
        assert t.events(EV_EXPAND_WAIT) == [(EV_EXPAND_WAIT, 0, 0, ALPHA, 4, 0, 0)]


def test_a_president_who_waited_at_four_is_not_asked_again_at_five():
    """Playing a Card: the option comes "when the Growth Indicator of a company reaches level
    4", the alternative is to wait for six: a president who waited is not offered it at 5,
    even one who would now expand (expand_early on).

        . . . .
        . A . .     Alpha growth 4 (waited) -> 5: nothing placed
    """
    t = alpha_presided(
        """
        . . . .
        . A . .
    """,
        growth=4,
        expand_early=1.0,
    )
    t.raise_growth(1, ALPHA)
    assert t.companies[ALPHA, [ON_BOARD, GROWTH]].tolist() == [1, 5]
    assert [ev for ev, *_ in t.events()] == [EV_GROW]


@pytest.mark.parametrize("president_expands", [True, False])
def test_the_president_not_the_player_raising_growth_expands_or_waits(president_expands):
    """Playing a Card: at level 4 "the President ... has the option", whoever played the card.
    Seat 1 (a market builder) raises Alpha, presided by seat 0 (a president seeker); their
    expand_early knobs are opposite, and the president's choice is the one played."""
    t = alpha_presided(
        """
        . . . .
        . A . .
        . . . .
    """,
        growth=3,
        expand_early=float(president_expands),
    )
    t.policy_ids[1] = MARKET_BUILDER
    t.knobs[MARKET_BUILDER, EXPAND_EARLY] = float(not president_expands)
    t.raise_growth(1, ALPHA)
    expanded = t.companies[ALPHA, [ON_BOARD, GROWTH]].tolist() == [3, 0]
    waited = t.companies[ALPHA, [ON_BOARD, GROWTH]].tolist() == [1, 4]
    assert (expanded, waited) == (president_expands, not president_expands)


def test_growth_four_with_nothing_to_place_waits():
    """Playing a Card: the president's option at level 4 is to place indicators; with no space
    to take (ASSUMED) there is no option and the indicator stays at 4.

        b A b
        . b .
    """
    t = alpha_presided(
        """
        b A b
        . b .
    """,
        growth=3,
        expand_early=1.0,
    )
    t.raise_growth(1, ALPHA)
    assert t.companies[ALPHA, GROWTH] == 4
    assert t.events(EV_EXPAND_WAIT) == [(EV_EXPAND_WAIT, 0, 0, ALPHA, 4, 1, 0)]
    assert t.players[0, [EXPANSIONS, EMPTY_EXPANSIONS]].tolist() == [0, 0]


def test_growth_six_president_expands_by_three():
    """Playing a Card: "the President may wait for the Growth Indicator to reach level six,
    in which case he has the option of placing three"; growth then returns to zero (ASSUMED:
    compulsory at six, even for a president who would wait)."""
    t = alpha_presided(
        """
        . . . .
        . A . .
        . . . .
    """,
        growth=5,
        expand_early=0.0,
    )
    t.raise_growth(2, ALPHA)
    assert t.companies[ALPHA, [ON_BOARD, GROWTH]].tolist() == [4, 0]
    assert t.drawing().count("A") == 4
    assert len(t.events(EV_EXPAND)) == 3 and t.players[0, EXPANSIONS] == 1


def test_expansion_may_build_on_its_own_new_markers():
    """Playing a Card (growth), ASSUMED: each indicator placed may sit next to one placed
    earlier in the same expansion.  One space at a time is next to A:

        A . . .   ->   A A A A
    """
    t = Table("A . . .")
    t.give(0, ALPHA, 1)
    t.companies[ALPHA, GROWTH] = 5
    t.raise_growth(0, ALPHA)
    assert t.drawing() == "A A A A"


def test_expansion_replacing_a_marker_takes_its_space():
    """Playing a Card (growth): "indicators of other companies may be replaced if unprotected".

    A B   ->   A A  (B's only space that Alpha can take)
    c c        c c
    """
    t = Table("""
        A B
        c c
    """)
    t.give(0, ALPHA, 1)
    t.companies[ALPHA, GROWTH] = 5
    t.raise_growth(0, ALPHA)
    assert t.drawing() == "A A\nc c"
    assert t.events(EV_EXPAND) == [(EV_EXPAND, 0, 0, ALPHA, 1, BETA, 0)]
    assert t.companies[BETA, ON_BOARD] == 0


@pytest.mark.parametrize(
    "supply, board, why",
    [
        (0, ". A .", NO_SUPPLY),
        (5, "b A b", NO_SPACE),
    ],
)
def test_an_expansion_that_places_nothing_is_traced_and_counted_apart(supply, board, why):
    """Playing a Card (growth): at level 6 with no indicator in supply or no space to take, the
    expansion places nothing; the growth indicator still returns to zero (ASSUMED).  It shows
    in the trace and counts as an empty expansion, not as an expansion."""
    t = Table(board)
    t.give(0, ALPHA, 1)
    t.companies[ALPHA, SUPPLY] = supply
    t.companies[ALPHA, GROWTH] = 5
    t.raise_growth(1, ALPHA)
    assert t.drawing() == board
    assert t.companies[ALPHA, GROWTH] == 0
    assert t.events(EV_EXPAND_EMPTY) == [(EV_EXPAND_EMPTY, 0, 0, ALPHA, why, 0, 0)]
    assert t.players[0, [EXPANSIONS, EMPTY_EXPANSIONS]].tolist() == [0, 1]


def test_a_new_president_at_growth_six_expands_at_once():
    """Playing a Card: "the President may wait for ... level six" and place three.  ASSUMED: a
    company that reached six without a president waits there, and the player who becomes its
    president (here by buying its first share) places the three at once.

        . . .        A A .
        . A .   ->   A A .   (three of the four spaces next to A; the buy is the only one
        . . .        . . .    seat 0 can afford)
    """
    t = Table("""
        . . .
        . A .
        . . .
    """)
    t.traders(sell=NEVER, buy=ALWAYS)
    t.companies[ALPHA, GROWTH] = 6
    t.companies[BETA:, SHARES_OUT] = 9  # too dear for seat 0
    t.players[0, CASH] = 1
    t.buy(0)
    assert t.companies[ALPHA, PRESIDENT] == 0
    assert t.companies[ALPHA, [ON_BOARD, GROWTH]].tolist() == [4, 0]
    assert [ev for ev, *_ in t.events()] == [EV_BUY, EV_PRESIDENT] + [EV_EXPAND] * 3
