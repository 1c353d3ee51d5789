"""Karmaggän wrapper: temple crawl with rotating rings, traps, blood coins, card combat, spawns and
the Alien Egg (rulebook: shared/rules/karmaggan.md).

The wrapper checks the rules, turns them into the kernel's arrays, allocates outputs and
decodes traces; the kernels in :mod:`engine` only loop.
"""

import numpy as np

from policies import karmaggan as policies
from simulator.core.errors import UserError
from simulator.core.game import KNOB_BEHAVIOUR, Game, policy_knobs
from simulator.core.rules import require
from simulator.games.karmaggan import core, engine, search
from simulator.games.karmaggan.board import TILE_CODES, WALL_CODES, build_cells, draw_rows
from simulator.games.karmaggan.state import (
    ACT_MOVE,
    ACT_PASS,
    ACT_PLAY,
    ACT_TAKE,
    ACT_THROW,
    C_START,
    CFG_ACID_MINUS,
    CFG_ARROWS,
    CFG_BANK,
    CFG_CELLS_PER_SECTOR,
    CFG_CENTRE,
    CFG_COLS,
    CFG_COMBAT_HAND,
    CFG_COMBAT_ROUNDS,
    CFG_FIRE,
    CFG_GREEDY,
    CFG_HAND_MAX,
    CFG_HATCHES,
    CFG_INVOCATION_TILES,
    CFG_MEDALLION_SUPPLY,
    CFG_N_BLOOD,
    CFG_N_STARTS,
    CFG_NODES,
    CFG_OBJECTS_PER_TURN,
    CFG_PLAYERS,
    CFG_RAM,
    CFG_RINGS,
    CFG_ROLLER_MINUS,
    CFG_ROUND_CAP,
    CFG_ROWS,
    CFG_SPARK,
    CFG_SPAWN_MAX,
    CFG_START_COINS,
    CFG_START_MEDALLIONS,
    CFG_START_OBJECTS,
    CFG_TEAM_MODE,
    CFG_THROW,
    CFG_TUMULT,
    COMBAT_NAMES,
    DAY,
    EGG_FLUNG,
    EGG_PASS,
    EGG_THROW,
    EGG_WON,
    END_REASONS,
    EV_BLOOD,
    EV_COMBAT,
    EV_COMBAT_ROUND,
    EV_DAMAGE,
    EV_DEATH,
    EV_EGG,
    EV_ELIMINATED,
    EV_END,
    EV_EXIT,
    EV_FLASH,
    EV_HATCH,
    EV_MOVE,
    EV_OBJECT_DRAW,
    EV_PASSAGE,
    EV_PLAY,
    EV_ROLL,
    EV_ROTATE,
    EV_SACRIFICE,
    EV_SEARCH,
    EV_SEARCH_OPTION,
    EV_SPAWN,
    EV_STONE,
    EV_TEMPLE,
    EV_THROWN,
    EV_TURN,
    EV_WIN,
    G_OUT_BANK,
    G_OUT_DEATHS,
    G_OUT_EGG_LEFT,
    G_OUT_END,
    G_OUT_LENGTH,
    G_OUT_SEARCH,
    G_OUT_WIN_TEAM,
    G_OUT_WINNER,
    MAX_HATCHES,
    MAX_OPTIONS,
    MAX_RINGS,
    MEDALLION_VALUE,
    N_CFG,
    N_GAME_OUT,
    N_PLAYER_OUT,
    OBJECT_NAMES,
    P_OUT_ARROWS,
    P_OUT_BLOOD_GAIN,
    P_OUT_COMBAT_GAIN,
    P_OUT_DEATH_ROUND,
    P_OUT_DIED,
    P_OUT_EGG_TURNS,
    P_OUT_ELIMINATED,
    P_OUT_FINAL,
    P_OUT_INVOKED,
    P_OUT_LOST_COMBATS,
    P_OUT_OBJECTS,
    P_OUT_OTHER_GAIN,
    P_OUT_SCORE,
    P_OUT_SPAWN_TURNS,
    P_OUT_START,
    P_OUT_TEAM,
    P_OUT_WON,
    P_OUT_WON_COMBATS,
    SRC_ACID,
    SRC_ARROWS,
    SRC_COMBAT,
    SRC_FIRE,
    SRC_OTHER,
    SRC_PISTON,
    SRC_ROLLERS,
    TEMPLE_NAMES,
    TRACE_WIDTH,
)

