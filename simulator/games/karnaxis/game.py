"""Karnaxis wrapper (rulebook: shared/rules/karnaxis.md).

The wrapper checks the rules, turns them into the kernel's arrays, allocates outputs and
decodes traces; the kernels in :mod:`engine` only loop.
"""

import numpy as np

from policies import karnaxis as policies
from simulator.core.errors import UserError
from simulator.core.game import KNOB_BEHAVIOUR, Game, policy_knobs
from simulator.core.rules import require
from simulator.games.karnaxis import games
from simulator.games.karnaxis.state import (
    ABILITIES,
    ACT_ADVERTISE,
    ACT_BUSINESS,
    ACT_COLLEGE,
    ACT_FRANCHISE,
    ACT_JOB_SEARCH,
    ACT_WORK,
    ACTION_NAMES,
    AMBITIONS,
    B_ATTR,
    B_AVAILABLE,
    B_FIRM,
    B_GROWTH,
    B_LEVEL,
    B_ONLY_CHARACTER,
    B_WIDTH,
    BENEFITS,
    C_ABILITY,
    C_ABILITY_VALUE,
    C_ATTR,
    C_FORFEIT,
    C_KARNAXIS,
    C_KARNAXIS_JOB,
    C_KARNAXIS_VALUE,
    C_WIDTH,
    CARD_EFFECTS,
    CFG_ACCOUNTANT_COST,
    CFG_ACTIONS,
    CFG_AD_FIRM_DISCOUNT,
    CFG_AFTER_CRASH,
    CFG_AFTER_DIVIDEND,
    CFG_ATTR_MAX,
    CFG_BIZ,
    CFG_CARD_COST,
    CFG_CHARS,
    CFG_COLLEGE_APTITUDE,
    CFG_COLLEGE_COST,
    CFG_COLLEGE_YEARS,
    CFG_CONSULTANT_FEE,
    CFG_DEALT,
    CFG_DECK_WIDTH,
    CFG_DIVIDEND,
    CFG_EVENTS,
    CFG_EXTRA_TOKEN,
    CFG_FIRM_ACCOUNTING,
    CFG_FIRM_ADVERTISING,
    CFG_FIRM_INSURANCE,
    CFG_FRANCHISE_CARDS,
    CFG_FUND_INCREMENT,
    CFG_FUND_START,
    CFG_INCOME_MAX,
    CFG_INS_FIRM_DISCOUNT,
    CFG_INSURANCE_COST,
    CFG_INTEREST_PCT,
    CFG_JOB_BANKER,
    CFG_JOB_CONSULTANT,
    CFG_JOB_PROFESSOR,
    CFG_JOB_TAX_COLLECTOR,
    CFG_JOBS,
    CFG_KARNAXIS_BONUS,
    CFG_KCARDS,
    CFG_LOAN_CAP,
    CFG_LOAN_UNIT,
    CFG_MAX_TRADES,
    CFG_N_BIZ,
    CFG_N_CHARS,
    CFG_N_EVENTS,
    CFG_N_JOBS,
    CFG_N_KCARDS,
    CFG_NOTICE_PENALTY,
    CFG_NOTICES_BELOW_CAP,
    CFG_PLAYERS,
    CFG_PROFESSOR_FEE,
    CFG_RETIREMENT_COST,
    CFG_RETIREMENT_TOKENS,
    CFG_SECOND_NOTICE_OVER,
    CFG_SHARE_PRICE,
    CFG_SHARE_TOKENS,
    CFG_SHARES_PER_START,
    CFG_START_CASH,
    CFG_STATE_SIZE,
    CFG_STOCK_START,
    CFG_STOCK_TOP,
    CFG_STUDY_ATTRS,
    CFG_TABLE_WIDTH,
    CFG_TABLES,
    CFG_TC_DISCOUNT,
    CFG_UNIVERSITY_ATTRS,
    CFG_UNIVERSITY_COST,
    CFG_UNSEEN,
    CFG_YEARS,
    CU_USE,
    D_ACTION,
    D_ATTRIBUTE,
    D_CHARACTER,
    D_MARKET,
    D_REROLL,
    DECISION_NAMES,
    END_REASONS,
    EV_ACTION,
    EV_BUSINESS_INCOME,
    EV_CARD,
    EV_CARD_SAVED,
    EV_CHARACTER,
    EV_CRASH,
    EV_DIVIDEND,
    EV_EVENT,
    EV_EVENT_CASH,
    EV_FINAL,
    EV_FIRED,
    EV_FORFEIT,
    EV_KARNAXIS,
    EV_LOAN,
    EV_LOAN_PAYMENT,
    EV_NOTICE,
    EV_REROLL,
    EV_RETIREMENT,
    EV_SALARY,
    EV_SEARCH,
    EV_SEARCH_OPTION,
    EV_STOCK,
    EV_TAX,
    EV_TRADE,
    EV_YEAR,
    EVENT_EFFECTS,
    FIRMS,
    G_END_REASON,
    G_LENGTH,
    G_SEARCH_DECISIONS,
    G_SHARES_LEFT,
    G_UNEMPLOYMENT_LEFT,
    G_WINNER,
    J_ATTR,
    J_AVAILABLE,
    J_BENEFIT,
    J_COLLEGE,
    J_SALARY,
    J_WIDTH,
    L_SALARY,
    MAX_DECK,
    MAX_OPTIONS,
    MK_BUY,
    MK_SELL,
    N_ATTR,
    N_CFG,
    N_DEALT_KEPT,
    N_GAME_OUT,
    N_OWNERS,
    N_PLAYER,
    N_PLAYER_OUT,
    N_SPACES,
    N_TABLE,
    N_YEAR_OUT,
    NONE,
    OWNERS,
    P_ATTR_TOTAL,
    P_BUSINESSES,
    P_CARDS,
    P_CARDS_UNUSED,
    P_CASH_BEFORE_END,
    P_CHARACTER,
    P_COLLEGE,
    P_DEALT,
    P_FINAL_JOB,
    P_FRANCHISES,
    P_GROWTH,
    P_INCOME,
    P_JOBS_HELD,
    P_KARNAXIS_DONE,
    P_KARNAXIS_REVOKED,
    P_KARNAXIS_YEAR,
    P_LOANS_COUNT,
    P_NOTICES,
    P_PEAK_LOANS,
    P_RANK_TITLE,
    P_RETIRE_TOKENS,
    P_SCORE,
    P_SHARES_HELD,
    P_SMART_YEARS,
    P_UNIVERSITY,
    P_WON,
    RANK_TITLES,
    T_AD_COST,
    T_AD_GROWTH,
    T_AD_LEVEL,
    T_BRACKET_MAX,
    T_BUY_LOTS,
    T_DIE,
    T_DUE_PCT,
    T_DUE_YEAR,
    T_FRANCHISE_COST,
    T_FRANCHISE_GROWTH,
    T_LEN,
    T_LEVEL_COST,
    T_RETIRE_PAYOUT,
    T_TAX_SMART,
    T_TAX_STANDARD,
    TRACE_WIDTH,
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
)

