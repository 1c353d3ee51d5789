"""The search driver of the games that play a step at a time from a snapshot (Ekonos, Karnaxis),
and the decision layer every game's decide module binds.

At every step boundary :func:`search_step` copies the state into a snapshot and plays the step
as *probes* on a work copy (the modes: below).  A probe that meets no search decision is the
real outcome.  One that meets a pending search decision ``j`` is thrown away and :func:`weigh`
plays it out: in each round one seed is drawn from the real game's SEARCH stream and every
candidate is played from it (common random numbers: the same re-drawn hands, decks, dice and
tie-breaks), ``rollouts // candidates`` rounds (at least one; the last rounds are not played
when they cannot change the choice: policies.search.settled).  A rollout copies the snapshot,
replays the step's logged decisions, re-draws at ``j`` what the seat cannot know from that
seed, forces the candidate and plays on with every seat on ``rollout_policy`` to the horizon.
policies.search.paired_choice picks the candidate; it is logged and the step is probed again.
The real game draws only from its SEARCH stream.

A game with a learned player binds :data:`LEARNING_DRIVER` and :data:`LEARNING_DECIDE`
instead: a `learned` seat's decision of several options (with weights) is pending too, its
candidates the ``top_k`` best-scored by its rollout policy, and :func:`value_options` plays it
one ply: each candidate forced once on a copy re-drawn from one seed of the SEARCH stream, the
step played to its end by the rollout policy, the position valued by the learned weights
(policies/learned.py).  While sampling (simulator.experiments.learn) a teaching learned seat's
candidates are also weighed by playouts and written down with their values.  A search seat
with the knob ``learned_value`` (and the learned player's weights in the rules) reads them
too: the candidate it keeps unless a rival beats it is the learned player's pick
(:func:`learned_candidate_kept`) instead of its rollout policy's, and a rollout its horizon
stops before the game's end is valued by the learned value of the position there
(:func:`learned_rollout`) instead of the scores (docs/search.md).  A game whose learned player
plays its steps outside the driver binds :data:`OWN_LEARNER_DRIVER`, with the two hooks
``kept_candidate`` and ``rollout_result`` of its own, read the same way.

The decision layer (:data:`DECIDE`) is written here once for the games the driver plays, and
bound by each game's decide module: :func:`choose`, the one door of every decision, asks the
seat's policy; in a search step it keeps the step's *decision log* in the state (every
decision of the step, any seat, in order):

* PROBE — the real game: decisions already logged are answered from the log; a new decision
  of a scripted seat is asked of its policy and logged; the first new decision of a `search`
  seat with options to weigh becomes *pending* (its candidates are stored for the driver) and
  is answered with the best-scored candidate, the rest of that probe being thrown away.
* REPLAY — a rollout: logged decisions are answered from the log; at the pending decision
  everything the deciding seat cannot know is re-drawn (the game's ``determinize``), the
  candidate under test is forced, and the game goes on in ROLLOUT.
* ROLLOUT — every seat plays the deciding search policy's ``rollout_policy``.

A decision is ``(kind, seat, about, n)``: its kind, the seat deciding, what it is about where
the kind needs it (an Ekonos company; NONE otherwise) and its number of options, listed in the
state's OPTIONS block.  The search seats' questions (:func:`is_search`, :func:`played_policy`,
:func:`weighs`, :data:`QUESTIONS`) are shared the same way by the three games' decide modules
(Karmaggän weighs its plunderer's steps with a driver of its own, and asks them too).

Templates, compiled once per game (:func:`for_game`): each game's search (decide) module binds
these functions to a namespace of its own, from which numba reads their callees and constants, and
which keeps the game's module name, so they are cached in the game's folder
(simulator.cache_group).  The names not defined here are the game's (hence ruff's F821 is off
in this file): its state offsets and modes (MODE, PROBE, REPLAY, LOG, ...), its search
behaviour and knob columns (SEARCH, ROLLOUTS, HORIZON, ROLLOUT_POLICY_KNOB, TOP_K), its
engine's ``play_step(state, rules, knobs, rng, trace)``, and from its search module
MARGIN_SCALE and the hooks

* ``rollout_end(probe, snap, rules, horizon)``: where a rollout of this decision stops;
* ``play_out(state, rules, knobs, rng, trace, end)``: play a rollout on to ``end``;
* ``seat_scores(state, rules, out)``: every seat's score at the rollout's end;
* ``game_over(state)`` (a game with a learned player): whether the rollout reached the end;
* ``note_values(probe, snap, trace, values, m, total)``: the trace rows of the values weighed;

and the decision layer reads from its decide module the hooks

* ``determinize(state, rules, rng, seat)``: re-draw what ``seat`` cannot know (REPLAY);
* ``trace_pending(state, trace, kind, seat, n, m)``: what the trace keeps of a pending decision;

its policies' ``policy_choice(state, rules, knobs, rng, policy, kind, seat, about, n)`` and
``option_scores(state, rules, knobs, policy, kind, seat, about, n, out)``, and its trace's row
count ``TRACE_N`` (a slot of the state).

Hooks passed as function arguments would say the same with less ceremony, but numba finds a
kernel that takes a kernel as an argument in its cache in no later process (the argument's
type is that kernel object itself): the driver, and so the whole engine it inlines, would be
compiled again by every process.
"""
# ruff: noqa: F821

