"""Strong players: the strong field, ``balsim skill`` and ``balsim challenge``.

*The strong field* of a game is its tuned knob sets (``[policies.NAME_tuned]`` in the rules,
one per scripted policy that has one, the scripted policy itself otherwise), with one seat of
``search`` when the game has a search player.  The study plays it beside the scripted field so
each balance flag can say whether it holds with strong players.

*Skill*: the ladder's rungs rated on one scale is :mod:`simulator.experiments.skill`.

*Challenge* (:func:`challenge`): is a policy that wins too often dominant, or only facing a
weak field?  Every other scripted policy is tuned against a field of the incumbent, and
``search`` (when the game has it) plays against the same field.  If no challenger wins
significantly more than its fair share on held-out games, the incumbent is dominant — a real
balance problem; otherwise the finding was an artefact of the field.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.core.errors import UserError
from simulator.core.game import Game
from simulator.experiments.lab import (
    HELD_OUT,
    Design,
    Lab,
    batch_ids,
    is_team_game,
    round_to,
    scripted_field,
)
from simulator.experiments.metrics import Estimate
from simulator.experiments.tune import TuneResult, line_up, percent, tune

SEARCH = "search"
TUNED_SUFFIX = "_tuned"


def has_search(game: Game) -> bool:
    """Whether the game's engine has a ``search`` player."""
    return any(p.name == SEARCH for p in game.policies)


def strongest_copy(game: Game, rules: dict, policy: str) -> str:
    """``POLICY_tuned`` when the rules define that knob set, else ``policy`` itself."""
    tuned = policy + TUNED_SUFFIX
    return tuned if any(p.name == tuned for p in game.policy_set(rules)) else policy


def tuned_field(game: Game, rules: dict) -> list[str]:
    """The tuned copy of each scripted policy (the policy itself where it has none)."""
    return [strongest_copy(game, rules, p) for p in scripted_field(game)]


def strong_seats(game: Game, rules: dict, n_players: int, search: bool = True) -> list[str] | None:
    """The strong field's line-up at ``n_players``: ``search`` in one seat (its team in team
    mode) when the game has it and ``search`` is set, tuned copies in turn in the others.  None
    when it would hold neither (the strong field would be the scripted one)."""
    field = tuned_field(game, rules)
    searching = search and has_search(game)
    if not searching and field == scripted_field(game):
        return None
    if searching:
        return list(line_up(rules, SEARCH, field, n_players))
    return [field[i % len(field)] for i in range(n_players)]


def fair_share(rules: dict, n_players: int) -> float:
    return 0.5 if is_team_game(rules) else 1.0 / n_players


# ---- challenge -----------------------------------------------------------------------------


@dataclass
class Challenger:
    name: str  # the policy that played
    win: Estimate  # its held-out win rate against the incumbent's field
    tuned: TuneResult | None  # the tuning that produced it (None for search)

    def record(self, fair: float) -> dict:
        """Its held-out win rate (Wilson 95% interval), its gain over ``fair`` and whether it
        beats it."""
        low, high = self.win.interval
        return {
            "name": self.name,
            "win": self.win.value,
            "low": low,
            "high": high,
            "se": self.win.se,
            "games": self.win.n,
            "gain": self.win.value - fair,
            "beats": self.beats(fair),
        }

    def beats(self, fair: float) -> bool:
        """Significantly more than its fair share (Wilson 95% lower bound above it)."""
        return self.win.interval[0] > fair


@dataclass
class Challenge:
    game: str
    incumbent: str
    n_players: int
    fair_share: float
    challengers: list[Challenger]

    @property
    def winners(self) -> list[Challenger]:
        return [c for c in self.challengers if c.beats(self.fair_share)]

    @property
    def dominant(self) -> bool:
        return not self.winners

    def verdict(self) -> str:
        if self.dominant:
            return (
                f"{self.incumbent} is dominant: no challenger wins significantly more than "
                f"its fair share of {self.fair_share:.1%} against it — a real balance problem"
            )
        best = max(self.winners, key=lambda c: c.win.value)
        return (
            f"{self.incumbent} is beatable: {best.name} wins {percent(best.win)} against "
            f"it (fair share {self.fair_share:.1%}) — a flag that {self.incumbent} wins too "
            f"often is an artefact of the field"
        )

    def record(self) -> dict:
        """The challenge as plain numbers (for a ``balsim.json``)."""
        return {
            "game": self.game,
            "incumbent": self.incumbent,
            "n_players": self.n_players,
            "fair_share": self.fair_share,
            "dominant": self.dominant,
            "verdict": self.verdict(),
            "challengers": [c.record(self.fair_share) for c in self.challengers],
        }

    def lines(self) -> list[str]:
        return [
            f"  {c.name:<28} {percent(c.win)}"
            + ("  beats its fair share" if c.beats(self.fair_share) else "")
            for c in self.challengers
        ]


