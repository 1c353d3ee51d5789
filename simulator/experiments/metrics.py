"""Balance metrics of a batch of games, with intervals and paired differences.

One place defines the metric names that ``balsim tune``, ``fit`` and ``sensitivity`` accept
(:data:`METRIC_HELP`).  A metric is a smooth function of a few per-game averages
("components": wins of a policy's seats, seats it played, game length, ...), so every metric
gets the same treatment:

* its value is the function of the component means over the games;
* its 95% interval comes from the delta method: each game's influence on the value is
  ``psi_g = grad f(m) . (V_g - m)``, and the standard error is ``sd(psi) / sqrt(n)``;
* two candidates played on the same game seeds (common random numbers) are compared game by
  game: the difference's influence is ``psi_a - psi_b``, which is what makes small rule and
  knob changes visible with few games.

Proportions (win rates, the round-cap rate) get Wilson intervals instead, on the effective
number of games (Kish's, from how many seats of the group each game has), so a rate near 0 or
1 keeps a sensible interval; other intervals and every paired difference are normal
approximations and need a few hundred games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from simulator.core.errors import UserError
from simulator.core.stats import Z95, wilson

GROUPS = ("seat", "policy", "character", "side")  # player groups a metric can name
GROUP_COLUMNS = ("character", "side")  # engine player columns that hold a group

METRIC_HELP = {
    "win_rate:GROUP=VALUE": "share of games won by the seats of a group, GROUP one of seat "
    "(0 = starting player), policy, and where the game records them character or side (in "
    "team games: starting = seat 0's team, or other); e.g. "
    "win_rate:seat=0, win_rate:policy=NAME, win_rate:side=starting",
    "score:GROUP=VALUE": "mean final score of the seats of a group",
    "outscore:GROUP=VALUE": "share of the other seats that the group's seats outscore (ties "
    "count half)",
    "max_GROUP_share": "the highest win rate in the group over the fair share (1.0 = even; "
    "e.g. max_policy_share, max_seat_share, max_character_share)",
    "first_player_edge": "seat 0's win rate minus the mean seat's",
    "starting_team_edge": "win rate of the starting team (seat 0's) minus the other team's "
    "(team games)",
    "length": "mean game length (years, rounds or turns)",
    "round_cap_rate": "share of games ended by the round cap (games with one)",
    "neighbour_excess:policy=NAME": "win rate of the players seated just after NAME minus what "
    "their own policies win after any neighbour",
    "presidency_edge": "win rate of the president of the single most valuable company at "
    "mid-game minus what "
    "players of the same policies win without presiding it (games with presidents; 0 when "
    "no game has a single most valuable company)",
    "loan_cap_binding:policy=NAME": "share of NAME's players whose loans reach the cap (games "
    "with loans)",
    "delinquency_rate:policy=NAME": "share of NAME's players with a delinquent payment notice "
    "(games with loans)",
    "runaway_rate": "share of games the leader two thirds into the game wins (the leader by "
    "the game's own measure, e.g. cash)",
}
# metrics that read Outcomes.extra (simulator.experiments.flag_values): name or kind -> the values
# needed
EXTRA_NEEDS = {
    "presidency_edge": "top_president",
    "loan_cap_binding": "cap_binding",
    "delinquency_rate": "delinquent",
    "runaway_rate": "leader_won",
}


def metric_help_text(indent: str = "") -> str:
    """The metric names as wrapped lines for a command's ``--help`` (each line after the
    first starts with ``indent``, the docstring's own indentation)."""
    import textwrap

    lines = []
    for name, text in METRIC_HELP.items():
        lines += textwrap.wrap(
            f"{name}: {text}", width=92, initial_indent="  ", subsequent_indent="      "
        )
    return f"\n{indent}".join(lines)