ENGINE_VERSION = "karmaggan-3"
MODES = ("team", "free_for_all")
SIDES = ("starting", "other")  # players.side: on seat 0's team, or not
LOSS_SOURCES = ("arrows", "acid", "fire", "piston", "rollers", "combat", "other")
MAX_TRACE = 50_000
# Bounds of what the kernel's arrays and the int16 output columns hold (checked in `check`)
MAX_ROUNDS = 1_000  # timeline: 10,000 games × 1,000 rounds × 8 seats × 2 bytes = 160 MB a chunk
MAX_COINS = 10_000  # blood coins, the bank and the medallions
MAX_DECK = 1_000  # cards in the Temple deck, in the Object deck
INT16_MIN, INT16_MAX = np.iinfo(np.int16).min, np.iinfo(np.int16).max
MAX_PIECES = 100  # hand size, spawns, steps and cards a rule moves at once, combat rounds
# Setup, Continued: the rules key holding the starting blood coins of each player count
BLOOD_COIN_KEYS = {
    2: "blood_coins_2",
    3: "blood_coins_3",
    4: "blood_coins_4_6",
    5: "blood_coins_4_6",
    6: "blood_coins_4_6",
    7: "blood_coins_7_8",
    8: "blood_coins_7_8",
}


def check(rules: dict) -> None:
    game, setup, turn, board = rules["game"], rules["setup"], rules["turn"], rules["board"]
    require(rules, "game.mode", game["mode"] in MODES, f"must be one of {', '.join(MODES)}")
    # the per-round timeline of a whole chunk is preallocated (chunk × round_cap × seats int16)
    require(
        rules,
        "game.round_cap",
        1 <= game["round_cap"] <= MAX_ROUNDS,
        f"must be 1..{MAX_ROUNDS} (the per-round timeline is preallocated for a whole chunk)",
    )
    for key in BLOOD_COIN_KEYS.values():
        require(
            rules, f"setup.{key}", setup[key] >= 1, "every player starts with at least 1 blood coin"
        )
    most = max(n * setup[key] for n, key in BLOOD_COIN_KEYS.items())
    require(
        rules,
        "setup.bank_coins",
        setup["bank_coins"] >= most,
        f"the bank cannot deal {most} starting coins",
    )
    # every coin is the bank's, so this bounds every coin count (int16 columns)
    require(rules, "setup.bank_coins", setup["bank_coins"] <= MAX_COINS, f"must be <= {MAX_COINS}")
    require(
        rules,
        "setup.object_cards",
        0 <= setup["object_cards"] <= turn["hand_max"],
        "must be 0..turn.hand_max",
    )
    require(rules, "setup.medallions", setup["medallions"] >= 0, "must be >= 0")
    require(
        rules,
        "setup.medallion_supply",
        8 * setup["medallions"] + 1 <= setup["medallion_supply"] <= MAX_COINS,
        f"must cover every player's medallions and the Blood tile's, and be <= {MAX_COINS}",
    )
    require(
        rules,
        "setup.blood_tiles",
        all(0 <= v <= MAX_COINS for v in setup["blood_tiles"]),
        f"values are coins (0..{MAX_COINS}; 0 is a Golden Medallion)",
    )
    for key in ("hand_max", "combat_hand", "throw_distance", "spawn_max", "invocation_tiles"):
        require(rules, f"turn.{key}", 1 <= turn[key] <= MAX_PIECES, f"must be 1..{MAX_PIECES}")
    require(
        rules,
        "turn.combat_hand",
        turn["combat_hand"] <= turn["hand_max"],
        "must be <= turn.hand_max",
    )
    for key in ("objects_per_turn", "spark_steps", "tumult_cards", "ram_cards", "greedy_victims"):
        require(rules, f"turn.{key}", 0 <= turn[key] <= MAX_PIECES, f"must be 0..{MAX_PIECES}")
    require(
        rules,
        "combat.rounds",
        1 <= rules["combat"]["rounds"] <= MAX_PIECES,
        f"must be 1..{MAX_PIECES}",
    )
    values = rules["combat"]["values"]
    require(
        rules, "combat.values", list(values) == list(COMBAT_NAMES), f"must be {list(COMBAT_NAMES)}"
    )
    beats = rules["combat"]["beats"]
    for name, beaten in beats.items():
        require(
            rules,
            f"combat.beats.{name}",
            name in values and all(b in values for b in beaten),
            f"values must be among {values}",
        )
        require(rules, f"combat.beats.{name}", name not in beaten, "a value cannot beat itself")
    for a, beaten in beats.items():
        for b in beaten:
            require(
                rules,
                f"combat.beats.{a}",
                a not in beats.get(b, []),
                f"'{a}' and '{b}' cannot beat each other",
            )
    for key in ("arrows", "fire", "acid_minus", "roller_minus"):
        require(rules, f"traps.{key}", 0 <= rules["traps"][key] <= 6, "must be 0..6")
    deck = rules["temple_deck"]
    require(rules, "temple_deck", all(name in TEMPLE_NAMES for name in deck), "unknown card name")
    for name, count in deck.items():
        require(rules, f"temple_deck.{name}", 0 <= count <= MAX_DECK, f"must be 0..{MAX_DECK}")
    require(rules, "temple_deck", 1 <= sum(deck.values()) <= MAX_DECK, f"needs 1..{MAX_DECK} cards")
    objects = rules["objects"]
    for i, entry in enumerate(objects):
        require(
            rules,
            f"objects[{i}].effect",
            entry["effect"] in OBJECT_NAMES,
            f"must be one of {', '.join(OBJECT_NAMES)}",
        )
        require(
            rules,
            f"objects[{i}].combat",
            entry["combat"] in COMBAT_NAMES,
            f"must be one of {', '.join(COMBAT_NAMES)}",
        )
        require(
            rules, f"objects[{i}].count", 0 <= entry["count"] <= MAX_DECK, f"must be 0..{MAX_DECK}"
        )
    n_objects = sum(e["count"] for e in objects)
    require(
        rules, "objects", n_objects <= MAX_DECK, f"{n_objects} object cards: at most {MAX_DECK}"
    )
    require(
        rules,
        "objects",
        n_objects >= 8 * turn["hand_max"] // 2,
        f"{n_objects} object cards are too few for 8 hands",
    )
    check_board(rules, board, setup)


