"""Karmaggän wrapper: temple crawl with rotating rings, traps, blood coins, card combat, spawns and
the Alien Egg (rulebook: shared/rules/karmaggan.md).

The wrapper checks the rules (:mod:`checks`), turns them into the kernel's arrays, allocates
outputs and decodes traces (:mod:`replay`); the kernels in :mod:`engine` only loop.
"""

import inspect

import numpy as np

from policies import karmaggan as policies
from policies.learned import sample_rows
from policies.search import MAX_ROLLOUTS
from simulator.core.errors import UserError
from simulator.core.game import KNOB_BEHAVIOUR, NETWORK, Game, Leader, StudyPlan, policy_knobs
from simulator.core.rng import N_STREAMS
from simulator.core.trace import new_trace
from simulator.games.karmaggan import checks, chunk, core, engine, features, layouts
from simulator.games.karmaggan import state as S
from simulator.games.karmaggan.board import build_cells, distance_slot, draw_rows
from simulator.games.karmaggan.replay import play_by_play
from simulator.games.karmaggan.state import deck

ENGINE_VERSION = "karmaggan-8"
SIDES = ("starting", "other")  # players.side: on seat 0's team, or not
LOSS_SOURCES = ("arrows", "acid", "fire", "piston", "rollers", "combat", "other")
MAX_TRACE = 50_000
INT16_MIN, INT16_MAX = np.iinfo(np.int16).min, np.iinfo(np.int16).max


def prepare(rules: dict, n_players: int) -> tuple:
    """The kernel's rules array (state.py) and knobs table for ``n_players``, and the rounds of
    the per-round timeline."""
    setup, turn, board = rules["setup"], rules["turn"], rules["board"]
    if n_players not in checks.BLOOD_COIN_KEYS:
        raise UserError(f"Karmaggän is played by 2-8 players, not {n_players}")
    blood = [v if v > 0 else S.MEDALLION_VALUE for v in setup["blood_tiles"]]
    starts = board["start_points"][str(n_players)]
    rollers = board["roller_boundaries"]
    cards = [
        [S.OBJECT_NAMES.index(e["effect"]), S.COMBAT_NAMES.index(e["combat"])]
        for e in rules["objects"]
        for _ in range(e["count"])
    ]
    tcards = [
        S.TEMPLE_NAMES.index(name)
        for name, count in rules["temple_deck"].items()
        for _ in range(count)
    ]
    # the tables after the static board, in the order of their CFG_* offsets
    tables = (blood, starts, rollers, [v for card in cards for v in card], tcards)
    offsets = S.CELLS_END + np.cumsum([0] + [len(t) for t in tables])
    cfg = np.zeros(offsets[-1], dtype=np.int64)
    for at, table in zip(offsets, tables):
        cfg[at : at + len(table)] = table
    for key, at in zip(
        (S.CFG_BLOOD, S.CFG_STARTS, S.CFG_ROLLERS, S.CFG_CARDS, S.CFG_TCARDS), offsets
    ):
        cfg[key] = at
    cfg[S.CFG_RULES_SIZE] = offsets[-1]
    cfg[S.CFG_N_BLOOD], cfg[S.CFG_N_ROLLERS] = len(blood), len(rollers)
    cfg[S.CFG_N_OBJECTS], cfg[S.CFG_N_TEMPLE] = len(cards), len(tcards)
    build_cells(board, cfg)
    for name, beaten in rules["combat"]["beats"].items():
        for b in beaten:
            cfg[S.BEATS + 4 * S.COMBAT_NAMES.index(name) + S.COMBAT_NAMES.index(b)] = 1
    cfg[S.CFG_PLAYERS] = n_players
    cfg[S.CFG_TEAM_MODE] = int(rules["game"]["mode"] == "team")
    cfg[S.CFG_EXTRA_OTHER] = int(rules["game"]["extra_player"] == "other")
    cfg[S.CFG_ROUND_CAP] = rules["game"]["round_cap"]
    cfg[S.CFG_START_COINS] = setup[checks.BLOOD_COIN_KEYS[n_players]]
    cfg[S.CFG_START_OBJECTS] = setup["object_cards"]
    cfg[S.CFG_START_MEDALLIONS] = setup["medallions"]
    cfg[S.CFG_BANK] = setup["bank_coins"]
    cfg[S.CFG_MEDALLION_SUPPLY] = setup["medallion_supply"]
    cfg[S.CFG_HAND_MAX] = turn["hand_max"]
    cfg[S.CFG_OBJECTS_PER_TURN] = turn["objects_per_turn"]
    cfg[S.CFG_COMBAT_HAND] = turn["combat_hand"]
    cfg[S.CFG_THROW] = turn["throw_distance"]
    cfg[S.CFG_SPAWN_MAX] = turn["spawn_max"]
    cfg[S.CFG_SPARK] = turn["spark_steps"]
    cfg[S.CFG_TUMULT] = turn["tumult_cards"]
    cfg[S.CFG_RAM] = turn["ram_cards"]
    cfg[S.CFG_GREEDY] = turn["greedy_victims"]
    cfg[S.CFG_INVOCATION_TILES] = turn["invocation_tiles"]
    cfg[S.CFG_COMBAT_ROUNDS] = rules["combat"]["rounds"]
    traps = rules["traps"]
    cfg[S.CFG_ARROWS], cfg[S.CFG_FIRE] = traps["arrows"], traps["fire"]
    cfg[S.CFG_ACID_MINUS], cfg[S.CFG_ROLLER_MINUS] = traps["acid_minus"], traps["roller_minus"]
    cfg[S.CFG_COLS] = board["columns"]
    cfg[S.CFG_CELLS_PER_SECTOR] = board["columns"] // board["sectors"]
    cfg[S.CFG_RINGS] = len(board["rings"])
    cfg[S.CFG_ROWS] = sum(board["ring_rows"])
    cfg[S.CFG_CENTRE] = cfg[S.CFG_ROWS] * cfg[S.CFG_COLS]
    cfg[S.CFG_HATCHES] = len(board["hatch_columns"])
    n_nodes = int(cfg[S.CFG_CENTRE]) + 1 + len(board["hatch_columns"])
    cfg[S.CFG_NODES] = n_nodes
    cfg[S.CFG_N_STARTS] = int((cfg[S.C_START : S.C_START + n_nodes] >= 0).sum())
    cfg[S.CFG_N_FIGS] = n_players + S.N_SWARMS * turn["spawn_max"]
    # the state's blocks after its fixed ones (state.py)
    cfg[S.CFG_QUEUE] = S.DCACHE + S.DCACHE_SLOTS * n_nodes
    cfg[S.CFG_ADJ] = cfg[S.CFG_QUEUE] + n_nodes
    cfg[S.CFG_ADJ_WIDTH] = board["columns"] + 5  # degree, then the Centre's whole last row
    cfg[S.CFG_DECKS] = cfg[S.CFG_ADJ] + n_nodes * cfg[S.CFG_ADJ_WIDTH]
    cfg[S.CFG_DECK_LEN] = max(len(cards), len(tcards))
    cfg[S.CFG_STATE_SIZE] = cfg[S.CFG_DECKS] + 3 * cfg[S.CFG_DECK_LEN]
    knobs = policy_knobs(rules, GAME.policy_set(rules), policies.KNOBS)
    timeline_rounds = cfg[S.CFG_ROUND_CAP] if rules["game"]["round_timeline"] else 0
    return cfg, knobs, np.int64(timeline_rounds)


