"""Seeding and the in-state random number generator shared by every engine.

Each game's seed is ``game_seed(master_seed, game_id)``, so any game replays alone and a
dataset does not depend on ``--jobs``, chunk size or backend.  Every variant of a sweep uses
the same game seeds (common random numbers).

Inside a game, randomness comes from independent SplitMix64 streams kept in a
``uint64[N_STREAMS]`` array that is part of the game state: setup and shuffles, dice, policy
choices, and the search player's own stream (it re-draws what a seat cannot know for each
rollout, so a search never reads the real game's future).  Keeping them apart means a policy
change does not shift the dice, so paired variants see the same deals and rolls as far as the
rules allow.
"""

import numpy as np

from simulator.core.kernel import allocating, entry, rule

# stream slots in the rng state array
SETUP, DICE, POLICY, SEARCH = range(4)
N_STREAMS = 4

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S32 = np.uint64(32)
STREAM_SALT = np.uint64(0xD1B54A32D192ED03)


@rule
def mix64(z):
    """SplitMix64 finaliser: a bijective 64-bit hash (Steele, Lea & Flood 2014)."""
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


def game_seeds(master_seed: int, game_ids: np.ndarray) -> np.ndarray:
    """uint64 seed of each game: a hash of (master seed, game_id)."""
    ids = np.asarray(game_ids, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _hash_seeds(np.uint64(master_seed & 0xFFFFFFFFFFFFFFFF), ids)


@entry
def _hash_seeds(master, ids):
    out = np.empty(ids.shape[0], dtype=np.uint64)
    base = mix64(master + GOLDEN)
    for i in range(ids.shape[0]):
        out[i] = mix64(base ^ mix64((ids[i] + np.uint64(1)) * GOLDEN))
    return out


@allocating
def rng_new(seed):
    """RNG state for one game: uint64[N_STREAMS], one SplitMix64 counter per stream."""
    state = np.empty(N_STREAMS, dtype=np.uint64)
    for s in range(N_STREAMS):
        state[s] = mix64(seed ^ (np.uint64(s + 1) * STREAM_SALT))
    return state


@rule
def rng_next(state, stream):
    """Next uint64 of one stream."""
    state[stream] += GOLDEN
    return mix64(state[stream])


@rule
def rng_below(state, stream, n):
    """Uniform int in [0, n) (n >= 1) by Lemire's multiply-shift; bias below 2**-32 * n."""
    return np.int64(((rng_next(state, stream) >> S32) * np.uint64(n)) >> S32)


@rule
def rng_float(state, stream):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(rng_next(state, stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@rule
def roll_die(state, sides):
    """One die with faces 1..sides, from the dice stream."""
    return rng_below(state, DICE, sides) + 1


@rule
def shuffle(state, stream, items):
    """Fisher–Yates shuffle of a 1-D array in place."""
    for i in range(items.shape[0] - 1, 0, -1):
        j = rng_below(state, stream, i + 1)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp
