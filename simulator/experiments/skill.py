"""``balsim skill``: the ladder's rungs rated on one scale, the skill depth, the plateau of
the search and how much luck decides.

**Rungs.**  Each rung of the ladder (:mod:`simulator.experiments.field`) is one agent: the
``random`` player, the ``scripted``, ``tuned`` and ``adapted`` fields (each seat of a rung
plays its policies in turn), and the search player at several rollout budgets (knob sets
``search_B`` over ``[policies.search]``, its rollouts finished by the adapted copy of its
rollout policy, as on the ladder's search rung).  :data:`~simulator.experiments.tournament.RATED`
lists the rungs a ladder has by default: a new rung the
:class:`~simulator.experiments.field.Ladder` resolves (a learned player) joins by adding its
name there.  Which rungs, their line-ups and places: :mod:`simulator.experiments.tournament`.

**Games between rungs, in balanced seatings.**  Free-for-all: line-ups of ``p`` rungs, a
cyclic design (line-up j holds rungs j, j + 1, ..., j + p - 1 around the ladder, so every
rung plays in ``p`` line-ups, once at each position, and every pair of rungs meets when the
rungs are at most ``2p - 1``); team games: every pair of rungs, one team each.  Each line-up
plays whole rounds of its seat orders (:meth:`~simulator.experiments.lab.Design.block`), on
game ids of its own, so a round of all line-ups seats every rung equally often in every seat.
Every rules variant plays the same games (common random numbers).

**The scale.**  Each game's ranking of the rungs at its table (a rung's place is its best
seat's; a team's, its team's) feeds a Plackett–Luce model (:mod:`simulator.experiments.ratings`):
ratings in Elo points, ``random`` at 0, 95% intervals from the model's information with a
sandwich by game.

* **Skill depth**: the gap from ``random`` to the strongest rung in steps of 60% (a rung one
  step above another finishes above it in 60% of their meetings; 70.4 Elo points), with its
  interval (delta method on the ratings).  A game of pure luck has depth 0.
* **Plateau**: the lowest rollout budget from which every next budget tried (a doubling or
  more) is shown to gain less than the margin: the stronger budget's head-to-head win rate
  against the weaker minus 50% gets an equivalence verdict (:func:`simulator.core.verdicts
  .judge`, TOST); a budget that does significantly worse counts as no gain too.  "Not
  reached" when the top step still gains.
* **Luck**: how often the weakest rung finishes above the strongest when they meet.

**Sized to decide.**  The rounds are played in looks (an eighth of the budget, doubling);
after each look, at level 5% / looks, the depth is decided when its interval is at most
:data:`DEPTH_PRECISION` steps either side, and the plateau when the steps' verdicts settle
it; the games stop at the first look that decides both, for every variant, or at the budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator.core.verdicts import (
    ALPHA,
    EFFECT,
    INCONCLUSIVE,
    NO_EFFECT,
    WIN_RATE_MARGIN,
    Verdict,
    alpha_per_look,
    judge,
    looks,
)
from simulator.experiments.crossing import finite_or_none
from simulator.experiments.lab import Design, Lab, is_team_game
from simulator.experiments.metrics import Estimate
from simulator.experiments.ratings import (
    ELO,
    STEP,
    STEP_THETA,
    Ratings,
    choices,
    fit,
    gap_interval,
)
from simulator.experiments.tournament import (
    GROUP_IDS,
    RANDOM,
    Rung,
    Table,
    lineups,
    places,
    seat_policies,
)
from simulator.run.plan import Variant

DEPTH_PRECISION = 0.5  # the depth is decided when known within ± half a step
SKILL_TOOL = "skill"
SCHEMA = 2


@dataclass
class Rated:
    """One variant's ladder rated: the ratings and what they say."""

    variant: str
    rungs: list[Rung]
    ratings: Ratings
    margin: float
    alpha: float
    places: np.ndarray  # float[n_games, n_rungs]: each rung's place in each game (NaN: absent)
    _intervals: dict = field(default_factory=dict, repr=False)  # the depth's, by level

    @property
    def reference(self) -> int:
        return self.ratings.reference

    @property
    def top(self) -> int:
        """The strongest rung but the reference."""
        theta = self.ratings.theta.copy()
        theta[self.reference] = -np.inf
        return int(np.argmax(theta))

    @property
    def bottom(self) -> int:
        return int(np.argmin(self.ratings.theta))

    def depth(self) -> Estimate:
        """Steps of 60% from the reference (random) to the strongest rung, with each game's
        influence (what a paired change between variants reads)."""
        gap = self.ratings.gap(self.top, self.reference)
        return Estimate(gap.value / STEP_THETA, gap.psi / STEP_THETA)

    def theta_interval(self, i: int, level: float = 1 - ALPHA) -> tuple[float, float]:
        """Rung i's theta's profile-likelihood interval, the reference at 0
        (:func:`~simulator.experiments.ratings.gap_interval`): right even when the reference
        (random) finished above another rung in few games, where every rating, measured from
        it, rests on those few."""
        if (i, level) not in self._intervals:
            c = choices(self.places)
            theta = float(self.ratings.theta[i])
            self._intervals[(i, level)] = gap_interval(c, i, self.reference, theta, level)
        return self._intervals[(i, level)]

    def depth_interval(self, level: float = 1 - ALPHA) -> tuple[float, float]:
        """The depth's profile-likelihood interval, in steps."""
        low, high = self.theta_interval(self.top, level)
        return low / STEP_THETA, high / STEP_THETA

    def depth_decided(self) -> bool:
        low, high = self.depth_interval(1 - self.alpha)
        return bool(np.isfinite(high - low) and (high - low) / 2 <= DEPTH_PRECISION)

    def luck(self) -> Estimate:
        """How often the weakest rung finished above the strongest in the games where both
        played (a tie counts half; Wilson interval), counted, not read from the model, which
        extrapolates from the other rungs; the model's head-to-head rate when they never met."""
        both = np.isfinite(self.places[:, self.bottom]) & np.isfinite(self.places[:, self.top])
        weak, strong = self.places[both, self.bottom], self.places[both, self.top]
        if not len(weak):
            return self.ratings.beats(self.bottom, self.top)
        x = (weak < strong) + 0.5 * (weak == strong)
        return Estimate(float(x.mean()), x - x.mean(), float(len(x)))

    def above_reference(self) -> int:
        """Games in which the reference rung (random) finished above another rung: what its
        gap to the others, and so the depth, rests on."""
        ref = self.places[:, self.reference]
        present = np.isfinite(ref)
        others = np.delete(self.places[present], self.reference, axis=1)
        return int(np.sum(np.any(others > ref[present, None], axis=1)))

    def steps(self) -> list[tuple[Rung, Rung, Estimate, Verdict]]:
        """Each next search budget's gain: its head-to-head win rate over the one before
        minus 50%, with its verdict within the margin."""
        search = sorted(
            (i for i, r in enumerate(self.rungs) if r.rollouts),
            key=lambda i: self.rungs[i].rollouts,
        )
        out = []
        for low, high in zip(search, search[1:]):
            won = self.ratings.beats(high, low)
            gain = Estimate(won.value - 0.5, won.psi)
            verdict = judge(gain.value, gain.se, self.margin, alpha=self.alpha)
            out.append((self.rungs[low], self.rungs[high], gain, verdict))
        return out

    def plateau(self) -> tuple[str, int | None, bool]:
        """(``"reached"``, the budget) / (``"not reached"``, None) / (``"undecided"``, the
        budget from which the gains shown so far are within the margin, or None), and whether
        decided; ``("none", None, True)`` without two search budgets."""
        steps = self.steps()
        if not steps:
            return "none", None, True
        flat = [no_gain(v) for *_, v in steps]
        if not flat[-1]:
            decided = steps[-1][3].kind == EFFECT
            return ("not reached" if decided else "undecided"), None, decided
        first = len(flat) - 1
        while first > 0 and flat[first - 1]:
            first -= 1
        budget = steps[first][0].rollouts
        decided = first == 0 or steps[first - 1][3].kind == EFFECT
        return ("reached" if decided else "undecided"), budget, decided

    def decided(self) -> bool:
        return self.depth_decided() and self.plateau()[2]

    def rating(self, i: int) -> Estimate:
        e = self.ratings.of(i)
        return Estimate(ELO * e.value, ELO * e.psi)

    def rating_record(self, i: int) -> dict:
        """Rung i's rating in Elo points with its 95% profile-likelihood interval."""
        if i == self.reference:
            return {"value": 0.0, "low": 0.0, "high": 0.0, "se": 0.0, "games": self.places.shape[0]}
        low, high = self.theta_interval(i, 0.95)
        return {
            **self.rating(i).record(),
            "low": finite_or_none(ELO * low),
            "high": finite_or_none(ELO * high),
        }


