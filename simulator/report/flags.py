"""Balance flags: the findings a designer must see first, each with its number and interval.

Each rule below reads one analysis of a dataset and returns :class:`Flag` records; the same
finding (game, kind, subject) at several player counts or variants is merged into one
(:func:`merge_flags`).  One scale, and one way of applying thresholds, for every rule
(:data:`THRESHOLDS`; docs/analysis.md): a finding about a win rate is its effect on that win
rate in points at the end of its 95% interval nearest no effect (the fair share, or no
change), which weighs size and certainty together; it fires when that end lies at least its
threshold away, and ranks by it.  A finding about how games run (round cap, loans) fires when
its rate's lower end reaches a level, and follows, ranked by how far past it.

Intervals take the game as the unit (:mod:`simulator.analysis.clustered`).  Character, team
and neighbour findings use attributed effects (the policy held fixed; the dealt-card
estimate), never a raw rate the choosing policy or the seating would explain.  A flag whose
subject rests on ASSUMED rules data names those keys (:mod:`simulator.core.assumed`) and is a
what-if (:mod:`simulator.report.whatifs`), listed apart from the top flags.  A strong field's
dataset raises flags of its own (:mod:`simulator.report.strong`).  Three annotations render
when set: ``strong_field`` (does it hold in the other field?), ``challenge`` (can a re-tuned
challenger beat a dominant policy?) and ``sensitivity`` (which assumed values does it depend
on?: :mod:`simulator.report.screens`).  The flags box is drawn by :mod:`.flag_list`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from simulator.analysis import Dataset
from simulator.core.assumed import AssumedKey, assumed_keys, assumed_under, changed_keys
from simulator.core.game import SEARCH_POLICY
from simulator.report.page import group_text, interval, p_text, pct
from simulator.report.whatifs import Sensitivity

# players.side (Karmaggän): on the starting team (seat 0's, whose label is drawn) or not
SIDE_NAMES = {"starting": "starting team", "other": "other team"}
# When a finding becomes a flag.  A "fair share" is the win rate of an average player at that
# player count (1/n with one winner per game, 1/2 for two teams).
THRESHOLDS = {
    # findings about a win rate: the interval's end nearest no effect at least this many
    # points (as fractions: 0.02 = 2 points) from it
    "seat": 0.02,  # a seat off its fair share ...
    "seat_p_value": 0.001,  # ... once the chi-square over seats (teams) rejects equal shares
    "dominant_policy": 0.10,  # a policy above its fair share
    "weak_policy": 0.10,  # a scripted policy below its fair share
    "character": 0.05,  # a character's players over the same policies' other players
    "team": 0.02,  # a team, each player's policy held fixed, off its fair share
    "neighbour": 0.02,  # sitting after a policy moves its players' win rate (Holm p < 0.05)
    "variant": 0.02,  # a rule variant moves a win rate (Holm p < 0.05)
    "presidency": 0.05,  # the most valuable company's mid-game president, the same way
    "runaway_rate": 0.8,  # the leader two thirds into the game: its win rate's lower end
    # findings about how games run: the lower end of the rate at least this level
    "round_cap_rate": 0.01,  # games ending at the round cap
    "loan_cap_binding": 0.5,  # players of a policy whose loans reach the cap
    "delinquency_rate": 0.25,  # players of a policy with a delinquent payment notice
}
MAX_HEADLINES = 5  # flags on the first screen; the others fold under "more flags"
# a flag among the first screen's rests on at least this many games per arm (per variant of
# its dataset): at 1,000 games a seat's share of 1/4 is known within about ±2.7 points, so a
# flag's verdict (its interval's end past its threshold at the study's 95%) is not a few
# games' luck; a flag on fewer is listed under the fold, saying so
MIN_BASIS_GAMES = 1_000
MAX_ALSO = 3  # other datasets quoted under a merged flag


HOLDS, FLIPS, NOT_SHOWN = "holds", "flips", "not shown"  # a finding in another field


@dataclass(frozen=True)
class FieldCheck:
    """A finding measured again with another field of players: ``verdict`` is HOLDS (its
    interval there lies wholly on the same side of no effect), FLIPS (wholly on the other
    side) or NOT_SHOWN (it reaches no effect: neither shown nor refuted)."""

    verdict: str
    mine: str  # the finding's number in its own field, e.g. "80.6% (95% CI ...)"
    other: str  # the same number in the other field
    field: str = "tuned"  # the finding's own field
    other_field: str = "scripted"

    def text(self) -> str:
        mine = f"{self.mine} with the {self.field} field"
        other = f"{self.other} with the {self.other_field} field"
        if self.verdict == HOLDS:
            return f"holds at every strength: {mine}, {other}"
        if self.verdict == FLIPS:
            return f"depends on player strength: {mine}, but {other}"
        return (
            f"not shown with the {self.other_field} field: {other} (its interval reaches no "
            f"effect), {mine}"
        )


@dataclass(frozen=True)
class ChallengeCheck:
    """Can a re-tuned challenger or a search seat beat a dominant policy?  ``balsim
    challenge`` played against a field of it (:func:`simulator.experiments.strength.challenge`)."""

    dominant: bool
    verdict: str  # the challenge's verdict sentence
    best: str  # the best challenger and its held-out win rate

    def text(self) -> str:
        return f"challenge: {self.verdict} (best challenger: {self.best})"


@dataclass
class Flag:
    game: str
    n_players: int
    kind: str  # the rule that fired, e.g. "dominant character"
    subject: str  # what the finding is about ("Nadia", "seat 0", "" for the whole game)
    # the finding's size in points as a fraction (0.05 = 5 points): on a win rate, its
    # distance from no effect (|rate - fair share|, |change|); else its rate past its level
    effect: float
    effect_low: float  # the same at the interval end nearest to no effect (>= 0): ranks flags
    text: str  # one sentence with the number and its interval
    evidence: str  # the number and interval alone, for the merged list of player counts
    where: str  # the dataset it comes from, e.g. "4 players (karnaxis-4p)"
    anchor: str  # id of the chart that shows it
    chart: str  # that chart's title
    assumed: tuple[AssumedKey, ...] = ()
    strong_field: FieldCheck | None = None
    sensitivity: Sensitivity | None = None
    challenge: ChallengeCheck | None = None
    field_name: str = ""  # the field of a strong dataset's own finding ("" for scripted ones)
    games: int = 0  # games per arm (per variant) of the dataset it comes from
    metric: str = ""  # the screen metric that measures the finding, when its kind does not say
    also: list["Flag"] = field(default_factory=list)  # the same finding elsewhere
    on_win_rate: bool = True  # False: a finding about how games run (round cap, loans)
    # a level's win rate over the same policies' other players: its table among a dataset's
    # analyses and its level there, where another field's dataset measures it again
    within: tuple[str, str] = ()

    @property
    def finding(self) -> tuple[str, str, str, str]:
        return self.game, self.kind, self.subject, self.field_name


def merge_flags(flags: list[Flag]) -> list[Flag]:
    """One flag per finding (the strongest instance, the others in ``also``), ranked: the
    findings about a win rate first, by their effect at the interval end nearest no effect,
    then the others by how far that end lies past their level."""
    ranked = sorted(flags, key=lambda f: (not f.on_win_rate, -f.effect_low, -f.effect))
    heads: dict[tuple, Flag] = {}
    for f in ranked:
        if f.finding in heads:
            heads[f.finding].also.append(f)
        else:
            heads[f.finding] = f
    return list(heads.values())


def anchor(i: int, name: str) -> str:
    """Id of a chart block of dataset ``i`` (the sections and the flags agree on it)."""
    return f"ds{i}-{name}"


def away(value: float, lo: float, hi: float, reference: float) -> tuple[float, float]:
    """(|value - reference|, the distance from the reference of the interval end nearest it,
    0 when the interval holds it): a finding's effect and the effect that counts."""
    nearest = lo - reference if value >= reference else reference - hi
    return abs(value - reference), max(0.0, nearest)