@dataclass
class Outcomes:
    """The per-game results of one candidate, games in game-id order.

    ``groups`` maps a group name to ``(codes int[n, p], labels)``: the label of each seat's
    group in each game (``seat`` and ``policy`` always; ``character`` or ``side`` where the
    game records one)."""

    won: np.ndarray  # bool[n, p]
    score: np.ndarray  # float64[n, p]
    length: np.ndarray  # float64[n]
    end_reason: np.ndarray  # int[n], codes into end_reasons
    end_reasons: tuple[str, ...]
    groups: dict
    extra: dict = field(
        default_factory=dict
    )  # simulator.experiments.flag_values: bool[n, p] or bool[n]

    @property
    def n_games(self) -> int:
        return len(self.length)

    @property
    def n_players(self) -> int:
        return self.won.shape[1]

    @property
    def labels(self) -> dict[str, tuple[str, ...]]:
        """Every label each group can take (a metric may name any of them)."""
        return {group: labels for group, (_, labels) in self.groups.items()}

    @property
    def present(self) -> dict[str, tuple[str, ...]]:
        """The labels that occur in these games, by group."""
        return {
            group: tuple(label for i, label in enumerate(labels) if np.any(codes == i))
            for group, (codes, labels) in self.groups.items()
        }

    def metric(self, name: str) -> "Metric":
        """The metric called ``name``, checked against what these games record."""
        return parse_metric(name, self.labels, self.end_reasons, tuple(self.extra))

    def subset(self, index) -> "Outcomes":
        """The outcomes of the games ``index`` selects (a slice or an index array)."""
        return Outcomes(
            self.won[index],
            self.score[index],
            self.length[index],
            self.end_reason[index],
            self.end_reasons,
            {g: (codes[index], labels) for g, (codes, labels) in self.groups.items()},
            {k: v[index] for k, v in self.extra.items()},
        )

    @staticmethod
    def concat(parts: list["Outcomes"]) -> "Outcomes":
        """One Outcomes of several batches (same candidate, labels), in the order given."""
        first = parts[0]
        cat = lambda name: np.concatenate([getattr(p, name) for p in parts])  # noqa: E731
        groups = {
            g: (np.concatenate([p.groups[g][0] for p in parts]), labels)
            for g, (_, labels) in first.groups.items()
        }
        extra = {k: np.concatenate([p.extra[k] for p in parts]) for k in first.extra}
        return Outcomes(
            cat("won"),
            cat("score"),
            cat("length"),
            cat("end_reason"),
            first.end_reasons,
            groups,
            extra,
        )


@dataclass
class Estimate:
    """A metric's value and each game's influence on it (mean zero), for intervals and for
    paired differences with another estimate on the same games."""

    value: float
    psi: np.ndarray
    trials: float = 0.0  # proportions: effective number of trials (Wilson interval); else 0

    @property
    def n(self) -> int:
        return len(self.psi)

    @property
    def se(self) -> float:
        if self.n < 2 or not math.isfinite(self.value):
            return float("nan")
        return float(np.std(self.psi, ddof=1) / math.sqrt(self.n))

    @property
    def interval(self) -> tuple[float, float]:
        if self.trials > 0 and math.isfinite(self.value):
            low, high = wilson(self.value * self.trials, self.trials)
            return float(low), float(high)
        half = Z95 * self.se
        return self.value - half, self.value + half

    def __sub__(self, other: "Estimate") -> "Estimate":
        """The paired difference of two estimates on the same games."""
        if self.n != other.n:
            raise ValueError("a paired difference needs both estimates on the same games")
        return Estimate(self.value - other.value, self.psi - other.psi)

    def distance(self, target: float) -> "Estimate":
        """|value - target|, for searches that bring a metric to a target."""
        sign = 1.0 if self.value >= target else -1.0
        return Estimate(abs(self.value - target), sign * self.psi)

    def record(self, prefix: str = "") -> dict:
        low, high = self.interval
        return {
            f"{prefix}value": self.value,
            f"{prefix}low": low,
            f"{prefix}high": high,
            f"{prefix}se": self.se,
            f"{prefix}games": self.n,
        }


