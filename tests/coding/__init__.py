"""Tests of prefixlock.coding: workspace tools, sandbox, permissions, settings, MCP."""