import types

import numpy as np

from policies import learned
from policies.common import behaviour
from policies.search import (
    PAIRED_ROWS,
    PAIRED_WIDTH,
    candidate_at,
    copy_slots,
    paired_choice,
    paired_scale,
    rollout_seed,
    rollout_value,
    rounds_of,
    settled,
    tally,
    to_candidate_order,
    top_k,
)
from simulator.core.kernel import allocating, layer, rule
from simulator.core.rng import N_STREAMS, rng_float
from simulator.core.rng import SEARCH as SEARCH_STREAM

SNAPSHOT, PROBE_COPY, ROLLOUT_COPY = range(3)  # rows of the work buffers
SUMS, COUNTS, SCORES, PAIRED = range(4)  # rows of the values buffer (PAIRED: its first paired row)


def search_buffers(rules):
    """The driver's work buffers: three state copies (snapshot, probe, rollout), their rng
    streams, and the per-candidate sums and counts, seat scores and paired gains."""
    size = rules[CFG_STATE_SIZE]
    return (
        np.zeros((3, size), np.int64),
        np.zeros((3, N_STREAMS), np.uint64),
        np.zeros((PAIRED + PAIRED_ROWS, max(MAX_OPTIONS, PAIRED_WIDTH)), np.float64),
    )


def search_step(state, rules, knobs, rng, trace, work, work_rng, values):
    """Play one step of a game with search or learned seats (module docstring)."""
    sample_step(state, rules, knobs, rng, trace, work, work_rng, values, values[:0])


def sample_step(state, rules, knobs, rng, trace, work, work_rng, values, samples):
    """:func:`search_step`, writing into ``samples`` while sampling (when it has rows:
    policies/learned.py) every option of each decision a teacher weighed for a learned
    seat."""
    snap, snap_rng = work[SNAPSHOT], work_rng[SNAPSHOT]
    probe, probe_rng = work[PROBE_COPY], work_rng[PROBE_COPY]
    copy_slots(snap, state, 0, state.shape[0])  # vectorized: a slice assignment is not
    snap_rng[:] = rng
    snap[MODE], snap[DECISIONS], snap[LOG_LEN], snap[PENDING] = PROBE, 0, 0, 0
    while True:
        copy_slots(probe, snap, 0, snap.shape[0])
        probe_rng[:] = snap_rng
        play_step(probe, rules, knobs, probe_rng, trace)
        if probe[PENDING] == 0:
            break
        j = probe[LOG_LEN]
        snap[LOG : LOG + j] = probe[LOG : LOG + j]  # the other seats' decisions before j
        snap[NOTES : NOTES + j] = probe[NOTES : NOTES + j]
        snap[LOG_LEN] = j  # so that a replay answers them from the log and pends at j
        best = pending_choice(
            probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values, samples
        )
        snap[LOG + j] = probe[CANDIDATES + best]
        snap[LOG_LEN] = j + 1
        snap[SEARCH_DECISIONS] += 1
    search = rng[SEARCH_STREAM]
    copy_slots(state, probe, 0, probe.shape[0])
    rng[:] = probe_rng
    rng[SEARCH_STREAM] = search
    state[MODE] = PROBE


