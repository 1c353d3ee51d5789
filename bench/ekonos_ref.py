"""Time the Ekonos engine on the games the shared C and plain-Python references play.

    python bench/ekonos_ref.py N SEED [--players P] [--seats random|default] [--kernel]

The references (``EKONOS_REF``, ``bench/ekonos_refs.sh``) replay the engine's randomness
exactly: with every seat ``random`` all engines play the very same games, so their statistics
and checksum over all final scores must be identical.  Prints one ``engine=...`` line in the
references' format (their ``table.py`` summarises a log of them).  The timed call is
``GAME.play`` as ``balsim bench`` times it, or with ``--kernel`` ``chunk.play_games`` alone on
preallocated outputs; the compile or cache load (8 games) is not timed.  CPU time of this
process: games per second per core.
"""

import argparse
import time

import numpy as np

from simulator.cli.options import seat_list
from simulator.core.game import get_game
from simulator.core.rng import game_seeds
from simulator.games.ekonos import chunk
from simulator.games.ekonos.game import allocate
from simulator.games.ekonos.state import (
    CFG_COMPANIES,
    G_LENGTH,
    G_ROUNDS,
    G_WINNER,
    P_BOUGHT,
    P_DISCARDED,
    P_EXPANSIONS,
    P_SCORE,
    TRACE_WIDTH,
)
from simulator.run.plan import Plan, Variant, seat_policy_ids

MASK = (1 << 64) - 1


def checksum(scores: np.ndarray) -> int:
    """The references' checksum: a 64-bit LCG over every final score, game by game."""
    total = 0
    for s in scores.reshape(-1).tolist():
        total = (total * 6364136223846793005 + s + 1) & MASK
    return total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seats", choices=("random", "default"), default="random")
    ap.add_argument("--kernel", action="store_true", help="time chunk.play_games only")
    a = ap.parse_args()

    game = get_game("ekonos")
    rules = game.rules()
    names = seat_list(game, a.players, "random" if a.seats == "random" else None, None)
    plan = Plan(
        game=game.name,
        n_games=a.n,
        n_players=a.players,
        seats=names,
        seed=a.seed,
        chunk_size=game.chunk_size,
        variants=[Variant("base", rules)],
    )
    params = game.prepare(rules, a.players)
    ids = np.arange(a.n, dtype=np.int64)
    seeds, seat_ids = game_seeds(a.seed, ids), seat_policy_ids(game, plan, ids)

    t = time.process_time()
    game.play(params, seeds[:8], seat_ids[:8])  # compile or load the cache
    warm = time.process_time() - t

    cfg, knobs = params
    if a.kernel:
        out = allocate(cfg, a.n)
        start = time.process_time()
        chunk.play_games(cfg, knobs, seeds, seat_ids, *out, np.zeros((0, TRACE_WIDTH), np.int64))
        cpu = time.process_time() - start
        out_games, out_players = out[0], out[1]
        score = out_players[:, :, P_SCORE]
        length, winner, rounds = (
            out_games[:, G_LENGTH],
            out_games[:, G_WINNER],
            out_games[:, G_ROUNDS],
        )
        bought, expansions = out_players[:, :, P_BOUGHT], out_players[:, :, P_EXPANSIONS]
        discarded = out_players[:, :, P_DISCARDED]
        boards = out[2][:, : cfg[CFG_COMPANIES]].sum(axis=1)  # the end values, not mid-game
        name = "balsim-kernel"
    else:
        start = time.process_time()
        raw = game.play(params, seeds, seat_ids)
        cpu = time.process_time() - start
        g, p = raw["games"], raw["players"]
        score, length, winner, rounds = p["score"], g["length"], g["winner_seat"], g["rounds"]
        bought, expansions, discarded = p["shares_bought"], p["expansions"], p["cards_discarded"]
        boards = sum(g[f"company{c}_value"].astype(np.int64) for c in range(cfg[CFG_COMPANIES]))
        name = "balsim"
    if a.seats == "default":
        name += "-default-seats"

    n, seats = a.n, a.n * a.players
    mean = score.sum() / seats
    sd = (np.square(score.astype(np.float64)).sum() / seats - mean**2) ** 0.5
    print(
        f"engine={name} games={n} seed={a.seed} players={a.players} "
        f"mean_score={mean:.6f} sd_score={sd:.6f} mean_length={length.sum() / n:.6f} "
        f"tie_frac={(winner == -1).sum() / n:.6f} "
        f"mean_rounds={rounds.astype(np.int64).sum() / n:.4f} "
        f"mean_winner_score={score.max(axis=1).sum() / n:.6f} mean_board={boards.sum() / n:.6f} "
        f"mean_bought={bought.sum() / seats:.6f} mean_expansions={expansions.sum() / seats:.6f} "
        f"mean_discarded={discarded.sum() / seats:.6f} checksum={checksum(score):016x} "
        f"cpu_s={cpu:.6f} games_per_s={n / cpu:.1f} warm_s={warm:.2f}"
    )


if __name__ == "__main__":
    main()
