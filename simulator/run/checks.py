"""Checks of a dataset before it is read: every part against its manifest's plan.

``report``, ``replay --from``, ``verify`` and the analysis readers (:class:`simulator.analysis.
Dataset`) go through :func:`whole_tasks`, so a part that is damaged, missing, cut short, from
another dataset or not planned is named in one line with its fix, never read
(:mod:`simulator.run.whole` says how a part is identified).
"""

from __future__ import annotations

from pathlib import Path

from simulator.core.errors import UserError
from simulator.core.game import get_game
from simulator.run import store, whole
from simulator.run.plan import Plan, plan_from_manifest, resume_command


def holds_game(out: Path, manifest: dict, game_id: int, variant_index: int) -> bool:
    """Whether the dataset in ``out`` holds game ``game_id`` of that variant (its task's parts
    are whole); a dataset that is not whole is refused as by :func:`whole_tasks`."""
    plan, done = whole_tasks(out, manifest)
    task = (game_id // plan.chunk_size) * len(plan.variants) + variant_index
    return game_id < manifest["n_games"] and task in done


def stored_tables(manifest: dict) -> list[str]:
    tables = manifest["tables"] if isinstance(manifest["tables"], list) else []
    return [t for t in tables if isinstance(t, str) and store.TABLE_NAME.fullmatch(t)]


def dataset_survey(out: Path, manifest: dict, plan: Plan) -> whole.Survey:
    """The parts in ``out`` against the plan: a complete dataset must hold every part of the
    games its manifest counts, an unfinished one any of its plan's."""
    complete = manifest.get("status") == "complete"
    expected = whole.expected_parts(
        plan,
        str(manifest.get("engine_version")),
        stored_tables(manifest),
        manifest["n_games"] if complete else None,
    )
    return whole.survey(out, stored_tables(manifest), expected, expected if complete else ())


def whole_tasks(out: Path, manifest: dict) -> tuple[Plan, set[int]]:
    """The plan of the dataset in ``out`` and its tasks with whole parts; raises a one-line
    UserError naming the first part that is damaged, missing, from another dataset or not
    planned, and the fix (``--resume`` plays it again, or move it out)."""
    plan = plan_from_manifest(manifest, out / store.MANIFEST)
    lacking = [t for t in ("games", "players") if t not in stored_tables(manifest)]
    if lacking:
        raise UserError(f"{out / store.MANIFEST} is damaged (its tables lack {lacking[0]})")
    found = dataset_survey(out, manifest, plan)
    if found.problems:
        first = found.problems[0]
        more = f" (and {len(found.problems) - 1} more)" if len(found.problems) > 1 else ""
        raise UserError(f"{first.text}{more}; {fix(out, manifest, plan, first.stray)}")
    return plan, found.whole


def fix(out: Path, manifest: dict, plan: Plan, stray: bool) -> str:
    """How to mend a dataset with a part that is not its own: move a stray out; play any
    other again, with ``--resume`` while this balsim's engine is the dataset's."""
    if stray:
        return f"move it out of {out}"
    engine = get_game(plan.game).engine_version
    if manifest.get("engine_version") != engine:
        return (
            f"this balsim's engine {engine} cannot play it again for a dataset of engine "
            f"{manifest.get('engine_version')}: run the dataset again with --force"
        )
    return f"`{resume_command(plan, out)}` plays it again"


def verify_dataset(out: Path) -> str:
    """One line saying that the dataset in ``out`` is whole (as far as it was played), after
    checking every part's footer and rows against its manifest; a UserError naming the first
    problem and its fix otherwise."""
    manifest = store.read_manifest(out)
    plan, done = whole_tasks(out, manifest)
    finish = f"`{resume_command(plan, out)}`"
    problem = whole.rows_problem(out, plan, stored_tables(manifest), done)
    if problem:
        raise UserError(f"{problem}; {fix(out, manifest, plan, False)}")
    games = sum(n for t, _, _, n in plan.tasks() if t in done)
    what = (
        f"{out}: whole; {plan.game}, {games:,} games in {len(done):,} parts per table "
        f"({len(plan.variants)} variant{'s' if len(plan.variants) > 1 else ''}, seed "
        f"{plan.seed}, engine {manifest.get('engine_version')})"
    )
    if manifest.get("status") == "complete":
        return what
    planned = plan.n_games * len(plan.variants)
    return f"{what}; unfinished: {games:,} of {planned:,} games played, {finish} finishes it"


def check_readable(out: Path) -> str | None:
    """Refuse a dataset that cannot be analysed (no manifest of ours, no games yet, a part that
    is not whole or not its own), naming the fix; return a one-line warning when the run is
    unfinished."""
    manifest = store.read_manifest(out)
    plan, done = whole_tasks(out, manifest)
    finish = f"`{resume_command(plan, out)}`"
    if not done:
        raise UserError(
            f"{out} holds no games yet (its run stopped before the first part "
            f"was written); {finish} plays them"
        )
    if manifest.get("status") != "complete":
        return (
            f"warning: {out} is incomplete (an interrupted run); the report covers the games "
            f"played so far, and {finish} finishes it"
        )
    return None