def weigh(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values):
    """Play the rollouts of the pending decision of ``probe`` in paired rounds; returns the
    index of the candidate to play and writes the values weighed into the trace (when
    tracing)."""
    seat = probe[PENDING_SEAT]
    policy = probe[SEAT_POLICY + seat]
    m = probe[PENDING_CANDIDATES]
    rounds = rounds_of(np.int64(knobs[policy, ROLLOUTS]), m)
    scale = paired_scale(rounds)
    end = rollout_end(probe, snap, rules, np.int64(knobs[policy, HORIZON]))
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    roll, roll_rng = work[ROLLOUT_COPY], work_rng[ROLLOUT_COPY]
    first = kept_candidate(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values)
    sums, counts, _, paired = fresh_tallies(values, m)
    no_trace = trace[:0]
    base = 0.0
    played = 0
    done = False
    u = rng_float(rng, SEARCH_STREAM)  # the test's uniform number, known to settled
    for _ in range(rounds):
        seed = rollout_seed(rng)  # drawn even for a round not played: the same later seeds
        done = done or settled(paired, m, played, rounds, scale, u)
        if done:
            continue
        for rank in range(m):  # the kept candidate first: the base of the round's gains
            roll[:] = snap
            roll_rng[:] = snap_rng
            roll_rng[SEARCH_STREAM] = seed
            roll[MODE] = REPLAY
            roll[FORCED] = probe[CANDIDATES + candidate_at(rank, first)]
            roll[ROLLOUT_POLICY] = rollout_policy
            play_out(roll, rules, knobs, roll_rng, no_trace, end)
            value = rollout_result(roll, rules, knobs, policy, seat, values)
            base = tally(sums, counts, paired, rank, played, value, base)
        played += 1
    to_candidate_order(sums, first)
    to_candidate_order(counts, first)
    note_values(probe, snap, trace, values, m, played * m)
    return candidate_at(paired_choice(paired, m, played, scale, u), first)


def rollout_candidate_kept(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values):
    """The candidate a search decision plays unless a rival beats it: the rollout policy's
    own choice, candidate 0."""
    return 0


def scored_rollout(roll, rules, knobs, policy, seat, values):
    """A rollout's value for ``seat``: the outcome value of every seat's scores at its end."""
    scores = values[SCORES]
    seat_scores(roll, rules, scores)
    return rollout_value(scores, rules[CFG_PLAYERS], seat, MARGIN_SCALE)


@allocating  # it returns views of the buffer: references counted
def fresh_tallies(values, m):
    """The rows of a values buffer the rounds of a decision fill: each candidate's sum and
    count of values (those of its ``m`` candidates zeroed), the seat scores of a rollout, and
    the paired gains (policies.search.paired_choice)."""
    values[SUMS, :m] = 0.0
    values[COUNTS, :m] = 0.0
    return values[SUMS], values[COUNTS], values[SCORES], values[PAIRED:]


def weighed_choice(
    probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values, samples
):
    """The rank of the candidate to play at the pending decision of a game without a learned
    player: the search's (:func:`weigh`)."""
    return weigh(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values)


def learned_choice(
    probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values, samples
):
    """The rank of the candidate to play at the pending decision: a search seat's by playouts
    (:func:`weigh`), a learned seat's by the learned value of the position each leaves
    (:func:`value_options`).  While sampling, a teaching learned seat's candidates are weighed
    by playouts too and written down with their values; it then plays its own pick when it has
    weights, else the search's (expert iteration: simulator.experiments.learn)."""
    policy = probe[SEAT_POLICY + probe[PENDING_SEAT]]
    if behaviour(knobs, policy) != LEARNED:
        return weigh(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values)
    taught = samples.shape[0] > 0 and teaches(knobs, policy)
    searched = 0
    if taught:
        searched = weigh(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values)
    own = value_options(
        probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values, samples, taught
    )
    if not taught:  # no trace rows of values to step over (weigh's note_values writes them)
        snap[NOTES + probe[LOG_LEN]] = 0
    return own if learns(knobs, policy) else searched


