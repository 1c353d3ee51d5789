"""``balsim ask``: the designer's four questions, one command each."""

from __future__ import annotations

import time
from pathlib import Path

import click

from simulator.cli.group import cli
from simulator.cli.options import folder_path, jobs_count, margin_option
from simulator.cli.tools import command_line, tool_options
from simulator.studies.recipes import RECIPES


@cli.command()
@click.argument("question", type=click.Choice(list(RECIPES)), metavar="QUESTION")
@click.option(
    "-n",
    "--games",
    type=click.IntRange(min=24),
    metavar="N",
    help="Most games per rules variant (the budget) [default: the question's own].",
)
@click.option(
    "-o",
    "--out",
    type=folder_path(),
    metavar="DIR",
    help="Folder for dataset/, report.html and balsim.json [default: runs/ask-QUESTION].",
)
@margin_option("an edge is called balanced only when the equivalence test places it within ±POINTS")
@tool_options
def ask(question, games, margin, out, seed, jobs, quiet, force, scheduler):
    """Answer one of the designer's questions: a decision, with every number's interval.

    Plays the printed rules and a few variants on the same games, in looks (an eighth of
    the games, then doubling) until the answer is decided or the games run out: keep the
    printed value (it is balanced within the margin), change to another (which is), none of
    those tried is balanced, or inconclusive (with the effect the games could have seen).
    Writes the dataset (OUT/dataset), a short report (OUT/report.html) and the answer with
    its numbers (OUT/balsim.json), and prints the answer.

    \b
    Questions:
    {questions}

    \b
    Examples:
      balsim ask blood-coins
      balsim ask loans --games 2000 --out runs/loans
    """
    from simulator.run.outputs import check_out_dir
    from simulator.studies.recipes import ask as run_recipe

    recipe = RECIPES[question]
    out = Path(out or f"runs/ask-{question}")
    check_out_dir(out, force, "ask")
    started = time.perf_counter()
    answer = run_recipe(
        recipe,
        out,
        games,
        seed,
        jobs_count(jobs),
        not quiet,
        command_line(),
        margin / 100,
        scheduler,
    )
    click.echo(answer.sentence)
    click.echo(f"wrote {out}/report.html and {out}/dataset ({time.perf_counter() - started:.0f} s)")


ask.help = ask.help.replace(
    "{questions}", "\n    ".join(f"  {r.name:<13} {r.summary}" for r in RECIPES.values())
)
