"""The contract every engine follows, and the registry of games.

A game package ``simulator/games/<name>/`` has a module ``game`` exposing ``GAME``, a
:class:`Game` (the package ``__init__`` stays light so policies can import its ``state``).  The
runner only talks to this object:

* ``prepare(rules, n_players) -> params``: a tuple of numpy arrays (picklable, numba-friendly)
  built once per variant from the validated rules.
* ``play(params, seeds, seat_policies) -> tables``: plays ``len(seeds)`` games (``seeds``
  uint64[n], ``seat_policies`` int8[n, n_players] of policy ids) and returns
  ``{"games": {col: array[n]}, "players": {col: array[n, n_players]}, <timeline>: {col:
  array[m]}}``. Timelines carry a ``game_index`` column (0..n-1 within the call).  ``players`` must
  include ``score`` and ``won``; ``games`` must include ``winner_seat``, ``length`` and
  ``end_reason``. Columns listed in ``categories`` are int codes that the runner writes as strings;
  a column given as a ``(codes, labels)`` pair (labels from the rules, e.g. character names)
  likewise.
* ``replay(params, seed, seat_policies, rules) -> list[str]``: the play-by-play of one game
  (``seat_policies`` int8[n_players]).

The runner adds ``game_id``, ``variant``, ``seed``, ``n_players``, ``seat``, ``policy`` and
``rank``, so engines never deal with them.

What a later layer needs from a game (its analyses, its report sections) is in the game's
module named after that layer (:data:`simulator.GAME_HOOKS`), which that layer imports on use
(:meth:`Game.hook`): no shared module names a game.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from simulator import GAME_HOOKS
from simulator.core import rules as rules_mod
from simulator.core.errors import UserError

GAME_NAMES = (
    "ekonos",
    "karnaxis",
    "karmaggan",
    "pig",
)  # every implemented game; each new engine adds itself here
SEARCH_POLICY = "search"  # each game's search player: costly, so never a default seat
LEARNED_POLICY = "learned"  # a game's learned player: its weights are data, never a default seat
WEIGHTS_KNOB = "weights"  # the learned player's knob: a list (policy_knobs)
LINEAR, NETWORK = "linear", "network"  # a learned player's value models (Game.learned_model)
LEARNED_VALUE_KNOB = "learned_value"  # a search player's knob: it reads the learned player


@dataclass(frozen=True)
class Policy:
    """A policy a seat can play: a built-in behaviour, or a named knob set over one.

    ``id`` indexes the knobs table and the seat-policy arrays; ``behaviour`` is the id of the
    built-in policy whose code it runs (its own id for a built-in)."""

    id: int
    name: str
    description: str
    behaviour: int = -1

    def __post_init__(self):
        if self.behaviour < 0:
            object.__setattr__(self, "behaviour", self.id)


@dataclass(frozen=True)
class Leader:
    """What makes a player the leader as a game goes, for the runaway-leader analysis: the
    largest ``value`` column of the ``timeline`` table at each ``time`` (e.g. cash by year);
    ``words`` names the value in the report ("cash")."""

    timeline: str
    time: str
    value: str
    words: str


@dataclass(frozen=True)
class StudyPlan:
    """What the default study plays of a game (``simulator/studies/study.py``, which explains
    how the sizes are chosen; ``balsim study --scale K`` multiplies every number of games).
    A 0 leaves that part of the study out for this game; ``in_study=False`` leaves the whole game
    out (a game kept as a template or a known-answer check, not for its designer's findings)."""

    in_study: bool = True
    n_games: int = 20_000  # games per dataset and variant
    player_counts: tuple[int, ...] = ()  # () or none the game allows: its default count
    # rule variants played beside the printed rules at ``variant_players`` (a sweep on the
    # same seeds): name -> rules overrides in ``--set`` syntax
    variants: dict[str, tuple[str, ...]] = field(default_factory=dict)
    variant_players: tuple[int, ...] = ()
    # the sensitivity screen's range ("LOW:HIGH") of an ASSUMED key whose printed value is 0
    screen_spans: dict[str, str] = field(default_factory=dict)
    # the strong field: its games per variant without a search seat, and with one
    strong_games: int = 0
    strong_search_games: int = 0
    # the challenge of a strong field's dominant policy: games that tune each challenger, and
    # the search seat's games
    challenge_games: int = 0
    challenge_search_games: int = 0
    skill_games: int = 0  # the rated ladder: the most games it plays


@dataclass(frozen=True)
class Game:
    name: str
    engine_version: str  # bump on any behaviour change; written into every dataset
    player_counts: range
    default_players: int
    chunk_size: int  # games per worker task and per Parquet part
    length_unit: str  # what games.length counts: "years", "rounds", "turns"
    policies: tuple[Policy, ...]  # the built-in behaviours, ids 0..k-1
    check: Callable[[dict], None]  # raises RulesError on impossible values
    prepare: Callable[[dict, int], tuple]
    play: Callable[..., dict]
    replay: Callable[..., list]
    categories: dict[str, tuple[str, ...]] = field(default_factory=dict)
    timelines: tuple[str, ...] = ()
    knob_names: tuple[str, ...] = ()  # the policies' tunable numbers (KNOBS)
    search_limits: tuple[tuple[str, int, int], ...] = ()  # (knob, low, high) of the search budget
    # the features the `learned` player's value weighs, in the order of its weights (none: the
    # game has no learned player), and sample(params, seeds, seat_policies) -> (rows, columns):
    # the positions of games played, for simulator.experiments.learn to fit the weights on
    learned_features: tuple[str, ...] = ()
    sample: Callable[..., tuple] | None = None
    # the learned player's value model (simulator.experiments.learn.VALUE_MODELS): LINEAR, the
    # features' weighted sum, or NETWORK, a layer of tanh units over them (its weights a list
    # [hidden units, ...]: network_length); either game reads linear weights
    learned_model: str = LINEAR
    # the fit's default budget where simulator.experiments.learn.LearnBudget's costs too much
    # (its teacher's playouts): (field, value) pairs in its place
    learn_budget: tuple[tuple[str, int], ...] = ()
    # a player count's own fields over learn_budget: (n_players, ((field, value), ...)) pairs,
    # the field "model" giving that count's value model in place of learned_model
    learn_budget_at: tuple[tuple[int, tuple[tuple[str, int | str], ...]], ...] = ()
    # choices(rules, key, n_players): the alternatives of a categorical rules key that the game
    # can name (Karmaggän's mirrored start layouts), [] when the key is not in play at that
    # player count, None when the game has none; RulesError when it cannot be varied (why)
    choices: Callable[[dict, str, int], list | None] | None = None
    # what a player can do ("action") or meet ("event") in a game: (kind, label, the players
    # column that counts it per player-game, above 0 when it happened); the report's table of
    # the rules a field never exercises (simulator/report/exercise.py)
    exercised: tuple[tuple[str, str, str], ...] = ()
    display_name: str = ""  # the game's name as printed ("" : the name capitalised)
    # what players.score holds, with its unit, for charts ("final cash (USD)"); None when it is
    # only 1 for a win and 0 otherwise, so there is no score to describe
    score_unit: str | None = "score"
    leader: Leader | None = None  # the runaway-leader analysis, where the game records one
    study: StudyPlan = field(default_factory=StudyPlan)
    adapt_games: int = 40_000  # games one variant's adaptation may play (docs/ladder.md)
    compile_seconds: int = 0  # a cold compile of the engine, CPU s: slowest compiled first

    def __post_init__(self):
        if not self.display_name:
            object.__setattr__(self, "display_name", self.name.capitalize())

    @property
    def scripted_policies(self) -> list[str]:
        """The built-in scripted policies, in id order: the default seats (neither `random`,
        id 0, nor the search or the learned player)."""
        return [
            p.name
            for p in sorted(self.policies, key=lambda p: p.id)
            if p.id != 0 and p.name not in (SEARCH_POLICY, LEARNED_POLICY)
        ]

    @property
    def rules_path(self) -> Path:
        return Path(__file__).parent.parent / "games" / self.name / "rules.toml"

    def hook(self, layer: str):
        """The game's module for ``layer`` (``simulator.games.<name>.<layer>``: one of
        :data:`simulator.GAME_HOOKS`), or None when the game has none."""
        if layer not in GAME_HOOKS:
            raise ValueError(f"no game hook for the layer {layer!r}")
        module = f"simulator.games.{self.name}.{layer}"
        if importlib.util.find_spec(module) is None:
            return None
        return importlib.import_module(module)

    def default_rules(self) -> dict:
        return rules_mod.load_toml(self.rules_path)

    def rules(self, files: tuple[str, ...] = (), sets: tuple[str, ...] = ()) -> dict:
        """Effective rules: defaults + overrides, fully validated."""
        rules = rules_mod.effective_rules(self.default_rules(), files, sets)
        self.validate(rules)
        return rules

    def validate(self, rules: dict, base: dict | None = None) -> None:
        """Raise RulesError for impossible values; a variant of ``base`` must keep its policies
        (their ids are shared by every variant of a dataset)."""
        self.check(rules)
        check_knob_sets(self, rules)
        check_search_knobs(self, rules)
        if base is not None and (
            [p.name for p in self.policy_set(rules)] != [p.name for p in self.policy_set(base)]
        ):
            raise rules_mod.RulesError("policies", "a variant cannot add or remove knob sets")

    def policy_set(self, rules: dict | None = None) -> tuple[Policy, ...]:
        """Every policy a seat can play under ``rules``: the built-ins, then each named knob
        set ``[policies.NAME]`` with ``base = "BUILTIN"``, in the order the rules list them."""
        rules = self.default_rules() if rules is None else rules
        out = list(sorted(self.policies, key=lambda p: p.id))
        builtin = {p.name: p for p in out}
        for name, table in rules.get("policies", {}).items():
            if isinstance(table, dict) and "base" in table and name not in builtin:
                base = builtin[table["base"]]
                out.append(
                    Policy(
                        len(out),
                        name,
                        table.get("description", f"{base.name} with its own knobs"),
                        base.id,
                    )
                )
        return tuple(out)

    def policy(self, name: str, rules: dict | None = None) -> Policy:
        policies = self.policy_set(rules)
        for p in policies:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in policies)
        raise UserError(f"unknown {self.name} policy '{name}' (known: {known})")


