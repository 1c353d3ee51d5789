"""Karnaxis character choices and action squares of the learned seats: each is chosen by the
learned value of the position it leaves (features.py), one ply ahead.

At a learned seat's character choice (Game Setup) and at each of its action squares (2. Take
Action!, after the saved Karnaxis cards it uses), its rollout policy scores the options; the
best ``top_k`` of them (its knob: the learn budget's candidates; the refused ones left out) are
each taken once, to the end of the step, on a copy of the game whose hidden information the
step can read was re-drawn from a seed of the real game's SEARCH stream, the same seed for
every candidate (:func:`redraw`: every chance stream, and for Buy Karnaxis Card the undrawn
cards with those the other seats have saved); it plays its rollout policy's own pick unless
another candidate's position is valued higher by more than OVERRIDE.  So the choice never
depends on the real hidden cards or future dice, and besides its own the real game draws only
from its SEARCH stream, as with the search.  A single candidate, or an action its rollout policy
must take, is played without valuing; its other decisions, and all of them without weights, are
its rollout policy's.

Sampling (chunk.play_sample_games, simulator.experiments.learn): a learned seat with a budget of
its own (a teacher: its ``rollouts``, ``top_k`` and ``horizon``) has its candidates valued by
the search's playouts from the decision (rounds of every candidate on the same re-drawn future,
decide.determinize, as the search plays them), and every candidate's position is written down
with its mean value; it then plays its own pick when it has weights (expert iteration on the
positions it reaches), else the search's (policies.search.paired_choice).

A `search` seat with the knob ``learned_value`` (and the learned weights in the rules) reads the
learned player through the two hooks of the search driver bound here: at its character choice
and its action squares the candidate it keeps unless a rival beats it is the learned player's
pick among its candidates (:func:`learned_candidate`), and a rollout its horizon stops before
Game End is valued by the learned value of the position there (:func:`learned_rollout`).
"""

import numpy as np

import policies.karnaxis
from policies import search_driver
from policies.common import behaviour
from policies.karnaxis import (
    HORIZON,
    LEARNED,
    MUST,
    NO,
    ROLLOUT_POLICY_KNOB,
    ROLLOUTS,
    TOP_K,
    card_option,
    deck_estimate,
    foresee,
    option_score,
)
from policies.learned import DECISIONS, HEADER, note_sample
from policies.search import (
    copy_slots,
    paired_choice,
    paired_scale,
    reseed_chance,
    rollout_seed,
    rollout_value,
    rounds_of,
    tally,
    top_k,
)
from policies.search_driver import COUNTS, SUMS, for_game, fresh_tallies
from simulator.core.kernel import allocating, layer, rule
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.core.rng import rng_float
from simulator.games.karnaxis import actions, decide, engine, features, search
from simulator.games.karnaxis import state as S

REFUSED = NO / 2  # a score at most this: an action the rollout policy refuses
FORCED = MUST / 2  # a score at least this: an action it must take (Go To Work), not valued
# A candidate replaces the rollout policy's own pick only when its learned value is higher by
# more than this (in the search's value units, a win being 1): the fit's values of candidates
# a few thousand dollars apart are mostly noise.  On 19,200 decisions the teacher weighed (800
# games at 4 players, 24 playouts each), the picks of weights fitted on two thirds of the games
# gained 0.0014 to 0.0057 of value a decision over the own pick on the other third without a
# margin, 0.0062 to 0.0101 with 0.04, 0.0068 to 0.0087 with 0.06, less from 0.08.
OVERRIDE = 0.05
PLY, ROLLOUT_COPY = range(2)  # the work copies used (search.search_buffers)
OPTION_SCORES, FEATURE_ROW = range(2)  # rows of the scratch buffer (learned_buffers)


@allocating
def learned_buffers():
    """The learned seats' scratch beside the search's buffers: the rollout policy's scores of
    a decision's options, a features row; and the candidates' option indices."""
    width = max(S.MAX_OPTIONS, features.SCRATCH)
    return np.zeros((2, width)), np.zeros(S.MAX_OPTIONS, np.int64)


