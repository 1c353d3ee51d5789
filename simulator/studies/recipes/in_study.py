"""The study's answers to the designer's questions: each question whose game the study plays,
asked as ``balsim ask`` asks it (its fields, looks and decision, seed 1 as ``ask``'s default)
at the study's scale, into ``runs/answer-QUESTION``.  The report's first screen shows those
answers (:mod:`simulator.report.asks`): one answer per question, whichever command asked it.

What a better strategy gains against a decision (``ask``'s exploitability step) is left to
``balsim ask``: it re-tunes every policy against the leading field, as long again as the
answer itself, and the study plays its own challenges of the strong fields.
"""

from __future__ import annotations

import time
from pathlib import Path

from simulator.experiments.adapt import Budget
from simulator.run.outputs import add_to_record
from simulator.run.store import WRITER
from simulator.studies.recipes import RECIPES, STEP, ask

ASK_SEED = 1  # ask's default seed: `balsim ask QUESTION --games N --no-exploit` gives the same


def answer_folder(question: str) -> str:
    return f"answer-{question}"


def answer_folders(games) -> list[str]:
    """The folders of the questions whose game is among ``games``."""
    return [answer_folder(q.name) for q in RECIPES.values() if q.game in games]


def study_answers(
    runs_dir: Path,
    games,
    jobs: int,
    progress: bool,
    scale: float,
    writer: str,
    kept,
    scheduler: str | None = None,
    adapt_budget: Budget | None = None,
) -> list[Path]:
    """Ask each question whose game is among ``games`` with its budget times ``scale``, into
    ``runs_dir/answer-QUESTION`` recorded as ``writer``'s; ``kept(path, tool, command)``
    says whether an answer there is kept (the study's ``--resume``); ``adapt_budget``: the
    games of an adaptation that is neither shipped nor cached.  One line each."""
    out = []
    for q in RECIPES.values():
        if q.game not in games:
            continue
        path = runs_dir / answer_folder(q.name)
        n = max(STEP, round(q.games * scale / STEP) * STEP)
        command = f"balsim ask {q.name} --games {n} --no-exploit --out {path}"
        if kept(path, "ask", command):
            print(f"{path.name}: finished earlier, kept -> {path}", flush=True)
            out.append(path)
            continue
        started = time.perf_counter()
        asked = ask(
            q,
            path,
            n,
            ASK_SEED,
            jobs,
            progress,
            command,
            adapt_budget=adapt_budget,
            scheduler=scheduler,
            exploit=False,
        )
        add_to_record(path, **{WRITER: writer})
        print(
            f"{path.name}: {asked.leading().decision.kind.value} ({asked.leading().field} field), "
            f"{time.perf_counter() - started:.1f} s -> {path}",
            flush=True,
        )
        out.append(path)
    return out
