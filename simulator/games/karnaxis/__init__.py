"""Karnaxis: the economic life game (rulebook: shared/rules/karnaxis.md).

``state`` names the array slots; the njit kernels are split by rulebook stage (``money``,
``new_year``, ``actions``, ``business``, ``year_end``) and ``engine`` plays a whole game;
``game`` is the wrapper and ``GAME`` (with ``checks``, ``outputs`` and ``replay``); the policies
live in :mod:`policies.karnaxis`.
"""
