"""Benchmarks, not collected by default: run under pytest or as scripts (see each)."""
