"""Karnaxis stage 2, Take Action!: the action spaces, who may use which, and what each does
(rulebook: shared/rules/karnaxis.md, "2. Take Action!")."""

from simulator.core import bits
from simulator.core.kernel import inlined, rule
from simulator.core.rng import DICE, rng_below
from simulator.games.karnaxis import business, decide, money, new_year
from simulator.games.karnaxis import state as S

# ---------------------------------------------------------------- Take Action!


@rule
def qualifies(state, rules, p, at, college_needed):
    """Job Search / Start Business prerequisites: attribute minimums (``rules[at:at + 4]``, a
    job's or business's J_ATTR / B_ATTR slots) and college years."""
    r = S.row(p)
    if state[r + S.COLLEGE] < college_needed:
        return False
    for a in range(S.N_ATTR):
        if state[r + S.ATTR + a] < rules[at + a]:
            return False
    return True


@rule
def qualifies_for_job(state, rules, p, j):
    return qualifies(
        state, rules, p, rules[S.CFG_JOBS] + j * S.J_WIDTH + S.J_ATTR, S.job(rules, j, S.J_COLLEGE)
    )


@rule
def qualifies_for_business(state, rules, p, b):
    return qualifies(state, rules, p, rules[S.CFG_BIZ] + b * S.B_WIDTH + S.B_ATTR, 0)


@rule
def qualified_cards(state, rules, p):
    """(jobs, businesses): the bit masks of the job and business cards whose prerequisites p
    meets, kept on p's board (QUALIFIED_JOBS, QUALIFIED_BIZ) with the college years and
    attributes they were found for (:func:`find_qualified_cards`), and found again only when
    those have changed: every action square lists the cards, and a player's prerequisites
    change only when they study."""
    r = S.row(p)
    same = state[r + S.QUALIFIED_FOR] == state[r + S.COLLEGE] + 1
    for a in range(S.N_ATTR):
        same &= state[r + S.QUALIFIED_FOR + 1 + a] == state[r + S.ATTR + a] + 1
    if not same:
        find_qualified_cards(state, rules, p)
    return state[r + S.QUALIFIED_JOBS], state[r + S.QUALIFIED_BIZ]


@rule
def find_qualified_cards(state, rules, p):
    """:func:`qualified_cards` found from the cards' prerequisites (:func:`qualifies`)."""
    r = S.row(p)
    jobs, businesses = 0, 0
    for j in range(rules[S.CFG_N_JOBS]):
        if qualifies_for_job(state, rules, p, j):
            jobs |= bits.bit(j)
    for b in range(rules[S.CFG_N_BIZ]):
        if qualifies_for_business(state, rules, p, b):
            businesses |= bits.bit(b)
    state[r + S.QUALIFIED_JOBS], state[r + S.QUALIFIED_BIZ] = jobs, businesses
    state[r + S.QUALIFIED_FOR] = state[r + S.COLLEGE] + 1
    for a in range(S.N_ATTR):
        state[r + S.QUALIFIED_FOR + 1 + a] = state[r + S.ATTR + a] + 1


@rule
def qualifies_for_mother(state, rules, mother, qualified):
    """Start Franchise: "They must have the prerequisites for the mother business" (ASSUMED,
    for a merged business: those of any one of its business cards); ``qualified``: the mask of
    the business cards whose prerequisites the player meets (:func:`qualified_cards`)."""
    own_biz = S.owners(rules, S.OWN_BIZ)
    while qualified != 0:
        if state[own_biz + bits.lowest(qualified)] == mother:
            return True
        qualified &= qualified - 1
    return False


@rule
def karnaxis_card_cost(state, rules, p):
    return max(0, rules[S.CFG_CARD_COST] - money.ability(state, rules, p, S.AB_KARNAXIS_DISCOUNT))


@rule
def tuition(state, rules, p, university):
    if state[S.EVENT_TUITION_FREE] == 1:
        return 0
    base = rules[S.CFG_UNIVERSITY_COST] if university else rules[S.CFG_COLLEGE_COST]
    return max(0, base - money.ability(state, rules, p, S.AB_TUITION_DISCOUNT))


