"""The game-independent parts of the `search` player: determinized flat Monte Carlo.

At a decision, the candidates are the ``top_k`` options with the best scores by the rollout
policy's own scorer, the rollout policy's own choice first; ``rollouts`` playouts are spread
over them in rounds, each from a copy of the game in which everything the deciding seat cannot
know has been re-drawn from the game's ``SEARCH`` stream, every candidate of a round on the
same re-drawn future (common random numbers).  The rollout policy's choice is played unless a
rival beats it in a paired one-sided test corrected over the rivals (:func:`paired_choice`):
the best mean of a few noisy playouts mostly picks a luckier move, not a better one.

Why flat Monte Carlo rather than a tree search (UCT): the three games are stochastic and hide
information, so every playout starts from a fresh determinization; with a few hundred playouts
a tree would stay a level or two deep and its statistics would be dominated by that noise.
Flat Monte Carlo over a pruned option list with a scripted rollout policy is the standard
strong baseline for such games, cheap, and exactly reproducible.

Each game's engine supplies the rest (copying its state, replaying a step up to the decision,
re-drawing hidden information, its outcome and margin scale); see its ``search`` module, and
policies/search_driver.py for the driver Ekonos and Karnaxis share.
"""

import numpy as np
from scipy.special import stdtrit

from simulator.core.kernel import allocating, rule
from simulator.core.rng import DICE, POLICY, SEARCH, SETUP, mix64, rng_next, shuffle

# knobs of [policies.search], appended to each game's KNOBS
SEARCH_KNOBS = ("rollouts", "rollout_policy", "horizon", "top_k")
MARGIN_WEIGHT = 0.1  # a win always outweighs any margin: values lie in [-0.1, 1.1]
RESEED_SALT = np.uint64(0x6A09E667F3BCC909)
# The decision rule (paired_choice): on candidates of equal value, a rival replaces the rollout
# policy's choice in at most LEVEL of the decisions.  Candidates beyond MAX_CANDIDATES are not
# weighed (top_k), so the correction's table is small.
LEVEL = 0.2
MAX_CANDIDATES = 64
MAX_DF = 120  # more pairs use this row's values: slightly larger than theirs, so still valid


def critical_values(level: float, max_candidates: int, max_df: int) -> np.ndarray:
    """CRITICAL[rivals, df]: the one-sided t critical value at level ``level / rivals`` with
    ``df`` degrees of freedom (Bonferroni over the rivals; df 0 and rivals 0 unused)."""
    rivals = np.arange(1, max_candidates)[:, None]
    df = np.arange(1, max_df + 1)[None, :]
    table = np.full((max_candidates, max_df + 1), np.inf)
    table[1:, 1:] = stdtrit(df, 1.0 - level / rivals)
    return table


CRITICAL = critical_values(LEVEL, MAX_CANDIDATES, MAX_DF)


@rule
def win_share(scores, n_players, seat):
    """1 for a sole best score, 1/k when k seats tie for the best, else 0."""
    best = scores[0]
    for p in range(1, n_players):
        best = max(best, scores[p])
    if scores[seat] < best:
        return 0.0
    tied = 0
    for p in range(n_players):
        tied += scores[p] == best
    return 1.0 / tied


@rule
def outcome_value(share, margin, scale):
    """Win first, then margin: ``share`` plus MARGIN_WEIGHT × the margin over ``scale``,
    clipped to [-1, 1] (``margin`` is the seat's score minus the best other score)."""
    return share + MARGIN_WEIGHT * min(1.0, max(-1.0, margin / scale))


@rule
def margin_to_best_other(scores, n_players, seat):
    best_other = -np.inf
    for p in range(n_players):
        if p != seat:
            best_other = max(best_other, scores[p])
    return scores[seat] - best_other


