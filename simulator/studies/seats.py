"""Who sits where in the study's datasets and in the questions' sweeps."""

from __future__ import annotations


def study_seats(game, n_players: int) -> list[str]:
    """Seat policies: the scripted policies in turn (random only when a game has no other)."""
    names = game.scripted_policies or ["random"]
    return [names[i % len(names)] for i in range(n_players)]