def get_game(name: str) -> Game:
    if name not in GAME_NAMES:
        raise UserError(f"unknown game '{name}' (known: {', '.join(GAME_NAMES)})")
    return importlib.import_module(f"simulator.games.{name}.game").GAME


BLUNDER_KNOB = "blunder"  # every game's handicap knob (policies.common.HANDICAP_KNOBS)
KNOB_BEHAVIOUR = 0  # column 0 of the knobs table: the built-in behaviour a policy runs


def knob_values(rules: dict, policies: tuple[Policy, ...], policy: Policy) -> dict:
    """The knobs of one policy: its base's ``[policies.BASE]`` values, overridden by its own."""
    tables = rules.get("policies", {})
    base = policies[policy.behaviour].name
    values = dict(tables.get(base, {}))
    if policy.name != base:
        values.update(tables.get(policy.name, {}))
    return {k: v for k, v in values.items() if k not in ("base", "description")}


def policy_knobs(rules: dict, policies: tuple[Policy, ...], knob_names: tuple[str, ...]):
    """float64[n_policies, 1 + n_knobs]: column KNOB_BEHAVIOUR holds each policy's behaviour
    id, column 1 + k its knob ``knob_names[k]`` (0.0 where not set).

    Kernels index rows by policy id.  A knob given as a string names another policy (e.g. a
    search player's ``rollout_policy``) and is stored as that policy's id.  A list (a learned
    player's ``weights``) is stored as its length, its numbers in the columns after the last
    knob's (the table as wide as the longest list needs): no kernel takes another argument."""
    import numpy as np

    ids = {p.name: p.id for p in policies}
    values = {p.id: knob_values(rules, policies, p) for p in policies}
    block = max(
        (len(v) for vs in values.values() for v in vs.values() if isinstance(v, list)), default=0
    )
    first = 1 + len(knob_names)
    table = np.zeros((len(policies), first + block), dtype=np.float64)
    for p in policies:
        table[p.id, KNOB_BEHAVIOUR] = p.behaviour
        for k, knob in enumerate(knob_names):
            value = values[p.id].get(knob, 0.0)
            if isinstance(value, list):
                table[p.id, 1 + k] = len(value)
                table[p.id, first : first + len(value)] = value
            else:
                table[p.id, 1 + k] = ids[value] if isinstance(value, str) else float(value)
    return table