def check_board(rules: dict, board: dict, setup: dict) -> None:
    cols, sectors = board["columns"], board["sectors"]
    require(
        rules,
        "board.sectors",
        sectors >= 1 and cols % sectors == 0,
        "board.columns must be a multiple of board.sectors",
    )
    require(rules, "board.rings", 1 <= len(board["rings"]) <= MAX_RINGS, f"1..{MAX_RINGS} rings")
    require(
        rules,
        "board.ring_rows",
        len(board["ring_rows"]) == len(board["rings"]) and all(n >= 1 for n in board["ring_rows"]),
        "one count >= 1 per ring",
    )
    rows = sum(board["ring_rows"])
    for key, codes in (
        ("tiles", set(TILE_CODES)),
        ("walls_cw", {" ", "|"}),
        ("walls_in", set(WALL_CODES)),
    ):
        require(rules, f"board.{key}", len(board[key]) == rows, f"needs {rows} rows")
        for r, line in enumerate(board[key]):
            require(rules, f"board.{key}", len(line) == cols, f"row {r} needs {cols} characters")
            require(
                rules,
                f"board.{key}",
                set(line) <= codes,
                f"row {r}: characters must be in {sorted(codes)!r}",
            )
    n_blood = sum(line.count("B") for line in board["tiles"])
    require(
        rules,
        "setup.blood_tiles",
        len(setup["blood_tiles"]) <= n_blood,
        f"{len(setup['blood_tiles'])} Blood tiles do not fit the {n_blood} Blood spaces ('B')",
    )
    starts = sum(line.count("S") for line in board["tiles"])
    require(rules, "board.tiles", starts >= 8, "needs 8 starting points ('S')")
    for n in BLOOD_COIN_KEYS:
        points = board["start_points"].get(str(n))
        require(
            rules,
            f"board.start_points.{n}",
            isinstance(points, list)
            and len(points) == n
            and len(set(points)) == n
            and all(0 <= s < starts for s in points),
            f"needs {n} different starting points numbered 0..{starts - 1}",
        )
    hatches = board["hatch_columns"]
    require(
        rules,
        "board.hatch_columns",
        1 <= len(hatches) <= MAX_HATCHES and all(0 <= c < cols for c in hatches),
        f"1..{MAX_HATCHES} columns in 0..{cols - 1}",
    )
    require(
        rules,
        "board.hatch_kinds",
        len(board["hatch_kinds"]) == len(hatches)
        and all(k in ("day", "night") for k in board["hatch_kinds"]),
        "one 'day'/'night' per hatch",
    )
    require(
        rules,
        "board.roller_boundaries",
        all(0 <= b < cols for b in board["roller_boundaries"]),
        f"boundaries are columns 0..{cols - 1}",
    )


