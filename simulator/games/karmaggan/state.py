"""Karmaggän state layout: the named slots of a game's arrays and of the rules array.

Shared by the engine, the board helpers and the policies, so none imports another's internals.

A game is two arrays: ``state`` (int64, below) and ``rng`` (uint64[N_STREAMS],
simulator.core.rng).  The rules of one player count are one read-only int64 array ``rules``
(below: the rules numbers, the static board and the card tables) and the policies' knobs one
float64[n_policies, 1 + n_knobs] table.  Copying a game is ``work[:] = state``.

Every block with a row per seat, figure, node or option is field-major at a compile-time
offset: a field holds one slot per seat (figure, node, option), so rule code reads
``state[P_COINS + seat]``, ``state[F_POS + fig]``, ``state[B_OCC + node]``,
``rules[C_COL + node]``, ``state[OPT_B + i]``.  The blocks whose size depends on the board or
the decks come last, at offsets the wrapper stores in the rules header::

    state offset   block                                                slots
    0              scalars: round, Egg, bank, decks, ring offsets, caches  N_GAME
    SEAT_POLICY    policy id of each seat                               MAX_PLAYERS
    PLAYERS        per-seat fields P_*: coins, status, output counters  N_PLAYER x MAX_PLAYERS
    FIGS           per-figure fields F_*: plunderers, then the spawns   N_FIG x MAX_FIGS
    BOARD          per-node fields B_*: tile, Blood value, occupant     N_BOARD x MAX_NODES
    HANDS          object card ids (-1 empty), seat-major: hand_slot    MAX_PLAYERS x MAX_HAND
    ACTED          (figure, node) activated this turn: ACTED_*          2 x MAX_ACTS
    OPTIONS        the current decision's options: OPT_*                OPT_WIDTH x MAX_OPTIONS
    SCORES         float64 scores of the options (score_view)           MAX_OPTIONS
    DCACHE         cached distance maps: dcache_row(rules, slot)        DCACHE_SLOTS x n_nodes
    rules[CFG_QUEUE]   breadth-first queue                              n_nodes
    rules[CFG_ADJ]     adjacency: adj_row(rules, node) (degree, nodes)  n_nodes x adjacency width
    rules[CFG_DECKS]   Temple deck, Object deck, discards: deck(rules, D_*)  3 x deck length

    rules offset   block                                                slots
    0              rules numbers and the offsets of the tables          N_CFG
    BEATS          1 where combat value a beats b: beats(rules, a, b)   4 x 4
    CELLS          per-node static board C_*: ring/row/column, walls    N_CELL x MAX_NODES
    rules[CFG_BLOOD]   Blood tile values (MEDALLION_VALUE: a medallion) n_blood
    rules[CFG_STARTS]  the starting point of each seat                  n_players
    rules[CFG_ROLLERS] outer-ring Roller boundaries b (between b, b+1)  n_rollers
    rules[CFG_CARDS]   object card id -> (effect, combat value)         n_objects x 2
    rules[CFG_TCARDS]  the Temple deck's cards (T_*)                    n_temple

Numba freezes these constants into the compiled code; the kernel cache's folder is keyed on
every engine source, this file included (simulator/__init__.py), so renumbering anything here
compiles the kernels afresh.
"""

import numpy as np

from simulator.core.kernel import accessor, layer

# The slot tables are laid out by hand, a block of names per line.
# fmt: off
MAX_PLAYERS = 8
MAX_PIECES = 100     # hand size, spawns, steps and cards a rule moves at once (game.check)
MAX_HAND = MAX_PIECES
N_SWARMS = 2         # team mode: one swarm per team; free-for-all uses swarm 0 only
MAX_FIGS = MAX_PLAYERS + N_SWARMS * MAX_PIECES
MAX_NODES = 512      # ring cells, the Centre and the jungle nodes (game.check)
MAX_RINGS = 8
MAX_HATCHES = 16
MAX_ACTS = 64
MAX_OPTIONS = 160
DCACHE_SLOTS = 8
ADJ_WRITTEN = 1 << DCACHE_SLOTS  # G_DCACHE_WRITTEN's bit of the adjacency block
ALL_WRITTEN = (ADJ_WRITTEN << 1) - 1  # every cache: the adjacency and each distance map