def no_gain(v: Verdict) -> bool:
    """A step shown to gain less than the margin: within it, or significantly worse."""
    return v.kind == NO_EFFECT or (v.kind == EFFECT and v.estimate < v.reference)


@dataclass
class DepthChange:
    """A variant's skill depth minus the base's.  Its 95% interval joins the two depths'
    97.5% profile-likelihood intervals (Bonferroni: ``low_v - high_b`` to ``high_v - low_b``),
    so it holds where a depth rests on the few games random won; a pairing over the common
    games would be tighter, but the delta method it needs is what fails there.  The verdict:
    an effect when the interval excludes 0, no effect when it lies within ±
    :data:`DEPTH_PRECISION` steps, else inconclusive."""

    variant: str
    value: float
    low: float
    high: float

    @property
    def kind(self) -> str:
        if self.low > 0 or self.high < 0:
            return EFFECT
        if -DEPTH_PRECISION <= self.low and self.high <= DEPTH_PRECISION:
            return NO_EFFECT
        return INCONCLUSIVE

    def text(self) -> str:
        ends = " to ".join(
            "unbounded" if not np.isfinite(x) else f"{x:+.1f}" for x in (self.low, self.high)
        )
        reading = {
            EFFECT: "it changes the depth",
            NO_EFFECT: f"no change beyond ±{DEPTH_PRECISION:g} step",
            INCONCLUSIVE: "inconclusive",
        }[self.kind]
        return (
            f"{self.variant} changes the skill depth by {self.value:+.1f} steps (95% CI "
            f"{ends}): {reading}"
        )

    def record(self) -> dict:
        return {
            "variant": self.variant,
            "value": self.value,
            "low": finite_or_none(self.low),
            "high": finite_or_none(self.high),
            "verdict": self.kind,
            "margin": DEPTH_PRECISION,
            "text": self.text(),
        }


