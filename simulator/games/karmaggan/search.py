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
:func:`search_turn` plays it.  At each STEP decision with several options the candidates are
the rollout policy's own pick (what a scripted seat of that policy would play, drawn as it
would draw it) and the next best of the ``top_k`` options by the rollout policy's scores.
``rollouts`` playouts are spread over them in rounds, every candidate of a round from the same
seed (common random numbers: the candidates are compared on the same re-drawn cards and dice).
A playout copies the game (``state`` and ``rng``) into a work copy (the rules are shared),
re-draws what the seat cannot know (:func:`determinize`) from that seed, drawn from the real
game's SEARCH stream, takes the candidate, finishes the turn and plays on with every seat on
``rollout_policy`` to the horizon: 0 to the end of the game, h to the end of the h-th round
after the decision's round.  The outcome for the deciding seat (:func:`seat_value`) is its
side's win (its team's in Team mode, its own in Free-for-All), then the blood-coin margin of
its side over the best other.  The rollout policy's pick is played unless a rival beats it
over the paired rounds in a one-sided test corrected over the rivals
(``policies.search.paired_choice``): a few playouts are noisy, and overriding the rollout
policy on noise plays worse than the rollout policy itself.  Besides that pick, the real
game draws only from its SEARCH stream.
"""

import numpy as np

from policies.karmaggan import (
    HORIZON,
    ROLLOUT_POLICY_KNOB,
    ROLLOUTS,
    TOP_K,
    step_scores,
)
from policies.search import (
    margin_to_best_other,
    outcome_value,
    paired_choice,
    redeal,
    reseed_chance,
    rollout_seed,
    tally,
    top_k,
)
from simulator.core.kernel import allocating, entry, layer, rule
from simulator.core.rng import N_STREAMS
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.games.karmaggan.core import new_game, record
from simulator.games.karmaggan.decide import choose, weighs
from simulator.games.karmaggan.engine import (
    NO_SEATS,
    NOT_RESUMED,
    PAUSED,
    RESUMED,
    close_game,
    play_from,
    setup_game,
    write_outputs,
)
from simulator.games.karmaggan.movement import (
    MAX_STEPS_PER_TURN,
    continue_turn,
    finish_turn,
    list_step_options,
    start_turn,
    take_step,
)
from simulator.games.karmaggan.state import (
    ACT_PLAY,
    ACTED,
    B_BLOOD,
    B_TILE,
    BLOOD_TILE,
    BOARD,
    CFG_ADJ,
    CFG_DECK_LEN,
    CFG_HAND_MAX,
    CFG_N_FIGS,
    CFG_N_TEMPLE,
    CFG_NODES,
    CFG_PLAYERS,
    CFG_QUEUE,
    CFG_ROUND_CAP,
    CFG_STATE_SIZE,
    CFG_TEAM_MODE,
    D_OBJECTS,
    D_TEMPLE,
    DCACHE,
    EV_SEARCH,
    EV_SEARCH_OPTION,
    FIGS,
    G_NEV,
    G_ODECK_N,
    G_ROUND,
    G_SEARCH_DECISIONS,
    G_SEAT,
    G_TDRAW,
    G_WIN_TEAM,
    G_WINNER,
    HANDS,
    MAX_FIGS,
    MAX_NODES,
    MAX_OPTIONS,
    MAX_PLAYERS,
    OPT_A,
    OPT_ACT,
    OPT_B,
    P_COINS,
    P_TEAM,
    SCORES,
    SEAT_POLICY,
    STEP,
    card_effect,
    deck,
    hand_slot,
    score_view,
)

MARGIN_SCALE = 4.0  # blood coins: a side this many coins ahead earns the whole margin bonus
SUMS, COUNTS, GAINS, GAINS_SQ, SIDES = range(5)  # rows of the values buffer
MILLION = 1_000_000


@rule
def searched_seats(state, rules, knobs):
    """Bit set of the seats whose steps are weighed: search seats with a budget (at least one
    rollout and two candidates; otherwise they play their rollout policy)."""
    bits = 0
    for seat in range(rules[CFG_PLAYERS]):
        if weighs(knobs, state[SEAT_POLICY + seat], 2):
            bits |= 1 << seat
    return bits


@layer
def play_search_rounds(
    state, rules, knobs, rng, trace, timeline, work, work_rng, values, picks, pool
):
    """engine.play_rounds for a game with search seats: the round loop pauses before each of
    their plunderer turns, which :func:`search_turn` plays."""
    searched = searched_seats(state, rules, knobs)
    cap = rules[CFG_ROUND_CAP]
    status = play_from(state, rules, knobs, rng, trace, timeline, 0, 0, cap, searched, NOT_RESUMED)
    while status == PAUSED:
        seat = state[G_SEAT]
        search_turn(
            state, rules, knobs, rng, trace, timeline, seat, work, work_rng, values, picks, pool
        )
        status = play_from(
            state,
            rules,
            knobs,
            rng,
            trace,
            timeline,
            state[G_ROUND],
            state[G_SEAT],
            cap,
            searched,
            RESUMED,
        )
    close_game(state, rules, trace, status)


@layer
def search_turn(
    state, rules, knobs, rng, trace, timeline, seat, work, work_rng, values, picks, pool
):
    """movement.plunderer_turn with every STEP decision of several options weighed."""
    if not start_turn(state, rules, rng, trace, seat):
        return
    for _ in range(MAX_STEPS_PER_TURN):
        n = list_step_options(state, rules, seat)
        if n == 0:
            break
        i = 0
        if n > 1:
            i = weigh(
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
                pool,
            )
        if not take_step(state, rules, knobs, rng, trace, seat, i):
            break
    finish_turn(state, rules, seat)


@rule
def weigh(state, rules, knobs, rng, trace, timeline, seat, n, work, work_rng, values, picks, pool):
    """The STEP option ``seat`` takes among the ``n`` in the state's OPTIONS block: its rollout
    policy's own pick unless a rival candidate beats it clearly over paired rollouts played on
    the copy ``work`` and ``work_rng`` (module docstring); traced when tracing."""
    policy = state[SEAT_POLICY + seat]
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    own = choose(state, rules, knobs, rng, STEP, seat, n)
    step_scores(state, rules, seat, n, knobs[rollout_policy])
    scores = score_view(state)
    scores[own] = np.inf  # the rollout policy's own pick is candidate 0, the one to beat
    m = top_k(scores, n, np.int64(knobs[policy, TOP_K]), picks)
    rounds = max(np.int64(knobs[policy, ROLLOUTS]) // m, 1)
    rnd, cap = state[G_ROUND], rules[CFG_ROUND_CAP]
    horizon = np.int64(knobs[policy, HORIZON])
    end_round = cap if horizon == 0 else min(cap, rnd + horizon + 1)
    no_trace, no_timeline = trace[:0], timeline[:0]  # a rollout traces nothing
    values[:, :m] = 0.0
    sums, counts, gains, gains_sq = values[SUMS], values[COUNTS], values[GAINS], values[GAINS_SQ]
    base = 0.0
    for _ in range(rounds):
        seed = rollout_seed(rng)  # one determinization per round: candidates compared alike
        for c in range(m):
            copy_game(state, rules, rng, work, work_rng, rollout_policy)
            work_rng[SEARCH_STREAM] = seed
            determinize(work, rules, work_rng, seat, pool)
            if take_step(work, rules, knobs, work_rng, no_trace, seat, picks[c]):
                continue_turn(work, rules, knobs, work_rng, no_trace, seat)
            else:
                finish_turn(work, rules, seat)
            play_from(
                work,
                rules,
                knobs,
                work_rng,
                no_trace,
                no_timeline,
                rnd,
                seat,
                end_round,
                NO_SEATS,
                RESUMED,
            )
            value = seat_value(work, rules, seat, values[SIDES])
            base = tally(sums, counts, gains, gains_sq, c, value, base)
    state[G_SEARCH_DECISIONS] += 1
    if trace.shape[0] > 0:
        note_values(state, rules, trace, seat, n, m, m * rounds, values, picks)
    return picks[paired_choice(gains, gains_sq, counts, m)]


@allocating
def copy_game(state, rules, rng, work, work_rng, rollout_policy):
    """Copy the real game into the rollout copy, every seat playing ``rollout_policy``: only
    the slots in use (the figure, node and hand blocks are sized for the largest game; the
    option scores and the BFS queue are scratch, written before they are read)."""
    work_rng[:] = rng
    work[:FIGS] = state[:FIGS]
    n_figs, n_nodes, hand_max = rules[CFG_N_FIGS], rules[CFG_NODES], rules[CFG_HAND_MAX]
    for field in range(FIGS, BOARD, MAX_FIGS):
        work[field : field + n_figs] = state[field : field + n_figs]
    for field in range(BOARD, HANDS, MAX_NODES):
        work[field : field + n_nodes] = state[field : field + n_nodes]
    for seat in range(rules[CFG_PLAYERS]):
        at = hand_slot(seat, 0)
        work[at : at + hand_max] = state[at : at + hand_max]
    work[ACTED:SCORES] = state[ACTED:SCORES]
    work[DCACHE : rules[CFG_QUEUE]] = state[DCACHE : rules[CFG_QUEUE]]
    work[rules[CFG_ADJ] : rules[CFG_STATE_SIZE]] = state[rules[CFG_ADJ] : rules[CFG_STATE_SIZE]]
    work[SEAT_POLICY : SEAT_POLICY + MAX_PLAYERS] = rollout_policy


@rule
def seat_value(state, rules, seat, sides):
    """Win first (Team mode: the seat's team won; Free-for-All: the seat itself), then the
    blood coins of its side minus those of the best other side (policies.search)."""
    n_players = rules[CFG_PLAYERS]
    team_mode = rules[CFG_TEAM_MODE] == 1
    n_sides = 2 if team_mode else n_players
    sides[:n_sides] = 0.0
    for s in range(n_players):
        sides[state[P_TEAM + s]] += state[P_COINS + s]
    mine = state[P_TEAM + seat]
    winner = state[G_WINNER]
    won = winner >= 0 and (winner == seat or (team_mode and state[G_WIN_TEAM] == mine))
    return outcome_value(
        1.0 if won else 0.0, margin_to_best_other(sides, n_sides, mine), MARGIN_SCALE
    )


@allocating
def determinize(state, rules, rng, seat, pool):
    """Re-draw everything ``seat`` cannot know, from the rollout's seed (in the copy's SEARCH
    stream): every chance stream (future dice, draws and the other seats' tie-breaks); the
    order of the Temple cards not yet drawn (Ring Traps: the deck is face down); the Object
    cards of the other players together with the Object deck (Objects: a hand is secret; each
    player keeps as many cards as it holds); and the values of the Blood tiles still face
    down (Blood Tiles).  Each set is gathered, put in a canonical order and dealt again into
    the same places, so the result depends only on what the seat knows and on the seed.
    ASSUMED: the seat does not remember cards it saw revealed in combat."""
    reseed_chance(rng, rng[SEARCH_STREAM])
    n_temple, drawn = rules[CFG_N_TEMPLE], state[G_TDRAW]
    temple, objects = deck(rules, D_TEMPLE), deck(rules, D_OBJECTS)
    redeal(state[temple + drawn : temple + n_temple], n_temple - drawn, rng)
    n = 0
    for s in range(rules[CFG_PLAYERS]):
        for slot in range(rules[CFG_HAND_MAX]):
            if s != seat and state[hand_slot(s, slot)] >= 0:
                pool[n] = state[hand_slot(s, slot)]
                n += 1
    for k in range(state[G_ODECK_N]):
        pool[n] = state[objects + k]
        n += 1
    redeal(pool, n, rng)
    n = 0
    for s in range(rules[CFG_PLAYERS]):
        for slot in range(rules[CFG_HAND_MAX]):
            if s != seat and state[hand_slot(s, slot)] >= 0:
                state[hand_slot(s, slot)] = pool[n]
                n += 1
    for k in range(state[G_ODECK_N]):
        state[objects + k] = pool[n]
        n += 1
    n = 0
    for node in range(rules[CFG_NODES]):
        if state[B_TILE + node] == BLOOD_TILE and state[B_BLOOD + node] > 0:
            pool[n] = state[B_BLOOD + node]
            n += 1
    redeal(pool, n, rng)
    n = 0
    for node in range(rules[CFG_NODES]):
        if state[B_TILE + node] == BLOOD_TILE and state[B_BLOOD + node] > 0:
            state[B_BLOOD + node] = pool[n]
            n += 1


@rule
def note_values(state, rules, trace, seat, n, m, total, values, picks):
    """Trace rows of a weighed decision: EV_SEARCH, then each candidate's mean value."""
    record(state, trace, EV_SEARCH, seat, n, m, total, 0)
    sums, counts = values[SUMS], values[COUNTS]
    for r in range(m):
        i = picks[r]
        act, a, b = state[OPT_ACT + i], state[OPT_A + i], state[OPT_B + i]
        if act == ACT_PLAY:
            a = card_effect(rules, state[hand_slot(seat, a)])
        mean = np.int64(round(sums[r] / counts[r] * MILLION))
        record(state, trace, EV_SEARCH_OPTION, seat, act, a * 1000 + b, mean, np.int64(counts[r]))


@allocating
def search_buffers(state, rng, rules):
    """The driver's work buffers: a rollout copy of the game (``work``, ``work_rng``),
    per-candidate sums and counts, candidate indices, a card pool."""
    p = rules[CFG_PLAYERS]
    work, work_rng = np.zeros_like(state), np.zeros_like(rng)
    values = np.zeros((5, max(MAX_OPTIONS, p)))
    picks = np.zeros(MAX_OPTIONS, np.int64)
    pool = np.zeros(rules[CFG_DECK_LEN] + p * rules[CFG_HAND_MAX] + rules[CFG_NODES], np.int64)
    return work, work_rng, values, picks, pool


@entry
def play_search_games(rules, knobs, seeds, seat_policies, out_games, out_players, timelines, trace):
    """engine.play_games for games with search seats."""
    state = np.zeros(rules[CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    work, work_rng, values, picks, pool = search_buffers(state, rng, rules)
    n_events = 0
    for g in range(seeds.shape[0]):
        new_game(state, rules, rng, seeds[g], seat_policies[g])
        setup_game(state, rules, rng)
        play_search_rounds(
            state, rules, knobs, rng, trace, timelines[g], work, work_rng, values, picks, pool
        )
        write_outputs(state, rules, out_games[g], out_players[g])
        n_events = state[G_NEV]
    return n_events