# ---------------------------------------------------------------- rules array
# header: rules numbers for this player count and variant, then the sizes and offsets of the
# tables and of the state's variable blocks
(CFG_PLAYERS, CFG_TEAM_MODE, CFG_EXTRA_OTHER, CFG_ROUND_CAP, CFG_START_COINS, CFG_START_OBJECTS,
 CFG_START_MEDALLIONS, CFG_BANK, CFG_MEDALLION_SUPPLY, CFG_HAND_MAX, CFG_OBJECTS_PER_TURN,
 CFG_COMBAT_HAND, CFG_THROW, CFG_SPAWN_MAX, CFG_SPARK, CFG_TUMULT, CFG_RAM, CFG_GREEDY,
 CFG_COMBAT_ROUNDS, CFG_ARROWS, CFG_FIRE, CFG_ACID_MINUS, CFG_ROLLER_MINUS, CFG_COLS,
 CFG_CELLS_PER_SECTOR, CFG_RINGS, CFG_ROWS, CFG_CENTRE, CFG_HATCHES, CFG_NODES, CFG_N_STARTS,
 CFG_N_BLOOD, CFG_INVOCATION_TILES, CFG_N_FIGS,
 CFG_BLOOD, CFG_STARTS, CFG_ROLLERS, CFG_N_ROLLERS, CFG_CARDS, CFG_N_OBJECTS, CFG_TCARDS,
 CFG_N_TEMPLE, CFG_QUEUE, CFG_ADJ, CFG_ADJ_WIDTH, CFG_DECKS, CFG_DECK_LEN, CFG_STATE_SIZE,
 CFG_RULES_SIZE, N_CFG) = range(50)
BEATS = N_CFG
MEDALLION_VALUE = 100    # a Blood tile holding a Golden Medallion

# cells: the static board, one slot per node. Node ids: ring cells row * columns + column
# (row 0 outermost, columns in the ring's own frame), then the Centre, then one jungle node per
# hatch (outside the Temple, beyond that hatch). C_WALL_IN: the wall on the inner side of a cell
CELLS = BEATS + 16
N_CELL = 9
(C_RING, C_ROW, C_COL, C_WALL_CW, C_WALL_IN, C_TILE0, C_START, C_HATCH,
 C_HATCH_KIND) = range(CELLS, CELLS + N_CELL * MAX_NODES, MAX_NODES)
CELLS_END = CELLS + N_CELL * MAX_NODES
# wall kinds
NO_WALL, PLAIN_WALL, ARROWS_WALL, ACID_WALL, FIRE_WALL = range(5)
DAY, NIGHT = range(2)

# tile types (B_TILE)
(BLANK, ABYSS, OBJECT_TILE, TEMPLE_TILE, BLOOD_TILE, PASSAGE_TILE, INVOCATION, CENTRE_TILE,
 JUNGLE) = range(9)
TILE_CHARS = ".#OTBPI@J"   # for drawings; 'S' in the rules is a Blank starting point

# ---------------------------------------------------------------- state: scalars
(G_ROUND, G_SEAT, G_EGG_POS, G_EGG_CARRIER, G_EGG_LEFT_ROUND, G_ROLLERS_ON, G_DEATHS, G_BANK,
 G_MEDALLION_BANK, G_TDRAW, G_ODECK_N, G_ODISC_N, G_NEV, G_VERSION, G_WINNER, G_WIN_TEAM,
 G_END, G_ACT_N, G_STEPS_LEFT, G_PLAYS_LEFT, G_POLE, G_CONJURE, G_FIRST_TURN,
 G_DCACHE_NEXT, G_TURN_ENDED, G_TEAM_DIED, G_ADJ_VERSION, G_OPEN_HATCHES, G_DCACHE_LAST,
 G_LAST_FREE, G_SEARCH_DECISIONS, G_DCACHE_WRITTEN, G_OFFSET) = range(33)
