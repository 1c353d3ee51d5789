"""Commands that play games: run, sweep, bench."""

from __future__ import annotations

from pathlib import Path

import click

from simulator.cli.fields import field_options
from simulator.cli.group import cli
from simulator.cli.options import (
    cluster_options,
    file_path,
    game_argument,
    games_option,
    games_to_play,
    given,
    jobs_count,
    load,
    rules_options,
    run_options,
    seat_list,
    seat_options,
    store_options,
)
from simulator.core.errors import UserError
from simulator.core.game import get_game
from simulator.run import bench as bench_mod
from simulator.run.outputs import DATASET, check_out_file, claim
from simulator.run.plan import Plan, resumable_plan
from simulator.run.runner import execute
from simulator.run.sweep import grid_variants


def _execute(ctx, game, plan, out, jobs, scheduler, resume, force, quiet):
    if resume and force:
        raise UserError("give --resume (finish the dataset) or --force (start it again), not both")
    if resume and not out:
        raise UserError("--resume needs --out DIR (the dataset to finish)")
    out = Path(out or f"runs/{game.name}")
    if resume:
        refuse_disagreeing_options(ctx, plan, out)
    manifest = execute(
        None if resume else plan,
        out,
        jobs=jobs_count(jobs, scheduler),
        scheduler=scheduler,
        resume=resume,
        force=force,
        progress=not quiet,
        writer=ctx.command.name,
    )
    done = manifest["played_this_run"]
    rate = done["games"] / done["seconds"] if done["seconds"] else 0.0
    rows = ", ".join(
        f"{name} {sum(p['rows'] for p in parts):,} rows"
        for name, parts in manifest["parts"].items()
    )
    if "stopped" in manifest:
        stopped = manifest["stopped"]
        click.echo(
            f"stopped: {stopped['reason']} (widest win-rate interval "
            f"{stopped['widest_interval']:.4f}, {stopped['games_per_variant']:,} games "
            f"per variant)"
        )
    click.echo(
        f"{out}: {manifest['game']}, {manifest['n_games'] * len(manifest['variants']):,} "
        f"games ({rows}); played {done['games']:,} in {done['seconds']:.1f} s "
        f"({rate:,.0f} games/s)"
    )
    return out


# what each option of a run decides in its plan; --resume refuses those that disagree
PLAN_OPTIONS = (  # (plan field, parameters that set it, option named in the message)
    ("game", ("game",), "GAME"),
    ("n_games", ("n_games",), "-n"),
    ("until_ci", ("until_ci",), "--until-ci"),
    ("n_players", ("players",), "--players"),
    ("seats", ("policy", "seats"), "--policy/--seats"),
    ("seed", ("seed",), "--seed"),
    ("chunk_size", ("chunk_size",), "--chunk-size"),
    ("fixed_seats", ("fixed_seats",), "--fixed-seats/--balanced-seats"),
    ("field", ("fields",), "--field"),
    (
        "variants",
        ("rules_files", "sets", "varies", "variant_files"),
        "--rules/--set/--vary/--variant",
    ),
)


def refuse_disagreeing_options(ctx, plan, out: Path) -> None:
    """--resume finishes a dataset as it was started: an option given on the command line
    that would make another plan is refused, naming it, before anything runs."""
    recorded = resumable_plan(out)
    wrong = []
    for field, params, option in PLAN_OPTIONS:
        mine, theirs = getattr(plan, field), getattr(recorded, field)
        if field == "variants":
            mine, theirs = [(v.name, v.rules) for v in mine], [(v.name, v.rules) for v in theirs]
        if mine == theirs or not given(ctx, *(p for p in params if p in ctx.params)):
            continue
        if field == "variants":
            wrong.append(f"{option} give other rules than the dataset's")
        elif field == "fixed_seats":
            wrong.append(f"{shown(field, mine)} (dataset: {shown(field, theirs)})")
        else:
            wrong.append(f"{option} {shown(field, mine)} (dataset: {shown(field, theirs)})")
    if wrong:
        raise UserError(
            f"--resume finishes {out} as it was started, but "
            + "; ".join(wrong)
            + ": leave those options out, or start again with --force"
        )


