"""``balsim ask tax-brackets``: a flatter and a steeper Karnaxis tax table against the printed.

The balance value is the leading policy's edge (its seats' wins minus the average seat's, per
game) under each table, on the same seats; where players sit (the bracket most player-years
fall in) and each table's paired change of that edge and of the mean bracket describe what
the tables do.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.analysis.core import paired_difference
from simulator.analysis.karnaxis import bracket_labels
from simulator.core.game import Game
from simulator.core.rules import lookup
from simulator.experiments.keys import with_values
from simulator.report.page import money, pct
from simulator.run.runner import Variant
from simulator.studies.recipes.common import (
    ONE_LOOK,
    Answer,
    Sizing,
    change_verdict,
    ci,
    decide,
    decision_text,
    game_values,
    heading,
    leading_policy,
    levels,
    mean_ci,
    record,
    record_verdicts,
    variant_names,
    verdict_of,
    verdict_text,
)

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
    out = [Variant("printed", rules, {"tax_table": str(printed)})]
    for name, spread in SHAPES.items():
        table = tax_table(printed, spread)
        out.append(Variant(name, with_values(rules, {KEY: table}), {"tax_table": str(table)}))
    return out


def bracket_values(ds: Dataset, leader: str) -> pl.DataFrame:
    """Per (variant, game): the game values, the mean bracket of its player-years and the share
    of player-years in each bracket (``bracket_B``)."""
    years = ds.timeline("years").with_columns(pl.col("variant").cast(pl.String))
    shares = (
        years.group_by("variant", "game_id")
        .agg(
            pl.col("tax_bracket").cast(pl.Float64).mean().alias("mean_bracket"),
            *[
                (pl.col("tax_bracket") == b).cast(pl.Float64).mean().alias(f"bracket_{b}")
                for b in range(len(bracket_labels(ds.rules)))
            ],
        )
        .collect()
    )
    return game_values(ds, leader).join(shares, on=["variant", "game_id"])


def answer(ds: Dataset, sizing: Sizing = ONE_LOOK) -> Answer:
    names = variant_names(ds)
    base = names[0]
    leader = leading_policy(ds, base)
    frame = bracket_values(ds, leader)
    labels = bracket_labels(ds.rules)
    verdicts = {n: verdict_of(frame, "leader_edge", n, sizing) for n in names}
    decision = decide(verdicts, base, names[1:])
    numbers = {"leader": leader, **decision.record()}
    record_verdicts(numbers, "leader_edge", verdicts)
    counts = {b: mean_ci(frame, f"bracket_{b}", base)[0] for b in range(len(labels))}
    top = max(counts, key=counts.get)
    share = record(numbers, "top_bracket_share", mean_ci(frame, f"bracket_{top}", base, share=True))
    numbers["top_bracket"] = top
    tables = {v["name"]: v["rules"]["taxes"]["standard_usd"] for v in ds.variants}

    def show(n: str) -> str:
        return "table" if n == base else f"{n} table ({', '.join(money(t) for t in tables[n])})"

    parts = []
    for name in names[1:]:
        moved = change_verdict(frame, "leader_edge", base, name, sizing)
        numbers[f"leader_edge_change:{name}"] = moved.record()
        r = paired_difference(frame, "mean_bracket", base, name).row(0, named=True)
        numbers[f"mean_bracket_change:{name}"] = r["mean_diff"]
        parts.append(
            f"the {name} table changes {leader}'s edge: {verdict_text(moved)}, and the mean "
            f"bracket by {r['mean_diff']:+.2f} (95% CI {r['diff_lo']:+.2f} to "
            f"{r['diff_hi']:+.2f})".replace("-", "−")
        )
    sentence = (
        f"{heading(ds, 'Karnaxis tax brackets', 'table')}: for {leader}, the leading policy, "
        f"{decision_text(decision, verdicts, base, show, f'{leader} edge over the fair share')}. "
        f"With the printed table most player-years fall in the {labels[top]} bracket "
        f"({pct(share[0])}, {ci(share)}); " + "; ".join(parts) + "."
    )
    return Answer(
        sentence,
        numbers,
        levels(frame, ["leader_edge", "mean_bracket"], names, {}),
        "leader_edge",
        decision,
        verdicts,
        sizing,
        {n: show(n) for n in names},
    )
