"""Karnaxis rules checks: every value a rules file gives is checked before any game runs, so a
bad key or impossible value fails with one line naming the key (rulebook:
shared/rules/karnaxis.md)."""

from simulator.core.rules import require
from simulator.games.karnaxis import state as S


def card_names(items):
    """The ``name`` of each card of a rules table (characters, jobs, ...)."""
    return [item["name"] for item in items]


def check(rules: dict) -> None:
    setup, stock, taxes, loans = rules["setup"], rules["stock"], rules["taxes"], rules["loans"]
    actions, retirement, business = rules["actions"], rules["retirement"], rules["business"]
    require(rules, "setup.years", 1 <= setup["years"] <= 100, "must be 1..100")
    require(rules, "setup.start_cash_usd", setup["start_cash_usd"] >= 0, "must be >= 0")
    require(
        rules,
        "setup.actions_per_year",
        1 <= setup["actions_per_year"] <= S.N_SPACES - 1,
        f"must be 1..{S.N_SPACES - 1}",
    )
    require(
        rules,
        "setup.attributes",
        len(setup["attributes"]) == S.N_ATTR,
        f"needs {S.N_ATTR} attribute names",
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
        rules,
        "stock.sell_lots",
        all(x >= 1 for x in stock["sell_lots"]),
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
    job_names, char_names = card_names(rules["jobs"]), card_names(rules["characters"])
    require(rules, "jobs", 1 <= len(rules["jobs"]) <= 60, "needs 1..60 jobs")
    for i, job in enumerate(rules["jobs"]):
        key = f"jobs[{i}]"
        require(rules, key + ".salary_usd", job["salary_usd"] >= 0, "must be >= 0")
        require(
            rules,
            key + ".attributes",
            len(job["attributes"]) == S.N_ATTR,
            f"needs {S.N_ATTR} numbers",
        )
        require(rules, key + ".players", job["players"] in (1, 3, 5), "symbol must be 1, 3 or 5")
        require(
            rules, key + ".benefit", job["benefit"] in S.BENEFITS, f"must be one of {S.BENEFITS}"
        )
    for i, b in enumerate(rules["businesses"]):
        key = f"businesses[{i}]"
        require(rules, key + ".level", 1 <= b["level"] <= 4, "must be 1..4")
        require(rules, key + ".growth_usd", b["growth_usd"] >= 0, "must be >= 0")
        require(
            rules,
            key + ".attributes",
            len(b["attributes"]) == S.N_ATTR,
            f"needs {S.N_ATTR} numbers",
        )
        require(rules, key + ".players", b["players"] in (1, 3, 5), "symbol must be 1, 3 or 5")
        require(rules, key + ".firm", b["firm"] in S.FIRMS, f"must be one of {S.FIRMS}")
        require(
            rules,
            key + ".only_character",
            b["only_character"] in [""] + char_names,
            "must be empty or a character name",
        )
    for i, c in enumerate(rules["characters"]):
        key = f"characters[{i}]"
        require(
            rules,
            key + ".attributes",
            len(c["attributes"]) == S.N_ATTR,
            f"needs {S.N_ATTR} numbers",
        )
        require(
            rules, key + ".ability", c["ability"] in S.ABILITIES, f"must be one of {S.ABILITIES}"
        )
        require(
            rules, key + ".karnaxis", c["karnaxis"] in S.AMBITIONS, f"must be one of {S.AMBITIONS}"
        )
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
            e["effect"] in S.EVENT_EFFECTS,
            f"must be one of {S.EVENT_EFFECTS}",
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
        all(e in S.CARD_EFFECTS for e in cards["effect"]),
        f"effects must be among {S.CARD_EFFECTS}",
    )
    require(rules, "karnaxis_cards.value", all(v >= 0 for v in cards["value"]), "must be >= 0")
    check_sizes(rules)


def check_sizes(rules: dict) -> None:
    """What the state's card block can hold: each deck at most MAX_DECK cards (state.py)."""
    require(
        rules,
        "business.franchise_cards",
        rules["business"]["franchise_cards"] <= S.MAX_DECK,
        f"must be <= {S.MAX_DECK}",
    )
    for key, items in (
        ("events", rules["events"]),
        ("characters", rules["characters"]),
        ("businesses", rules["businesses"]),
        ("karnaxis_cards.effect", rules["karnaxis_cards"]["effect"]),
    ):
        require(rules, key, len(items) <= S.MAX_DECK, f"at most {S.MAX_DECK} cards")