def play(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray) -> dict:
    cfg, knobs, timeline_rounds = params
    n, p = len(seeds), int(cfg[S.CFG_PLAYERS])
    out_games = np.zeros((n, S.N_GAME_OUT), np.int64)
    out_players = np.zeros((n, p, S.N_PLAYER_OUT), np.int64)
    timelines = np.zeros((n, int(timeline_rounds), p), np.int16)
    kernel = chunk.play_search_games if searching(knobs, seat_policies) else chunk.play_games
    kernel(
        cfg,
        knobs,
        np.asarray(seeds, np.uint64),
        np.asarray(seat_policies, np.int8),
        out_games,
        out_players,
        timelines,
        new_trace(0),
    )
    games = {
        "winner_seat": out_games[:, S.G_OUT_WINNER],
        "length": out_games[:, S.G_OUT_LENGTH],
        "end_reason": out_games[:, S.G_OUT_END],
        "winning_team": out_games[:, S.G_OUT_WIN_TEAM].astype(np.int8),
        "starting_team": out_players[:, 0, S.P_OUT_TEAM].astype(np.int8),
        "egg_left_centre_round": int16_column(
            out_games[:, S.G_OUT_EGG_LEFT], "egg_left_centre_round"
        ),
        "deaths": out_games[:, S.G_OUT_DEATHS].astype(np.int8),
        "bank_coins": int16_column(out_games[:, S.G_OUT_BANK], "bank_coins"),
        "search_decisions": out_games[:, S.G_OUT_SEARCH].astype(np.int32),
    }
    col = lambda k: out_players[:, :, k]  # noqa: E731
    players = {
        "score": col(S.P_OUT_SCORE).astype(np.float64),
        "won": col(S.P_OUT_WON).astype(bool),
        "team": col(S.P_OUT_TEAM).astype(np.int8),
        # the team label is drawn each game; what a balance question asks is whether the
        # player's team moves first (seat 0's team: "starting") or not ("other")
        "side": ((col(S.P_OUT_TEAM) != col(S.P_OUT_TEAM)[:, :1]).astype(np.int8), SIDES),
        "start_blood_coins": int16_column(col(S.P_OUT_START), "start_blood_coins"),
        "final_blood_coins": int16_column(col(S.P_OUT_FINAL), "final_blood_coins"),
        "died": col(S.P_OUT_DIED).astype(bool),
        "death_round": int16_column(col(S.P_OUT_DEATH_ROUND), "death_round"),
        "eliminated": col(S.P_OUT_ELIMINATED).astype(bool),
    }
    for k, source in enumerate(LOSS_SOURCES):
        players[f"blood_lost_{source}"] = int16_column(
            col(S.P_OUT_ARROWS + k), f"blood_lost_{source}"
        )
    players["blood_gained_tiles"] = int16_column(col(S.P_OUT_BLOOD_GAIN), "blood_gained_tiles")
    players["blood_gained_combat"] = int16_column(col(S.P_OUT_COMBAT_GAIN), "blood_gained_combat")
    players["blood_gained_other"] = int16_column(col(S.P_OUT_OTHER_GAIN), "blood_gained_other")
    players["combats_won"] = int16_column(col(S.P_OUT_WON_COMBATS), "combats_won")
    players["combats_lost"] = int16_column(col(S.P_OUT_LOST_COMBATS), "combats_lost")
    players["turns_as_spawn"] = int16_column(col(S.P_OUT_SPAWN_TURNS), "turns_as_spawn")
    players["turns_holding_egg"] = int16_column(col(S.P_OUT_EGG_TURNS), "turns_holding_egg")
    players["objects_played"] = int16_column(col(S.P_OUT_OBJECTS), "objects_played")
    players["spawns_invoked"] = int16_column(col(S.P_OUT_INVOKED), "spawns_invoked")
    for name, k in (
        ("egg_passes", S.P_OUT_PASSES),
        ("egg_takes", S.P_OUT_TAKES),
        ("egg_throws", S.P_OUT_THROWS),
        ("spawns_sacrificed", S.P_OUT_SACRIFICES),
        ("medallion_invocations", S.P_OUT_MEDALLION_INVOKES),
    ):
        players[name] = int16_column(col(k), name)
    return {
        "games": games,
        "players": players,
        "rounds": round_rows(timelines, out_games[:, S.G_OUT_LENGTH]),
    }