def prepare(rules: dict, n_players: int) -> tuple:
    setup, turn, board = rules["setup"], rules["turn"], rules["board"]
    if n_players not in BLOOD_COIN_KEYS:
        raise UserError(f"Karmaggän is played by 2-8 players, not {n_players}")
    cells = build_cells(board)
    blood = [v if v > 0 else MEDALLION_VALUE for v in setup["blood_tiles"]]
    starts = board["start_points"][str(n_players)]
    cfg = np.zeros(N_CFG + len(blood) + n_players, dtype=np.int64)
    cfg[N_CFG : N_CFG + len(blood)] = blood
    cfg[N_CFG + len(blood) :] = starts
    cfg[CFG_N_BLOOD] = len(blood)
    cfg[CFG_PLAYERS] = n_players
    cfg[CFG_TEAM_MODE] = int(rules["game"]["mode"] == "team")
    cfg[CFG_ROUND_CAP] = rules["game"]["round_cap"]
    cfg[CFG_START_COINS] = setup[BLOOD_COIN_KEYS[n_players]]
    cfg[CFG_START_OBJECTS] = setup["object_cards"]
    cfg[CFG_START_MEDALLIONS] = setup["medallions"]
    cfg[CFG_BANK] = setup["bank_coins"]
    cfg[CFG_MEDALLION_SUPPLY] = setup["medallion_supply"]
    cfg[CFG_HAND_MAX] = turn["hand_max"]
    cfg[CFG_OBJECTS_PER_TURN] = turn["objects_per_turn"]
    cfg[CFG_COMBAT_HAND] = turn["combat_hand"]
    cfg[CFG_THROW] = turn["throw_distance"]
    cfg[CFG_SPAWN_MAX] = turn["spawn_max"]
    cfg[CFG_SPARK] = turn["spark_steps"]
    cfg[CFG_TUMULT] = turn["tumult_cards"]
    cfg[CFG_RAM] = turn["ram_cards"]
    cfg[CFG_GREEDY] = turn["greedy_victims"]
    cfg[CFG_INVOCATION_TILES] = turn["invocation_tiles"]
    cfg[CFG_COMBAT_ROUNDS] = rules["combat"]["rounds"]
    traps = rules["traps"]
    cfg[CFG_ARROWS], cfg[CFG_FIRE] = traps["arrows"], traps["fire"]
    cfg[CFG_ACID_MINUS], cfg[CFG_ROLLER_MINUS] = traps["acid_minus"], traps["roller_minus"]
    cfg[CFG_COLS] = board["columns"]
    cfg[CFG_CELLS_PER_SECTOR] = board["columns"] // board["sectors"]
    cfg[CFG_RINGS] = len(board["rings"])
    cfg[CFG_ROWS] = sum(board["ring_rows"])
    cfg[CFG_CENTRE] = cfg[CFG_ROWS] * cfg[CFG_COLS]
    cfg[CFG_HATCHES] = len(board["hatch_columns"])
    cfg[CFG_NODES] = cells.shape[0]
    cfg[CFG_N_STARTS] = int((cells[:, C_START] >= 0).sum())
    rollers = np.array(board["roller_boundaries"], dtype=np.int64)
    cards = np.array(
        [
            [OBJECT_NAMES.index(e["effect"]), COMBAT_NAMES.index(e["combat"])]
            for e in rules["objects"]
            for _ in range(e["count"])
        ],
        dtype=np.int64,
    ).reshape(-1, 2)
    tcards = np.array(
        [
            TEMPLE_NAMES.index(name)
            for name, count in rules["temple_deck"].items()
            for _ in range(count)
        ],
        dtype=np.int64,
    )
    beats = np.zeros((4, 4), dtype=np.int64)
    for name, beaten in rules["combat"]["beats"].items():
        for b in beaten:
            beats[COMBAT_NAMES.index(name), COMBAT_NAMES.index(b)] = 1
    knobs = policy_knobs(rules, GAME.policy_set(rules), policies.KNOBS)
    timeline_rounds = cfg[CFG_ROUND_CAP] if rules["game"]["round_timeline"] else 0
    return cfg, cells, rollers, cards, tcards, beats, knobs, np.int64(timeline_rounds)


