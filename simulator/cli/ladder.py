"""Commands about the ladder of player fields: adapt, learn, matrix."""

from __future__ import annotations

from pathlib import Path

import click

from simulator.cli.fields import adapt_budget_option, field_options, ladder_for
from simulator.cli.group import cli
from simulator.cli.options import (
    claim_result,
    cluster_options,
    count,
    folder_path,
    game_argument,
    games_option,
    jobs_count,
    jobs_option,
    load,
    players_option,
    quiet_option,
    rules_options,
    seat_list,
)
from simulator.cli.tools import command_line, lab_for, tool_options


@cli.command()
@game_argument
@players_option
@adapt_budget_option
@click.option(
    "--ship",
    is_flag=True,
    help="Write the adaptations of every rules variant the four ask questions and the default "
    "study play, every replicate, into the package (simulator/games/GAME/adapted.json), for "
    "maintainers.",
)
@jobs_option
@quiet_option
@cluster_options
@rules_options
def adapt(game, players, adapt_budget, ship, jobs, quiet, scheduler, rules_files, sets):
    """Adapt the field to the rules: the tuned knob sets re-tuned under them (cached).

    A few rounds of iterated best response with CMA-ES, every policy's knobs against the
    others', starting from the tuned sets (or from the knobs of the nearest variant adapted
    before); prints how each knob moved and each round's gains, for each of the replicates
    (independent adaptations) a dataset of the adapted field plays.  The result is what
    `--field adapted` plays under these rules; asking again is free.

    \b
    Examples:
      balsim adapt ekonos --set scoring.per_presidency=-24
      balsim adapt karnaxis -p 3 --adapt-budget 200000
    """
    from simulator.core.errors import UserError
    from simulator.experiments.adapt import ship as ship_all
    from simulator.experiments.field import ADAPTED, Field
    from simulator.studies.shipped import shipped_rules

    g, rules = load(game, rules_files, sets)
    n_players = len(seat_list(g, players, None, None, rules))
    ladder = ladder_for(g, n_players, adapt_budget, jobs_count(jobs), quiet, scheduler)
    if ship:
        if rules_files or sets or players is not None:
            raise UserError(
                "--ship adapts the rules the questions and the study play: leave out -p, "
                "--rules, --set"
            )
        shipped = shipped_rules(g)
        found = ship_all(g, shipped, ladder.budget, ladder.jobs, ladder.progress, scheduler)
        played = sum(a.source == "played" for a in found)
        click.echo(
            f"{g.name}: shipped {len(found)} adaptations ({played} played now) of "
            f"{sum(len(r) for r in shipped.values())} rules variants at "
            f"{', '.join(str(n) for n in shipped)} players"
        )
        return
    (found,) = ladder.adaptations([rules], Field(ADAPTED))
    where = {"played": "played", "cache": "from the cache", "shipped": "shipped with balsim"}
    for a in found:
        click.echo(
            f"{g.name}, {n_players} players, replicate {a.replicate}: adapted field "
            f"{where[a.source]} ({a.games:,} games, {len(a.rounds)} round(s), "
            f"{a.seconds:.0f} s when played)"
        )
        click.echo("\n".join(a.lines()))


