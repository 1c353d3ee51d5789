"""Ekonos: share trading and market growth on a board (rulebook: shared/rules/ekonos.md).

``state`` names the array slots, ``engine`` holds the njit kernels, ``game`` the wrapper and
``GAME``; the policies live in :mod:`policies.ekonos`.
"""
