"""The search space of ``tune`` and ``fit`` and the CMA-ES loop over it (the ``cmaes`` package).

Every dimension is searched on [0, 1] (its range scaled), so one step size suits knobs in
dollars and knobs in fractions alike.  Integer dimensions (including binary knobs: integers in
[0, 1]; a dimension may move in steps, e.g. $5,000) use CMA-ES with margin (``cmaes.CMAwM``), which
keeps a discrete variable from getting stuck on one value.  The objective is evaluated one
generation at a time, so a caller plays every candidate of a generation on the same game seeds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Dimension:
    name: str
    low: float
    high: float
    start: float
    integer: bool = False
    step: int = 1  # integers: values are low + k * step

    def __post_init__(self):
        if not self.high > self.low:
            raise ValueError(f"{self.name}: empty range [{self.low}, {self.high}]")

    def to_unit(self, value: float) -> float:
        return (min(max(value, self.low), self.high) - self.low) / (self.high - self.low)

    def from_unit(self, x: float):
        value = self.low + float(np.clip(x, 0.0, 1.0)) * (self.high - self.low)
        if self.integer:
            return int(self.low + round((value - self.low) / self.step) * self.step)
        return value


@dataclass
class Generation:
    candidates: list[dict]  # name -> value, one dict per candidate
    objective: list[float]  # what was minimised, per candidate
    mean: dict  # the search distribution's mean after this generation


def population_size(n_dims: int) -> int:
    """CMA-ES's default population: 4 + floor(3 ln d)."""
    return 4 + int(3 * np.log(max(n_dims, 1)))


class CmaSearch:
    """CMA-ES over ``space``, one generation at a time: :meth:`ask` the candidates, play them,
    :meth:`tell` what was minimised.  Several searches can then play their generations
    together in one batch of games (``balsim adapt`` tunes every policy of every variant at
    once)."""

    def __init__(
        self, space: list[Dimension], seed: int, population: int | None = None, sigma: float = 0.3
    ):
        from cmaes import CMAwM

        self.space = space
        d = len(space)
        bounds = np.array([[0.0, 1.0]] * d)
        steps = np.array([dim.step / (dim.high - dim.low) if dim.integer else 0.0 for dim in space])
        self.start = self.decode(np.array([dim.to_unit(dim.start) for dim in space]))
        self.optimiser = CMAwM(
            mean=np.array([dim.to_unit(dim.start) for dim in space]),
            sigma=sigma,
            bounds=bounds,
            steps=steps,
            seed=seed % (2**31 - 1),
            population_size=population or population_size(d),
        )
        self.history: list[Generation] = []
        self._asked: list = []

    def decode(self, x) -> dict:
        return {dim.name: dim.from_unit(v) for dim, v in zip(self.space, x)}

    def ask(self) -> list[dict]:
        """The next generation's candidates."""
        self._asked = [self.optimiser.ask() for _ in range(self.optimiser.population_size)]
        return [self.decode(encoded) for encoded, _ in self._asked]

    def tell(self, values: list[float]) -> None:
        """What each candidate of the last :meth:`ask` scored (lower is better)."""
        values = [float(v) for v in values]
        self.optimiser.tell([(raw, v) for (_, raw), v in zip(self._asked, values)])
        candidates = [self.decode(encoded) for encoded, _ in self._asked]
        self.history.append(Generation(candidates, values, self.decode(self.optimiser.mean)))

    @property
    def mean(self) -> dict:
        """The search distribution's mean: the estimate least affected by noisy evaluations,
        unlike the best single candidate (the start before any generation)."""
        return self.history[-1].mean if self.history else self.start


def cma_search(
    space: list[Dimension],
    evaluate,
    generations: int,
    seed: int,
    population: int | None = None,
    sigma: float = 0.3,
) -> tuple[dict, list[Generation]]:
    """Minimise ``evaluate(list of candidate dicts) -> list of floats`` over ``space``.

    Returns the final mean of the search distribution and every generation's record."""
    search = CmaSearch(space, seed, population, sigma)
    for _ in range(generations):
        search.tell(evaluate(search.ask()))
    return search.mean, search.history
