"""Karnaxis rule scenarios, part 3: Karnaxis cards, characters, their Karnaxis (ambition) and
jobs (rulebook: shared/rules/karnaxis.md, "Buy Karnaxis Card", "Fulfilling Your Karnaxis",
"Bits 'n Pieces About Characters" and "Jobs 'n Stuff"; part 1, test_karnaxis_rules.py, says
how these tests are built)."""

import pytest
from karnaxis_world import GAME, World
from test_karnaxis_rules_money import no_abilities

from simulator.games.karnaxis import state as S

# --------------------------------------------------------------------- Karnaxis cards


def card_of(w, effect, value=None):
    """Index of the first Karnaxis card with ``effect`` (and ``value``)."""
    cards = w.rules["karnaxis_cards"]
    return next(
        i
        for i, (e, v) in enumerate(zip(cards["effect"], cards["value"]))
        if e == effect and (value is None or v == value)
    )


@pytest.mark.parametrize(
    "effect,check",
    [
        ("cash", lambda w, p, v: w.cash(p) == 10_000 + v),
        ("growth", lambda w, p, v: w.players[p, S.GROWTH] == v),
        ("retirement", lambda w, p, v: w.players[p, S.RETIRE_TOKENS] == v),
        ("black_shares", lambda w, p, v: w.shares[p, w.black] == v),
        ("tax_free", lambda w, p, v: w.call("tax_due", p, 300_000, False) == 0),
        ("forgive", lambda w, p, v: w.players[p, S.LOANS] == 100_000 - v),
        ("attributes", lambda w, p, v: w.attribute_total(p) == 12 + v),
        ("college", lambda w, p, v: w.players[p, S.COLLEGE] == 1 and w.attribute_total(p) == 14),
        ("dice_cash", lambda w, p, v: (w.cash(p) - 10_000) in [k * v for k in range(1, 7)]),
    ],
)
def test_karnaxis_card_effects(effect, check):
    """Buy Karnaxis Card: each card's effect when used (ASSUMED deck: rules.toml)."""
    w = World()
    w.make(0, "Ines")  # attributes 4+2+4+2 = 12
    w.players[0, S.LOANS] = 100_000
    card = card_of(w, effect)
    w.call("use_card", 0, card)
    assert check(w, 0, int(w.kcards[card, S.KC_VALUE]))


def test_buying_a_karnaxis_card_costs_15000_and_is_used_or_saved():
    """Buy Karnaxis Card: $15,000 to the bank for the top card; the player may use it
    immediately or save it for later (both outcomes checked)."""
    outcomes = set()
    for seed in range(12):
        w = World(seed=seed)
        no_abilities(w)
        w.players[0, S.CASH] = 20_000
        card = int(w.owners[S.DECK_CARDS, 0])
        w.call("do_action", 0, S.ACT_KARNAXIS, 0, False)
        assert w.board[S.NEXT_CARD] == 1 and w.players[0, S.CARDS_BOUGHT] == 1
        used = [e for e in w.events_of(S.EV_CARD) if e[3] == card]
        if w.players[0, S.CARDS_HELD] == 1:
            assert w.owners[S.KC_HOLDER, card] == 0 and not used and w.cash(0) == 5_000
            outcomes.add("saved")
        else:
            assert w.owners[S.KC_HOLDER, card] == S.NONE and len(used) == 1
            outcomes.add("used")
    assert outcomes == {"saved", "used"}


def test_a_saved_karnaxis_card_is_used_later_when_its_holder_chooses():
    """Buy Karnaxis Card: "save it for later": a saved card stays with its holder until used
    at the start of one of the holder's turns, then has its effect (both outcomes checked)."""
    outcomes = set()
    for seed in range(12):
        w = World(seed=seed)
        no_abilities(w)
        card = card_of(w, "cash", 50_000)
        w.owners[S.KC_HOLDER, card] = 1
        w.players[1, S.CARDS_HELD] = 1
        w.call("use_saved_cards", 1)
        if w.players[1, S.CARDS_HELD] == 0:
            assert w.owners[S.KC_HOLDER, card] == S.NONE and w.cash(1) == 60_000
            outcomes.add("used")
        else:
            assert w.owners[S.KC_HOLDER, card] == 1 and w.cash(1) == 10_000
            outcomes.add("kept")
    assert outcomes == {"used", "kept"}
    used_in_turns = 0
    for seed in range(12):  # offered at the start of a turn
        w = World(seed=seed)
        no_abilities(w)
        card = card_of(w, "cash", 50_000)
        w.owners[S.KC_HOLDER, card] = 1
        w.players[1, S.CARDS_HELD] = 1
        w.call("take_actions")
        used = any(e[2] == 1 and e[3] == card for e in w.events_of(S.EV_CARD))
        assert used == (w.owners[S.KC_HOLDER, card] == S.NONE)  # it may buy and save another
        used_in_turns += used
    assert used_in_turns > 0


# --------------------------------------------------------------------- Fulfilling Your Karnaxis


