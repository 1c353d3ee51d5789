"""Karnaxis stage 2, Take Action!: the action spaces, who may use which, and what each does
(rulebook: shared/rules/karnaxis.md, "2. Take Action!")."""

from numba import njit

from policies.karnaxis import choose
from simulator.games.karnaxis.money import (
    ability, add_option, can_afford, check_karnaxis, firm_benefit, firm_owner, gain, job_holder,
    pay_by_choice, record, settle_forfeit)
from simulator.games.karnaxis.new_year import give_shares, lose_job
from simulator.games.karnaxis.business import (
    advertise_cost, business_cost, franchise_cost, market, start_business, start_franchise)
from simulator.games.karnaxis.state import *  # noqa: F401,F403  (the named slots)
from simulator.rng import DICE, rng_below


# ---------------------------------------------------------------- Take Action!

@njit(cache=True)
def qualifies(players, p, cards, r, offset, college_needed):
    """Job Search / Start Business prerequisites: attribute minimums (``cards[r, offset:]``,
    a job or business row) and college years."""
    if players[p, COLLEGE] < college_needed:
        return False
    for a in range(N_ATTR):
        if players[p, ATTR + a] < cards[r, offset + a]:
            return False
    return True


@njit(cache=True)
def qualifies_for_mother(biz, players, owners, p, mother):
    """Start Franchise: "They must have the prerequisites for the mother business" (ASSUMED,
    for a merged business: those of any one of its business cards)."""
    for b in range(biz.shape[0]):
        if owners[OWN_BIZ, b] == mother and qualifies(players, p, biz, b, B_ATTR, 0):
            return True
    return False


@njit(cache=True)
def karnaxis_card_cost(cfg, chars, players, p):
    return max(0, cfg[CFG_CARD_COST] - ability(chars, players, p, AB_KARNAXIS_DISCOUNT))


@njit(cache=True)
def tuition(cfg, chars, players, board, p, university):
    if board[EVENT_TUITION_FREE] == 1:
        return 0
    base = cfg[CFG_UNIVERSITY_COST] if university else cfg[CFG_COLLEGE_COST]
    return max(0, base - ability(chars, players, p, AB_TUITION_DISCOUNT))


@njit(cache=True)
def retirement_cost(cfg, owners, p):
    discount = cfg[CFG_INS_FIRM_DISCOUNT] if firm_benefit(cfg, owners, p, CFG_FIRM_INSURANCE) else 0
    return max(0, cfg[CFG_RETIREMENT_COST] - discount)


@njit(cache=True)
def list_actions(cfg, tables, chars, jobs, biz, kcards, players, board, owners, options, p, first):
    """Take Action!: every action space p may use now, one row per concrete choice.  A space
    used already this year is not offered; Collect Unemployment once per year; Go To Work only
    as the first action of a job holder; unaffordable choices (even with loans to the cap) are
    not offered."""
    used = players[p, USED]
    n = 0
    if (used >> ACT_UNEMPLOYMENT) & 1 == 0 and board[UNEMP_TAKEN] == 0:
        n = add_option(options, n, ACT_UNEMPLOYMENT, board[FUND], 0, 0)
    if (used >> ACT_KARNAXIS) & 1 == 0 and board[NEXT_CARD] < kcards.shape[0]:
        cost = karnaxis_card_cost(cfg, chars, players, p)
        if can_afford(cfg, players, p, cost):
            n = add_option(options, n, ACT_KARNAXIS, 0, 0, cost)
    if first:
        for slot in (JOB, JOB_B):
            if players[p, slot] >= 0:
                n = add_option(options, n, ACT_WORK, players[p, slot], 0, 0)
    if (used >> ACT_JOB_SEARCH) & 1 == 0:
        for j in range(jobs.shape[0]):
            if (jobs[j, J_AVAILABLE] == 1 and owners[OWN_JOB, j] == NONE
                    and qualifies(players, p, jobs, j, J_ATTR, jobs[j, J_COLLEGE])):
                n = add_option(options, n, ACT_JOB_SEARCH, j, 0, 0)
    if (used >> ACT_STUDY) & 1 == 0:
        n = add_option(options, n, ACT_STUDY, 0, 0, 0)
    if (used >> ACT_COLLEGE) & 1 == 0:
        if players[p, COLLEGE] < cfg[CFG_COLLEGE_YEARS]:
            cost = tuition(cfg, chars, players, board, p, False)
            if can_afford(cfg, players, p, cost):
                n = add_option(options, n, ACT_COLLEGE, 0, 0, cost)
        cost = tuition(cfg, chars, players, board, p, True)
        if can_afford(cfg, players, p, cost):
            n = add_option(options, n, ACT_COLLEGE, 1, 0, cost)
    if (used >> ACT_RETIREMENT) & 1 == 0 and board[RETIRE_POOL] > 0:
        cost = retirement_cost(cfg, owners, p)
        if can_afford(cfg, players, p, cost):
            n = add_option(options, n, ACT_RETIREMENT, 0, 0, cost)
    if (used >> ACT_MARKET) & 1 == 0:
        n = add_option(options, n, ACT_MARKET, 0, 0, 0)
    year = board[YEAR]
    if (used >> ACT_BUSINESS) & 1 == 0 and players[p, BUSINESS_YEAR] != year:
        for b in range(biz.shape[0]):
            if owners[OWN_BIZ, b] != NONE:
                continue
            only = biz[b, B_ONLY_CHARACTER]
            if only >= 0 and only != players[p, CHARACTER]:
                continue
            if not qualifies(players, p, biz, b, B_ATTR, 0):
                continue
            cost = business_cost(tables, chars, biz, players, p, b)
            if can_afford(cfg, players, p, cost):
                n = add_option(options, n, ACT_BUSINESS, b, 0, cost)
    if ((used >> ACT_FRANCHISE) & 1 == 0 and players[p, FRANCHISE_YEAR] != year
            and board[FRANCHISES_LEFT] > 0):
        for mother in range(players.shape[0]):
            if (mother == p or players[mother, N_BUSINESSES] == 0
                    or not qualifies_for_mother(biz, players, owners, p, mother)):
                continue
            cost = franchise_cost(tables, chars, players, p, mother)
            if can_afford(cfg, players, p, cost):
                n = add_option(options, n, ACT_FRANCHISE, mother, 0, cost)
    if (used >> ACT_ADVERTISE) & 1 == 0:
        # a tier needs a merged level of 1+, so no business or franchise, no advertising
        for t in range(tables[T_LEN, T_AD_LEVEL]):
            if tables[T_AD_LEVEL, t] <= players[p, MERGED_LEVEL]:
                cost = advertise_cost(cfg, tables, owners, p, t)
                if can_afford(cfg, players, p, cost):
                    n = add_option(options, n, ACT_ADVERTISE, t, 0, cost)
    if n == 0:
        n = add_option(options, n, ACT_PASS, 0, 0, 0)
    return n


