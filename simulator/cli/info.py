"""Commands that explain a game: rules, policies, replay."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from simulator.cli.group import cli
from simulator.cli.options import (
    folder_path,
    game_argument,
    given,
    load,
    number,
    rules_options,
    seat_list,
    seat_options,
    seed_option,
)
from simulator.core.errors import UserError
from simulator.core.game import get_game, knob_values
from simulator.core.rng import game_seeds
from simulator.core.rules import to_toml
from simulator.run.checks import holds_game
from simulator.run.plan import Plan, Variant, plan_from_manifest, seat_policy_ids
from simulator.run.store import read_manifest


@cli.command()
@game_argument
@rules_options
def rules(game, rules_files, sets):
    """Print the effective rules of GAME as TOML (defaults + --rules + --set)."""
    _, effective = load(game, rules_files, sets)
    click.echo(to_toml(effective), nl=False)


@cli.command()
@game_argument
@rules_options
def policies(game, rules_files, sets):
    """List the policies of GAME with their descriptions and tunable knobs.

    Named knob sets (a table ``[policies.NAME]`` with ``base = "POLICY"`` in the rules or a
    --rules file) are listed after the built-in policies and can be seated like them."""
    g, effective = load(game, rules_files, sets)
    listed = g.policy_set(effective)
    width = max(len(p.name) for p in listed)
    for p in listed:
        base = "" if p.behaviour == p.id else f" [runs {listed[p.behaviour].name}]"
        click.echo(f"{p.name:<{width}}  {p.description}{base}")
        for key, value in knob_values(effective, listed, p).items():
            click.echo(f"{'':<{width}}    policies.{p.name}.{key} = {value}")


@cli.command()
@click.argument("game", required=False)
@click.option(
    "--game-id",
    "--game",
    "game_id",
    type=number(0, 2**62, integer=True),
    required=True,
    help="Which game of the run (its game_id).",
)
@seed_option
@click.option(
    "--from",
    "dataset",
    type=folder_path(),
    help="Replay a game of this dataset (its rules, seats and seed).",
)
@click.option(
    "--variant",
    default="base",
    show_default=True,
    help="With --from: which variant of the dataset.",
)
@seat_options
@rules_options
@click.pass_context
def replay(
    ctx,
    game,
    game_id,
    seed,
    dataset,
    variant,
    players,
    policy,
    seats,
    fixed_seats,
    rules_files,
    sets,
):
    """Print the play-by-play of one game.

    \b
    Examples:
      balsim replay ekonos --seed 1 --game 17 -p 4
      balsim replay --from runs/ek --game 17
    """
    if dataset:
        fixed = [option for param, option in DATASET_FIXES.items() if given(ctx, param)]
        if fixed:
            raise UserError(
                f"{', '.join(fixed)} cannot be given with --from: the dataset "
                "fixes its seed, seats and rules"
            )
        manifest = read_manifest(Path(dataset))
        plan = plan_from_manifest(manifest, Path(dataset) / "manifest.json")
        if game is not None and get_game(game).name != plan.game:
            raise UserError(f"{dataset} holds {plan.game} games, not {game}")
        names = [v.name for v in plan.variants]
        if variant not in names:
            raise UserError(f"{dataset} has no variant '{variant}' (has: {', '.join(names)})")
        if not holds_game(Path(dataset), manifest, game_id, names.index(variant)):
            raise UserError(
                f"{dataset} does not hold game {game_id} (its games are 0 to "
                f"{manifest['n_games'] - 1:,}"
                + (
                    ""
                    if manifest.get("status") == "complete"
                    else ", those of unfinished chunks missing"
                )
                + ")"
            )
        chosen = plan.variants[names.index(variant)].replicate_rules()
        g, effective = get_game(plan.game), chosen[game_id % len(chosen)]  # its replicate's
    else:
        if game is None:
            raise UserError("name a GAME or give --from DATASET")
        if given(ctx, "variant"):
            raise UserError("--variant needs --from DATASET")
        g, effective = load(game, rules_files, sets)
        plan = Plan(
            game=g.name,
            n_games=game_id + 1,
            n_players=0,
            seats=seat_list(g, players, policy, seats, effective),
            seed=seed,
            chunk_size=1,
            variants=[Variant("base", effective)],
            fixed_seats=fixed_seats,
        )
        plan.n_players = len(plan.seats)
    ids = np.array([game_id], dtype=np.int64)
    seat_ids = seat_policy_ids(g, plan, ids)[0]
    names = {p.id: p.name for p in g.policy_set(effective)}
    click.echo(
        f"{g.name} game {game_id} (seed {plan.seed}), seats: "
        + ", ".join(f"{s}={names[int(i)]}" for s, i in enumerate(seat_ids))
    )
    params = g.prepare(effective, plan.n_players)
    for line in g.replay(params, int(game_seeds(plan.seed, ids)[0]), seat_ids, effective):
        click.echo(line)


# replay options that a dataset fixes, so --from refuses them
DATASET_FIXES = {
    "seed": "--seed",
    "players": "--players",
    "policy": "--policy",
    "seats": "--seats",
    "fixed_seats": "--fixed-seats/--balanced-seats",
    "rules_files": "--rules",
    "sets": "--set",
}
