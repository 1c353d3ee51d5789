"""``balsim ask``: the designer's four questions, one command each, one module each.

Each question plays a small sweep of the rules it asks about — the printed rules and a few
variants, every variant on the same games (common random numbers) — once per field of
players, writes each field's dataset (``OUT/dataset-FIELD``, the usual Parquet layout, so
``balsim report`` and polars read it), a short HTML page (``OUT/report.html``) and
``OUT/balsim.json`` (the answer, its decision and every number), and answers in three lines
whose numbers all come from the datasets.

Answers are sized for the decision (DESIGN.md "Verdicts").  A field's games are played in
looks: an eighth of the budget, then doubling up to it.  The error is spent over the looks
(:func:`simulator.core.verdicts.spent_levels`: almost nothing early, most of it at the last
look), and each look's decisions (:func:`simulator.core.decisions.decide`: the printed value
first, then the others) end the games once nothing more can change any field's decision: the
fields stop together, so that whether the answer depends on player strength is tested on the
same games in every field (:func:`simulator.core.decisions.in_looks`).

A game may bring questions of its own: the ``QUESTIONS`` of its ``studies`` hook
(``simulator/games/GAME/studies.py``), which :data:`RECIPES` holds beside these four.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from simulator.analysis import Dataset
from simulator.core.decisions import Choice, Decision, in_looks
from simulator.core.game import GAME_NAMES, get_game
from simulator.core.verdicts import WIN_RATE_MARGIN, looks, spent_levels
from simulator.experiments.adapt import Budget
from simulator.experiments.field import (
    ASK_RUNGS,
    SCRIPTED,
    STRONG_SEAT,
    TUNED,
    Field,
    Ladder,
    Players,
    playable,
)
from simulator.experiments.lab import Lab, is_team_game
from simulator.experiments.skill import DepthChange, rate_ladder
from simulator.experiments.strength import Exploitability, exploitability
from simulator.experiments.tournament import RANDOM, ladder_rules, resolve_rungs
from simulator.run import store
from simulator.run.outputs import OUT_MARK, writing_result
from simulator.run.plan import Plan, Variant, manifest_for
from simulator.run.runner import execute
from simulator.studies.recipes import blood_coins, loans, scoring, taxes
from simulator.studies.recipes.common import (
    Question,
    Sizing,
    breaks,
    field_text,
    measure,
    settings,
    strong_share,
)
from simulator.studies.recipes.page import report_page
from simulator.studies.recipes.rungs import Asked, RungAnswer, strength_of
from simulator.studies.recipes.words import headline
from simulator.studies.seats import study_seats

SCHEMA = 4
FIRST_SHARE = 8  # the first look plays this fraction of the budget, the next ones double it
STEP = 24  # looks in whole rounds of the 24 seat orders of four distinct policies


def __getattr__(name: str) -> dict[str, Question]:
    """``RECIPES``, gathered on first use: the four questions above and every game's own (its
    ``studies`` hook's ``QUESTIONS``), which import this package's helpers, so they cannot be
    gathered while it loads."""
    if name != "RECIPES":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    questions = [taxes.QUESTION, loans.QUESTION, blood_coins.QUESTION, scoring.QUESTION]
    for game in GAME_NAMES:
        hook = get_game(game).hook("studies")
        questions += hook.QUESTIONS if hook else []
    recipes = globals()["RECIPES"] = {q.name: q for q in questions}
    return recipes


def look_sizes(budget: int) -> list[int]:
    """Games per variant at each look: about budget / FIRST_SHARE in whole rounds of seat
    orders, doubling up to the budget (a doubling that reaches nine tenths of it is the
    budget itself: a last look of a few more games would get almost none of the error)."""
    first = max(STEP, budget // FIRST_SHARE // STEP * STEP)
    sizes = looks(min(first, budget), budget)
    if len(sizes) > 1 and sizes[-2] >= 0.9 * budget:
        del sizes[-2]
    return sizes


def ask(
    question: Question,
    out: Path,
    games: int | None = None,
    seed: int = 1,
    jobs: int = -1,
    progress: bool = True,
    command: str = "",
    margin: float | None = None,
    fields: list[Field] | None = None,
    adapt_budget: Budget | None = None,
    scheduler: str | None = None,
    exploit: bool = True,
) -> Asked:
    """Answer ``question`` once per field of ``fields`` (default the rungs of
    :data:`~simulator.experiments.field.ASK_RUNGS` the game can play), each in looks until
    its decision is settled or ``games`` per variant (the budget) are played, into
    ``OUT/dataset-FIELD``; write OUT (whole or not at all) and return the answers.
    ``margin``: the equivalence margin (a fraction; default 2 points); ``adapt_budget``: the
    games of each variant's adaptation (fields that adapt); ``scheduler``: a dask cluster's
    address, to play there instead of on ``jobs`` local processes; ``exploit``: also measure
    what better strategies gain against the value the leading field keeps or changes to
    (:func:`exploited`) and how a change moves the skill depth (:func:`depth_moved`)."""
    game = get_game(question.game)
    rules = game.rules()
    budget = games or question.games
    variants = question.variants(game, rules)
    sizes = look_sizes(budget)
    margin = WIN_RATE_MARGIN if margin is None else margin
    fields = fields or playable(game, ASK_RUNGS)
    ladder = Ladder(
        game, question.players, adapt_budget, jobs=jobs, progress=progress, scheduler=scheduler
    )
    base = Plan(
        game=question.game,
        n_games=sizes[0],
        n_players=question.players,
        seats=study_seats(game, question.players),
        seed=seed,
        chunk_size=min(game.chunk_size, sizes[0]),
        variants=variants,
        field=SCRIPTED,
    )
    # every field's players ready (adapted) before any game is played
    players = [(field, ladder.variants(base.variants, field)) for field in fields]
    with writing_result(out) as tmp:
        judges = [
            FieldJudge(question, ladder, base, field, p, tmp / dataset_folder(field), margin)
            for field, p in players
        ]
        decisions, look = in_looks(sizes, [j.judge(sizes, jobs, progress) for j in judges])
        rungs = [j.answer(d, sizes, look) for j, d in zip(judges, decisions)]
        assumed, others = question.assumed(game, rules)
        strength = strength_of(rungs, margin, spent_levels(sizes)[look])
        asked = Asked(question, rungs, strength, margin, assumed, others)
        if exploit:
            asked.exploit = exploited(asked, jobs, progress, scheduler, seed)
            asked.depth = depth_moved(asked, jobs, progress, scheduler, seed)
        (tmp / "report.html").write_text(report_page(asked, budget, command), encoding="utf-8")
        summary = {
            "tool": "ask",
            "schema": SCHEMA,
            "command": command,
            "question": question.name,
            "game": question.game,
            "players": question.players,
            "seed": seed,
            "budget": budget,
            "looks_planned": len(sizes),
            "margin": margin,
            "fields": [r.field for r in rungs],
            "rests_on": [k.label for k, _ in assumed],
            "answer": headline(asked),
            **asked.record(),
        }
        (tmp / OUT_MARK).write_text(
            json.dumps(summary, indent=2, default=float) + "\n", encoding="utf-8"
        )
    return asked


def exploited(
    asked: Asked, jobs: int, progress: bool, scheduler: str | None, seed: int
) -> Exploitability | None:
    """The best gain a challenger finds over its fair share against the leading field under
    the value it keeps or changes to (every scripted policy re-tuned against that field, and
    the search player: :func:`simulator.experiments.strength.exploitability`); None when no
    value is decided on."""
    lead, q = asked.leading(), asked.question
    if lead.decision.kind not in (Choice.KEEP, Choice.CHANGE):
        return None
    game = get_game(q.game)
    # against the field's other players, as its subjects are: a strong seat's skill would
    # take wins from every challenger alike and hide what the rules let a strategy gain
    others = [s for s in lead.seats if s != STRONG_SEAT.get(lead.field)]
    with Lab(game, jobs, progress, scheduler=scheduler) as lab:
        return exploitability(
            lab,
            lead.rules[lead.decision.chosen],
            others,
            q.players,
            q.challenge_games,
            q.search_games,
            seed,
        )


DEPTH_RUNGS = (RANDOM, SCRIPTED, TUNED)  # the rungs rated for a change's skill depth
DEPTH_GAMES = 2_400  # games per value of that rating, at most (it stops once decided)


def depth_moved(
    asked: Asked, jobs: int, progress: bool, scheduler: str | None, seed: int
) -> DepthChange | None:
    """How the value the leading field changes to moves the game's skill depth against the
    printed value: the rungs of :data:`DEPTH_RUNGS` rated under both on the same games
    (:func:`simulator.experiments.skill.rate_ladder`); None unless the decision is a change,
    or in a free-for-all of more players than those rungs (it seats one rung a seat)."""
    lead, q = asked.leading(), asked.question
    if lead.decision.kind != Choice.CHANGE:
        return None
    if not is_team_game(lead.rules[lead.decision.chosen]) and q.players > len(DEPTH_RUNGS):
        return None
    game = get_game(q.game)
    ladder = Ladder(game, q.players, jobs=jobs, progress=progress, scheduler=scheduler)
    variants = [
        Variant(name, ladder_rules(ladder, lead.rules[name], DEPTH_RUNGS, ()))
        for name in (lead.decision.printed.value, lead.decision.chosen)
    ]
    rungs = resolve_rungs(ladder, variants[0].rules, DEPTH_RUNGS, ())
    with Lab(game, jobs, progress, DEPTH_GAMES, scheduler) as lab:
        skill = rate_ladder(lab, variants, rungs, q.players, DEPTH_GAMES, seed)
    return skill.depth_changes()[0]


def dataset_folder(field: Field) -> str:
    return f"dataset-{field.folder}"


@dataclass
class FieldJudge:
    """One field's part of the answer: its games, by ``players`` (the field's, each variant
    adapted where it adapts), into ``where``, judged at each look of :func:`in_looks`, which
    every field of the answer shares."""

    question: Question
    ladder: Ladder
    base: Plan
    field: Field
    players: Players
    where: Path
    margin: float

    def __post_init__(self):
        self.plan = self.ladder.plan(self.base, self.field)
        self.ds: Dataset | None = None
        self.broken: dict[str, str] = {}

    def judge(self, sizes: list[int], jobs: int, progress: bool):
        """``judge(n_games, look_alpha)``: play the field's games up to ``n_games`` per value
        (keeping those of earlier looks) and decide on them."""

        def judge(n_games: int, look_alpha: float) -> Decision:
            look = sizes.index(n_games)
            label = f"{self.question.name} {self.field.name} look {look + 1}"
            plan = replace(self.plan, n_games=n_games)
            play(plan, self.where, look > 0, jobs, progress, label, self.ladder.scheduler)
            self.ds = Dataset(self.where)
            self.broken = breaks(self.question, self.ds)
            sizing = Sizing(self.margin, look_alpha)
            return measure(self.question, self.ds, sizing, frozenset(self.broken))

        return judge

    def answer(self, decision: Decision, sizes: list[int], look: int) -> RungAnswer:
        """The field's answer from its ``decision`` at look ``look`` of ``sizes``."""
        adaptations = {
            v.name: (a if isinstance(a, list) else [a])
            for v, a in zip(self.base.variants, self.players.adaptations)
            if a
        }
        strong = strong_share(self.ds)
        return RungAnswer(
            self.field.name,
            dataset_folder(self.field),
            decision,
            self.question.facts(self.ds, decision),
            self.broken,
            sizes[look],
            sizes[: look + 1],
            len(sizes),
            sizes[-1],
            field_text(self.ds, strong),
            settings(self.ds),
            adaptations,
            {v.name: v.rules for v in self.plan.variants},
            list(self.plan.seats),
            strong,
        )


def play(
    plan: Plan,
    where: Path,
    extend: bool,
    jobs: int,
    progress: bool,
    label: str,
    scheduler: str | None = None,
) -> None:
    """Play ``plan`` into ``where``; ``extend``: the dataset there holds the first games of the
    same plan (an earlier look), which are kept, and only the others are played (the
    runner's resume of a larger plan)."""
    if extend:
        store.write_manifest(where, manifest_for(plan, get_game(plan.game), "running"))
        execute(None, where, jobs, scheduler, progress=progress, resume=True, label=label)
    else:
        execute(plan, where, jobs, scheduler, progress=progress, force=True, label=label)