@njit(cache=True)
def raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                     shares, owners, rng, options, scores, pol, trace, p, count):
    """Personal Study / College / University: +count attributes of the player's choice (the
    policy picks), each up to the top of the track."""
    for _ in range(count):
        n = 0
        for a in range(N_ATTR):
            if players[p, ATTR + a] < cfg[CFG_ATTR_MAX]:
                n = add_option(options, n, a, players[p, ATTR + a], 0, 0)
        if n == 0:
            return
        i = choose(D_ATTRIBUTE, p, n, pol[p], cfg, tables, chars, jobs, biz, knobs, players, board,
                   stocks, shares, owners, rng, options, scores)
        players[p, ATTR + options[i, OPT_ACTION]] += 1


@njit(cache=True)
def take_job(players, owners, p, j):
    """Job Search: the job card goes on the player board; it counts as work this year."""
    owners[OWN_JOB, j] = p
    if players[p, JOB] == NONE:
        players[p, JOB] = j
        players[p, WORKED] = 1
    else:
        players[p, JOB_B] = j
    if (players[p, JOBS_SEEN] >> j) & 1 == 0:
        players[p, JOBS_SEEN] |= 1 << j
        players[p, DISTINCT_JOBS] += 1


@njit(cache=True)
def go_to_work(players, board, owners, trace, p, j):
    """Go To Work: keep one and only one job card; any other goes back to the job board."""
    other = players[p, JOB_B] if players[p, JOB] == j else players[p, JOB]
    if other >= 0:
        lose_job(players, board, owners, trace, p, other)
    players[p, JOB] = j
    players[p, JOB_B] = NONE
    players[p, WORKED] = 1


@njit(cache=True)
def attend_college(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                   shares, owners, rng, options, scores, pol, trace, p):
    """College: +1 Aptitude (ASSUMED: the first attribute, setup.attributes[0]), +1 attribute
    of the player's choice, and the college token moves down one circle (Freshman .. Senior)."""
    players[p, COLLEGE] += 1
    players[p, ATTR + APTITUDE] = min(cfg[CFG_ATTR_MAX],
                                      players[p, ATTR + APTITUDE] + cfg[CFG_COLLEGE_APTITUDE])
    raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                     shares, owners, rng, options, scores, pol, trace, p, 1)


