"""Tests of prefixlock.emulator: the local provider emulator."""
