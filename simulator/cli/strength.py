"""Commands about how strong players change the findings: skill, challenge."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from simulator.cli.fields import adapt_budget_option, field_options, ladder_for
from simulator.cli.group import cli
from simulator.cli.options import (
    charts_option,
    claim_result,
    count,
    file_path,
    folder_path,
    game_argument,
    games_option,
    jobs_count,
    load,
    margin_option,
    players_option,
    rules_options,
    seat_list,
)
from simulator.cli.tools import OVERLAY_MARK, command_line, lab_for, tool_options
from simulator.core.errors import UserError
from simulator.core.limits import Range


def player_count(g, players, rules) -> int:
    return len(seat_list(g, players, None, None, rules))


# rollouts a decision: what every game's search player can play (its Game.search_limits)
ROLLOUTS = Range(1, 100_000, integer=True)


def parse_budgets(text: str) -> tuple[int, ...]:
    try:
        budgets = tuple(int(b) for b in text.split(","))
    except ValueError:
        raise UserError(f"--budgets needs rollout counts like 4,8,16, got '{text}'") from None
    if len(budgets) < 2 or list(budgets) != sorted(set(budgets)):
        raise UserError(f"--budgets needs at least two rising counts of 1 or more, got '{text}'")
    return tuple(ROLLOUTS.check(b, "--budgets") for b in budgets)


@cli.command()
@game_argument
@players_option
@click.option(
    "--rungs",
    metavar="R1,R2,..",
    help="What is rated: rungs of the ladder (random, scripted, tuned, adapted; search: the "
    "search player at each of --budgets) or policies by name, one agent each [default: "
    "random,scripted,tuned,adapted,search].",
)
@click.option(
    "--budgets",
    metavar="B1,B2,..",
    help=f"Rollouts per decision of the search rungs, rising, each {ROLLOUTS} [default: half, "
    "once and twice the search's own].",
)
@games_option(
    "Most games per variant, over every line-up (in looks until the depth and the plateau are "
    "decided), rounded up to whole rounds of seat orders.",
    default=2_000,
)
@margin_option("a doubling of the search gains nothing when shown within ±POINTS")
@click.option(
    "--vary",
    "varies",
    multiple=True,
    metavar="KEY=V1,V2,..",
    help="Rate the ladder under each value too (same games) and give the change in skill "
    "depth against the base rules. Several --vary make a grid.",
)
@adapt_budget_option
@click.option(
    "-o",
    "--out",
    type=folder_path(),
    help="Folder for skill.svg and skill.png (the ratings) and balsim.json (the numbers).",
)
@tool_options
@rules_options
@charts_option
def skill(
    game,
    players,
    rungs,
    budgets,
    n_games,
    margin,
    varies,
    adapt_budget,
    out,
    seed,
    jobs,
    quiet,
    force,
    scheduler,
    rules_files,
    sets,
    charts,
):
    """Rate the ladder's rungs on one scale: skill depth, plateau and luck.

    Every rung (random, scripted, tuned, adapted, the search player at several budgets)
    plays the others in balanced seatings; each game's ranking feeds one Plackett–Luce
    model, in Elo points with random at 0 and 95% intervals.  Prints each rung's rating,
    the skill depth (steps of 60% from random to the strongest rung), the plateau (the
    budget from which a doubling of the search is shown to gain less than the margin) and
    the luck (how often the weakest rung finishes above the strongest).  With --vary, every
    variant is rated on the same games and its change in depth is given.

    \b
    Examples:
      balsim skill ekonos -p 4
      balsim skill karnaxis --budgets 2,4,8 -n 4000 --out runs/skill-karnaxis
      balsim skill ekonos --vary scoring.per_presidency=0,-24 --rungs random,scripted,tuned
    """
    from simulator.experiments.skill import SKILL_TOOL, rate_ladder, write_skill
    from simulator.experiments.strength import has_search
    from simulator.experiments.tournament import (
        RATED,
        check_rungs,
        default_budgets,
        ladder_rules,
        resolve_rungs,
    )
    from simulator.report.tool_charts import skill_files
    from simulator.run.sweep import grid_variants

    g, rules = load(game, rules_files, sets)
    n_players = player_count(g, players, rules)
    names = [r.strip() for r in rungs.split(",") if r.strip()] if rungs else list(RATED)
    check_rungs(g, rules, names)
    values = parse_budgets(budgets) if budgets else ()
    if has_search(g) and "search" in names and not values:
        values = default_budgets(g, rules)
    variants = grid_variants(g, rules, varies, ())
    if out:
        claim_result(out, force, SKILL_TOOL)
    ladder = ladder_for(g, n_players, adapt_budget, jobs_count(jobs), quiet, scheduler)
    variants = [replace(v, rules=ladder_rules(ladder, v.rules, names, values)) for v in variants]
    rated = resolve_rungs(ladder, variants[0].rules, names, values)
    with lab_for(g, jobs, quiet, n_games * len(variants), scheduler) as lab:
        result = rate_ladder(lab, variants, rated, n_players, n_games, seed, margin / 100)
    click.echo(
        f"{g.name}, {n_players} players: {len(rated)} rungs rated on one Plackett–Luce scale "
        f"(Elo points, {rated[result.base.reference].name} = 0; 95% intervals by game)"
    )
    click.echo("\n".join(result.lines()))
    if out:
        write_skill(result, Path(out), command_line(), charts=skill_files)
        click.echo(f"wrote {out}/skill.svg and .png, {out}/balsim.json")
    if charts:
        from simulator.report.charts import save, slug
        from simulator.report.skill import ratings_chart

        record = {"tool": SKILL_TOOL, **result.record()}
        name = slug(f"skill {g.name} {n_players}p")
        for path in save(ratings_chart(record), Path(charts), name):
            click.echo(f"wrote {path}")


@cli.command()
@game_argument
@click.option(
    "--incumbent",
    required=True,
    metavar="NAME",
    help="The policy whose field the challengers face (e.g. the one a flag calls dominant).",
)
@players_option
@click.option(
    "--budget",
    type=count(),
    default=20_000,
    show_default=True,
    help="Games to tune each challenger, its held-out check included.",
)
@click.option(
    "--search-games",
    type=count(),
    default=200,
    show_default=True,
    help="Games the search player plays against the field (games with search).",
)
@field_options("tuned", "Where the challengers start: each rival's copy on this rung (one field)")
@click.option(
    "-o",
    "--out",
    type=file_path(),
    help="Rules overlay (TOML) with the challengers' tuned knob sets.",
)
@tool_options
@rules_options
def challenge(
    game,
    incumbent,
    players,
    budget,
    search_games,
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
    """Is a policy dominant, or is its field weak?  Best responses against it.

    Every other scripted policy (from its tuned copy where the rules have one) is tuned
    against a field of the incumbent, and the search player, where the game has one, plays
    against the same field.  If no challenger wins significantly more than its fair share on
    held-out games, the incumbent is dominant; otherwise a flag that it wins too often is an
    artefact of the field.

    \b
    Examples:
      balsim challenge karnaxis --incumbent tycoon -p 4
      balsim challenge ekonos --incumbent president_seeker --budget 10000 --out best.toml
    """
    from simulator.experiments.field import parse_fields, single_field
    from simulator.experiments.lab import scripted_field
    from simulator.experiments.strength import challenge as run_challenge
    from simulator.experiments.strength import has_search
    from simulator.experiments.tune import overlay
    from simulator.run.outputs import check_out_file, write_text_atomic

    g, rules = load(game, rules_files, sets)
    n_players = player_count(g, players, rules)
    field = single_field(parse_fields(fields, default=("tuned",)), "challenge")
    if field.rung is None:
        raise UserError("challenge --field takes a rung: where the challengers start")
    if out:
        check_out_file(Path(out), force, "--out", OVERLAY_MARK)
    ladder = ladder_for(g, n_players, adapt_budget, jobs_count(jobs), quiet, scheduler)
    rules = ladder.players(rules, field).rules
    g.policy(incumbent, rules)
    total = budget * (len(scripted_field(g)) - 1) + (search_games if has_search(g) else 0)
    start = lambda rival: ladder.copy_name(rules, field.rung, rival)  # noqa: E731
    with lab_for(g, jobs, quiet, total, scheduler) as lab:
        result = run_challenge(lab, rules, incumbent, n_players, budget, search_games, seed, start)
    click.echo(
        f"{g.name}, {n_players} players: challengers (from field {field.name}) against a "
        f"field of {incumbent}, held-out win rates:"
    )
    click.echo("\n".join(result.lines()))
    click.echo(result.verdict())
    if out:
        tuned = [c.tuned for c in result.challengers if c.tuned is not None]
        text = overlay(tuned, command_line()).replace("\n", f"\n# {result.verdict()}.\n", 1)
        write_text_atomic(Path(out), text)
        click.echo(f"wrote {out}")
