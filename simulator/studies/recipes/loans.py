"""``balsim ask loans``: Karnaxis's loan cap — balanced for every policy, and how it binds.

The subjects are the line-up's policies: a cap is balanced when every policy's win rate is
within the margin of its fair share.  The facts: how many players' loans reach the cap, and
how many get a delinquent payment notice, with the printed cap and the one chosen.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.core.decisions import Decision
from simulator.core.rules import lookup
from simulator.report.page import money, pct
from simulator.studies.recipes.common import (
    PRINTED,
    Fact,
    Question,
    label,
    mean_ci,
    numeric_nearness,
    per_game,
    policy_edges,
    record,
    settings,
    swept,
)
from simulator.studies.recipes.words import assumed_text, interval_text

KEY = "loans.cap_usd"
LOAN_CAPS = (25_000, 50_000, 75_000, 100_000, 150_000, 200_000, 300_000)


def loan_frame(ds: Dataset) -> pl.DataFrame:
    """Per (variant, game): the share of players whose loans reach the variant's cap and the
    share with a delinquent notice."""
    caps = {v["name"]: float(lookup(v["rules"], KEY)) for v in ds.variants}
    cap = pl.col("variant").replace_strict(caps, return_dtype=pl.Float64)
    return per_game(
        ds,
        [
            (pl.col("peak_loans_outstanding_usd") >= cap).cast(pl.Float64).mean().alias("binds"),
            (pl.col("delinquent_notices") > 0).cast(pl.Float64).mean().alias("delinquent"),
        ],
    )


def facts(ds: Dataset, decision: Decision) -> list[Fact]:
    level = decision.printed.level
    frame = loan_frame(ds)
    numbers: dict = {}
    shown = settings(ds)
    rules = ds.rules["loans"]
    binds = record(numbers, "binds:printed", mean_ci(frame, "binds", PRINTED, level, True))
    late = record(numbers, "delinquent:printed", mean_ci(frame, "delinquent", PRINTED, level, True))
    interest = assumed_text(ds, "loans.interest_pct", f"{rules['interest_pct']}% interest")
    out = [
        Fact(
            f"With the printed {money(rules['cap_usd'])} cap a player's loans reach the cap in "
            f"{pct(binds[0])} of player-games {interval_text(binds, level, pct)}, with "
            f"{interest}.",
            numbers,
        )
    ]
    below = (
        f"; notices below the cap come from {assumed_text(ds, 'loans.notices_below_cap')}"
        if rules.get("notices_below_cap")
        else ""
    )
    out.append(
        Fact(
            f"{pct(late[0])} of players get a delinquent payment notice "
            f"{interval_text(late, level, pct)}{below}.",
            {},
        )
    )
    if decision.chosen not in (None, PRINTED):
        at = record(numbers, "binds:chosen", mean_ci(frame, "binds", decision.chosen, level, True))
        out.append(
            Fact(
                f"At {label(decision.chosen, shown)} the cap binds in {pct(at[0])} of "
                f"player-games {interval_text(at, level, pct)}.",
                {},
            )
        )
    return out


QUESTION = Question(
    "loans",
    "karnaxis",
    4,
    12_000,
    "Karnaxis: the loan cap that keeps every policy within the margin of its fair share, and "
    "how often loans reach it.",
    swept(KEY, LOAN_CAPS),
    policy_edges,
    facts,
    lambda ds: numeric_nearness(ds, KEY),
    "every policy",
    "the loan cap",
    ("loans",),
)