def shown(field: str, value) -> str:
    """How a plan's value reads in a message."""
    if field == "seats":
        return ",".join(value)
    if field == "fixed_seats":
        return "--fixed-seats" if value else "--balanced-seats"
    return "none" if value is None else str(value)


@cli.command()
@game_argument
@run_options
@seat_options
@field_options("scripted", "Who plays")
@rules_options
@store_options
@cluster_options
@click.pass_context
def run(
    ctx,
    game,
    n_games,
    until_ci,
    seed,
    jobs,
    chunk_size,
    quiet,
    players,
    policy,
    seats,
    fixed_seats,
    fields,
    adapt_budget,
    rules_files,
    sets,
    out,
    resume,
    force,
    scheduler,
):
    """Play N games of GAME and write a Parquet dataset.

    \b
    Examples:
      balsim run ekonos -n 20000 -p 4 --out runs/ek
      balsim run karnaxis --seats tycoon,scholar,cautious --set loans.cap_usd=100000
      balsim run karmaggan -p 6 --policy rusher --out runs/km6 --force
      balsim run ekonos --out runs/ek --resume        # finish an interrupted run
      balsim run ekonos -p 5 --until-ci 0.01          # play until the intervals are tight
    """
    g, rules = load(game, rules_files, sets)
    names = seat_list(g, players, policy, seats, rules)
    plan = Plan(
        game=game,
        n_games=games_to_play(n_games, until_ci),
        n_players=len(names),
        seats=names,
        seed=seed,
        chunk_size=chunk_size or default_chunk(g, until_ci),
        variants=grid_variants(g, rules, (), ()),
        fixed_seats=fixed_seats,
        until_ci=until_ci,
    )
    chosen = field_plans(plan, fields, adapt_budget, out, policy or seats, (jobs, scheduler), quiet)
    claim_fields(chosen, force, resume, ctx.command.name)
    for field_plan, field_out in chosen:
        _execute(ctx, g, field_plan, field_out, jobs, scheduler, resume, force, quiet)


def field_plans(plan: Plan, fields, adapt_budget, out, named_seats, workers, quiet) -> list:
    """(plan, OUT) of each field, every one ready (adapted, on ``workers``: jobs and
    scheduler) before any game of a dataset is played: OUT itself for one field, OUT/FIELD for
    several (OUT default: runs/GAME).  Seats named by --seats/--policy are mapped onto each
    rung."""
    from simulator.cli.fields import ladder_for
    from simulator.experiments.field import parse_fields

    chosen = parse_fields(fields)
    jobs, scheduler = workers
    game = get_game(plan.game)
    ladder = ladder_for(game, plan.n_players, adapt_budget, jobs_count(jobs), quiet, scheduler)
    plans = [ladder.plan(plan, f, plan.seats if named_seats else None) for f in chosen]
    if len(chosen) == 1:
        return [(plans[0], out)]
    root = Path(out or f"runs/{plan.game}")
    return [(p, str(root / f.folder)) for p, f in zip(plans, chosen)]


def claim_fields(chosen: list, force: bool, resume: bool, writer: str) -> None:
    """Several fields' datasets (OUT/FIELD, names balsim chose: never a link) are all checked
    before the first is played; one dataset is checked as it starts."""
    if len(chosen) > 1 and not resume:
        for _, out in chosen:
            claim(Path(out), DATASET, writer, force, own_name=True)


