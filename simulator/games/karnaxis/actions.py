"""Karnaxis stage 2, Take Action!: the action spaces, who may use which, and what each does
(rulebook: shared/rules/karnaxis.md, "2. Take Action!")."""

from simulator.core.kernel import rule
from simulator.core.rng import DICE, rng_below
from simulator.games.karnaxis.business import (
    advertise_cost,
    business_cost,
    franchise_cost,
    market,
    start_business,
    start_franchise,
)
from simulator.games.karnaxis.decide import choose
from simulator.games.karnaxis.money import (
    ability,
    add_option,
    can_afford,
    check_all_karnaxis,
    check_karnaxis,
    firm_benefit,
    firm_owner,
    gain,
    job_holder,
    pay_by_choice,
    record,
    settle_forfeit,
)
from simulator.games.karnaxis.new_year import give_shares, lose_job
from simulator.games.karnaxis.state import (
    AB_KARNAXIS_DISCOUNT,
    AB_STUDY_BONUS,
    AB_TUITION_DISCOUNT,
    AB_UNEMPLOYMENT_BONUS,
    ACT_ADVERTISE,
    ACT_BUSINESS,
    ACT_COLLEGE,
    ACT_FRANCHISE,
    ACT_JOB_SEARCH,
    ACT_KARNAXIS,
    ACT_MARKET,
    ACT_PASS,
    ACT_RETIREMENT,
    ACT_STUDY,
    ACT_UNEMPLOYMENT,
    ACT_WORK,
    ACTIONS,
    APTITUDE,
    ATTR,
    B_ATTR,
    B_ONLY_CHARACTER,
    B_WIDTH,
    BEN_EXTRA_ACTION,
    BUSINESS_YEAR,
    CARDS_BOUGHT,
    CARDS_HELD,
    CASH,
    CFG_ACTIONS,
    CFG_ATTR_MAX,
    CFG_BIZ,
    CFG_CARD_COST,
    CFG_COLLEGE_APTITUDE,
    CFG_COLLEGE_COST,
    CFG_COLLEGE_YEARS,
    CFG_CONSULTANT_FEE,
    CFG_FIRM_ADVERTISING,
    CFG_FIRM_INSURANCE,
    CFG_INS_FIRM_DISCOUNT,
    CFG_JOB_CONSULTANT,
    CFG_JOB_PROFESSOR,
    CFG_JOBS,
    CFG_N_BIZ,
    CFG_N_JOBS,
    CFG_N_KCARDS,
    CFG_PLAYERS,
    CFG_PROFESSOR_FEE,
    CFG_RETIREMENT_COST,
    CFG_STUDY_ATTRS,
    CFG_UNIVERSITY_ATTRS,
    CFG_UNIVERSITY_COST,
    CHARACTER,
    COLLEGE,
    COUNTS,
    CT_CARD_SAVED,
    CT_CARD_USED,
    CT_UNIVERSITY,
    CU_SAVE,
    CU_USE,
    D_ACTION,
    D_ATTRIBUTE,
    D_CARD,
    DECK_CARDS,
    DISTINCT_JOBS,
    EV_ACTION,
    EV_CARD,
    EV_CARD_SAVED,
    EVENT_TUITION_FREE,
    FRANCHISE_YEAR,
    FRANCHISES_LEFT,
    FUND,
    GROWTH,
    J_ATTR,
    J_AVAILABLE,
    J_BENEFIT,
    J_COLLEGE,
    J_WIDTH,
    JOB,
    JOB_B,
    JOBS_SEEN,
    KC_EFFECT,
    KC_HOLDER,
    KC_VALUE,
    KE_ATTRIBUTES,
    KE_BLACK_SHARES,
    KE_CASH,
    KE_COLLEGE,
    KE_DICE_CASH,
    KE_FORGIVE,
    KE_GROWTH,
    KE_RETIREMENT,
    KE_TAX_FREE,
    L_BANK_BENEFITS,
    L_CARD_CASH,
    L_TO_BANK,
    L_UNEMPLOYMENT,
    LOANS,
    MERGED_LEVEL,
    MOST,
    N_ATTR,
    N_BUSINESSES,
    NEXT_CARD,
    NEXT_STARTER,
    NONE,
    OPT_A,
    OPT_ACTION,
    OWN_BIZ,
    OWN_JOB,
    RETIRE_POOL,
    RETIRE_TOKENS,
    SEAT_I,
    STARTER,
    T_AD_GROWTH,
    T_AD_LEVEL,
    TAX_FREE,
    TURN,
    UNEMP_TAKEN,
    UNIVERSITY_YEARS,
    USED,
    WORKED,
    YEAR,
    biz,
    job,
    kcard,
    opt,
    owners,
    row,
    table,
    table_len,
)

