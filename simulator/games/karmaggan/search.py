"""The Karmaggän `search` player: determinized flat Monte Carlo over a plunderer's steps.

Why flat Monte Carlo and not a tree (UCT): Karmaggän is stochastic (movement dice, traps, the
Temple deck, combat draws) and hides information (the deck orders, the other players' Object
cards, the face-down Blood tiles), so every playout starts from a fresh determinization; with
a few dozen playouts a tree would stay a level deep and its statistics would be dominated by
that noise (policies/search.py).

Which decisions are searched: the STEP decision of the search seat's plunderer turn (Turns /
Movement: step to a neighbour, pass / take / throw the Egg, play an Object card, or stop),
each step of the turn in turn.  Every other decision (combat cards, swarm turns, Teleport and
throw destinations, rotations, Blood Stone and Greedy Fingers targets) is its
``rollout_policy``'s (``decide.played_policy``).

How: the round loop (engine.play_from) pauses before a search seat's plunderer turn and
turns.search_turn plays it.  At each STEP decision with several options the candidates are
the rollout policy's own pick (what a scripted seat of that policy would play, drawn as it
would draw it) and the next best of the ``top_k`` options by the rollout policy's scores; a
pick its policy scores CLEAR_LEAD tiles or more above every other option is played without
playouts (the exit with the Egg, a step toward the target against detours: about half of the
steps), which leaves the budget to the close calls.
``rollouts`` playouts are spread over them in rounds, every candidate of a round from the same
seed (common random numbers: the candidates are compared on the same re-drawn cards and dice).
Each round re-draws what the seat cannot know from that seed, drawn from the real game's SEARCH
stream (:func:`gather_unseen` once per decision, :func:`deal_unseen` once per round); a playout
makes its work copy the real game again (:func:`restore_game`: the rules are shared), lays the
round's deal into it (:func:`place_unseen`), takes the candidate, finishes the turn and plays on
with every seat on ``rollout_policy`` to the horizon: 0 to the end of the game, h to the end
of the h-th round after the decision's round.  The outcome for the deciding seat
(:func:`seat_value`) is its side's win (its team's in Team mode, its own in Free-for-All), then
the blood-coin margin of its side over the best other; a playout its horizon cut before the
game ended counts, instead of the win, its side's chance in the race for the Egg
(features.race_share): a round of coins alone tells little about who steals the Egg.  The
rollout policy's pick is played unless a rival beats it over the paired rounds in a one-sided
test corrected over the rivals (``policies.search.paired_choice``): a few playouts are noisy,
and overriding the rollout policy on noise plays worse than the rollout policy itself.
Besides that pick, the real game draws only from its SEARCH stream.

With the knob ``learned_value`` (and the learned player's weights in the rules) the search
reads the learned player: the candidate it keeps unless a rival beats it is the learned
player's pick (turns.learned_step, on a deal of its own), and a playout its horizon cut is
valued by the learned value of the position there instead of the race for the Egg
(:func:`rollout_value`).  The rollout policy's own pick is then asked twice, by learned_step
and by :func:`weigh` (each needs it for the clear-lead check): a second draw from the POLICY
stream where that policy draws (a blunder, a random tie-break), and a second scoring of the
step's options, once per decision, not per playout.
"""

import numpy as np

from policies import learned
from policies.common import behaviour
from policies.karmaggan import (
    HORIZON,
    LEARNED,
    LEARNED_VALUE,
    ROLLOUT_POLICY_KNOB,
    ROLLOUTS,
    TOP_K,
    WEIGHTS,
    WEIGHTS_AT,
    step_scores,
)
from policies.search import (
    MAX_ROUNDS,
    PAIRED_ROWS,
    PAIRED_WIDTH,
    copy_slots,
    margin_to_best_other,
    outcome_value,
    paired_choice,
    paired_scale,
    reseed_chance,
    rollout_seed,
    settled,
    tally,
    top_k,
)
from simulator.core.kernel import allocating, rule
from simulator.core.rng import N_STREAMS, SEARCH, SETUP, rng_float, shuffle
from simulator.games.karmaggan import core, decide, engine, features, movement
from simulator.games.karmaggan import state as S