ENGINE_VERSION = "karnaxis-2"

# players columns copied from the ledger (state.L_*), in ledger order
LEDGER_COLUMNS = (
    "salary_total_usd",
    "business_income_total_usd",
    "dividends_usd",
    "unemployment_usd",
    "karnaxis_reward_usd",
    "loans_taken_usd",
    "shares_sold_usd",
    "event_gains_usd",
    "karnaxis_card_cash_usd",
    "received_from_players_usd",
    "bank_benefits_usd",
    "bank_paid_delinquent_usd",
    "retirement_payout_usd",
    "interest_received_usd",
    "taxes_paid_usd",
    "interest_paid_usd",
    "principal_repaid_usd",
    "shares_bought_usd",
    "paid_to_bank_usd",
    "paid_to_players_usd",
    "event_losses_usd",
    "notice_penalty_usd",
    "karnaxis_payback_usd",
)
assert len(LEDGER_COLUMNS) == N_PLAYER - L_SALARY


def _names(items):
    return [item["name"] for item in items]


def check(rules: dict) -> None:
    setup, stock, taxes, loans = rules["setup"], rules["stock"], rules["taxes"], rules["loans"]
    actions, retirement, business = rules["actions"], rules["retirement"], rules["business"]
    require(rules, "setup.years", 1 <= setup["years"] <= 100, "must be 1..100")
    require(rules, "setup.start_cash_usd", setup["start_cash_usd"] >= 0, "must be >= 0")
    require(
        rules,
        "setup.actions_per_year",
        1 <= setup["actions_per_year"] <= N_SPACES - 1,
        f"must be 1..{N_SPACES - 1}",
    )
    require(
        rules,
        "setup.attributes",
        len(setup["attributes"]) == N_ATTR,
        f"needs {N_ATTR} attribute names",
    )
    require(rules, "setup.attribute_max", setup["attribute_max"] >= 1, "must be >= 1")
    require(rules, "setup.characters_dealt", setup["characters_dealt"] >= 1, "must be >= 1")
    require(
        rules,
        "characters",
        len(rules["characters"]) >= 6 * setup["characters_dealt"],
        f"6 players need {6 * setup['characters_dealt']} characters to deal",
    )
    require(
        rules,
        "unemployment.increment_usd",
        rules["unemployment"]["increment_usd"] >= 0,
        "must be >= 0",
    )
    require(
        rules, "unemployment.start_usd", rules["unemployment"]["start_usd"] >= 0, "must be >= 0"
    )
    require(rules, "stock.die", len(stock["die"]) >= 1, "needs at least one face")
    require(
        rules,
        "stock.top_value",
        stock["top_value"] > stock["start_value"] > 0,
        "needs top_value > start_value > 0",
    )
    require(
        rules,
        "stock.after_dividend_value",
        0 < stock["after_dividend_value"] < stock["top_value"],
        "must be between 0 and top_value",
    )
    require(
        rules,
        "stock.after_crash_value",
        0 < stock["after_crash_value"] < stock["top_value"],
        "must be between 0 and top_value",
    )
    for key in ("dividend_per_share_usd", "share_price_usd", "shares_per_start", "share_tokens"):
        require(rules, f"stock.{key}", stock[key] >= 0, "must be >= 0")
    require(
        rules,
        "stock.buy_lots",
        len(stock["buy_lots"]) >= 1 and all(x >= 1 for x in stock["buy_lots"]),
        "needs lots of at least one share",
    )
    require(
        rules, "stock.max_trades_per_action", stock["max_trades_per_action"] >= 1, "must be >= 1"
    )
    bounds = taxes["bracket_max_usd"]
    require(
        rules,
        "taxes.bracket_max_usd",
        all(a < b for a, b in zip(bounds, bounds[1:])),
        "bounds must increase",
    )
    for key in ("standard_usd", "smart_usd"):
        require(
            rules,
            f"taxes.{key}",
            len(taxes[key]) == len(bounds) + 1,
            f"needs {len(bounds) + 1} entries (one per bracket)",
        )
        require(rules, f"taxes.{key}", all(t >= 0 for t in taxes[key]), "taxes must be >= 0")
    require(
        rules,
        "taxes.tax_collector_discount_per_player_usd",
        taxes["tax_collector_discount_per_player_usd"] >= 0,
        "must be >= 0",
    )
    require(rules, "loans.unit_usd", loans["unit_usd"] >= 1, "must be >= 1")
    require(
        rules,
        "loans.cap_usd",
        loans["cap_usd"] >= 0 and loans["cap_usd"] % loans["unit_usd"] == 0,
        "must be >= 0 and a multiple of loans.unit_usd",
    )
    require(rules, "loans.interest_pct", 0 <= loans["interest_pct"] <= 1000, "must be 0..1000")
    require(
        rules,
        "loans.due_years",
        len(loans["due_years"]) == len(loans["due_pct"]),
        "needs one loans.due_pct entry per due year",
    )
    require(
        rules,
        "loans.due_years",
        all(1 <= y <= setup["years"] for y in loans["due_years"]),
        "due years must be within the game's years",
    )
    require(rules, "loans.due_pct", all(0 <= x <= 100 for x in loans["due_pct"]), "must be 0..100")
    require(rules, "loans.notice_penalty_usd", loans["notice_penalty_usd"] >= 0, "must be >= 0")
    require(
        rules,
        "loans.notices_below_cap",
        isinstance(loans["notices_below_cap"], bool),
        "must be true or false",
    )
    for key, value in actions.items():
        require(rules, f"actions.{key}", value >= 0, "must be >= 0")
    require(
        rules,
        "retirement.payout_usd",
        len(retirement["payout_usd"]) >= 2 and retirement["payout_usd"][0] == 0,
        "needs at least two entries, the first 0",
    )
    require(rules, "retirement.tokens", retirement["tokens"] >= 0, "must be >= 0")
    for key in ("level_cost_usd", "franchise_cost_usd", "franchise_growth_usd"):
        require(rules, f"business.{key}", len(business[key]) == 4, "needs one entry per level 1-4")
        require(rules, f"business.{key}", all(x >= 0 for x in business[key]), "must be >= 0")
    ad = business["advertise_level"]
    for key in ("advertise_cost_usd", "advertise_growth_usd"):
        require(
            rules,
            f"business.{key}",
            len(business[key]) == len(ad),
            "needs one entry per advertise_level",
        )
    require(rules, "business.advertise_level", all(1 <= x <= 4 for x in ad), "levels must be 1..4")
    require(rules, "business.franchise_cards", business["franchise_cards"] >= 0, "must be >= 0")
    require(rules, "business.income_max_usd", business["income_max_usd"] >= 0, "must be >= 0")
    job_names, char_names = _names(rules["jobs"]), _names(rules["characters"])
    require(rules, "jobs", 1 <= len(rules["jobs"]) <= 60, "needs 1..60 jobs")
    for i, job in enumerate(rules["jobs"]):
        key = f"jobs[{i}]"
        require(rules, key + ".salary_usd", job["salary_usd"] >= 0, "must be >= 0")
        require(
            rules, key + ".attributes", len(job["attributes"]) == N_ATTR, f"needs {N_ATTR} numbers"
        )
        require(rules, key + ".players", job["players"] in (1, 3, 5), "symbol must be 1, 3 or 5")
        require(rules, key + ".benefit", job["benefit"] in BENEFITS, f"must be one of {BENEFITS}")
    for i, b in enumerate(rules["businesses"]):
        key = f"businesses[{i}]"
        require(rules, key + ".level", 1 <= b["level"] <= 4, "must be 1..4")
        require(rules, key + ".growth_usd", b["growth_usd"] >= 0, "must be >= 0")
        require(
            rules, key + ".attributes", len(b["attributes"]) == N_ATTR, f"needs {N_ATTR} numbers"
        )
        require(rules, key + ".players", b["players"] in (1, 3, 5), "symbol must be 1, 3 or 5")
        require(rules, key + ".firm", b["firm"] in FIRMS, f"must be one of {FIRMS}")
        require(
            rules,
            key + ".only_character",
            b["only_character"] in [""] + char_names,
            "must be empty or a character name",
        )
    for i, c in enumerate(rules["characters"]):
        key = f"characters[{i}]"
        require(
            rules, key + ".attributes", len(c["attributes"]) == N_ATTR, f"needs {N_ATTR} numbers"
        )
        require(rules, key + ".ability", c["ability"] in ABILITIES, f"must be one of {ABILITIES}")
        require(rules, key + ".karnaxis", c["karnaxis"] in AMBITIONS, f"must be one of {AMBITIONS}")
        require(
            rules,
            key + ".karnaxis_job",
            c["karnaxis_job"] in [""] + job_names,
            "must be empty or a job name",
        )
        require(
            rules,
            key + ".karnaxis_job",
            c["karnaxis"] != "job" or c["karnaxis_job"] != "",
            "karnaxis = 'job' needs a job name",
        )
    require(
        rules,
        "events",
        len(rules["events"]) >= setup["years"],
        f"needs at least one event card per year ({setup['years']})",
    )
    for i, e in enumerate(rules["events"]):
        require(
            rules,
            f"events[{i}].effect",
            e["effect"] in EVENT_EFFECTS,
            f"must be one of {EVENT_EFFECTS}",
        )
    cards = rules["karnaxis_cards"]
    require(
        rules,
        "karnaxis_cards.value",
        len(cards["value"]) == len(cards["effect"]),
        "needs one value per effect",
    )
    require(
        rules,
        "karnaxis_cards.effect",
        all(e in CARD_EFFECTS for e in cards["effect"]),
        f"effects must be among {CARD_EFFECTS}",
    )
    require(rules, "karnaxis_cards.value", all(v >= 0 for v in cards["value"]), "must be >= 0")
    check_sizes(rules)