def past(value: float, lo: float, level: float) -> tuple[float, float]:
    """(value - level, lower end - level, 0 when below): a rate that matters above a level."""
    return value - level, max(0.0, lo - level)


def points(x: float) -> str:
    """A difference of rates in percentage points, signed."""
    return f"{100 * x:+.1f} points".replace("-", "−")


def evidence(r: dict, rate: str = "win_rate", n: str = "n") -> str:
    return f"{pct(r[rate])} ({interval(r[rate + '_lo'], r[rate + '_hi'])}, n = {r[n]:,})"


class Rules:
    """The flag rules for one dataset; ``flags()`` runs every rule that has its analysis."""

    def __init__(self, i: int, ds: Dataset, res: dict):
        self.i, self.ds, self.res = i, ds, res
        self.out: list[Flag] = []

    def flags(self) -> list[Flag]:
        """Every rule of this module, then the game's own (``flag_rules`` of
        ``simulator.games.GAME.report``, which add their flags with :meth:`add`)."""
        for rule in (
            self.seats,
            self.policies,
            self.characters,
            self.teams,
            self.neighbours,
            self.variants,
            self.round_cap,
            self.runaway,
        ):
            rule()
        own = self.ds.engine.hook("report") if self.ds.engine else None
        if hasattr(own, "flag_rules"):
            own.flag_rules(self)
        return self.out

    def add(self, kind, subject, effect, text, ev, name, chart, subjects=(), row=None, **flag):
        """A flag from one rule; ``flag`` holds Flag's optional fields (metric, on_win_rate)."""
        where = f"{self.ds.n_players} players ({self.ds.path.name}{self.variant_note(row or {})})"
        self.out.append(
            Flag(
                self.ds.game,
                self.ds.n_players,
                kind,
                subject,
                effect[0],
                effect[1],
                f"{self.ds.label}: {text}",
                ev,
                where,
                anchor(self.i, name),
                chart,
                tuple(self.assumed(subjects)),
                games=self.ds.n_games,
                **flag,
            )
        )

    def assumed(self, subjects) -> list[AssumedKey]:
        game = self.ds.engine
        if not subjects or game is None:
            return []
        return assumed_under(
            assumed_keys(game.rules_path), subjects, self.ds.rules, game.default_rules()
        )

    def variant_note(self, row: dict) -> str:
        v = row.get("variant")
        return f", variant {v}" if v not in (None, "") and len(self.ds.variants) > 1 else ""

    # ------------------------------------------------------------------------- rules

    @staticmethod
    def beyond(effect: tuple[float, float], threshold: str) -> bool:
        """Whether a finding's effect at its interval's near end reaches its threshold."""
        return effect[1] > 0 and effect[1] >= THRESHOLDS[threshold]

    def seats(self):
        """A seat whose win rate is significantly and noticeably off the fair share (the seat
        test at team level in team games): the first player's, else the farthest seat's."""
        seat = self.res.get("seat_advantage")
        for r in seat.iter_rows(named=True) if seat is not None else ():
            if not r["p_value"] < THRESHOLDS["seat_p_value"]:
                continue
            fair = r["fair_share"]
            over = "teams" if r.get("unit") == "team" else "seats"
            chi = f"chi-square over {over} {p_text(r['p_value'])}, {r['n_games']:,} games"
            which = max(("best", "worst"), key=lambda w: abs(r[f"{w}_win_rate"] - fair))
            for name, subject in (("first", 0), (which, r[f"{which}_seat"])):
                rate, lo, hi = (r[f"{name}_win_rate{s}"] for s in ("", "_lo", "_hi"))
                effect = away(rate, lo, hi, fair)
                if not self.beyond(effect, "seat"):
                    continue
                ev = f"{pct(rate)} ({interval(lo, hi)})"
                who = (
                    f"the first player wins {'more' if rate > fair else 'less'} than a fair "
                    f"share: {ev} against {pct(fair)}"
                    if name == "first"
                    else f"seat {subject} wins {ev} against a fair {pct(fair)}"
                )
                text = f"{who} ({points(rate - fair)}; {chi}{self.variant_note(r)})."
                self.add(
                    "seat",
                    f"seat {subject}",
                    effect,
                    text,
                    ev,
                    "win-seat",
                    "Win rate by seat",
                    row=r,
                )
                break

    def policies(self):
        """Dominant or hopeless policies (seats and neighbours are balanced, so the rate is the
        policy's own)."""
        df = self.res.get("win_rate_policy")
        if df is None or not df["fair_share"][0]:
            return
        fair = df["fair_share"][0]
        for r in df.iter_rows(named=True):
            name, ev = r["policy"], evidence(r)
            # a search seat's edge is its skill (the skill section), not a strategy of the
            # game that a designer balances, nor one to challenge
            if name == SEARCH_POLICY:
                continue
            effect = away(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"], fair)
            above = r["win_rate"] > fair
            if above and self.beyond(effect, "dominant_policy"):
                self.add(
                    "dominant policy",
                    name,
                    effect,
                    f"policy {name} wins {ev} of its games, {points(r['win_rate'] - fair)} over "
                    f"its fair share of {pct(fair)}.",
                    ev,
                    "win-policy",
                    "Win rate by policy",
                    [f"policies.{name}"],
                )
            elif not above and name != "random" and self.beyond(effect, "weak_policy"):
                self.add(
                    "weak policy",
                    name,
                    effect,
                    f"a policy far below its fair share of {pct(fair)}: {name} wins "
                    f"{ev} ({points(r['win_rate'] - fair)}).",
                    ev,
                    "win-policy",
                    "Win rate by policy",
                    [f"policies.{name}"],
                )

    def characters(self):
        """Characters whose players win far more than players of the same policies holding
        another character (the policy that picks a card is held fixed)."""
        strat = self.res.get("stratified_character")
        if strat is None:
            return
        effects = self._effects("character")
        dealt = self.res.get("dealt_character")
        dealt = (
            {r["character"]: r for r in dealt.iter_rows(named=True)} if dealt is not None else {}
        )
        for r in strat.iter_rows(named=True):
            effect = away(r["excess"], r["excess_lo"], r["excess_hi"], 0.0)
            if not (r["excess"] > 0 and self.beyond(effect, "character")):
                continue
            name = r["level"]
            ev = signed(r["excess"], r["excess_lo"], r["excess_hi"])
            text = (
                f"players who keep character {name} win {pct(r['raw_rate'])} "
                f"({interval(r['raw_rate_lo'], r['raw_rate_hi'])}, n = {r['n']:,}) against "
                f"{pct(r['expected_rate'])} for players of the same policies with another "
                f"character: {ev}"
            )
            if name in effects:
                text += f"; {effects[name]}"
            if r["confounded"]:
                text += (
                    f"; its raw rate is confounded with the policies that choose it "
                    f"({r['main_stratum']} in {pct(r['main_stratum_share'])} of its games; "
                    f"{pct(r['adjusted_rate'])} with the field's policy mix)"
                )
            if name in dealt:
                d = dealt[name]
                text += (
                    f"; players dealt the card (chance alone) win {pct(d['win_rate_dealt'])} "
                    f"({interval(d['win_rate_dealt_lo'], d['win_rate_dealt_hi'])}), "
                    f"{signed(d['dealt_effect'], d['dealt_effect_lo'], d['dealt_effect_hi'])} "
                    f"against those not dealt it, and keep it {pct(d['keep_rate'])} of the time"
                )
            self.add(
                "dominant character",
                name,
                effect,
                text + ".",
                ev,
                "attribution-character",
                "Character win rates within policy",
                [f"characters[{name}]"],
                within=("stratified_character", name),
            )

    def _effects(self, component: str) -> dict[str, str]:
        """'+x points on a win rate (95% CI ...) ...' of each level of a component: its average
        marginal effect in the attribution."""
        table = self.res.get("attribution")
        if table is None:
            return {}
        rows = table.filter((pl.col("component") == component) & pl.col("effect_lo").is_finite())
        return {
            r["level"]: f"{signed(r['effect'], r['effect_lo'], r['effect_hi'])} on a win rate "
            f"against the field, seat, policy and left neighbour held fixed (average "
            f"marginal effect)"
            for r in rows.iter_rows(named=True)
        }

    def teams(self):
        """The starting team (seat 0's) or the other winning too often, with each player's
        policy held fixed."""
        strat, raw = self.res.get("stratified_side"), self.res.get("win_rate_side")
        if strat is None or raw is None:
            return
        fair = raw["fair_share"][0]
        for r in strat.iter_rows(named=True):
            rate, lo, hi = r["adjusted_rate"], r["adjusted_rate_lo"], r["adjusted_rate_hi"]
            effect = away(rate, lo, hi, fair)
            if rate > fair and self.beyond(effect, "team"):
                ev = f"{pct(rate)} ({interval(lo, hi)}, n = {r['n']:,})"
                team = SIDE_NAMES.get(r["level"], r["level"])
                self.add(
                    "team",
                    team,
                    effect,
                    f"the {team} wins {ev} of games against a fair {pct(fair)} "
                    f"({points(rate - fair)}), with each player's policy held fixed.",
                    ev,
                    "attribution-side",
                    "Starting and other team win rates within policy",
                    # at an odd count one team has the extra player: which one is assumed
                    ["game.extra_player"] if self.ds.n_players % 2 else [],
                )

    def neighbours(self):
        """Players seated just after a policy win more or less than their own policies do."""
        df = self.res.get("neighbour_summary")
        for r in df.iter_rows(named=True) if df is not None else ():
            effect = away(r["excess"], r["excess_lo"], r["excess_hi"], 0.0)
            if not (r["p_holm"] < 0.05 and self.beyond(effect, "neighbour")):
                continue
            ev = signed(r["excess"], r["excess_lo"], r["excess_hi"])
            self.add(
                "left neighbour",
                r["left_policy"],
                effect,
                f"the players seated just after {r['left_policy']} win {pct(r['win_rate'])} "
                f"of their games against the {pct(r['expected_rate'])} their own policies win "
                f"after any neighbour: {ev}, Holm {p_text(r['p_holm'])}, n = {r['n']:,}.",
                ev,
                "neighbours",
                "Win rate by left neighbour",
            )

    def variants(self):
        """A rule variant that changes a win rate significantly (after Holm's correction) and
        by at least the threshold at its interval's near end."""
        df = self.res.get("paired_change")
        if df is None:
            return
        rules = {v["name"]: v["rules"] for v in self.ds.variants}
        base = self.ds.variants[0]["name"]
        changed = df.filter(pl.col("significant") & (pl.col("metric") == "win_rate"))
        for (variant,), part in changed.group_by("variant", maintain_order=True):
            found = [
                (away(r["mean_diff"], r["diff_lo"], r["diff_hi"], 0.0), r)
                for r in part.iter_rows(named=True)
            ]
            found = [(e, r) for e, r in found if self.beyond(e, "variant")]
            if not found:
                continue
            effect, top = max(found, key=lambda f: (f[0][1], f[0][0]))
            more = f" ({len(found) - 1} more such changes in the table)" if len(found) > 1 else ""
            ev = f"{pct(top['base_mean'])} → {pct(top['variant_mean'])}"
            keys = changed_keys(rules.get(base, {}), rules.get(variant, {}))
            self.add(
                "variant",
                variant,
                effect,
                f"variant {variant} moves the win rate of {group_text(top['group'])} from "
                f"{pct(top['base_mean'])} to {pct(top['variant_mean'])} "
                f"({signed(top['mean_diff'], top['diff_lo'], top['diff_hi'])}, "
                f"Holm {p_text(top['p_holm'])}){more}.",
                ev,
                "paired",
                "Change against the base rules",
                keys,
            )

    def round_cap(self):
        df = self.res.get("round_cap")
        limit = THRESHOLDS["round_cap_rate"]
        for r in df.iter_rows(named=True) if df is not None else ():
            effect = past(r["rate"], r["rate_lo"], limit)
            if r["rate_lo"] >= limit:
                ev = f"{pct(r['rate'])} ({interval(r['rate_lo'], r['rate_hi'])})"
                self.add(
                    "round_cap",
                    "",
                    effect,
                    f"{pct(r['rate'])} of games end at the round cap "
                    f"({interval(r['rate_lo'], r['rate_hi'])}, "
                    f"{r['games']:,} games{self.variant_note(r)}).",
                    ev,
                    "end",
                    "How games end",
                    ["game.round_cap"],
                    row=r,
                    on_win_rate=False,
                )

    def runaway(self):
        """The leader two thirds into the game wins most games: its win rate's lower end
        reaches the level; ranked by that end's distance from the fair share."""
        df = self.res.get("runaway_leader")
        for r in df.iter_rows(named=True) if df is not None else ():
            if r["rate_lo"] >= THRESHOLDS["runaway_rate"]:
                ev = f"{pct(r['rate'])} ({interval(r['rate_lo'], r['rate_hi'])})"
                self.add(
                    "runaway",
                    "",
                    away(r["rate"], r["rate_lo"], r["rate_hi"], r["fair_share"]),
                    f"the leader two thirds into the game wins {ev} of games ({r['games']:,} "
                    f"games{self.variant_note(r)}): the end is decided early.",
                    ev,
                    "runaway",
                    "Runaway leader",
                    row=r,
                )


def signed(value: float, lo: float, hi: float) -> str:
    """'+1.2 points (95% CI +0.3 to +2.1)'."""
    return f"{points(value)} (95% CI {100 * lo:+.1f} to {100 * hi:+.1f})".replace("-", "−")