def play(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray) -> dict:
    cfg, cells, rollers, cards, tcards, beats, knobs, timeline_rounds = params
    n, p = len(seeds), int(cfg[CFG_PLAYERS])
    out_games = np.zeros((n, N_GAME_OUT), np.int64)
    out_players = np.zeros((n, p, N_PLAYER_OUT), np.int64)
    timelines = np.zeros((n, int(timeline_rounds), p), np.int16)
    kernel = search.play_search_games if searching(knobs, seat_policies) else engine.play_games
    kernel(
        cfg,
        cells,
        rollers,
        cards,
        tcards,
        beats,
        knobs,
        np.asarray(seeds, np.uint64),
        np.asarray(seat_policies, np.int8),
        out_games,
        out_players,
        timelines,
        np.zeros((0, TRACE_WIDTH), np.int64),
    )
    games = {
        "winner_seat": out_games[:, G_OUT_WINNER],
        "length": out_games[:, G_OUT_LENGTH],
        "end_reason": out_games[:, G_OUT_END],
        "winning_team": out_games[:, G_OUT_WIN_TEAM].astype(np.int8),
        "starting_team": out_players[:, 0, P_OUT_TEAM].astype(np.int8),
        "egg_left_centre_round": int16_column(
            out_games[:, G_OUT_EGG_LEFT], "egg_left_centre_round"
        ),
        "deaths": out_games[:, G_OUT_DEATHS].astype(np.int8),
        "bank_coins": int16_column(out_games[:, G_OUT_BANK], "bank_coins"),
        "search_decisions": out_games[:, G_OUT_SEARCH].astype(np.int32),
    }
    col = lambda k: out_players[:, :, k]  # noqa: E731
    players = {
        "score": col(P_OUT_SCORE).astype(np.float64),
        "won": col(P_OUT_WON).astype(bool),
        "team": col(P_OUT_TEAM).astype(np.int8),
        # the team label is drawn each game; what a balance question asks is whether the
        # player's team moves first (seat 0's team: "starting") or not ("other")
        "side": ((col(P_OUT_TEAM) != col(P_OUT_TEAM)[:, :1]).astype(np.int8), SIDES),
        "start_blood_coins": int16_column(col(P_OUT_START), "start_blood_coins"),
        "final_blood_coins": int16_column(col(P_OUT_FINAL), "final_blood_coins"),
        "died": col(P_OUT_DIED).astype(bool),
        "death_round": int16_column(col(P_OUT_DEATH_ROUND), "death_round"),
        "eliminated": col(P_OUT_ELIMINATED).astype(bool),
    }
    for k, source in enumerate(LOSS_SOURCES):
        players[f"blood_lost_{source}"] = int16_column(
            col(P_OUT_ARROWS + k), f"blood_lost_{source}"
        )
    players["blood_gained_tiles"] = int16_column(col(P_OUT_BLOOD_GAIN), "blood_gained_tiles")
    players["blood_gained_combat"] = int16_column(col(P_OUT_COMBAT_GAIN), "blood_gained_combat")
    players["blood_gained_other"] = int16_column(col(P_OUT_OTHER_GAIN), "blood_gained_other")
    players["combats_won"] = int16_column(col(P_OUT_WON_COMBATS), "combats_won")
    players["combats_lost"] = int16_column(col(P_OUT_LOST_COMBATS), "combats_lost")
    players["turns_as_spawn"] = int16_column(col(P_OUT_SPAWN_TURNS), "turns_as_spawn")
    players["turns_holding_egg"] = int16_column(col(P_OUT_EGG_TURNS), "turns_holding_egg")
    players["objects_played"] = int16_column(col(P_OUT_OBJECTS), "objects_played")
    players["spawns_invoked"] = int16_column(col(P_OUT_INVOKED), "spawns_invoked")
    return {
        "games": games,
        "players": players,
        "rounds": round_rows(timelines, out_games[:, G_OUT_LENGTH]),
    }