def check_sizes(rules: dict) -> None:
    """What the state's card block can hold: each deck at most MAX_DECK cards (state.py)."""
    require(
        rules,
        "business.franchise_cards",
        rules["business"]["franchise_cards"] <= MAX_DECK,
        f"must be <= {MAX_DECK}",
    )
    for key, items in (
        ("events", rules["events"]),
        ("characters", rules["characters"]),
        ("businesses", rules["businesses"]),
        ("karnaxis_cards.effect", rules["karnaxis_cards"]["effect"]),
    ):
        require(rules, key, len(items) <= MAX_DECK, f"at most {MAX_DECK} cards")


def _first(items, test):
    return next((i for i, item in enumerate(items) if test(item)), NONE)


def prepare(rules: dict, n_players: int) -> tuple:
    """The kernel's rules arrays (engine module docstring) and the labels, for ``n_players``."""
    if not 1 <= n_players <= 6:
        raise UserError(f"Karnaxis is played by 1-6 players, not {n_players}")
    setup, stock, taxes, loans = rules["setup"], rules["stock"], rules["taxes"], rules["loans"]
    actions, retirement, business = rules["actions"], rules["retirement"], rules["business"]
    job_names, char_names = _names(rules["jobs"]), _names(rules["characters"])
    cfg = np.zeros(N_CFG, dtype=np.int64)
    values = {
        CFG_PLAYERS: n_players,
        CFG_YEARS: setup["years"],
        CFG_START_CASH: setup["start_cash_usd"],
        CFG_DEALT: setup["characters_dealt"],
        CFG_ACTIONS: setup["actions_per_year"],
        CFG_ATTR_MAX: setup["attribute_max"],
        CFG_KARNAXIS_BONUS: setup["karnaxis_bonus_usd"],
        CFG_FUND_START: rules["unemployment"]["start_usd"],
        CFG_FUND_INCREMENT: rules["unemployment"]["increment_usd"],
        CFG_STOCK_START: stock["start_value"],
        CFG_STOCK_TOP: stock["top_value"],
        CFG_DIVIDEND: stock["dividend_per_share_usd"],
        CFG_AFTER_DIVIDEND: stock["after_dividend_value"],
        CFG_AFTER_CRASH: stock["after_crash_value"],
        CFG_SHARE_PRICE: stock["share_price_usd"],
        CFG_SHARES_PER_START: stock["shares_per_start"],
        CFG_SHARE_TOKENS: stock["share_tokens"],
        CFG_MAX_TRADES: stock["max_trades_per_action"],
        CFG_TC_DISCOUNT: taxes["tax_collector_discount_per_player_usd"],
        CFG_LOAN_CAP: loans["cap_usd"],
        CFG_LOAN_UNIT: loans["unit_usd"],
        CFG_INTEREST_PCT: loans["interest_pct"],
        CFG_NOTICE_PENALTY: loans["notice_penalty_usd"],
        CFG_SECOND_NOTICE_OVER: loans["second_notice_over_usd"],
        CFG_CARD_COST: actions["karnaxis_card_usd"],
        CFG_COLLEGE_COST: actions["college_usd"],
        CFG_COLLEGE_YEARS: actions["college_years"],
        CFG_UNIVERSITY_COST: actions["university_usd"],
        CFG_UNIVERSITY_ATTRS: actions["university_attributes"],
        CFG_RETIREMENT_COST: actions["retirement_usd"],
        CFG_ACCOUNTANT_COST: actions["accountant_usd"],
        CFG_INSURANCE_COST: actions["insurance_usd"],
        CFG_STUDY_ATTRS: actions["study_attributes"],
        CFG_CONSULTANT_FEE: actions["consultant_fee_usd"],
        CFG_PROFESSOR_FEE: actions["professor_fee_usd"],
        CFG_RETIREMENT_TOKENS: retirement["tokens"],
        CFG_EXTRA_TOKEN: retirement["extra_token_usd"],
        CFG_FRANCHISE_CARDS: business["franchise_cards"],
        CFG_AD_FIRM_DISCOUNT: business["advertising_firm_discount_usd"],
        CFG_INS_FIRM_DISCOUNT: business["insurance_firm_retirement_discount_usd"],
        CFG_INCOME_MAX: business["income_max_usd"],
        CFG_NOTICES_BELOW_CAP: int(loans["notices_below_cap"]),
        CFG_COLLEGE_APTITUDE: actions["college_aptitude"],
    }
    for slot, value in values.items():
        cfg[slot] = value
    businesses = rules["businesses"]
    for slot, firm in (
        (CFG_FIRM_ACCOUNTING, "accounting"),
        (CFG_FIRM_INSURANCE, "insurance"),
        (CFG_FIRM_ADVERTISING, "advertising"),
    ):
        cfg[slot] = _first(
            businesses, lambda b, firm=firm: b["firm"] == firm and b["players"] <= n_players
        )
    for slot, benefit in (
        (CFG_JOB_TAX_COLLECTOR, "tax_collector"),
        (CFG_JOB_CONSULTANT, "consultant"),
        (CFG_JOB_PROFESSOR, "professor"),
        (CFG_JOB_BANKER, "banker"),
    ):
        cfg[slot] = _first(
            rules["jobs"],
            lambda j, benefit=benefit: j["benefit"] == benefit and j["players"] <= n_players,
        )

    rows = {
        T_BRACKET_MAX: taxes["bracket_max_usd"],
        T_TAX_STANDARD: taxes["standard_usd"],
        T_TAX_SMART: taxes["smart_usd"],
        T_DIE: stock["die"],
        T_DUE_YEAR: loans["due_years"],
        T_DUE_PCT: loans["due_pct"],
        T_RETIRE_PAYOUT: retirement["payout_usd"],
        T_LEVEL_COST: business["level_cost_usd"],
        T_FRANCHISE_COST: business["franchise_cost_usd"],
        T_FRANCHISE_GROWTH: business["franchise_growth_usd"],
        T_AD_LEVEL: business["advertise_level"],
        T_AD_COST: business["advertise_cost_usd"],
        T_AD_GROWTH: business["advertise_growth_usd"],
        T_BUY_LOTS: stock["buy_lots"],
    }
    width = max(N_TABLE, max(len(v) for v in rows.values()))
    tables = np.zeros((N_TABLE, width), dtype=np.int64)
    for t, values_ in rows.items():
        tables[t, : len(values_)] = values_
        tables[T_LEN, t] = len(values_)

    chars = np.zeros((len(char_names), C_WIDTH), dtype=np.int64)
    for i, c in enumerate(rules["characters"]):
        chars[i, C_ATTR : C_ATTR + N_ATTR] = c["attributes"]
        chars[i, C_ABILITY] = ABILITIES.index(c["ability"])
        chars[i, C_ABILITY_VALUE] = c["ability_value"]
        chars[i, C_KARNAXIS] = AMBITIONS.index(c["karnaxis"])
        chars[i, C_KARNAXIS_VALUE] = c["karnaxis_value"]
        chars[i, C_KARNAXIS_JOB] = job_names.index(c["karnaxis_job"]) if c["karnaxis_job"] else NONE
        chars[i, C_FORFEIT] = int(c["forfeit_on_loan"])
    jobs = np.zeros((len(job_names), J_WIDTH), dtype=np.int64)
    for i, j in enumerate(rules["jobs"]):
        jobs[i, J_SALARY], jobs[i, J_COLLEGE] = j["salary_usd"], j["college_years"]
        jobs[i, J_ATTR : J_ATTR + N_ATTR] = j["attributes"]
        jobs[i, J_BENEFIT] = BENEFITS.index(j["benefit"])
        jobs[i, J_AVAILABLE] = int(j["players"] <= n_players)
    biz = np.zeros((len(businesses), B_WIDTH), dtype=np.int64)
    for i, b in enumerate(businesses):
        biz[i, B_LEVEL], biz[i, B_GROWTH] = b["level"], b["growth_usd"]
        biz[i, B_ATTR : B_ATTR + N_ATTR] = b["attributes"]
        biz[i, B_FIRM] = FIRMS.index(b["firm"])
        biz[i, B_AVAILABLE] = int(b["players"] <= n_players)
        biz[i, B_ONLY_CHARACTER] = (
            char_names.index(b["only_character"]) if b["only_character"] else NONE
        )
    events = np.array(
        [[EVENT_EFFECTS.index(e["effect"]), e["value"]] for e in rules["events"]], dtype=np.int64
    )
    cards = rules["karnaxis_cards"]
    kcards = np.array(
        [[CARD_EFFECTS.index(e), v] for e, v in zip(cards["effect"], cards["value"])],
        dtype=np.int64,
    ).reshape(-1, 2)
    knobs = policy_knobs(rules, GAME.policy_set(rules), policies.KNOBS)
    # the kernel's rules array, its knobs, then the labels the wrapper writes
    return (
        rules_array(cfg, tables, chars, jobs, biz, events, kcards),
        knobs,
        np.array(char_names),
        np.array(job_names),
    )