@rule
def learns(knobs, policy):
    """A learned seat with its weights (one per feature, or a network's)."""
    return behaviour(knobs, policy) == LEARNED and features.has_weights(knobs, policy)


# while sampling, a learned seat whose actions the search weighs too: the search driver's
# question, compiled here
(teaches,) = for_game(((search_driver.teaches, rule),), globals(), policies.karnaxis)


@rule
def learned_seat_next(state, rules, knobs):
    """The learned seat whose character choice or action square is the next step, or NONE."""
    seat = S.NONE
    if state[S.PHASE] == S.AT_CHARACTER:
        seat = state[S.SEAT_I]
    elif state[S.PHASE] == S.AT_ACTION:
        seat = actions.square_seat(state, rules)
    if seat == S.NONE or behaviour(knobs, state[S.SEAT_POLICY + seat]) != LEARNED:
        return S.NONE
    return seat


@layer
def learned_step(state, rules, knobs, rng, trace, seat, buffers, samples):
    """The step :func:`engine.play_step` plays at a learned seat's character choice or action
    square: the character or the action chosen by :func:`choose_learned`.  Its other decisions
    are its rollout policy's (the step is played in PLAIN mode, even in a game with search
    seats: only the seat decides)."""
    mode = state[S.MODE]
    state[S.MODE], state[S.DECISIONS] = S.PLAIN, 0
    kind = S.D_CHARACTER if state[S.PHASE] == S.AT_CHARACTER else S.D_ACTION
    n = open_decision(state, rules, knobs, rng, trace, kind, seat)
    choice = choose_learned(state, rules, knobs, rng, trace, kind, seat, n, buffers, samples)
    finish_step(state, rules, knobs, rng, trace, kind, seat, choice)
    state[S.MODE] = mode


@rule
def open_decision(state, rules, knobs, rng, trace, kind, seat):
    """The step up to ``seat``'s character choice or action square (``kind``): the characters
    dealt to it, or the saved Karnaxis cards it uses first; the options listed in the OPTIONS
    block, returns how many."""
    if kind == S.D_CHARACTER:
        return engine.deal_characters(state, rules, seat)
    return actions.open_square(state, rules, knobs, rng, trace, seat)


@rule
def finish_step(state, rules, knobs, rng, trace, kind, seat, option):
    """The rest of a character choice or an action square once ``seat`` took ``option``."""
    if kind == S.D_CHARACTER:
        engine.keep_character(state, rules, trace, seat, option)
        engine.next_character_seat(state, rules)
    elif actions.close_square(state, rules, knobs, rng, trace, seat, option):
        state[S.PHASE] = S.AT_YEAR_END


@allocating
def choose_learned(state, rules, knobs, rng, trace, kind, seat, n, buffers, samples):
    """The character or action (``kind``) the learned ``seat`` takes among the ``n`` in the
    OPTIONS block (module docstring).  While sampling, a teaching seat's candidates are valued
    by the search first and written down with the positions they leave."""
    policy = state[S.SEAT_POLICY + seat]
    valued = learns(knobs, policy)
    teaching = samples.shape[0] > 0 and teaches(knobs, policy)
    if n < 2 or not (valued or teaching):
        return decide.choose(state, rules, knobs, rng, trace, kind, seat, S.NONE, n)
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    scratch, picks = buffers[3], buffers[4]
    scores = scratch[OPTION_SCORES]
    prior_scores(state, rules, knobs, rollout_policy, kind, seat, n, scores)
    m = top_k(scores, n, np.int64(knobs[policy, TOP_K]), picks)
    m = unrefused(scores, picks, m)
    if m == 1 or (scores[picks[0]] >= FORCED and not teaching):
        return picks[0]
    taught = 0
    if teaching:
        taught = teach(state, rules, knobs, rng, trace, kind, seat, m, buffers)
    best = ply(state, rules, knobs, rng, trace, kind, seat, n, m, buffers, samples)
    if not valued:
        return picks[taught]
    state[S.SEARCH_DECISIONS] += 1
    return picks[best]