MARGIN_SCALE = 4.0  # blood coins: a side this many coins ahead earns the whole margin bonus
CLEAR_LEAD = 1.0  # tiles: a pick the rollout policy scores this far above all others is played
SUMS, COUNTS, SIDES, PAIRED = range(4)  # rows of the values buffer (PAIRED: its first paired row)
MILLION = 1_000_000
ROLLOUT_RNG, DEAL_RNG = range(2)  # rows of work_rng: a rollout's streams, the round's deal
UNSEEN, DEALT = range(2)  # rows of cards: what the seat cannot see, canonical; the round's deal
TEMPLE_KINDS = len(S.TEMPLE_NAMES)  # a Temple card is its kind (T_*)


@rule
def weigh(
    state, rules, knobs, rng, trace, timeline, seat, n, work, work_rng, values, picks, cards, kept
):
    """The STEP option ``seat`` takes among the ``n`` in the state's OPTIONS block: its rollout
    policy's own pick, or ``kept`` when not negative (the learned player's pick, for a search
    reading the learned value), unless a rival candidate beats it clearly over paired rollouts
    played on the copy ``work`` and ``work_rng`` (module docstring); traced when tracing."""
    policy = state[S.SEAT_POLICY + seat]
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    own = decide.choose(state, rules, knobs, rng, S.STEP, seat, n)
    step_scores(state, rules, seat, n, knobs[rollout_policy])
    scores = S.score_view(state)
    if margin_to_best_other(scores, n, own) >= CLEAR_LEAD:  # the pick's lead
        return own
    scores[own if kept < 0 else kept] = np.inf  # candidate 0, the one to beat
    m = top_k(scores, n, np.int64(knobs[policy, TOP_K]), picks)
    rounds = min(max(np.int64(knobs[policy, ROLLOUTS]) // m, 1), MAX_ROUNDS)
    scale = paired_scale(rounds)
    rnd, cap = state[S.G_ROUND], rules[S.CFG_ROUND_CAP]
    horizon = np.int64(knobs[policy, HORIZON])
    end_round = cap if horizon == 0 else min(cap, rnd + horizon + 1)
    no_trace, no_timeline = trace[:0], timeline[:0]  # a rollout traces nothing
    sums, counts, paired = values[SUMS], values[COUNTS], values[PAIRED:]
    sums[:m] = 0.0
    counts[:m] = 0.0
    roll_rng, deal_rng = work_rng[ROLLOUT_RNG], work_rng[DEAL_RNG]
    n_temple, n_cards, n_blood = gather_unseen(state, rules, seat, cards)
    base = 0.0
    played = 0
    done = False
    u = rng_float(rng, SEARCH)  # the test's uniform number, known to settled
    for _ in range(rounds):
        seed = rollout_seed(rng)  # one determinization per round: candidates compared alike
        done = done or settled(paired, m, played, rounds, scale, u)
        if done:  # the seed drawn all the same: the same later seeds
            continue
        copy_slots(deal_rng, rng, 0, N_STREAMS)
        deal_unseen(cards, deal_rng, seed, n_temple, n_cards, n_blood)
        for c in range(m):
            restore_game(state, rules, work, rollout_policy, n, played == 0 and c == 0)
            copy_slots(roll_rng, deal_rng, 0, N_STREAMS)
            place_unseen(work, rules, seat, cards[DEALT], n_temple, n_cards, n_blood)
            if movement.take_step(work, rules, knobs, roll_rng, no_trace, seat, picks[c]):
                movement.continue_turn(work, rules, knobs, roll_rng, no_trace, seat)
            else:
                movement.finish_turn(work, rules, seat)
            status = engine.play_from(
                work,
                rules,
                knobs,
                roll_rng,
                no_trace,
                no_timeline,
                rnd,
                seat,
                end_round,
                engine.NO_SEATS,
                engine.RESUMED,
            )
            over = status == engine.ENDED or end_round == cap
            value = rollout_value(work, rules, knobs, policy, seat, values, over)
            base = tally(sums, counts, paired, c, played, value, base)
        played += 1
    state[S.G_SEARCH_DECISIONS] += 1
    if trace.shape[0] > 0:
        note_values(state, rules, trace, seat, n, m, m * played, values, picks)
    return picks[paired_choice(paired, m, played, scale, u)]


@rule
def restore_game(state, rules, work, rollout_policy, n_options, whole):
    """Make the rollout copy ``work`` the real game again, every seat playing
    ``rollout_policy``: the slots a playout reads, in use (the figure, node and hand blocks are
    sized for the largest game; of the turn's activated tiles and of the decision's options
    only the first G_ACT_N and ``n_options`` are read; the option scores and the BFS queue are
    written before they are read).  The adjacency and the distance maps are caches rebuilt
    only when the board changed, so they are copied back only when the copy or the game wrote
    them since the two were last made alike (G_DCACHE_WRITTEN of each, then cleared in both):
    a playout's rebuilds, and between two decisions the game's own (a new game counts every
    cache written).  ``whole``: copy all of them all the same (the search's first playout of
    a decision)."""
    written = S.ALL_WRITTEN if whole else work[S.G_DCACHE_WRITTEN] | state[S.G_DCACHE_WRITTEN]
    if written & S.ADJ_WRITTEN:
        copy_slots(work, state, rules[S.CFG_ADJ], rules[S.CFG_DECKS])
    n_nodes = rules[S.CFG_NODES]
    for slot in range(S.DCACHE_SLOTS):
        if (written >> slot) & 1:
            at = S.dcache_row(rules, slot)
            copy_slots(work, state, at, at + n_nodes)
    copy_slots(work, state, 0, S.FIGS)
    work[S.G_DCACHE_WRITTEN] = 0
    state[S.G_DCACHE_WRITTEN] = 0
    n_figs, hand_max = rules[S.CFG_N_FIGS], rules[S.CFG_HAND_MAX]
    for field in range(S.FIGS, S.BOARD, S.MAX_FIGS):
        copy_slots(work, state, field, field + n_figs)
    for field in range(S.BOARD, S.HANDS, S.MAX_NODES):
        copy_slots(work, state, field, field + n_nodes)
    for seat in range(rules[S.CFG_PLAYERS]):
        at = S.hand_slot(seat, 0)
        copy_slots(work, state, at, at + hand_max)
    for field in (S.ACTED_FIG, S.ACTED_NODE):
        copy_slots(work, state, field, field + state[S.G_ACT_N])
    for field in (S.OPT_ACT, S.OPT_A, S.OPT_B):
        copy_slots(work, state, field, field + n_options)
    copy_slots(work, state, rules[S.CFG_DECKS], rules[S.CFG_STATE_SIZE])
    for seat in range(S.MAX_PLAYERS):
        work[S.SEAT_POLICY + seat] = rollout_policy


@rule
def rollout_value(state, rules, knobs, policy, seat, values, over):
    """A playout's value for ``seat``: :func:`seat_value`, or for a search reading the learned
    value (:func:`reads_learned`) a playout its horizon cut before the game ended valued by
    the learned player's weights (features.features seen from ``seat``; the fit is centred
    within each decision, so it compares the positions of one decision's candidates, whose
    playouts all stop at the same horizon)."""
    if over or not reads_learned(knobs, policy):
        return seat_value(state, rules, seat, values[SIDES], over)
    row = values[SIDES, : features.SCRATCH]
    features.features(state, rules, seat, 0.0, row)  # no step led here: no prior
    return learned_value(row, knobs, LEARNED)


@rule
def reads_learned(knobs, policy):
    """A search seat with ``learned_value`` set, the learned player's weights given."""
    return knobs[policy, LEARNED_VALUE] != 0 and learns(knobs, LEARNED)


@rule
def learns(knobs, policy):
    """A learned seat with its weights (one per feature, or a network's: more); without, it
    plays its rollout policy."""
    return behaviour(knobs, policy) == LEARNED and knobs[policy, WEIGHTS] >= features.N_FEATURES


@rule
def learned_value(row, knobs, policy):
    """The value of the features in ``row`` by ``policy``'s weights, their count in its
    WEIGHTS column (policies.learned.position_value)."""
    count = np.int64(knobs[policy, WEIGHTS])
    return learned.position_value(row, knobs[policy], WEIGHTS_AT, count, features.N_FEATURES)


@rule
def seat_value(state, rules, seat, sides, over):
    """Win first (Team mode: the seat's team won; Free-for-All: the seat itself), then the
    blood coins of its side minus those of the best other side (policies.search).  A playout
    cut at its horizon (``over`` false) counts, instead of the win, its side's chance in the
    race for the Egg (:func:`features.race_share`)."""
    n_players = rules[S.CFG_PLAYERS]
    team_mode = rules[S.CFG_TEAM_MODE] == 1
    n_sides = 2 if team_mode else n_players
    mine = state[S.P_TEAM + seat]
    if over:
        share = 1.0 if features.side_won(state, rules, seat) else 0.0
    else:
        share = features.race_share(state, rules, mine, n_sides, sides)
    sides[:n_sides] = 0.0
    for s in range(n_players):
        sides[state[S.P_TEAM + s]] += state[S.P_COINS + s]
    return outcome_value(share, margin_to_best_other(sides, n_sides, mine), MARGIN_SCALE)


@rule
def gather_unseen(state, rules, seat, cards):
    """Everything ``seat`` cannot know, each set in a canonical order into ``cards[UNSEEN]``:
    the Temple cards not yet drawn (Ring Traps: the deck is face down); the Object cards of
    the other players together with the Object deck (Objects: a hand is secret; each player
    keeps as many cards as it holds); the values of the Blood tiles still face down (Blood
    Tiles).  Sorted, so a re-deal depends only on what the seat knows and on its seed.  Returns
    the three sets' sizes.  ASSUMED: the seat does not remember cards it saw revealed in
    combat."""
    unseen = cards[UNSEEN]
    n_temple = rules[S.CFG_N_TEMPLE] - state[S.G_TDRAW]
    temple = S.deck(rules, S.D_TEMPLE) + state[S.G_TDRAW]
    for k in range(n_temple):
        unseen[k] = state[temple + k]
    n = n_temple
    for s in range(rules[S.CFG_PLAYERS]):
        for slot in range(rules[S.CFG_HAND_MAX]):
            if s != seat and state[S.hand_slot(s, slot)] >= 0:
                unseen[n] = state[S.hand_slot(s, slot)]
                n += 1
    objects = S.deck(rules, S.D_OBJECTS)
    for k in range(state[S.G_ODECK_N]):
        unseen[n] = state[objects + k]
        n += 1
    n_cards = n - n_temple
    for node in range(rules[S.CFG_NODES]):
        if state[S.B_TILE + node] == S.BLOOD_TILE and state[S.B_BLOOD + node] > 0:
            unseen[n] = state[S.B_BLOOD + node]
            n += 1
    # the deal row is free until deal_unseen: the counts of the two card sets' values
    count_sort(unseen[:n_temple], TEMPLE_KINDS, cards[DEALT])
    count_sort(unseen[n_temple : n_temple + n_cards], rules[S.CFG_N_OBJECTS], cards[DEALT])
    insertion_sort(unseen[n_temple + n_cards : n])
    return n_temple, n_cards, n - n_temple - n_cards


@rule
def count_sort(values, n_values, counts):
    """``values`` (each in 0..n_values - 1) sorted in place, counted in ``counts[:n_values]``: a
    decision's gather sorts a Temple deck of a dozen kinds and Object card numbers, where
    counting takes a pass where a comparison sort took most of the gather's time."""
    for v in range(n_values):
        counts[v] = 0
    for k in range(values.shape[0]):
        counts[values[k]] += 1
    at = 0
    for v in range(n_values):
        for _ in range(counts[v]):
            values[at] = v
            at += 1


@rule
def insertion_sort(values):
    """``values`` sorted in place: the few face-down Blood tiles' values."""
    for k in range(1, values.shape[0]):
        v, at = values[k], k
        while at > 0 and values[at - 1] > v:
            values[at] = values[at - 1]
            at -= 1
        values[at] = v


@rule
def deal_unseen(cards, deal_rng, seed, n_temple, n_cards, n_blood):
    """One round's re-draw, from ``seed``: every chance stream of ``deal_rng`` re-seeded (future
    dice, draws and the other seats' tie-breaks), then the Temple cards, the hidden Object
    cards and the face-down Blood values shuffled, each from its canonical order
    (``cards[UNSEEN]``, :func:`gather_unseen`) into ``cards[DEALT]``, with the setup stream."""
    reseed_chance(deal_rng, seed)
    dealt = cards[DEALT]
    first = 0
    for size in (n_temple, n_cards, n_blood):
        copy_slots(dealt, cards[UNSEEN], first, first + size)
        shuffle(deal_rng, SETUP, dealt[first : first + size])
        first += size


@rule
def place_unseen(work, rules, seat, dealt, n_temple, n_cards, n_blood):
    """Lay a deal (:func:`deal_unseen`) into the rollout copy, into the places the sets were
    gathered from (:func:`gather_unseen`)."""
    temple = S.deck(rules, S.D_TEMPLE) + work[S.G_TDRAW]
    for k in range(n_temple):
        work[temple + k] = dealt[k]
    n = n_temple
    for s in range(rules[S.CFG_PLAYERS]):
        for slot in range(rules[S.CFG_HAND_MAX]):
            if s != seat and work[S.hand_slot(s, slot)] >= 0:
                work[S.hand_slot(s, slot)] = dealt[n]
                n += 1
    objects = S.deck(rules, S.D_OBJECTS)
    for k in range(work[S.G_ODECK_N]):
        work[objects + k] = dealt[n]
        n += 1
    for node in range(rules[S.CFG_NODES]):
        if work[S.B_TILE + node] == S.BLOOD_TILE and work[S.B_BLOOD + node] > 0:
            work[S.B_BLOOD + node] = dealt[n]
            n += 1


@rule
def note_values(state, rules, trace, seat, n, m, total, values, picks):
    """Trace rows of a weighed decision: EV_SEARCH, then each candidate's mean value."""
    core.record(state, trace, S.EV_SEARCH, seat, n, m, total, 0)
    sums, counts = values[SUMS], values[COUNTS]
    for r in range(m):
        i = picks[r]
        act, a, b = state[S.OPT_ACT + i], state[S.OPT_A + i], state[S.OPT_B + i]
        if act == S.ACT_PLAY:
            a = S.card_effect(rules, state[S.hand_slot(seat, a)])
        mean = np.int64(round(sums[r] / counts[r] * MILLION))
        core.record(
            state, trace, S.EV_SEARCH_OPTION, seat, act, a * 1000 + b, mean, np.int64(counts[r])
        )


@allocating
def search_buffers(state, rng, rules):
    """The driver's work buffers: a rollout copy of the game (``work``), its streams and the
    round's dealt streams (``work_rng``), per-candidate sums and counts, candidate indices,
    what the seat cannot see and its deal (``cards``)."""
    p = rules[S.CFG_PLAYERS]
    work, work_rng = np.zeros_like(state), np.zeros((2, rng.shape[0]), rng.dtype)
    values = np.zeros((PAIRED + PAIRED_ROWS, max(S.MAX_OPTIONS, p, PAIRED_WIDTH)))
    picks = np.zeros(S.MAX_OPTIONS, np.int64)
    unseen = rules[S.CFG_DECK_LEN] + p * rules[S.CFG_HAND_MAX] + rules[S.CFG_NODES]
    cards = np.zeros((2, unseen), np.int64)
    return work, work_rng, values, picks, cards