def value_options(
    probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values, samples, note
):
    """The rank of the candidate whose resulting position has the highest learned value
    (policies.learned.position_value; ties: the best-scored), for the learned seat of the
    pending decision of ``probe``.  Each candidate is forced on a copy of the step, on which
    what the seat cannot know was re-drawn, once for the decision, from a seed of the real
    game's SEARCH stream (every candidate on the same deal), and the step is played to its end
    by the rollout policy; its features are read there (the game's ``position_features``), so
    the choice never depends on the real hidden cards or future draws.  ``note``: write every
    candidate's features and the search's mean value of it (just weighed: ``values``) into
    ``samples``."""
    seat = probe[PENDING_SEAT]
    policy = probe[SEAT_POLICY + seat]
    m = probe[PENDING_CANDIDATES]
    roll, roll_rng = work[ROLLOUT_COPY], work_rng[ROLLOUT_COPY]
    row = values[SCORES, :SCRATCH]  # weigh's seat scores, free once it has weighed
    no_trace = trace[:0]
    seed = rollout_seed(rng)
    valuer = policy if behaviour(knobs, policy) == LEARNED else LEARNED
    valued = learns(knobs, valuer)
    best, best_value = 0, -np.inf
    for r in range(m):
        copy_slots(roll, snap, 0, snap.shape[0])
        roll_rng[:] = snap_rng
        roll_rng[SEARCH_STREAM] = seed
        roll[MODE], roll[FORCED] = REPLAY, probe[CANDIDATES + r]
        roll[ROLLOUT_POLICY] = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
        play_step(roll, rules, knobs, roll_rng, no_trace)
        position_features(roll, rules, seat, probe[PENDING_KIND], r == 0, row)
        if note:
            value = values[SUMS, r] / values[COUNTS, r]
            learned.note_sample(
                samples, seat, probe[CANDIDATES + r], r == 0, value, row, N_FEATURES
            )
        if valued:
            value = learned.position_value(row, knobs[valuer], WEIGHTS_AT, N_FEATURES, N_FEATURES)
            if value > best_value:
                best, best_value = r, value
    if note:
        samples[learned.HEADER, learned.DECISIONS] += 1
    return best


def learned_candidate_kept(probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values):
    """The candidate a search decision plays unless a rival beats it: with ``learned_value``
    (and the learned player's weights), the one the learned player would pick
    (:func:`value_options`, on a deal of its own), else the rollout policy's own choice."""
    if not values_learned(knobs, probe[SEAT_POLICY + probe[PENDING_SEAT]]):
        return 0
    no_samples = values[:0]
    return value_options(
        probe, snap, snap_rng, rules, knobs, rng, trace, work, work_rng, values, no_samples, False
    )


def learned_rollout(roll, rules, knobs, policy, seat, values):
    """A rollout's value for ``seat``: with ``learned_value``, at a horizon before the game's
    end, the learned value of the position there (seen from ``seat``: position_features, as
    the learned player values a position; the centred fit makes it comparable between the
    candidates of a decision, whose rollouts all stop at the same horizon), else the outcome
    value of the scores (:func:`scored_rollout`)."""
    if not values_learned(knobs, policy) or game_over(roll):
        return scored_rollout(roll, rules, knobs, policy, seat, values)
    row = values[SCORES, :SCRATCH]
    position_features(roll, rules, seat, 0, False, row)  # no option's own pick: any kind
    return learned.position_value(row, knobs[LEARNED], WEIGHTS_AT, N_FEATURES, N_FEATURES)


def values_learned(knobs, policy):
    """A search seat that reads the learned player: ``learned_value`` set and the learned
    player's weights given (``[policies.learned]``)."""
    return knobs[policy, LEARNED_VALUE] != 0 and learns(knobs, LEARNED)


