"""The default balance study: every implemented game at several player counts, then the report.

``run_study`` plays each game of :data:`simulator.core.game.GAME_NAMES` whose study plan keeps
it in the study (:func:`studied_games`) at the player counts of its plan (``Game.study``, a
:class:`simulator.core.game.StudyPlan` each game's package sets), with the game's scripted
policies filling the seats in turn and balanced seat orders (so seat, neighbour and policy
effects separate), writes one dataset per game and player count
under ``runs_dir`` and the playtest report to ``report_path``.  Each game with tuned knob sets
or a search player also gets a strong-field dataset, which tells each balance flag whether it
holds with strong players.  Each of the designer's questions whose game it plays is asked as
``balsim ask`` asks it, at the study's scale (``runs/answer-QUESTION``:
:mod:`simulator.studies.recipes.in_study`), and the report's first screen is those answers.
Sizes are set so the whole study takes a few minutes on 2 cores; how each is chosen is told
below, next to what every game shares.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

from simulator.core.errors import Fault, Interrupted, UserError
from simulator.core.game import GAME_NAMES, StudyPlan, get_game
from simulator.core.rules import RulesError
from simulator.experiments.adapt import Budget
from simulator.experiments.field import RUNGS, SCRIPTED, TUNED, Field, Ladder
from simulator.experiments.skill import SKILL_TOOL
from simulator.experiments.strength import SEARCH, strong_seats
from simulator.report import write_report
from simulator.report.asks import ASK_TOOL
from simulator.report.strong import CHALLENGE_TOOL, dominant_policies, field_of, is_strong
from simulator.report.tool_charts import screen_files, skill_files
from simulator.run.checks import whole_tasks
from simulator.run.outputs import DATASET, add_to_record, claim, out_record
from simulator.run.plan import Plan, Variant, plan_from_manifest
from simulator.run.runner import Target, execute_all
from simulator.run.store import WRITER, Writing, checked_path, inside_dataset, own_manifest
from simulator.run.warm import warm_engines
from simulator.studies.recipes.in_study import answer_folders, study_answers
from simulator.studies.seats import study_seats

STUDY_SEED = 20_261_129
STUDY_WRITER = "study"  # recorded in the study's datasets and folders: it replaces them

# Each game's datasets (StudyPlan.n_games, .player_counts, .variants at .variant_players: a
# sweep on the same seeds; a variant whose keys the game rejects is skipped with a note).
# What decides a flag is the verdict within the 2-point margin of a win rate (TOST at 5%):
# about 4,000 games for a seat's share of 1/4 at 80% power (0.19 x (1.645 + 1.28)^2 / 0.02^2),
# so every dataset plays a few times that.  `balsim study --scale K` multiplies every budget
# (datasets, strong fields, screens, rated ladders) for a cluster.

# The sensitivity screen of every ASSUMED key of each game at SCREEN_PLAYERS
# (simulator.experiments.sensitivity): numbers by Morris (a card's numbers move together),
# switches and choices paired, each alternative against the printed value on the same games;
# the report marks each flag robust to the assumed values, dependent on named ones, or
# inconclusive.  Sized by the screen's power calculation so that a key moving a seat's or a
# team's win rate by SCREEN_DETECT (5 points) over its range is found with 80% power at 5%
# (two-sided): a paired win difference varies by at most 0.5 per game, so a switch or choice
# gets 0.5 x (1.96 + 0.84)^2 / 0.05^2 = 1,570 games (shared among its alternatives: a choice of
# m alternatives sees 5 sqrt(m) points each), and a number 4 trajectories of 884 games a run
# (a Morris step spans 2/3 of the range: 1,570 / (4 x 4/9)).  SCREEN_SCALE multiplies every
# screen's games (``balsim study --screen-scale``); the default can see 5 points.  An assumed 0
# cannot be scaled, so the game's StudyPlan.screen_spans gives it a range.
SCREEN_PLAYERS = 4
SCREEN_TRAJECTORIES = 4
SCREEN_DETECT = 0.05
SCREEN_SCALE = 1.0
SCREEN_MIN_GAMES = 48  # games per run or per choice at the smallest scales (the tests')

# The strong field (simulator.experiments.strength: tuned knob sets, one search seat where the
# game has a search player and StudyPlan.strong_search_games is not 0), played at
# STRONG_PLAYERS with the same variants, so every balance flag can say whether it holds with
# strong players.  A search seat costs tens of milliseconds a game (each game's plan says how
# many), so each variant gets what the study's minutes afford: 50 to 250 games, intervals of
# ±5 to ±10 points on the search seat's win rate, enough to see a large flag vanish with strong
# players, not to call one balanced.  StudyPlan.strong_games is the tuned field's, played
# where a game has no search player.
STRONG_PLAYERS = 4

# The challenge of every dominant policy a strong field's dataset flags (simulator.experiments
# .strength.challenge): each other scripted policy, from its copy on the field's rung, re-tuned
# against a field of the incumbent, and a search seat against the same field, on held-out
# games; the flag shows whether anyone beats it.  StudyPlan.challenge_games tune each
# challenger (at least CHALLENGE_MIN_GAMES: the fewest with which CMA-ES still makes a
# generation of 15 knobs at the smallest scales), and .challenge_search_games are the search
# seat's (as many as the rated ladder affords per game).
CHALLENGE_MIN_GAMES = 2_000


# The rated ladder of each game (simulator.experiments.skill): random, the scripted, tuned and
# adapted fields and the search player at half, once and twice its own rollouts, in balanced
# line-ups at STRONG_PLAYERS, in looks until the depth and the plateau are decided; the
# report's "Skill and luck" section.  StudyPlan.skill_games is the most games a game plays, in
# whole rounds of its line-ups' seat orders (free-for-all: 7 line-ups of 24 orders, 168 games a
# round; teams: 21 pairs of rungs, 168 games).  Sized by the search's cost: a game seats on
# average 4/7 of each search rung (2/7 of a search team), so each game's plan spends about the
# cost of the 1-to-64-rollout curves played before (its plan says how many rollouts a game);
# a depth of a dozen steps is known within a step or two after a round, a plateau within 2
# points needs far more games than the study plays, and the report says so.


def studied_games() -> list[str]:
    """The games the study plays: every registered game whose plan does not leave it out."""
    return [name for name in GAME_NAMES if get_game(name).study.in_study]


def study_variants(game, spec: StudyPlan) -> list[Variant]:
    # every variant records the same value columns, so the dataset's parts line up
    variants = [Variant("base", game.rules(), {"overrides": ""})]
    for name, sets in spec.variants.items():
        try:
            variants.append(
                Variant(name, game.rules(sets=tuple(sets)), {"overrides": "; ".join(sets)})
            )
        except RulesError as e:  # a rules key an engine does not (yet) have
            print(f"study: skipping {game.name} variant {name}: {e}", file=sys.stderr)
    return variants


def game_datasets(game, swept: list[Variant]) -> list[tuple[int, list[Variant]]]:
    """(player count, variants) of each of the game's datasets in the study: every count it
    studies, the variants ``swept`` at the counts of its plan's ``variant_players``, the base
    elsewhere."""
    spec = game.study
    counts = [n for n in spec.player_counts if n in game.player_counts]
    return [
        (n, swept if n in spec.variant_players else swept[:1])
        for n in counts or [game.default_players]
    ]


def study_plans(
    scale: float = 1.0,
    field: str = SCRIPTED,
    jobs: int = 1,
    progress: bool = False,
    budget: Budget | None = None,
    scheduler: str | None = None,
) -> list[tuple[str, Plan]]:
    """(folder name, plan) of every dataset of the study; ``scale`` multiplies game counts.
    ``field`` (a rung) plays the scripted datasets; the adapted and search rungs adapt each
    of their variants first (``budget`` games each, on ``jobs`` workers or the dask cluster at
    ``scheduler``, cached)."""
    plans = []
    for name in studied_games():
        game = get_game(name)
        spec = game.study
        n_games = max(100, int(spec.n_games * scale))
        chunk = max(1_000, min(game.chunk_size, -(-n_games // 4)))
        swept = study_variants(game, spec)
        for n, variants in game_datasets(game, swept):
            plan = Plan(
                game=name,
                n_games=n_games,
                n_players=n,
                seats=study_seats(game, n),
                seed=STUDY_SEED,
                chunk_size=chunk,
                variants=variants,
                field=SCRIPTED,
            )
            if field != SCRIPTED:
                ladder = Ladder(game, n, budget, jobs, progress, scheduler=scheduler)
                plan = ladder.plan(plan, Field(field))
            plans.append((f"{name}-{n}p", plan))
        strong = strong_plan(game, swept, scale)
        if strong is not None:
            plans.append(strong)
    return plans


def strong_plan(game, variants: list[Variant], scale: float) -> tuple[str, Plan] | None:
    """(folder, plan) of the game's strong-field dataset, or None when it has no strong field."""
    spec = game.study
    seats = (
        strong_seats(game, game.rules(), STRONG_PLAYERS, spec.strong_search_games > 0)
        if spec.strong_games or spec.strong_search_games
        else None
    )
    if seats is None or STRONG_PLAYERS not in game.player_counts:
        return None
    searching = SEARCH in seats
    n_games = max(
        10 if searching else 100,
        int((spec.strong_search_games if searching else spec.strong_games) * scale),
    )
    chunk = max(10, min(game.chunk_size, -(-n_games // 4)))
    return (
        f"{game.name}-{STRONG_PLAYERS}p-strong",
        Plan(
            game=game.name,
            n_games=n_games,
            n_players=STRONG_PLAYERS,
            seats=seats,
            seed=STUDY_SEED,
            chunk_size=chunk,
            variants=variants,
            field=None if searching else TUNED,
        ),
    )


def run_study(
    runs_dir: Path,
    report_path: Path,
    jobs: int = -1,
    progress: bool = True,
    scale: float = 1.0,
    field: str = SCRIPTED,
    budget: Budget | None = None,
    resume: bool = False,
    screen_scale: float = SCREEN_SCALE,
    scheduler: str | None = None,
    force: bool = False,
) -> list[Path]:
    """Run the default study into ``runs_dir`` and write the report to ``report_path``.

    Earlier study datasets and folders in ``runs_dir`` are replaced (another command's output
    where the study writes, only with ``force``: simulator.run.outputs); with ``resume`` those
    the same study finished are kept, those it started are finished, and so are its screens.
    ``runs_dir`` is locked while the study writes it: a second study there is refused.  Prints one
    line per dataset and where the report is; returns the dataset folders.  ``scale`` shrinks
    or grows every game count (tests use a small one; ``balsim study --scale K``);
    ``field`` is the rung that plays the scripted datasets (adapted with ``budget`` games per
    variant).  The games run on ``jobs`` local processes, or on the workers of the dask
    cluster at ``scheduler``.  Stopped by Ctrl-C, in any phase, it says how to finish the
    study.
    """
    runs_dir, report_path = Path(runs_dir), Path(report_path)
    started = time.perf_counter()
    finish = (
        f"balsim study --out {shlex.quote(str(runs_dir))} "
        f"--report {shlex.quote(str(report_path))}"
        + (f" --field {field}" if field != SCRIPTED else "")
        + (f" --adapt-budget {budget.games}" if budget else "")
        + (f" --scale {scale:g}" if scale != 1 else "")
        + (f" --scheduler {shlex.quote(scheduler)}" if scheduler else "")
        + (f" --screen-scale {screen_scale:g}" if screen_scale != SCREEN_SCALE else "")
        + (" --force" if force else "")
        + " --resume"
    )
    # the folders are the same whoever plays: checked before any field is adapted
    folders = [folder for folder, _ in study_plans(scale)]
    runs = check_study_outputs(runs_dir, report_path, folders, force)
    lock = Writing(runs, runs_dir).__enter__()
    phase = "while adapting the players to the rules"
    try:
        check_study_outputs(runs_dir, report_path, folders, force)  # again, now that it is ours
        plans = study_plans(scale, field, jobs, progress, budget, scheduler)
        phase = "while compiling the engines"
        warm_engines({plan.game: plan.n_players for _, plan in plans}, jobs)
        phase = "while playing the datasets"
        dirs = play_datasets(runs_dir, plans, jobs, progress, resume, scheduler)
        phase = "in the answers to the designer's questions"
        answers = study_answers(
            runs_dir,
            {plan.game for _, plan in plans},
            jobs,
            progress,
            scale,
            STUDY_WRITER,
            lambda path, tool, command: kept_result(path, tool, command, resume),
            scheduler,
            budget,
        )
        phase = "in the challenges of the strong fields' dominant policies"
        challenges = run_challenges(runs_dir, dirs, jobs, progress, scale, resume, scheduler)
        phase = "in the sensitivity screens"
        screens = run_screens(runs_dir, jobs, progress, scale, screen_scale, resume, scheduler)
        phase = "in the rated ladders"
        skill = run_skill(runs_dir, jobs, progress, scale, resume, scheduler)
        phase = "while writing the report"
        t = time.perf_counter()
        write_report(answers + dirs + challenges + screens + skill, report_path, jobs)
    except KeyboardInterrupt as e:  # the dataset's own line says what it kept, not how to go on
        detail = str(e).removeprefix("Aborted.").strip().split(";")[0]
        kept = f" ({detail})" if detail else ""
        raise Interrupted(
            f"Aborted {phase}{kept}; `{finish}` finishes the study, keeping what it finished"
        ) from None
    except Fault as e:
        raise Fault(
            f"{str(e).split('; ')[0]} {phase}; once that is fixed, `{finish}` finishes the study"
        ) from None
    finally:
        lock.__exit__()
    print(
        f"report: {report_path} ({time.perf_counter() - t:.1f} s); study took "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return dirs


def play_datasets(runs_dir: Path, plans, jobs, progress, resume, scheduler) -> list[Path]:
    """Play the study's datasets as one batch of tasks (a cluster stays busy across them),
    keeping with ``resume`` those finished and finishing those started; one line per dataset
    and one for the batch.  Returns the dataset folders."""
    dirs, batch = [runs_dir / folder for folder, _ in plans], []
    for (folder, plan), out in zip(plans, dirs):
        if resume and finished(out, plan):
            print(f"{folder}: finished earlier, kept -> {out}", flush=True)
        else:
            again = resume and same_plan(out, plan)
            target = Target(None if again else plan, out, again, not again, STUDY_WRITER)
            batch.append((folder, target))
    if not batch:
        return dirs
    started = time.perf_counter()
    label = f"{len(batch)} datasets"
    manifests = execute_all([t for _, t in batch], jobs, scheduler, progress, label)
    seconds = time.perf_counter() - started
    for (folder, target), manifest in zip(batch, manifests):
        games = manifest["n_games"] * len(manifest["variants"])
        done = manifest["played_this_run"]["seconds"]
        print(f"{folder}: {games:,} games, done {done:.1f} s into the batch -> {target.out}")
    played = sum(m["played_this_run"]["games"] for m in manifests)
    print(
        f"{label}: {played:,} games played in {seconds:.1f} s ({played / seconds:,.0f} games/s)",
        flush=True,
    )
    return dirs


def check_study_outputs(
    runs_dir: Path, report_path: Path, folders: list[str], force: bool = False
) -> Path:
    """Refuse, before any game runs, a study folder inside a dataset, a folder the study
    writes (its datasets, screens, skill curves, challenges) that the output rule refuses to
    it (another command's output there only with ``force``), and a report path inside any of
    them.  Returns the study's folder, absolute."""
    runs = checked_path(runs_dir, "--out")
    dataset = inside_dataset(runs)
    if dataset is not None:
        raise UserError(
            f"--out {runs_dir} is inside the dataset {dataset}; name a folder for datasets"
        )
    tools = {
        screen_folder: "sensitivity",
        skill_folder: SKILL_TOOL,
        challenge_folder: CHALLENGE_TOOL,
    }
    written = {folder: DATASET for folder in folders}
    written.update({name(game): tool for name, tool in tools.items() for game in studied_games()})
    written.update({folder: ASK_TOOL for folder in answer_folders(studied_games())})
    for folder, kind in written.items():
        claim(runs_dir / folder, kind, STUDY_WRITER, force, own_name=True, replaces_own=True)
    report = report_path.resolve()
    for folder in written:
        if (runs / folder) in report.parents:
            raise UserError(
                f"--report {report_path} is inside the study's folder {runs_dir / folder}; "
                "write it elsewhere"
            )
    return runs


def same_plan(out: Path, plan: Plan) -> bool:
    """Whether ``out`` holds a dataset this engine started with ``plan`` (by this study, at
    this scale)."""
    manifest = own_manifest(out)
    try:
        return (
            manifest is not None
            and manifest.get("engine_version") == get_game(plan.game).engine_version
            and plan_from_manifest(manifest) == plan
        )
    except UserError:
        return False


def finished(out: Path, plan: Plan) -> bool:
    """Whether ``out`` holds the whole dataset of ``plan``, finished."""
    if not same_plan(out, plan) or own_manifest(out).get("status") != "complete":
        return False
    try:
        whole_tasks(out, own_manifest(out))
    except UserError:
        return False
    return True


def kept_result(path: Path, tool: str, command: str, resume: bool) -> bool:
    """With ``resume``, whether ``path`` holds ``tool``'s result of ``command`` already.  A
    command's ``--out`` is the folder its record is in, wherever that folder has moved since:
    a study's folder moved as a whole keeps its answers."""
    record = out_record(path) if resume else None
    return (
        record is not None
        and record.get("tool") == tool
        and isinstance(record.get("command"), str)
        and record["command"].split(" --out ")[0] == command.split(" --out ")[0]
    )


def screen_folder(game: str) -> str:
    return f"sens-{game}"


def run_screens(
    runs_dir: Path,
    jobs: int,
    progress: bool,
    scale: float = 1.0,
    screen_scale: float = SCREEN_SCALE,
    resume: bool = False,
    scheduler: str | None = None,
) -> list[Path]:
    """The sensitivity screen of each game's assumed keys (see SCREEN_DETECT), one folder each,
    on ``jobs`` workers or the dask cluster at ``scheduler``; ``scale`` x ``screen_scale``
    multiplies its games; with ``resume`` a screen done is kept."""
    from simulator.experiments import sensitivity
    from simulator.experiments.lab import Design, Lab
    from simulator.experiments.screening import plan_screen

    out = []
    budget = scale * screen_scale
    run_games = sensitivity.run_games(SCREEN_DETECT, SCREEN_TRAJECTORIES)
    choice_games = sensitivity.choice_games(SCREEN_DETECT)
    per_run = max(SCREEN_MIN_GAMES, int(run_games * budget))
    per_choice = max(SCREEN_MIN_GAMES, int(choice_games * budget))
    for name in studied_games():
        game = get_game(name)
        rules = game.rules()
        n = SCREEN_PLAYERS if SCREEN_PLAYERS in game.player_counts else game.default_players
        design = Design(name, tuple(study_seats(game, n)), STUDY_SEED)
        path = runs_dir / screen_folder(name)
        command = (
            f"balsim study (screen of {name}, {per_run:,} games a run, {per_choice:,} a choice)"
        )
        if kept_result(path, "sensitivity", command, resume):
            print(f"{path.name}: finished earlier, kept -> {path}", flush=True)
            out.append(path)
            continue
        t = time.perf_counter()
        try:
            plan = plan_screen(game, rules, [], True, (0.5, 1.5), n, game.study.screen_spans)
            total = SCREEN_TRAJECTORIES * (len(plan.factors) + 1) * per_run + 2 * per_choice * len(
                plan.choices
            )
            with Lab(game, jobs, progress, total, scheduler) as lab:
                result = sensitivity.screen(
                    lab, rules, design, plan, SCREEN_TRAJECTORIES, per_run, per_choice, STUDY_SEED
                )
        except UserError as e:  # keys the checks refuse together: the study goes on without
            print(f"study: no sensitivity screen of {name}: {e}", file=sys.stderr)
            continue
        seconds = time.perf_counter() - t
        sensitivity.write(result, path, command, seconds, screen_files)
        add_to_record(path, **{WRITER: STUDY_WRITER})
        sees = sensitivity.detectable_by(per_run * SCREEN_TRAJECTORIES, sensitivity.DELTA)
        print(
            f"{path.name}: {len(plan.factors)} factors by Morris and {len(plan.choices)} "
            f"switches and choices of {len(plan.keys)} assumed keys at {n} players, "
            f"{result.games:,} games in {seconds:.1f} s (detects "
            f"±{100 * sees:.1f} points over a number's range, "
            f"±{100 * sensitivity.detectable_by(per_choice):.1f} for a switch) -> {path}",
            flush=True,
        )
        out.append(path)
    return out


def challenge_folder(game: str) -> str:
    return f"challenge-{game}"


def run_challenges(
    runs_dir: Path,
    dirs: list[Path],
    jobs: int,
    progress: bool,
    scale: float = 1.0,
    resume: bool = False,
    scheduler: str | None = None,
) -> list[Path]:
    """Challenge every dominant policy of each strong-field dataset among ``dirs`` (see
    CHALLENGE_MIN_GAMES): one folder per game with such datasets, its record holding every challenge
    (none when nothing is dominant); with ``resume`` a folder done is kept."""
    from simulator.analysis import Dataset
    from simulator.run.outputs import OUT_MARK, writing_result

    out = []
    opened = [Dataset(d) for d in dirs]
    for name in studied_games():
        spec = get_game(name).study
        strong = [ds for ds in opened if ds.game == name and is_strong(ds)]
        if not strong or not spec.challenge_games:
            continue
        budget = max(CHALLENGE_MIN_GAMES, int(spec.challenge_games * scale))
        search_games = max(12, int(spec.challenge_search_games * scale))
        asked = [(ds, incumbent) for ds in strong for incumbent in dominant_policies(ds)]
        path = runs_dir / challenge_folder(name)
        command = (
            f"balsim challenge {name} --budget {budget} --search-games {search_games} --seed "
            f"{STUDY_SEED} against: "
            + (", ".join(f"{i} ({field_of(ds)}, {ds.n_players}p)" for ds, i in asked) or "none")
        )
        if kept_result(path, CHALLENGE_TOOL, command, resume):
            print(f"{path.name}: finished earlier, kept -> {path}", flush=True)
            out.append(path)
            continue
        t = time.perf_counter()
        results = [
            {
                "field": field_of(ds),
                **challenged(ds, i, budget, search_games, jobs, progress, scheduler),
            }
            for ds, i in asked
        ]
        record = {
            "tool": CHALLENGE_TOOL,
            WRITER: STUDY_WRITER,
            "command": command,
            "challenges": results,
        }
        with writing_result(path) as tmp:
            (tmp / OUT_MARK).write_text(json.dumps(record, indent=1), encoding="utf-8")
        found = "; ".join(r["verdict"].split(":")[0] for r in results) or "no dominant policy"
        print(f"{path.name}: {found} in {time.perf_counter() - t:.1f} s -> {path}", flush=True)
        out.append(path)
    return out


def challenged(
    ds, incumbent: str, budget: int, search_games: int, jobs: int, progress: bool, scheduler=None
):
    """The record of ``balsim challenge`` against ``incumbent`` in ``ds``'s field and base
    rules (its knob sets included), each challenger starting from its copy on that rung."""
    from simulator.experiments.lab import Lab, scripted_field
    from simulator.experiments.strength import challenge, has_search

    game, field = get_game(ds.game), field_of(ds)
    rules = ds.variants[0]["rules"]
    ladder = Ladder(game, ds.n_players, scheduler=scheduler)
    start = (lambda rival: ladder.copy_name(rules, field, rival)) if field in RUNGS else None
    total = budget * (len(scripted_field(game)) - 1) + (search_games if has_search(game) else 0)
    with Lab(game, jobs, progress=progress, total=total, scheduler=scheduler) as lab:
        result = challenge(
            lab, rules, incumbent, ds.n_players, budget, search_games, STUDY_SEED, start
        )
    return result.record()


def skill_folder(game: str) -> str:
    return f"skill-{game}"


def run_skill(
    runs_dir: Path,
    jobs: int,
    progress: bool,
    scale: float = 1.0,
    resume: bool = False,
    scheduler: str | None = None,
) -> list[Path]:
    """The rated ladder of each game (see StudyPlan.skill_games), one folder each, on ``jobs``
    workers or the dask cluster at ``scheduler``; with ``resume`` a ladder done is kept."""
    from simulator.experiments.field import Ladder
    from simulator.experiments.lab import Lab
    from simulator.experiments.skill import rate_ladder, write_skill
    from simulator.experiments.strength import has_search
    from simulator.experiments.tournament import (
        RATED,
        default_budgets,
        ladder_rules,
        resolve_rungs,
    )

    out = []
    for name in studied_games():
        game = get_game(name)
        spec = game.study
        if not spec.skill_games or STRONG_PLAYERS not in game.player_counts:
            continue
        n_games = max(24, int(spec.skill_games * scale))
        path = runs_dir / skill_folder(name)
        rules = game.rules()
        budgets = default_budgets(game, rules) if has_search(game) else ()
        command = f"balsim skill {name} -p {STRONG_PLAYERS} -n {n_games} --seed {STUDY_SEED}"
        if kept_result(path, SKILL_TOOL, command, resume):
            print(f"{path.name}: finished earlier, kept -> {path}", flush=True)
            out.append(path)
            continue
        t = time.perf_counter()
        ladder = Ladder(game, STRONG_PLAYERS, jobs=jobs, progress=progress, scheduler=scheduler)
        rules = ladder_rules(ladder, rules, RATED, budgets)
        rungs = resolve_rungs(ladder, rules, RATED, budgets)
        with Lab(game, jobs, progress, n_games, scheduler) as lab:
            result = rate_ladder(
                lab, [Variant("base", rules)], rungs, STRONG_PLAYERS, n_games, STUDY_SEED
            )
        write_skill(result, path, command, charts=skill_files)
        add_to_record(path, **{WRITER: STUDY_WRITER})
        print(
            f"{path.name}: {len(rungs)} rungs rated on {result.games:,} games in "
            f"{time.perf_counter() - t:.1f} s -> {path}",
            flush=True,
        )
        out.append(path)
    return out
