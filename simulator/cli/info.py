"""Commands that explain a game: rules, policies, replay."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from simulator.cli import cli
from simulator.cli.options import game_argument, load, rules_options, seat_list, seat_options
from simulator.errors import UserError
from simulator.game import get_game
from simulator.rng import game_seeds
from simulator.rules import to_toml
from simulator.runner import Plan, Variant, plan_from_manifest, seat_policy_ids
from simulator.store import read_manifest


@cli.command()
@game_argument
@rules_options
def rules(game, rules_files, sets):
    """Print the effective rules of GAME as TOML (defaults + --rules + --set)."""
    _, effective = load(game, rules_files, sets)
    click.echo(to_toml(effective), nl=False)


@cli.command()
@game_argument
def policies(game):
    """List the policies of GAME with their descriptions and tunable knobs."""
    g = get_game(game)
    knobs = g.default_rules().get("policies", {})
    width = max(len(p.name) for p in g.policies)
    for p in sorted(g.policies, key=lambda p: p.id):
        click.echo(f"{p.name:<{width}}  {p.description}")
        for key, value in knobs.get(p.name, {}).items():
            click.echo(f"{'':<{width}}    policies.{p.name}.{key} = {value}")


@cli.command()
@click.argument("game", required=False)
@click.option("--game-id", "--game", "game_id", type=click.IntRange(min=0), required=True,
              help="Which game of the run (its game_id).")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=1, show_default=True,
              help="Master seed of the run.")
@click.option("--from", "dataset", type=click.Path(file_okay=False),
              help="Replay a game of this dataset (its rules, seats and seed).")
@click.option("--variant", default="base", show_default=True,
              help="With --from: which variant of the dataset.")
@seat_options
@rules_options
def replay(game, game_id, seed, dataset, variant, players, policy, seats, fixed_seats,
           rules_files, sets):
    """Print the play-by-play of one game.

    \b
    Examples:
      balsim replay ekonos --seed 1 --game 17 -p 4
      balsim replay --from runs/ek --game 17
    """
    if dataset:
        plan = plan_from_manifest(read_manifest(Path(dataset)))
        chosen = [v for v in plan.variants if v.name == variant]
        if not chosen:
            raise UserError(f"{dataset} has no variant '{variant}' "
                            f"(has: {', '.join(v.name for v in plan.variants)})")
        g, effective = get_game(plan.game), chosen[0].rules
    else:
        if game is None:
            raise UserError("name a GAME or give --from DATASET")
        g, effective = load(game, rules_files, sets)
        plan = Plan(game=g.name, n_games=game_id + 1, n_players=0, seats=seat_list(
            g, players, policy, seats), seed=seed, chunk_size=1,
            variants=[Variant("base", effective)], fixed_seats=fixed_seats)
        plan.n_players = len(plan.seats)
    ids = np.array([game_id], dtype=np.int64)
    seat_ids = seat_policy_ids(g, plan, ids)[0]
    names = {p.id: p.name for p in g.policies}
    click.echo(f"{g.name} game {game_id} (seed {plan.seed}), seats: "
               + ", ".join(f"{s}={names[int(i)]}" for s, i in enumerate(seat_ids)))
    params = g.prepare(effective, plan.n_players)
    for line in g.replay(params, int(game_seeds(plan.seed, ids)[0]), seat_ids, effective):
        click.echo(line)
