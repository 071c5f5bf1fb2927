"""Benchmarks: `make bench` runs them and writes JSON reports to bench/results/."""
