"""Commands that turn datasets into answers: report, study."""

from __future__ import annotations

from pathlib import Path

import click

from simulator.cli import cli
from simulator.errors import UserError


@cli.command()
@click.argument("datasets", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("-o", "--out", default="reports/report.html", show_default=True,
              type=click.Path(dir_okay=False), help="HTML file to write.")
def report(datasets, out):
    """Write one self-contained HTML playtest report of DATASETS, balance flags first."""
    from simulator.report import write_report
    for d in datasets:
        if not (Path(d) / "manifest.json").exists():
            raise UserError(f"{d} is not a balsim dataset (no manifest.json)")
    path = write_report([Path(d) for d in datasets], Path(out))
    click.echo(f"report: {path}")


@cli.command()
@click.option("-o", "--out", default="runs", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the study's datasets.")
@click.option("--report", "report_path", default="reports/study.html", show_default=True,
              type=click.Path(dir_okay=False), help="HTML report to write.")
@click.option("-j", "--jobs", type=int, default=-1, show_default=True, help="Worker processes.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def study(out, report_path, jobs, quiet):
    """Run the default balance study of every game and write its report."""
    from simulator.cli.options import jobs_count
    from simulator.study import run_study
    run_study(Path(out), Path(report_path), jobs=jobs_count(jobs), progress=not quiet)