def searching(knobs: np.ndarray, seat_policies: np.ndarray) -> bool:
    """Whether any seat plays a policy that runs the `search` or the `learned` behaviour."""
    ids = np.flatnonzero(np.isin(knobs[:, KNOB_BEHAVIOUR], (policies.SEARCH, policies.LEARNED)))
    return bool(np.isin(seat_policies, ids).any())


def sample(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray, rows: int = 200_000):
    """The positions of games with search seats or learned seats with a teacher's budget
    (turns.py, "Sampling"): float64[k, SAMPLE_WIDTH] rows, one per option of each step the
    search weighed, and their column names (at most ``rows``; a chunk that fills them is
    refused, never cut)."""
    cfg, knobs, _ = params
    n, p = len(seeds), int(cfg[S.CFG_PLAYERS])
    return sample_rows(
        lambda samples: chunk.play_sample_games(
            cfg,
            knobs,
            np.asarray(seeds, np.uint64),
            np.asarray(seat_policies, np.int8),
            np.zeros((n, S.N_GAME_OUT), np.int64),
            np.zeros((n, p, S.N_PLAYER_OUT), np.int64),
            samples,
        ),
        n,
        features.SAMPLE_COLUMNS,
        rows,
    )


def int16_column(values: np.ndarray, column: str) -> np.ndarray:
    """An engine count narrowed to its int16 column.  The rules' bounds keep every column in
    range for any sane variant; one that still overflows is refused, never wrapped."""
    if values.size and (values.min() < INT16_MIN or values.max() > INT16_MAX):
        raise UserError(
            f"column '{column}' does not fit int16 in this variant: "
            "lower game.round_cap or the coin and card counts"
        )
    return values.astype(np.int16)


