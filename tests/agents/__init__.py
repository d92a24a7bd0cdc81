"""Tests of prefixlock.agents: subagent definitions, delegation, fan-out."""
