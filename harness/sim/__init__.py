"""The KV-prefix simulator: replay request traces through models of a serving cluster's KV cache.

Public surface (import the module you need; this package imports nothing heavy on its own, so
the emulator can use `prefixlock.cache.blocks.BlockCache` cheaply):

- `trace`: `read_trace` (Mooncake or prefixlock JSONL), `Trace`; `synthetic.generate(Workload)`.
- `simulate`: `simulate(trace, SimConfig(...)) -> SimResult`, `lru_curve(trace)` (every capacity).
- `engine`: the pure array engine (prefix trie, stack ranks, curve); `replay`: FIFO/LRU/LFU/optimal.
- `cluster`: routers and load balance; `models`: KV bytes per token and the prefill cost model.
- `sweep.run_sweep` (processes or Ray), `matrix.run_matrix` (client style x server design).
- `backend.get_backend('auto'|'numpy'|'cupy')`; `cache.BlockCache` (the emulator's prompt cache).
"""