def rules_array(cfg, tables, chars, jobs, biz, events, kcards) -> np.ndarray:
    """The header ``cfg`` then every table, flat, with their offsets and counts in the header
    and the sizes of the state's card block (state.py)."""
    blocks = {
        CFG_TABLES: tables,
        CFG_CHARS: chars,
        CFG_JOBS: jobs,
        CFG_BIZ: biz,
        CFG_EVENTS: events,
        CFG_KCARDS: kcards,
    }
    at = N_CFG
    for slot, block in blocks.items():
        cfg[slot] = at
        at += block.size
    cfg[CFG_TABLE_WIDTH] = tables.shape[1]
    counts = {
        CFG_N_CHARS: chars,
        CFG_N_JOBS: jobs,
        CFG_N_BIZ: biz,
        CFG_N_EVENTS: events,
        CFG_N_KCARDS: kcards,
    }
    for slot, block in counts.items():
        cfg[slot] = block.shape[0]
    deck = max(max(block.shape[0] for block in counts.values()), cfg[CFG_FRANCHISE_CARDS])
    cfg[CFG_DECK_WIDTH] = deck
    cfg[CFG_UNSEEN] = OWNERS + N_OWNERS * deck
    cfg[CFG_STATE_SIZE] = cfg[CFG_UNSEEN] + deck
    return np.concatenate([cfg] + [block.ravel() for block in blocks.values()]).astype(np.int64)


