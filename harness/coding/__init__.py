"""The coding-tools runtime that `prefixlock chat` and `prefixlock run` share: the workspace's
tools, the command sandbox, permissions, settings files, instruction files, custom commands and
MCP servers. The SDK core never imports it; `prefixlock.tui` and `prefixlock.cli` do."""
