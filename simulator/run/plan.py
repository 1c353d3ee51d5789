"""The run plan: what a dataset plays (``Plan``, its rules ``Variant``s), how its seats are
filled, the limits of its task list, and the plan's round trip through the dataset's manifest
(:func:`manifest_for`, :func:`plan_from_manifest`); :mod:`simulator.run.runner` plays it.
"""

from __future__ import annotations

import copy
import platform
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

import simulator
from simulator.core.errors import UserError
from simulator.core.game import Game, get_game
from simulator.core.rng import game_seeds
from simulator.core.seating import Seating, team_mode
from simulator.run import store

MAX_PARTS = 100_000  # parts per table: keeps the task list and the manifest small
MAX_CHUNK = 100_000  # games per task: a chunk's output arrays must fit in memory


@dataclass
class Variant:
    name: str
    rules: dict
    values: dict = field(default_factory=dict)  # varied key -> value, written as columns
    # a field that adapts (docs/ladder.md): each replicate's adapted knob sets (NAME -> table);
    # game g plays those of replicate g mod their number, in place of the same names in rules
    replicates: list[dict] = field(default_factory=list)

    def replicate_rules(self) -> list[dict]:
        """The rules each replicate plays by (``rules`` alone for a variant without)."""
        return [with_knob_sets(self.rules, sets) for sets in self.replicates] or [self.rules]

    def record(self) -> dict:
        """As the manifest holds it (``replicates`` only where there are some)."""
        out = asdict(self)
        if not self.replicates:
            del out["replicates"]
        return out


def with_knob_sets(rules: dict, sets: dict) -> dict:
    """``rules`` carrying the knob sets ``sets`` (NAME -> table), replacing any of their names."""
    out = copy.copy(rules)
    out["policies"] = {**rules.get("policies", {}), **copy.deepcopy(sets)}
    return out


@dataclass
class Plan:
    game: str
    n_games: int
    n_players: int
    seats: list[str]  # the line-up: policy of each seat before seating
    seed: int
    chunk_size: int
    variants: list[Variant]
    fixed_seats: bool = False  # True: the line-up as listed; else balanced orders
    until_ci: float | None = None  # stop once every win-rate interval is narrower than this
    field: str | None = None  # who plays: a rung of the ladder or policies (None: not recorded)

    @property
    def n_chunks(self) -> int:
        return -(-self.n_games // self.chunk_size)

    def tasks(self):
        """(task, variant index, first game id, n games): chunk by chunk, every variant of a
        chunk together, so a run stopped early holds the same games for every variant."""
        for c in range(self.n_chunks):
            first = c * self.chunk_size
            for v in range(len(self.variants)):
                yield (
                    c * len(self.variants) + v,
                    v,
                    first,
                    min(self.chunk_size, self.n_games - first),
                )


def plan_policies(game: Game, plan: Plan) -> tuple:
    """The policies a plan's seats can name: built-ins and the knob sets of its base rules
    (every variant of a plan defines the same sets, so ids agree across variants)."""
    return game.policy_set(plan.variants[0].rules if plan.variants else None)


def plan_seating(plan: Plan) -> Seating:
    """The plan's seating design (see :mod:`simulator.core.seating`)."""
    return Seating.of(plan.seats, plan.fixed_seats, team_mode(v.rules for v in plan.variants))


def seat_policy_ids(game: Game, plan: Plan, game_ids: np.ndarray) -> np.ndarray:
    """int8[n, n_players]: the policy id at each seat of each game under the plan's seating."""
    ids = {p.name: p.id for p in plan_policies(game, plan)}
    lineup = np.array([ids[name] for name in plan.seats], dtype=np.int8)
    positions = plan_seating(plan).positions(game_seeds(plan.seed, game_ids), game_ids)
    return lineup[positions]


def table_names(game: Game) -> tuple[str, ...]:
    return ("games", "players") + game.timelines


def manifest_for(plan: Plan, game: Game, status: str) -> dict:
    import numba

    return {
        "format": store.FORMAT,
        "balsim_version": simulator.__version__,
        "engine_version": game.engine_version,
        "game": plan.game,
        "n_games": plan.n_games,
        "n_players": plan.n_players,
        "seats": plan.seats,
        "fixed_seats": plan.fixed_seats,
        "seating": plan_seating(plan).record(),
        "field": plan.field,
        "seed": plan.seed,
        "chunk_size": plan.chunk_size,
        "until_ci": plan.until_ci,
        "length_unit": game.length_unit,
        "variants": [v.record() for v in plan.variants],
        "tables": list(table_names(game)),
        "status": status,
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "pyarrow": pa.__version__,
        },
    }


