"""Experiments on common seeds: candidates (``lab``), keys, metrics, tune, fit, sensitivity,
strength."""
