"""Karnaxis wrapper (rulebook: shared/rules/karnaxis.md): ``GAME`` and the rules arrays.

The wrapper checks the rules (:mod:`checks`), turns them into the kernel's arrays (here),
allocates outputs and decodes them (:mod:`outputs`) and traces (:mod:`replay`); the kernels in
:mod:`engine` only loop.
"""

import numpy as np

from policies import karnaxis as policies
from policies.common import LEARNED_KNOBS
from policies.search import MAX_ROLLOUTS
from simulator.core.errors import UserError
from simulator.core.game import NETWORK, Game, Leader, StudyPlan, policy_knobs
from simulator.games.karnaxis import checks, features, outputs, replay
from simulator.games.karnaxis import state as S

ENGINE_VERSION = "karnaxis-7"


def _first(items, test):
    return next((i for i, item in enumerate(items) if test(item)), S.NONE)


def prepare(rules: dict, n_players: int) -> tuple:
    """The kernel's rules arrays (engine module docstring) and the labels, for ``n_players``."""
    if not 1 <= n_players <= 6:
        raise UserError(f"Karnaxis is played by 1-6 players, not {n_players}")
    setup, stock, taxes, loans = rules["setup"], rules["stock"], rules["taxes"], rules["loans"]
    actions, retirement, business = rules["actions"], rules["retirement"], rules["business"]
    job_names, char_names = checks.card_names(rules["jobs"]), checks.card_names(rules["characters"])
    cfg = np.zeros(S.N_CFG, dtype=np.int64)
    values = {
        S.CFG_PLAYERS: n_players,
        S.CFG_YEARS: setup["years"],
        S.CFG_START_CASH: setup["start_cash_usd"],
        S.CFG_DEALT: setup["characters_dealt"],
        S.CFG_ACTIONS: setup["actions_per_year"],
        S.CFG_ATTR_MAX: setup["attribute_max"],
        S.CFG_KARNAXIS_BONUS: setup["karnaxis_bonus_usd"],
        S.CFG_FUND_START: rules["unemployment"]["start_usd"],
        S.CFG_FUND_INCREMENT: rules["unemployment"]["increment_usd"],
        S.CFG_STOCK_START: stock["start_value"],
        S.CFG_STOCK_TOP: stock["top_value"],
        S.CFG_DIVIDEND: stock["dividend_per_share_usd"],
        S.CFG_AFTER_DIVIDEND: stock["after_dividend_value"],
        S.CFG_AFTER_CRASH: stock["after_crash_value"],
        S.CFG_SHARE_PRICE: stock["share_price_usd"],
        S.CFG_SHARES_PER_START: stock["shares_per_start"],
        S.CFG_SHARE_TOKENS: stock["share_tokens"],
        S.CFG_MAX_TRADES: stock["max_trades_per_action"],
        S.CFG_TC_DISCOUNT: taxes["tax_collector_discount_per_player_usd"],
        S.CFG_LOAN_CAP: loans["cap_usd"],
        S.CFG_LOAN_UNIT: loans["unit_usd"],
        S.CFG_INTEREST_PCT: loans["interest_pct"],
        S.CFG_NOTICE_PENALTY: loans["notice_penalty_usd"],
        S.CFG_SECOND_NOTICE_OVER: loans["second_notice_over_usd"],
        S.CFG_CARD_COST: actions["karnaxis_card_usd"],
        S.CFG_COLLEGE_COST: actions["college_usd"],
        S.CFG_COLLEGE_YEARS: actions["college_years"],
        S.CFG_UNIVERSITY_COST: actions["university_usd"],
        S.CFG_UNIVERSITY_ATTRS: actions["university_attributes"],
        S.CFG_RETIREMENT_COST: actions["retirement_usd"],
        S.CFG_ACCOUNTANT_COST: actions["accountant_usd"],
        S.CFG_INSURANCE_COST: actions["insurance_usd"],
        S.CFG_STUDY_ATTRS: actions["study_attributes"],
        S.CFG_CONSULTANT_FEE: actions["consultant_fee_usd"],
        S.CFG_PROFESSOR_FEE: actions["professor_fee_usd"],
        S.CFG_RETIREMENT_TOKENS: retirement["tokens"],
        S.CFG_EXTRA_TOKEN: retirement["extra_token_usd"],
        S.CFG_FRANCHISE_CARDS: business["franchise_cards"],
        S.CFG_AD_FIRM_DISCOUNT: business["advertising_firm_discount_usd"],
        S.CFG_INS_FIRM_DISCOUNT: business["insurance_firm_retirement_discount_usd"],
        S.CFG_INCOME_MAX: business["income_max_usd"],
        S.CFG_NOTICES_BELOW_CAP: int(loans["notices_below_cap"]),
        S.CFG_COLLEGE_APTITUDE: actions["college_aptitude"],
    }
    for slot, value in values.items():
        cfg[slot] = value
    businesses = rules["businesses"]
    for slot, firm in (
        (S.CFG_FIRM_ACCOUNTING, "accounting"),
        (S.CFG_FIRM_INSURANCE, "insurance"),
        (S.CFG_FIRM_ADVERTISING, "advertising"),
    ):
        cfg[slot] = _first(
            businesses, lambda b, firm=firm: b["firm"] == firm and b["players"] <= n_players
        )
    for slot, benefit in (
        (S.CFG_JOB_TAX_COLLECTOR, "tax_collector"),
        (S.CFG_JOB_CONSULTANT, "consultant"),
        (S.CFG_JOB_PROFESSOR, "professor"),
        (S.CFG_JOB_BANKER, "banker"),
    ):
        cfg[slot] = _first(
            rules["jobs"],
            lambda j, benefit=benefit: j["benefit"] == benefit and j["players"] <= n_players,
        )

    rows = {
        S.T_BRACKET_MAX: taxes["bracket_max_usd"],
        S.T_TAX_STANDARD: taxes["standard_usd"],
        S.T_TAX_SMART: taxes["smart_usd"],
        S.T_DIE: stock["die"],
        S.T_DUE_YEAR: loans["due_years"],
        S.T_DUE_PCT: loans["due_pct"],
        S.T_RETIRE_PAYOUT: retirement["payout_usd"],
        S.T_LEVEL_COST: business["level_cost_usd"],
        S.T_FRANCHISE_COST: business["franchise_cost_usd"],
        S.T_FRANCHISE_GROWTH: business["franchise_growth_usd"],
        S.T_AD_LEVEL: business["advertise_level"],
        S.T_AD_COST: business["advertise_cost_usd"],
        S.T_AD_GROWTH: business["advertise_growth_usd"],
        S.T_BUY_LOTS: stock["buy_lots"],
        S.T_SELL_LOTS: stock["sell_lots"],
    }
    width = max(S.N_TABLE, max(len(v) for v in rows.values()))
    tables = np.zeros((S.N_TABLE, width), dtype=np.int64)
    for t, values_ in rows.items():
        tables[t, : len(values_)] = values_
        tables[S.T_LEN, t] = len(values_)

    chars = np.zeros((len(char_names), S.C_WIDTH), dtype=np.int64)
    for i, c in enumerate(rules["characters"]):
        chars[i, S.C_ATTR : S.C_ATTR + S.N_ATTR] = c["attributes"]
        chars[i, S.C_ABILITY] = S.ABILITIES.index(c["ability"])
        chars[i, S.C_ABILITY_VALUE] = c["ability_value"]
        chars[i, S.C_KARNAXIS] = S.AMBITIONS.index(c["karnaxis"])
        chars[i, S.C_KARNAXIS_VALUE] = c["karnaxis_value"]
        chars[i, S.C_KARNAXIS_JOB] = (
            job_names.index(c["karnaxis_job"]) if c["karnaxis_job"] else S.NONE
        )
        chars[i, S.C_FORFEIT] = int(c["forfeit_on_loan"])
    jobs = np.zeros((len(job_names), S.J_WIDTH), dtype=np.int64)
    for i, j in enumerate(rules["jobs"]):
        jobs[i, S.J_SALARY], jobs[i, S.J_COLLEGE] = j["salary_usd"], j["college_years"]
        jobs[i, S.J_ATTR : S.J_ATTR + S.N_ATTR] = j["attributes"]
        jobs[i, S.J_BENEFIT] = S.BENEFITS.index(j["benefit"])
        jobs[i, S.J_AVAILABLE] = int(j["players"] <= n_players)
    biz = np.zeros((len(businesses), S.B_WIDTH), dtype=np.int64)
    for i, b in enumerate(businesses):
        biz[i, S.B_LEVEL], biz[i, S.B_GROWTH] = b["level"], b["growth_usd"]
        biz[i, S.B_ATTR : S.B_ATTR + S.N_ATTR] = b["attributes"]
        biz[i, S.B_FIRM] = S.FIRMS.index(b["firm"])
        biz[i, S.B_AVAILABLE] = int(b["players"] <= n_players)
        biz[i, S.B_ONLY_CHARACTER] = (
            char_names.index(b["only_character"]) if b["only_character"] else S.NONE
        )
    events = np.array(
        [[S.EVENT_EFFECTS.index(e["effect"]), e["value"]] for e in rules["events"]], dtype=np.int64
    )
    cards = rules["karnaxis_cards"]
    kcards = np.array(
        [[S.CARD_EFFECTS.index(e), v] for e, v in zip(cards["effect"], cards["value"])],
        dtype=np.int64,
    ).reshape(-1, 2)
    knobs = knobs_table(rules)
    # the kernel's rules array, its knobs, then the labels the wrapper writes
    return (
        rules_array(cfg, tables, chars, jobs, biz, events, kcards),
        knobs,
        np.array(char_names),
        np.array(job_names),
    )


