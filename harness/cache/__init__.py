"""What each provider's prompt cache sees and does, defined once.

`units` cuts a request body into the pieces a provider's cache hashes (Anthropic blocks and
breakpoints, OpenAI items and explicit breakpoints); `blocks` is the capacity-bounded store of
chained block hashes that the emulator's caches and the simulator share. The guard's
predictions, the emulator's bills, the ledger's ceiling and the linter's trace checks all read
these modules, so a prediction and a bill cannot disagree by construction. Pure: no I/O.
"""