# ---------------------------------------------------------------- Take Action!


@rule
def qualifies(state, rules, p, at, college_needed):
    """Job Search / Start Business prerequisites: attribute minimums (``rules[at:at + 4]``, a
    job's or business's J_ATTR / B_ATTR slots) and college years."""
    r = row(p)
    if state[r + COLLEGE] < college_needed:
        return False
    for a in range(N_ATTR):
        if state[r + ATTR + a] < rules[at + a]:
            return False
    return True


@rule
def qualifies_for_job(state, rules, p, j):
    return qualifies(
        state, rules, p, rules[CFG_JOBS] + j * J_WIDTH + J_ATTR, job(rules, j, J_COLLEGE)
    )


@rule
def qualifies_for_business(state, rules, p, b):
    return qualifies(state, rules, p, rules[CFG_BIZ] + b * B_WIDTH + B_ATTR, 0)


@rule
def qualifies_for_mother(state, rules, p, mother):
    """Start Franchise: "They must have the prerequisites for the mother business" (ASSUMED,
    for a merged business: those of any one of its business cards)."""
    own_biz = owners(rules, OWN_BIZ)
    for b in range(rules[CFG_N_BIZ]):
        if state[own_biz + b] == mother and qualifies_for_business(state, rules, p, b):
            return True
    return False


@rule
def karnaxis_card_cost(state, rules, p):
    return max(0, rules[CFG_CARD_COST] - ability(state, rules, p, AB_KARNAXIS_DISCOUNT))


@rule
def tuition(state, rules, p, university):
    if state[EVENT_TUITION_FREE] == 1:
        return 0
    base = rules[CFG_UNIVERSITY_COST] if university else rules[CFG_COLLEGE_COST]
    return max(0, base - ability(state, rules, p, AB_TUITION_DISCOUNT))


@rule
def retirement_cost(state, rules, p):
    discount = (
        rules[CFG_INS_FIRM_DISCOUNT] if firm_benefit(state, rules, p, CFG_FIRM_INSURANCE) else 0
    )
    return max(0, rules[CFG_RETIREMENT_COST] - discount)