def round_rows(timelines: np.ndarray, lengths: np.ndarray) -> dict:
    """The ``rounds`` timeline: one row per game, round played and seat (coins after it)."""
    n, cap, p = timelines.shape
    played = np.arange(cap)[None, :] < np.minimum(lengths, cap)[:, None]  # [n, cap]
    g_idx, r_idx = np.nonzero(played)
    g_rep, r_rep = np.repeat(g_idx, p), np.repeat(r_idx, p)
    seats = np.tile(np.arange(p), len(g_idx))
    return {
        "game_index": g_rep.astype(np.int64),
        "round": (r_rep + 1).astype(np.int16),
        "seat": seats.astype(np.int8),
        "blood_coins": timelines[g_rep, r_rep, seats].astype(np.int16),
    }


def trace_game(params: tuple, seed: int, seat_policies: np.ndarray, max_events: int = MAX_TRACE):
    """The trace rows (int64[k, TRACE_WIDTH]) and the output rows of one game."""
    cfg, knobs, _ = params
    p = int(cfg[S.CFG_PLAYERS])
    out_game = np.zeros(S.N_GAME_OUT, np.int64)
    out_players = np.zeros((p, S.N_PLAYER_OUT), np.int64)
    timeline = np.zeros((int(cfg[S.CFG_ROUND_CAP]), p), np.int16)
    trace = new_trace(max_events)
    kernel = chunk.play_search_games if searching(knobs, seat_policies) else chunk.play_games
    n = kernel(
        cfg,
        knobs,
        np.array([seed], np.uint64),
        np.array([seat_policies], np.int8),
        out_game[None],
        out_players[None],
        timeline[None],
        trace,
    )
    return trace[:n], out_game, out_players


class World:
    """One game in Python, for tests and notebooks that poke at single rules: the kernel's
    arrays (:data:`ARRAYS`, state.py) and views of their blocks."""

    ARRAYS = ("state", "rules", "knobs", "rng", "trace", "timeline")

    def __init__(self, params: tuple, seed: int, seat_policies, max_events: int = 0):
        self.rules, self.knobs, _ = params
        self.n_players = int(self.rules[S.CFG_PLAYERS])
        self.n_figs, self.n_nodes = int(self.rules[S.CFG_N_FIGS]), int(self.rules[S.CFG_NODES])
        self.state = np.zeros(self.rules[S.CFG_STATE_SIZE], np.int64)
        self.rng = np.zeros(N_STREAMS, np.uint64)
        self.trace = new_trace(max_events)
        self.timeline = np.zeros((0, self.n_players), np.int16)
        seats = np.asarray(seat_policies, np.int8)
        core.new_game(self.state, self.rules, self.rng, np.uint64(seed), seats)

    def call(self, kernel, *args):
        """``kernel(...)`` on this game: its parameters named in ARRAYS from the world, in their
        order, then ``args``."""
        names = inspect.signature(getattr(kernel, "py_func", kernel)).parameters
        return kernel(*(getattr(self, name) for name in names if name in self.ARRAYS), *args)

    def seats(self, field: int) -> np.ndarray:
        """Field ``field`` (P_*) of every seat."""
        return self.state[field : field + self.n_players]

    def figures(self, field: int) -> np.ndarray:
        """Field ``field`` (F_*) of every figure."""
        return self.state[field : field + self.n_figs]

    def nodes(self, field: int) -> np.ndarray:
        """Field ``field`` (B_*) of every node."""
        return self.state[field : field + self.n_nodes]

    def cells(self, field: int) -> np.ndarray:
        """Static field ``field`` (C_*) of every node."""
        return self.rules[field : field + self.n_nodes]

    @property
    def hands(self) -> np.ndarray:
        """Every seat's hand slots (card ids, -1 empty), int64[n_players, hand_max]."""
        block = self.state[S.HANDS : S.HANDS + S.MAX_PLAYERS * S.MAX_HAND].reshape(
            S.MAX_PLAYERS, S.MAX_HAND
        )
        return block[: self.n_players, : self.rules[S.CFG_HAND_MAX]]

    @property
    def cards(self) -> np.ndarray:
        """The object cards, int64[n_objects, 2]: (effect, combat value) of each card id."""
        at = self.rules[S.CFG_CARDS]
        return self.rules[at : at + 2 * self.rules[S.CFG_N_OBJECTS]].reshape(-1, 2)

    def deck(self, k: int) -> np.ndarray:
        """Deck row ``k`` (D_TEMPLE, D_OBJECTS, D_DISCARD)."""
        at = deck(self.rules, k)
        return self.state[at : at + self.rules[S.CFG_DECK_LEN]]

    def options(self, n: int) -> list[tuple[int, int, int]]:
        """The first ``n`` options of the current decision as (action, a, b)."""
        return [
            (
                int(self.state[S.OPT_ACT + i]),
                int(self.state[S.OPT_A + i]),
                int(self.state[S.OPT_B + i]),
            )
            for i in range(n)
        ]

    def neighbours(self, node: int) -> list[int]:
        """``node``'s row of the adjacency block (call board.update_adjacency first)."""
        at = S.adj_row(self.rules, node)
        return self.state[at + 1 : at + 1 + self.state[at]].tolist()

    def distances(self, target: int) -> np.ndarray:
        """The distance map to ``target`` (board.distance_slot)."""
        at = S.dcache_row(self.rules, self.call(distance_slot, target))
        return self.state[at : at + self.n_nodes]


