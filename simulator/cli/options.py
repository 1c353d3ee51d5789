"""Option bundles shared by several commands, and turning them into library objects."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import click
from click.core import ParameterSource

from simulator.core.errors import UserError
from simulator.core.game import GAME_NAMES, Game, get_game
from simulator.core.limits import MAX_GAMES, MAX_JOBS, MAX_MARGIN_POINTS, Range
from simulator.run.plan import MAX_CHUNK, MAX_PARTS
from simulator.run.workers import WORKER_TIMEOUT_SECONDS


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


class Bounded:
    """A numeric option's type: every value checked against its :class:`Range` (finite, in
    range: :meth:`Range.check`, the check every number a user gives passes), which ``--help``
    shows beside the option."""

    bounds: Range

    def convert(self, value, param, ctx):
        try:
            return self.bounds.check(value)
        except UserError as e:
            self.fail(str(e), param, ctx)

    def _describe_range(self) -> str:
        return str(self.bounds)


class BoundedInt(Bounded, click.IntRange):
    pass


class BoundedFloat(Bounded, click.FloatRange):
    pass


def number(low, high, *, integer=False, low_open=False, high_open=False) -> click.ParamType:
    """The type of a numeric option: ``integer`` or real, from ``low`` to ``high`` (each
    included unless open), never nan or infinite."""
    kind = BoundedInt if integer else BoundedFloat
    checked = kind(min=low, max=high, min_open=low_open, max_open=high_open)
    checked.bounds = Range(low, high, integer, low_open, high_open)
    return checked


def count(least: int = 1, most: int = MAX_GAMES) -> click.ParamType:
    """A whole number of games (or of anything else) from ``least`` to ``most``."""
    return number(least, most, integer=True)


class Jobs(click.IntRange):
    """``--jobs``: -1 (every core) or a number of worker processes."""

    def __init__(self):
        super().__init__(min=-1, max=MAX_JOBS)

    def convert(self, value, param, ctx):
        jobs = click.INT.convert(value, param, ctx)
        if jobs != -1 and not 1 <= jobs <= MAX_JOBS:
            self.fail(f"{value} is not {self._describe_range()}", param, ctx)
        return jobs

    def _describe_range(self) -> str:
        return f"-1 (every core) or in the range 1<=x<={MAX_JOBS:,}"


class PlayerCount(click.IntRange):
    """``--players``: each game's own range, checked with the game (:func:`seat_list`) and
    listed in ``--help`` (read from the games only when help is shown)."""

    def _describe_range(self) -> str:
        counts = (get_game(name).player_counts for name in GAME_NAMES)
        return "by game: " + ", ".join(
            f"{name} {c.start}-{c.stop - 1}" for name, c in zip(GAME_NAMES, counts)
        )


def game_argument(f):
    return click.argument("game", type=GameName(), metavar="GAME")(f)


def margin_option(what: str):
    """``--margin POINTS`` (default 2): the equivalence margin of a verdict, in points of win
    rate; ``what`` ends the help ("... only when ... within ±POINTS")."""
    return click.option(
        "--margin",
        type=number(0, MAX_MARGIN_POINTS, low_open=True),
        default=2.0,
        show_default=True,
        metavar="POINTS",
        help=f"Equivalence margin in points of win rate: {what}.",
    )


# The options many commands share, each defined once: the same name, type, range and help
# wherever it appears.
players_option = click.option(
    "-p",
    "--players",
    type=PlayerCount(),
    help="Number of players [default: the game's usual count].",
)
jobs_option = click.option(
    "-j",
    "--jobs",
    type=Jobs(),
    default=-1,
    show_default=True,
    help="Worker processes; -1 uses every core.",
)
seed_option = click.option(
    "--seed",
    type=number(0, 2**64 - 1, integer=True),
    default=1,
    show_default=True,
    help="Master seed; game k's seed is hash(seed, k).",
)
quiet_option = click.option("-q", "--quiet", is_flag=True, help="No progress bar.")


def games_option(
    help: str, least: int = 1, default: int | None = None, dest="n_games", most=MAX_GAMES
):
    """``-n/--games``: how many games, in the sense ``help`` gives (per variant, per cell, a
    budget), from ``least`` to ``most``."""
    return click.option(
        "-n",
        "--games",
        dest,
        type=count(least, most),
        metavar="N",
        default=default,
        show_default=default is not None,
        help=help,
    )


def charts_option(f):
    """``--charts DIR``: every chart the command draws also written there, as SVG and as PNG
    at twice its size, named after its section (for a slide deck); checked as it is parsed,
    before any work (never into a dataset, never where nothing can be written)."""
    return click.option(
        "--charts",
        type=folder_path(),
        default=None,
        metavar="DIR",
        callback=checked_charts,
        help="Also write every chart as SVG and as 2x PNG into DIR, named after its section.",
    )(f)


def checked_charts(ctx, param, value):
    from simulator.run.outputs import check_charts_dir

    if value is not None:
        check_charts_dir(Path(value))
    return value


def claim_result(out, force: bool, tool: str, own_name: bool = False) -> Path:
    """The folder ``out`` checked for ``tool``'s result by the output rule
    (:mod:`simulator.run.outputs`: ``own_name`` when the command chose the name) and locked
    until the command ends, so a second writer is refused; returns the absolute path."""
    from simulator.run.outputs import Claim

    claimed = Claim(Path(out), tool, force, own_name)
    return click.get_current_context().with_resource(claimed)


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
        "--seats",
        metavar="P1,P2,..",
        help="Policy of each seat, starting player first (as many players as it names).",
    )(f)
    f = click.option(
        "--policy",
        metavar="NAME",
        help="One policy for every seat (default: the scripted policies in turn).",
    )(f)
    return players_option(f)


def run_options(f):
    f = quiet_option(f)
    f = click.option(
        "--chunk-size",
        type=count(1, MAX_CHUNK),
        help="Games per worker task and per Parquet part (default per game).",
    )(f)
    f = jobs_option(f)
    f = seed_option(f)
    f = click.option(
        "--until-ci",
        type=number(0, 1, low_open=True),
        metavar="WIDTH",
        help="Keep playing until every win-rate 95% interval (by seat and by "
        "policy, in every variant) is narrower than WIDTH; -n is then the "
        "budget.",
    )(f)
    # a dataset streams its games to disk: as many as its parts can hold
    return games_option(
        f"Games to play per variant [default: {DEFAULT_GAMES:,}; with --until-ci, a budget of "
        f"{DEFAULT_BUDGET:,}].",
        most=MAX_PARTS * MAX_CHUNK,
    )(f)


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
    """``--backend joblib|dask``, ``--scheduler tcp://HOST:PORT`` (default: the environment's
    BALSIM_SCHEDULER) and ``--worker-timeout``: where a command's games run.  The command gets
    one argument for both, ``scheduler``: the dask scheduler's address, or None for local
    worker processes; it runs with one pool of workers (:func:`simulator.run.workers
    .command_pool`), quiet when the command is (``--quiet``)."""

    @functools.wraps(f)
    def command(*args, backend, scheduler, worker_timeout, **kwargs):
        from simulator.run.workers import command_pool

        with command_pool(bool(kwargs.get("quiet")), worker_timeout):
            return f(*args, scheduler=chosen_scheduler(backend, scheduler), **kwargs)

    command = click.option(
        "--worker-timeout",
        type=count(1, 86_400),
        default=WORKER_TIMEOUT_SECONDS,
        show_default=True,
        metavar="SECONDS",
        help="With --scheduler: how long to wait for the cluster's first worker before giving up.",
    )(command)
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
    """Worker processes for --jobs (checked by its type, :class:`Jobs`): -1 is every core; more
    than the cores is capped, saying so (a cluster has its own workers: ``scheduler``)."""
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
