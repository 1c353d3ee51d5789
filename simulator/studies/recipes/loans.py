"""``balsim ask loans``: Karnaxis loan cap binding, delinquency, and the cap that balances.

The balance value is the leading policy's edge, per game its seats' wins minus the average
seat's: with the printed cap and each other cap tried, on the same seeds.  The leading policy
is the one that wins most with the printed rules.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.analysis.karnaxis import loan_cap
from simulator.report.page import money, pct
from simulator.studies.recipes.common import (
    ONE_LOOK,
    Answer,
    Sizing,
    ci,
    closest,
    decide,
    decision_text,
    game_values,
    heading,
    leading_policy,
    levels,
    mean_ci,
    record,
    record_verdicts,
    swept,
    swept_values,
    variant_names,
    verdict_of,
)

KEY = "loans.cap_usd"
LOAN_CAPS = (25_000, 50_000, 75_000, 100_000, 150_000, 200_000, 300_000)
variants = swept(KEY, LOAN_CAPS, lambda v: f"cap_{v}")


def loan_values(ds: Dataset, leader: str) -> pl.DataFrame:
    """Per (variant, game): the game values, the share of players whose loans reach the cap
    and the share with a delinquent notice."""
    caps = swept_values(ds, KEY)
    players = ds.players.with_columns(pl.col("variant").cast(pl.String))
    cap = pl.col("variant").replace_strict(caps, return_dtype=pl.Float64)
    loans = (
        players.group_by("variant", "game_id")
        .agg(
            (pl.col("peak_loans_outstanding_usd") >= cap)
            .cast(pl.Float64)
            .mean()
            .alias("cap_binding"),
            (pl.col("delinquent_notices") > 0).cast(pl.Float64).mean().alias("delinquent"),
        )
        .collect()
    )
    return game_values(ds, leader).join(loans, on=["variant", "game_id"])


def answer(ds: Dataset, sizing: Sizing = ONE_LOOK) -> Answer:
    names = variant_names(ds)
    base = names[0]
    leader = leading_policy(ds, base)
    caps = swept_values(ds, KEY)
    frame = loan_values(ds, leader)
    verdicts = {n: verdict_of(frame, "leader_edge", n, sizing) for n in names}
    decision = decide(verdicts, base, closest(caps, base))
    order = sorted(names, key=caps.get)
    what = f"{leader} edge over the fair share"
    numbers = {"leader": leader, **decision.record()}
    record_verdicts(numbers, "leader_edge", verdicts)
    binding = mean_ci(frame, "cap_binding", base, share=True)
    binding = record(numbers, "cap_binding:printed", binding)
    late = record(numbers, "delinquent:printed", mean_ci(frame, "delinquent", base, share=True))
    interest = ds.rules["loans"].get("interest_pct")

    def show(n: str) -> str:
        return f"{money(caps[n])} cap"

    by_cap = "; ".join(f"{money(caps[n])} {verdicts[n].kind}" for n in order)
    chosen = decision.variant if decision.variant not in (None, base) else None
    where = ""
    if chosen:
        at = mean_ci(frame, "cap_binding", chosen, share=True)
        at = record(numbers, "cap_binding:chosen", at)
        where = f"; at {money(caps[chosen])} the cap binds for {pct(at[0])} of players ({ci(at)})"
    sentence = (
        f"{heading(ds, 'Karnaxis loan rules', 'cap')}: for {leader}, the leading policy, "
        f"{decision_text(decision, verdicts, base, show, what, order)}. "
        f"Its edge by cap: {by_cap}. At the printed {money(loan_cap(ds.rules))} cap"
        + (f" with {interest}% interest" if interest is not None else "")
        + f" the cap binds for {pct(binding[0])} of players ({ci(binding)}) and {pct(late[0])} "
        f"get a delinquent notice ({ci(late)}){where}."
    )
    labels = {n: money(caps[n]) for n in names}
    table = levels(frame, ["leader_edge", "cap_binding", "delinquent"], order, labels)
    shown = {n: show(n) for n in names}
    return Answer(sentence, numbers, table, "leader_edge", decision, verdicts, sizing, shown)
