"""Karmaggän: temple crawl with rotating rings, blood coins and the Alien Egg
(rulebook: shared/rules/karmaggan.md).

``state`` names the array slots, ``board`` holds the ring geometry, ``engine`` plays a game
with the njit rule kernels of one module per rulebook section (listed in its docstring),
``game`` is the wrapper and ``GAME``; the policies live in :mod:`policies.karmaggan`.
"""