@njit(cache=True)
def use_card(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
             shares, owners, rng, options, scores, pol, trace, p, card):
    """Buy Karnaxis Card: the card's effect (ASSUMED deck, effects in rules.toml)."""
    effect, value = kcards[card, KC_EFFECT], kcards[card, KC_VALUE]
    before = players[p, CASH]
    if effect == KE_CASH:
        gain(players, p, value, L_CARD_CASH)
    elif effect == KE_DICE_CASH:
        gain(players, p, (rng_below(rng, DICE, 6) + 1) * value, L_CARD_CASH)
    elif effect == KE_ATTRIBUTES:
        raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                         stocks, shares, owners, rng, options, scores, pol, trace, p, value)
    elif effect == KE_GROWTH:
        players[p, GROWTH] += value
    elif effect == KE_RETIREMENT:
        k = min(value, board[RETIRE_POOL])
        players[p, RETIRE_TOKENS] += k
        board[RETIRE_POOL] -= k
    elif effect == KE_BLACK_SHARES:
        give_shares(board, shares, p, players.shape[0], value)
    elif effect == KE_COLLEGE:
        if players[p, COLLEGE] < cfg[CFG_COLLEGE_YEARS]:
            attend_college(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                           stocks, shares, owners, rng, options, scores, pol, trace, p)
        else:
            raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                             stocks, shares, owners, rng, options, scores, pol, trace, p, 1)
    elif effect == KE_TAX_FREE:
        players[p, TAX_FREE] = 1
    elif effect == KE_FORGIVE:
        players[p, LOANS] -= min(value, players[p, LOANS])
    record(board, trace, EV_CARD, p, card, value, before, players[p, CASH])


@njit(cache=True)
def buy_karnaxis_card(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                      shares, owners, rng, options, scores, pol, trace, p):
    """Buy Karnaxis Card: $15,000 to the bank (Jobs 'n Stuff: the Consultant collects $5,000,
    ASSUMED from the bank); the player uses the card immediately or saves it for later (selling
    it to another player is not modelled)."""
    pay_by_choice(cfg, chars, players, board, trace, p, karnaxis_card_cost(cfg, chars, players, p),
                  L_TO_BANK, NONE)
    players[p, CARDS_BOUGHT] += 1
    consultant = job_holder(players, cfg[CFG_JOB_CONSULTANT])
    if consultant >= 0:
        gain(players, consultant, cfg[CFG_CONSULTANT_FEE], L_BANK_BENEFITS)
    card = owners[DECK_CARDS, board[NEXT_CARD]]
    board[NEXT_CARD] += 1
    effect, value = kcards[card, KC_EFFECT], kcards[card, KC_VALUE]
    n = add_option(options, 0, CU_USE, card, effect, value)
    n = add_option(options, n, CU_SAVE, card, effect, value)
    i = choose(D_CARD, p, n, pol[p], cfg, tables, chars, jobs, biz, knobs, players, board, stocks,
               shares, owners, rng, options, scores)
    if options[i, OPT_ACTION] == CU_USE:
        use_card(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                 shares, owners, rng, options, scores, pol, trace, p, card)
    else:
        owners[KC_HOLDER, card] = p
        players[p, CARDS_HELD] += 1
        record(board, trace, EV_CARD_SAVED, p, card, kcards[card, KC_VALUE], players[p, CASH],
               players[p, CASH])


@njit(cache=True)
def use_saved_cards(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                    shares, owners, rng, options, scores, pol, trace, p):
    """Buy Karnaxis Card: a card saved for later is used when its holder chooses (ASSUMED: at
    the start of any of their action turns); one still saved at Game End is worth nothing."""
    while players[p, CARDS_HELD] > 0:
        n = add_option(options, 0, CU_SAVE, NONE, 0, 0)
        for card in range(kcards.shape[0]):
            if owners[KC_HOLDER, card] == p:
                n = add_option(options, n, CU_USE, card, kcards[card, KC_EFFECT],
                               kcards[card, KC_VALUE])
        i = choose(D_CARD, p, n, pol[p], cfg, tables, chars, jobs, biz, knobs, players, board,
                   stocks, shares, owners, rng, options, scores)
        if options[i, OPT_ACTION] == CU_SAVE:
            return
        card = options[i, OPT_A]
        owners[KC_HOLDER, card] = NONE
        players[p, CARDS_HELD] -= 1
        use_card(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                 shares, owners, rng, options, scores, pol, trace, p, card)
        check_karnaxis(cfg, chars, players, shares, board, trace, p)