@rule
def retirement_cost(state, rules, p):
    discount = (
        rules[S.CFG_INS_FIRM_DISCOUNT]
        if money.firm_benefit(state, rules, p, S.CFG_FIRM_INSURANCE)
        else 0
    )
    return max(0, rules[S.CFG_RETIREMENT_COST] - discount)


@rule
def list_actions(state, rules, p, first):
    """Take Action!: every action space p may use now, one row per concrete choice.  A space
    used already this year is not offered; Collect Unemployment once per year; Go To Work only
    as the first action of a job holder; unaffordable choices (even with loans to the cap) are
    not offered."""
    r = S.row(p)
    used = state[r + S.USED]
    n = 0
    if (used >> S.ACT_UNEMPLOYMENT) & 1 == 0 and state[S.UNEMP_TAKEN] == 0:
        n = money.add_option(state, n, S.ACT_UNEMPLOYMENT, state[S.FUND], 0, 0)
    if (used >> S.ACT_KARNAXIS) & 1 == 0 and state[S.NEXT_CARD] < rules[S.CFG_N_KCARDS]:
        cost = karnaxis_card_cost(state, rules, p)
        if money.can_afford(state, rules, p, cost):
            n = money.add_option(state, n, S.ACT_KARNAXIS, 0, 0, cost)
    if first:
        for slot in (S.JOB, S.JOB_B):
            if state[r + slot] >= 0:
                n = money.add_option(state, n, S.ACT_WORK, state[r + slot], 0, 0)
    jobs, businesses = qualified_cards(state, rules, p)
    if (used >> S.ACT_JOB_SEARCH) & 1 == 0:
        # a job card the player count removes is on no board (REMOVED at Game Setup)
        own_job = S.owners(rules, S.OWN_JOB)
        while jobs != 0:  # in card order
            j = bits.lowest(jobs)
            jobs &= jobs - 1
            if state[own_job + j] == S.NONE:
                n = money.add_option(state, n, S.ACT_JOB_SEARCH, j, 0, 0)
    if (used >> S.ACT_STUDY) & 1 == 0:
        n = money.add_option(state, n, S.ACT_STUDY, 0, 0, 0)
    if (used >> S.ACT_COLLEGE) & 1 == 0:
        if state[r + S.COLLEGE] < rules[S.CFG_COLLEGE_YEARS]:
            cost = tuition(state, rules, p, False)
            if money.can_afford(state, rules, p, cost):
                n = money.add_option(state, n, S.ACT_COLLEGE, 0, 0, cost)
        cost = tuition(state, rules, p, True)
        if money.can_afford(state, rules, p, cost):
            n = money.add_option(state, n, S.ACT_COLLEGE, 1, 0, cost)
    if (used >> S.ACT_RETIREMENT) & 1 == 0 and state[S.RETIRE_POOL] > 0:
        cost = retirement_cost(state, rules, p)
        if money.can_afford(state, rules, p, cost):
            n = money.add_option(state, n, S.ACT_RETIREMENT, 0, 0, cost)
    if (used >> S.ACT_MARKET) & 1 == 0:
        n = money.add_option(state, n, S.ACT_MARKET, 0, 0, 0)
    year = state[S.YEAR]
    if (used >> S.ACT_BUSINESS) & 1 == 0 and state[r + S.BUSINESS_YEAR] != year:
        own_biz = S.owners(rules, S.OWN_BIZ)
        cards = businesses
        while cards != 0:  # in card order
            b = bits.lowest(cards)
            cards &= cards - 1
            if state[own_biz + b] != S.NONE:
                continue
            only = S.biz(rules, b, S.B_ONLY_CHARACTER)
            if only >= 0 and only != state[r + S.CHARACTER]:
                continue
            cost = business.business_cost(state, rules, p, b)
            if money.can_afford(state, rules, p, cost):
                n = money.add_option(state, n, S.ACT_BUSINESS, b, 0, cost)
    if (
        (used >> S.ACT_FRANCHISE) & 1 == 0
        and state[r + S.FRANCHISE_YEAR] != year
        and state[S.FRANCHISES_LEFT] > 0
    ):
        for mother in range(rules[S.CFG_PLAYERS]):
            if mother == p or state[S.row(mother) + S.N_BUSINESSES] == 0:
                continue
            # the price first: it is read at once, the prerequisites from every business card
            cost = business.franchise_cost(state, rules, p, mother)
            if money.can_afford(state, rules, p, cost) and qualifies_for_mother(
                state, rules, mother, businesses
            ):
                n = money.add_option(state, n, S.ACT_FRANCHISE, mother, 0, cost)
    if (used >> S.ACT_ADVERTISE) & 1 == 0:
        # a tier needs a merged level of 1+, so no business or franchise, no advertising
        for t in range(S.table_len(rules, S.T_AD_LEVEL)):
            if S.table(rules, S.T_AD_LEVEL, t) <= state[r + S.MERGED_LEVEL]:
                cost = business.advertise_cost(state, rules, p, t)
                if money.can_afford(state, rules, p, cost):
                    n = money.add_option(state, n, S.ACT_ADVERTISE, t, 0, cost)
    if n == 0:
        n = money.add_option(state, n, S.ACT_PASS, 0, 0, 0)
    return n


