"""Tests of prefixlock.sim: the KV-prefix cache simulator."""
