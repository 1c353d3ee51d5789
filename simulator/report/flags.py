"""Balance flags: the findings a designer must see first, each with its number and interval.

Each rule below reads one analysis of a dataset and returns :class:`Flag` records.  A flag
names its finding (game, kind, subject), so the same finding at several player counts or
variants is merged into one (:func:`merge_flags`); flags are ranked by the effect they show at
the end of their interval nearest to no effect, which weighs size and certainty together.

Per-character, per-team and neighbour findings use the attributed effect (the win rate with
the policy held fixed, and the odds ratio with seat and policy held fixed), never a raw rate
that the policy choosing a character, or the seating, would explain.  A flag whose subject
rests on ASSUMED rules data names those keys (derived by :mod:`simulator.core.assumed`).

Two annotations render when set: ``strong_field`` (does the finding hold when strong players
take the seats?) and ``sensitivity`` (which assumed values does it depend on?), filled from a
sensitivity screen of the same game by :mod:`simulator.report.screens`.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import polars as pl

from simulator.analysis import Dataset
from simulator.core.assumed import AssumedKey, assumed_keys, assumed_under, changed_keys
from simulator.core.game import GAME_NAMES, get_game
from simulator.report.page import interval, p_text, pct

# When a finding becomes a flag.  Rates are compared with the "fair share": the win rate of an
# average player at that player count (1/n with one winner per game).
# players.side (Karmaggän): on the starting team (seat 0's, whose label is drawn) or not
SIDE_NAMES = {"starting": "starting team", "other": "other team"}
THRESHOLDS = {
    "seat_p_value": 0.001,  # chi-square over seats must reject equal shares ...
    "seat_relative": 0.10,  # ... and a seat must be >= 10% off its fair share, CI excluding it
    "dominant_ratio": 1.3,  # a policy whose CI lower bound is >= 1.3x fair share; a character
    # whose players win >= 1.3x what the same policies win without it
    "weak_ratio": 0.25,  # a scripted policy whose CI upper bound is < 0.25x fair share
    "team_relative": 0.10,  # a team >= 10% off its fair share, CI excluding it
    "neighbour_relative": 0.10,  # sitting after a policy moves the win rate >= 10%, CI excluding 0
    "round_cap_rate": 0.01,  # >= 1% of games end at the round cap
    "loan_cap_binding": 0.5,  # the loan cap binds for most players of a policy
    "delinquency_rate": 0.25,  # a quarter of a policy's players get delinquent notices
    "runaway_rate": 0.8,  # the leader two thirds in wins >= 80% of games
    "presidency_ratio": 1.5,  # the top company's president wins >= 1.5x what players of the
    # same policies win without presiding it
}
MAX_HEADLINES = 5  # flags on the first screen; the others fold under "more flags"
MAX_ALSO = 3  # other datasets quoted under a merged flag


@dataclass(frozen=True)
class FieldCheck:
    """Whether a finding holds when strong players (search, tuned policies) take the seats."""

    holds: bool
    scripted: str  # the finding's number with the scripted policies, e.g. "80.6% (95% CI ...)"
    strong: str  # the same number with a strong field

    def text(self) -> str:
        verdict = "holds with strong players" if self.holds else "only with scripted bots"
        return f"{verdict}: {self.strong} with a strong field, {self.scripted} with scripted bots"


@dataclass(frozen=True)
class Sensitivity:
    """Which screened rules keys the finding depends on (empty: robust to all of them)."""

    keys: tuple[str, ...]
    screened: tuple[str, ...] = ()  # every key the screen moved
    players: int = 0  # the screen's player count, when not the flag's own
    unscreened: str = ""  # why no screen metric measures the finding, if none does

    def text(self) -> str:
        if self.unscreened:
            return f"not screened against the assumed values: {self.unscreened}"
        scope = [f"{len(self.screened)} keys screened"] if self.screened else []
        scope += [f"at {self.players} players"] if self.players else []
        scope_text = f" ({', '.join(scope)})" if scope else ""
        verdict = (
            f"depends on {', '.join(self.keys)}" if self.keys else "robust to the assumed values"
        )
        return verdict + scope_text


@dataclass
class Flag:
    game: str
    n_players: int
    kind: str  # the rule that fired, e.g. "dominant character"
    subject: str  # what the finding is about ("Nadia", "seat 0", "" for the whole game)
    effect: float  # relative size of the finding (e.g. |rate - fair| / fair)
    effect_low: float  # the same at the interval end nearest to no effect: ranks the flags
    text: str  # one sentence with the number and its interval
    evidence: str  # the number and interval alone, for the merged list of player counts
    where: str  # the dataset it comes from, e.g. "4 players (karnaxis-4p)"
    anchor: str  # id of the chart that shows it
    chart: str  # that chart's title
    assumed: tuple[AssumedKey, ...] = ()
    strong_field: FieldCheck | None = None
    sensitivity: Sensitivity | None = None
    metric: str = ""  # the screen metric that measures the finding, when its kind does not say
    also: list["Flag"] = field(default_factory=list)  # the same finding elsewhere

    @property
    def finding(self) -> tuple[str, str, str]:
        return self.game, self.kind, self.subject


def merge_flags(flags: list[Flag]) -> list[Flag]:
    """One flag per finding (the strongest instance, the others in ``also``), ranked."""
    ranked = sorted(flags, key=lambda f: (-f.effect_low, -f.effect))
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


def relative(rate: float, lo: float, hi: float, reference: float) -> tuple[float, float]:
    """(|rate - reference| / reference, the same at the interval end nearest the reference)."""
    if not reference:
        return 0.0, 0.0
    nearest = lo - reference if rate >= reference else reference - hi
    return abs(rate - reference) / reference, max(0.0, nearest / reference)


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
        for rule in (
            self.seats,
            self.policies,
            self.characters,
            self.teams,
            self.neighbours,
            self.variants,
            self.round_cap,
            self.runaway,
            self.loans,
            self.presidency,
        ):
            rule()
        return self.out

    def add(self, kind, subject, effect, text, ev, name, chart, subjects=(), row=None, metric=""):
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
                metric=metric,
            )
        )

    def assumed(self, subjects) -> list[AssumedKey]:
        if not subjects or self.ds.game not in GAME_NAMES:
            return []
        game = get_game(self.ds.game)
        return assumed_under(
            assumed_keys(game.rules_path), subjects, self.ds.rules, game.default_rules()
        )

    def variant_note(self, row: dict) -> str:
        v = row.get("variant")
        return f", variant {v}" if v not in (None, "") and len(self.ds.variants) > 1 else ""

    # ------------------------------------------------------------------------- rules

    def seats(self):
        """A seat whose win rate is significantly and noticeably off the fair share."""
        seat = self.res.get("seat_advantage")
        for r in seat.iter_rows(named=True) if seat is not None else ():
            if not r["p_value"] < THRESHOLDS["seat_p_value"]:
                continue
            fair = r["fair_share"]
            chi = (
                f"chi-square over seats {p_text(r['p_value'])}, {r['n_games']:,} games"
                f"{self.variant_note(r)}"
            )
            if self._off(
                r["first_win_rate"],
                r["first_win_rate_lo"],
                r["first_win_rate_hi"],
                fair,
                "seat_relative",
            ):
                what = "more" if r["first_win_rate"] > fair else "less"
                ev = (
                    f"{pct(r['first_win_rate'])} "
                    f"({interval(r['first_win_rate_lo'], r['first_win_rate_hi'])})"
                )
                self.add(
                    "seat",
                    "seat 0",
                    relative(
                        r["first_win_rate"], r["first_win_rate_lo"], r["first_win_rate_hi"], fair
                    ),
                    f"the first player wins {what} than a fair share: {ev} against {pct(fair)} "
                    f"({chi}).",
                    ev,
                    "win-seat",
                    "Win rate by seat",
                    row=r,
                )
                continue
            which = max(("best", "worst"), key=lambda w: abs(r[f"{w}_win_rate"] - fair))
            rate, lo, hi = (r[f"{which}_win_rate{s}"] for s in ("", "_lo", "_hi"))
            if self._off(rate, lo, hi, fair, "seat_relative"):
                ev = f"{pct(rate)} ({interval(lo, hi)})"
                self.add(
                    "seat",
                    f"seat {r[f'{which}_seat']}",
                    relative(rate, lo, hi, fair),
                    f"seat {r[f'{which}_seat']} wins {ev} against a fair {pct(fair)} ({chi}).",
                    ev,
                    "win-seat",
                    "Win rate by seat",
                    row=r,
                )

    @staticmethod
    def _off(rate, lo, hi, fair, threshold) -> bool:
        return (
            bool(fair)
            and (lo > fair or hi < fair)
            and abs(rate - fair) / fair >= THRESHOLDS[threshold]
        )

    def policies(self):
        """Dominant or hopeless policies (seats and neighbours are balanced, so the rate is the
        policy's own)."""
        df = self.res.get("win_rate_policy")
        if df is None or not df["fair_share"][0]:
            return
        fair = df["fair_share"][0]
        for r in df.iter_rows(named=True):
            name, ev = r["policy"], evidence(r)
            if r["win_rate_lo"] >= THRESHOLDS["dominant_ratio"] * fair:
                self.add(
                    "dominant policy",
                    name,
                    relative(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"], fair),
                    f"policy {name} wins {ev} of its games, {r['win_rate'] / fair:.1f}× its fair "
                    f"share of {pct(fair)}.",
                    ev,
                    "win-policy",
                    "Win rate by policy",
                    [f"policies.{name}"],
                )
            elif name != "random" and r["win_rate_hi"] < THRESHOLDS["weak_ratio"] * fair:
                self.add(
                    "weak policy",
                    name,
                    relative(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"], fair),
                    f"scripted policies that almost never win, against a fair share of "
                    f"{pct(fair)}: {name} {ev}.",
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
        odds = self._odds("character")
        dealt = self.res.get("karnaxis_dealt")
        dealt = (
            {r["character"]: r for r in dealt.iter_rows(named=True)} if dealt is not None else {}
        )
        for r in strat.iter_rows(named=True):
            effect = self._excess(r, "dominant_ratio")
            if effect is None:
                continue
            name = r["level"]
            ev = self._excess_text(r)
            text = (
                f"players who keep character {name} win {pct(r['raw_rate'])} "
                f"({interval(r['raw_rate_lo'], r['raw_rate_hi'])}, n = {r['n']:,}) against "
                f"{pct(r['expected_rate'])} for players of the same policies with another "
                f"character: {ev}"
            )
            if name in odds:
                text += f"; {odds[name]}"
            if r["confounded"]:
                text += (
                    f"; its raw rate is confounded with the policies that choose it "
                    f"({r['main_stratum']} in {pct(r['main_stratum_share'])} of its games; "
                    f"{pct(r['adjusted_rate'])} with the field's policy mix)"
                )
            if name in dealt:
                d = dealt[name]
                text += (
                    f"; players dealt the card win {pct(d['win_rate_dealt'])} "
                    f"({interval(d['win_rate_dealt_lo'], d['win_rate_dealt_hi'])}) and keep it "
                    f"{pct(d['keep_rate'])} of the time"
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
            )

    @staticmethod
    def _excess(r: dict, threshold: str) -> tuple[float, float] | None:
        """(excess / expected, the same at the interval's lower end) when the lower end reaches
        the threshold ratio over the rate the same policies have without the level."""
        expected = r["expected_rate"]
        if not expected or r["excess_lo"] / expected < THRESHOLDS[threshold] - 1:
            return None
        return r["excess"] / expected, r["excess_lo"] / expected

    @staticmethod
    def _excess_text(r: dict) -> str:
        return (
            f"{points(r['excess'])} (95% CI {100 * r['excess_lo']:+.1f} to "
            f"{100 * r['excess_hi']:+.1f})"
        ).replace("-", "−")

    def _odds(self, component: str) -> dict[str, str]:
        """'odds ratio x (95% CI a–b) ...' of each level of a component, from the attribution."""
        table = self.res.get("attribution")
        if table is None:
            return {}
        rows = table.filter((pl.col("component") == component) & pl.col("or_lo").is_finite())
        return {
            r["level"]: f"odds ratio {r['odds_ratio']:.2f} (95% CI {r['or_lo']:.2f}–"
            f"{r['or_hi']:.2f}) against the average {component.replace('_', ' ')}, "
            f"seat, policy and the other components held fixed"
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
            if lo > fair and self._off(rate, lo, hi, fair, "team_relative"):
                ev = f"{pct(rate)} ({interval(lo, hi)}, n = {r['n']:,})"
                team = SIDE_NAMES.get(r["level"], r["level"])
                self.add(
                    "team",
                    team,
                    relative(rate, lo, hi, fair),
                    f"the {team} wins {ev} of games against a fair {pct(fair)}, "
                    f"with each player's policy held fixed.",
                    ev,
                    "attribution-side",
                    "Starting and other team win rates within policy",
                )

    def neighbours(self):
        """Players seated just after a policy win more or less than their own policies do."""
        df = self.res.get("neighbour_summary")
        for r in df.iter_rows(named=True) if df is not None else ():
            expected, excess = r["expected_rate"], r["excess"]
            if not (
                expected
                and r["p_holm"] < 0.05
                and (r["excess_lo"] > 0 or r["excess_hi"] < 0)
                and abs(excess) / expected >= THRESHOLDS["neighbour_relative"]
            ):
                continue
            half = (r["excess_hi"] - r["excess_lo"]) / 2
            ev = (
                f"{points(excess)} (95% CI {100 * r['excess_lo']:+.1f} to "
                f"{100 * r['excess_hi']:+.1f})"
            ).replace("-", "−")
            self.add(
                "left neighbour",
                r["left_policy"],
                (abs(excess) / expected, max(0.0, abs(excess) - half) / expected),
                f"the players seated just after {r['left_policy']} win {pct(r['win_rate'])} "
                f"of their games against the {pct(expected)} their own policies win after "
                f"any neighbour: {ev}, Holm {p_text(r['p_holm'])}, n = {r['n']:,}.",
                ev,
                "neighbours",
                "Win rate by left neighbour",
            )

    def variants(self):
        """A rule variant that changes a win rate significantly (after Holm's correction)."""
        df = self.res.get("paired_change")
        if df is None:
            return
        rules = {v["name"]: v["rules"] for v in self.ds.variants}
        base = self.ds.variants[0]["name"]
        changed = df.filter(pl.col("significant") & (pl.col("metric") == "win_rate"))
        for (variant,), part in changed.group_by("variant", maintain_order=True):
            top = part.sort(pl.col("mean_diff").abs(), descending=True).row(0, named=True)
            more = f" ({part.height - 1} more such changes in the table)" if part.height > 1 else ""
            base_rate = max(abs(top["base_mean"]), 1e-9)
            half = (top["diff_hi"] - top["diff_lo"]) / 2
            effect = (
                abs(top["mean_diff"]) / base_rate,
                max(0.0, abs(top["mean_diff"]) - half) / base_rate,
            )
            ev = f"{pct(top['base_mean'])} → {pct(top['variant_mean'])}"
            keys = changed_keys(rules.get(base, {}), rules.get(variant, {}))
            self.add(
                "variant",
                variant,
                effect,
                f"variant {variant} moves the win rate of {top['group']} from "
                f"{pct(top['base_mean'])} to {pct(top['variant_mean'])} "
                f"(change {interval(top['diff_lo'], top['diff_hi'])}, "
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
            if r["rate"] >= limit:
                ev = f"{pct(r['rate'])} ({interval(r['rate_lo'], r['rate_hi'])})"
                self.add(
                    "round_cap",
                    "",
                    (r["rate"] / limit - 1, max(0.0, r["rate_lo"] / limit - 1)),
                    f"{pct(r['rate'])} of games end at the round cap "
                    f"({interval(r['rate_lo'], r['rate_hi'])}, "
                    f"{r['games']:,} games{self.variant_note(r)}).",
                    ev,
                    "end",
                    "How games end",
                    ["game.round_cap"],
                    row=r,
                )

    def runaway(self):
        df = self.res.get("runaway_leader")
        for r in df.iter_rows(named=True) if df is not None else ():
            if r["rate"] >= THRESHOLDS["runaway_rate"]:
                ev = f"{pct(r['rate'])} ({interval(r['rate_lo'], r['rate_hi'])})"
                self.add(
                    "runaway",
                    "",
                    relative(r["rate"], r["rate_lo"], r["rate_hi"], r["fair_share"]),
                    f"the leader two thirds into the game wins {ev} of games ({r['games']:,} "
                    f"games{self.variant_note(r)}): the end is decided early.",
                    ev,
                    "runaway",
                    "Runaway leader",
                    row=r,
                )

    def loans(self):
        df = self.res.get("karnaxis_loans")
        if df is None or "policy" not in df.columns:
            return
        for rate, kind, what in (
            ("cap_binding", "loan_cap_binding", "the loan cap binds for"),
            ("delinquent", "delinquency_rate", "delinquent payment notices hit"),
        ):
            limit = THRESHOLDS[kind]
            hit = sorted(
                (
                    r
                    for r in df.iter_rows(named=True)
                    if r.get(rate) is not None and r[rate] >= limit
                ),
                key=lambda r: -r[rate],
            )
            if hit:
                names = "; ".join(
                    f"{pct(r[rate])} of {r['policy']} players "
                    f"({interval(r[rate + '_lo'], r[rate + '_hi'])}, n = {r['n']:,})"
                    for r in hit
                )
                top = hit[0]
                self.add(
                    kind,
                    "",
                    (top[rate] / limit - 1, max(0.0, top[rate + "_lo"] / limit - 1)),
                    f"{what} {names}.",
                    evidence(top, rate),
                    "loans",
                    "Loans",
                    ["loans"],
                    metric=f"{kind}:policy={top['policy']}",
                )  # kinds named as the metrics

    def presidency(self):
        """The president of the single most valuable company wins far more than players of the
        same policies who do not preside it (strong policies become presidents more often)."""
        df, strat = (
            self.res.get("ekonos_presidency"),
            self.res.get("ekonos_presidency_within_policy"),
        )
        if df is None or strat is None:
            return
        raw = df.filter(pl.col("player") == "top_president")
        top = strat.filter(pl.col("level") == "top_president")
        if raw.is_empty() or top.is_empty():
            return
        r, a = raw.row(0, named=True), top.row(0, named=True)
        effect = self._excess(a, "presidency_ratio")
        if effect is None:
            return
        ev = self._excess_text(a)
        self.add(
            "presidency",
            "",
            effect,
            f"the president of the single most valuable company wins {evidence(r)} of games "
            f"against {pct(a['expected_rate'])} for players of the same policies who do not "
            f"preside it: {ev} ({pct(r['tied_games_share'])} of games have several companies "
            f"tied for most valuable and are counted apart).",
            ev,
            "presidency",
            "Presidency advantage",
            ["deck", "board", "companies"],
        )


def flag_item(f: Flag) -> str:
    """One flag as a list item: its sentence, the other player counts and variants where the
    finding holds, its annotations, and a link to its chart."""
    others = [g for g in f.also if g.text != f.text]
    counts = sorted({f.n_players, *(g.n_players for g in others)})
    marks = []
    if others:
        also = "; ".join(f"{g.where}: {g.evidence}" for g in others[:MAX_ALSO])
        more = f"; {len(others) - MAX_ALSO} more" if len(others) > MAX_ALSO else ""
        marks.append(f"Holds at {', '.join(map(str, counts))} players. Also {also}{more}.")
    if f.assumed:
        keys = ", ".join(k.label for k in f.assumed)
        marks.append(f"Rests on ASSUMED rules data: {keys}.")
    for note in (f.strong_field, f.sensitivity):
        if note is not None:
            text = note.text()
            marks.append(text[0].upper() + text[1:] + ".")
    notes = "".join(f"<span class='marks'>{html.escape(m)}</span>" for m in marks)
    return (
        f"<li><b>{html.escape(f.text)}</b> <a href='#{f.anchor}'>→ chart: "
        f"{html.escape(f.chart)}</a>{notes}</li>"
    )


def flags_html(flags: list[Flag]) -> str:
    """The balance flags box: the first MAX_HEADLINES merged findings, the rest folded."""
    merged = merge_flags(flags)
    if merged:
        heads, rest = merged[:MAX_HEADLINES], merged[MAX_HEADLINES:]
        body = "<ol>" + "".join(flag_item(f) for f in heads) + "</ol>"
        if rest:
            body += (
                f"<details><summary>{len(rest)} more flag(s)</summary>"
                f"<ol start='{MAX_HEADLINES + 1}'>"
                + "".join(flag_item(f) for f in rest)
                + "</ol></details>"
            )
    else:
        body = "<p>No finding crossed a threshold.</p>"
    rules = "; ".join(f"{k} = {v}" for k, v in THRESHOLDS.items())
    return (
        f"<div class='flags'><h2>Balance flags</h2>{body}<p class='note'>Ranked by the effect "
        f"at the end of its 95% interval nearest to no effect; one flag per finding, the player "
        f"counts where it holds listed. Intervals are Wilson 95% unless said. A fair share is "
        f"the win rate of an average player at that player count. Thresholds: "
        f"{html.escape(rules)}.</p></div>"
    )