@rule
def raise_attributes(state, rules, knobs, rng, trace, p, count):
    """Personal Study / College / University: +count attributes of the player's choice (the
    policy picks), each up to the top of the track."""
    r = S.row(p)
    for _ in range(count):
        n = 0
        for a in range(S.N_ATTR):
            if state[r + S.ATTR + a] < rules[S.CFG_ATTR_MAX]:
                n = money.add_option(state, n, a, state[r + S.ATTR + a], 0, 0)
        if n == 0:
            return
        i = decide.choose(state, rules, knobs, rng, trace, S.D_ATTRIBUTE, p, S.NONE, n)
        state[r + S.ATTR + S.opt(state, i, S.OPT_ACTION)] += 1


@rule
def take_job(state, rules, p, j):
    """Job Search: the job card goes on the player board; it counts as work this year."""
    r = S.row(p)
    state[S.owners(rules, S.OWN_JOB) + j] = p
    if state[r + S.JOB] == S.NONE:
        state[r + S.JOB] = j
        state[r + S.WORKED] = 1
    else:
        state[r + S.JOB_B] = j
    if (state[r + S.JOBS_SEEN] >> j) & 1 == 0:
        state[r + S.JOBS_SEEN] |= 1 << j
        state[r + S.DISTINCT_JOBS] += 1


@rule
def go_to_work(state, rules, trace, p, j):
    """Go To Work: keep one and only one job card; any other goes back to the job board."""
    r = S.row(p)
    other = state[r + S.JOB_B] if state[r + S.JOB] == j else state[r + S.JOB]
    if other >= 0:
        new_year.lose_job(state, rules, trace, p, other)
    state[r + S.JOB] = j
    state[r + S.JOB_B] = S.NONE
    state[r + S.WORKED] = 1


@rule
def attend_college(state, rules, knobs, rng, trace, p):
    """College: +1 Aptitude (ASSUMED: the first attribute, setup.attributes[0]), +1 attribute
    of the player's choice, and the college token moves down one circle (Freshman .. Senior)."""
    r = S.row(p)
    state[r + S.COLLEGE] += 1
    state[r + S.ATTR + S.APTITUDE] = min(
        rules[S.CFG_ATTR_MAX], state[r + S.ATTR + S.APTITUDE] + rules[S.CFG_COLLEGE_APTITUDE]
    )
    raise_attributes(state, rules, knobs, rng, trace, p, 1)