def knobs_table(rules: dict) -> np.ndarray:
    """The policies' knobs with what each reads from the rules (policies.readings), then the
    learned player's weights block, the row's last columns: its weights (one per feature, or a
    network's; none in every other row), then their count (features.learned_value)."""
    table = policy_knobs(rules, GAME.policy_set(rules), GAME.knob_names)
    knobs = 1 + len(policies.KNOBS)  # the weights knob's column: their count, then them
    counts = table[:, knobs].astype(np.int64)
    width = max(features.N_FEATURES, int(counts.max()))
    weights = np.zeros((table.shape[0], width + 1))
    for policy, count in enumerate(counts):
        weights[policy, width - count : width] = table[policy, knobs + 1 : knobs + 1 + count]
        weights[policy, width] = count
    return np.hstack([policies.readings(rules, table[:, :knobs]), weights])


def rules_array(cfg, tables, chars, jobs, biz, events, kcards) -> np.ndarray:
    """The header ``cfg`` then every table, flat, with their offsets and counts in the header
    and the sizes of the state's card block (state.py)."""
    blocks = {
        S.CFG_TABLES: tables,
        S.CFG_CHARS: chars,
        S.CFG_JOBS: jobs,
        S.CFG_BIZ: biz,
        S.CFG_EVENTS: events,
        S.CFG_KCARDS: kcards,
    }
    at = S.N_CFG
    for slot, block in blocks.items():
        cfg[slot] = at
        at += block.size
    cfg[S.CFG_TABLE_WIDTH] = tables.shape[1]
    counts = {
        S.CFG_N_CHARS: chars,
        S.CFG_N_JOBS: jobs,
        S.CFG_N_BIZ: biz,
        S.CFG_N_EVENTS: events,
        S.CFG_N_KCARDS: kcards,
    }
    for slot, block in counts.items():
        cfg[slot] = block.shape[0]
    deck = max(max(block.shape[0] for block in counts.values()), cfg[S.CFG_FRANCHISE_CARDS])
    cfg[S.CFG_DECK_WIDTH] = deck
    cfg[S.CFG_UNSEEN] = S.OWNERS + S.N_OWNERS * deck
    cfg[S.CFG_STATE_SIZE] = cfg[S.CFG_UNSEEN] + deck
    return np.concatenate([cfg] + [block.ravel() for block in blocks.values()]).astype(np.int64)


