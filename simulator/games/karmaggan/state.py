"""Karmaggän state layout: the named slots of the engine's arrays (see engine.py's docstring).

Shared by the engine, the board helpers and the policies, so none imports another's internals.
A game's arrays travel together as the *world* ``W`` (world.py); ``W[GAME]``, ``W[BOARD]``...
name its members (numba resolves these constant indices at compile time).

Numba freezes these constants into the compiled code; the kernel cache's folder is keyed on
every engine source, this file included (simulator/__init__.py), so renumbering anything here
compiles the kernels afresh.
"""

# The slot tables are laid out by hand, a block of names per line.
# fmt: off
# members of the world W (built by core.new_world; world.MEMBERS names them)
(CFG, CELLS, ROLLERS, CARDS, TCARDS, BEATS, KNOB_TABLE, POLICY_IDS, RNG, GAME, BOARD, FIGS, PLAYERS,
 HANDS, DECKS, ACTS, OPTIONS, DCACHE, QUEUE, TRACE, TIMELINE, ADJ, SCORES) = range(23)

# cfg slots (int64[N_CFG]): rules numbers for this player count and variant
(CFG_PLAYERS, CFG_TEAM_MODE, CFG_ROUND_CAP, CFG_START_COINS, CFG_START_OBJECTS,
 CFG_START_MEDALLIONS, CFG_BANK, CFG_MEDALLION_SUPPLY, CFG_HAND_MAX, CFG_OBJECTS_PER_TURN,
 CFG_COMBAT_HAND, CFG_THROW, CFG_SPAWN_MAX, CFG_SPARK, CFG_TUMULT, CFG_RAM, CFG_GREEDY,
 CFG_COMBAT_ROUNDS, CFG_ARROWS, CFG_FIRE, CFG_ACID_MINUS, CFG_ROLLER_MINUS, CFG_COLS,
 CFG_CELLS_PER_SECTOR, CFG_RINGS, CFG_ROWS, CFG_CENTRE, CFG_HATCHES, CFG_NODES, CFG_N_STARTS,
 CFG_N_BLOOD, CFG_INVOCATION_TILES, N_CFG) = range(33)
# cfg[N_CFG : N_CFG + cfg[CFG_N_BLOOD]] holds the Blood tile values (MEDALLION_VALUE: a medallion),
# then cfg[START_AT + seat] (START_AT = N_CFG + cfg[CFG_N_BLOOD]) the starting point of each seat
MAX_RINGS = 8
MAX_HATCHES = 16

# cells columns (int64[n_nodes, N_CELL], static). Node ids: ring cells row * columns + column
# (row 0 outermost, columns in the ring's own frame), then the Centre, then one jungle node per
# hatch (outside the Temple, beyond that hatch).
(C_RING, C_ROW, C_COL, C_WALL_CW, C_WALL_IN, C_TILE0, C_START, C_HATCH, C_HATCH_KIND,
 N_CELL) = range(10)
# wall kinds (C_WALL_IN: the wall on the inner side of a cell)
NO_WALL, PLAIN_WALL, ARROWS_WALL, ACID_WALL, FIRE_WALL = range(5)
DAY, NIGHT = range(2)

# tile types (BOARD[:, B_TILE])
(BLANK, ABYSS, OBJECT_TILE, TEMPLE_TILE, BLOOD_TILE, PASSAGE_TILE, INVOCATION, CENTRE_TILE,
 JUNGLE) = range(9)
TILE_CHARS = ".#OTBPI@J"   # for drawings; 'S' in the rules is a Blank starting point

# board columns (int64[n_nodes, N_BOARD], dynamic): tile type, coins on a full Blood tile
# (MEDALLION_VALUE for a medallion, 0 when none), occupying figure (-1 none; a figure crossing
# an ally's tile does not replace it), hatch open (jungle), swarm of an Invocation tile (-1 none)
B_TILE, B_BLOOD, B_OCC, B_OPEN, B_SWARM, N_BOARD = range(6)
MEDALLION_VALUE = 100
NOBODY = -1

# figs columns (int64[n_figs, N_FIG]): figures 0..n_players-1 are the plunderers (figure =
# seat); then spawn_max spawns per swarm.  F_POS is a node or OFF; F_OWNER the seat or swarm.
F_POS, F_KIND, F_OWNER, N_FIG = range(4)
PLUNDERER, SPAWN = range(2)
OFF = -1
N_SWARMS = 2   # team mode: one swarm per team; free-for-all uses swarm 0 only

# players columns (int64[n_players, N_PLAYER])
(P_COINS, P_MEDALLIONS, P_STATUS, P_TEAM, P_SWARM, P_HAND_N, P_TURNS, P_START_COINS,
 P_DEATH_ROUND, P_LOST_ARROWS, P_LOST_ACID, P_LOST_FIRE, P_LOST_PISTON, P_LOST_ROLLERS,
 P_LOST_COMBAT, P_LOST_OTHER, P_GAIN_BLOOD, P_GAIN_COMBAT, P_GAIN_OTHER, P_COMBATS_WON,
 P_COMBATS_LOST, P_SPAWN_TURNS, P_EGG_TURNS, P_OBJECTS_PLAYED, P_SPAWNS_INVOKED,
 P_MEDALLIONS_GAINED, N_PLAYER) = range(27)
