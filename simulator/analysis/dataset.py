"""A dataset directory opened for analysis: the manifest plus lazy scans of its tables."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import polars as pl

from simulator.core.errors import UserError
from simulator.core.game import GAME_NAMES, Game, get_game
from simulator.run import store
from simulator.run.checks import stored_tables, whole_tasks

CORE_TABLES = ("games", "players")


class Dataset:
    """One ``balsim run``/``sweep`` output folder (DESIGN.md "Batch runner and store").

    ``games``, ``players`` and ``timeline(name)`` are polars LazyFrames over the parts of
    the tasks played, so nothing is read until a query collects, and then only the columns it
    needs.  Opening checks every part against the manifest first (whole, of this dataset,
    planned: :func:`simulator.run.runner.whole_tasks`) and refuses the dataset in one line
    when one is not.  The manifest fixes the player count of every game, so ``players``
    carries it as ``n_players``.
    """

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.manifest = store.read_manifest(self.path)
        self.tasks = sorted(whole_tasks(self.path, self.manifest)[1])
        self._schemas: dict[Path, dict] = {}

    def __repr__(self) -> str:
        return f"Dataset({str(self.path)!r}: {self.game}, {self.n_players} players)"

    @property
    def game(self) -> str:
        return self.manifest["game"]

    @property
    def engine(self) -> Game | None:
        """The game that played this dataset, as this install has it (its analyses, report
        sections and words), or None when it has no such game."""
        return get_game(self.game) if self.game in GAME_NAMES else None

    @property
    def n_players(self) -> int:
        return int(self.manifest["n_players"])

    @cached_property
    def n_games(self) -> int:
        """Games in the dataset, all variants together (counted from the parts' metadata)."""
        return int(self.scan("games").select(pl.len()).collect().item())

    @property
    def length_unit(self) -> str:
        return self.manifest.get("length_unit", "turns")

    @property
    def variants(self) -> list[dict]:
        return self.manifest.get("variants", [])

    @property
    def rules(self) -> dict:
        """Effective rules of the first variant (every variant's are in ``variants``)."""
        return self.variants[0]["rules"] if self.variants else {}

    @property
    def label(self) -> str:
        """Short name for headings: game, player count and folder."""
        return f"{self.game}, {self.n_players} players ({self.path.name})"

    def scan(self, table: str) -> pl.LazyFrame:
        """All parts of ``table``; ``variant`` becomes an Enum (fast group-by and join keys).

        Parts normally share one schema and are scanned as one; when they do not (variants
        that record different ``values`` columns), they are stacked with missing columns null.
        """
        files = self.parts(table)
        if len({tuple(self._part_schema(f).items()) for f in files}) == 1:
            lf = pl.scan_parquet(files)
        else:
            lf = pl.concat([pl.scan_parquet(f) for f in files], how="diagonal_relaxed")
        names = [v["name"] for v in self.variants]
        if names and "variant" in self._schema(table):
            lf = lf.with_columns(pl.col("variant").cast(pl.Enum(names)))
        return lf

    def parts(self, table: str) -> list[Path]:
        """The part files of ``table`` this dataset holds, checked whole and its own when it
        was opened (what to read when reading the Parquet files yourself)."""
        if not self.tasks:
            raise UserError(f"{self.path} holds no games yet")
        return [self.path / table / store.part_name(t) for t in self.tasks]

    def _part_schema(self, file: Path) -> dict:
        if file not in self._schemas:
            self._schemas[file] = dict(pl.read_parquet_schema(file))
        return self._schemas[file]

    def _schema(self, table: str) -> list[str]:
        """Column names of ``table``: the union over its parts, in first-seen order."""
        names: dict[str, None] = {}
        for f in self.parts(table):
            names.update(dict.fromkeys(self._part_schema(f)))
        return list(names)

    @property
    def games(self) -> pl.LazyFrame:
        return self.scan("games")

    @property
    def players(self) -> pl.LazyFrame:
        lf = self.scan("players")
        if "n_players" not in self.columns("players"):
            lf = lf.with_columns(pl.lit(self.n_players, dtype=pl.Int8).alias("n_players"))
        return lf

    @cached_property
    def timelines(self) -> tuple[str, ...]:
        names = stored_tables(self.manifest)
        return tuple(n for n in names if n not in CORE_TABLES and self.tasks)

    def timeline(self, name: str) -> pl.LazyFrame | None:
        """The named timeline, or None when this dataset has none by that name."""
        return self.scan(name) if name in self.timelines else None

    def columns(self, table: str) -> list[str]:
        return self._schema(table)
