"""Karmaggän: temple crawl with rotating rings, blood coins and the Alien Egg
(rulebook: shared/rules/karmaggan.md).

``state`` names the array slots, ``board`` holds the ring geometry, ``engine`` the njit
kernels, ``game`` the wrapper and ``GAME``; the policies live in :mod:`policies.karmaggan`.
"""