@rule
def list_actions(state, rules, p, first):
    """Take Action!: every action space p may use now, one row per concrete choice.  A space
    used already this year is not offered; Collect Unemployment once per year; Go To Work only
    as the first action of a job holder; unaffordable choices (even with loans to the cap) are
    not offered."""
    r = row(p)
    used = state[r + USED]
    n = 0
    if (used >> ACT_UNEMPLOYMENT) & 1 == 0 and state[UNEMP_TAKEN] == 0:
        n = add_option(state, n, ACT_UNEMPLOYMENT, state[FUND], 0, 0)
    if (used >> ACT_KARNAXIS) & 1 == 0 and state[NEXT_CARD] < rules[CFG_N_KCARDS]:
        cost = karnaxis_card_cost(state, rules, p)
        if can_afford(state, rules, p, cost):
            n = add_option(state, n, ACT_KARNAXIS, 0, 0, cost)
    if first:
        for slot in (JOB, JOB_B):
            if state[r + slot] >= 0:
                n = add_option(state, n, ACT_WORK, state[r + slot], 0, 0)
    if (used >> ACT_JOB_SEARCH) & 1 == 0:
        own_job = owners(rules, OWN_JOB)
        for j in range(rules[CFG_N_JOBS]):
            if (
                job(rules, j, J_AVAILABLE) == 1
                and state[own_job + j] == NONE
                and qualifies_for_job(state, rules, p, j)
            ):
                n = add_option(state, n, ACT_JOB_SEARCH, j, 0, 0)
    if (used >> ACT_STUDY) & 1 == 0:
        n = add_option(state, n, ACT_STUDY, 0, 0, 0)
    if (used >> ACT_COLLEGE) & 1 == 0:
        if state[r + COLLEGE] < rules[CFG_COLLEGE_YEARS]:
            cost = tuition(state, rules, p, False)
            if can_afford(state, rules, p, cost):
                n = add_option(state, n, ACT_COLLEGE, 0, 0, cost)
        cost = tuition(state, rules, p, True)
        if can_afford(state, rules, p, cost):
            n = add_option(state, n, ACT_COLLEGE, 1, 0, cost)
    if (used >> ACT_RETIREMENT) & 1 == 0 and state[RETIRE_POOL] > 0:
        cost = retirement_cost(state, rules, p)
        if can_afford(state, rules, p, cost):
            n = add_option(state, n, ACT_RETIREMENT, 0, 0, cost)
    if (used >> ACT_MARKET) & 1 == 0:
        n = add_option(state, n, ACT_MARKET, 0, 0, 0)
    year = state[YEAR]
    if (used >> ACT_BUSINESS) & 1 == 0 and state[r + BUSINESS_YEAR] != year:
        own_biz = owners(rules, OWN_BIZ)
        for b in range(rules[CFG_N_BIZ]):
            if state[own_biz + b] != NONE:
                continue
            only = biz(rules, b, B_ONLY_CHARACTER)
            if only >= 0 and only != state[r + CHARACTER]:
                continue
            if not qualifies_for_business(state, rules, p, b):
                continue
            cost = business_cost(state, rules, p, b)
            if can_afford(state, rules, p, cost):
                n = add_option(state, n, ACT_BUSINESS, b, 0, cost)
    if (
        (used >> ACT_FRANCHISE) & 1 == 0
        and state[r + FRANCHISE_YEAR] != year
        and state[FRANCHISES_LEFT] > 0
    ):
        for mother in range(rules[CFG_PLAYERS]):
            if (
                mother == p
                or state[row(mother) + N_BUSINESSES] == 0
                or not qualifies_for_mother(state, rules, p, mother)
            ):
                continue
            cost = franchise_cost(state, rules, p, mother)
            if can_afford(state, rules, p, cost):
                n = add_option(state, n, ACT_FRANCHISE, mother, 0, cost)
    if (used >> ACT_ADVERTISE) & 1 == 0:
        # a tier needs a merged level of 1+, so no business or franchise, no advertising
        for t in range(table_len(rules, T_AD_LEVEL)):
            if table(rules, T_AD_LEVEL, t) <= state[r + MERGED_LEVEL]:
                cost = advertise_cost(state, rules, p, t)
                if can_afford(state, rules, p, cost):
                    n = add_option(state, n, ACT_ADVERTISE, t, 0, cost)
    if n == 0:
        n = add_option(state, n, ACT_PASS, 0, 0, 0)
    return n


@rule
def raise_attributes(state, rules, knobs, rng, trace, p, count):
    """Personal Study / College / University: +count attributes of the player's choice (the
    policy picks), each up to the top of the track."""
    r = row(p)
    for _ in range(count):
        n = 0
        for a in range(N_ATTR):
            if state[r + ATTR + a] < rules[CFG_ATTR_MAX]:
                n = add_option(state, n, a, state[r + ATTR + a], 0, 0)
        if n == 0:
            return
        i = choose(state, rules, knobs, rng, trace, D_ATTRIBUTE, p, NONE, n)
        state[r + ATTR + opt(state, i, OPT_ACTION)] += 1


