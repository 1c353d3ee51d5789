"""Karnaxis: the economic life game (rulebook: shared/rules/karnaxis.md).

``state`` names the array slots, ``engine`` holds the njit kernels, ``game`` the wrapper and
``GAME``; the policies live in :mod:`policies.karnaxis`.
"""
