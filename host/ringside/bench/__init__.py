"""Benchmarks: `ringside bench ...` commands that print JSON."""