def allocate(rules: np.ndarray, n: int):
    p, years = rules[CFG_PLAYERS], rules[CFG_YEARS]
    return (
        np.zeros((n, N_GAME_OUT), np.int64),
        np.zeros((n, p, N_PLAYER_OUT + len(LEDGER_COLUMNS)), np.int64),
        np.zeros((n * years * p, N_YEAR_OUT), np.int64),
    )


def searching(knobs: np.ndarray, seat_policies: np.ndarray) -> bool:
    """Whether any seat plays a policy that runs the `search` behaviour."""
    search_ids = np.flatnonzero(knobs[:, KNOB_BEHAVIOUR] == policies.SEARCH)
    return bool(np.isin(seat_policies, search_ids).any())


def play(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray) -> dict:
    """Play ``len(seeds)`` games; the contract's three tables (see simulator.core.game)."""
    rules, knobs = params[0], params[1]
    out_games, out_players, out_years = allocate(rules, len(seeds))
    seat_policies = np.asarray(seat_policies, np.int8)
    kernel = games.play_search_games if searching(knobs, seat_policies) else games.play_games
    kernel(
        rules,
        knobs,
        np.asarray(seeds, np.uint64),
        seat_policies,
        out_games,
        out_players,
        out_years,
        np.zeros((0, TRACE_WIDTH), np.int64),
    )
    return output_tables(params, out_games, out_players, out_years)


