"""Tests of prefixlock.tui: the chat app."""