ALIVE, DEAD, ELIMINATED = range(3)
# blood-loss sources, in the order of the P_LOST_* columns
(SRC_ARROWS, SRC_ACID, SRC_FIRE, SRC_PISTON, SRC_ROLLERS, SRC_COMBAT, SRC_OTHER) = range(7)

# game scalars (int64[N_GAME])
(G_ROUND, G_SEAT, G_EGG_POS, G_EGG_CARRIER, G_EGG_LEFT_ROUND, G_ROLLERS_ON, G_DEATHS, G_BANK,
 G_MEDALLION_BANK, G_TDRAW, G_ODECK_N, G_ODISC_N, G_NEV, G_VERSION, G_WINNER, G_WIN_TEAM,
 G_END, G_ACT_N, G_FIRST_DEATH, G_STEPS_LEFT, G_PLAYS_LEFT, G_POLE, G_CONJURE, G_FIRST_TURN,
 G_DCACHE_NEXT, G_TURN_ENDED, G_TEAM_DIED, G_ADJ_VERSION, G_OPEN_HATCHES, G_DCACHE_LAST,
 G_LAST_FREE, G_SEARCH_DECISIONS, G_OFFSET) = range(33)
G_DKEY = G_OFFSET + MAX_RINGS          # DCACHE_SLOTS (version, target) pairs
DCACHE_SLOTS = 8
N_GAME = G_DKEY + 2 * DCACHE_SLOTS
# G_OPEN_HATCHES counts the open hatches; G_TEAM_DIED is a bit set: bit t when team t (or,
# free-for-all, anyone: bit 0) has lost a plunderer; G_LAST_FREE is the last tile the moving
# figure stood on alone (where it goes back if its move ends on another's tile);
# G_SEARCH_DECISIONS counts the decisions a `search` seat weighed by rollouts

# end reasons (games.end_reason categories)
END_EGG, END_ALL_DEAD, END_ROUND_CAP = range(3)
END_REASONS = ("egg_escaped", "all_dead", "round_cap")

# decks rows (int64[3, max deck]); TEMPLE is drawn in order from G_TDRAW, OBJECTS is a stack of
# G_ODECK_N cards, DISCARD holds G_ODISC_N played object cards
D_TEMPLE, D_OBJECTS, D_DISCARD = range(3)

# object effects (CARDS[:, 0]) and combat values (CARDS[:, 1])
(GREEDY, TUMULT, POLE, GAZE, CONJURE, BLOOD_STONE, HELM, SPARK, SWORD, SALIVA, ECLIPSE) = range(11)
OBJECT_NAMES = ("greedy_fingers", "tumult", "pole", "embedded_gaze", "unpronounceable_conjuring",
                "blood_stone", "helm_of_contact", "stone_of_the_spark", "sword",
                "saliva_of_khaleidas", "deliberate_eclipse")
NOTHING, ATTACK, COUNTER, POWER = range(4)
NO_CARD = -1
COMBAT_NAMES = ("nothing", "attack", "counterattack", "absolute_power")

# temple cards (TCARDS)
(T_ARROWS, T_ACID, T_FIRE, T_ROT_OUTER, T_ROT_MIDDLE, T_ROT_INNER, T_ROT_CENTRAL, T_PISTON,
 T_RAM, T_FLASH, T_OPEN_DAY, T_OPEN_NIGHT, T_CLOSE_ALL) = range(13)
TEMPLE_NAMES = ("arrows", "acid", "fire", "rotate_outer", "rotate_middle", "rotate_inner",
                "rotate_central", "piston", "ram", "flash", "open_day", "open_night", "close_all")

# acts rows (int64[MAX_ACTS, 2]): (figure, node) activated this turn
MAX_ACTS = 64

# decision kinds a policy is asked about
(STEP, SWARM_MODE, SWARM_STEP, TELEPORT, COMBAT_CARD, THROW_DEST, STONE_TARGET, ROTATION,
 EGG_DEST, VICTIM) = range(10)
# option columns and actions: STEP / SWARM_STEP rows (action, a, b)
OPT_ACT, OPT_A, OPT_B, OPT_WIDTH = range(4)
MAX_OPTIONS = 160
(ACT_STOP, ACT_MOVE, ACT_PASS, ACT_TAKE, ACT_THROW, ACT_PLAY, ACT_SACRIFICE, ACT_MEDALLION,
 ACT_INVOKE, ACT_SWARM_MOVE) = range(10)
# ACT_MOVE: a figure, b node; ACT_PASS / ACT_TAKE / ACT_THROW: a receiving figure;
# ACT_PLAY: a hand slot, b 1 if a medallion is paid; ACT_SACRIFICE: a spawn;
# ACT_MEDALLION / ACT_INVOKE: b invocation node. TELEPORT / THROW_DEST / EGG_DEST: b node
# (TELEPORT b = -1: stay). COMBAT_CARD: a hand slot (-1 none), b combat value.
# STONE_TARGET: a seat (-1: gain a coin). ROTATION: a ring, b direction (+1 clockwise / -1).
# VICTIM: a seat to rob (-1: no more).

# trace rows: [event, round, seat, a, b, c, d]
TRACE_WIDTH = 7
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
 P_OUT_ELIMINATED, N_PLAYER_OUT) = range(25)