@rule
def unrefused(scores, picks, m):
    """How many of the ``m`` candidates ``picks`` (the best-scored first) are not refused by
    the rollout policy (at least the first)."""
    while m > 1 and scores[picks[m - 1]] <= REFUSED:
        m -= 1
    return m


@rule
def prior_scores(state, rules, knobs, pid, kind, seat, n, out):
    """Policy ``pid``'s score of each of the ``n`` options into ``out[:n]``, a Karnaxis card
    at the deck's estimated worth (policies.karnaxis.deck_estimate: within a billionth of the
    exact worth the search's candidates are scored with, at a tenth of its cost)."""
    left, expected, bracket = foresee(state, rules, seat)
    deck = 0.0
    if card_option(state, kind, n) != S.NONE:
        deck = deck_estimate(state, rules, knobs, pid, seat, left, expected, bracket)[0]
    for i in range(n):
        out[i] = option_score(
            state, rules, knobs, pid, kind, seat, i, left, expected, bracket, deck
        )


@rule
def ply(state, rules, knobs, rng, trace, kind, seat, n, m, buffers, samples):
    """The rank among the ``m`` candidates ``picks`` (the rollout policy's own pick first) of
    the one to play: each is taken to the end of the step on a copy of the game with the same
    re-draw of what ``seat`` cannot know (:func:`redraw`), and the own pick's position is kept
    unless another's learned value is higher by more than OVERRIDE; while sampling, every
    candidate's features and the search's mean value of it (``values``) are written down."""
    policy = state[S.SEAT_POLICY + seat]
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    work, work_rng, values, scratch, picks = buffers
    copy, copy_rng = work[PLY], work_rng[PLY]
    seed = rollout_seed(rng)
    row = scratch[FEATURE_ROW]
    note = samples.shape[0] > 0 and teaches(knobs, policy)
    valued = learns(knobs, policy)
    best, best_value = 0, np.inf
    for r in range(m):
        copy_position(copy, state, rules, n)
        copy_slots(copy_rng, rng, 0, rng.shape[0])
        prior = scratch[OPTION_SCORES, picks[r]]
        take(
            copy,
            rules,
            knobs,
            copy_rng,
            trace,
            kind,
            seat,
            seed,
            rollout_policy,
            picks[r],
            prior,
            row,
        )
        if note:
            mean = values[SUMS, r] / values[COUNTS, r]
            note_sample(samples, seat, picks[r], r == 0, mean, row, features.N_FEATURES)
        if valued:
            value = features.learned_value(row, knobs, policy)
            best, best_value = kept_pick(r, value, best, best_value)
    if note:
        samples[HEADER, DECISIONS] += 1
    return best


@rule
def take(copy, rules, knobs, copy_rng, trace, kind, seat, seed, rollout_policy, option, prior, row):
    """``option`` taken on ``copy`` (the game at ``seat``'s decision) to the end of the step,
    what the seat cannot know re-drawn from ``seed`` first (:func:`redraw`); the features of the
    position it leaves into ``row`` (``prior``: the rollout policy's score of ``option``)."""
    redraw(copy, rules, copy_rng, kind, seat, seed, rollout_policy, option)
    finish_step(copy, rules, knobs, copy_rng, trace[:0], kind, seat, option)
    features.features(copy, rules, knobs, seat, rollout_policy, prior, row)


@rule
def kept_pick(r, value, best, best_value):
    """The rank kept and the value to beat once candidate ``r`` is valued ``value``: the own
    pick (rank 0), kept unless another's value is higher by more than OVERRIDE."""
    if r == 0:
        return 0, value + OVERRIDE
    if value > best_value:
        return r, value
    return best, best_value


