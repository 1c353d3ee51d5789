"""balsim: balance-analysis Monte Carlo simulator for Karnaxis, Karmaggän and Ekonos."""

__version__ = "0.1.0"
