"""Karnaxis wrapper (rulebook: shared/rules/karnaxis.md): ``GAME`` and the rules arrays.

The wrapper checks the rules (:mod:`checks`), turns them into the kernel's arrays (here),
allocates outputs and decodes them (:mod:`outputs`) and traces (:mod:`replay`); the kernels in
:mod:`engine` only loop.
"""

import numpy as np

from policies import karnaxis as policies
from policies.search import MAX_ROLLOUTS
from simulator.core.errors import UserError
from simulator.core.game import Game, Leader, StudyPlan, policy_knobs
from simulator.games.karnaxis.checks import card_names, check
from simulator.games.karnaxis.outputs import play
from simulator.games.karnaxis.replay import replay
from simulator.games.karnaxis.state import (
    ABILITIES,
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
    COUNT_NAMES,
    END_REASONS,
    EVENT_EFFECTS,
    FIRMS,
    J_ATTR,
    J_AVAILABLE,
    J_BENEFIT,
    J_COLLEGE,
    J_SALARY,
    J_WIDTH,
    MAX_OPTIONS,
    N_ATTR,
    N_CFG,
    N_OWNERS,
    N_TABLE,
    NONE,
    OWNERS,
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
    T_SELL_LOTS,
    T_TAX_SMART,
    T_TAX_STANDARD,
)

ENGINE_VERSION = "karnaxis-7"


def _first(items, test):
    return next((i for i, item in enumerate(items) if test(item)), NONE)


def prepare(rules: dict, n_players: int) -> tuple:
    """The kernel's rules arrays (engine module docstring) and the labels, for ``n_players``."""
    if not 1 <= n_players <= 6:
        raise UserError(f"Karnaxis is played by 1-6 players, not {n_players}")
    setup, stock, taxes, loans = rules["setup"], rules["stock"], rules["taxes"], rules["loans"]
    actions, retirement, business = rules["actions"], rules["retirement"], rules["business"]
    job_names, char_names = card_names(rules["jobs"]), card_names(rules["characters"])
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
        T_SELL_LOTS: stock["sell_lots"],
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
    search_limits=(("rollouts", 0, MAX_ROLLOUTS), ("horizon", 0, 100), ("top_k", 1, MAX_OPTIONS)),
    exercised=(
        *(("action", name.replace("_", " "), f"count_{name}") for name in COUNT_NAMES),
        ("event", "take a loan", "loans_taken"),
        ("event", "receive a dividend", "dividends_usd"),
        ("event", "fulfil the Karnaxis", "karnaxis_fulfilled"),
        ("event", "lose the Karnaxis (Zack's loan)", "karnaxis_revoked"),
        ("event", "receive a delinquent notice", "delinquent_notices"),
    ),
    score_unit="final cash (USD)",
    leader=Leader("years", "year", "cash_usd", "cash"),
    # a search seat at its default budget plays about 55 games a second per core (`balsim
    # bench`, 89c92a7)
    study=StudyPlan(
        n_games=20_000,
        player_counts=(2, 4, 6),
        variants={
            "loan_cap_100k": ("loans.cap_usd=100000",),
            "flat_tax": (
                "taxes.standard_usd=[10000, 15000, 25000, 45000, 65000, 85000, 105000, 125000]",
            ),
        },
        variant_players=(4,),
        screen_spans={"unemployment.start_usd": "0:20000"},
        strong_games=4_000,
        strong_search_games=240,
        challenge_games=6_000,
        challenge_search_games=60,
        skill_games=2_016,  # rungs of 2, 4 and 8 rollouts: about 8 rollouts a game
    ),
    # one variant's adaptation: 117,000 games of a loan cap in about 17 s of one core
    # (docs/ladder.md "Cost", 2026-12-01)
    adapt_games=120_000,
    compile_seconds=28,  # cold, engine and search player, one core (2026-12-01)
)
