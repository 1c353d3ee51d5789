"""The learned player's weights: a value function over a game's position features, fitted to
the search's values by expert iteration (DESIGN.md "Player fields: the ladder", docs/search.md
"The learned player").

A game with a learned player names its features (``Game.learned_features``) and plays sample
games (``Game.sample``): at every step the search weighs, each option's resulting position is
written down with the search's mean playout value of it.  The fit:

1. iteration 0: learned seats without weights, each with a teacher's budget (``rollouts``,
   ``top_k`` and ``horizon`` of :class:`LearnBudget`, the search's rollout policy), play the
   search's choices against the tuned field; their positions and values are kept;
2. the weights are the least-squares fit of each candidate's value, centred within its
   decision, by its value model's value of its features centred alike (``Game.learned_model``
   or the budget's ``model``, VALUE_MODELS: a weighted sum with a small ridge, or a layer of
   tanh units): what tells the options of one decision apart, not what tells good games from
   bad ones;
3. each later iteration plays the learned seats on the weights so far (they take their own
   picks, the teacher still values their options: the positions the learned player reaches)
   and fits again on every iteration's positions.

The weights are a knob set, ``[policies.learned]`` with its ``rollout_policy`` (the search's)
and ``weights``, cached like an adaptation by engine version, rules digest, player count,
budget, seed and algorithm (``$BALSIM_CACHE_DIR/learned``), and shipped for the printed rules at
each player count the study plays and for every variant the ``ask`` questions play
(``simulator/games/GAME/learned-Np.json``: one record a line, ``make learned``).  Same seed,
same weights: every game is seeded from the seed, and one process plays them in order.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from scipy import optimize

from simulator.core.errors import UserError
from simulator.core.game import (
    LEARNED_POLICY,
    LEARNED_VALUE_KNOB,
    LINEAR,
    NETWORK,
    SEARCH_POLICY,
    WEIGHTS_KNOB,
    Game,
    knob_values,
)
from simulator.core.rng import game_seeds
from simulator.core.seating import Seating, team_mode
from simulator.experiments import adapt_cache
from simulator.experiments.adapt_cache import rules_digest
from simulator.experiments.lab import scripted_field
from simulator.experiments.strength import strongest_copy
from simulator.experiments.tune import line_up
from simulator.run.plan import with_knob_sets

ALGORITHM = 1  # bump when the fit changes: cached weights are then fitted again
FORMAT = 1
LEARN_SEED = 1  # the learned player is a property of the rules, as the adapted field is
RIDGE = 1.0  # added to the normal equations' diagonal: features that never vary keep weight 0
CHUNK = 100  # sample games per kernel call
ITERATION_IDS = 1 << 32  # game ids of iteration i start at i * ITERATION_IDS
DIGITS = 6  # weights are stored rounded, so a record reads the same on every machine
# A network value (Game.learned_model NETWORK): HIDDEN tanh units over the standardised features,
# fitted from a seeded start by STEPS of L-BFGS on the same centred values as the linear fit
# (each candidate's predicted value centred within its decision).  In the one game with a
# network value, 8 units won as often as 16 at a quarter more games/s (docs/search.md).
HIDDEN = 8
STEPS = 500


@dataclass(frozen=True)
class LearnBudget:
    """Games per iteration, iterations, the teacher's playouts per decision and candidates, the
    candidates the learned player values when it plays (0: the teacher's), and the teacher's
    ``horizon`` knob (None: the search's)."""

    games: int = 1_200
    iterations: int = 3
    rollouts: int = 48
    top_k: int = 3
    candidates: int = 0
    horizon: int | None = None
    model: str | None = None  # the value model (VALUE_MODELS); None: the game's learned_model


DEFAULT_BUDGET = LearnBudget()


def default_budget(game: Game, n_players: int) -> LearnBudget:
    """The budget a game's learned player is fitted on at ``n_players`` unless told:
    DEFAULT_BUDGET, but for the fields the game gives (``Game.learn_budget``, then that
    count's own, ``Game.learn_budget_at``)."""
    own = dict(game.learn_budget_at).get(n_players, ())
    return replace(DEFAULT_BUDGET, **{**dict(game.learn_budget), **dict(own)})


def value_model(game: Game, budget: LearnBudget) -> str:
    return budget.model or game.learned_model


@dataclass
class Learned:
    """A learned player: its knob set under the rules it was fitted for, and how it was fitted."""

    key: dict
    knob_set: dict
    iterations: list[dict]
    source: str = "fitted"  # or "cache", "shipped"

    def lines(self, features: tuple[str, ...]) -> list[str]:
        """Each iteration's fit, then each feature's weight."""
        out = [
            f"  iteration {f['iteration']}: {f['games']:,} games, {f['decisions']:,} decisions "
            f"weighed, R² {f['r2']:.3f} of the centred values"
            for f in self.iterations
        ]
        weights = self.knob_set[WEIGHTS_KNOB]
        if len(weights) != len(features):
            return out + [
                f"  a network of {int(weights[0])} tanh units over {len(features)} features"
            ]
        return out + [f"  {name:>14} {w:+.4f}" for name, w in zip(features, weights)]

    def record(self) -> dict:
        return {
            "format": FORMAT,
            "key": self.key,
            "knob_set": self.knob_set,
            "iterations": self.iterations,
        }


def base_rules(rules: dict) -> dict:
    """``rules`` without a learned player's knob set: what its weights are fitted for."""
    out = dict(rules)
    out["policies"] = {k: v for k, v in rules.get("policies", {}).items() if k != LEARNED_POLICY}
    return out


def cache_key(game: Game, rules: dict, n_players: int, budget: LearnBudget, seed: int) -> dict:
    model = value_model(game, budget)
    return {
        "game": game.name,
        "engine_version": game.engine_version,
        "rules_digest": rules_digest(base_rules(rules)),
        "n_players": n_players,
        # the search's horizon left out: the keys fitted before the budget had one stay valid
        "budget": {k: v for k, v in asdict(budget).items() if v is not None and k != "model"},
        "seed": seed,
        "algorithm": ALGORITHM,
        **({} if model == LINEAR else {"model": model}),
    }


def cache_path(key: dict) -> Path:
    """``$BALSIM_CACHE_DIR/learned/GAME/Np-DIGEST.json``, beside the adapted fields."""
    name = f"{key['n_players']}p-{adapt_cache.key_digest(key)}.json"
    return adapt_cache.cache_root() / "learned" / key["game"] / name


def shipped_path(game: Game, n_players: int) -> Path:
    return game.rules_path.parent / f"learned-{n_players}p.json"


def entry(record, key: dict, source: str) -> Learned | None:
    """The record as a Learned player when it is one for ``key``, else None."""
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("key") != key:
        return None
    return Learned(record["key"], record["knob_set"], record["iterations"], source)


def shipped_entry(game: Game, key: dict) -> Learned | None:
    records = adapt_cache.records_in(shipped_path(game, key["n_players"]))
    return entry(records.get(adapt_cache.key_digest(key)), key, "shipped")


def cached_entry(key: dict) -> Learned | None:
    return entry(adapt_cache.cached_record(cache_path(key)), key, "cache")


# ---- sampling and fitting -----------------------------------------------------------------


def teacher_set(game: Game, rules: dict, budget: LearnBudget, weights=None) -> dict:
    """The learned seats' knob set while sampling: the search's rollout policy, the budget's
    playouts and horizon (by default the search's), and the weights so far (none: they play the
    search's choices)."""
    policies = game.policy_set(rules)
    search = knob_values(rules, policies, game.policy(SEARCH_POLICY, rules))
    table = {
        "rollout_policy": search["rollout_policy"],
        "horizon": search.get("horizon", 0) if budget.horizon is None else budget.horizon,
        "rollouts": budget.rollouts,
        "top_k": budget.top_k,
    }
    if weights is not None:
        table[WEIGHTS_KNOB] = [float(w) for w in weights]
    return table


def learned_set(game: Game, rules: dict, budget: LearnBudget, weights) -> dict:
    """``[policies.learned]``: the search's rollout policy for its other decisions, the
    candidates it values (a game whose learned player values only the best-scored options
    values that many: the budget's ``candidates``, else the teacher's), and its weights.  Its
    choices while the fit samples are the teacher's candidates' (:func:`teacher_set`): how
    many it values when it plays changes no weight."""
    table = teacher_set(game, rules, budget, weights)
    return {
        "rollout_policy": table["rollout_policy"],
        "top_k": budget.candidates or budget.top_k,
        WEIGHTS_KNOB: table[WEIGHTS_KNOB],
    }


def training_lineup(game: Game, rules: dict, n_players: int) -> tuple[str, ...]:
    """The learned seat (team) against the tuned field, as the search rung seats a search."""
    field = [strongest_copy(game, rules, p) for p in scripted_field(game)]
    return line_up(rules, LEARNED_POLICY, field, n_players)


def sample_iteration(game: Game, rules: dict, n_players: int, games: int, first_id: int, seed: int):
    """The sample rows of ``games`` games (ids from ``first_id``) and their column names; the
    game column made unique across chunks."""
    params = game.prepare(rules, n_players)
    lineup = training_lineup(game, rules, n_players)
    ids = np.array([game.policy(name, rules).id for name in lineup], np.int8)
    seating = Seating.of(lineup, teams=team_mode([rules]))
    parts, columns = [], ()
    for start in range(0, games, CHUNK):
        game_ids = np.arange(
            first_id + start, first_id + min(start + CHUNK, games), dtype=np.uint64
        )
        seeds = game_seeds(seed, game_ids)
        seats = ids[seating.positions(seeds, game_ids)]
        rows, columns = game.sample(params, seeds, seats)
        rows = rows.copy()
        rows[:, columns.index("game")] += first_id + start
        parts.append(rows)
    return np.concatenate(parts), columns


class Decisions:
    """The candidates of the weighed decisions of two valued candidates or more (a decision of
    one tells no option apart): their features ``x`` (the last ``n_features`` columns), values
    ``y`` and decisions ``group``."""

    def __init__(self, rows: np.ndarray, columns: tuple[str, ...], n_features: int):
        valued = rows[np.isfinite(rows[:, columns.index("value")])]
        decisions = valued[:, [columns.index("game"), columns.index("decision")]].astype(np.int64)
        _, group, sizes = np.unique(decisions, axis=0, return_inverse=True, return_counts=True)
        group = group.reshape(-1)
        keep = sizes[group] >= 2
        self.x = valued[keep, -n_features:]
        self.y = valued[keep, columns.index("value")]
        self.group = group[keep]
        if len(self.y) <= n_features:
            raise UserError(
                f"too few weighed decisions to fit a learned player ({len(self.y)} options)"
            )
        self.counts = np.bincount(self.group, minlength=len(sizes)).astype(float)
        self.figures = {"decisions": int((self.counts > 0).sum()), "candidates": len(self.y)}
        self.counts[self.counts == 0] = 1.0

    def centred(self, v: np.ndarray) -> np.ndarray:
        """``v`` (one number per candidate) less its mean within each decision."""
        return (
            v - (np.bincount(self.group, v, minlength=len(self.counts)) / self.counts)[self.group]
        )

    def r2(self, predicted: np.ndarray) -> float:
        """The share of the centred values' variance the centred ``predicted`` explain."""
        y = self.centred(self.y)
        residual = y - self.centred(predicted)
        return round(1.0 - float(residual @ residual) / max(float(y @ y), 1e-12), 4)


def fit_weights(
    rows: np.ndarray, columns: tuple[str, ...], n_features: int, seed: int = LEARN_SEED
) -> tuple[np.ndarray, dict]:
    """The weights of the features (the last ``n_features`` columns) that best predict each
    candidate's value centred within its decision, and the fit's figures (``seed``: unused, a
    linear fit draws nothing)."""
    d = Decisions(rows, columns, n_features)
    x = np.column_stack([d.centred(d.x[:, f]) for f in range(n_features)])
    weights = np.linalg.solve(x.T @ x + RIDGE * np.eye(n_features), x.T @ d.centred(d.y))
    return np.round(weights, DIGITS), {**d.figures, "r2": d.r2(d.x @ weights)}


def fit_network(
    rows: np.ndarray, columns: tuple[str, ...], n_features: int, seed: int = LEARN_SEED
) -> tuple[np.ndarray, dict]:
    """A network's weights (HIDDEN tanh units, simulator.core.game.network_length) whose value
    of a candidate's features, centred within its decision, best predicts the candidate's value
    centred alike (least squares by L-BFGS from a start drawn from ``seed``), on the features
    standardised, the standardising then folded into the first layer; and the fit's figures."""
    d = Decisions(rows, columns, n_features)
    mean, scale = d.x.mean(axis=0), d.x.std(axis=0)
    scale[scale == 0] = 1.0
    z, y = (d.x - mean) / scale, d.centred(d.y)
    n, h = n_features, HIDDEN
    rng = np.random.default_rng(seed)
    start = np.concatenate(
        [rng.normal(0, 1 / np.sqrt(n), n * h), np.zeros(h), rng.normal(0, 1 / np.sqrt(h), h)]
    )

    def loss(p):
        w1, b1, w2 = p[: n * h].reshape(n, h), p[n * h : n * h + h], p[n * h + h :]
        units = np.tanh(z @ w1 + b1)
        residual = d.centred(units @ w2) - y  # its mean within a decision is 0: the gradient's
        dunits = np.outer(residual, w2) * (1 - units**2)
        grad = np.concatenate([(z.T @ dunits).ravel(), dunits.sum(axis=0), units.T @ residual])
        return float(residual @ residual) / len(y), 2 * grad / len(y)

    found = optimize.minimize(
        loss, start, jac=True, method="L-BFGS-B", options={"maxiter": STEPS}
    ).x
    w1, b1, w2 = found[: n * h].reshape(n, h), found[n * h : n * h + h], found[n * h + h :]
    w1 = w1 / scale[:, None]  # on the features as they are
    b1 = b1 - mean @ w1
    b2 = float(np.mean(d.y - np.tanh(d.x @ w1 + b1) @ w2))  # the values' level, for a rollout
    weights = np.round(np.concatenate([[h], w1.T.ravel(), b1, w2, [b2]]), DIGITS)
    return weights, {**d.figures, "r2": d.r2(np.tanh(d.x @ w1 + b1) @ w2)}


VALUE_MODELS = {LINEAR: fit_weights, NETWORK: fit_network}  # Game.learned_model -> its fit


def fit(
    game: Game,
    rules: dict,
    n_players: int,
    budget: LearnBudget | None = None,
    seed: int = LEARN_SEED,
) -> Learned:
    """Expert iteration (module docstring): the learned player's knob set under ``rules``
    (``budget`` None: the game's default)."""
    if not game.learned_features:
        raise UserError(f"{game.name} has no learned player")
    budget = budget or default_budget(game, n_players)
    rules = base_rules(rules)
    n = len(game.learned_features)
    pooled, weights, figures = [], None, []
    for iteration in range(budget.iterations):
        teaching = with_knob_sets(
            rules, {LEARNED_POLICY: teacher_set(game, rules, budget, weights)}
        )
        rows, columns = sample_iteration(
            game, teaching, n_players, budget.games, iteration * ITERATION_IDS, seed
        )
        pooled.append(rows)
        fit_model = VALUE_MODELS[value_model(game, budget)]
        weights, stats = fit_model(np.concatenate(pooled), columns, n, seed)
        won = rows[:, columns.index("side_won")]
        figures.append(
            {
                "iteration": iteration,
                "games": budget.games,
                **stats,
                "rows_won": round(float(won.mean()), 4),
            }
        )
    key = cache_key(game, rules, n_players, budget, seed)
    return Learned(key, learned_set(game, rules, budget, weights), figures)


def learned(
    game: Game,
    rules: dict,
    n_players: int,
    budget: LearnBudget | None = None,
    seed: int = LEARN_SEED,
) -> Learned:
    """The learned player under ``rules``: shipped, cached, or fitted now (and cached)."""
    budget = budget or default_budget(game, n_players)
    key = cache_key(game, rules, n_players, budget, seed)
    found = shipped_entry(game, key) or cached_entry(key)
    if found:
        return found
    made = fit(game, rules, n_players, budget, seed)
    adapt_cache.write_record(cache_path(key), made.record())
    return made


def reads_learned(game: Game, rules: dict, seats) -> bool:
    """Whether any of ``seats`` (policy names) plays the learned player's weights: a learned
    seat, or a search seat with ``learned_value`` set (policies/search_driver.py)."""
    policy_set = game.policy_set(rules)
    for name in set(seats):
        policy = game.policy(name, rules)
        base = policy_set[policy.behaviour].name
        if base == LEARNED_POLICY:
            return True
        if base == SEARCH_POLICY and knob_values(rules, policy_set, policy).get(LEARNED_VALUE_KNOB):
            return True
    return False


def with_learned(
    game: Game,
    rules: dict,
    n_players: int,
    budget: LearnBudget | None = None,
    fitted_for: dict | None = None,
) -> dict:
    """``rules`` carrying the learned player's knob set (``[policies.learned]``) fitted for
    ``fitted_for`` (default ``rules``: a field's own knob sets added to the rules change no
    fit), unless ``rules`` give its weights already.  Whether a search reads the learned value
    changes no fit either (the fit's teacher searches on its own budget): so
    ``--set policies.search.learned_value=1`` plays the weights shipped for the rules."""
    if WEIGHTS_KNOB in rules.get("policies", {}).get(LEARNED_POLICY, {}):
        return rules
    found = learned(game, without_learned_value(fitted_for or rules), n_players, budget)
    return with_knob_sets(base_rules(rules), {LEARNED_POLICY: found.knob_set})


def without_learned_value(rules: dict) -> dict:
    """``rules`` without any knob set's ``learned_value``."""
    tables = rules.get("policies", {})
    if not any(LEARNED_VALUE_KNOB in t for t in tables.values()):
        return rules
    kept = {
        name: {k: v for k, v in table.items() if k != LEARNED_VALUE_KNOB}
        for name, table in tables.items()
    }
    return {**rules, "policies": kept}


def ship(game: Game, rules_by_players: dict[int, list[dict]]) -> list[Learned]:
    """The learned player of every rules of ``rules_by_players`` (player count -> rules) on the
    game's default budget, written as the package's weights, one file per player count, each
    holding just these (``make learned``).  A player shipped or cached under its key is taken
    as it is (the same key fits the same weights), the others are fitted now; each file is
    written as soon as its count is done, so a stopped run keeps what it finished."""
    out = []
    for n_players, rules_list in sorted(rules_by_players.items()):
        found = [learned(game, rules, n_players) for rules in rules_list]
        adapt_cache.write_records(
            shipped_path(game, n_players), [f.record() for f in found], FORMAT
        )
        out += found
    return out