class Metric:
    """A named metric: ``components(outcomes) -> float[n, c]`` per game and ``value(m)`` of the
    component means ``m`` (``[..., c]``, vectorised)."""

    def __init__(self, name: str, components, value, proportion: bool = False):
        """``proportion``: the value is successes / trials, components 0 and (if any) 1."""
        self.name, self._components, self._value = name, components, value
        self.proportion = proportion

    def __repr__(self) -> str:
        return f"Metric({self.name})"

    def estimate(self, outcomes: Outcomes) -> Estimate:
        v = np.asarray(self._components(outcomes), dtype=np.float64)
        m = v.mean(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = float(self._value(m))
            gradient = self._gradient(m)
            psi = (v - m) @ gradient
        if not np.all(np.isfinite(gradient)):
            psi = np.full(len(v), np.nan)
        trials = 0.0
        if self.proportion:
            per_game = v[:, 1] if v.shape[1] > 1 else np.ones(len(v))
            trials = float(per_game.sum() ** 2 / max((per_game**2).sum(), 1e-300))
        return Estimate(value, psi, trials)

    def _gradient(self, m: np.ndarray) -> np.ndarray:
        """Central differences: one vectorised call over 2c shifted mean vectors."""
        c = len(m)
        h = 1e-6 * np.maximum(np.abs(m), 1e-3)
        shifted = np.repeat(m[None, :], 2 * c, axis=0)
        shifted[np.arange(c), np.arange(c)] += h
        shifted[c + np.arange(c), np.arange(c)] -= h
        values = self._value(shifted)
        return (values[:c] - values[c:]) / (2 * h)


def _members(outcomes: Outcomes, group: str, label: str) -> np.ndarray:
    codes, labels = outcomes.groups[group]
    return codes == labels.index(label)


def _group_rate(group: str, label: str, per_seat: str) -> Metric:
    def components(o: Outcomes):
        mask = _members(o, group, label)
        values = o.won if per_seat == "won" else o.score
        return np.stack([(values * mask).sum(axis=1), mask.sum(axis=1)], axis=1)

    kind = "win_rate" if per_seat == "won" else "score"
    return Metric(
        f"{kind}:{group}={label}",
        components,
        lambda m: m[..., 0] / m[..., 1],
        proportion=per_seat == "won",
    )


def _outscore(group: str, label: str) -> Metric:
    def components(o: Outcomes):
        mask = _members(o, group, label)
        above = (o.score[:, :, None] > o.score[:, None, :]).sum(axis=2)
        tied = (o.score[:, :, None] == o.score[:, None, :]).sum(axis=2) - 1
        share = (above + 0.5 * tied) / max(o.n_players - 1, 1)
        return np.stack([(share * mask).sum(axis=1), mask.sum(axis=1)], axis=1)

    return Metric(f"outscore:{group}={label}", components, lambda m: m[..., 0] / m[..., 1])


def _max_share(group: str, labels: tuple[str, ...]) -> Metric:
    k = len(labels)

    def components(o: Outcomes):
        cols = []
        for label in labels:
            mask = _members(o, group, label)
            cols += [(o.won & mask).sum(axis=1), mask.sum(axis=1)]
        cols.append(o.won.sum(axis=1) / o.n_players)  # the mean seat's win rate: fair share
        return np.stack(cols, axis=1)

    def value(m):
        rates = np.stack([m[..., 2 * i] / m[..., 2 * i + 1] for i in range(k)], axis=-1)
        return np.nanmax(np.where(np.isfinite(rates), rates, np.nan), axis=-1) / m[..., 2 * k]

    return Metric(f"max_{group}_share", components, value)


def _first_player_edge() -> Metric:
    return Metric(
        "first_player_edge",
        lambda o: np.stack([o.won[:, 0], o.won.sum(axis=1) / o.n_players], axis=1),
        lambda m: m[..., 0] - m[..., 1],
    )


def _starting_team_edge() -> Metric:
    def components(o: Outcomes):
        cols = []
        for label in ("starting", "other"):
            mask = _members(o, "side", label)
            cols += [(o.won & mask).sum(axis=1), mask.sum(axis=1)]
        return np.stack(cols, axis=1)

    return Metric(
        "starting_team_edge", components, lambda m: m[..., 0] / m[..., 1] - m[..., 2] / m[..., 3]
    )


def _length() -> Metric:
    return Metric("length", lambda o: o.length[:, None], lambda m: m[..., 0])


def _round_cap_rate() -> Metric:
    def components(o: Outcomes):
        code = o.end_reasons.index("round_cap")
        return (o.end_reason == code)[:, None].astype(np.float64)

    return Metric("round_cap_rate", components, lambda m: m[..., 0], proportion=True)


def _excess_within_policy(name: str, member) -> Metric:
    """The win rate of the seats ``member(o)`` (bool[n, p]) marks minus what the same policies
    win at the other seats (neighbour_excess: at every seat), weighting each policy by the
    members who play it (:func:`simulator.analysis.attribution.stratified_rates`'s excess);
    0 without members."""
    everyone = name.startswith("neighbour_excess")

    def components(o: Outcomes):
        mask, (codes, _) = member(o), o.groups["policy"]
        reference = np.ones_like(mask) if everyone else ~mask
        cols = []
        for q in np.unique(codes):  # a policy nobody plays adds nothing
            mine = codes == q
            cols += [
                (o.won & mask & mine).sum(axis=1),
                (mask & mine).sum(axis=1),
                (o.won & reference & mine).sum(axis=1),
                (reference & mine).sum(axis=1),
            ]
        return np.stack(cols, axis=1)

    def value(m):
        m = m.reshape(m.shape[:-1] + (-1, 4))
        members = m[..., 1].sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = np.where(m[..., 3] > 0, m[..., 2] / m[..., 3], 0.0)  # a policy not played: 0
            expected = (m[..., 1] * rates).sum(axis=-1)
            # no member (no game with a single most valuable company): no one has the edge
            return np.where(members > 0, (m[..., 0].sum(axis=-1) - expected) / members, 0.0)

    return Metric(name, components, value)


def _after(label: str):
    """Seats whose left neighbour (the seat before, wrapping round) plays policy ``label``."""

    def member(o: Outcomes):
        codes, labels = o.groups["policy"]
        return np.roll(codes, 1, axis=1) == labels.index(label)

    return member


def _extra_share(kind: str, group: str, label: str) -> Metric:
    def components(o: Outcomes):
        mask = _members(o, group, label)
        return np.stack([(o.extra[EXTRA_NEEDS[kind]] & mask).sum(axis=1), mask.sum(axis=1)], axis=1)

    return Metric(
        f"{kind}:{group}={label}", components, lambda m: m[..., 0] / m[..., 1], proportion=True
    )


def _runaway_rate() -> Metric:
    return Metric(
        "runaway_rate",
        lambda o: np.stack([o.extra["leader_won"], o.extra["has_leader"]], axis=1),
        lambda m: m[..., 0] / m[..., 1],
        proportion=True,
    )


def parse_metric(
    name: str,
    labels: dict[str, tuple[str, ...]],
    end_reasons: tuple[str, ...],
    extras: tuple[str, ...] = (),
) -> Metric:
    """The metric called ``name``, checked against what a batch records: ``labels`` maps each
    group to its labels (``{"seat": ("0", ..), "policy": (..), ...}``), ``extras`` names the
    values of Outcomes.extra; UserError names the problem."""
    name = name.strip()
    kind, sep, rest = name.partition(":")
    if kind in EXTRA_NEEDS and EXTRA_NEEDS[kind] not in extras:
        raise UserError(
            f"metric '{name}': this game records no {EXTRA_NEEDS[kind].replace('_', ' ')}"
        )
    if sep:
        group, eq, label = rest.partition("=")
        if (
            kind
            not in (
                "win_rate",
                "score",
                "outscore",
                "neighbour_excess",
                "loan_cap_binding",
                "delinquency_rate",
            )
            or not eq
        ):
            raise UserError(f"unknown metric '{name}' ({known_metrics()})")
        _check_label(name, group, label, labels)
        if kind == "outscore":
            return _outscore(group, label)
        if kind == "neighbour_excess":
            if group != "policy":
                raise UserError(f"metric '{name}': neighbour_excess takes a policy")
            return _excess_within_policy(name, _after(label))
        if kind in EXTRA_NEEDS:
            return _extra_share(kind, group, label)
        return _group_rate(group, label, "won" if kind == "win_rate" else "score")
    if name == "presidency_edge":
        return _excess_within_policy(name, lambda o: o.extra["top_president"])
    if name == "runaway_rate":
        return _runaway_rate()
    if name.startswith("max_") and name.endswith("_share"):
        group = name[4:-6]
        _check_label(name, group, None, labels)
        return _max_share(group, labels[group])
    if name == "starting_team_edge":
        _check_label(name, "side", None, labels)
        return _starting_team_edge()
    if name == "round_cap_rate":
        if "round_cap" not in end_reasons:
            raise UserError(f"metric '{name}': this game has no round cap")
        return _round_cap_rate()
    simple = {"first_player_edge": _first_player_edge, "length": _length}
    if name in simple:
        return simple[name]()
    raise UserError(f"unknown metric '{name}' ({known_metrics()})")


def known_metrics() -> str:
    return "known: " + ", ".join(METRIC_HELP)


def _check_label(name: str, group: str, label: str | None, labels: dict) -> None:
    if group not in GROUPS:
        raise UserError(f"metric '{name}': unknown group '{group}' (groups: {', '.join(GROUPS)})")
    if group not in labels:
        raise UserError(f"metric '{name}': this game records no {group}")
    if label is not None and label not in labels[group]:
        raise UserError(
            f"metric '{name}': no {group} '{label}' in these games "
            f"(have {', '.join(labels[group])})"
        )


def balance_metrics(
    labels: dict[str, tuple[str, ...]], end_reasons: tuple[str, ...], extras: tuple[str, ...] = ()
) -> list[Metric]:
    """The balance metrics a screen reports: win rate by seat, policy, character and side,
    the summaries (first-player edge, largest shares, starting team's edge), length and
    round-cap rate,
    and what the other flags measure: the neighbour excess after each policy, and where the
    games record them the presidency edge, the loan rates by policy and the runaway rate."""
    names = [
        f"win_rate:{group}={label}"
        for group in GROUPS
        if group in labels
        for label in labels[group]
    ]
    names += ["first_player_edge"] + [
        f"max_{group}_share" for group in GROUPS if group in labels and group != "side"
    ]
    names += ["starting_team_edge"] if "side" in labels else []
    names += ["length"] + (["round_cap_rate"] if "round_cap" in end_reasons else [])
    names += [f"neighbour_excess:policy={label}" for label in labels.get("policy", ())]
    names += [
        f"{kind}:policy={label}"
        for kind in ("loan_cap_binding", "delinquency_rate")
        if EXTRA_NEEDS[kind] in extras
        for label in labels.get("policy", ())
    ]
    names += [name for name in ("presidency_edge", "runaway_rate") if EXTRA_NEEDS[name] in extras]
    return [parse_metric(name, labels, end_reasons, extras) for name in names]