def learns(knobs, policy):
    """A learned seat with its weights (one per feature); without, it plays its rollout
    policy."""
    return behaviour(knobs, policy) == LEARNED and knobs[policy, WEIGHTS] == N_FEATURES


def teaches(knobs, policy):
    """While sampling: a learned seat whose decisions the search weighs too, as a search seat
    of its budget would (at least one rollout, two candidates)."""
    return (
        behaviour(knobs, policy) == LEARNED
        and knobs[policy, ROLLOUTS] >= 1
        and knobs[policy, TOP_K] >= 2
    )


def pends(knobs, policy, n):
    """A decision of several options the driver decides: a search seat's it weighs
    (:func:`weighs`), a learned seat's with weights or a teacher's budget."""
    return weighs(knobs, policy, n) or (n > 1 and (learns(knobs, policy) or teaches(knobs, policy)))


def is_search(knobs, policy):
    return behaviour(knobs, policy) == SEARCH


def played_policy(knobs, policy):
    """The policy that makes a seat's decisions in a probe and in a rollout's forced turn: a
    search seat's rollout policy (its scripted fallback), any other seat's own."""
    if is_search(knobs, policy):
        return np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    return policy


def weighs(knobs, policy, n):
    """A search seat weighs a decision with several options when it has a budget: at least
    one rollout and two candidates (otherwise it plays its rollout policy)."""
    return (
        is_search(knobs, policy)
        and n > 1
        and knobs[policy, ROLLOUTS] >= 1
        and knobs[policy, TOP_K] >= 2
    )


def choose(state, rules, knobs, rng, trace, kind, seat, about, n):
    """Index of the option ``seat`` takes among the ``n`` in the state's OPTIONS block, for a
    decision of ``kind`` about ``about`` (module docstring)."""
    mode = state[MODE]
    if mode == PLAIN:
        return policy_choice(
            state, rules, knobs, rng, state[SEAT_POLICY + seat], kind, seat, about, n
        )
    if mode == ROLLOUT:
        return policy_choice(state, rules, knobs, rng, state[ROLLOUT_POLICY], kind, seat, about, n)
    return choose_in_search_step(state, rules, knobs, rng, trace, kind, seat, about, n)


def choose_in_search_step(state, rules, knobs, rng, trace, kind, seat, about, n):
    """A decision in a PROBE or a REPLAY of a search step (module docstring)."""
    i = state[DECISIONS]
    state[DECISIONS] = i + 1
    if i < state[LOG_LEN]:
        state[TRACE_N] += state[NOTES + i]  # the trace rows of its weighed values
        return state[LOG + i]
    if state[MODE] == REPLAY:  # the pending decision, i == LOG_LEN
        determinize(state, rules, rng, seat)
        state[MODE] = ROLLOUT
        return state[FORCED]
    policy = state[SEAT_POLICY + seat]
    if state[PENDING] == 0 and i < MAX_LOG and pends(knobs, policy, n):
        mark_pending(state, rules, knobs, trace, kind, seat, about, n)
        return state[CANDIDATES]
    choice = policy_choice(
        state, rules, knobs, rng, played_policy(knobs, policy), kind, seat, about, n
    )
    if state[PENDING] == 0 and i < MAX_LOG:  # beyond MAX_LOG a step plays without a log
        state[LOG + i] = choice
        state[NOTES + i] = 0
        state[LOG_LEN] = i + 1
    return choice


def mark_pending(state, rules, knobs, trace, kind, seat, about, n):
    """Store the search decision a probe met: its candidates are the ``top_k`` options by the
    scores of the seat's rollout policy (best first); the game's ``trace_pending`` keeps what
    its trace needs of them."""
    policy = state[SEAT_POLICY + seat]
    scores = np.empty(n)
    option_scores(state, rules, knobs, played_policy(knobs, policy), kind, seat, about, n, scores)
    m = top_k(
        scores, n, np.int64(knobs[policy, TOP_K]), state[CANDIDATES : CANDIDATES + MAX_OPTIONS]
    )
    state[PENDING] = 1
    state[PENDING_SEAT], state[PENDING_KIND] = seat, kind
    state[PENDING_OPTIONS], state[PENDING_CANDIDATES] = n, m
    trace_pending(state, trace, kind, seat, n, m)


