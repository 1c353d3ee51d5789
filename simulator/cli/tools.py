"""Commands that search and screen rules and policies: tune, fit, sensitivity."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import click

from simulator.cli.fields import field_options, ladder_for
from simulator.cli.group import cli
from simulator.cli.options import (
    charts_option,
    claim_result,
    cluster_options,
    count,
    file_path,
    folder_path,
    game_argument,
    games_option,
    jobs_count,
    jobs_option,
    load,
    number,
    players_option,
    quiet_option,
    rules_options,
    seat_list,
    seed_option,
)
from simulator.core.errors import UserError
from simulator.core.limits import VALUE, Range
from simulator.core.rules import MAX_MAGNITUDE
from simulator.experiments.metrics import metric_help_text
from simulator.run.outputs import add_to_record

MAX_TRAJECTORIES = 1_000  # Morris trajectories of a screen (4 find a 5-point effect)
FACTORS = Range(0, 1_000)  # a screened number's range, as factors on its value

# how every rules overlay balsim writes begins (tune, challenge): the one --force replaces
OVERLAY_MARK = b"# Written by: balsim"


def tool_options(f):
    """Seed, workers (local or a cluster's), progress and overwrite: the options every tool
    shares."""
    f = cluster_options(f)
    f = click.option(
        "--force",
        is_flag=True,
        help="Replace the result of the same command in --out (never a file it did not write).",
    )(f)
    f = quiet_option(f)
    f = jobs_option(f)
    return seed_option(f)


def line_up_options(f):
    f = click.option(
        "--seats",
        metavar="P1,P2,..",
        help="Policy of each seat (default: the scripted policies in turn).",
    )(f)
    f = click.option("--policy", "policy", metavar="NAME", help="One policy for every seat.")(f)
    return players_option(f)


def command_line() -> str:
    """The command as typed, for the record kept with a result."""
    return "balsim " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def field_lineup(
    game, rules, command, fields, adapt_budget, players, policy, seats, jobs, quiet, scheduler
):
    """(field, line-up, rules) of the one field a command plays: --seats/--policy mapped onto
    the rung, else the rung's own line-up, and the rules carrying its knob sets (adapted on
    ``jobs`` workers or the dask cluster at ``scheduler``)."""
    from simulator.experiments.field import parse_fields, single_field

    field = single_field(parse_fields(fields), command)
    names = seat_list(game, players, policy, seats, rules)
    ladder = ladder_for(game, len(names), adapt_budget, jobs_count(jobs), quiet, scheduler)
    chosen = ladder.players(rules, field, names if (policy or seats) else None)
    return field, chosen.lineup, chosen.rules


def lab_for(game, jobs, quiet, total, scheduler):
    from simulator.experiments.lab import Lab

    return Lab(game, jobs_count(jobs), not quiet, total, scheduler)


@cli.command()
@game_argument
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="NAME",
    help="The policy to tune (repeatable; each is tuned on its own).",
)
@click.option(
    "--all",
    "all_policies",
    is_flag=True,
    help="Tune every scripted policy of the game, each against the others.",
)
@field_options(
    "scripted, the other scripted policies",
    "The opponents, cycled over the other seats (a rung: its copies of the other policies)",
)
@players_option
@click.option(
    "--budget",
    type=count(),
    default=50_000,
    show_default=True,
    help="Games per policy tuned, the held-out check included (a tenth each for the "
    "tuned and the original knobs).",
)
@click.option(
    "--games-per-candidate",
    type=count(),
    help="Games each candidate plays per generation [default: from the budget, "
    "about 12 generations].",
)
@click.option("--name", help="Name of the tuned knob set [default: POLICY_tuned].")
@click.option(
    "-o",
    "--out",
    required=True,
    type=file_path(),
    help="Rules overlay (TOML) to write the tuned knob sets to.",
)
@tool_options
@rules_options
def tune(
    game,
    policies,
    all_policies,
    fields,
    adapt_budget,
    players,
    budget,
    games_per_candidate,
    name,
    out,
    seed,
    jobs,
    quiet,
    force,
    scheduler,
    rules_files,
    sets,
):
    """Tune a policy's knobs for the highest win rate against a field (CMA-ES).

    The tuned copy plays one seat (Karmaggän team mode: its whole team) against the field
    in balanced seat orders; every candidate of a generation plays the same games.  It ends
    with the tuned and the original knobs on the same held-out games, and writes the tuned
    knob set [policies.POLICY_tuned] to --out, to be used with --rules and seated by name.

    \b
    Examples:
      balsim tune ekonos --policy cash_hoarder -p 4 --budget 50000 --out tuned.toml
      balsim tune karnaxis --policy scholar --field tycoon,cautious --out scholar.toml
      balsim tune karnaxis --policy scholar --field adapted --out scholar.toml
      balsim tune ekonos --all --out tuned/ekonos.toml      # every scripted policy
      balsim run ekonos --rules tuned.toml \
          --seats cash_hoarder_tuned,value_investor,market_builder,president_seeker
    """
    from simulator.experiments.field import parse_fields, single_field
    from simulator.experiments.lab import scripted_field
    from simulator.experiments.tune import overlay
    from simulator.experiments.tune import tune as tune_policy
    from simulator.run.outputs import check_out_file, write_text_atomic

    g, rules = load(game, rules_files, sets)
    if bool(policies) == all_policies:
        raise UserError("give --policy NAME (repeatable) or --all")
    names = scripted_field(g) if all_policies else list(policies)
    if name and len(names) > 1:
        raise UserError("--name needs a single --policy")
    n_players = len(seat_list(g, players, None, None, rules))
    field = single_field(parse_fields(fields), "tune")
    check_out_file(Path(out), force, "--out", OVERLAY_MARK)
    ladder = ladder_for(g, n_players, adapt_budget, jobs_count(jobs), quiet, scheduler)
    rules = ladder.players(rules, field).rules
    results = []
    with lab_for(g, jobs, quiet, budget * len(names), scheduler) as lab:
        for policy in names:
            base = g.policy_set(rules)[g.policy(policy, rules).behaviour].name
            results.append(
                tune_policy(
                    lab,
                    rules,
                    policy,
                    n_players,
                    budget,
                    seed,
                    ladder.opponents(rules, field, exclude=base),
                    name,
                    games_per_candidate,
                )
            )
    for r in results:
        click.echo(
            f"{r.policy} -> {r.name} ({r.search_games:,} games, {len(r.history)} "
            f"generations of {len(r.history[0].candidates)}):"
        )
        click.echo("\n".join(r.knob_lines()))
        click.echo(f"  {r.summary()}")
    write_text_atomic(Path(out), overlay(results, command_line()))
    click.echo(f"wrote {out}")


@cli.command()
@game_argument
@click.option(
    "--key",
    "keys",
    multiple=True,
    required=True,
    metavar="KEY[=LOW:HIGH]",
    help="A numeric rules key to search, with its range (default: a quarter to four "
    "times its value, within the game's checks). Repeatable.",
)
@click.option(
    "--target",
    required=True,
    metavar="METRIC=VALUE",
    help=f"The metric and the value to bring it to (metrics below), VALUE {VALUE}.",
)
@click.option("--budget", type=count(), default=20_000, show_default=True, help="Games in all.")
@click.option(
    "--margin",
    type=number(0, MAX_MAGNITUDE, low_open=True),
    metavar="X",
    help="A value hits the target when the equivalence test places its metric within ±X of "
    "it, in the metric's units [default: 0.02 for rates and edges, 0.5 for length, 0.1 for "
    "a largest share; a score needs one].",
)
@click.option(
    "-o",
    "--out",
    required=True,
    type=folder_path(),
    help="Folder for the result: fit.toml (overlay), fit.svg and fit.png (the chart), "
    "evaluations.parquet, balsim.json.",
)
@line_up_options
@field_options(
    "scripted",
    "Who plays (adapted: the race with knobs adapted to the base rules, the chosen values "
    "then re-measured with the field re-adapted to them); several: one fit each into "
    "OUT/FIELD, and whether their confidence sets overlap",
)
@tool_options
@rules_options
@charts_option
def fit(
    game,
    keys,
    target,
    budget,
    margin,
    out,
    players,
    policy,
    seats,
    fields,
    adapt_budget,
    seed,
    jobs,
    quiet,
    force,
    scheduler,
    rules_files,
    sets,
    charts,
):
    """Find the rules values that bring a balance metric to a target, with a confidence set.

    One integer key with at most 25 values: every value is raced; otherwise CMA-ES searches
    first and its best candidates are raced.  The race plays the candidates on the same new
    games in looks (doubling) until each is shown within the margin of the target or shown
    to miss it, or the budget is spent.  Prints the chosen value (shown within the margin,
    nearest the target) re-measured on held-out games with its verdict, the values shown
    within the margin, and the 95% confidence set (every value raced whose interval holds
    the target).  `--charts DIR` also writes the chart there as SVG and 2x PNG, named after
    its section (fit-GAME-METRIC, and the field when there are several).

    \b
    Metrics:
    {metrics}

    \b
    Examples:
      balsim fit karmaggan -p 4 --key setup.blood_coins_4_6 --target starting_team_edge=0 \
          --out runs/fit-coins
      balsim fit karnaxis --key loans.cap_usd --target max_policy_share=1.3 --out runs/fit-cap
      balsim fit ekonos --key companies.market_indicators --target first_player_edge=0 \
          --out runs/fit-markers
    """
    from simulator.experiments.field import parse_fields
    from simulator.experiments.fit import (
        default_margin,
        key_range,
        parse_target,
        readapted_check,
        write,
    )
    from simulator.experiments.fit import fit as fit_keys
    from simulator.experiments.keys import with_values
    from simulator.experiments.lab import Design
    from simulator.report.charts import save
    from simulator.report.tool_charts import fit_chart, fit_chart_name, fit_files

    g, rules = load(game, rules_files, sets)
    metric, value = parse_target(target)
    margin = default_margin(metric) if margin is None else margin
    ranges = [key_range(g, rules, k) for k in keys]
    chosen = parse_fields(fields)
    outs = {f: Path(out) / f.folder if len(chosen) > 1 else Path(out) for f in chosen}
    for path in outs.values():
        claim_result(path, force, "fit", own_name=len(chosen) > 1)
    lineups = {  # every field ready (adapted) before any game is played
        f: field_lineup(
            g, rules, "fit", (f.name,), adapt_budget, players, policy, seats, jobs, quiet, scheduler
        )
        for f in chosen
    }
    results = {}
    for f, (field, lineup, field_rules) in lineups.items():
        design = Design(g.name, lineup, seed)
        with lab_for(g, jobs, quiet, budget, scheduler) as lab:
            result = fit_keys(lab, field_rules, design, ranges, metric, value, budget, seed, margin)
        if field.name == "adapted":  # the field the chosen values would really meet
            _, _, readapted = field_lineup(
                g,
                with_values(rules, result.best),
                "fit",
                (f.name,),
                adapt_budget,
                players,
                policy,
                seats,
                jobs,
                quiet,
                scheduler,
            )
            with lab_for(g, jobs, quiet, result.estimate.n, scheduler) as lab:
                readapted_check(lab, design, readapted, result)
        figure = fit_chart(result)
        write(result, design, outs[f], command_line(), fit_files(figure))
        add_to_record(outs[f], field=field.name)
        results[field.name] = result
        click.echo((f"field {field.name}: " if len(chosen) > 1 else "") + result.summary())
        click.echo(f"wrote {outs[f]}/fit.toml (use with --rules), {outs[f]}/fit.svg and .png")
        if charts:
            name = fit_chart_name(g.name, metric, field.name if len(chosen) > 1 else "")
            for path in save(figure, Path(charts), name):
                click.echo(f"wrote {path}")
    if len(chosen) > 1:
        from simulator.experiments.rungs import fit_line

        click.echo(fit_line(results))


fit.help = fit.help.replace("{metrics}", metric_help_text(indent="    "))


@cli.command()
@game_argument
@click.option(
    "--keys",
    metavar="K1,K2,..",
    help="Rules keys to screen: numbers (K=LOW:HIGH gives one its own range), a card "
    "(e.g. characters[Nadia]: its numbers together), switches and choices.",
)
@click.option(
    "--assumed",
    is_flag=True,
    help="Screen every value marked ASSUMED in the rules that is in play at the player count.",
)
@click.option(
    "--range",
    "scale",
    default="0.5,1.5",
    show_default=True,
    metavar="LOW,HIGH",
    help=f"Each number's range as factors on its value, LOW < HIGH, each {FACTORS}.",
)
@click.option(
    "--trajectories",
    type=count(2, MAX_TRAJECTORIES),
    default=4,
    show_default=True,
    help="Morris trajectories (runs = trajectories x (factors + 1)).",
)
@games_option("Games per Morris run [default: what --detect needs].", 10, dest="games_per_run")
@click.option(
    "--choice-games",
    type=count(10),
    help="Games per switch or choice, shared among its alternatives (default: what "
    "--detect needs).",
)
@click.option(
    "--detect",
    type=number(0.005, 1),
    default=0.05,
    show_default=True,
    help="Size the screen so a key moving a win rate by this much (0.05 = 5 points) over "
    "its range is found with 80% power.",
)
@click.option(
    "--margin",
    type=number(0, 1, low_open=True),
    default=0.05,
    show_default=True,
    help="'No effect' means within this much of a win rate (TOST).",
)
@click.option(
    "-o",
    "--out",
    required=True,
    type=folder_path(),
    help="Folder for effects.parquet/json, alternatives.parquet, runs.parquet, "
    "sensitivity.svg and .png (the ranked chart), balsim.json.",
)
@line_up_options
@field_options("scripted", "Who plays (one field; adapted: to the base rules)")
@tool_options
@rules_options
@charts_option
def sensitivity(
    game,
    keys,
    assumed,
    scale,
    trajectories,
    games_per_run,
    choice_games,
    detect,
    margin,
    out,
    players,
    policy,
    seats,
    fields,
    adapt_budget,
    seed,
    jobs,
    quiet,
    force,
    scheduler,
    rules_files,
    sets,
    charts,
):
    """Which rules keys move the balance metrics, and which provably do not.

    Numbers by Morris screening (SALib; a card's numbers move together), switches and choices
    one at a time and paired (each alternative against the printed value on the same games).
    For each metric (win rate by seat, policy, character or team, first-player edge, largest
    shares, team gap, length, round-cap rate, ...) and key: the change over the key's range
    with its interval, and a verdict: an effect (Holm-corrected), no effect beyond --margin
    (TOST), or inconclusive with the smallest effect the screen could have detected.
    `--charts DIR` also writes the ranked chart there as SVG and 2x PNG, named after its
    section (sensitivity-GAME-Np-ranked-effects).

    \b
    Examples:
      balsim sensitivity karnaxis --assumed --out runs/sens-karnaxis
      balsim sensitivity ekonos --keys companies.market_indicators,setup.start_money=0:12 \
          --out runs/sens-ek
    """
    from simulator.experiments import sensitivity as sens
    from simulator.experiments.lab import Design
    from simulator.experiments.screen_views import metric_line
    from simulator.experiments.screening import plan_screen
    from simulator.report.charts import save
    from simulator.report.tool_charts import screen_chart, screen_chart_name, screen_files

    g, rules = load(game, rules_files, sets)
    factors = scale.split(",")
    if len(factors) != 2:
        raise UserError(f"--range needs LOW,HIGH factors, e.g. 0.5,1.5, got '{scale}'")
    low, high = (FACTORS.check(v, "--range") for v in factors)
    if not low < high:
        raise UserError(f"--range needs 0 <= LOW < HIGH, got {scale}")
    named = [k.strip() for k in keys.split(",")] if keys else []
    claim_result(out, force, "sensitivity")
    command = "sensitivity"
    field, lineup, rules = field_lineup(
        g, rules, command, fields, adapt_budget, players, policy, seats, jobs, quiet, scheduler
    )
    design = Design(g.name, lineup, seed)
    plan = plan_screen(g, rules, named, assumed, (low, high), design.n_players)
    games_per_run = games_per_run or sens.run_games(detect, trajectories)
    choice_games = choice_games or sens.choice_games(detect)
    total = trajectories * (len(plan.factors) + 1) * games_per_run + 2 * choice_games * len(
        plan.choices
    )
    started = time.perf_counter()
    with lab_for(g, jobs, quiet, total, scheduler) as lab:
        result = sens.screen(
            lab, rules, design, plan, trajectories, games_per_run, choice_games, seed, margin
        )
    sens.write(result, Path(out), command_line(), time.perf_counter() - started, screen_files)
    add_to_record(Path(out), field=field.name)
    for metric, rows in sens.verdicts(out).items():
        click.echo(f"{metric}: {metric_line(rows)}")
    for s in plan.skipped:
        click.echo(f"not screened: {s['key']} ({s['reason']})")
    click.echo(
        f"wrote {out} ({len(plan.factors)} factors by Morris, {len(plan.choices)} switches and "
        f"choices, {result.games:,} games)"
    )
    if charts:
        summary, effects = sens.read(out)
        for path in save(screen_chart(summary, effects), Path(charts), screen_chart_name(summary)):
            click.echo(f"wrote {path}")
