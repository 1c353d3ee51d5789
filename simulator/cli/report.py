"""Commands that read datasets: report, verify, study."""

from __future__ import annotations

from pathlib import Path

import click

from simulator.cli.fields import field_options
from simulator.cli.group import cli
from simulator.cli.options import (
    charts_option,
    cluster_options,
    file_path,
    folder_path,
    jobs_option,
    number,
    quiet_option,
)
from simulator.core.errors import UserError
from simulator.core.limits import MAX_SCALE
from simulator.run.outputs import check_out_file


@cli.command()
@click.argument("datasets", nargs=-1, required=True, type=folder_path())
@click.option(
    "-o",
    "--out",
    default="reports/report.html",
    show_default=True,
    type=file_path(),
    help="HTML file to write; an existing balsim report is replaced, any other file refused.",
)
@jobs_option
@charts_option
def report(datasets, out, jobs, charts):
    """Write one self-contained HTML playtest report of DATASETS, balance flags first.

    An interrupted dataset is reported as it stands, marked incomplete.  A `balsim
    sensitivity` folder among them adds its section and tells each flag of its game and player
    count which assumed values it depends on, or whether it is robust to them; a `balsim
    skill` folder adds the game's rated ladder (skill depth, plateau, luck) to the "Skill
    and luck" section; a `balsim matrix` folder adds its heat map to the "Metagame" section;
    a `balsim ask` folder puts its answer on the first screen.
    `--charts DIR` also writes every chart as SVG and as PNG at twice its size, named after
    its section, for a slide deck.
    """
    from simulator.cli.options import jobs_count
    from simulator.report import REPORT_MARKER, write_report
    from simulator.report.asks import split_asks
    from simulator.report.matrix import split_matrix
    from simulator.report.screens import split_screens
    from simulator.report.skill import split_skill
    from simulator.run.checks import check_readable

    check_out_file(Path(out), False, "--out", REPORT_MARKER, replace=True)
    jobs = jobs_count(jobs)
    given = split_asks(split_screens([Path(d) for d in datasets])[0])[0]
    only_datasets = split_matrix(split_skill(given)[0])[0]
    if not only_datasets:
        raise UserError("give at least one dataset to report on")
    for d in only_datasets:
        warning = check_readable(Path(d))
        if warning:
            click.echo(warning, err=True)
    path = write_report(
        [Path(d) for d in datasets], Path(out), jobs, Path(charts) if charts else None
    )
    click.echo(f"report: {path}")


@cli.command()
@click.argument("datasets", nargs=-1, required=True, type=folder_path())
@click.pass_context
def verify(ctx, datasets):
    """Check that each dataset is whole before reading its parts yourself.

    Every part must be one of the dataset's own (its game, engine version, seed, variant,
    task and game ids, in its Parquet metadata and in its rows, as the manifest plans them),
    whole (a complete Parquet file of the right row count) and with every table of its
    task; a complete dataset must hold all of them.  Checks every dataset given and prints
    one line for each: a whole one on stdout, one that is not as `Error: ...` on stderr,
    naming its first problem and the fix; the exit status is 2 when any is not whole.

    \b
    Examples:
      balsim verify runs/ek
      balsim verify runs/*/
    """
    from simulator.cli.group import one_line
    from simulator.run.checks import verify_dataset

    failed = 0
    for d in datasets:
        try:
            click.echo(verify_dataset(Path(d)))
        except UserError as e:
            failed += 1
            click.echo(f"Error: {one_line(e)}", err=True)
    if failed:
        ctx.exit(2)


@cli.command()
@click.option(
    "-o",
    "--out",
    default="runs",
    show_default=True,
    type=folder_path(),
    help="Folder for the study's datasets.",
)
@click.option(
    "--report",
    "report_path",
    default="reports/study.html",
    show_default=True,
    type=file_path(),
    help="HTML report to write; an existing balsim report is replaced, any other file refused.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Finish an interrupted study in --out: keep what it finished, play the rest.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace what another command wrote where the study writes in --out (a dataset in "
    "GAME-4p, a screen in sens-GAME; balsim's own files only). Without it the study "
    "replaces only what it wrote itself.",
)
@jobs_option
@quiet_option
@field_options("scripted", "The rung that plays the study's datasets (one field)")
@click.option(
    "--scale",
    type=number(0, MAX_SCALE, low_open=True),
    default=1.0,
    show_default=True,
    metavar="K",
    help="Multiply every budget (datasets, strong fields, screens, rated ladders) by K: a "
    "cluster's study (intervals narrow by sqrt(K)).",
)
@click.option(
    "--screen-scale",
    type=number(0, MAX_SCALE, low_open=True),
    default=1.0,
    show_default=True,
    help="Multiply the games of the sensitivity screens of the assumed values once more (1 "
    "detects a 5-point effect on a win rate; 4 halves that).",
)
@cluster_options
def study(
    out,
    report_path,
    resume,
    force,
    jobs,
    quiet,
    fields,
    adapt_budget,
    scale,
    screen_scale,
    scheduler,
):
    """Run the default balance study of every game and write its report."""

    from simulator.cli.options import jobs_count
    from simulator.experiments.adapt import Budget
    from simulator.experiments.field import parse_fields, single_field
    from simulator.report import REPORT_MARKER
    from simulator.studies.study import run_study

    field = single_field(parse_fields(fields), "study")
    if field.rung is None:
        raise UserError("study --field takes a rung (scripted, tuned, adapted, search)")
    check_out_file(Path(report_path), False, "--report", REPORT_MARKER, replace=True)
    budget = Budget(adapt_budget) if adapt_budget else None
    run_study(
        Path(out),
        Path(report_path),
        jobs=jobs_count(jobs),
        progress=not quiet,
        field=field.rung,
        budget=budget,
        resume=resume,
        scale=scale,
        screen_scale=screen_scale,
        scheduler=scheduler,
        force=force,
    )