def check_knob_sets(game: Game, rules: dict) -> None:
    """Named knob sets name a built-in base and only the game's knobs; a knob naming a policy
    names one that exists."""
    builtin = {p.name for p in game.policies}
    tables = rules.get("policies", {})
    for name, table in tables.items():
        key = f"policies.{name}"
        rules_mod.require(rules, key, isinstance(table, dict), "expected a table")
        if name in builtin:
            continue
        rules_mod.require(
            rules,
            f"{key}.base",
            isinstance(table.get("base"), str) and table["base"] in builtin,
            f"a knob set needs base = one of {', '.join(sorted(builtin))}",
        )
    names = {p.name for p in game.policy_set(rules)}
    for name, table in tables.items():
        for knob, value in table.items():
            key = f"policies.{name}.{knob}"
            if knob in ("base", "description"):
                rules_mod.require(rules, key, isinstance(value, str), "expected a string")
                continue
            rules_mod.require(
                rules,
                key,
                knob in game.knob_names,
                f"unknown knob (knobs: {', '.join(game.knob_names)})",
            )
            if knob == WEIGHTS_KNOB:
                check_weights(game, rules, key, value)
                continue
            rules_mod.require(
                rules, key, is_number(value) or isinstance(value, str), "expected a number"
            )
            if isinstance(value, str):
                rules_mod.require(rules, key, value in names, f"no policy named '{value}'")
            if knob == BLUNDER_KNOB:
                rules_mod.require(
                    rules,
                    key,
                    not isinstance(value, str) and 0 <= value <= 1,
                    "a probability between 0 and 1",
                )


