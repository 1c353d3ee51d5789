"""``balsim ask``: the designer's four questions, one command each, one module each.

Each recipe plays a small sweep of the rules it asks about — the printed rules and a few
variants, every variant on the same games (common random numbers) — writes the dataset
(``OUT/dataset``, the usual Parquet layout, so ``balsim report`` and polars read it), a short
HTML report (``OUT/report.html``) and ``OUT/balsim.json`` (the answer, its decision and every
number), and answers in a few sentences whose numbers all come from the dataset.

Answers are sized for the decision (DESIGN.md "Verdicts").  The games are played in waves,
the looks of :func:`simulator.core.verdicts.looks`: an eighth of the budget, then doubling up
to it.  After each look the recipe's answer function judges every variant's balance value
(an effect, no effect beyond the margin, or inconclusive) and decides (keep the printed
value, change to another, none tried is balanced, or inconclusive:
:func:`simulator.studies.recipes.common.decide`); the first decided look ends the run, else
the budget does, and the answer says which.  Every test runs at 5% divided by the looks
planned times the variants (Bonferroni), so the chance that any look calls anything balanced,
or unbalanced, when it is not stays at most 5%.

An answer function takes one dataset (the games of one field of players) and returns the
answer, so the same function answers for any field.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

from simulator.analysis import Dataset
from simulator.core.game import get_game
from simulator.core.verdicts import WIN_RATE_MARGIN, alpha_per_look, looks
from simulator.experiments.adapt import Budget
from simulator.experiments.field import DEFAULT_RUNGS, SCRIPTED, Field, Ladder, Players
from simulator.run import store
from simulator.run.outputs import OUT_MARK, finish_out_dir, new_out_dir
from simulator.run.runner import Plan, execute, manifest_for
from simulator.studies.recipes import blood_coins, loans, scoring, taxes
from simulator.studies.recipes.common import Recipe, Sizing, budget_text, field_text
from simulator.studies.recipes.page import report_page
from simulator.studies.recipes.rungs import Asked, RungAnswer, adaptation_note, agreement
from simulator.studies.study import study_seats

SCHEMA = 3
FIRST_SHARE = 8  # the first look plays this fraction of the budget, the next ones double it
STEP = 24  # looks in whole rounds of the 24 seat orders of four distinct policies

RECIPES = {
    r.name: r
    for r in (
        Recipe(
            "tax-brackets",
            "karnaxis",
            4,
            12_000,
            "Karnaxis: a flatter and a steeper tax table against the printed one: where "
            "players sit and the leading policy's edge.",
            taxes.variants,
            taxes.answer,
            ("taxes",),
        ),
        Recipe(
            "loans",
            "karnaxis",
            4,
            12_000,
            "Karnaxis: loan cap binding and delinquency, and the cap that brings the leading "
            "policy to its fair share.",
            loans.variants,
            loans.answer,
            ("loans",),
        ),
        Recipe(
            "blood-coins",
            "karmaggan",
            4,
            # three fields within about three minutes on two cores (docs/ladder.md): a
            # 1-point edge is shown within 2 points only with about 96,000 games (--games)
            24_000,
            "Karmaggän: team and seat balance and game length by starting blood coins, and "
            "the count that balances the teams.",
            blood_coins.variants,
            blood_coins.answer,
            ("setup", "game"),
        ),
        Recipe(
            "scoring",
            "ekonos",
            4,
            24_000,
            "Ekonos: cash against holdings, the presidency edge, and the scoring change "
            "that removes it.",
            scoring.variants,
            scoring.answer,
            ("scoring", "shares", "companies"),
        ),
    )
}


def look_sizes(budget: int) -> list[int]:
    """Games per variant at each look: about budget / FIRST_SHARE in whole rounds of seat
    orders, doubling up to the budget."""
    first = max(STEP, budget // FIRST_SHARE // STEP * STEP)
    return looks(min(first, budget), budget)


def ask(
    recipe: Recipe,
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
) -> Asked:
    """Answer the recipe's question once per field of ``fields`` (default the rungs of
    :data:`DEFAULT_RUNGS`), each in looks until its answer is decided or ``games`` per variant
    (the budget) are played, into ``OUT/dataset-FIELD``; write OUT (whole or not at all) and
    return the answers with their agreement.  ``margin``: the equivalence margin (a
    fraction; default 2 points); ``adapt_budget``: the games of each variant's adaptation
    (fields adapted and search); ``scheduler``: a dask cluster's address, to play there
    instead of on ``jobs`` local processes."""
    game = get_game(recipe.game)
    rules = game.rules()
    budget = games or recipe.games
    variants = recipe.variants(game, rules)
    sizes = look_sizes(budget)
    sizing = Sizing(
        WIN_RATE_MARGIN if margin is None else margin, alpha_per_look(len(sizes) * len(variants))
    )
    fields = fields or [Field(rung) for rung in DEFAULT_RUNGS]
    ladder = Ladder(
        game, recipe.players, adapt_budget, jobs=jobs, progress=progress, scheduler=scheduler
    )
    base = Plan(
        game=recipe.game,
        n_games=sizes[0],
        n_players=recipe.players,
        seats=study_seats(game, recipe.players),
        seed=seed,
        chunk_size=min(game.chunk_size, sizes[0]),
        variants=variants,
        field=SCRIPTED,
    )
    # every field's players ready (adapted) before any game is played
    players = [(field, ladder.variants(base.variants, field)) for field in fields]
    tmp = new_out_dir(out)
    try:
        rungs = [
            answer_field(recipe, ladder, base, field, p, tmp, sizes, sizing, jobs, progress)
            for field, p in players
        ]
        kind, line = agreement(rungs)
        asked = Asked(rungs, kind, line)
        assumed, others = recipe.assumed(game, rules)
        (tmp / "report.html").write_text(
            report_page(recipe, asked, budget, command, assumed, others), encoding="utf-8"
        )
        summary = {
            "tool": "ask",
            "schema": SCHEMA,
            "command": command,
            "question": recipe.name,
            "game": recipe.game,
            "players": recipe.players,
            "seed": seed,
            "budget": budget,
            "looks_planned": len(sizes),
            "margin": sizing.margin,
            "alpha": sizing.alpha,
            "fields": [r.field for r in rungs],
            "rests_on": [k.label for k, _ in assumed],
            "agreement": kind,
            "verdict": line,
            "rungs": {r.field: r.record() for r in rungs},
        }
        (tmp / OUT_MARK).write_text(
            json.dumps(summary, indent=2, default=float) + "\n", encoding="utf-8"
        )
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finish_out_dir(tmp, out)
    return asked


def dataset_folder(field: Field) -> str:
    return f"dataset-{field.folder}"


def answer_field(
    recipe: Recipe,
    ladder: Ladder,
    base: Plan,
    field: Field,
    players: Players,
    tmp: Path,
    sizes: list[int],
    sizing: Sizing,
    jobs: int,
    progress: bool,
) -> RungAnswer:
    """One field's answer: its games in looks until the answer is decided or the budget is
    played, by ``players`` (the field's, each variant adapted where it adapts)."""
    plan = ladder.plan(base, field)
    where = tmp / dataset_folder(field)
    for look, n_games in enumerate(sizes):
        label = f"{recipe.name} {field.name} look {look + 1}"
        play(
            replace(plan, n_games=n_games), where, look > 0, jobs, progress, label, ladder.scheduler
        )
        answer = recipe.answer(Dataset(where), sizing)
        if answer.decision.decided:
            break
    sized = budget_text(n_games, sizes[-1], answer.decision.decided)
    answer.sentence += (
        f" {sized[0].upper()}{sized[1:]} "
        f"({look + 1} of {len(sizes)} looks; each test at level 5% / ({len(sizes)} looks x "
        f"{len(base.variants)} variants), equivalence margin ±{100 * sizing.margin:g} points)."
    )
    adaptations = {v.name: a for v, a in zip(base.variants, players.adaptations) if a is not None}
    rung = RungAnswer(
        field.name,
        dataset_folder(field),
        answer,
        n_games,
        sizes[: look + 1],
        adaptations,
        field_text(Dataset(where)),
    )
    note = adaptation_note(rung)
    if note:
        answer.sentence += " " + note
    return rung


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
