"""prefixlock's Textual coding assistant: a chat that shows what every turn does to the prompt
cache. `prefixlock chat` opens it (prefixlock.tui.cli); the app (prefixlock.tui.app) renders what
prefixlock.tui.backend's session yields, with the cache panel's figures from prefixlock.tui.state.
See tui/README.md."""