@rule
def top_k(scores, n, k, out):
    """Indices of the ``k`` highest of ``scores[:n]`` into ``out``, best first (ties: lower
    index first); returns how many (min(n, k, MAX_CANDIDATES), at least 1 when n >= 1)."""
    m = min(n, max(k, 1), MAX_CANDIDATES)
    for r in range(m):
        best = -1
        for i in range(n):
            taken = False
            for q in range(r):
                if out[q] == i:
                    taken = True
                    break
            if not taken and (best < 0 or scores[i] > scores[best]):
                best = i
        out[r] = best
    return m


@rule
def paired_choice(gains, squares, counts, m):
    """Index of the candidate to play among ``m``: candidate 0 (the rollout policy's own
    choice) unless a rival beats it by a paired one-sided t test at level LEVEL, corrected
    over the ``m - 1`` rivals (Bonferroni), then the significant rival of highest mean gain.

    ``gains[c]`` and ``squares[c]`` sum rival c's paired differences over candidate 0 (the
    two played on the same futures) and their squares, over ``counts[c]`` pairs.  The
    statistic is ``scipy.stats.ttest_rel``'s, mean over its standard error with the sample
    standard deviation; its critical value comes from CRITICAL.  A single pair has no spread
    to judge by, so it never overrides; differences all equal and positive always do."""
    rivals = min(m - 1, MAX_CANDIDATES - 1)
    best, best_gain = 0, 0.0
    for c in range(1, m):
        n = counts[c]
        if n < 2:
            continue
        mean = gains[c] / n
        if mean <= best_gain:
            continue
        variance = max(squares[c] - n * mean * mean, 0.0) / (n - 1.0)
        critical = CRITICAL[rivals, min(np.int64(n) - 1, MAX_DF)]
        if mean * mean * n > critical * critical * variance:  # t > critical, as mean > 0
            best, best_gain = c, mean
    return best


@rule
def settled(gains, m, played, rounds):
    """Whether the rounds left cannot change :func:`paired_choice`'s answer, so they need not
    be played: after the first of two rounds, when no rival gained over candidate 0.  Why: a
    rival with pair gains g1 <= 0 and g2 is taken only if its mean is positive and
    t = (g1 + g2) / |g1 - g2| exceeds the critical value c, i.e. g1 + g2 > c |g1 - g2|; with
    c > 1 (one-sided at LEVEL < 1/4, one degree of freedom) that asks g2 < g1 (c + 1) / (c - 1)
    <= 0 when g2 >= g1, so the sum is not positive in either case and the answer is candidate
    0 whatever the second round gives (tests/test_search_common.py)."""
    if played != 1 or rounds != 2 or CRITICAL[1, 1] <= 1.0:
        return False
    for c in range(1, m):
        if gains[c] > 0.0:
            return False
    return True


@rule
def tally(sums, counts, gains, squares, candidate, value, base):
    """Add one rollout's ``value`` to its candidate's sum and count and, for a rival, its gain
    over ``base`` (candidate 0's value in the same round of rollouts) to the paired sums that
    :func:`paired_choice` reads.  Returns the round's base: ``value`` for candidate 0."""
    sums[candidate] += value
    counts[candidate] += 1.0
    if candidate == 0:
        return value
    gains[candidate] += value - base
    squares[candidate] += (value - base) ** 2
    return base


@rule
def rollout_seed(real_rng):
    """A fresh seed for one rollout, from the real game's SEARCH stream (the only stream of the
    real game a search draws from)."""
    return rng_next(real_rng, SEARCH)


@rule
def reseed_chance(work_rng, seed):
    """Re-seed a copied game's setup, dice and policy streams from ``seed``, so a rollout's
    future never comes from the real game's streams."""
    for stream in (SETUP, DICE, POLICY, SEARCH):
        work_rng[stream] = mix64(seed ^ (np.uint64(stream + 1) * RESEED_SALT))


@allocating
def redeal(items, n, rng):
    """Sort ``items[:n]`` (the cards a seat cannot see) into a canonical order, then shuffle
    them with the (re-seeded) setup stream: the result depends only on which cards are unseen,
    never on their real hidden order."""
    view = items[:n]
    view.sort()
    shuffle(rng, SETUP, view)