@rule
def copy_position(copy, state, rules, n):
    """``copy`` made the game of ``state`` at a decision of ``n`` options for the rest of the
    step played in ROLLOUT mode: every block but the rows of absent seats, the search's log and
    the scratch of re-deals, which such a copy never reads before writing, and only the options
    listed (policies.search.copy_slots: a slice's copy would allocate)."""
    copy_slots(copy, state, 0, S.row(rules[S.CFG_PLAYERS]))
    copy_slots(copy, state, S.STOCKS, S.OPTIONS + n * S.OPT_WIDTH)
    copy_slots(copy, state, S.OWNERS, rules[S.CFG_UNSEEN])


@rule
def redraw(copy, rules, copy_rng, kind, seat, seed, rollout_policy, option):
    """What ``seat`` cannot know that the rest of its step with ``option`` can read, re-drawn in
    ``copy`` from ``seed``: every chance stream (future dice, the other draws) and, when the
    action draws a Karnaxis card, the deck's undrawn cards with those the other seats have saved
    (decide.redeal_karnaxis_cards); an action square reads no other hidden card, a character
    kept none."""
    copy[S.MODE], copy[S.ROLLOUT_POLICY] = S.ROLLOUT, rollout_policy
    reseed_chance(copy_rng, seed)
    if kind == S.D_ACTION and S.opt(copy, option, S.OPT_ACTION) == S.ACT_KARNAXIS:
        decide.redeal_karnaxis_cards(copy, rules, copy_rng, seat)


@allocating
def teach(state, rules, knobs, rng, trace, kind, seat, m, buffers):
    """The search's weighing of the ``m`` candidates ``picks`` from the decision itself: in
    each round every candidate is taken on a copy with the same re-deal and played on to the
    horizon with every seat on the rollout policy, valued as the search values a rollout;
    returns the rank of the search's choice (policies.search.paired_choice), each candidate's
    sum and count of values in ``values``."""
    policy = state[S.SEAT_POLICY + seat]
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    rounds = rounds_of(np.int64(knobs[policy, ROLLOUTS]), m)
    scale = paired_scale(rounds)
    end = search.rollout_end(state, state, rules, np.int64(knobs[policy, HORIZON]))
    work, work_rng, values, _, picks = buffers
    roll, roll_rng = work[ROLLOUT_COPY], work_rng[ROLLOUT_COPY]
    sums, counts, scores, paired = fresh_tallies(values, m)
    no_trace = trace[:0]
    u = rng_float(rng, SEARCH_STREAM)
    base = 0.0
    for played in range(rounds):
        seed = rollout_seed(rng)
        for candidate in range(m):
            roll[:] = state
            roll_rng[:] = rng
            roll_rng[SEARCH_STREAM] = seed
            roll[S.MODE], roll[S.ROLLOUT_POLICY] = S.ROLLOUT, rollout_policy
            decide.determinize(roll, rules, roll_rng, seat)
            finish_step(roll, rules, knobs, roll_rng, no_trace, kind, seat, picks[candidate])
            search.play_out(roll, rules, knobs, roll_rng, no_trace, end)
            search.seat_scores(roll, rules, scores)
            value = rollout_value(scores, rules[S.CFG_PLAYERS], seat, search.MARGIN_SCALE)
            base = tally(sums, counts, paired, candidate, played, value, base)
    return paired_choice(paired, m, rounds, scale, u)