@njit(cache=True)
def do_action(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
              owners, rng, options, scores, pol, trace, p, action, a, first):
    """Perform one chosen action (Take Action!: the action spaces); ``a`` is its OPT_A."""
    before = players[p, CASH]
    if action != ACT_PASS:
        players[p, USED] |= 1 << action
    # Go To Work: a job holder whose first action is anything else is fired; Job Search as the
    # first action counts as work for the new job only.
    if first and action != ACT_WORK and (players[p, JOB] >= 0 or players[p, JOB_B] >= 0):
        for slot in (JOB, JOB_B):
            if players[p, slot] >= 0:
                lose_job(players, board, owners, trace, p, players[p, slot])
    if action == ACT_UNEMPLOYMENT:
        amount = board[FUND]
        board[FUND] = 0
        board[UNEMP_TAKEN] = 1
        board[NEXT_STARTER] = p
        gain(players, p, amount, L_UNEMPLOYMENT)
        bonus = ability(chars, players, p, AB_UNEMPLOYMENT_BONUS)
        if bonus > 0:
            gain(players, p, bonus, L_BANK_BENEFITS)
    elif action == ACT_KARNAXIS:
        buy_karnaxis_card(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                          stocks, shares, owners, rng, options, scores, pol, trace, p)
    elif action == ACT_JOB_SEARCH:
        take_job(players, owners, p, a)
    elif action == ACT_WORK:
        go_to_work(players, board, owners, trace, p, a)
    elif action == ACT_STUDY:
        raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                         stocks, shares, owners, rng, options, scores, pol, trace, p,
                         cfg[CFG_STUDY_ATTRS] + ability(chars, players, p, AB_STUDY_BONUS))
    elif action == ACT_COLLEGE:
        pay_by_choice(cfg, chars, players, board, trace, p,
                      tuition(cfg, chars, players, board, p, a == 1), L_TO_BANK, NONE)
        if a == 0:
            attend_college(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                           stocks, shares, owners, rng, options, scores, pol, trace, p)
        else:
            players[p, UNIVERSITY_YEARS] += 1
            raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                             stocks, shares, owners, rng, options, scores, pol, trace, p,
                             cfg[CFG_UNIVERSITY_ATTRS])
        professor = job_holder(players, cfg[CFG_JOB_PROFESSOR])
        if professor >= 0:
            gain(players, professor, cfg[CFG_PROFESSOR_FEE], L_BANK_BENEFITS)
    elif action == ACT_RETIREMENT:
        pay_by_choice(cfg, chars, players, board, trace, p, retirement_cost(cfg, owners, p),
                      L_TO_BANK,
                      firm_owner(cfg, owners, CFG_FIRM_INSURANCE))
        players[p, RETIRE_TOKENS] += 1
        board[RETIRE_POOL] -= 1
    elif action == ACT_MARKET:
        market(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
               owners, rng, options, scores, pol, trace, p)
    elif action == ACT_BUSINESS:
        start_business(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                       shares, owners, rng, options, scores, pol, trace, p, a)
    elif action == ACT_FRANCHISE:
        start_franchise(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                        stocks, shares, owners, rng, options, scores, pol, trace, p, a)
    elif action == ACT_ADVERTISE:
        pay_by_choice(cfg, chars, players, board, trace, p,
                      advertise_cost(cfg, tables, owners, p, a), L_TO_BANK,
                      firm_owner(cfg, owners, CFG_FIRM_ADVERTISING))
        players[p, GROWTH] += tables[T_AD_GROWTH, a]
    record(board, trace, EV_ACTION, p, action, a, before, players[p, CASH])
    check_karnaxis(cfg, chars, players, shares, board, trace, p)
    settle_forfeit(cfg, chars, players, board, trace, p)


@njit(cache=True)
def take_actions(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                 shares, owners, rng, options, scores, pol, trace):
    """2. Take Action!: clockwise from the starting player, one action square at a time, until
    every player has placed theirs: two each, three for a Rocket Scientist / Pro Athlete
    (ASSUMED: holding the card at the start of the stage).  Collecting unemployment makes the
    collector the starting player of the following year.  Before each action square a player
    may use Karnaxis cards saved earlier."""
    n = players.shape[0]
    most = 0
    for p in range(n):
        k = cfg[CFG_ACTIONS]
        for slot in (JOB, JOB_B):
            j = players[p, slot]
            if j >= 0 and jobs[j, J_BENEFIT] == BEN_EXTRA_ACTION:
                k = cfg[CFG_ACTIONS] + 1
        players[p, ACTIONS] = k
        most = max(most, k)
    board[NEXT_STARTER] = board[STARTER]
    for turn in range(most):
        for i in range(n):
            p = (board[STARTER] + i) % n
            if players[p, ACTIONS] <= turn:
                continue
            if players[p, CARDS_HELD] > 0:
                use_saved_cards(cfg, tables, chars, jobs, biz, events, kcards, knobs, players,
                                board, stocks, shares, owners, rng, options, scores, pol, trace, p)
            m = list_actions(cfg, tables, chars, jobs, biz, kcards, players, board, owners, options,
                             p, turn == 0)
            choice = choose(D_ACTION, p, m, pol[p], cfg, tables, chars, jobs, biz, knobs, players,
                            board, stocks, shares, owners, rng, options, scores)
            do_action(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                      shares, owners, rng, options, scores, pol, trace, p, options[choice, OPT_ACTION],
                      options[choice, OPT_A], turn == 0)
    board[STARTER] = board[NEXT_STARTER]