G_DKEY = G_OFFSET + MAX_RINGS          # DCACHE_SLOTS (version, target) pairs
G_ADJ_OFFSET = G_DKEY + 2 * DCACHE_SLOTS  # the ring offsets the adjacency was built with
G_ADJ_HATCHES = G_ADJ_OFFSET + MAX_RINGS  # and the hatches then open (bit h: hatch h)
N_GAME = G_ADJ_HATCHES + 1
# G_OPEN_HATCHES counts the open hatches; G_TEAM_DIED is a bit set: bit t when team t (or,
# free-for-all, anyone: bit 0) has lost a plunderer; G_LAST_FREE is the last tile the moving
# figure stood on alone (where it goes back if its move ends on another's tile);
# G_SEARCH_DECISIONS counts the decisions a `search` seat weighed by rollouts;
# G_DCACHE_WRITTEN is a bit set of the caches written since the game and its rollout copy were
# last made alike (search.restore_game, which clears it in both, so as to copy back only the
# caches either wrote): bit s when distance map s was computed, ADJ_WRITTEN when the adjacency
# was rebuilt; a new game sets them all (no copy holds any of it yet)

SEAT_POLICY = N_GAME

# ---------------------------------------------------------------- state: seats
PLAYERS = SEAT_POLICY + MAX_PLAYERS
N_PLAYER = 31
(P_COINS, P_MEDALLIONS, P_STATUS, P_TEAM, P_SWARM, P_HAND_N, P_TURNS, P_START_COINS,
 P_DEATH_ROUND, P_LOST_ARROWS, P_LOST_ACID, P_LOST_FIRE, P_LOST_PISTON, P_LOST_ROLLERS,
 P_LOST_COMBAT, P_LOST_OTHER, P_GAIN_BLOOD, P_GAIN_COMBAT, P_GAIN_OTHER, P_COMBATS_WON,
 P_COMBATS_LOST, P_SPAWN_TURNS, P_EGG_TURNS, P_OBJECTS_PLAYED, P_SPAWNS_INVOKED,
 P_MEDALLIONS_GAINED, P_EGG_PASSES, P_EGG_TAKES, P_EGG_THROWS, P_SACRIFICES,
 P_MEDALLION_INVOKES) = range(PLAYERS, PLAYERS + N_PLAYER * MAX_PLAYERS, MAX_PLAYERS)
ALIVE, DEAD, ELIMINATED = range(3)
# blood-loss sources, in the order of the P_LOST_* fields (P_LOST_ARROWS + source * MAX_PLAYERS)
(SRC_ARROWS, SRC_ACID, SRC_FIRE, SRC_PISTON, SRC_ROLLERS, SRC_COMBAT, SRC_OTHER) = range(7)
N_SOURCES = 7

# ---------------------------------------------------------------- state: figures
# figures 0..n_players-1 are the plunderers (figure = seat); then spawn_max spawns per swarm.
# F_POS is a node or OFF; F_OWNER the seat or swarm.
FIGS = PLAYERS + N_PLAYER * MAX_PLAYERS
N_FIG = 3
F_POS, F_KIND, F_OWNER = range(FIGS, FIGS + N_FIG * MAX_FIGS, MAX_FIGS)
PLUNDERER, SPAWN = range(2)
OFF = -1

# ---------------------------------------------------------------- state: board
# B_TILE tile type, B_BLOOD coins on a full Blood tile (MEDALLION_VALUE for a medallion, 0 when
# none), B_OCC occupying figure (NOBODY; a figure crossing an ally's tile does not replace it),
# B_OPEN hatch open (jungle nodes), B_SWARM swarm of an Invocation tile (-1 none)
BOARD = FIGS + N_FIG * MAX_FIGS
N_BOARD = 5
B_TILE, B_BLOOD, B_OCC, B_OPEN, B_SWARM = range(BOARD, BOARD + N_BOARD * MAX_NODES, MAX_NODES)
NOBODY = -1

