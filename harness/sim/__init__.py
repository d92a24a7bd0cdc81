"""The KV-prefix simulator: replay request traces through models of a serving cluster's KV cache.

Public surface (import the module you need; this package imports nothing heavy on its own, so
the emulator can use `prefixlock.cache.blocks.BlockCache` cheaply):

- `tracefile`: `read_trace` (Mooncake or prefixlock JSONL); `trace`: `Trace`;
  `synthetic.generate(Workload)`; `agents.generate_agents(AgentWorkload)` (coding-agent sessions
  calibrated on real logs).
- `simulate`: `simulate(trace, SimConfig(...)) -> SimResult` (hit rates, TTFT with per-node
  utilisation, queue growth and an overload warning, GPU-hour and API dollars),
  `smallest_cluster` (--nodes auto), `lru_curve(trace)` (every capacity).
- `capacity`: `max_rate` (highest request rate within a p90 TTFT objective, early rejection,
  optional decode / disaggregation).
- `engine`: the pure array engine (prefix trie, stack ranks, curve; `sweep_curves`: many
  configurations' curves in one array job, on the GPU in one pass); `replay`: FIFO/LRU/LFU/optimal.
- `cluster`: routers (SGLang's cache-aware router, longest-prefix, ttft) and load;
  `routers_jit`: the same routers compiled with numba (used when it imports);
  `models`: architectures, the GPU catalogue and the prefill compute model (fitted constants
  in `models.FIT`); `memory`: a run's memory estimated before it starts.
- `schema`: the versioned shape of `--json` (`SCHEMA`, `envelope`).
- `sweep.run_sweep` (processes or Ray), `matrix.run_matrix` (client style x server design).
- `backend.get_backend('auto'|'numpy'|'cupy')`.

The `prefixlock sim` command is `cli` (the run, step by step), `flags` (its flags) and `report`
(its tables, JSON and plots).
"""
