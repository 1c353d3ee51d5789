"""Karmaggän turns of the search and learned seats: the round loop pauses before their
plunderer turns, and each step of several options is weighed by playouts (a `search` seat:
search.py) or by the learned value of the position after each option (a `learned` seat:
:func:`learned_step`, over the features of features.py).

The learned player is one ply of the search's machinery: at a step its rollout policy does not
lead clearly (search.CLEAR_LEAD, as the search plays it), it re-draws what the seat cannot
know once from a seed of the real game's SEARCH stream, takes every option (valuing by a
network: its teacher's candidates, :func:`candidates`) on the copy of the game with that deal,
and values the position each leaves by its features (policies.learned.position_value).  Its
other decisions are its ``rollout_policy``'s.  Besides its own pick, the real game draws only from
its SEARCH stream, as with the search.

Sampling (chunk.play_sample_games, simulator.experiments.learn): at each step the search
weighed, whether for a search seat or for a learned seat with a budget of its own (a teacher:
its ``rollouts`` and ``top_k``), every option's position is written down with the search's
mean value of it; a learned seat then plays its own pick (expert iteration on the positions it
reaches), any other seat the search's.
"""

import numpy as np

from policies import learned
from policies.common import RANDOM, behaviour
from policies.karmaggan import (
    BLUNDER,
    LEARNED,
    ROLLOUT_POLICY_KNOB,
    ROLLOUTS,
    TOP_K,
    WEIGHTS,
    step_scores,
)
from policies.search import margin_to_best_other, rollout_seed, top_k
from simulator.core.kernel import layer, rule
from simulator.core.rng import N_STREAMS
from simulator.games.karmaggan import decide, engine, features, movement, search
from simulator.games.karmaggan import state as S
from simulator.games.karmaggan.search import learns


@rule
def teaches(knobs, policy):
    """While sampling (simulator.experiments.learn): a learned seat whose steps the search
    weighs too, as a search seat of its budget would (at least one rollout, two candidates)."""
    return (
        behaviour(knobs, policy) == LEARNED
        and knobs[policy, ROLLOUTS] >= 1
        and knobs[policy, TOP_K] >= 2
    )


@rule
def searched_seats(state, rules, knobs):
    """Bit set of the seats whose steps this module decides: search seats with a budget (at
    least one rollout and two candidates; otherwise they play their rollout policy) and
    learned seats."""
    bits = 0
    for seat in range(rules[S.CFG_PLAYERS]):
        policy = state[S.SEAT_POLICY + seat]
        if decide.weighs(knobs, policy, 2) or behaviour(knobs, policy) == LEARNED:
            bits |= 1 << seat
    return bits


@layer
def play_search_rounds(
    state, rules, knobs, rng, trace, timeline, work, work_rng, values, picks, cards, samples
):
    """engine.play_rounds for a game with search or learned seats: the round loop pauses
    before each of their plunderer turns, which :func:`search_turn` plays."""
    searched = searched_seats(state, rules, knobs)
    cap = rules[S.CFG_ROUND_CAP]
    status = engine.play_from(
        state, rules, knobs, rng, trace, timeline, 0, 0, cap, searched, engine.NOT_RESUMED
    )
    while status == engine.PAUSED:
        seat = state[S.G_SEAT]
        search_turn(
            state,
            rules,
            knobs,
            rng,
            trace,
            timeline,
            seat,
            work,
            work_rng,
            values,
            picks,
            cards,
            samples,
        )
        status = engine.play_from(
            state,
            rules,
            knobs,
            rng,
            trace,
            timeline,
            state[S.G_ROUND],
            state[S.G_SEAT],
            cap,
            searched,
            engine.RESUMED,
        )
    engine.close_game(state, rules, trace, status)


@layer
def search_turn(
    state, rules, knobs, rng, trace, timeline, seat, work, work_rng, values, picks, cards, samples
):
    """movement.plunderer_turn with every STEP decision of several options weighed by
    playouts (a search seat) or by the learned value (a learned seat).  While sampling
    (``samples`` has rows, see :func:`policies.learned.note_sample`), a decision the search
    weighed is written down, every option's position with its value."""
    if not movement.start_turn(state, rules, rng, trace, seat):
        return
    policy = state[S.SEAT_POLICY + seat]
    for _ in range(movement.MAX_STEPS_PER_TURN):
        n = movement.list_step_options(state, rules, seat)
        if n == 0:
            break
        i = 0
        if n > 1:
            sampling = samples.shape[0] > 0
            weighed = state[S.G_SEARCH_DECISIONS]
            if decide.weighs(knobs, policy, n) or (sampling and teaches(knobs, policy)):
                if sampling:  # candidate_value reads the counts of this decision alone
                    values[search.COUNTS, :n] = 0.0
                kept = -1  # the rollout policy's pick, or the learned player's:
                if search.reads_learned(knobs, policy):
                    kept = learned_step(
                        state,
                        rules,
                        knobs,
                        rng,
                        trace,
                        seat,
                        n,
                        work,
                        work_rng,
                        values,
                        picks,
                        cards,
                        samples,
                        False,
                    )
                i = search.weigh(
                    state,
                    rules,
                    knobs,
                    rng,
                    trace,
                    timeline,
                    seat,
                    n,
                    work,
                    work_rng,
                    values,
                    picks,
                    cards,
                    kept,
                )
            elif not learns(knobs, policy):  # a learned seat without weights
                i = decide.choose(state, rules, knobs, rng, S.STEP, seat, n)
            taught = sampling and state[S.G_SEARCH_DECISIONS] > weighed
            if learns(knobs, policy) or taught:
                pick = learned_step(
                    state,
                    rules,
                    knobs,
                    rng,
                    trace,
                    seat,
                    n,
                    work,
                    work_rng,
                    values,
                    picks,
                    cards,
                    samples,
                    taught,
                )
                i = pick if learns(knobs, policy) else i
        if not movement.take_step(state, rules, knobs, rng, trace, seat, i):
            break
    movement.finish_turn(state, rules, seat)