# ---------------------------------------------------------------- state: cards, turn, decisions
HANDS = BOARD + N_BOARD * MAX_NODES
ACTED = HANDS + MAX_PLAYERS * MAX_HAND
ACTED_FIG, ACTED_NODE = range(ACTED, ACTED + 2 * MAX_ACTS, MAX_ACTS)
OPTIONS = ACTED + 2 * MAX_ACTS
OPT_WIDTH = 3
OPT_ACT, OPT_A, OPT_B = range(OPTIONS, OPTIONS + OPT_WIDTH * MAX_OPTIONS, MAX_OPTIONS)
SCORES = OPTIONS + OPT_WIDTH * MAX_OPTIONS
DCACHE = SCORES + MAX_OPTIONS
FIXED_SLOTS = DCACHE    # the state's blocks at compile-time offsets; then the variable ones

# end reasons (games.end_reason categories)
END_EGG, END_ALL_DEAD, END_ROUND_CAP = range(3)
END_REASONS = ("egg_escaped", "all_dead", "round_cap")

# decks rows; TEMPLE is drawn in order from G_TDRAW, OBJECTS is a stack of G_ODECK_N cards,
# DISCARD holds G_ODISC_N played object cards
D_TEMPLE, D_OBJECTS, D_DISCARD = range(3)

# object effects (card_effect) and combat values (card_value)
(GREEDY, TUMULT, POLE, GAZE, CONJURE, BLOOD_STONE, HELM, SPARK, SWORD, SALIVA, ECLIPSE) = range(11)
OBJECT_NAMES = ("greedy_fingers", "tumult", "pole", "embedded_gaze", "unpronounceable_conjuring",
                "blood_stone", "helm_of_contact", "stone_of_the_spark", "sword",
                "saliva_of_khaleidas", "deliberate_eclipse")
NOTHING, ATTACK, COUNTER, POWER = range(4)
NO_CARD = -1
COMBAT_NAMES = ("nothing", "attack", "counterattack", "absolute_power")

# temple cards (rules[CFG_TCARDS] + i)
(T_ARROWS, T_ACID, T_FIRE, T_ROT_OUTER, T_ROT_MIDDLE, T_ROT_INNER, T_ROT_CENTRAL, T_PISTON,
 T_RAM, T_FLASH, T_OPEN_DAY, T_OPEN_NIGHT, T_CLOSE_ALL) = range(13)
TEMPLE_NAMES = ("arrows", "acid", "fire", "rotate_outer", "rotate_middle", "rotate_inner",
                "rotate_central", "piston", "ram", "flash", "open_day", "open_night", "close_all")

# decision kinds a policy is asked about
(STEP, SWARM_MODE, SWARM_STEP, TELEPORT, COMBAT_CARD, THROW_DEST, STONE_TARGET, ROTATION,
 EGG_DEST, VICTIM) = range(10)
# option fields and actions: STEP / SWARM_STEP rows (action, a, b)
(ACT_STOP, ACT_MOVE, ACT_PASS, ACT_TAKE, ACT_THROW, ACT_PLAY, ACT_SACRIFICE, ACT_MEDALLION,
 ACT_INVOKE, ACT_SWARM_MOVE) = range(10)
# ACT_MOVE: a figure, b node; ACT_PASS / ACT_TAKE / ACT_THROW: a receiving figure;
# ACT_PLAY: a hand slot, b 1 if a medallion is paid; ACT_SACRIFICE: a spawn;
# ACT_MEDALLION / ACT_INVOKE: b invocation node. TELEPORT / THROW_DEST / EGG_DEST: b node
# (TELEPORT b = -1: stay). COMBAT_CARD: a hand slot (-1 none), b combat value.
# STONE_TARGET: a seat (-1: gain a coin). ROTATION: a ring, b direction (+1 clockwise / -1).
# VICTIM: a seat to rob (-1: no more).