def network_length(n_features: int, hidden: int) -> int:
    """The length of a network's weights: its count of hidden units, the first layer's weights
    (hidden units × features: each unit's weights of the features in a row, one unit after
    another), the hidden units' biases, their weights in the value, the value's bias
    (policies.learned.position_value)."""
    return 1 + n_features * hidden + 2 * hidden + 1


def value_models(game: Game) -> set[str]:
    """The value models of a game's learned player at any player count: its learned_model and
    those its counts' own budgets name."""
    return {game.learned_model} | {
        dict(fields)["model"] for _, fields in game.learn_budget_at if "model" in dict(fields)
    }


def check_weights(game: Game, rules: dict, key: str, value) -> None:
    """A learned player's weights: one number per feature, or for a game whose value model is a
    network (at any player count), its hidden units' count then its weights
    (:func:`network_length`)."""
    n = len(game.learned_features)
    numbers = isinstance(value, list) and all(is_number(v) for v in value)
    linear = numbers and len(value) == n
    network = (
        NETWORK in value_models(game)
        and numbers
        and len(value) > 1
        and float(value[0]).is_integer()
        and value[0] >= 1
        and len(value) == network_length(n, int(value[0]))
    )
    expected = f"expected {n} numbers, one per feature ({', '.join(game.learned_features)})"
    if NETWORK in value_models(game):
        expected += f", or a network's: H hidden units, then H×{n}, H, H and 1 numbers"
    rules_mod.require(rules, key, linear or network, expected)


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_search_knobs(game: Game, rules: dict) -> None:
    """A search player's budget lies within what its driver can play (``game.search_limits``),
    and its rollouts are finished by a scripted policy (a rollout cannot search in turn)."""
    policy_set = game.policy_set(rules)
    search = {p.id for p in policy_set if p.name == SEARCH_POLICY}
    for policy in (p for p in policy_set if p.behaviour in search):
        values = knob_values(rules, policy_set, policy)
        for knob, low, high in game.search_limits:
            value = values.get(knob, low)
            rules_mod.require(
                rules,
                f"policies.{policy.name}.{knob}",
                isinstance(value, (int, float))
                and float(value).is_integer()
                and low <= value <= high,
                f"must be a whole number {low}..{high:,}",
            )
        rollout = values.get("rollout_policy")
        rules_mod.require(
            rules,
            f"policies.{policy.name}.rollout_policy",
            rollout is None or game.policy(rollout, rules).behaviour not in search,
            "must name a scripted policy (a rollout cannot search)",
        )
