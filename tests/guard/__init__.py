"""Tests of prefixlock.guard: the cache guard."""