@rule
def use_card(state, rules, knobs, rng, trace, p, card):
    """Buy Karnaxis Card: the card's effect (ASSUMED deck, effects in rules.toml)."""
    r = S.row(p)
    effect, value = S.kcard(rules, card, S.KC_EFFECT), S.kcard(rules, card, S.KC_VALUE)
    before = state[r + S.CASH]
    if effect == S.KE_CASH:
        money.gain(state, p, value, S.L_CARD_CASH)
    elif effect == S.KE_DICE_CASH:
        money.gain(state, p, (rng_below(rng, DICE, 6) + 1) * value, S.L_CARD_CASH)
    elif effect == S.KE_ATTRIBUTES:
        raise_attributes(state, rules, knobs, rng, trace, p, value)
    elif effect == S.KE_GROWTH:
        state[r + S.GROWTH] += value
    elif effect == S.KE_RETIREMENT:
        k = min(value, state[S.RETIRE_POOL])
        state[r + S.RETIRE_TOKENS] += k
        state[S.RETIRE_POOL] -= k
    elif effect == S.KE_BLACK_SHARES:
        new_year.give_shares(state, p, rules[S.CFG_PLAYERS], value)
    elif effect == S.KE_COLLEGE:
        if state[r + S.COLLEGE] < rules[S.CFG_COLLEGE_YEARS]:
            attend_college(state, rules, knobs, rng, trace, p)
        else:
            raise_attributes(state, rules, knobs, rng, trace, p, 1)
    elif effect == S.KE_TAX_FREE:
        state[r + S.TAX_FREE] = 1
    elif effect == S.KE_FORGIVE:
        state[r + S.LOANS] -= min(value, state[r + S.LOANS])
    state[r + S.COUNTS + S.CT_CARD_USED] += 1
    money.record(state, trace, S.EV_CARD, p, card, value, before, state[r + S.CASH])


@rule
def buy_karnaxis_card(state, rules, knobs, rng, trace, p):
    """Buy Karnaxis Card: $15,000 to the bank (Jobs 'n Stuff: the Consultant collects $5,000,
    ASSUMED from the bank); the player uses the card immediately or saves it for later (selling
    it to another player is not modelled)."""
    money.pay_by_choice(
        state, rules, trace, p, karnaxis_card_cost(state, rules, p), S.L_TO_BANK, S.NONE
    )
    state[S.row(p) + S.CARDS_BOUGHT] += 1
    consultant = money.job_holder(state, rules, rules[S.CFG_JOB_CONSULTANT])
    if consultant >= 0:
        money.gain(state, consultant, rules[S.CFG_CONSULTANT_FEE], S.L_BANK_BENEFITS)
    card = state[S.owners(rules, S.DECK_CARDS) + state[S.NEXT_CARD]]
    state[S.NEXT_CARD] += 1
    effect, value = S.kcard(rules, card, S.KC_EFFECT), S.kcard(rules, card, S.KC_VALUE)
    n = money.add_option(state, 0, S.CU_USE, card, effect, value)
    n = money.add_option(state, n, S.CU_SAVE, card, effect, value)
    i = decide.choose(state, rules, knobs, rng, trace, S.D_CARD, p, S.NONE, n)
    if S.opt(state, i, S.OPT_ACTION) == S.CU_USE:
        use_card(state, rules, knobs, rng, trace, p, card)
    else:
        state[S.owners(rules, S.KC_HOLDER) + card] = p
        state[S.row(p) + S.CARDS_HELD] += 1
        state[S.row(p) + S.COUNTS + S.CT_CARD_SAVED] += 1
        cash = state[S.row(p) + S.CASH]
        money.record(state, trace, S.EV_CARD_SAVED, p, card, value, cash, cash)


