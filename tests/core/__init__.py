"""Tests of the SDK core: the agent loop, sessions, builders, exports."""