def searching(knobs: np.ndarray, seat_policies: np.ndarray) -> bool:
    """Whether any seat plays a policy that runs the `search` behaviour."""
    search_ids = np.flatnonzero(knobs[:, KNOB_BEHAVIOUR] == policies.SEARCH)
    return bool(np.isin(seat_policies, search_ids).any())


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
    cfg, cells, rollers, cards, tcards, beats, knobs, _ = params
    p = int(cfg[CFG_PLAYERS])
    out_game = np.zeros(N_GAME_OUT, np.int64)
    out_players = np.zeros((p, N_PLAYER_OUT), np.int64)
    timeline = np.zeros((int(cfg[CFG_ROUND_CAP]), p), np.int16)
    trace = np.zeros((max_events, TRACE_WIDTH), dtype=np.int64)
    kernel = search.play_search_games if searching(knobs, seat_policies) else engine.play_games
    n = kernel(
        cfg,
        cells,
        rollers,
        cards,
        tcards,
        beats,
        knobs,
        np.array([seed], np.uint64),
        np.array([seat_policies], np.int8),
        out_game[None],
        out_players[None],
        timeline[None],
        trace,
    )
    return trace[:n], out_game, out_players


def world(params: tuple, seed: int, seat_policies, set_up: bool = True):
    """A fresh world for one game (tests and notebooks poke at single rules with it)."""
    cfg, cells, rollers, cards, tcards, beats, knobs, _ = params
    p = int(cfg[CFG_PLAYERS])
    W = core.new_world(
        cfg,
        cells,
        rollers,
        cards,
        tcards,
        beats,
        knobs,
        np.asarray(seat_policies, np.int8),
        np.uint64(seed),
        np.zeros((0, TRACE_WIDTH), np.int64),
        np.zeros((0, p), np.int16),
    )
    if set_up:
        engine.setup_game(W)
    return W


DAMAGE = {
    SRC_ARROWS: "arrows",
    SRC_ACID: "acid",
    SRC_FIRE: "fire",
    SRC_PISTON: "the Piston",
    SRC_ROLLERS: "a Roller",
    SRC_COMBAT: "combat",
    SRC_OTHER: "a Blood Stone",
}


