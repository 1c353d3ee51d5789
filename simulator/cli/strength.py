"""Commands about how strong players change the findings: skill, challenge."""

from __future__ import annotations

from pathlib import Path

import click

from simulator.cli.fields import field_options, ladder_for
from simulator.cli.group import cli
from simulator.cli.options import (
    charts_option,
    file_path,
    folder_path,
    game_argument,
    jobs_count,
    load,
    margin_option,
    rules_options,
    seat_list,
)
from simulator.cli.tools import OVERLAY_MARK, command_line, lab_for, tool_options
from simulator.core.errors import UserError


def player_count(g, players, rules) -> int:
    return len(seat_list(g, players, None, None, rules))


def parse_budgets(text: str) -> tuple[int, ...]:
    try:
        budgets = tuple(int(b) for b in text.split(","))
    except ValueError:
        raise UserError(f"--budgets needs rollout counts like 1,4,16, got '{text}'") from None
    if len(budgets) < 2 or any(b < 1 for b in budgets) or list(budgets) != sorted(set(budgets)):
        raise UserError(f"--budgets needs at least two rising counts of 1 or more, got '{text}'")
    return budgets


@cli.command()
@game_argument
@click.option(
    "-p", "--players", type=int, help="Number of players [default: the game's usual count]."
)
@click.option(
    "--budgets",
    default="1,4,16,64,256",
    show_default=True,
    metavar="B1,B2,..",
    help="Rollouts per decision of the search player, rising.",
)
@click.option(
    "-n",
    "--games",
    "n_games",
    type=click.IntRange(min=1),
    default=400,
    show_default=True,
    help="Most games per budget (every budget plays the same games, in looks until the "
    "verdict on the skill gap is decided).",
)
@margin_option("a skill gap within ±POINTS by the equivalence test counts as none")
@field_options(
    "tuned",
    "The fixed opponents, cycled over the other seats (a rung: its copy of each scripted "
    "policy; search: the adapted ones); one curve per field",
)
@click.option(
    "-o",
    "--out",
    type=folder_path(),
    help="Folder for skill.svg and skill.png (the curve) and balsim.json (the numbers); "
    "OUT/FIELD for each of several fields.",
)
@tool_options
@rules_options
@charts_option
def skill(
    game,
    players,
    budgets,
    n_games,
    margin,
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
    charts,
):
    """Win rate of the search player by rollout budget: how much skill the game rewards.

    The search player takes one seat (Karmaggän team mode: its team) against a fixed field,
    at each budget on the same games.  The skill gap is the win rate at the top budget minus
    at the lowest, with its paired interval and a verdict: an effect, no gap beyond the
    margin (a flat curve: luck dominates), or inconclusive with the gap the games could
    have seen.  Games are played in looks until the verdict is decided or -n runs out.

    \b
    Examples:
      balsim skill ekonos -p 4
      balsim skill karnaxis -p 4 --budgets 1,16,256 -n 200 --out runs/skill-karnaxis
    """
    from simulator.experiments.field import ADAPTED, SEARCH, Field, parse_fields
    from simulator.experiments.strength import SKILL_TOOL, require_search, write_curve
    from simulator.experiments.strength import skill as skill_curve
    from simulator.report.tool_charts import skill_files
    from simulator.run.outputs import check_out_dir

    g, rules = load(game, rules_files, sets)
    require_search(g)
    values = parse_budgets(budgets)
    n_players = player_count(g, players, rules)
    chosen = parse_fields(fields, default=("tuned",))
    outs = (
        {f: Path(out) / f.folder if len(chosen) > 1 else Path(out) for f in chosen} if out else {}
    )
    for path in outs.values():
        check_out_dir(path, force, SKILL_TOOL)
    ladder = ladder_for(g, n_players, adapt_budget, jobs_count(jobs), quiet, scheduler)
    for field in chosen:
        opponents = Field(ADAPTED) if field.rung == SEARCH else field
        field_rules = ladder.players(rules, opponents).rules
        names = ladder.opponents(field_rules, opponents)
        with lab_for(g, jobs, quiet, n_games * len(values), scheduler) as lab:
            curve = skill_curve(
                lab, field_rules, n_players, n_games, values, names, seed, margin / 100
            )
        click.echo(
            f"{g.name}, {n_players} players, field {field.name}: search against "
            f"{', '.join(curve.lineup[1:])}"
        )
        click.echo("\n".join(curve.lines()))
        if out:
            write_curve(curve, outs[field], command_line(), field.name, skill_files)
            click.echo(f"wrote {outs[field]}/skill.svg and .png, {outs[field]}/balsim.json")
        if charts:
            from simulator.report.charts import save, slug
            from simulator.report.skill import curve_chart

            name = slug(f"skill {g.name} {n_players}p {field.name}")
            for path in save(curve_chart(curve.record()), Path(charts), name):
                click.echo(f"wrote {path}")


@cli.command()
@game_argument
@click.option(
    "--incumbent",
    required=True,
    metavar="NAME",
    help="The policy whose field the challengers face (e.g. the one a flag calls dominant).",
)
@click.option(
    "-p", "--players", type=int, help="Number of players [default: the game's usual count]."
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=20_000,
    show_default=True,
    help="Games to tune each challenger, its held-out check included.",
)
@click.option(
    "--search-games",
    type=click.IntRange(min=1),
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