GAME = Game(
    name="karnaxis",
    engine_version=ENGINE_VERSION,
    player_counts=range(1, 7),
    default_players=4,
    chunk_size=20_000,
    length_unit="years",
    policies=policies.POLICIES,
    knob_names=policies.KNOBS + LEARNED_KNOBS,
    check=checks.check,
    prepare=prepare,
    play=outputs.play,
    replay=replay.replay,
    categories={"end_reason": S.END_REASONS},
    timelines=("years",),
    search_limits=(
        ("rollouts", 0, MAX_ROLLOUTS),
        ("horizon", 0, 100),
        ("top_k", 1, S.MAX_OPTIONS),
        ("learned_value", 0, 1),
    ),
    learned_features=features.FEATURES,
    sample=outputs.sample,
    # 400 games of 12 playouts over 3 candidates an iteration, the teacher's played to the
    # game's end (the search's 5 years ahead value an early action by the cash of its year)
    learn_budget=(("games", 400), ("rollouts", 12), ("horizon", 0)),
    # a weighted sum of the features at 2 to 5 players, a layer of tanh units at 6, each count's
    # stronger on seed 1414, and 1,200 games at 3 and 6 players, where 400 played weaker
    # (docs/search.md, "Each count's value"): the network's 8 tanh units cost a fifth of a
    # learned line-up's time at 2 players, the weighted sum next to nothing
    learn_budget_at=((3, (("games", 1_200),)), (6, (("model", NETWORK), ("games", 1_200)))),
    exercised=(
        *(("action", name.replace("_", " "), f"count_{name}") for name in S.COUNT_NAMES),
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
        player_counts=(2, 3, 4, 5, 6),  # 3 and 5: the starting player at odd counts
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