def replay(params: tuple, seed: int, seat_policies: np.ndarray, rules: dict) -> list[str]:
    """A readable play-by-play of one game."""
    rings = rules["board"]["rings"]
    cfg = params[0]
    centre = int(cfg[CFG_CENTRE])
    cols = int(cfg[CFG_COLS])
    n_players = int(cfg[CFG_PLAYERS])

    def where(node):
        if node == centre:
            return "the Centre"
        if node > centre:
            return f"the jungle (hatch {node - centre - 1})"
        if node < 0:
            return "nowhere"
        return f"cell {node} (row {node // cols}, col {node % cols})"

    def fig(f):
        return f"seat {f}" if f < n_players else f"spawn {f - n_players}"

    def step_option(act, a, b):
        """A STEP option as EV_SEARCH_OPTION names it (state.py)."""
        if act == ACT_MOVE:
            return f"step to {where(b)}"
        if act == ACT_PLAY:
            return f"play {OBJECT_NAMES[a]}" + (" paying a Golden Medallion" if b else "")
        if act in (ACT_PASS, ACT_TAKE, ACT_THROW):
            verb = {
                ACT_PASS: "pass the Egg to",
                ACT_TAKE: "take the Egg from",
                ACT_THROW: "throw the Egg to",
            }[act]
            return f"{verb} {fig(a)}"
        return "stop"

    trace, _, _ = trace_game(params, seed, seat_policies)
    lines = []
    for event, rnd, seat, a, b, c, d in trace.tolist():
        head = f"round {rnd + 1} seat {seat}"
        if event == EV_TURN:
            lines.append(
                f"== round {rnd + 1}, seat {seat}'s turn"
                + (" (controls the swarm)" if a else f" ({b} coins)")
            )
        elif event == EV_ROLL:
            what = (
                "swarm rolls"
                if b < 0
                else ("rolls one die (carries the Egg)" if b else "rolls two dice")
            )
            lines.append(f"{head}: {what}: may step {a} tiles")
        elif event == EV_MOVE:
            who = f"spawn {d - n_players} " if d else ""
            lines.append(f"{head}: {who}steps {where(a)} -> {where(b)} ({c} steps left)")
        elif event == EV_BLOOD:
            gain = "a Golden Medallion" if b == MEDALLION_VALUE else f"{b} coins"
            lines.append(f"{head}: consumes the Blood tile at {where(a)}: {gain} (coins {c}->{d})")
        elif event == EV_OBJECT_DRAW:
            lines.append(f"{head}: draws an Object card at {where(a)} ({b} in hand)")
        elif event == EV_TEMPLE:
            lines.append(f"{head}: Temple card: {TEMPLE_NAMES[a]}")
        elif event == EV_DAMAGE:
            lines.append(f"{head}: loses {b} to {DAMAGE[a]} (coins {c}->{d})")
        elif event == EV_ROTATE:
            lines.append(f"{head}: the {rings[a]} ring turns {b:+d} sectors (offset {c})")
        elif event == EV_PASSAGE:
            lines.append(f"{head}: Passage from {where(a)} to {where(b)}")
        elif event == EV_FLASH:
            lines.append(f"{head}: Iris Flash from {where(a)} to {where(b)}")
        elif event == EV_PLAY:
            paid = " paying a Golden Medallion" if b else ""
            lines.append(f"{head}: plays {OBJECT_NAMES[a]}{paid}")
        elif event == EV_COMBAT:
            lines.append(f"{head}: combat: {fig(a)} attacks {fig(b)} on {where(c)}")
        elif event == EV_COMBAT_ROUND:
            names = ("no card",) + COMBAT_NAMES
            result = {1: "attacker wins", -1: "defender wins", 0: "tie"}[c]
            lines.append(f"{head}:   round {d + 1}: {names[a + 1]} vs {names[b + 1]}: {result}")
        elif event == EV_THROWN:
            lines.append(f"{head}: {fig(a)} is thrown from {where(b)} to {where(c)}")
        elif event == EV_DEATH:
            lines.append(f"{head}: dies at {where(a)} and joins the swarm")
        elif event == EV_EGG:
            how = (
                "picks up the Egg",
                "passes the Egg to seat {}",
                "throws the Egg to seat {}",
                "wins the Egg from seat {}",
                "drops the Egg",
                "flings the Egg to {}",
            )[b]
            if b in (EGG_PASS, EGG_THROW):
                lines.append(f"{head}: {how.format(a)}")
            elif b == EGG_WON:
                lines.append(f"round {rnd + 1} seat {a}: {how.format(seat)}")
            elif b == EGG_FLUNG:
                lines.append(f"{head}: {how.format(where(a))}")
            else:
                lines.append(f"{head}: {how} at {where(a)}")
        elif event == EV_SPAWN:
            lines.append(
                f"{head}: "
                + (f"invokes a spawn on {where(a)}" if b > 0 else f"a spawn dies on {where(a)}")
            )
        elif event == EV_SACRIFICE:
            lines.append(f"{head}: sacrifices a spawn on {where(a)}")
        elif event == EV_HATCH:
            kind = (
                "every hatch" if a < 0 else ("the Day hatches" if a == DAY else "the Night hatches")
            )
            lines.append(f"{head}: {kind} {'open' if b else 'close'}")
        elif event == EV_EXIT:
            lines.append(f"{head}: leaves the Temple into {where(a)}")
        elif event == EV_ELIMINATED:
            lines.append(f"{head}: loses in the jungle and is eliminated")
        elif event == EV_STONE:
            what = "gains a coin" if a < 0 else f"gives a coin to seat {a}"
            lines.append(f"{head}: Blood Stone: {what} (coins {b}->{c})")
        elif event == EV_WIN:
            lines.append(f"{head}: begins its turn in the jungle with the Egg and wins (team {a})")
        elif event == EV_SEARCH:
            lines.append(f"{head}: search weighs {b} of {a} step options over {c} rollouts:")
        elif event == EV_SEARCH_OPTION:
            lines.append(
                f"{head}:   {step_option(a, b // 1000, b % 1000)}: mean value "
                f"{c / 1e6:.3f} over {d} rollouts"
            )
        elif event == EV_END:
            lines.append(
                f"game over after {b} rounds: {END_REASONS[a]}"
                + (f", winner seat {seat}" if seat >= 0 else "")
            )
    return lines


GAME = Game(
    name="karmaggan",
    engine_version=ENGINE_VERSION,
    player_counts=range(2, 9),
    default_players=4,
    chunk_size=10_000,
    length_unit="rounds",
    policies=policies.POLICIES,
    knob_names=policies.KNOBS,
    check=check,
    prepare=prepare,
    play=play,
    replay=replay,
    categories={"end_reason": END_REASONS},
    timelines=("rounds",),
    search_limits=(("rollouts", 0, 100_000), ("horizon", 0, MAX_ROUNDS), ("top_k", 1, MAX_OPTIONS)),
)

__all__ = ["GAME", "check", "prepare", "play", "replay", "trace_game", "world", "draw_rows"]