def test_karnaxis_fulfilled_pays_100000_immediately():
    """Fulfilling Your Karnaxis: as a player achieves it, $100,000 from the bank at once:
    Gus's $300,000 (ASSUMED) is checked after every action, not only at a year end."""
    w = World()
    no_abilities(w)
    w.make(0, "Gus")
    w.players[0, S.CASH] = 290_000
    w.board[S.FUND] = 10_000
    w.call("do_action", 0, S.ACT_UNEMPLOYMENT, 0, False)
    assert w.players[0, S.KARNAXIS_DONE] == 1 and w.cash(0) == 300_000 + 5_000 + 100_000


def gus_with_a_shoe_shop(w, cash):
    """Seat 1 plays Gus (ASSUMED Karnaxis: hold $300,000 cash) and owns the Shoe Shop."""
    w.make(1, "Gus")
    w.own(1, "Shoe Shop")
    w.players[1, S.CASH] = cash


def franchise_in_gus_business(w):
    w.players[0, S.CASH] = 20_000
    w.call("do_action", 0, S.ACT_FRANCHISE, 1, False)


def card_bought_from_consultant_gus(w):
    w.hire(1, "Consultant")
    w.players[0, S.CASH] = 20_000
    w.call("do_action", 0, S.ACT_KARNAXIS, 0, False)


@pytest.mark.parametrize(
    "cash, action, paid",
    [
        (290_000, franchise_in_gus_business, 15_000),
        (296_000, card_bought_from_consultant_gus, 5_000),
    ],
    ids=["franchise fee", "consultant fee"],
)
def test_another_seats_action_fulfils_a_karnaxis(cash, action, paid):
    """Fulfilling Your Karnaxis: "As a player achieves their Karnaxis, they immediately receive
    $100,000", whoever's action brought it: seat 0 starts a franchise in Gus's Shoe Shop (level
    1: $15,000 paid to its owner) or buys a Karnaxis card from the pile while Gus is the
    Consultant ($5,000 to him).

        seat 0 (Ines): $20,000                 seat 1 (Gus): owns the Shoe Shop, $290,000 /
                                                              Consultant, $296,000
    """
    w = World()
    no_abilities(w)
    gus_with_a_shoe_shop(w, cash)
    action(w)
    assert cash + paid >= 300_000
    assert w.players[1, S.KARNAXIS_DONE] == 1 and w.players[1, S.L_KARNAXIS] == 100_000
    assert w.cash(1) == cash + paid + 100_000
    assert [e[2] for e in w.events_of(S.EV_KARNAXIS)] == [1]


def test_a_sale_fulfils_a_karnaxis_before_the_next_trade():
    """Fulfilling Your Karnaxis, "immediately": Gus sells 2 of his 10 Shoe Shop shares at 5
    ($10,000) and reaches $300,000 at that trade, before he could buy again.

        seat 1 (Gus): 10 shares of his Shoe Shop (value 5), $290,000
    """
    w = World()
    no_abilities(w)
    gus_with_a_shoe_shop(w, 290_000)
    w.shares[1, 1] = 10
    w.call("trade", 1, S.MK_SELL, 1, 2, -10_000)
    assert w.players[1, S.KARNAXIS_DONE] == 1 and w.cash(1) == 400_000


# --------------------------------------------------------------------- characters and jobs


def test_wes_gets_1000_extra_growth_per_business_and_franchise():
    """Character card example: Wes gains an extra $1,000 business growth each time he starts
    a business or franchise."""
    w = World()
    no_abilities(w)
    w.make(0, "Wes")
    w.own(0, "Shoe Shop")
    assert w.players[0, S.GROWTH] == 3_000
    w.own(1, "Food Truck")
    w.players[0, S.ATTR : S.ATTR + 4] = [10, 10, 10, 10]
    w.players[0, S.CASH] = 20_000
    w.call("start_franchise", 0, 1)
    assert w.players[0, S.GROWTH] == 3_000 + w.tables[S.T_FRANCHISE_GROWTH, 0] + 1_000


def test_julie_photography_is_a_level_1_business_only_she_can_start():
    """Bits 'n Pieces: Julie's photography business is a level 1 business in all respects."""
    w = World()
    no_abilities(w)
    julie = 1
    studio = w.index("businesses", "Photography Studio")
    w.players[:, S.CASH] = 100_000
    assert (S.ACT_BUSINESS, studio) in w.offered(julie)
    assert (S.ACT_BUSINESS, studio) not in w.offered(0)
    w.call("start_business", julie, studio)
    assert w.players[julie, S.MERGED_LEVEL] == 1 and w.cash(julie) == 80_000
    before = w.cash(julie)
    w.call("start_franchise", 0, julie)
    assert w.cash(julie) - before == 15_000 and w.shares[0, julie] == 5