def best_responses(
    lab: Lab,
    rules: dict,
    rivals: list[str],
    field_names: list[str],
    n_players: int,
    budget: int,
    search_games: int,
    seed: int = 1,
    start=None,
) -> list[Challenger]:
    """Each of ``rivals`` (scripted policies) tuned against ``field_names`` (the other seats,
    cycled), ``budget`` games each, starting from ``start(rival)`` (by default its tuned copy
    where the rules have one), with its held-out win rate; then ``search``, where the game
    has it, on ``search_games`` held-out games against the same field."""
    game = lab.game
    start = start or (lambda rival: strongest_copy(game, rules, rival))
    challengers = []
    for rival in rivals:
        result = tune(
            lab, rules, start(rival), n_players, budget, seed, field_names, f"{rival}_challenger"
        )
        challengers.append(Challenger(result.name, result.tuned, result))
    if has_search(game):
        design = Design(game.name, line_up(rules, SEARCH, field_names, n_players), seed)
        n = round_to(search_games, design.block(rules))
        metric = lab.probe(design, rules).metric(f"win_rate:policy={SEARCH}")
        (out,) = lab.play(design, [rules], batch_ids(0, n, offset=HELD_OUT))
        challengers.append(Challenger(SEARCH, metric.estimate(out), None))
    return challengers


def challenge(
    lab: Lab,
    rules: dict,
    incumbent: str,
    n_players: int,
    budget: int,
    search_games: int,
    seed: int = 1,
    start=None,
) -> Challenge:
    """Tune every other scripted policy against a field of ``incumbent`` (``budget`` games
    each, starting from ``start(policy)``: by default its tuned copy where the rules have
    one), and play ``search`` against the same field on ``search_games`` held-out games when
    the game has it."""
    game = lab.game
    own = game.policy_set(rules)[game.policy(incumbent, rules).behaviour].name
    rivals = scripted_field(game, exclude=own)
    if not rivals:
        raise UserError(f"{game.name} has no other scripted policy to challenge {incumbent}")
    challengers = best_responses(
        lab, rules, rivals, [incumbent], n_players, budget, search_games, seed, start
    )
    return Challenge(game.name, incumbent, n_players, fair_share(rules, n_players), challengers)


# ---- exploitability ------------------------------------------------------------------------


@dataclass
class Exploitability:
    """What a better strategy could gain against a field under some rules: the best gain any
    challenger found over its fair share (held-out win rate minus the fair share), with a
    one-sided upper bound at ``level`` that holds for every challenger at once (Bonferroni
    over them), so "no strategy tried gains more than ``upper``" errs with probability at
    most 1 - ``level``."""

    game: str
    field: list[str]
    n_players: int
    fair_share: float
    challengers: list[Challenger]
    level: float = 0.95

    def gain(self, c: Challenger) -> float:
        return c.win.value - self.fair_share

    @property
    def best(self) -> Challenger:
        return max(self.challengers, key=self.gain)

    @property
    def upper(self) -> float:
        """The simultaneous one-sided upper bound on every challenger's true gain."""
        from simulator.core.verdicts import z

        q = z(1 - (1 - self.level) / len(self.challengers))
        return max(self.gain(c) + q * c.win.se for c in self.challengers)

    def within(self, margin: float) -> bool:
        """No strategy tried gains more than ``margin`` (its upper bound is within it)."""
        return self.upper <= margin

    def text(self) -> str:
        best = self.best
        return (
            f"no strategy tried gains more than {100 * self.upper:+.1f} points over its fair "
            f"share of {self.fair_share:.1%} against {', '.join(self.field)} (one-sided "
            f"{self.level:.0%} bound over {len(self.challengers)} challengers); the best, "
            f"{best.name}, gains {100 * self.gain(best):+.1f} points ({percent(best.win)})"
        )

    def record(self) -> dict:
        return {
            "game": self.game,
            "field": self.field,
            "n_players": self.n_players,
            "fair_share": self.fair_share,
            "best": self.best.name,
            "gain": self.gain(self.best),
            "upper": self.upper,
            "level": self.level,
            "challengers": [c.record(self.fair_share) for c in self.challengers],
            "text": self.text(),
        }


def exploitability(
    lab: Lab,
    rules: dict,
    field_names: list[str],
    n_players: int,
    budget: int,
    search_games: int,
    seed: int = 1,
    start=None,
) -> Exploitability:
    """The best gain over its fair share that any challenger finds against ``field_names``
    under ``rules`` (a rules variant carrying the field's knob sets): every scripted policy
    re-tuned against the field (``budget`` games each, from ``start(policy)``, by default its
    tuned copy), and the search player (``search_games`` held-out games)."""
    challengers = best_responses(
        lab,
        rules,
        scripted_field(lab.game),
        list(field_names),
        n_players,
        budget,
        search_games,
        seed,
        start,
    )
    return Exploitability(
        lab.game.name, list(field_names), n_players, fair_share(rules, n_players), challengers
    )
