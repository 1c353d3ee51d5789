"""Rules the field never exercises: how often each kind of action a game offers, and each
event it can bring, happens in each field's games, so a designer sees which rules no player
tried (a rule no policy plays is measured by no finding).

Each game lists its kinds with the players column counting them (``Game.exercised``); a kind
happened in a player-game when its count is above 0, and in a game when it happened to any
seat.  A sweep is read in its base rules only.
"""

from __future__ import annotations

import html

import polars as pl

from simulator.analysis import Dataset
from simulator.core.game import GAME_NAMES, get_game
from simulator.report.page import block, pct

RARE = 0.01  # below this share of games a kind counts as rarely exercised


def field_name(ds: Dataset) -> str:
    """The field a dataset was played in, else its folder, with its player count."""
    return f"{ds.manifest.get('field') or ds.path.name} ({ds.n_players}p)"


def exercise_rates(ds: Dataset) -> pl.DataFrame:
    """One row per kind the dataset's game lists: ``games_share`` (games in which some seat
    did it), ``player_games_share`` and the policy that does it most (its share of that
    policy's player-games)."""
    kinds = [k for k in get_game(ds.game).exercised if k[2] in ds.columns("players")]
    players = ds.players
    if len(ds.variants) > 1:
        players = players.filter(pl.col("variant").cast(pl.String) == ds.variants[0]["name"])
    did = players.select(
        "game_id",
        "policy",
        *[(pl.col(column).cast(pl.Int64) > 0).alias(column) for _, _, column in kinds],
    ).collect()
    per_game = did.group_by("game_id").agg(pl.col(c).any() for _, _, c in kinds)
    per_policy = did.group_by("policy").agg(pl.col(c).mean() for _, _, c in kinds)
    rows = []
    for kind, label, column in kinds:
        top = per_policy.sort(column, descending=True).row(0, named=True)
        rows.append(
            {
                "kind": kind,
                "rule": label,
                "column": column,
                "games_share": float(per_game[column].mean()),
                "player_games_share": float(did[column].mean()),
                "most_by": top["policy"],
                "most_by_share": float(top[column]),
            }
        )
    return pl.DataFrame(rows)


def exercise_section(game: str, datasets: list[Dataset]) -> str:
    """The game's table "Rules the field never exercises": every kind, least played first,
    with its share of games and of player-games in each field (dataset) of the report."""
    if game not in GAME_NAMES or not get_game(game).exercised or not datasets:
        return ""
    table, names = None, set()
    for ds in datasets:
        rates = exercise_rates(ds)
        if rates.is_empty():  # a dataset without the count columns (an older engine's)
            continue
        name = field_name(ds)
        if name in names:  # two datasets of one field: told apart by their folders
            name = f"{name} {ds.path.name}"
        names.add(name)
        shown = rates.select(
            "kind",
            "rule",
            pl.col("games_share").map_elements(pct, return_dtype=pl.String).alias(f"{name}: games"),
            pl.col("player_games_share")
            .map_elements(pct, return_dtype=pl.String)
            .alias(f"{name}: player-games"),
            pl.format(
                "{} ({})",
                "most_by",
                pl.col("most_by_share").map_elements(pct, return_dtype=pl.String),
            ).alias(f"{name}: most by"),
            pl.col("games_share").alias(f"_{name}"),
        )
        table = (
            shown
            if table is None
            else table.join(shown, on=["kind", "rule"], how="full", coalesce=True)
        )
    if table is None:
        return ""
    order = [c for c in table.columns if c.startswith("_")]
    table = table.with_columns(pl.min_horizontal(order).alias("_least")).sort("_least")
    never = table.filter(pl.col("_least") < RARE)["rule"].to_list()
    table = table.drop([*order, "_least"])
    summary = (
        f"Under {pct(RARE, 0)} of games in some field: {html.escape(', '.join(never))}."
        if never
        else f"Every kind is played in at least {pct(RARE, 0)} of games of every field."
    )
    anchor = f"game-{game}-exercise"
    return (
        f"<section><h2 id='{anchor}'>{html.escape(game.capitalize())}: rules the field never "
        f"exercises</h2>"
        + block(
            f"{anchor}-table",
            "Rules the field never exercises",
            None,
            table,
            f"{summary} Each action a player can take and each event it can meet, least "
            "played first: the share of games in which at least one seat did it, the share "
            "of player-games, and the policy that does it most (its share of its own "
            "player-games); one set of columns per field. A rule no field plays is not "
            "measured by any finding of this report.",
        )
        + "</section>"
    )
