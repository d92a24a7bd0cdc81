"""Tests of prefixlock.proxy: the local proxy that measures and repairs caching."""
