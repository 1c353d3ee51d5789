"""One package per game; each exposes ``GAME`` (see :mod:`simulator.core.game`)."""
