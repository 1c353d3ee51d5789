"""Compiling the engines: the notice a first run prints, and compiling them ahead of use.

Each engine's kernels compile on their first call (minutes for the larger engines) and are
cached on disk (in ``NUMBA_CACHE_DIR``, a folder per game and version of the sources its
kernels are compiled from: see ``simulator/__init__.py``); a marker file in a game's folder
says its engine has compiled.
"""

from __future__ import annotations

import hashlib
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from simulator import KERNEL_CACHE, ROOT
from simulator.core.game import Game, get_game
from simulator.core.rng import game_seeds


def compiled_marker(game: Game) -> Path | None:
    """A file in ``game``'s compiled-kernel folder (one per version of the sources its kernels
    are compiled from) that says this version of its engine has been compiled from this
    checkout; None when kernels are not compiled.  numba files a cached kernel under its
    source folder's path too, so a second clone of the same sources compiles again: the
    marker names the checkout, or that clone would skip the notice and ``warm``."""
    import numba

    if numba.config.DISABLE_JIT:
        return None
    checkout = hashlib.sha1(str(ROOT).encode()).hexdigest()[:12]
    return Path(KERNEL_CACHE[game.name]) / f"{game.name}-{checkout}.compiled"


@contextmanager
def compiling(game: Game):
    """Say on stderr, before a first call that compiles ``game``'s engine (minutes, once per
    version of the sources), that it is compiling; remember it once the call succeeds."""
    marker = compiled_marker(game)
    if marker is not None and not marker.exists():
        print(
            f"compiling the {game.display_name} engine, first run only…",
            file=sys.stderr,
            flush=True,
        )
    yield
    if marker is not None and not marker.exists():
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass  # an unwritable cache was reported at import; it compiles every run


def warm_up(game: Game, params: tuple, n_players: int) -> None:
    """Compile ``game``'s engine here, once, when its cache does not hold it yet: the notice
    comes before the pause, and the workers then load the cached kernels."""
    marker = compiled_marker(game)
    if marker is None or marker.exists():
        return
    with compiling(game):
        game.play(params, game_seeds(0, np.zeros(1, np.int64)), np.zeros((1, n_players), np.int8))


def warm_engine(name: str, n_players: int) -> None:
    """Compile ``name``'s engine, and its search player's kernels when it has one (a game
    with a search seat may run its own kernel, compiled at that game's first call)."""
    game = get_game(name)
    params = game.prepare(game.rules(), n_players)
    warm_up(game, params, n_players)
    search = [p.id for p in game.policies if p.name == "search"]
    if search:
        seats = np.zeros((1, n_players), np.int8)
        seats[0, 0] = search[0]
        game.play(params, game_seeds(0, np.zeros(1, np.int64)), seats)


def warm_engines(players: dict[str, int], jobs: int) -> None:
    """Compile the engines of ``players`` (game name -> a player count) that the kernel cache
    lacks side by side, one process each, slowest first: a fresh checkout then waits for the
    slowest engine's compile rather than for all of them in turn (``Game.compile_seconds``:
    each engine's cold compile, measured).  With one job, or one engine
    missing, nothing is done here: each engine compiles at its first run."""
    from joblib import effective_n_jobs

    from simulator.run.workers import Workers

    missing = [
        name
        for name in sorted(players, key=lambda g: -get_game(g).compile_seconds)
        if (marker := compiled_marker(get_game(name))) is not None and not marker.exists()
    ]
    workers = min(effective_n_jobs(jobs), len(missing))
    if workers >= 2:
        # the command's pool at its size: the same processes then play the first datasets
        with Workers(jobs) as pool:
            list(pool.map(warm_engine, [(name, players[name]) for name in missing]))


def main() -> None:
    """``python -m simulator.run.warm``: compile every engine the cache lacks, side by side (``make
    test`` does it before the tests, whose parallel workers then load the kernels)."""
    from simulator.core.game import GAME_NAMES

    warm_engines({name: get_game(name).default_players for name in GAME_NAMES}, jobs=-1)


if __name__ == "__main__":
    main()
