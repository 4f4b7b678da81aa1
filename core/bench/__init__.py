"""Benchmarks: long-sequence cost of every fast path, and the Cost tab's data."""