@rule
def learned_step(
    state, rules, knobs, rng, trace, seat, n, work, work_rng, values, picks, cards, samples, note
):
    """The STEP option a learned ``seat`` takes among the ``n`` in the state's OPTIONS block:
    its rollout policy's own pick when it leads clearly (as the search plays it), else the
    option whose resulting position has the highest learned value
    (:func:`policies.learned.position_value`; valuing by a network, among :func:`candidates`
    only).  Each option is taken on the copy ``work`` after
    what the seat cannot know was re-drawn, once for the decision, from a seed of the real
    game's SEARCH stream (every option on the same deal), so the choice never depends on the
    real hidden cards or future dice (a stop changes nothing: its position is the game's own,
    valued without a copy, as the features read nothing hidden).  ``note``: write every
    option's features and the search's value of it into ``samples`` too (the search weighed it
    just before: ``values`` and ``picks``).  A search seat reading the learned value
    (search.reads_learned) asks it for the candidate it keeps: valued by the learned player's
    weights, not counted (the search's decision is)."""
    policy = state[S.SEAT_POLICY + seat]
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    own = decide.choose(state, rules, knobs, rng, S.STEP, seat, n)
    if not scored_by_choice(knobs, rollout_policy):
        step_scores(state, rules, seat, n, knobs[rollout_policy])
    scores = S.score_view(state)
    if not note and margin_to_best_other(scores, n, own) >= search.CLEAR_LEAD:
        return own
    roll_rng, deal_rng = work_rng[search.ROLLOUT_RNG], work_rng[search.DEAL_RNG]
    row = values[search.PAIRED, : features.SCRATCH]  # the paired rows are weigh's alone
    no_trace = trace[:0]
    valuer = policy if behaviour(knobs, policy) == LEARNED else LEARNED
    valued = learns(knobs, valuer)
    # the race's maps of the position before the step, computed once into the real game's
    # cache (a cache: the game plays the same), where each option that turns no ring and
    # moves no Egg finds them after its restore instead of searching the board again
    features.race_maps(state, rules)
    n_temple, n_cards, n_blood = search.gather_unseen(state, rules, seat, cards)
    search.copy_slots(deal_rng, rng, 0, N_STREAMS)
    search.deal_unseen(cards, deal_rng, rollout_seed(rng), n_temple, n_cards, n_blood)
    ranked = not note and knobs[valuer, WEIGHTS] > features.N_FEATURES  # a network's value
    m = candidates(scores, n, own, np.int64(knobs[valuer, TOP_K]), picks) if ranked else n
    best, best_value = own, -np.inf
    for c in range(m):
        i = picks[c] if ranked else c
        if state[S.OPT_ACT + i] == S.ACT_STOP:  # a stop changes nothing: the game's own position
            features.features(state, rules, seat, scores[i], row)
        else:
            search.restore_game(state, rules, work, rollout_policy, n, False)
            search.copy_slots(roll_rng, deal_rng, 0, N_STREAMS)
            search.place_unseen(work, rules, seat, cards[search.DEALT], n_temple, n_cards, n_blood)
            movement.take_step(work, rules, knobs, roll_rng, no_trace, seat, i)
            features.features(work, rules, seat, scores[i], row)
        if note:
            value = candidate_value(values, picks, n, i)
            learned.note_sample(samples, seat, i, i == own, value, row, features.N_FEATURES)
        if valued:
            value = search.learned_value(row, knobs, valuer)
            if value > best_value:
                best, best_value = i, value
    if note:
        samples[learned.HEADER, learned.DECISIONS] += 1
    elif valuer == policy:
        state[S.G_SEARCH_DECISIONS] += 1
    return best


@rule
def candidates(scores, n, own, k, out):
    """The ``k`` options a learned seat valuing by a network values (all ``n`` when ``k`` is
    0) into ``out``: its rollout policy's own pick first, then the best-scored others, as the
    search picks its candidates (search.weigh), so the options its teacher valued and it was
    fitted on; returns how many.  A weighted sum values every option: at 4 players, valuing
    only the best 3 cost it 3.5 points against the search (docs/search.md)."""
    if k == 0:
        k = n
    kept = scores[own]
    scores[own] = np.inf
    m = top_k(scores, n, k, out)
    scores[own] = kept
    return m


@rule
def scored_by_choice(knobs, policy):
    """Whether ``policy``'s pick of a step leaves its scores of the options in the SCORES
    block: a scripted policy that never blunders scores every step it picks
    (policies.karmaggan.policy_choice), so they need not be scored again."""
    return behaviour(knobs, policy) != RANDOM and knobs[policy, BLUNDER] == 0.0


@rule
def candidate_value(values, picks, n, option):
    """The search's mean value of ``option`` in the decision it just weighed; NaN when it was
    not a candidate."""
    counts = values[search.COUNTS]
    for r in range(n):
        if counts[r] > 0 and picks[r] == option:
            return values[search.SUMS, r] / counts[r]
    return np.nan