@rule
def use_saved_cards(state, rules, knobs, rng, trace, p):
    """Buy Karnaxis Card: a card saved for later is used when its holder chooses (ASSUMED: at
    the start of any of their action turns); one still saved at Game End is worth nothing."""
    holder = S.owners(rules, S.KC_HOLDER)
    while state[S.row(p) + S.CARDS_HELD] > 0:
        n = money.add_option(state, 0, S.CU_SAVE, S.NONE, 0, 0)
        for card in range(rules[S.CFG_N_KCARDS]):
            if state[holder + card] == p:
                n = money.add_option(
                    state,
                    n,
                    S.CU_USE,
                    card,
                    S.kcard(rules, card, S.KC_EFFECT),
                    S.kcard(rules, card, S.KC_VALUE),
                )
        i = decide.choose(state, rules, knobs, rng, trace, S.D_CARD, p, S.NONE, n)
        if S.opt(state, i, S.OPT_ACTION) == S.CU_SAVE:
            return
        card = S.opt(state, i, S.OPT_A)
        state[holder + card] = S.NONE
        state[S.row(p) + S.CARDS_HELD] -= 1
        use_card(state, rules, knobs, rng, trace, p, card)
        money.check_karnaxis(state, rules, trace, p)


@rule
def do_action(state, rules, knobs, rng, trace, p, action, a, first):
    """Perform one chosen action (Take Action!: the action spaces); ``a`` is its OPT_A.
    Fulfilling Your Karnaxis: "as a player achieves their Karnaxis" is checked for every seat
    after the action, since it can pay other seats (a franchise's owner, a firm, the
    Consultant or Professor)."""
    r = S.row(p)
    before = state[r + S.CASH]
    if action != S.ACT_PASS:
        state[r + S.USED] |= 1 << action
        state[
            r + S.COUNTS + (S.CT_UNIVERSITY if action == S.ACT_COLLEGE and a == 1 else action)
        ] += 1
    # Go To Work: a job holder whose first action is anything else is fired; Job Search as the
    # first action counts as work for the new job only.
    if first and action != S.ACT_WORK and (state[r + S.JOB] >= 0 or state[r + S.JOB_B] >= 0):
        for slot in (S.JOB, S.JOB_B):
            if state[r + slot] >= 0:
                new_year.lose_job(state, rules, trace, p, state[r + slot])
    if action == S.ACT_UNEMPLOYMENT:
        amount = state[S.FUND]
        state[S.FUND] = 0
        state[S.UNEMP_TAKEN] = 1
        state[S.NEXT_STARTER] = p
        money.gain(state, p, amount, S.L_UNEMPLOYMENT)
        bonus = money.ability(state, rules, p, S.AB_UNEMPLOYMENT_BONUS)
        if bonus > 0:
            money.gain(state, p, bonus, S.L_BANK_BENEFITS)
    elif action == S.ACT_KARNAXIS:
        buy_karnaxis_card(state, rules, knobs, rng, trace, p)
    elif action == S.ACT_JOB_SEARCH:
        take_job(state, rules, p, a)
    elif action == S.ACT_WORK:
        go_to_work(state, rules, trace, p, a)
    elif action == S.ACT_STUDY:
        raise_attributes(
            state,
            rules,
            knobs,
            rng,
            trace,
            p,
            rules[S.CFG_STUDY_ATTRS] + money.ability(state, rules, p, S.AB_STUDY_BONUS),
        )
    elif action == S.ACT_COLLEGE:
        money.pay_by_choice(
            state, rules, trace, p, tuition(state, rules, p, a == 1), S.L_TO_BANK, S.NONE
        )
        if a == 0:
            attend_college(state, rules, knobs, rng, trace, p)
        else:
            state[r + S.UNIVERSITY_YEARS] += 1
            raise_attributes(state, rules, knobs, rng, trace, p, rules[S.CFG_UNIVERSITY_ATTRS])
        professor = money.job_holder(state, rules, rules[S.CFG_JOB_PROFESSOR])
        if professor >= 0:
            money.gain(state, professor, rules[S.CFG_PROFESSOR_FEE], S.L_BANK_BENEFITS)
    elif action == S.ACT_RETIREMENT:
        money.pay_by_choice(
            state,
            rules,
            trace,
            p,
            retirement_cost(state, rules, p),
            S.L_TO_BANK,
            money.firm_owner(state, rules, S.CFG_FIRM_INSURANCE),
        )
        state[r + S.RETIRE_TOKENS] += 1
        state[S.RETIRE_POOL] -= 1
    elif action == S.ACT_MARKET:
        business.market(state, rules, knobs, rng, trace, p)
    elif action == S.ACT_BUSINESS:
        business.start_business(state, rules, trace, p, a)
    elif action == S.ACT_FRANCHISE:
        business.start_franchise(state, rules, trace, p, a)
    elif action == S.ACT_ADVERTISE:
        money.pay_by_choice(
            state,
            rules,
            trace,
            p,
            business.advertise_cost(state, rules, p, a),
            S.L_TO_BANK,
            money.firm_owner(state, rules, S.CFG_FIRM_ADVERTISING),
        )
        state[r + S.GROWTH] += S.table(rules, S.T_AD_GROWTH, a)
    money.record(state, trace, S.EV_ACTION, p, action, a, before, state[r + S.CASH])
    # every seat: a fee or a franchise's cost paid to another seat can fulfil its Karnaxis
    money.check_all_karnaxis(state, rules, trace)
    money.settle_forfeit(state, rules, trace, p)


