"""``balsim ask tax-brackets``: a flatter and a steeper Karnaxis tax table against the printed
one — balanced for every policy, and what each table does to the taxes paid.

The subjects are the line-up's policies, as in ``ask loans``.  The facts: the bracket with the
largest share of player-years, and the tax a player-year pays under each table (dollars), its
change from the printed table paired game by game.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.analysis.core import paired_difference
from simulator.core.decisions import Decision
from simulator.core.game import Game
from simulator.core.rules import lookup
from simulator.core.verdicts import z
from simulator.experiments.keys import with_values
from simulator.report.page import money, pct
from simulator.run.plan import Variant
from simulator.studies.recipes.common import (
    PRINTED,
    Fact,
    Question,
    label,
    mean_ci,
    policy_edges,
    record,
    setting,
    settings,
    variant_names,
)
from simulator.studies.recipes.words import interval_text

KEY = "taxes.standard_usd"
SHAPES = {"flatter": 0.5, "steeper": 1.5}  # spread of the tax table around its mean
ROUND = 5_000  # table entries in $5,000 steps, as printed


def tax_table(printed: list[int], spread: float) -> list[int]:
    """The printed table pulled towards its mean (spread < 1: flatter) or pushed away
    (spread > 1: steeper), in $5,000 steps and never below 0; its order stays."""
    mean = sum(printed) / len(printed)
    return [max(0, int(round((mean + spread * (t - mean)) / ROUND)) * ROUND) for t in printed]


def variants(game: Game, rules: dict) -> list[Variant]:
    printed = lookup(rules, KEY)
    out = [Variant(PRINTED, rules, {"setting": setting(KEY, printed)})]
    for name, spread in SHAPES.items():
        table = tax_table(printed, spread)
        out.append(Variant(name, with_values(rules, {KEY: table}), {"setting": f"{name} table"}))
    return out


def bracket_names(rules: dict) -> list[str]:
    """Each bracket's income range in dollars, from the rules' own bounds."""
    bounds = lookup(rules, "taxes.bracket_max_usd")
    lows = [0, *bounds]
    return [f"{money(lo)}–{money(hi)}" for lo, hi in zip(lows, bounds)] + [
        f"over {money(bounds[-1])}"
    ]


def year_frame(ds: Dataset, n_brackets: int) -> pl.DataFrame:
    """Per (variant, game): the mean tax a player-year pays and each bracket's share."""
    years = ds.timeline("years").with_columns(pl.col("variant").cast(pl.String))
    return (
        years.group_by("variant", "game_id")
        .agg(
            pl.col("tax_paid_usd").cast(pl.Float64).mean().alias("tax"),
            *[
                (pl.col("tax_bracket") == b).cast(pl.Float64).mean().alias(f"bracket_{b}")
                for b in range(n_brackets)
            ],
        )
        .sort("variant", "game_id")
        .collect()
    )


def facts(ds: Dataset, decision: Decision) -> list[Fact]:
    level = decision.printed.level
    names = bracket_names(ds.rules)
    frame = year_frame(ds, len(names))
    numbers: dict = {}
    shares = {b: mean_ci(frame, f"bracket_{b}", PRINTED, level, True) for b in range(len(names))}
    top = max(shares, key=lambda b: shares[b][0])
    record(numbers, "largest_bracket_share", shares[top])
    numbers["largest_bracket"] = names[top]
    tax = record(numbers, "tax:printed", mean_ci(frame, "tax", PRINTED, level))
    shown = settings(ds)
    out = [
        Fact(
            f"With the printed table the largest share of player-years, {pct(shares[top][0])} "
            f"{interval_text(shares[top], level, pct)}, is in the {names[top]} bracket; a "
            f"player-year pays {money(tax[0])} of tax on average.",
            numbers,
        )
    ]
    tables = {v["name"]: lookup(v["rules"], KEY) for v in ds.variants}
    for name in variant_names(ds)[1:]:
        r = paired_difference(frame, "tax", PRINTED, name).row(0, named=True)
        half = z(0.5 + level / 2) * r["se"]
        change = (r["mean_diff"], r["mean_diff"] - half, r["mean_diff"] + half)
        record(numbers, f"tax_change:{name}", change)
        out.append(
            Fact(
                f"The {label(name, shown)} ({', '.join(money(t) for t in tables[name])}) "
                f"changes the tax a player-year pays by {signed_money(change[0])} "
                f"{interval_text(change, level, signed_money)}.",
                {},
            )
        )
    return out


def signed_money(x: float) -> str:
    return ("−" if x < 0 else "+") + money(abs(x))


QUESTION = Question(
    "tax-brackets",
    "karnaxis",
    4,
    12_000,
    "Karnaxis: a flatter and a steeper tax table against the printed one: balanced for every "
    "policy, and the taxes a player pays.",
    variants,
    policy_edges,
    facts,
    lambda ds: variant_names(ds)[1:],
    "every policy",
    "the tax table",
    ("taxes",),
)