def world(params: tuple, seed: int, seat_policies, set_up: bool = True) -> World:
    """A fresh game for one seed (set up unless ``set_up`` is False)."""
    W = World(params, seed, seat_policies)
    if set_up:
        W.call(engine.setup_game)
    return W


def replay(params: tuple, seed: int, seat_policies: np.ndarray, rules: dict) -> list[str]:
    """A readable play-by-play of one game."""
    return play_by_play(trace_game(params, seed, seat_policies)[0], params[0], rules)


GAME = Game(
    name="karmaggan",
    engine_version=ENGINE_VERSION,
    player_counts=range(2, 9),
    default_players=4,
    chunk_size=10_000,
    length_unit="rounds",
    policies=policies.POLICIES,
    knob_names=policies.KNOBS,
    check=checks.check,
    prepare=prepare,
    play=play,
    replay=replay,
    categories={"end_reason": S.END_REASONS},
    timelines=("rounds",),
    search_limits=(
        ("rollouts", 0, MAX_ROLLOUTS),
        ("horizon", 0, checks.MAX_ROUNDS),
        ("top_k", 1, S.MAX_OPTIONS),
        ("learned_value", 0, 1),
    ),
    choices=layouts.choices,
    learned_features=features.FEATURES,
    sample=sample,
    # at 2 players a network of tanh units fitted to a teacher whose playouts run to the
    # game's end (the weighted sum fitted to the search's one round ahead was 3 points short of
    # the search there; at 4 and 6 players it is not, docs/search.md)
    learn_budget_at=((2, (("model", NETWORK), ("horizon", 0))),),
    exercised=(
        ("action", "play an Object card", "objects_played"),
        ("action", "pass the Egg", "egg_passes"),
        ("action", "take the Egg from a teammate", "egg_takes"),
        ("action", "throw the Egg", "egg_throws"),
        ("action", "invoke a Spawn", "spawns_invoked"),
        ("action", "invoke a Spawn with a Golden Medallion", "medallion_invocations"),
        ("action", "sacrifice a Spawn", "spawns_sacrificed"),
        ("action", "carry the Egg", "turns_holding_egg"),
        ("event", "win a combat", "combats_won"),
        ("event", "lose a combat", "combats_lost"),
        ("event", "gain blood coins from a Blood tile", "blood_gained_tiles"),
        ("event", "die", "died"),
        ("event", "be eliminated", "eliminated"),
    ),
    display_name="Karmaggän",
    score_unit=None,  # 1.0 for the winning side, else 0.0
    leader=Leader("rounds", "round", "blood_coins", "blood coins"),
    # a search team at its default budget plays about 13 games a second per core (`balsim
    # bench`, 89c92a7), so the strong field, the challenge and the rated ladder get fewer games
    # than the other games'
    study=StudyPlan(
        n_games=8_000,
        player_counts=(2, 4, 6),
        variants={f"blood_coins_{k}": (f"setup.blood_coins_4_6={k}",) for k in (2, 3, 5, 6)},
        variant_players=(4,),
        strong_games=1_000,
        strong_search_games=48,
        challenge_games=3_000,
        challenge_search_games=24,
        skill_games=336,  # search teams of 12, 24 and 48 rollouts: about 48 a game
    ),
    adapt_games=90_000,  # one variant's adaptation: about 2,300 games/s (docs/ladder.md "Cost")
    compile_seconds=34,  # cold, engine and search player, one core (2026-12-01)
)

__all__ = ["GAME", "prepare", "play", "replay", "trace_game", "world", "draw_rows"]