@rule
def take_job(state, rules, p, j):
    """Job Search: the job card goes on the player board; it counts as work this year."""
    r = row(p)
    state[owners(rules, OWN_JOB) + j] = p
    if state[r + JOB] == NONE:
        state[r + JOB] = j
        state[r + WORKED] = 1
    else:
        state[r + JOB_B] = j
    if (state[r + JOBS_SEEN] >> j) & 1 == 0:
        state[r + JOBS_SEEN] |= 1 << j
        state[r + DISTINCT_JOBS] += 1


@rule
def go_to_work(state, rules, trace, p, j):
    """Go To Work: keep one and only one job card; any other goes back to the job board."""
    r = row(p)
    other = state[r + JOB_B] if state[r + JOB] == j else state[r + JOB]
    if other >= 0:
        lose_job(state, rules, trace, p, other)
    state[r + JOB] = j
    state[r + JOB_B] = NONE
    state[r + WORKED] = 1


@rule
def attend_college(state, rules, knobs, rng, trace, p):
    """College: +1 Aptitude (ASSUMED: the first attribute, setup.attributes[0]), +1 attribute
    of the player's choice, and the college token moves down one circle (Freshman .. Senior)."""
    r = row(p)
    state[r + COLLEGE] += 1
    state[r + ATTR + APTITUDE] = min(
        rules[CFG_ATTR_MAX], state[r + ATTR + APTITUDE] + rules[CFG_COLLEGE_APTITUDE]
    )
    raise_attributes(state, rules, knobs, rng, trace, p, 1)


@rule
def use_card(state, rules, knobs, rng, trace, p, card):
    """Buy Karnaxis Card: the card's effect (ASSUMED deck, effects in rules.toml)."""
    r = row(p)
    effect, value = kcard(rules, card, KC_EFFECT), kcard(rules, card, KC_VALUE)
    before = state[r + CASH]
    if effect == KE_CASH:
        gain(state, p, value, L_CARD_CASH)
    elif effect == KE_DICE_CASH:
        gain(state, p, (rng_below(rng, DICE, 6) + 1) * value, L_CARD_CASH)
    elif effect == KE_ATTRIBUTES:
        raise_attributes(state, rules, knobs, rng, trace, p, value)
    elif effect == KE_GROWTH:
        state[r + GROWTH] += value
    elif effect == KE_RETIREMENT:
        k = min(value, state[RETIRE_POOL])
        state[r + RETIRE_TOKENS] += k
        state[RETIRE_POOL] -= k
    elif effect == KE_BLACK_SHARES:
        give_shares(state, p, rules[CFG_PLAYERS], value)
    elif effect == KE_COLLEGE:
        if state[r + COLLEGE] < rules[CFG_COLLEGE_YEARS]:
            attend_college(state, rules, knobs, rng, trace, p)
        else:
            raise_attributes(state, rules, knobs, rng, trace, p, 1)
    elif effect == KE_TAX_FREE:
        state[r + TAX_FREE] = 1
    elif effect == KE_FORGIVE:
        state[r + LOANS] -= min(value, state[r + LOANS])
    state[r + COUNTS + CT_CARD_USED] += 1
    record(state, trace, EV_CARD, p, card, value, before, state[r + CASH])


@rule
def buy_karnaxis_card(state, rules, knobs, rng, trace, p):
    """Buy Karnaxis Card: $15,000 to the bank (Jobs 'n Stuff: the Consultant collects $5,000,
    ASSUMED from the bank); the player uses the card immediately or saves it for later (selling
    it to another player is not modelled)."""
    pay_by_choice(state, rules, trace, p, karnaxis_card_cost(state, rules, p), L_TO_BANK, NONE)
    state[row(p) + CARDS_BOUGHT] += 1
    consultant = job_holder(state, rules, rules[CFG_JOB_CONSULTANT])
    if consultant >= 0:
        gain(state, consultant, rules[CFG_CONSULTANT_FEE], L_BANK_BENEFITS)
    card = state[owners(rules, DECK_CARDS) + state[NEXT_CARD]]
    state[NEXT_CARD] += 1
    effect, value = kcard(rules, card, KC_EFFECT), kcard(rules, card, KC_VALUE)
    n = add_option(state, 0, CU_USE, card, effect, value)
    n = add_option(state, n, CU_SAVE, card, effect, value)
    i = choose(state, rules, knobs, rng, trace, D_CARD, p, NONE, n)
    if opt(state, i, OPT_ACTION) == CU_USE:
        use_card(state, rules, knobs, rng, trace, p, card)
    else:
        state[owners(rules, KC_HOLDER) + card] = p
        state[row(p) + CARDS_HELD] += 1
        state[row(p) + COUNTS + CT_CARD_SAVED] += 1
        cash = state[row(p) + CASH]
        record(state, trace, EV_CARD_SAVED, p, card, value, cash, cash)


