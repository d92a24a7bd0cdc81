"""Tests of prefixlock.policies: the cache linter (corpus/ is data it reads, not a package)."""