def output_tables(params: tuple, out_games, out_players, out_years) -> dict:
    """The kernel's output arrays as the contract's tables."""
    rules = params[0]
    games_ = {
        "winner_seat": out_games[:, G_WINNER],
        "length": out_games[:, G_LENGTH],
        "end_reason": out_games[:, G_END_REASON],
        "unemployment_fund_left_usd": out_games[:, G_UNEMPLOYMENT_LEFT],
        "share_tokens_left": out_games[:, G_SHARES_LEFT].astype(np.int16),
        "search_decisions": out_games[:, G_SEARCH_DECISIONS].astype(np.int32),
    }
    o = out_players
    char_labels = params[2].tolist()
    job_labels = ["none"] + params[3].tolist()
    players = {
        "score": o[:, :, P_SCORE].astype(np.float64),
        "won": o[:, :, P_WON].astype(bool),
        "character": (o[:, :, P_CHARACTER], char_labels),
        "final_cash_usd": o[:, :, P_SCORE],
        "rank_title": (o[:, :, P_RANK_TITLE], RANK_TITLES),
        "cash_before_end_usd": o[:, :, P_CASH_BEFORE_END],
        "retirement_tokens": o[:, :, P_RETIRE_TOKENS].astype(np.int16),
        "delinquent_notices": o[:, :, P_NOTICES].astype(np.int16),
        "loans_taken": o[:, :, P_LOANS_COUNT].astype(np.int32),
        "peak_loans_outstanding_usd": o[:, :, P_PEAK_LOANS],
        "karnaxis_fulfilled": o[:, :, P_KARNAXIS_DONE].astype(bool),
        "karnaxis_year": o[:, :, P_KARNAXIS_YEAR].astype(np.int16),
        "karnaxis_revoked": o[:, :, P_KARNAXIS_REVOKED].astype(bool),
        "businesses": o[:, :, P_BUSINESSES].astype(np.int16),
        "franchises": o[:, :, P_FRANCHISES].astype(np.int16),
        "jobs_held": o[:, :, P_JOBS_HELD].astype(np.int16),
        "college_years": o[:, :, P_COLLEGE].astype(np.int16),
        "university_years": o[:, :, P_UNIVERSITY].astype(np.int16),
        "smart_tax_years": o[:, :, P_SMART_YEARS].astype(np.int16),
        "business_growth_usd": o[:, :, P_GROWTH],
        "business_income_level_usd": o[:, :, P_INCOME],
        "karnaxis_cards_bought": o[:, :, P_CARDS].astype(np.int16),
        "final_job": (o[:, :, P_FINAL_JOB] + 1, job_labels),
        "shares_held": o[:, :, P_SHARES_HELD].astype(np.int16),
        "attribute_total": o[:, :, P_ATTR_TOTAL].astype(np.int16),
        "karnaxis_cards_unused": o[:, :, P_CARDS_UNUSED].astype(np.int16),
    }
    dealt_labels = ["none"] + char_labels
    for k in range(N_DEALT_KEPT):
        players[f"dealt_character_{k + 1}"] = (o[:, :, P_DEALT + k] + 1, dealt_labels)
    for k, name in enumerate(LEDGER_COLUMNS):
        players[name] = o[:, :, N_PLAYER_OUT + k]
    y = out_years
    rows = rules[CFG_YEARS] * rules[CFG_PLAYERS]
    years = {
        "game_index": np.repeat(np.arange(len(out_games), dtype=np.int64), rows),
        "year": y[:, Y_YEAR].astype(np.int16),
        "seat": y[:, Y_SEAT].astype(np.int8),
        "cash_usd": y[:, Y_CASH],
        "income_usd": y[:, Y_INCOME],
        "tax_bracket": y[:, Y_BRACKET].astype(np.int8),
        "tax_paid_usd": y[:, Y_TAX],
        "smart_tax": y[:, Y_SMART].astype(bool),
        "loans_outstanding_usd": y[:, Y_LOANS],
        "delinquent_notices": y[:, Y_NOTICES].astype(np.int16),
        "salary_usd": y[:, Y_SALARY],
        "business_income_usd": y[:, Y_BUSINESS_INCOME],
        "business_growth_usd": y[:, Y_GROWTH],
    }
    return {"games": games_, "players": players, "years": years}


