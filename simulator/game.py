"""The contract every engine follows, and the registry of games.

A game package ``simulator/games/<name>/`` has a module ``game`` exposing ``GAME``, a
:class:`Game` (the package ``__init__`` stays light so policies can import its ``state``).  The runner only
talks to this object:

* ``prepare(rules, n_players) -> params``: a tuple of numpy arrays (picklable, numba-friendly)
  built once per variant from the validated rules.
* ``play(params, seeds, seat_policies) -> tables``: plays ``len(seeds)`` games (``seeds``
  uint64[n], ``seat_policies`` int8[n, n_players] of policy ids) and returns
  ``{"games": {col: array[n]}, "players": {col: array[n, n_players]}, <timeline>: {col: array[m]}}``.
  Timelines carry a ``game_index`` column (0..n-1 within the call).  ``players`` must include
  ``score`` and ``won``; ``games`` must include ``winner_seat``, ``length`` and ``end_reason``.
  Columns listed in ``categories`` are int codes that the runner writes as strings; a column
  given as a ``(codes, labels)`` pair (labels from the rules, e.g. character names) likewise.
* ``replay(params, seed, seat_policies, rules) -> list[str]``: the play-by-play of one game
  (``seat_policies`` int8[n_players]).

The runner adds ``game_id``, ``variant``, ``seed``, ``n_players``, ``seat``, ``policy`` and
``rank``, so engines never deal with them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from simulator import rules as rules_mod
from simulator.errors import UserError

GAME_NAMES = ("ekonos", "karnaxis", "karmaggan")  # every implemented game; each new engine adds itself here


@dataclass(frozen=True)
class Policy:
    id: int
    name: str
    description: str


@dataclass(frozen=True)
class Game:
    name: str
    engine_version: str          # bump on any behaviour change; written into every dataset
    player_counts: range
    default_players: int
    chunk_size: int              # games per worker task and per Parquet part
    length_unit: str             # what games.length counts: "years", "rounds", "turns"
    policies: tuple[Policy, ...]
    check: Callable[[dict], None]              # raises RulesError on impossible values
    prepare: Callable[[dict, int], tuple]
    play: Callable[..., dict]
    replay: Callable[..., list]
    categories: dict[str, tuple[str, ...]] = field(default_factory=dict)
    timelines: tuple[str, ...] = ()

    @property
    def rules_path(self) -> Path:
        return Path(__file__).parent / "games" / self.name / "rules.toml"

    def default_rules(self) -> dict:
        return rules_mod.load_toml(self.rules_path)

    def rules(self, files: tuple[str, ...] = (), sets: tuple[str, ...] = ()) -> dict:
        """Effective rules: defaults + overrides, fully validated."""
        rules = rules_mod.effective_rules(self.default_rules(), files, sets)
        self.check(rules)
        return rules

    def policy(self, name: str) -> Policy:
        for p in self.policies:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.policies)
        raise UserError(f"unknown {self.name} policy '{name}' (known: {known})")


def get_game(name: str) -> Game:
    if name not in GAME_NAMES:
        raise UserError(f"unknown game '{name}' (known: {', '.join(GAME_NAMES)})")
    return importlib.import_module(f"simulator.games.{name}.game").GAME


def policy_knobs(rules: dict, policies: tuple[Policy, ...], knob_names: tuple[str, ...]):
    """float64[n_policies, n_knobs] of each policy's tunable numbers from ``[policies.NAME]``.

    A knob a policy does not list is 0.0; kernels index rows by policy id and columns by the
    game's knob constants.
    """
    import numpy as np

    table = np.zeros((len(policies), len(knob_names)), dtype=np.float64)
    for p in policies:
        for k, knob in enumerate(knob_names):
            table[p.id, k] = float(rules.get("policies", {}).get(p.name, {}).get(knob, 0.0))
    return table
