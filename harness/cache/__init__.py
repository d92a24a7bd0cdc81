"""Each provider's prompt-cache rules, defined once.

`units` cuts a request body into what a cache hashes; `anthropic`, `openai` and `deepseek` say
what each provider's cache reads and writes over those units; `rules` picks which apply;
`prefix` finds how far two requests agree; `ceiling` is what a request leaves readable;
`defaults` reads a model's TTL and minimum from its price entry (with the figures of a model
that has none); `blocks` is the capacity-bounded store the emulator, the simulator and the guard
keep entries in. The
guard's predictions, the emulator's bills, the ledger's ceiling and the linter's trace checks all
call these, so a prediction and a bill cannot disagree by construction. Pure: no I/O.
"""