def trace_game(params: tuple, seed: int, seat_policies: np.ndarray, max_events: int = 20_000):
    """The trace rows (int64[k, TRACE_WIDTH]) of one game, and its output rows."""
    out_game, out_players, out_years = allocate(params[0], 1)
    trace = np.zeros((max_events, TRACE_WIDTH), dtype=np.int64)
    seat_policies = np.array([seat_policies], np.int8)
    kernel = games.play_search_games if searching(params[1], seat_policies) else games.play_games
    n = kernel(
        params[0],
        params[1],
        np.array([seed], np.uint64),
        seat_policies,
        out_game,
        out_players,
        out_years,
        trace,
    )
    return trace[:n], out_players[0]


def _usd(x: int) -> str:
    return f"-${-x:,}" if x < 0 else f"${x:,}"


class OptionNames:
    """Readable names of a decision's options, for the replay."""

    def __init__(self, rules: dict, n_players: int):
        self.rules = rules
        self.chars, self.jobs = _names(rules["characters"]), _names(rules["jobs"])
        self.biz = _names(rules["businesses"])
        self.stocks = [f"seat {s}'s business" for s in range(n_players)] + ["the black business"]

    def action(self, a: int, b: int) -> str:
        """Take Action!: action space ``a`` with its argument ``b`` (job, business, ...)."""
        name, detail = ACTION_NAMES[a], ""
        if a in (ACT_JOB_SEARCH, ACT_WORK):
            detail = f" ({self.jobs[b]})"
        elif a == ACT_BUSINESS:
            detail = f" ({self.biz[b]})"
        elif a == ACT_FRANCHISE:
            detail = f" (in {self.stocks[b]})"
        elif a == ACT_COLLEGE:
            name = "university" if b == 1 else "college"
        elif a == ACT_ADVERTISE:
            detail = f" (tier {b + 1})"
        return name + detail

    def trade(self, a: int, b: int) -> str:
        """Buy/Sell Stock: trade kind ``a``; ``b`` = stock * 1000 + shares."""
        kind = ("done", "hires an accountant", "buys insurance", "sells", "buys")[a]
        if a in (MK_SELL, MK_BUY):
            kind += f" {b % 1000} shares of {self.stocks[b // 1000]}"
        return kind

    def option(self, kind: int, a: int, b: int) -> str:
        """An option a search weighed (EV_SEARCH_OPTION's a and b) of a decision of ``kind``."""
        if kind == D_ACTION:
            return self.action(a, b)
        if kind == D_MARKET:
            return self.trade(a, b)
        if kind == D_CHARACTER:
            return self.chars[a]
        if kind == D_ATTRIBUTE:
            return f"raise {self.rules['setup']['attributes'][a]}"
        if kind == D_REROLL:
            return "re-roll" if a == 1 else "keep the roll"
        return "use the card" if a == CU_USE else "save it"


