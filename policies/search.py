"""The game-independent parts of the `search` player: determinized flat Monte Carlo.

At a decision, the candidates are the ``top_k`` options with the best scores by the rollout
policy's own scorer, the rollout policy's own choice first; ``rollouts`` playouts are spread
over them in rounds, each from a copy of the game in which everything the deciding seat cannot
know has been re-drawn from the game's ``SEARCH`` stream, every candidate of a round on the
same re-drawn future (common random numbers).  The rollout policy's choice is played unless a
rival beats it in an exact paired one-sided test corrected over the rivals
(:func:`paired_choice`): the best mean of a few noisy playouts mostly picks a luckier move,
not a better one.

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

from simulator.core.kernel import allocating, rule
from simulator.core.rng import DICE, N_STREAMS, POLICY, SEARCH, SETUP, mix64, rng_next, shuffle

# knobs of [policies.search], appended to each game's KNOBS
SEARCH_KNOBS = ("rollouts", "rollout_policy", "horizon", "top_k")
# where a game's search reads its learned player (policies/search_driver.py): 1 keeps the learned
# pick unless a rival beats it, and values a rollout its horizon cut by the learned weights
LEARNED_SEARCH_KNOBS = ("learned_value",)
MARGIN_WEIGHT = 0.1  # a win always outweighs any margin: values lie in [-0.1, 1.1]
RESEED_SALT = 0x6A09E667F3BCC909
# each stream's salt, (stream + 1) * RESEED_SALT mod 2**64, computed here in Python integers:
# the same product in numpy's uint64 wraps too, but warns of overflow when kernels run as Python
RESEED_SALTS = np.array(
    [(stream + 1) * RESEED_SALT % 2**64 for stream in range(N_STREAMS)], dtype=np.uint64
)
# The decision rule (paired_choice): on candidates of equal value, a rival replaces the rollout
# policy's choice in at most LEVEL of the decisions.  Candidates beyond MAX_CANDIDATES are not
# weighed (top_k); a decision plays at most MAX_ROUNDS rounds (so at most MAX_ROLLOUTS
# rollouts, the search's limit), each rival's gain of each round kept for the exact test.
LEVEL = 0.2
MAX_CANDIDATES = 64
MAX_ROUNDS = 1024
MAX_ROLLOUTS = 2 * MAX_ROUNDS  # two candidates at least
GAIN_BOUND = 1.0 + 2.0 * MARGIN_WEIGHT  # a paired gain's size at most (values in [-0.1, 1.1])
GRID_CELLS = 2048  # the test counts a round's largest gain in about GRID_CELLS / rounds cells
# The paired block of a search's buffers: row c holds rival c's gains round by round; row
# WAYS (candidate 0's, which gains nothing over itself) the test's distribution, whose cells
# reach GRID_CELLS plus half a cell of rounding per round.
PAIRED_ROWS = MAX_CANDIDATES
PAIRED_WIDTH = GRID_CELLS + MAX_ROUNDS // 2 + 1
WAYS = 0


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
def rollout_value(scores, n_players, seat, scale):
    """A rollout's value for ``seat`` from every seat's final ``scores`` (:func:`outcome_value`
    of its win share and its margin over the best other score, ``scale`` its margin's scale)."""
    return outcome_value(
        win_share(scores, n_players, seat), margin_to_best_other(scores, n_players, seat), scale
    )


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
def rounds_of(rollouts, m):
    """The rounds of a decision of ``rollouts`` playouts over ``m`` candidates: every candidate
    once a round, at least one round, at most MAX_ROUNDS."""
    return min(max(rollouts // m, 1), MAX_ROUNDS)


@rule
def paired_scale(rounds):
    """Cells per unit of gain of a decision of ``rounds`` rounds: as fine as GRID_CELLS cells
    for every round's largest possible gain allow, so the test's cost (rounds x cells) stays
    bounded.  Fixed by the rounds alone, before any rollout, so the test is exact."""
    return max(1.0, GRID_CELLS / (GAIN_BOUND * rounds))


@rule
def flip_tail(gains, scale, ways):
    """The exact sign-flip distribution of the sum of the paired ``gains`` (each counted in
    whole cells of ``1 / scale``, at most GAIN_BOUND): under the null hypothesis that the two
    candidates are of equal value, each gain is as likely positive as negative, so every one
    of the 2^n sign flips of the observed gains is equally likely.  Returns ``(greater,
    equal, lead)``: the chances that a flip's sum is greater than and equal to the observed
    sum, and the observed sum in cells.  Ties (equal gains, zero gains) are counted exactly.

    A flip's sum is twice the cells of the gains it makes positive less the cells of all, so
    the distribution is that of a random subset's cells, each gain in it with chance 1/2:
    built one gain at a time in ``ways`` (``ways[s]``: the chance of s cells)."""
    total, observed = 0, 0
    ways[0] = 1.0
    for i in range(gains.shape[0]):
        q = np.int64(round(min(abs(gains[i]), GAIN_BOUND) * scale))
        if q == 0:
            continue
        if gains[i] > 0.0:
            observed += q
        for s in range(total + 1, total + q + 1):
            ways[s] = 0.0
        total += q
        for s in range(total, q - 1, -1):  # downwards: ways[s - q] is still the old value
            ways[s] = 0.5 * (ways[s] + ways[s - q])
        for s in range(q):
            ways[s] *= 0.5
    greater = 0.0
    for s in range(observed + 1, total + 1):
        greater += ways[s]
    return greater, ways[observed], 2 * observed - total


@rule
def paired_choice(paired, m, n, scale, u):
    """Index of the candidate to play among ``m``: candidate 0 (the rollout policy's own
    choice) unless a rival beats it in an exact one-sided sign-flip test of its paired gains
    at level LEVEL, corrected over the ``m - 1`` rivals (Bonferroni), then the rival that
    passes with the highest mean gain.

    ``paired[c, :n]`` holds rival c's gains over candidate 0, round by round (the two played
    on the same futures); ``scale`` the cells per unit of gain (:func:`paired_scale`); ``u`` a
    uniform number in [0, 1), drawn from the SEARCH stream before the rounds.  A rival passes
    when its sum is positive and ``greater + u * equal`` (:func:`flip_tail`) is at most its
    level: the randomized p-value of the sign-flip distribution, uniform when the candidates
    are of equal value, so equal candidates are overridden in at most LEVEL of the decisions,
    ties or not, and the test keeps its full level at a few rounds (two rounds that both
    favour a rival pass with chance 0.8, where an unrandomized test at 1/4 could never pass).
    It is the paired t test's statistic (the mean gain, given the gains' sizes) with its exact
    distribution instead of Student's t, which ties made pass equal candidates in up to a
    quarter of the decisions (bench/search_override.py).  ``paired[WAYS]`` is the test's
    scratch row."""
    level = LEVEL / min(m - 1, MAX_CANDIDATES - 1)
    ways = paired[WAYS]
    best, best_gain = 0, 0.0
    for c in range(1, m):
        mean = 0.0
        for r in range(n):
            mean += paired[c, r] / n
        if mean <= best_gain:
            continue
        greater, equal, lead = flip_tail(paired[c, :n], scale, ways)
        if lead > 0 and greater + u * equal <= level:
            best, best_gain = c, mean
    return best


@rule
def settled(paired, m, played, rounds, scale, u):
    """Whether the rounds left cannot change :func:`paired_choice`'s answer with the uniform
    number ``u``, so they need not be played.  Over all ``rounds``, a rival's chances of a
    flip greater than and equal to its sum are at least 2^-left times the same over the
    ``played`` rounds, summed as the test sums them (``greater + u * equal``): every flip of the
    played rounds at least their sum, with the rounds left keeping their signs, is a flip of
    the whole at least the whole, and one strictly greater stays strictly greater.  So when
    that bound exceeds the level for every rival, no rival can pass whatever the rounds left
    give (with one rival at LEVEL 0.2, from two rounds before the end: e.g. the first of two
    rounds lost by every rival, or tied with ``u`` above 0.4)."""
    left = rounds - played
    reach = 0.5**left
    level = LEVEL / min(m - 1, MAX_CANDIDATES - 1)
    if played == 0 or left == 0 or reach <= level:
        return False
    for c in range(1, m):
        greater, equal, _ = flip_tail(paired[c, :played], scale, paired[WAYS])
        if (greater + u * equal) * reach <= level:
            return False
    return True


@rule
def tally(sums, counts, paired, candidate, round_, value, base):
    """Add one rollout's ``value`` to its candidate's sum and count and, for a rival, its gain
    over ``base`` (candidate 0's value in the same round of rollouts) to ``paired[candidate,
    round_]``, which :func:`paired_choice` reads.  Returns the round's base: ``value`` for
    candidate 0."""
    sums[candidate] += value
    counts[candidate] += 1.0
    if candidate == 0:
        return value
    paired[candidate, round_] = value - base
    return base


@rule
def candidate_at(rank, first):
    """The candidate a decision weighs ``rank``-th: ``first`` (the one played unless a rival
    beats it: :func:`paired_choice`'s candidate 0), then the others in their order."""
    if rank == 0:
        return first
    return rank - 1 if rank <= first else rank


@rule
def to_candidate_order(row, first):
    """A row tallied by rank (:func:`candidate_at`) put back in the candidates' order."""
    kept = row[0]
    for r in range(first):
        row[r] = row[r + 1]
    row[first] = kept


@rule
def copy_slots(work, state, first, end):
    """``work[first:end] = state[first:end]`` as a plain loop: a slice assignment allocates
    (numba guards against overlap), which a kernel without reference counting cannot.  The loop
    runs over views from 0: an index from ``first`` might be negative for all the compiler
    knows, and its wraparound check kept the loop from being vectorized (about 5x slower)."""
    to, source = work[first:end], state[first:end]
    for k in range(to.shape[0]):
        to[k] = source[k]


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
        work_rng[stream] = mix64(seed ^ RESEED_SALTS[stream])


@allocating
def redeal(items, n, rng):
    """Sort ``items[:n]`` (the cards a seat cannot see) into a canonical order, then shuffle
    them with the (re-seeded) setup stream: the result depends only on which cards are unseen,
    never on their real hidden order."""
    view = items[:n]
    view.sort()
    shuffle(rng, SETUP, view)
