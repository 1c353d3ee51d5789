"""Option bundles shared by several commands, and turning them into library objects."""

from __future__ import annotations

import functools
import os

import click
from click.core import ParameterSource

from simulator.core.errors import UserError
from simulator.core.game import Game, get_game
from simulator.run.runner import MAX_CHUNK


class GameName(click.ParamType):
    name = "game"

    def convert(self, value, param, ctx):
        return get_game(value).name  # UserError naming the known games


DEFAULT_GAMES = 100_000
DEFAULT_BUDGET = 10_000_000


def games_to_play(n_games: int | None, until_ci: float | None) -> int:
    return n_games or (DEFAULT_BUDGET if until_ci else DEFAULT_GAMES)


class PathName(click.Path):
    """A path option or argument that refuses the empty string (which would name the
    current folder, or let a default take its place, without the user meaning either)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("is empty; name a file or folder", param, ctx)
        return super().convert(value, param, ctx)


def file_path(**kwargs):
    return PathName(dir_okay=False, **kwargs)


def folder_path(**kwargs):
    return PathName(file_okay=False, **kwargs)


class Width(click.FloatRange):
    """An interval width in (0, 1]; unlike FloatRange it also refuses nan."""

    def __init__(self):
        super().__init__(min=0, min_open=True, max=1)

    def convert(self, value, param, ctx):
        width = super().convert(value, param, ctx)
        if width != width:
            self.fail(f"{value!r} is not a width in (0, 1]", param, ctx)
        return width


def game_argument(f):
    return click.argument("game", type=GameName(), metavar="GAME")(f)


def margin_option(what: str):
    """``--margin POINTS`` (default 2): the equivalence margin of a verdict, in points of win
    rate; ``what`` ends the help ("... only when ... within ±POINTS")."""
    return click.option(
        "--margin",
        type=click.FloatRange(min=0, min_open=True),
        default=2.0,
        show_default=True,
        metavar="POINTS",
        help=f"Equivalence margin in points of win rate: {what}.",
    )


def charts_option(f):
    """``--charts DIR``: every chart the command draws also written there, as SVG and as PNG
    at twice its size, named after its section (for a slide deck)."""
    return click.option(
        "--charts",
        type=folder_path(),
        default=None,
        metavar="DIR",
        help="Also write every chart as SVG and as 2x PNG into DIR, named after its section.",
    )(f)


def rules_options(f):
    f = click.option(
        "--set",
        "sets",
        multiple=True,
        metavar="KEY=VALUE",
        help="Override one rules value (TOML syntax), e.g. --set setup.start_money=5. Repeatable.",
    )(f)
    f = click.option(
        "--rules",
        "rules_files",
        multiple=True,
        metavar="FILE",
        type=file_path(),
        help="TOML file merged over the default rules. Repeatable.",
    )(f)
    return f


def seat_options(f):
    f = click.option(
        "--fixed-seats/--balanced-seats",
        "fixed_seats",
        default=False,
        show_default=True,
        help="Seat the policies as listed in every game, instead of a balanced "
        "permutation per game (every seat and neighbour equally often).",
    )(f)
    f = click.option(
        "--seats", metavar="P1,P2,..", help="Policy of each seat, starting player first."
    )(f)
    f = click.option(
        "--policy",
        metavar="NAME",
        help="One policy for every seat (default: the scripted policies in turn).",
    )(f)
    f = click.option(
        "-p",
        "--players",
        type=int,
        help="Number of players (default: the game's usual count, or the length of --seats).",
    )(f)
    return f


def run_options(f):
    f = click.option("-q", "--quiet", is_flag=True, help="No progress bar.")(f)
    f = click.option(
        "--chunk-size",
        type=click.IntRange(min=1, max=MAX_CHUNK),
        help="Games per worker task and per Parquet part (default per game).",
    )(f)
    f = click.option(
        "-j",
        "--jobs",
        type=int,
        default=-1,
        show_default=True,
        help="Worker processes; -1 uses every core.",
    )(f)
    f = click.option(
        "--seed",
        type=click.IntRange(min=0, max=2**64 - 1),
        default=1,
        show_default=True,
        help="Master seed; game k's seed is hash(seed, k).",
    )(f)
    f = click.option(
        "--until-ci",
        type=Width(),
        metavar="WIDTH",
        help="Keep playing until every win-rate 95%% interval (by seat and by "
        "policy, in every variant) is narrower than WIDTH; -n is then the "
        "budget.",
    )(f)
    f = click.option(
        "-n",
        "--games",
        "n_games",
        type=click.IntRange(min=1),
        help=f"Games to play per variant [default: {DEFAULT_GAMES:,}; with "
        f"--until-ci, a budget of {DEFAULT_BUDGET:,}].",
    )(f)
    return f


def store_options(f):
    f = click.option("--force", is_flag=True, help="Overwrite an existing dataset in OUT.")(f)
    f = click.option(
        "--resume",
        is_flag=True,
        help="Finish the interrupted run in OUT (its manifest holds the plan).",
    )(f)
    f = click.option(
        "-o", "--out", type=folder_path(), help="Dataset folder (default: runs/GAME)."
    )(f)
    return f


SCHEDULER_VARIABLE = "BALSIM_SCHEDULER"


def cluster_options(f):
    """``--backend joblib|dask`` and ``--scheduler tcp://HOST:PORT`` (default: the environment's
    BALSIM_SCHEDULER): where a command's games run.  The command gets one argument for both,
    ``scheduler``: the dask scheduler's address, or None for local worker processes."""

    @functools.wraps(f)
    def command(*args, backend, scheduler, **kwargs):
        return f(*args, scheduler=chosen_scheduler(backend, scheduler), **kwargs)

    command = click.option(
        "--scheduler",
        envvar=SCHEDULER_VARIABLE,
        metavar="tcp://HOST:PORT",
        help=f"Play on the dask.distributed cluster of this scheduler (implies --backend dask) "
        f"[default: ${SCHEDULER_VARIABLE}].",
    )(command)
    return click.option(
        "--backend",
        type=click.Choice(["joblib", "dask"]),
        help="Where games run: local processes (--jobs) or a dask cluster (--scheduler) "
        "[default: dask when a scheduler is given, else joblib].",
    )(command)