@rule
def use_saved_cards(state, rules, knobs, rng, trace, p):
    """Buy Karnaxis Card: a card saved for later is used when its holder chooses (ASSUMED: at
    the start of any of their action turns); one still saved at Game End is worth nothing."""
    holder = owners(rules, KC_HOLDER)
    while state[row(p) + CARDS_HELD] > 0:
        n = add_option(state, 0, CU_SAVE, NONE, 0, 0)
        for card in range(rules[CFG_N_KCARDS]):
            if state[holder + card] == p:
                n = add_option(
                    state,
                    n,
                    CU_USE,
                    card,
                    kcard(rules, card, KC_EFFECT),
                    kcard(rules, card, KC_VALUE),
                )
        i = choose(state, rules, knobs, rng, trace, D_CARD, p, NONE, n)
        if opt(state, i, OPT_ACTION) == CU_SAVE:
            return
        card = opt(state, i, OPT_A)
        state[holder + card] = NONE
        state[row(p) + CARDS_HELD] -= 1
        use_card(state, rules, knobs, rng, trace, p, card)
        check_karnaxis(state, rules, trace, p)


@rule
def do_action(state, rules, knobs, rng, trace, p, action, a, first):
    """Perform one chosen action (Take Action!: the action spaces); ``a`` is its OPT_A.
    Fulfilling Your Karnaxis: "as a player achieves their Karnaxis" is checked for every seat
    after the action, since it can pay other seats (a franchise's owner, a firm, the
    Consultant or Professor)."""
    r = row(p)
    before = state[r + CASH]
    if action != ACT_PASS:
        state[r + USED] |= 1 << action
        state[r + COUNTS + (CT_UNIVERSITY if action == ACT_COLLEGE and a == 1 else action)] += 1
    # Go To Work: a job holder whose first action is anything else is fired; Job Search as the
    # first action counts as work for the new job only.
    if first and action != ACT_WORK and (state[r + JOB] >= 0 or state[r + JOB_B] >= 0):
        for slot in (JOB, JOB_B):
            if state[r + slot] >= 0:
                lose_job(state, rules, trace, p, state[r + slot])
    if action == ACT_UNEMPLOYMENT:
        amount = state[FUND]
        state[FUND] = 0
        state[UNEMP_TAKEN] = 1
        state[NEXT_STARTER] = p
        gain(state, p, amount, L_UNEMPLOYMENT)
        bonus = ability(state, rules, p, AB_UNEMPLOYMENT_BONUS)
        if bonus > 0:
            gain(state, p, bonus, L_BANK_BENEFITS)
    elif action == ACT_KARNAXIS:
        buy_karnaxis_card(state, rules, knobs, rng, trace, p)
    elif action == ACT_JOB_SEARCH:
        take_job(state, rules, p, a)
    elif action == ACT_WORK:
        go_to_work(state, rules, trace, p, a)
    elif action == ACT_STUDY:
        raise_attributes(
            state,
            rules,
            knobs,
            rng,
            trace,
            p,
            rules[CFG_STUDY_ATTRS] + ability(state, rules, p, AB_STUDY_BONUS),
        )
    elif action == ACT_COLLEGE:
        pay_by_choice(state, rules, trace, p, tuition(state, rules, p, a == 1), L_TO_BANK, NONE)
        if a == 0:
            attend_college(state, rules, knobs, rng, trace, p)
        else:
            state[r + UNIVERSITY_YEARS] += 1
            raise_attributes(state, rules, knobs, rng, trace, p, rules[CFG_UNIVERSITY_ATTRS])
        professor = job_holder(state, rules, rules[CFG_JOB_PROFESSOR])
        if professor >= 0:
            gain(state, professor, rules[CFG_PROFESSOR_FEE], L_BANK_BENEFITS)
    elif action == ACT_RETIREMENT:
        pay_by_choice(
            state,
            rules,
            trace,
            p,
            retirement_cost(state, rules, p),
            L_TO_BANK,
            firm_owner(state, rules, CFG_FIRM_INSURANCE),
        )
        state[r + RETIRE_TOKENS] += 1
        state[RETIRE_POOL] -= 1
    elif action == ACT_MARKET:
        market(state, rules, knobs, rng, trace, p)
    elif action == ACT_BUSINESS:
        start_business(state, rules, trace, p, a)
    elif action == ACT_FRANCHISE:
        start_franchise(state, rules, trace, p, a)
    elif action == ACT_ADVERTISE:
        pay_by_choice(
            state,
            rules,
            trace,
            p,
            advertise_cost(state, rules, p, a),
            L_TO_BANK,
            firm_owner(state, rules, CFG_FIRM_ADVERTISING),
        )
        state[r + GROWTH] += table(rules, T_AD_GROWTH, a)
    record(state, trace, EV_ACTION, p, action, a, before, state[r + CASH])
    # every seat: a fee or a franchise's cost paid to another seat can fulfil its Karnaxis
    check_all_karnaxis(state, rules, trace)
    settle_forfeit(state, rules, trace, p)