@cli.command()
@game_argument
@click.option(
    "--vary",
    "varies",
    multiple=True,
    metavar="KEY=V1,V2,..",
    help="A rules key and the values to try (TOML syntax). Several --vary make a grid.",
)
@click.option(
    "--variant",
    "variant_files",
    multiple=True,
    metavar="NAME=FILE",
    help="A named variant: a rules TOML file merged over the base rules. Repeatable.",
)
@run_options
@seat_options
@field_options("scripted", "Who plays")
@rules_options
@store_options
@cluster_options
@click.pass_context
def sweep(
    ctx,
    game,
    varies,
    variant_files,
    n_games,
    until_ci,
    seed,
    jobs,
    chunk_size,
    quiet,
    players,
    policy,
    seats,
    fixed_seats,
    fields,
    adapt_budget,
    rules_files,
    sets,
    out,
    resume,
    force,
    scheduler,
):
    """Play every variant of GAME on the same seeds into one dataset.

    The base rules (defaults + --rules/--set) are variant "base"; each --vary value (or the
    grid of several --vary) and each --variant file is another.  Game k of every variant has
    the same seed, so the analysis compares variants game by game.

    \b
    Examples:
      balsim sweep karnaxis --vary loans.cap_usd=100000,200000 --out runs/loancap
      balsim sweep karmaggan -p 4 --vary setup.blood_coins_4_6=2,3,5,6
      balsim sweep karnaxis --variant flat=flat_tax.toml --out runs/flat
    """
    if not varies and not variant_files and not resume:
        raise UserError("sweep needs at least one --vary KEY=V1,V2 or --variant NAME=FILE")
    g, rules = load(game, rules_files, sets)
    names = seat_list(g, players, policy, seats, rules)
    plan = Plan(
        game=game,
        n_games=games_to_play(n_games, until_ci),
        n_players=len(names),
        seats=names,
        seed=seed,
        chunk_size=chunk_size or default_chunk(g, until_ci),
        variants=grid_variants(g, rules, varies, variant_files),
        fixed_seats=fixed_seats,
        until_ci=until_ci,
    )
    from simulator.analysis.paired import paired_differences, summary_lines

    out = out or (None if resume else f"runs/{game}-sweep")
    chosen = field_plans(plan, fields, adapt_budget, out, policy or seats, (jobs, scheduler), quiet)
    claim_fields(chosen, force, resume, ctx.command.name)
    tables = {}
    for field_plan, field_out in chosen:
        field_out = _execute(ctx, g, field_plan, field_out, jobs, scheduler, resume, force, quiet)
        if len(chosen) > 1:
            click.echo(f"field {field_plan.field}:")
        tables[field_plan.field] = paired_differences(field_out)
        for line in summary_lines(tables[field_plan.field]):
            click.echo(line)
    if len(chosen) > 1:
        from simulator.experiments.rungs import sweep_lines

        click.echo("\n".join(sweep_lines(tables)))


RECORD_MARK = b"date,commit,machine,load,"  # how the header of a --record CSV begins


def default_chunk(game, until_ci):
    """Smaller chunks when stopping on precision, so the check comes often."""
    return max(1, game.chunk_size // 5) if until_ci else game.chunk_size


@cli.command()
@game_argument
@games_option("Games to time [default: about five seconds' worth].", most=bench_mod.MAX_GAMES)
@seat_options
@rules_options
@click.option(
    "--store/--no-store",
    default=False,
    show_default=True,
    help="Also time a run of as many games with its Parquet output, on one core.",
)
@click.option(
    "--record",
    type=file_path(path_type=Path),
    help="Append the measurement to this CSV file (with date, commit, machine and load).",
)
def bench(game, n_games, players, policy, seats, fixed_seats, rules_files, sets, store, record):
    """Measure games per second per core (engine only; --store adds the full pipeline)."""
    from simulator.experiments.learn import reads_learned, with_learned

    g, rules = load(game, rules_files, sets)
    names = seat_list(g, players, policy, seats, rules)
    if reads_learned(g, rules, names):  # its weights, as the ladder gives them
        rules = with_learned(g, rules, len(names))
    if record is not None:  # a bench CSV of balsim's or a new file, never a user's file
        bench_mod.check_record(check_out_file(record, True, "--record", RECORD_MARK, replace=True))
    lines, measured = bench_mod.bench(g, rules, names, n_games, store, fixed_seats)
    for line in lines:
        click.echo(line)
    if record is not None:
        bench_mod.record(record, measured)