def replay(params: tuple, seed: int, seat_policies: np.ndarray, rules: dict) -> list[str]:
    """A readable play-by-play of one game: year, seat, what happened, cash before→after."""
    chars, jobs, events = (
        _names(rules["characters"]),
        _names(rules["jobs"]),
        _names(rules["events"]),
    )
    n_players = params[0][CFG_PLAYERS]
    names = OptionNames(rules, n_players)
    stock_names, cards = names.stocks, rules["karnaxis_cards"]
    lines, kind = [], D_ACTION
    trace, _ = trace_game(params, seed, seat_policies)
    for event, year, seat, a, b, before, after in trace.tolist():
        who = f"year {year:2d} seat {seat}"
        money = f"(cash {_usd(before)}→{_usd(after)})"
        if event == EV_CHARACTER:
            lines.append(f"setup seat {seat}: plays {chars[a]}, cash {_usd(after)}")
        elif event == EV_YEAR:
            lines.append(f"== year {a}, seat {seat} starts")
        elif event == EV_EVENT:
            lines.append(f"year {year:2d}: event card '{events[a]}'")
        elif event == EV_EVENT_CASH:
            lines.append(f"{who}: event '{events[a]}' {money}")
        elif event == EV_STOCK:
            lines.append(
                f"year {year:2d}: seat {seat} rolls {b:+d} for {stock_names[a]} ({before}→{after})"
            )
        elif event == EV_REROLL:
            lines.append(f"{who}: re-rolls the die for {stock_names[a]} ({b:+d} → {before:+d})")
        elif event == EV_CRASH:
            lines.append(
                f"year {year:2d}: {stock_names[a]} hits 0, {b} shares removed, value → {after}"
            )
        elif event == EV_DIVIDEND:
            lines.append(
                f"year {year:2d}: {stock_names[a]} hits $, pays {_usd(b)} in dividends, "
                f"value → {after}"
            )
        elif event == EV_ACTION:
            lines.append(f"{who}: {names.action(a, b)} {money}")
        elif event == EV_TRADE:
            lines.append(f"{who}:   {names.trade(a, b)} {money}")
        elif event == EV_SEARCH:
            kind = a
            lines.append(
                f"{who}:   search weighs {before} of {b} {DECISION_NAMES[a]} options "
                f"in {after} rollouts:"
            )
        elif event == EV_SEARCH_OPTION:
            lines.append(
                f"{who}:     {names.option(kind, a, b)}: mean value "
                f"{before / 1_000_000:+.3f} over {after} rollouts"
            )
        elif event == EV_CARD:
            lines.append(f"{who}:   uses a Karnaxis card: {cards['effect'][a]} {b} {money}")
        elif event == EV_CARD_SAVED:
            lines.append(f"{who}:   saves a Karnaxis card: {cards['effect'][a]} {b}")
        elif event == EV_FIRED:
            lines.append(f"{who}: loses the {jobs[a]} job")
        elif event == EV_LOAN:
            lines.append(f"{who}: borrows {_usd(a)}, loans now {_usd(b)} {money}")
        elif event == EV_NOTICE:
            lines.append(f"{who}: cannot pay {_usd(b)}: {a} delinquent notice(s), the bank pays it")
        elif event == EV_SALARY:
            lines.append(f"{who}: salary {_usd(a)} {money}")
        elif event == EV_BUSINESS_INCOME:
            lines.append(f"{who}: business income {_usd(a)} (growth {_usd(b)}) {money}")
        elif event == EV_TAX:
            lines.append(f"{who}: taxes {_usd(a)} (bracket {b}) {money}")
        elif event == EV_LOAN_PAYMENT:
            lines.append(f"{who}: loan payment {_usd(a)} + interest {_usd(b)} {money}")
        elif event == EV_KARNAXIS:
            lines.append(f"{who}: fulfils {chars[a]}'s Karnaxis {money}")
        elif event == EV_FORFEIT:
            lines.append(f"{who}: took a loan, pays the Karnaxis reward back {money}")
        elif event == EV_RETIREMENT:
            lines.append(f"final seat {seat}: {a} retirement tokens pay {_usd(b)} {money}")
        elif event == EV_FINAL:
            lines.append(f"final seat {seat}: {a} notices, loans settled, final cash {_usd(after)}")
    return lines


GAME = Game(
    name="karnaxis",
    engine_version=ENGINE_VERSION,
    player_counts=range(1, 7),
    default_players=4,
    chunk_size=20_000,
    length_unit="years",
    policies=policies.POLICIES,
    knob_names=policies.KNOBS,
    check=check,
    prepare=prepare,
    play=play,
    replay=replay,
    categories={"end_reason": END_REASONS},
    timelines=("years",),
    search_limits=(("rollouts", 0, 100_000), ("horizon", 0, 100), ("top_k", 1, MAX_OPTIONS)),
)
