"""Tests of prefixlock.versus: prefixlock against the best-configured peer clients."""
