"""Tests of prefixlock.cli: the `prefixlock` command line (main, run, demo, bad input)."""
