"""Tests of prefixlock.analyze: session-log readers, cache-break checks, reports."""
