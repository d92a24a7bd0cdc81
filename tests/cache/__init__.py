"""Tests of prefixlock.cache: the providers' cache rules."""
