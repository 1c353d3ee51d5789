"""Karmaggän replays: the trace of one game as a readable play-by-play."""

import numpy as np

from simulator.games.karmaggan import state as S

DAMAGE = {
    S.SRC_ARROWS: "arrows",
    S.SRC_ACID: "acid",
    S.SRC_FIRE: "fire",
    S.SRC_PISTON: "the Piston",
    S.SRC_ROLLERS: "a Roller",
    S.SRC_COMBAT: "combat",
    S.SRC_OTHER: "a Blood Stone",
}


def play_by_play(trace: np.ndarray, cfg: np.ndarray, rules: dict) -> list[str]:
    """The trace rows of one game (int64[k, TRACE_WIDTH]) as a readable play-by-play; ``cfg``
    is the game's prepared rules array (``prepare``), ``rules`` the rules as read."""
    rings = rules["board"]["rings"]
    centre = int(cfg[S.CFG_CENTRE])
    cols = int(cfg[S.CFG_COLS])
    n_players = int(cfg[S.CFG_PLAYERS])

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
        if act == S.ACT_MOVE:
            return f"step to {where(b)}"
        if act == S.ACT_PLAY:
            return f"play {S.OBJECT_NAMES[a]}" + (" paying a Golden Medallion" if b else "")
        if act in (S.ACT_PASS, S.ACT_TAKE, S.ACT_THROW):
            verb = {
                S.ACT_PASS: "pass the Egg to",
                S.ACT_TAKE: "take the Egg from",
                S.ACT_THROW: "throw the Egg to",
            }[act]
            return f"{verb} {fig(a)}"
        return "stop"

    lines = []
    for event, rnd, seat, a, b, c, d in trace.tolist():
        head = f"round {rnd + 1} seat {seat}"
        if event == S.EV_TURN:
            lines.append(
                f"== round {rnd + 1}, seat {seat}'s turn"
                + (" (controls the swarm)" if a else f" ({b} coins)")
            )
        elif event == S.EV_ROLL:
            what = (
                "swarm rolls"
                if b < 0
                else ("rolls one die (carries the Egg)" if b else "rolls two dice")
            )
            lines.append(f"{head}: {what}: may step {a} tiles")
        elif event == S.EV_MOVE:
            who = f"spawn {d - n_players} " if d else ""
            lines.append(f"{head}: {who}steps {where(a)} -> {where(b)} ({c} steps left)")
        elif event == S.EV_BLOOD:
            gain = "a Golden Medallion" if b == S.MEDALLION_VALUE else f"{b} coins"
            lines.append(f"{head}: consumes the Blood tile at {where(a)}: {gain} (coins {c}->{d})")
        elif event == S.EV_OBJECT_DRAW:
            lines.append(f"{head}: draws an Object card at {where(a)} ({b} in hand)")
        elif event == S.EV_TEMPLE:
            lines.append(f"{head}: Temple card: {S.TEMPLE_NAMES[a]}")
        elif event == S.EV_DAMAGE:
            lines.append(f"{head}: loses {b} to {DAMAGE[a]} (coins {c}->{d})")
        elif event == S.EV_ROTATE:
            lines.append(f"{head}: the {rings[a]} ring turns {b:+d} sectors (offset {c})")
        elif event == S.EV_PASSAGE:
            lines.append(f"{head}: Passage from {where(a)} to {where(b)}")
        elif event == S.EV_FLASH:
            lines.append(f"{head}: Iris Flash from {where(a)} to {where(b)}")
        elif event == S.EV_PLAY:
            paid = " paying a Golden Medallion" if b else ""
            lines.append(f"{head}: plays {S.OBJECT_NAMES[a]}{paid}")
        elif event == S.EV_COMBAT:
            lines.append(f"{head}: combat: {fig(a)} attacks {fig(b)} on {where(c)}")
        elif event == S.EV_COMBAT_ROUND:
            names = ("no card",) + S.COMBAT_NAMES
            result = {1: "attacker wins", -1: "defender wins", 0: "tie"}[c]
            lines.append(f"{head}:   round {d + 1}: {names[a + 1]} vs {names[b + 1]}: {result}")
        elif event == S.EV_THROWN:
            lines.append(f"{head}: {fig(a)} is thrown from {where(b)} to {where(c)}")
        elif event == S.EV_DEATH:
            lines.append(f"{head}: dies at {where(a)} and joins the swarm")
        elif event == S.EV_EGG:
            how = (
                "picks up the Egg",
                "passes the Egg to seat {}",
                "throws the Egg to seat {}",
                "wins the Egg from seat {}",
                "drops the Egg",
                "flings the Egg to {}",
            )[b]
            if b in (S.EGG_PASS, S.EGG_THROW):
                lines.append(f"{head}: {how.format(a)}")
            elif b == S.EGG_WON:
                lines.append(f"round {rnd + 1} seat {a}: {how.format(seat)}")
            elif b == S.EGG_FLUNG:
                lines.append(f"{head}: {how.format(where(a))}")
            else:
                lines.append(f"{head}: {how} at {where(a)}")
        elif event == S.EV_SPAWN:
            lines.append(
                f"{head}: "
                + (f"invokes a spawn on {where(a)}" if b > 0 else f"a spawn dies on {where(a)}")
            )
        elif event == S.EV_SACRIFICE:
            lines.append(f"{head}: sacrifices a spawn on {where(a)}")
        elif event == S.EV_HATCH:
            kind = (
                "every hatch"
                if a < 0
                else ("the Day hatches" if a == S.DAY else "the Night hatches")
            )
            lines.append(f"{head}: {kind} {'open' if b else 'close'}")
        elif event == S.EV_EXIT:
            lines.append(f"{head}: leaves the Temple into {where(a)}")
        elif event == S.EV_ELIMINATED:
            lines.append(f"{head}: loses in the jungle and is eliminated")
        elif event == S.EV_STONE:
            what = "gains a coin" if a < 0 else f"gives a coin to seat {a}"
            lines.append(f"{head}: Blood Stone: {what} (coins {b}->{c})")
        elif event == S.EV_WIN:
            lines.append(f"{head}: begins its turn in the jungle with the Egg and wins (team {a})")
        elif event == S.EV_SEARCH:
            lines.append(f"{head}: search weighs {b} of {a} step options over {c} rollouts:")
        elif event == S.EV_SEARCH_OPTION:
            lines.append(
                f"{head}:   {step_option(a, b // 1000, b % 1000)}: mean value "
                f"{c / 1e6:.3f} over {d} rollouts"
            )
        elif event == S.EV_END:
            lines.append(
                f"game over after {b} rounds: {S.END_REASONS[a]}"
                + (f", winner seat {seat}" if seat >= 0 else "")
            )
    return lines
