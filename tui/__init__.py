"""prefixlock's Textual coding assistant: a chat that shows what every turn does to the prompt
cache. `prefixlock chat` opens it (tui.cli); the app (tui.app) renders what tui.backend's
session yields, with the cache panel's figures from tui.state. See tui/README.md."""
