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
A playout copies the game's mutable arrays into a second world (the static ones are shared),
re-draws what the seat cannot know (:func:`determinize`) from that seed, drawn from the real
game's SEARCH stream, takes the candidate, finishes the turn and plays on with every seat on
``rollout_policy`` to the horizon: 0 to the end of the game, h to the end of the h-th round
after the decision's round.  The outcome for the deciding seat (:func:`seat_value`) is its
side's win (its team's in Team mode, its own in Free-for-All), then the blood-coin margin of
its side over the best other.  The rollout policy's pick is played unless a rival beats it
clearly over the paired rounds (``policies.search.clear_gain``, by CLEAR_GAIN standard
errors): a few playouts are noisy, and overriding the rollout policy on noise plays worse than
the rollout policy itself.  Besides that pick, the real game draws only from its SEARCH
stream.
"""

import numpy as np

from policies.common import behaviour
from policies.karmaggan import (
    HORIZON,
    ROLLOUT_POLICY_KNOB,
    ROLLOUTS,
    SEARCH,
    TOP_K,
    step_scores,
)
from policies.search import (
    clear_gain,
    margin_to_best_other,
    outcome_value,
    redeal,
    reseed_chance,
    rollout_seed,
    tally,
    top_k,
)
from simulator.core.kernel import allocating, entry, layer, rule
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.games.karmaggan.core import new_world, record
from simulator.games.karmaggan.decide import choose
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
    ACTS,
    ADJ,
    B_BLOOD,
    B_TILE,
    BEATS,
    BLOOD_TILE,
    BOARD,
    CARDS,
    CELLS,
    CFG,
    CFG_HAND_MAX,
    CFG_PLAYERS,
    CFG_ROUND_CAP,
    CFG_TEAM_MODE,
    D_OBJECTS,
    D_TEMPLE,
    DCACHE,
    DECKS,
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
    GAME,
    HANDS,
    KNOB_TABLE,
    MAX_OPTIONS,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    P_COINS,
    P_TEAM,
    PLAYERS,
    POLICY_IDS,
    RNG,
    ROLLERS,
    SCORES,
    STEP,
    TCARDS,
    TRACE,
    TRACE_WIDTH,
)

MARGIN_SCALE = 4.0  # blood coins: a side this many coins ahead earns the whole margin bonus
CLEAR_GAIN = 2.0  # standard errors a rival's paired gain must reach to override its rollout policy
SUMS, COUNTS, GAINS, GAINS_SQ, SIDES = range(5)  # rows of the values buffer
MILLION = 1_000_000


@rule
def searched_seats(W):
    """Bit set of the seats whose steps are weighed: search seats with a budget (at least one
    rollout and two candidates; otherwise they play their rollout policy)."""
    knobs, ids = W[KNOB_TABLE], W[POLICY_IDS]
    bits = 0
    for seat in range(ids.shape[0]):
        p = ids[seat]
        if behaviour(knobs, p) == SEARCH and knobs[p, ROLLOUTS] >= 1 and knobs[p, TOP_K] >= 2:
            bits |= 1 << seat
    return bits


@layer
def play_search_rounds(W, R, values, picks, pool):
    """engine.play_rounds for a game with search seats: the round loop pauses before each of
    their plunderer turns, which :func:`search_turn` plays."""
    searched = searched_seats(W)
    game = W[GAME]
    status = play_from(W, 0, 0, W[CFG][CFG_ROUND_CAP], searched, NOT_RESUMED)
    while status == PAUSED:
        search_turn(W, game[G_SEAT], R, values, picks, pool)
        status = play_from(W, game[G_ROUND], game[G_SEAT], W[CFG][CFG_ROUND_CAP], searched, RESUMED)
    close_game(W, status)


@layer
def search_turn(W, seat, R, values, picks, pool):
    """movement.plunderer_turn with every STEP decision of several options weighed."""
    if not start_turn(W, seat):
        return
    for _ in range(MAX_STEPS_PER_TURN):
        n = list_step_options(W, seat)
        if n == 0:
            break
        if not take_step(W, seat, weigh(W, seat, n, R, values, picks, pool) if n > 1 else 0):
            break
    finish_turn(W, seat)


@rule
def weigh(W, seat, n, R, values, picks, pool):
    """The STEP option ``seat`` takes among the ``n`` in ``W[OPTIONS]``: its rollout policy's
    own pick unless a rival candidate beats it clearly over paired rollouts from world copies
    ``R`` (module docstring); traced when tracing."""
    knobs = W[KNOB_TABLE]
    policy = W[POLICY_IDS][seat]
    rollout_policy = np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    own = choose(STEP, seat, n, W)
    step_scores(W, seat, n, knobs[rollout_policy])
    W[SCORES][own] = np.inf  # the rollout policy's own pick is candidate 0, the one to beat
    m = top_k(W[SCORES], n, np.int64(knobs[policy, TOP_K]), picks)
    rounds = max(np.int64(knobs[policy, ROLLOUTS]) // m, 1)
    game = W[GAME]
    rnd, cap = game[G_ROUND], W[CFG][CFG_ROUND_CAP]
    horizon = np.int64(knobs[policy, HORIZON])
    end_round = cap if horizon == 0 else min(cap, rnd + horizon + 1)
    R[POLICY_IDS][:] = rollout_policy
    values[:, :m] = 0.0
    sums, counts, gains, gains_sq = values[SUMS], values[COUNTS], values[GAINS], values[GAINS_SQ]
    base = 0.0
    for _ in range(rounds):
        seed = rollout_seed(W[RNG])  # one determinization per round: candidates compared alike
        for c in range(m):
            copy_world(W, R)
            R[RNG][SEARCH_STREAM] = seed
            determinize(R, seat, pool)
            if take_step(R, seat, picks[c]):
                continue_turn(R, seat)
            else:
                finish_turn(R, seat)
            play_from(R, rnd, seat, end_round, NO_SEATS, RESUMED)
            base = tally(sums, counts, gains, gains_sq, c, seat_value(R, seat, values[SIDES]), base)
    game[G_SEARCH_DECISIONS] += 1
    if W[TRACE].shape[0] > 0:
        note_values(W, seat, n, m, m * rounds, values, picks)
    return picks[clear_gain(gains, gains_sq, counts, m, CLEAR_GAIN)]


@allocating
def copy_world(W, R):
    """Copy the real game's mutable arrays into the rollout world (the others are static, or
    scratch space: the BFS queue and the option scores)."""
    R[RNG][:] = W[RNG]
    R[GAME][:] = W[GAME]
    R[BOARD][:] = W[BOARD]
    R[FIGS][:] = W[FIGS]
    R[PLAYERS][:] = W[PLAYERS]
    R[HANDS][:] = W[HANDS]
    R[DECKS][:] = W[DECKS]
    R[ACTS][:] = W[ACTS]
    R[OPTIONS][:] = W[OPTIONS]
    R[DCACHE][:] = W[DCACHE]
    R[ADJ][:] = W[ADJ]


@rule
def seat_value(R, seat, sides):
    """Win first (Team mode: the seat's team won; Free-for-All: the seat itself), then the
    blood coins of its side minus those of the best other side (policies.search)."""
    cfg, game, players = R[CFG], R[GAME], R[PLAYERS]
    n_players = cfg[CFG_PLAYERS]
    team_mode = cfg[CFG_TEAM_MODE] == 1
    n_sides = 2 if team_mode else n_players
    sides[:n_sides] = 0.0
    for s in range(n_players):
        sides[players[s, P_TEAM]] += players[s, P_COINS]
    mine = players[seat, P_TEAM]
    winner = game[G_WINNER]
    won = winner >= 0 and (winner == seat or (team_mode and game[G_WIN_TEAM] == mine))
    return outcome_value(
        1.0 if won else 0.0, margin_to_best_other(sides, n_sides, mine), MARGIN_SCALE
    )


@allocating
def determinize(R, seat, pool):
    """Re-draw everything ``seat`` cannot know, from the rollout's seed (in the copy's SEARCH
    stream): every chance stream (future dice, draws and the other seats' tie-breaks); the
    order of the Temple cards not yet drawn (Ring Traps: the deck is face down); the Object
    cards of the other players together with the Object deck (Objects: a hand is secret; each
    player keeps as many cards as it holds); and the values of the Blood tiles still face
    down (Blood Tiles).  Each set is gathered, put in a canonical order and dealt again into
    the same places, so the result depends only on what the seat knows and on the seed.
    ASSUMED: the seat does not remember cards it saw revealed in combat."""
    rng, game, decks, hands, board = R[RNG], R[GAME], R[DECKS], R[HANDS], R[BOARD]
    reseed_chance(rng, rng[SEARCH_STREAM])
    n_temple, drawn = R[TCARDS].shape[0], game[G_TDRAW]
    redeal(decks[D_TEMPLE, drawn:n_temple], n_temple - drawn, rng)
    n = 0
    for s in range(hands.shape[0]):
        for slot in range(hands.shape[1]):
            if s != seat and hands[s, slot] >= 0:
                pool[n] = hands[s, slot]
                n += 1
    for k in range(game[G_ODECK_N]):
        pool[n] = decks[D_OBJECTS, k]
        n += 1
    redeal(pool, n, rng)
    n = 0
    for s in range(hands.shape[0]):
        for slot in range(hands.shape[1]):
            if s != seat and hands[s, slot] >= 0:
                hands[s, slot] = pool[n]
                n += 1
    for k in range(game[G_ODECK_N]):
        decks[D_OBJECTS, k] = pool[n]
        n += 1
    n = 0
    for node in range(board.shape[0]):
        if board[node, B_TILE] == BLOOD_TILE and board[node, B_BLOOD] > 0:
            pool[n] = board[node, B_BLOOD]
            n += 1
    redeal(pool, n, rng)
    n = 0
    for node in range(board.shape[0]):
        if board[node, B_TILE] == BLOOD_TILE and board[node, B_BLOOD] > 0:
            board[node, B_BLOOD] = pool[n]
            n += 1


@rule
def note_values(W, seat, n, m, total, values, picks):
    """Trace rows of a weighed decision: EV_SEARCH, then each candidate's mean value."""
    options, cards, hands = W[OPTIONS], W[CARDS], W[HANDS]
    record(W, EV_SEARCH, seat, n, m, total, 0)
    sums, counts = values[SUMS], values[COUNTS]
    for r in range(m):
        i = picks[r]
        act, a, b = options[i, OPT_ACT], options[i, OPT_A], options[i, OPT_B]
        if act == ACT_PLAY:
            a = cards[hands[seat, a], 0]
        record(
            W,
            EV_SEARCH_OPTION,
            seat,
            act,
            a * 1000 + b,
            np.int64(round(sums[r] / counts[r] * MILLION)),
            np.int64(counts[r]),
        )


@allocating
def search_buffers(W):
    """The driver's work buffers: a rollout world (its own copies of the mutable arrays, no
    trace, no timeline), per-candidate sums and counts, candidate indices, a card pool."""
    cfg = W[CFG]
    p = cfg[CFG_PLAYERS]
    R = new_world(
        cfg,
        W[CELLS],
        W[ROLLERS],
        W[CARDS],
        W[TCARDS],
        W[BEATS],
        W[KNOB_TABLE],
        W[POLICY_IDS].copy(),
        np.uint64(0),
        np.zeros((0, TRACE_WIDTH), np.int64),
        np.zeros((0, p), np.int16),
    )
    values = np.zeros((5, max(MAX_OPTIONS, p)))
    picks = np.zeros(MAX_OPTIONS, np.int64)
    pool = np.zeros(W[DECKS].shape[1] + p * cfg[CFG_HAND_MAX] + board_size(W), np.int64)
    return R, values, picks, pool


@rule
def board_size(W):
    return W[BOARD].shape[0]


@layer
def play_search_game(
    cfg,
    cells,
    rollers,
    cards,
    tcards,
    beats,
    knobs,
    seed,
    policy_ids,
    out_game,
    out_players,
    timeline,
    trace,
):
    """engine.play_game for a game with search seats."""
    W = new_world(
        cfg, cells, rollers, cards, tcards, beats, knobs, policy_ids, seed, trace, timeline
    )
    setup_game(W)
    R, values, picks, pool = search_buffers(W)
    play_search_rounds(W, R, values, picks, pool)
    write_outputs(W, out_game, out_players)
    return W[GAME][G_NEV]


@entry
def play_search_games(
    cfg,
    cells,
    rollers,
    cards,
    tcards,
    beats,
    knobs,
    seeds,
    seat_policies,
    out_games,
    out_players,
    timelines,
    trace,
):
    """engine.play_games for games with search seats."""
    n_events = 0
    for g in range(seeds.shape[0]):
        n_events = play_search_game(
            cfg,
            cells,
            rollers,
            cards,
            tcards,
            beats,
            knobs,
            seeds[g],
            seat_policies[g],
            out_games[g],
            out_players[g],
            timelines[g],
            trace,
        )
    return n_events