def plan_from_manifest(manifest: dict, where: Path | str = "the manifest") -> Plan:
    """The plan a dataset was started with (``n_games`` is the budget of an --until-ci run);
    ``where`` names the manifest in the error when it is damaged."""
    try:
        fields = {k: manifest[k] for k in ("game", "n_players", "seats", "seed", "chunk_size")}
        plan = Plan(
            n_games=manifest.get("games_budget", manifest["n_games"]),
            fixed_seats=recorded_fixed_seats(manifest),
            until_ci=manifest.get("until_ci"),
            field=manifest.get("field"),
            variants=[Variant(**v) for v in manifest["variants"]],
            **fields,
        )
    except KeyError as e:
        raise store.StoreError(f"{where} is damaged (no {e})") from None
    except TypeError as e:
        raise store.StoreError(f"{where} is damaged ({e})") from None
    counts = {"n_games": 1, "n_players": 1, "seed": 0, "chunk_size": 1}
    for name, least in counts.items():  # a hand edit could make them anything
        value = getattr(plan, name)
        if type(value) is not int or value < least:
            raise store.StoreError(f"{where} is damaged ({name} is {value!r})")
    if type(manifest["n_games"]) is not int:
        raise store.StoreError(f"{where} is damaged (n_games is {manifest['n_games']!r})")
    if not plan.variants:
        raise store.StoreError(f"{where} is damaged (no variants)")
    return plan


def recorded_fixed_seats(manifest: dict) -> bool:
    """Whether a dataset seats its line-up as listed; one written with rotated seats by an older
    balsim cannot be continued or replayed (its seat orders are no longer made)."""
    if "fixed_seats" in manifest:
        return bool(manifest["fixed_seats"])
    if manifest.get("rotate_seats"):
        raise UserError(
            "this dataset was written with rotated seats by an older balsim; "
            "play it again with --force"
        )
    return True


def resumable_plan(out: Path) -> Plan:
    """The plan recorded in ``out``, refused when this balsim's engine plays other games."""
    manifest = store.read_manifest(out)
    plan = plan_from_manifest(manifest, out / store.MANIFEST)
    game = get_game(plan.game)
    if manifest.get("engine_version") != game.engine_version:
        raise UserError(
            f"{out} was played by {game.name} engine {manifest.get('engine_version')}, "
            f"this balsim has engine {game.engine_version}: its games would differ; "
            "start again with --force"
        )
    return plan


def check_size(plan: Plan) -> None:
    """Refuse a plan whose task list or chunks could not fit in memory, before anything runs."""
    if not 1 <= plan.chunk_size <= MAX_CHUNK:
        raise UserError(f"--chunk-size must be 1..{MAX_CHUNK:,}, not {plan.chunk_size:,}")
    parts = plan.n_chunks * len(plan.variants)
    if plan.n_games < 1 or parts > MAX_PARTS:
        raise UserError(
            f"-n {plan.n_games:,} in chunks of {plan.chunk_size:,} games makes "
            f"{parts:,} parts; at most {MAX_PARTS:,} (raise --chunk-size or lower -n)"
        )


def resume_command(plan: Plan, shown: Path) -> str:
    return f"balsim run {plan.game} --out {shlex.quote(str(shown))} --resume"
