"""Karmaggän rules checks: every rules value the engine reads, within what its arrays and the
int16 output columns hold (rulebook: shared/rules/karmaggan.md).

A failed check is a user error naming the rules key (``simulator.core.rules.require``).
"""

from simulator.core.rules import require
from simulator.games.karmaggan import state as S
from simulator.games.karmaggan.board import TILE_CODES, WALL_CODES

MODES = ("team", "free_for_all")
EXTRA_PLAYER = ("starting", "other")  # game.extra_player: which team a player more goes to
# Bounds of what the kernel's arrays and the int16 output columns hold
MAX_ROUNDS = 1_000  # timeline: 10,000 games × 1,000 rounds × 8 seats × 2 bytes = 160 MB a chunk
MAX_COINS = 10_000  # blood coins, the bank and the medallions
MAX_DECK = 1_000  # cards in the Temple deck, in the Object deck
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
    require(
        rules,
        "game.extra_player",
        game["extra_player"] in EXTRA_PLAYER,
        f"must be one of {', '.join(EXTRA_PLAYER)}",
    )
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
        require(rules, f"turn.{key}", 1 <= turn[key] <= S.MAX_PIECES, f"must be 1..{S.MAX_PIECES}")
    require(
        rules,
        "turn.combat_hand",
        turn["combat_hand"] <= turn["hand_max"],
        "must be <= turn.hand_max",
    )
    for key in ("objects_per_turn", "spark_steps", "tumult_cards", "ram_cards", "greedy_victims"):
        require(rules, f"turn.{key}", 0 <= turn[key] <= S.MAX_PIECES, f"must be 0..{S.MAX_PIECES}")
    require(
        rules,
        "combat.rounds",
        1 <= rules["combat"]["rounds"] <= S.MAX_PIECES,
        f"must be 1..{S.MAX_PIECES}",
    )
    values = rules["combat"]["values"]
    require(
        rules,
        "combat.values",
        list(values) == list(S.COMBAT_NAMES),
        f"must be {list(S.COMBAT_NAMES)}",
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
    require(rules, "temple_deck", all(name in S.TEMPLE_NAMES for name in deck), "unknown card name")
    for name, count in deck.items():
        require(rules, f"temple_deck.{name}", 0 <= count <= MAX_DECK, f"must be 0..{MAX_DECK}")
    require(rules, "temple_deck", 1 <= sum(deck.values()) <= MAX_DECK, f"needs 1..{MAX_DECK} cards")
    objects = rules["objects"]
    for i, entry in enumerate(objects):
        require(
            rules,
            f"objects[{i}].effect",
            entry["effect"] in S.OBJECT_NAMES,
            f"must be one of {', '.join(S.OBJECT_NAMES)}",
        )
        require(
            rules,
            f"objects[{i}].combat",
            entry["combat"] in S.COMBAT_NAMES,
            f"must be one of {', '.join(S.COMBAT_NAMES)}",
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
    require(
        rules, "board.rings", 1 <= len(board["rings"]) <= S.MAX_RINGS, f"1..{S.MAX_RINGS} rings"
    )
    require(
        rules,
        "board.ring_rows",
        len(board["ring_rows"]) == len(board["rings"]) and all(n >= 1 for n in board["ring_rows"]),
        "one count >= 1 per ring",
    )
    rows = sum(board["ring_rows"])
    nodes = rows * cols + 1 + len(board["hatch_columns"])
    require(
        rules,
        "board",
        nodes <= S.MAX_NODES,
        f"{rows} rows of {cols} cells, the Centre and the jungle make {nodes} nodes: "
        f"at most {S.MAX_NODES}",
    )
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
        1 <= len(hatches) <= S.MAX_HATCHES and all(0 <= c < cols for c in hatches),
        f"1..{S.MAX_HATCHES} columns in 0..{cols - 1}",
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