def chosen_scheduler(backend: str | None, scheduler: str | None) -> str | None:
    """The scheduler's address when the games run on a dask cluster, else None.  An explicit
    ``--backend joblib`` plays locally even when BALSIM_SCHEDULER names a cluster."""
    from_environment = (
        click.get_current_context().get_parameter_source("scheduler") == ParameterSource.ENVIRONMENT
    )
    if backend == "joblib":
        if scheduler and not from_environment:
            raise UserError("--scheduler plays on a dask cluster: leave out --backend joblib")
        return None
    if not scheduler and backend == "dask":
        raise UserError(
            f"--backend dask needs --scheduler tcp://HOST:PORT (or {SCHEDULER_VARIABLE})"
        )
    return scheduler or None


def seat_list(
    game: Game,
    players: int | None,
    policy: str | None,
    seats: str | None,
    rules: dict | None = None,
) -> list[str]:
    """Policy name of each seat from --players/--policy/--seats, checked against the game's
    policies under ``rules`` (which may add named knob sets)."""
    if policy and seats:
        raise UserError("give --policy or --seats, not both")
    names = [s.strip() for s in seats.split(",")] if seats else None
    if names and players is not None and players != len(names):
        raise UserError(f"--seats names {len(names)} policies but --players is {players}")
    n = len(names) if names else (game.default_players if players is None else players)
    if n not in game.player_counts:
        raise UserError(
            f"{game.name} is played by {game.player_counts.start}-"
            f"{game.player_counts.stop - 1} players, not {n}"
        )
    if names is None:
        if policy:
            names = [policy] * n
        else:
            scripted = game.scripted_policies
            names = [scripted[i % len(scripted)] for i in range(n)]
    for name in names:
        game.policy(name, rules)
    return names


def jobs_count(jobs: int, scheduler: str | None = None) -> int:
    """Worker processes for --jobs: -1 is every core; more than the cores is capped, saying so
    (a cluster has its own workers: ``scheduler``)."""
    if jobs == 0 or jobs < -1:
        raise UserError("--jobs must be a positive number or -1 (every core)")
    cores = os.cpu_count() or 1
    if jobs > cores and not scheduler:
        click.echo(
            f"note: --jobs {jobs} is more than this machine's {cores} cores; using {cores}",
            err=True,
        )
    return cores if jobs == -1 or (jobs > cores and not scheduler) else jobs


def load(game_name: str, rules_files, sets) -> tuple[Game, dict]:
    game = get_game(game_name)
    return game, game.rules(tuple(rules_files), tuple(sets))


def given(ctx: click.Context, *params: str) -> bool:
    """Whether any of ``params`` was given on the command line (not left at its default)."""
    return any(ctx.get_parameter_source(p) not in (None, ParameterSource.DEFAULT) for p in params)