@rule
def start_actions(state, rules):
    """2. Take Action!: two action squares each, three for a Rocket Scientist / Pro Athlete
    (ASSUMED: holding the card at the start of the stage); the first square is the starting
    player's."""
    most = 0
    for p in range(rules[CFG_PLAYERS]):
        k = rules[CFG_ACTIONS]
        for slot in (JOB, JOB_B):
            j = state[row(p) + slot]
            if j >= 0 and job(rules, j, J_BENEFIT) == BEN_EXTRA_ACTION:
                k = rules[CFG_ACTIONS] + 1
        state[row(p) + ACTIONS] = k
        most = max(most, k)
    state[MOST] = most
    state[NEXT_STARTER] = state[STARTER]
    state[TURN], state[SEAT_I] = 0, 0


@rule
def action_square(state, rules, knobs, rng, trace):
    """2. Take Action!: the next action square, placed clockwise from the starting player one
    at a time until every player has placed theirs.  Before it the player may use Karnaxis
    cards saved earlier.  Returns True when the stage is over: collecting unemployment has
    made the collector the starting player of the following year."""
    n = rules[CFG_PLAYERS]
    turn = state[TURN]
    p = (state[STARTER] + state[SEAT_I]) % n
    if state[row(p) + CARDS_HELD] > 0:
        use_saved_cards(state, rules, knobs, rng, trace, p)
    m = list_actions(state, rules, p, turn == 0)
    choice = choose(state, rules, knobs, rng, trace, D_ACTION, p, NONE, m)
    do_action(
        state,
        rules,
        knobs,
        rng,
        trace,
        p,
        opt(state, choice, OPT_ACTION),
        opt(state, choice, OPT_A),
        turn == 0,
    )
    while True:  # on to the next player with a square left in this turn, or the next turn
        state[SEAT_I] += 1
        if state[SEAT_I] == n:
            state[SEAT_I] = 0
            state[TURN] += 1
        if state[TURN] == state[MOST]:
            state[STARTER] = state[NEXT_STARTER]
            return True
        if state[row((state[STARTER] + state[SEAT_I]) % n) + ACTIONS] > state[TURN]:
            return False
