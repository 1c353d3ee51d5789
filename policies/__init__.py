"""Scripted player policies, one module per game, plus shared helpers (:mod:`policies.common`).

Each game module has ``POLICIES`` (the registry: id, name, one-line description), ``KNOBS``
(the names of the tunable numbers read from ``[policies.NAME]`` in the rules) and an njit
``choose`` that the engine calls at every decision point with the legal options.
"""