@dataclass
class Skill:
    game: str
    n_players: int
    rungs: list[Rung]
    rated: list[Rated]  # one per variant, the first the base
    games: int  # per variant
    budget: int
    looks: int
    looks_planned: int
    lineups: list[list[str]]
    margin: float
    variants: list[dict] = field(default_factory=list)  # name and overrides

    @property
    def base(self) -> Rated:
        return self.rated[0]

    def depth_changes(self) -> list[DepthChange]:
        """Each variant's depth minus the base's (see :class:`DepthChange`)."""
        out = []
        base_low, base_high = self.base.depth_interval(1 - ALPHA / 2)
        for r in self.rated[1:]:
            low, high = r.depth_interval(1 - ALPHA / 2)
            value = r.depth().value - self.base.depth().value
            out.append(DepthChange(r.variant, value, low - base_high, high - base_low))
        return out

    def lines(self) -> list[str]:
        out = []
        for r in self.rated:
            if len(self.rated) > 1:
                out.append(f"variant {r.variant}:")
            out += rated_lines(r)
        out += [f"{c.text()} against {self.base.variant}" for c in self.depth_changes()]
        state = (
            "decided"
            if all(r.decided() for r in self.rated)
            else "undecided when the budget ran out"
        )
        out.append(
            f"{state} after {self.looks} of {self.looks_planned} looks: {self.games:,} games "
            f"(at most {self.budget:,}) over {len(self.lineups)} line-ups per variant"
        )
        return out

    def record(self) -> dict:
        return {
            "game": self.game,
            "n_players": self.n_players,
            "scale": "Plackett–Luce (Bradley–Terry head to head), Elo points, random = 0",
            "intervals": "95%, the model's information with a sandwich by game (delta method)",
            "step": STEP,
            "margin": self.margin,
            "games": self.games,
            "budget": self.budget,
            "looks": self.looks,
            "looks_planned": self.looks_planned,
            "lineups": self.lineups,
            "rungs": [
                {"name": r.name, "policies": list(r.policies), "rollouts": r.rollouts}
                for r in self.rungs
            ],
            "variants": [{**meta, **rated_record(r)} for meta, r in zip(self.variants, self.rated)],
            "depth_changes": [c.record() for c in self.depth_changes()],
            "decided": all(r.decided() for r in self.rated),
        }


