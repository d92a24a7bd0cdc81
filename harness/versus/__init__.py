"""prefixlock against the best-configured peer clients, on sessions with real sessions' events.

`scenario` (pure data: the sessions and the rates of their events, sources in README.md),
`run` (drives a scenario through prefixlock and through peer processes on one emulator each),
`peers` (the peer clients, each a script run in its own venv), `report` (the per-event table).
"""
