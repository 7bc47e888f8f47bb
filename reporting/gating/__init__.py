"""Runs against runs: pairing samples, per-cell deltas, thresholds and the CI gate."""
