"""Pig: a two-player dice race with known answers, the template of a game (rulebook:
docs/games/pig.md)."""
