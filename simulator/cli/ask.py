"""``balsim ask``: the designer's four questions, one command each."""

from __future__ import annotations

import time
from pathlib import Path

import click

from simulator.cli.fields import field_options, ladder_for
from simulator.cli.group import cli
from simulator.cli.options import charts_option, folder_path, jobs_count, margin_option
from simulator.cli.tools import command_line, tool_options
from simulator.core.game import get_game
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
@field_options(
    "scripted,tuned,adapted",
    "Who plays: one answer per field, side by side (adapted: re-tuned under each variant)",
)
@tool_options
@charts_option
def ask(
    question, games, margin, fields, adapt_budget, out, seed, jobs, quiet, force, charts, scheduler
):
    """Answer one of the designer's questions, once per field of players, and say whether
    the answer holds at every strength.

    For each field (default: the scripted policies, their tuned knob sets, and those re-tuned
    under each variant of the question), plays the printed rules and a few variants on the
    same games, in looks (an eighth of the games, then doubling) until the answer is decided
    or the games run out: keep the printed value (it is balanced within the margin), change
    to another (which is), none of those tried is balanced, or inconclusive (with the effect
    the games could have seen).  Then the verdict over the fields: holds at every strength
    only when every field decides the same, else depends on player strength (or
    inconclusive at a field), with each field's numbers.  Writes each field's dataset
    (OUT/dataset-FIELD), a short report with the fields side by side and what the answer
    rests on, each field's players and the ASSUMED values of the rules it asks about
    (OUT/report.html), and every answer with its numbers (OUT/balsim.json), and prints one
    answer per field and the verdict line.  `--charts DIR` also writes the report's chart as
    SVG and 2x PNG.

    \b
    Questions:
    {questions}

    \b
    Examples:
      balsim ask blood-coins
      balsim ask loans --games 2000 --out runs/loans
      balsim ask scoring --field scripted,adapted --adapt-budget 50000
    """
    from simulator.experiments.field import DEFAULT_RUNGS, parse_fields
    from simulator.report.charts import exporting
    from simulator.run.outputs import check_out_dir
    from simulator.studies.recipes import ask as run_recipe

    recipe = RECIPES[question]
    out = Path(out or f"runs/ask-{question}")
    check_out_dir(out, force, "ask")
    chosen = parse_fields(fields, default=(",".join(DEFAULT_RUNGS),))
    game = get_game(recipe.game)
    ladder = ladder_for(game, recipe.players, adapt_budget, jobs_count(jobs), quiet, scheduler)
    started = time.perf_counter()
    with exporting(Path(charts) if charts else None, f"ask-{question}"):
        asked = run_recipe(
            recipe,
            out,
            games,
            seed,
            jobs_count(jobs),
            not quiet,
            command_line(),
            margin / 100,
            chosen,
            ladder.budget,
            scheduler,
        )
    click.echo("\n".join(asked.lines()))
    folders = ", ".join(f"{out}/{r.folder}" for r in asked.rungs)
    click.echo(f"wrote {out}/report.html and {folders} ({time.perf_counter() - started:.0f} s)")


ask.help = ask.help.replace(
    "{questions}", "\n    ".join(f"  {r.name:<13} {r.summary}" for r in RECIPES.values())
)
