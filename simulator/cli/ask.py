"""``balsim ask``: the designer's four questions, one command each."""

from __future__ import annotations

import time
from pathlib import Path

import click

from simulator.cli.fields import field_options, ladder_for
from simulator.cli.group import cli
from simulator.cli.options import (
    charts_option,
    claim_result,
    folder_path,
    games_option,
    jobs_count,
    margin_option,
)
from simulator.cli.tools import command_line, tool_options
from simulator.core.game import get_game
from simulator.studies.recipes import RECIPES


@cli.command()
@click.argument("question", type=click.Choice(list(RECIPES)), metavar="QUESTION")
@games_option(
    "Most games per rules variant (the budget) [default: the question's own].", 24, dest="games"
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
    "scripted,tuned,adapted,learned",
    "Who plays: one answer per field, side by side (adapted: re-tuned under each variant; "
    "learned: a learned seat in the tuned field, its own wins not counted as imbalance)",
)
@click.option(
    "-v", "--verbose", is_flag=True, help="Also print each field's values, facts and adaptations."
)
@click.option(
    "--exploit/--no-exploit",
    default=True,
    show_default=True,
    help="Re-tune every scripted policy against the leading field under the value it keeps "
    "or changes to, and play the search player there: a value is balanced against better "
    "strategies only when none gains more than the margin; and for a change, rate random, "
    "scripted and tuned players under both values (a line when the skill depth moves).",
)
@click.option(
    "--quick",
    is_flag=True,
    help="The tuned field alone: a first decision in about a minute (the full run adds the "
    "scripted and adapted fields and whether the answer depends on strength).",
)
@tool_options
@charts_option
def ask(
    question,
    games,
    margin,
    fields,
    adapt_budget,
    verbose,
    exploit,
    quick,
    out,
    seed,
    jobs,
    quiet,
    force,
    charts,
    scheduler,
):
    """Answer one of the designer's questions, once per field of players, in three lines.

    For each field (default: the scripted policies, their tuned knob sets, those re-tuned
    under each variant of the question, and a learned seat in the tuned field, whose own
    wins are its skill and never counted as imbalance), plays the printed rules and a few
    variants on the same games, in looks (an eighth of the games, then doubling) until the
    decision is settled or the games run out.  A value is balanced when every player the
    question is about is shown within the margin of its fair share, unbalanced when one is
    shown beyond it.  The decision: keep the printed value (shown balanced), change to the
    best value shown balanced (the printed one shown unbalanced), none balanced, or
    undecided (with the games that would decide).  Whether it depends on player strength is
    a test of the fields' difference.  Prints the decision, the worst edge at each strength
    and what to do next (`--verbose`: every value, fact and adaptation); writes each field's
    dataset (OUT/dataset-FIELD), a page with the answer and its chart first
    (OUT/report.html) and every number (OUT/balsim.json).  `--charts DIR` also writes the
    chart as SVG and 2x PNG.

    \b
    Questions:
    {questions}

    \b
    Examples:
      balsim ask blood-coins
      balsim ask loans --quick                   # the tuned field alone, about a minute
      balsim ask loans --games 2000 --out runs/loans
      balsim ask scoring --field scripted,adapted --adapt-budget 50000
    """
    from simulator.experiments.field import TUNED, parse_fields
    from simulator.report.charts import exporting
    from simulator.studies.recipes import ask as run_recipe
    from simulator.studies.recipes.words import details, headline, rests_on

    recipe = RECIPES[question]
    out = Path(out or f"runs/ask-{question}")
    if quick and fields:
        raise click.UsageError("give --quick or --field, not both")
    claim_result(out, force, "ask")
    chosen = parse_fields(fields or (TUNED,)) if fields or quick else None  # None: ask's own
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
            exploit,
        )
    click.echo("\n".join(headline(asked)))
    click.echo(rests_on(asked))
    if quick:
        click.echo(
            f"Quick answer, tuned field only: `balsim ask {question}` adds the scripted and "
            "adapted fields and whether the answer depends on player strength."
        )
    if verbose:
        click.echo("\n".join(details(asked)))
    folders = ", ".join(f"{out}/{r.folder}" for r in asked.rungs)
    click.echo(f"wrote {out}/report.html and {folders} ({time.perf_counter() - started:.0f} s)")


ask.help = ask.help.replace(
    "{questions}", "\n    ".join(f"  {r.name:<13} {r.summary}" for r in RECIPES.values())
)