def test_whitney_needs_two_different_jobs_not_at_once():
    """Bits 'n Pieces: Whitney has to get at least 2 different jobs during the game."""
    w = World()
    no_abilities(w)
    whitney = 2
    cashier, waiter = w.index("jobs", "Cashier"), w.index("jobs", "Waiter")
    before = w.cash(whitney)
    w.call("take_job", whitney, cashier)
    w.call("check_all_karnaxis")
    assert w.players[whitney, S.KARNAXIS_DONE] == 0
    w.call("lose_job", whitney, cashier)
    w.call("take_job", whitney, cashier)
    w.call("check_all_karnaxis")
    assert w.players[whitney, S.KARNAXIS_DONE] == 0  # the same job again
    w.call("lose_job", whitney, cashier)
    w.call("take_job", whitney, waiter)
    w.call("check_all_karnaxis")
    assert w.players[whitney, S.KARNAXIS_DONE] == 1 and w.cash(whitney) - before == 100_000


def test_zack_fulfils_as_tax_collector_and_pays_back_after_a_loan():
    """Bits 'n Pieces: Zack receives $100,000 on becoming the Tax Collector, but pays it back
    if he takes out a loan (once)."""
    w = World()
    no_abilities(w)
    w.make(0, "Zack")
    w.players[0, S.CASH] = 0
    w.call("take_job", 0, w.index("jobs", "Tax Collector"))
    w.call("check_all_karnaxis")
    assert w.cash(0) == 100_000 and w.players[0, S.KARNAXIS_DONE] == 1
    w.call("take_loan", 0, 5_000)
    w.call("settle_forfeit", 0)
    assert w.cash(0) == 5_000 and w.players[0, S.KARNAXIS_REVOKED] == 1
    w.call("take_loan", 0, 5_000)
    w.call("settle_forfeit", 0)
    assert w.cash(0) == 10_000


@pytest.mark.parametrize("sets", [(), ("characters[Wes].karnaxis_value=20000",)])
def test_a_karnaxis_is_checked_by_the_slot_and_count_read_once_a_game(sets):
    """Fulfilling Your Karnaxis, checked for every seat after each action and trade: the slot
    of the board and the count each character's ambition reads are taken from the rules once
    (AMBITION_SLOT, AMBITION_AT, for the character AMBITION_FOR - 1) and read again when the
    seat's character changes; a check fulfils the ambition exactly when ambition_met, which
    reads the character card every time, says it is met: a count short of it, then at it.
    Under a variant the count read is the variant's (Wes: $20,000 of growth)."""
    w = World(GAME.rules(sets=sets))
    no_abilities(w)
    kinds = set()
    for c, card in enumerate(w.rules["characters"]):
        w.make(0, card["name"])
        w.players[0, S.KARNAXIS_DONE] = 0
        kind, count = w.chars[c, S.C_KARNAXIS], w.chars[c, S.C_KARNAXIS_VALUE]
        w.call("check_karnaxis", 0)  # the first check after the character changed reads it
        assert w.players[0, S.AMBITION_FOR] == c + 1
        assert w.players[0, S.AMBITION_SLOT] == w.call("ambition_slot", kind)
        assert w.players[0, S.AMBITION_AT] == count
        slot = w.players[0, S.AMBITION_SLOT]
        if slot == S.NONE:  # shares in every business, a job held, any one attribute
            kinds.add(S.AMBITIONS[kind])
            continue
        for held, met in ((count - 1, False), (count, True)):
            w.players[0, S.KARNAXIS_DONE] = 0
            w.players[0, slot] = held
            assert bool(w.call("ambition_met", 0)) == met
            w.call("check_karnaxis", 0)
            assert w.players[0, S.KARNAXIS_DONE] == int(met)
    assert kinds <= {"shares", "job", "attribute"}
    wes = w.index("characters", "Wes")
    assert w.chars[wes, S.C_KARNAXIS_VALUE] == (20_000 if sets else 50_000)


def test_professor_and_consultant_fees():
    """Jobs 'n Stuff: the Professor collects $5,000 each time a player goes to College or
    University and the Consultant $5,000 per Karnaxis card bought, their own included."""
    w = World()
    no_abilities(w)
    w.hire(1, "Professor")
    w.hire(2, "Consultant")
    w.players[0, S.CASH] = 100_000
    _before1, before2 = w.cash(1), w.cash(2)
    w.call("do_action", 0, S.ACT_COLLEGE, 0, False)
    w.call("do_action", 0, S.ACT_KARNAXIS, 0, False)
    w.players[1, S.CASH] = 100_000
    w.call("do_action", 1, S.ACT_COLLEGE, 1, False)
    assert w.cash(2) - before2 == 5_000
    assert w.players[1, S.L_BANK_BENEFITS] == 10_000 and w.cash(1) == 100_000 - 15_000 + 5_000
    w.players[2, S.CASH] = 100_000
    w.call("do_action", 2, S.ACT_KARNAXIS, 0, False)  # the Consultant buys one himself
    assert w.players[2, S.L_BANK_BENEFITS] == 10_000 and w.players[2, S.CARDS_BOUGHT] == 1