def elo(x: float | None) -> str:
    return "unbounded" if x is None else f"{x:+.0f}".replace("-", "−")


def rated_lines(r: Rated) -> list[str]:
    out = [f"  {'rung':<14} {'Elo':>6}  95% CI (profile likelihood)"]
    for i, rung in enumerate(r.rungs):
        e = r.rating_record(i)
        shown = (
            "0 (reference)"
            if i == r.reference
            else f"{elo(e['value']):>6}  {elo(e['low'])} to {elo(e['high'])}"
        )
        out.append(f"  {rung.name:<14} {shown}")
    out.append(f"  skill depth: {depth_text(r)}")
    out.append(f"  plateau: {plateau_text(r)}")
    luck = r.luck()
    low, high = luck.interval
    out.append(
        f"  luck: {r.rungs[r.bottom].name} finished above {r.rungs[r.top].name} in "
        f"{luck.value:.1%} of the {luck.n:,} games where they met (95% CI {max(low, 0):.1%} "
        f"to {min(high, 1):.1%})"
    )
    return out


def depth_text(r: Rated) -> str:
    """'14.2 steps of 60% from random to search_32 (95% CI 12.9 to 15.8)', or 'at least'
    when the games set no upper end."""
    low, high = r.depth_interval(0.95)
    name = f"steps of {STEP:.0%} from {r.rungs[r.reference].name} to {r.rungs[r.top].name}"
    seen = f"{r.rungs[r.reference].name} finished above another rung in {r.above_reference()} games"
    if not np.isfinite(high):
        return (
            f"at least {low:.1f} {name} (95% profile-likelihood bound; {seen}, too few to "
            f"bound it above; fitted {r.depth().value:.1f})"
        )
    return (
        f"{r.depth().value:.1f} {name} (95% CI {low:.1f} to {high:.1f}, profile likelihood; {seen})"
    )


def plateau_text(r: Rated) -> str:
    state, budget, _ = r.plateau()
    steps = r.steps()
    if state == "none":
        return "not measured (fewer than two search budgets)"
    shown = "; ".join(
        f"{a.rollouts} → {b.rollouts}: {v.describe(signed_points, 'gain')}" for a, b, _, v in steps
    )
    margin = f"{100 * r.margin:g} points"
    if state == "reached":
        return f"from {budget} rollouts a doubling gains less than {margin} ({shown})"
    if state == "not reached":
        return f"not reached: the top budget still gains ({shown})"
    return f"undecided ({shown})"


def signed_points(x: float) -> str:
    return f"{100 * x:+.1f} points".replace("-", "−")


def rated_record(r: Rated) -> dict:
    state, budget, decided = r.plateau()
    d = r.depth()
    return {
        "ratings": [{"rung": rung.name, **r.rating_record(i)} for i, rung in enumerate(r.rungs)],
        "reference": r.rungs[r.reference].name,
        "strongest": r.rungs[r.top].name,
        "depth": {
            **d.record(),
            "low": finite_or_none(r.depth_interval(0.95)[0]),
            "high": finite_or_none(r.depth_interval(0.95)[1]),
            "interval": "profile likelihood",
            "text": depth_text(r),
            "decided": r.depth_decided(),
            "precision": DEPTH_PRECISION,
            "reference_above_games": r.above_reference(),
        },
        "plateau": {
            "state": state,
            "rollouts": budget,
            "decided": decided,
            "steps": [
                {"from": a.rollouts, "to": b.rollouts, **gain.record(), "verdict": v.record()}
                for a, b, gain, v in r.steps()
            ],
            "text": plateau_text(r),
        },
        "luck": {
            "weaker": r.rungs[r.bottom].name,
            "stronger": r.rungs[r.top].name,
            **r.luck().record(),
        },
        "alpha": r.alpha,
    }