@rule
def start_actions(state, rules):
    """2. Take Action!: two action squares each, three for a Rocket Scientist / Pro Athlete
    (ASSUMED: holding the card at the start of the stage); the first square is the starting
    player's."""
    most = 0
    for p in range(rules[S.CFG_PLAYERS]):
        k = rules[S.CFG_ACTIONS]
        for slot in (S.JOB, S.JOB_B):
            j = state[S.row(p) + slot]
            if j >= 0 and S.job(rules, j, S.J_BENEFIT) == S.BEN_EXTRA_ACTION:
                k = rules[S.CFG_ACTIONS] + 1
        state[S.row(p) + S.ACTIONS] = k
        most = max(most, k)
    state[S.MOST] = most
    state[S.NEXT_STARTER] = state[S.STARTER]
    state[S.TURN], state[S.SEAT_I] = 0, 0


@rule
def action_square(state, rules, knobs, rng, trace):
    """2. Take Action!: the next action square, placed clockwise from the starting player one
    at a time until every player has placed theirs.  Before it the player may use Karnaxis
    cards saved earlier.  Returns True when the stage is over: collecting unemployment has
    made the collector the starting player of the following year."""
    p = square_seat(state, rules)
    m = open_square(state, rules, knobs, rng, trace, p)
    choice = decide.choose(state, rules, knobs, rng, trace, S.D_ACTION, p, S.NONE, m)
    return close_square(state, rules, knobs, rng, trace, p, choice)


@rule
def square_seat(state, rules):
    """The seat whose action square is next."""
    return (state[S.STARTER] + state[S.SEAT_I]) % rules[S.CFG_PLAYERS]


@inlined
def open_square(state, rules, knobs, rng, trace, p):
    """The start of ``p``'s action square: its saved Karnaxis cards it chooses to use now, then
    its legal actions listed in the OPTIONS block; returns how many."""
    if state[S.row(p) + S.CARDS_HELD] > 0:
        use_saved_cards(state, rules, knobs, rng, trace, p)
    return list_actions(state, rules, p, state[S.TURN] == 0)


@inlined
def close_square(state, rules, knobs, rng, trace, p, choice):
    """The rest of ``p``'s action square once it has chosen option ``choice``: the action, and
    on to the next square (:func:`action_square`'s result)."""
    n = rules[S.CFG_PLAYERS]
    do_action(
        state,
        rules,
        knobs,
        rng,
        trace,
        p,
        S.opt(state, choice, S.OPT_ACTION),
        S.opt(state, choice, S.OPT_A),
        state[S.TURN] == 0,
    )
    while True:  # on to the next player with a square left in this turn, or the next turn
        state[S.SEAT_I] += 1
        if state[S.SEAT_I] == n:
            state[S.SEAT_I] = 0
            state[S.TURN] += 1
        if state[S.TURN] == state[S.MOST]:
            state[S.STARTER] = state[S.NEXT_STARTER]
            return True
        if state[S.row((state[S.STARTER] + state[S.SEAT_I]) % n) + S.ACTIONS] > state[S.TURN]:
            return False
