"""The alternatives of Karmaggän's categorical ASSUMED rules keys, for the sensitivity screen
(``Game.choices``).

* ``board.start_points.N``: the rulebook lets the players choose "one of the eight Starting
  Points"; the rules data holds one layout per player count.  Its alternatives are the other
  *mirrored* layouts: the board's half turn (column c to c + columns / 2) carries the starting
  team's points (seats 0, 2, ..) onto the other team's (seats 1, 3, ..), so neither team's
  side of the board is better, with seat 0 on its printed point (the half turn of a whole
  layout is the same layout seen from the other side).  At most :data:`MAX_LAYOUTS` - 1 are
  named, evenly spaced in sorted order.  Odd counts have none (one team has a player more).
* the rest of ``board``: the drawn layout (tiles, walls, hatches, Rollers and the counts that
  shape them) has no alternative the rules data can name; scaling its positions would break
  the drawing.
* ``game.extra_player``: at an odd count in team mode, the other team gets the player more
  (the last seat joins it) instead of seat 0's; at even counts, or free-for-all, not in play.
"""

from __future__ import annotations

import itertools
import re

from simulator.core.rules import RulesError
from simulator.games.karmaggan import checks

MAX_LAYOUTS = 12  # the printed layout and at most 11 alternatives
LAYOUT = "a part of the board's drawn layout: no alternative the rules data names"
START = "S"
_START_KEY = re.compile(r"board\.start_points\.(\d+)")


def choices(rules: dict, key: str, n_players: int) -> list | None:
    """The alternatives of ``key`` at ``n_players`` (see the module docstring)."""
    if key == "game.extra_player":
        if n_players % 2 == 0 or rules["game"]["mode"] != "team":
            return []
        return [v for v in checks.EXTRA_PLAYER if v != rules["game"]["extra_player"]]
    found = _START_KEY.fullmatch(key)
    if found is None:
        if key.startswith("board."):
            raise RulesError(key, LAYOUT)
        return None
    if int(found.group(1)) != n_players:
        return []
    if n_players % 2:
        raise RulesError(key, "an odd count has no mirrored layout (one team has a player more)")
    printed = rules["board"]["start_points"][str(n_players)]
    layouts = [layout for layout in mirrored_layouts(rules["board"], printed) if layout != printed]
    if not layouts:
        raise RulesError(key, f"no other mirrored layout keeps seat 0 on point {printed[0]}")
    keep = MAX_LAYOUTS - 1
    if len(layouts) > keep:
        layouts = [layouts[i * len(layouts) // keep] for i in range(keep)]
    return layouts


def half_turn(board: dict) -> list[int]:
    """Where the board's half turn takes each starting point (points numbered row by row, as
    the engine numbers them); RulesError when a point's image is not a starting point."""
    columns = board["columns"]
    points = [
        (row, col)
        for row, line in enumerate(board["tiles"])
        for col, ch in enumerate(line)
        if ch == START
    ]
    number = {cell: i for i, cell in enumerate(points)}
    image = [number.get((row, (col + columns // 2) % columns)) for row, col in points]
    if None in image:
        raise RulesError("board.tiles", "the starting points are not symmetric under a half turn")
    return image


def mirrored_layouts(board: dict, printed: list[int]) -> list[list[int]]:
    """Every layout of ``len(printed)`` seats with seat 0 on ``printed[0]`` whose half turn
    carries the starting team's points onto the other team's, in sorted order."""
    turn, n = half_turn(board), len(printed)
    first, others = printed[0], [p for p in range(len(turn)) if p != printed[0]]
    out = []
    for team in itertools.combinations(others, n // 2 - 1):
        mine = (first, *team)
        theirs = [turn[p] for p in mine]
        if set(mine) & set(theirs):
            continue
        for rest in itertools.permutations(team):
            for opponents in itertools.permutations(theirs):
                layout = [0] * n
                layout[0::2] = [first, *rest]
                layout[1::2] = opponents
                out.append(layout)
    return sorted(out)
