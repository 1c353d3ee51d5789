"""Commands that turn datasets into answers: report, study."""

from __future__ import annotations

from pathlib import Path

import click

from simulator.cli.fields import field_options
from simulator.cli.group import cli
from simulator.core.errors import UserError
from simulator.run.store import check_file_out

FORCE_HELP = "Overwrite an existing file that is not a balsim report (never a dataset's file)."


@cli.command()
@click.argument("datasets", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option(
    "-o",
    "--out",
    default="reports/report.html",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="HTML file to write.",
)
@click.option("--force", is_flag=True, help=FORCE_HELP)
@click.option(
    "-j",
    "--jobs",
    type=int,
    default=-1,
    show_default=True,
    help="Worker processes drawing the datasets' sections.",
)
def report(datasets, out, force, jobs):
    """Write one self-contained HTML playtest report of DATASETS, balance flags first.

    An interrupted dataset is reported as it stands, marked incomplete.  A `balsim
    sensitivity` folder among them adds its section and marks the flags of its game robust
    to the keys it screened or dependent on named ones; a `balsim skill` folder adds the
    game's skill gap to the "Skill and luck" section; a `balsim matrix` folder adds its heat
    map to the "Metagame" section.
    """
    from simulator.cli.options import jobs_count
    from simulator.report import REPORT_MARKER, write_report
    from simulator.report.matrix import split_matrix
    from simulator.report.screens import split_screens
    from simulator.report.skill import split_skill
    from simulator.run.runner import check_readable

    check_file_out(Path(out), force, "--out", REPORT_MARKER)
    jobs = jobs_count(jobs)
    only_datasets = split_matrix(split_skill(split_screens([Path(d) for d in datasets])[0])[0])[0]
    if not only_datasets:
        raise UserError("give at least one dataset to report on")
    for d in only_datasets:
        warning = check_readable(Path(d))
        if warning:
            click.echo(warning, err=True)
    path = write_report([Path(d) for d in datasets], Path(out), jobs)
    click.echo(f"report: {path}")


@cli.command()
@click.option(
    "-o",
    "--out",
    default="runs",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Folder for the study's datasets.",
)
@click.option(
    "--report",
    "report_path",
    default="reports/study.html",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="HTML report to write.",
)
@click.option("--force", is_flag=True, help=FORCE_HELP)
@click.option("-j", "--jobs", type=int, default=-1, show_default=True, help="Worker processes.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
@field_options("scripted", "The rung that plays the study's datasets (one field)")
def study(out, report_path, force, jobs, quiet, fields, adapt_budget):
    """Run the default balance study of every game and write its report."""

    from simulator.cli.options import jobs_count
    from simulator.experiments.adapt import Budget
    from simulator.experiments.field import parse_fields, single_field
    from simulator.report import REPORT_MARKER
    from simulator.studies.study import run_study

    field = single_field(parse_fields(fields), "study")
    if field.rung is None:
        raise UserError("study --field takes a rung (scripted, tuned, adapted, search)")
    check_file_out(Path(report_path), force, "--report", REPORT_MARKER)
    budget = Budget(adapt_budget) if adapt_budget else None
    run_study(
        Path(out),
        Path(report_path),
        jobs=jobs_count(jobs),
        progress=not quiet,
        field=field.rung,
        budget=budget,
    )