@cli.command()
@game_argument
@players_option
@click.option(
    "--learn-games",
    type=count(10),
    metavar="GAMES",
    help="Games of each iteration of expert iteration [default: 1200, docs/search.md].",
)
@click.option(
    "--ship",
    is_flag=True,
    help="Write the learned player of the printed rules at each player count the study plays "
    "and of every rules variant the four ask questions play into the package "
    "(simulator/games/GAME/learned-Np.json), for maintainers.",
)
@rules_options
def learn(game, players, learn_games, ship, rules_files, sets):
    """Fit the learned player to the rules: a value over position features (cached).

    Expert iteration: the search's values of the options at its decisions, in games of
    learned seats against the tuned field, fitted by least squares (a weighted sum of the
    features, or the game's small network), three times, each time on the positions the
    learned player reaches.  Prints the weights; `--seats learned` and `--field learned` play
    them under these rules.

    \b
    Examples:
      balsim learn karmaggan -p 6
      balsim learn karmaggan --set setup.blood_coins_4_6=5 --learn-games 400
    """
    from dataclasses import replace

    from simulator.core.errors import UserError
    from simulator.experiments.learn import default_budget, learned
    from simulator.experiments.learn import ship as ship_all
    from simulator.studies.shipped import learned_rules

    g, rules = load(game, rules_files, sets)
    if ship:
        if rules_files or sets or learn_games or players is not None:
            raise UserError(
                "--ship fits the rules the questions and the study play on the default "
                "budget: leave out -p, --rules, --set, --learn-games"
            )
        shipped = learned_rules(g)
        found = ship_all(g, shipped)
        fitted = sum(f.source == "fitted" for f in found)
        click.echo(
            f"{g.name}: shipped {len(found)} learned players ({fitted} fitted now) at "
            + ", ".join(f"{n} players ({len(r)} rules)" for n, r in shipped.items())
        )
        return
    n_players = len(seat_list(g, players, None, None, rules))
    budget = default_budget(g, n_players)
    budget = replace(budget, games=learn_games) if learn_games else budget
    found = learned(g, rules, n_players, budget)
    where = {"fitted": "fitted", "cache": "from the cache", "shipped": "shipped with balsim"}
    click.echo(f"{g.name}, {n_players} players: learned player {where[found.source]}")
    for line in found.lines(g.learned_features):
        click.echo(line)


@cli.command()
@game_argument
@players_option
@games_option("Games per cell (every cell plays the same games).", default=1_000)
@field_options("scripted,tuned,adapted", "Whose agents enter the matrix")
@click.option(
    "-o",
    "--out",
    type=folder_path(),
    help="Folder for balsim.json, matrix.parquet and matrix.svg/.png [default: runs/matrix-GAME].",
)
@tool_options
@rules_options
def matrix(
    game,
    players,
    n_games,
    fields,
    adapt_budget,
    out,
    seed,
    jobs,
    quiet,
    force,
    scheduler,
    rules_files,
    sets,
):
    """The head-to-head win-rate matrix of the ladder's agents, and its equilibrium.

    Cell (row, column): the win rate of the row agent in one seat (Karmaggän team mode: its
    team) against a field of the column agent in every other seat, every cell on the same
    games.  Then the dominant and dominated agents (paired 95% intervals against every
    field) and the equilibrium mixture of the zero-sum form (scipy's linprog).  `balsim
    report` shows a matrix folder as a heat map.

    \b
    Examples:
      balsim matrix ekonos -p 4
      balsim matrix karnaxis -p 4 --field tuned,adapted -n 2000
      balsim matrix ekonos --field cash_hoarder,cash_hoarder_tuned,random
    """
    from simulator.experiments.field import DEFAULT_RUNGS, parse_fields
    from simulator.experiments.matrix import MATRIX_TOOL, play_matrix, summary_lines, write_matrix
    from simulator.report.tool_charts import matrix_files

    g, rules = load(game, rules_files, sets)
    n_players = len(seat_list(g, players, None, None, rules))
    chosen = parse_fields(fields, default=DEFAULT_RUNGS)
    out = Path(out or f"runs/matrix-{g.name}")
    claim_result(out, force, MATRIX_TOOL)
    ladder = ladder_for(g, n_players, adapt_budget, jobs_count(jobs), quiet, scheduler)
    agents = len(ladder_agents(g, ladder, rules, chosen))
    with lab_for(g, jobs, quiet, agents * agents * n_games, scheduler) as lab:
        result = play_matrix(lab, ladder, rules, chosen, n_games, seed)
    extra = {"fields": [f.name for f in chosen], "seed": seed, "games_per_cell": n_games}
    record = write_matrix(result, out, command_line(), extra, matrix_files)
    click.echo(
        f"{g.name}, {n_players} players: {len(result.agents)} agents, "
        f"{record['cells'][0]['games']:,} games per cell"
    )
    for line in summary_lines(record):
        click.echo(line)
    click.echo(f"wrote {out}/matrix.svg and .png, {out}/matrix.parquet, {out}/balsim.json")


def ladder_agents(game, ladder, rules, fields) -> list[str]:
    from simulator.experiments.matrix import agents_of, matrix_rules

    return [a.name for a in agents_of(game, ladder, matrix_rules(ladder, rules, fields), fields)]