# trace rows (simulator.core.trace): [event, round, seat, a, b, c, d]
(EV_TURN, EV_ROLL, EV_MOVE, EV_BLOOD, EV_OBJECT_DRAW, EV_TEMPLE, EV_DAMAGE, EV_ROTATE,
 EV_PASSAGE, EV_FLASH, EV_PLAY, EV_COMBAT, EV_COMBAT_ROUND, EV_THROWN, EV_DEATH, EV_EGG,
 EV_SPAWN, EV_SACRIFICE, EV_HATCH, EV_WIN, EV_END, EV_ELIMINATED, EV_STONE, EV_EXIT,
 EV_SEARCH, EV_SEARCH_OPTION) = range(26)
# EV_SEARCH: a options, b candidates weighed, c rollouts; EV_SEARCH_OPTION (one per candidate,
# best scripted score first): a action, b its OPT_A * 1000 + OPT_B (ACT_PLAY: the card's
# effect * 1000 + medallion paid), c mean value in millionths, d rollouts
# EV_EGG b: how the Egg moved
EGG_PICKUP, EGG_PASS, EGG_THROW, EGG_WON, EGG_DROPPED, EGG_FLUNG = range(6)

# games output columns
(G_OUT_WINNER, G_OUT_LENGTH, G_OUT_END, G_OUT_WIN_TEAM, G_OUT_EGG_LEFT, G_OUT_DEATHS,
 G_OUT_BANK, G_OUT_SEARCH, N_GAME_OUT) = range(9)
# players output columns
(P_OUT_SCORE, P_OUT_WON, P_OUT_TEAM, P_OUT_START, P_OUT_FINAL, P_OUT_DIED, P_OUT_DEATH_ROUND,
 P_OUT_ARROWS, P_OUT_ACID, P_OUT_FIRE, P_OUT_PISTON, P_OUT_ROLLERS, P_OUT_COMBAT_LOST,
 P_OUT_OTHER_LOST, P_OUT_BLOOD_GAIN, P_OUT_COMBAT_GAIN, P_OUT_OTHER_GAIN, P_OUT_WON_COMBATS,
 P_OUT_LOST_COMBATS, P_OUT_SPAWN_TURNS, P_OUT_EGG_TURNS, P_OUT_OBJECTS, P_OUT_INVOKED,
 P_OUT_ELIMINATED, P_OUT_PASSES, P_OUT_TAKES, P_OUT_THROWS, P_OUT_SACRIFICES,
 P_OUT_MEDALLION_INVOKES, N_PLAYER_OUT) = range(30)
# fmt: on


@accessor
def hand_slot(seat, slot):
    """Index of ``seat``'s hand slot ``slot``."""
    return HANDS + seat * MAX_HAND + slot


@accessor
def dcache_row(rules, s):
    """Offset of distance map ``s`` (one slot per node)."""
    return DCACHE + s * rules[CFG_NODES]


@accessor
def adj_row(rules, node):
    """Offset of ``node``'s adjacency row: its degree, then its neighbours."""
    return rules[CFG_ADJ] + node * rules[CFG_ADJ_WIDTH]


@accessor
def deck(rules, k):
    """Offset of deck row ``k`` (D_TEMPLE, D_OBJECTS, D_DISCARD)."""
    return rules[CFG_DECKS] + k * rules[CFG_DECK_LEN]


@accessor
def card_effect(rules, card):
    return rules[rules[CFG_CARDS] + 2 * card]


@accessor
def card_value(rules, card):
    return rules[rules[CFG_CARDS] + 2 * card + 1]


@accessor
def beats(rules, a, b):
    return rules[BEATS + 4 * a + b]


@accessor
def set_option(state, i, act, a, b):
    state[OPT_ACT + i], state[OPT_A + i], state[OPT_B + i] = act, a, b


@layer
def score_view(state):
    """The SCORES block as float64[MAX_OPTIONS] (a policy's scores of the current options)."""
    return state[SCORES : SCORES + MAX_OPTIONS].view(np.float64)