@allocating
def learned_candidate(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values):
    """The candidate a search decision plays unless a rival beats it (search_driver.weigh): with
    ``learned_value`` and the learned player's weights, at a character choice or an action
    square, the learned player's pick among the search's candidates: the step replayed from its
    snapshot to the decision (its logged decisions), each candidate taken as :func:`ply` takes
    it, with the same re-draw from one seed of the SEARCH stream, and valued by the `learned`
    weights; elsewhere the rollout policy's own choice, candidate 0."""
    seat = probe[S.PENDING_SEAT]
    policy = probe[S.SEAT_POLICY + seat]
    kind = probe[S.PENDING_KIND]
    if not values_learned(knobs, policy) or (kind != S.D_CHARACTER and kind != S.D_ACTION):
        return 0
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    copy, copy_rng = work[search_driver.ROLLOUT_COPY], work_rng[search_driver.ROLLOUT_COPY]
    scores, row = values[SUMS], values[search_driver.SCORES, : features.SCRATCH]  # free yet
    picks = probe[S.CANDIDATES : S.CANDIDATES + probe[S.PENDING_CANDIDATES]]
    no_trace = trace[:0]
    n = at_decision(copy, copy_rng, snap, snap_rng, rules, knobs, no_trace, kind, seat)
    prior_scores(copy, rules, knobs, rollout_policy, kind, seat, n, scores)
    m = unrefused(scores, picks, picks.shape[0])
    if m == 1 or scores[picks[0]] >= FORCED:
        return 0
    seed = rollout_seed(rng)
    best, best_value = 0, np.inf
    for r in range(m):
        if r > 0:
            at_decision(copy, copy_rng, snap, snap_rng, rules, knobs, no_trace, kind, seat)
        option = picks[r]
        take(
            copy,
            rules,
            knobs,
            copy_rng,
            no_trace,
            kind,
            seat,
            seed,
            rollout_policy,
            option,
            scores[option],
            row,
        )
        value = features.learned_value(row, knobs, LEARNED)
        best, best_value = kept_pick(r, value, best, best_value)
    return best


@allocating
def at_decision(copy, copy_rng, snap, snap_rng, rules, knobs, trace, kind, seat):
    """``copy`` made the game of a search step's snapshot ``snap`` at ``seat``'s pending
    character choice or action square (``kind``): the step replayed to it, the decisions before
    it answered from the step's log; returns how many options it lists."""
    copy[:] = snap
    copy_rng[:] = snap_rng
    copy[S.MODE], copy[S.DECISIONS] = S.REPLAY, 0
    return open_decision(copy, rules, knobs, copy_rng, trace, kind, seat)


@allocating
def learned_rollout(roll, rules, knobs, policy, seat, values):
    """A search rollout's value for ``seat`` (search_driver.weigh): with ``learned_value`` and
    the learned player's weights, at a horizon before the game's end, the learned value of the
    position there seen from ``seat`` (features.features, no action's score), else the outcome
    value of the provisional final cash (search_driver.scored_rollout)."""
    if not values_learned(knobs, policy) or roll[S.PHASE] == S.AT_END:
        return scored_rollout(roll, rules, knobs, policy, seat, values)
    row = values[search_driver.SCORES, : features.SCRATCH]
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    features.features(roll, rules, knobs, seat, rollout_policy, 0.0, row)
    return features.learned_value(row, knobs, LEARNED)


# The search driver, bound to search.py's hooks and to this module's two for a search seat that
# reads the learned player (knob ``learned_value``): bound here, since the learned player reads
# search.py's provisional cash; its namespace is search.py's, so its kernels keep its name.
search_buffers, search_step, sample_step, values_learned, scored_rollout, weigh, pending_choice = (
    for_game(
        search_driver.OWN_LEARNER_DRIVER,
        {
            **vars(search),
            "learns": learns,
            "kept_candidate": learned_candidate,
            "rollout_result": learned_rollout,
        },
        S,
        policies.karnaxis,
        engine,
    )
)


@layer
def step(state, rules, knobs, rng, trace, buffers, samples):
    """One step of a game with search or learned seats: a learned seat's action square here,
    any other step by the search driver (search seats) or the engine."""
    seat = learned_seat_next(state, rules, knobs)
    if seat != S.NONE:
        learned_step(state, rules, knobs, rng, trace, seat, buffers, samples)
    elif state[S.MODE] == S.PLAIN:
        engine.play_step(state, rules, knobs, rng, trace)
    else:
        work, work_rng, values = buffers[0], buffers[1], buffers[2]
        search_step(state, rules, knobs, rng, trace, work, work_rng, values)
