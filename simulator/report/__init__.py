"""The playtest report: one self-contained HTML file a designer can mail.

``write_report(dataset_dirs, out)`` analyses each dataset with :mod:`simulator.analysis` and
writes a single HTML page (charts are matplotlib SVGs inline, CSS inline, no external
asset; ``charts=DIR`` also writes each chart as SVG and 2x PNG for slides).  Its first
screen answers the designer's questions as ``balsim ask`` decided them (:mod:`.asks`: the
ask folders given, the study's ``runs/answer-QUESTION``); then come the **balance flags**
(:mod:`.flags`): at most five findings about the printed rules, ranked by effect and
certainty and merged across player counts, the rest folded, then the what-ifs on assumed data
(:mod:`.whatifs`: findings about invented cards and rules, never among the top flags).  Then
one section per game (seat advantage across player counts) and one per dataset
(:mod:`.sections`, each game's own parts from its package: ``simulator.games.GAME.report``).
Every chart has labelled axes with units and a title that states its finding, in one
colour-blind-safe palette, and sits beside a table of the numbers it draws, its columns in
plain words (a glossary at the end).
"""

from __future__ import annotations

import html
import time
from pathlib import Path

from simulator.analysis import Dataset, summarise
from simulator.report.asks import asks_html, split_asks
from simulator.report.charts import exporting
from simulator.report.exercise import exercise_section
from simulator.report.flag_list import flags_html
from simulator.report.flags import THRESHOLDS, Flag, Rules, merge_flags
from simulator.report.matrix import matrix_section, split_matrix
from simulator.report.page import render_page
from simulator.report.screens import mark_flags, screen_sections, split_screens
from simulator.report.sections import dataset_section, game_section, incomplete
from simulator.report.skill import skill_section, split_skill
from simulator.report.strong import (
    annotate,
    attach_challenges,
    field_of,
    is_strong,
    split_challenges,
    strong_flags,
)
from simulator.run.store import write_atomic

__all__ = ["write_report", "REPORT_MARKER", "THRESHOLDS", "Flag", "merge_flags"]

REPORT_MARKER = b"<title>balsim playtest report"  # how the start of every report reads


def write_report(
    dataset_dirs: list[Path], out: Path, jobs: int = 1, charts: Path | None = None
) -> Path:
    """Analyse ``dataset_dirs`` and write the playtest report to ``out`` (one HTML file).

    Each directory is a balsim dataset (``manifest.json`` plus ``games/``, ``players/`` and
    timeline parts), a ``balsim sensitivity`` folder (each screen gets a section, and tells
    each flag of its game which assumed values it depends on, or whether it is robust to
    them: :mod:`.screens`), a ``balsim skill`` folder (the "Skill and luck" section:
    :mod:`.skill`), a ``balsim ask`` folder (its answer on the first screen: :mod:`.asks`), a
    ``balsim matrix`` folder (the "Metagame" section: :mod:`.matrix`) or a
    challenge folder the study wrote (evidence for a strong field's dominant-policy flag:
    :mod:`.strong`).
    The datasets' summaries and sections, most of the time (their analyses and charts), are
    computed in ``jobs`` processes, one dataset at a time.  With ``charts``, every chart of
    the page is also written there as SVG and as PNG at twice its size, named after its
    section and title (:func:`simulator.report.charts.exporting`).  Returns ``out``.
    """
    started = time.perf_counter()
    out = Path(out)
    dataset_dirs, asks = split_asks(dataset_dirs)
    dataset_dirs, screens = split_screens(dataset_dirs)
    dataset_dirs, skill = split_skill(dataset_dirs)
    dataset_dirs, matrices = split_matrix(dataset_dirs)
    dataset_dirs, challenges = split_challenges(dataset_dirs)
    datasets = [Dataset(d) for d in dataset_dirs]
    analysed = in_processes(analyse, [(i, ds, charts) for i, ds in enumerate(datasets)], jobs)
    members = [(i, ds, res) for i, (ds, (res, _)) in enumerate(zip(datasets, analysed))]
    # a strong-field dataset raises flags of its own, named with its field, and checks the
    # findings of its game's scripted datasets (which check its findings in turn); alone in
    # a report, it is read like any other
    scripted_games = {ds.game for ds in datasets if not is_strong(ds)}
    checks = {i for i, ds, _ in members if is_strong(ds) and ds.game in scripted_games}
    strong = [m for m in members if m[0] in checks]
    scripted = [m for m in members if m[0] not in checks]
    flags: list[Flag] = [f for i, ds, res in scripted for f in Rules(i, ds, res).flags()]
    flags += strong_flags(strong)
    annotate(flags, scripted, strong)
    attach_challenges(flags, challenges)
    mark_flags(flags, screens)

    def field_name(ds: Dataset) -> str:
        return field_of(ds) if any(m[1] is ds for m in strong) else "scripted"

    with exporting(charts):
        body = [
            game_section(game, [m for m in members if m[1].game == game], field_name)
            + exercise_section(game, [ds for ds in datasets if ds.game == game])
            for game in dict.fromkeys(ds.game for ds in datasets)
        ]
        body.append(skill_section(skill))
        body.append(matrix_section(matrices))
        body += [section for _, section in analysed]
        body += screen_sections(screens)
    games = sorted({ds.game for ds in datasets})
    total = sum(ds.n_games for ds in datasets)
    toc = "".join(
        f"<li><a href='#ds{i}'>{html.escape(ds.label)}</a> — {ds.n_games:,} games"
        f"{' — <b>' + incomplete(ds) + '</b>' if incomplete(ds) else ''}</li>"
        for i, ds in enumerate(datasets)
    )
    meta = (
        f"{len(datasets)} dataset(s), {total:,} simulated games of "
        f"{html.escape(', '.join(games))}; analysed in {time.perf_counter() - started:.1f} s."
    )
    page = render_page(games, meta, asks_html(asks, out), flags_html(flags), toc, body)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, page)
    return out


def analyse(i: int, ds: Dataset, charts: Path | None = None) -> tuple[dict, str]:
    """A dataset's summary and its section of the page (which needs nothing from the other
    datasets), computed together so that a worker reads the dataset once; its charts also
    written to ``charts`` when given, named after the dataset's folder."""
    res = summarise(ds)
    with exporting(charts, ds.path.name):
        return res, dataset_section(i, ds, res)


def in_processes(function, calls: list[tuple], jobs: int) -> list:
    """``function(*args)`` for each args of ``calls``, in order, on ``jobs`` processes (which
    stop when this process dies: :class:`simulator.run.workers.Workers`)."""
    if jobs == 1 or len(calls) < 2:
        return [function(*args) for args in calls]
    from simulator.run.workers import Workers

    with Workers(jobs) as workers:  # the command's pool at its size: another would restart it
        done = dict(workers.map(numbered, [(i, function, args) for i, args in enumerate(calls)]))
    return [done[i] for i in range(len(calls))]


def numbered(i: int, function, args: tuple) -> tuple:
    return i, function(*args)
