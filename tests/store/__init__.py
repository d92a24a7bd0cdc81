"""Tests of prefixlock.store: the session store."""