def rate_ladder(
    lab: Lab,
    variants: list[Variant],
    rungs: list[Rung],
    n_players: int,
    n_games: int,
    seed: int = 1,
    margin: float = WIN_RATE_MARGIN,
) -> Skill:
    """Rate ``rungs`` under every variant (its rules carrying every rung's knob sets) on the
    same games, in looks of up to ``n_games`` games per variant (see the module docstring)."""
    rules = variants[0].rules
    teams = is_team_game(rules)
    tables = []
    for j, table in enumerate(lineups(rungs, n_players, teams)):
        lineup, owner = seat_policies(rungs, table, n_players, teams, j)
        tables.append(Table(Design(lab.game.name, lineup, seed), owner, j * GROUP_IDS))
    blocks = [t.design.block(rules) for t in tables]
    per_round = sum(blocks)
    rounds = max(1, -(-n_games // per_round))
    sizes = looks(max(1, rounds // 8), rounds)
    alpha = alpha_per_look(len(sizes), ALPHA)
    reference = next((i for i, r in enumerate(rungs) if r.name == RANDOM), 0)
    played = [[[] for _ in tables] for _ in variants]  # [variant][table] -> place arrays
    done, rated = 0, []
    for size in sizes:
        groups = [
            (t.design, [v.rules for v in variants], t.base + np.arange(done * b, size * b))
            for t, b in zip(tables, blocks)
        ]
        for j, ((_, _, ids), outcomes) in enumerate(zip(groups, lab.play_groups(groups))):
            owners = tables[j].owners(rules, ids)
            for v, o in enumerate(outcomes):
                played[v][j].append(places(o, owners, len(rungs)))
        done = size
        rated = [
            Rated(
                v.name,
                rungs,
                fit(choices(table), reference),
                margin,
                alpha,
                table,
            )
            for v, table in zip(variants, placed(played))
        ]
        if all(r.decided() for r in rated):
            break
    return Skill(
        lab.game.name,
        n_players,
        rungs,
        rated,
        done * per_round,
        rounds * per_round,
        sizes.index(done) + 1,
        len(sizes),
        [list(t.design.lineup) for t in tables],
        margin,
        [{"variant": v.name, "values": v.values} for v in variants],
    )


def placed(played: list[list[list[np.ndarray]]]) -> list[np.ndarray]:
    """Each variant's places of every game, in one order for all (line-up, then look)."""
    return [np.concatenate([p for per in tables for p in per]) for tables in played]


def write_skill(
    result: Skill,
    out: Path,
    command: str,
    extra: dict | None = None,
    charts: Callable | None = None,
) -> dict:
    """OUT/balsim.json (every number) and what ``charts(folder)`` draws from it (the report
    layer's ``skill.svg`` and ``skill.png``), written in a fresh folder moved into place."""
    from simulator.run.outputs import OUT_MARK, writing_result

    record = {
        "tool": SKILL_TOOL,
        "schema": SCHEMA,
        "command": command,
        **(extra or {}),
        **result.record(),
    }
    with writing_result(out) as tmp:
        (tmp / OUT_MARK).write_text(
            json.dumps(record, indent=1, default=str) + "\n", encoding="utf-8"
        )
        if charts is not None:
            charts(tmp)
    return record


def read_skill(out: Path) -> dict | None:
    """The record of a skill folder written by :func:`write_skill`, or None for any other."""
    from simulator.run.outputs import OUT_MARK

    try:
        record = json.loads((Path(out) / OUT_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if record.get("tool") == SKILL_TOOL and record.get("schema") == SCHEMA else None