# (template, kind): the driver, compiled into each game's search module; the search seats'
# questions, compiled into each game's decide module; the decision layer (the questions too),
# compiled into the decide module of each game the driver plays
DRIVER = (
    (search_buffers, allocating),
    (search_step, allocating),
    (sample_step, allocating),
    (rollout_candidate_kept, rule, "kept_candidate"),
    (scored_rollout, allocating, "rollout_result"),
    (weigh, allocating),
    (weighed_choice, allocating, "pending_choice"),
)
QUESTIONS = ((is_search, rule), (played_policy, rule), (weighs, rule))
DECIDE = (
    (choose, layer),
    *QUESTIONS,
    (weighs, rule, "pends"),
    (choose_in_search_step, rule),
    (mark_pending, allocating),
)
# the same for a game with a learned player (its LEARNED behaviour, its WEIGHTS knob and
# WEIGHTS_AT column, and from its features module N_FEATURES, SCRATCH and the hook
# ``position_features(state, rules, seat, kind, own_pick, row)``)
LEARNING = ((learns, rule), (teaches, rule))
LEARNING_DRIVER = (
    *DRIVER[:3],
    *LEARNING,
    (values_learned, rule),
    (value_options, allocating),
    (learned_candidate_kept, allocating, "kept_candidate"),
    (scored_rollout, allocating),
    (learned_rollout, allocating, "rollout_result"),
    (weigh, allocating),
    (learned_choice, allocating, "pending_choice"),
)
LEARNING_DECIDE = (*DECIDE[: len(QUESTIONS) + 1], *LEARNING, (pends, rule), *DECIDE[-2:])
# the driver of a game whose learned player plays its own steps (its ``learns(knobs, policy)``
# and LEARNED_VALUE column given), its search seats reading it through the game's own hooks
# ``kept_candidate`` and ``rollout_result`` (the signatures of rollout_candidate_kept and
# scored_rollout), which may call :func:`values_learned` and :func:`scored_rollout`
OWN_LEARNER_DRIVER = (
    *DRIVER[:3],
    (values_learned, rule),
    (scored_rollout, allocating),
    *DRIVER[-2:],
)


def for_game(templates, game_globals: dict, *modules):
    """``templates`` (DRIVER, DECIDE or QUESTIONS) compiled for one game: ``game_globals`` are the
    globals of the game's module that binds them (its hooks), ``modules`` its state, policy
    and engine modules (the state offsets, modes, knob columns and ``play_step`` the
    templates read).  Each template is bound to one namespace of the modules' names, the
    game's and this module's own (those the templates read must not clash), keeping the game's
    module name (which decides where the kernels are cached), and compiled as its kind;
    returns the compiled functions in the order of ``templates``."""
    namespace = {}
    for module in modules:
        namespace.update(vars(module))
    namespace.update(game_globals)
    every = DRIVER + DECIDE + LEARNING_DRIVER + LEARNING_DECIDE
    templates_of_all = {bound_name(t) for t in every}  # the game's compiled ones
    own = {
        k: v for k, v in globals().items() if not k.startswith("__") and k not in templates_of_all
    }
    read = {name for template, *_ in templates for name in template.__code__.co_names}
    clashes = [k for k, v in own.items() if k in read and k in namespace and namespace[k] is not v]
    if clashes:  # a template would read the driver's value where the game means its own
        raise RuntimeError(f"the game's names {clashes} clash with the search driver's")
    namespace.update(own)
    for entry in templates:
        template, kind, name = entry[0], entry[1], bound_name(entry)
        function = types.FunctionType(template.__code__, namespace, name)
        function.__doc__ = template.__doc__
        namespace[name] = kind(function)  # the others call it by this name
    return tuple(namespace[bound_name(entry)] for entry in templates)


def bound_name(entry) -> str:
    """The name a template is compiled under: its own, or the one its entry gives (a template
    standing for another, e.g. :func:`weighed_choice` as ``pending_choice``)."""
    return entry[2] if len(entry) > 2 else entry[0].__name__
