"""Seat orders: which policy of the line-up sits in which seat of each game.

The line-up is the list of policies a designer gives (``--seats a,b,c,d``; seat 0 starts).
With balanced seating (the default) each game plays a permutation of it, so no policy keeps
the same seat or the same neighbours:

* **exhaustive**: when the line-up has at most :data:`MAX_EXHAUSTIVE` distinct seat orders
  (every order of 6 distinct policies is 720), game ``g`` plays order ``g mod k`` of the
  list of all of them, so every block of ``k`` consecutive games is exactly balanced;
* **random**: otherwise each game plays a uniformly random order drawn from a hash of its
  own seed.

Either way the order depends only on the game id and seed, never on ``--jobs``, chunk size or
the rules variant, so game k of every sweep variant seats the same policies alike.
``--fixed-seats`` plays the line-up as listed in every game.

**Teams.** Where seats form teams (Karmaggän's team mode: team = seat % 2, so teams
alternate around the table), a free permutation would mix the policy groups a designer asked
to pit against each other.  The line-up then defines the teams by the same parity: the
policies at positions 0, 2, 4, ... form one team and those at 1, 3, 5, ... the other, as they
would with fixed seats (``--seats search,hunter,search,hunter`` pits two searchers against
two hunters).  Balanced orders keep each group together: they permute the seats within each
team and, when both teams have as many players, which group sits on the even (starting)
seats.  The manifest records the seating design and the teams.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

MAX_EXHAUSTIVE = 720  # at most this many distinct orders are played in turn
TEAM_COUNT = 2  # team mode: team = seat % TEAM_COUNT
SEATING_SALT = np.uint64(0x5EA7_0DE5_C0FF_EE11)  # keeps seat draws apart from the game's streams
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def team_mode(rules_list) -> bool:
    """True when any of these rules plays in teams (``game.mode = "team"``).

    Every variant of a sweep must seat its games alike, so one team-mode variant makes the
    whole plan keep the team groups (a permutation that keeps them is valid without teams too).
    """
    return any(rules.get("game", {}).get("mode") == "team" for rules in rules_list)


@dataclass(frozen=True)
class Seating:
    """How a plan seats its line-up.  ``orders`` (exhaustive design only) is int8[k, n]: the
    line-up position seated at each seat, for every distinct order."""

    lineup: tuple[str, ...]
    fixed: bool
    teams: bool
    orders: np.ndarray | None

    @property
    def design(self) -> str:
        return "fixed" if self.fixed else ("exhaustive" if self.orders is not None else "random")

    @classmethod
    def of(cls, lineup, fixed: bool = False, teams: bool = False) -> "Seating":
        lineup = tuple(lineup)
        return cls(lineup, fixed, teams, None if fixed else distinct_orders(lineup, teams))

    def record(self) -> dict:
        """The manifest's description of the seating."""
        out = {
            "design": self.design,
            "orders": len(self.orders) if self.orders is not None else None,
        }
        if self.teams:
            out["teams"] = [list(self.lineup[t::TEAM_COUNT]) for t in range(TEAM_COUNT)]
        return out

    def positions(self, seeds: np.ndarray, game_ids: np.ndarray) -> np.ndarray:
        """int64[len(game_ids), n]: the line-up position seated at each seat of each game."""
        n, games = len(self.lineup), len(game_ids)
        if self.fixed:
            return np.broadcast_to(np.arange(n), (games, n)).copy()
        if self.orders is not None:
            return self.orders[np.asarray(game_ids) % len(self.orders)].astype(np.int64)
        return random_orders(np.asarray(seeds, np.uint64), n, self.teams)


def allowed(order: tuple[int, ...], teams: bool) -> bool:
    """Whether a seat order keeps the team groups: every seat of a team holds positions of one
    group (parity), the groups trading sides only when they are the same size."""
    if not teams:
        return True
    flips = {(position - seat) % TEAM_COUNT for seat, position in enumerate(order)}
    return len(flips) == 1 and (flips == {0} or len(order) % TEAM_COUNT == 0)


@lru_cache(maxsize=64)
def distinct_orders(lineup: tuple[str, ...], teams: bool) -> np.ndarray | None:
    """int8[k, n] of every seat order that seats a different sequence of policies (the first
    such order in lexicographic order stands for identical policies), or None when k exceeds
    :data:`MAX_EXHAUSTIVE`."""
    n = len(lineup)
    if _count_upper_bound(lineup) > 50 * MAX_EXHAUSTIVE:
        return None
    seen, orders = set(), []
    for order in itertools.permutations(range(n)):
        names = tuple(lineup[p] for p in order)
        if names in seen or not allowed(order, teams):
            continue
        seen.add(names)
        orders.append(order)
        if len(orders) > MAX_EXHAUSTIVE:
            return None
    return np.array(orders, dtype=np.int8)


def _count_upper_bound(lineup) -> int:
    """n! over the repeats' factorials: the distinct orders without a team constraint."""
    from math import factorial, prod

    counts = [lineup.count(name) for name in set(lineup)]
    return factorial(len(lineup)) // prod(factorial(c) for c in counts)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 arrays (as :func:`simulator.core.rng.mix64`)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))


def random_orders(seeds: np.ndarray, n: int, teams: bool) -> np.ndarray:
    """A uniformly random seat order per game, from a hash of each game's seed: seats sort by
    hashed keys (within each team's group when ``teams``), so each order is equally likely."""
    with np.errstate(over="ignore"):
        stream = _mix(seeds ^ SEATING_SALT)[:, None]
        keys = _mix(stream + (np.arange(1, n + 2, dtype=np.uint64) * _GOLDEN)[None, :])
    if not teams:
        return np.argsort(keys[:, :n], axis=1, kind="stable")
    out = np.empty((len(seeds), n), dtype=np.int64)
    can_swap = n % TEAM_COUNT == 0
    swap = (keys[:, n] & np.uint64(1)).astype(bool) if can_swap else np.zeros(len(seeds), bool)
    for group in range(TEAM_COUNT):
        members = np.arange(group, n, TEAM_COUNT)
        shuffled = members[np.argsort(keys[:, members], axis=1, kind="stable")]
        for flipped in (False, True):
            team = (group + flipped) % TEAM_COUNT
            rows = swap == flipped
            out[np.ix_(rows, np.arange(team, n, TEAM_COUNT))] = shuffled[rows]
    return out


def neighbour(policies: np.ndarray, offset: int = -1) -> np.ndarray:
    """The policy of seat ``(s + offset) mod n`` for each seat (``policies`` [games, n]):
    offset -1 is the seat that plays just before (the left neighbour in turn order)."""
    return np.roll(policies, -offset, axis=1)
