"""``--field`` and ``--adapt-budget``: who plays, on every command that plays games."""

from __future__ import annotations

import click

from simulator.cli.options import count
from simulator.core.game import Game

RUNG_LIST = "scripted, tuned, adapted, learned, search"


def field_options(default: str, what: str):
    """The ``--field`` option (repeatable, comma lists) with ``what`` it decides and its
    ``default``, and ``--adapt-budget``."""

    def decorate(f):
        f = adapt_budget_option(f)
        f = click.option(
            "--field",
            "fields",
            multiple=True,
            metavar="RUNG|P1,P2,..",
            help=f"{what}: a rung of the ladder ({RUNG_LIST}) or explicit policies; "
            f"repeatable or a comma list of rungs [default: {default}].",
        )(f)
        return f

    return decorate


adapt_budget_option = click.option(
    "--adapt-budget",
    type=count(),
    metavar="GAMES",
    help="Games each rules variant's adaptation may play (fields adapted and search; cached) "
    "[default: per game, docs/ladder.md].",
)


def ladder_for(
    game: Game,
    n_players: int,
    adapt_budget: int | None,
    jobs: int,
    quiet: bool,
    scheduler: str | None = None,
):
    """The ladder that resolves this command's fields (adapting on ``jobs`` workers, or on the
    dask cluster at ``scheduler``)."""
    from dataclasses import replace

    from simulator.experiments.adapt import default_budget
    from simulator.experiments.field import Ladder

    budget = default_budget(game.name)
    if adapt_budget:
        budget = replace(budget, games=adapt_budget)
    return Ladder(game, n_players, budget, jobs, progress=not quiet, scheduler=scheduler)
