#!/usr/bin/env bash
# GPU checks of the KV-prefix simulator: the cupy == numpy parity tests and the GPU sweep benchmark.
#
#   OUT=/some/dir tests/benchmarks/gpu_check.sh
#
# Installs nothing (no network): it uses the Python in $PYTHON, else .venv/bin/python, else python3,
# and needs cupy already importable there for the GPU half. Everything it prints also lands under
# $OUT (default ./gpu-results): environment.txt, parity.txt (+ parity.xml), bench.txt, bench.json,
# summary.txt. Exit code: 0 all GPU checks ran and passed; 1 a check failed; 3 no usable GPU/cupy
# (the numpy half still ran and its figures are written).
# Extra arguments for the benchmark can be passed in GPU_SIM_ARGS (e.g. "--configs 512").
set -u
cd "$(dirname "$0")/../.."
OUT="${OUT:-./gpu-results}"
mkdir -p "$OUT"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

{
  echo "date: $(date -u +%FT%TZ)"
  echo "python: $PY ($("$PY" -c 'import sys; print(sys.version.split()[0])' 2>&1))"
  "$PY" - <<'PYEOF' 2>&1
import numpy
print("numpy", numpy.__version__)
try:
    import cupy
    print("cupy", cupy.__version__)
    n = cupy.cuda.runtime.getDeviceCount()
    for i in range(n):
        p = cupy.cuda.runtime.getDeviceProperties(i)
        print("device", i, p["name"].decode() if isinstance(p["name"], bytes) else p["name"],
              round(p["totalGlobalMem"] / 2**30, 1), "GiB")
except Exception as exc:  # no cupy, no driver, no device
    print("cupy unavailable:", type(exc).__name__, exc)
PYEOF
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt"

have_gpu=$("$PY" -c 'from prefixlock.sim.backend import cupy_available; print(int(cupy_available()))' 2>/dev/null || echo 0)

# Parity: the gpu-marked tests run only where cupy sees a device; the rest always run.
"$PY" -m pytest tests/sim/test_sim_backend.py -q -p no:cacheprovider --junitxml="$OUT/parity.xml" \
  > "$OUT/parity.txt" 2>&1
parity_rc=$?
tail -n 5 "$OUT/parity.txt"

# Benchmark: >= 256 configurations on the GPU, numpy on a subset, curves compared.
# shellcheck disable=SC2086
"$PY" tests/benchmarks/gpu_sim.py --json "$OUT/bench.json" ${GPU_SIM_ARGS:-} > "$OUT/bench.txt" 2>&1
bench_rc=$?
cat "$OUT/bench.txt"

if [ "$parity_rc" -ne 0 ] || { [ "$bench_rc" -ne 0 ] && [ "$bench_rc" -ne 3 ]; }; then
  rc=1
elif [ "$have_gpu" != "1" ] || [ "$bench_rc" -eq 3 ]; then
  rc=3
else
  rc=0
fi
{
  echo "gpu available: $have_gpu"
  echo "parity tests exit code: $parity_rc"
  echo "benchmark exit code: $bench_rc"
  echo "result: $rc (0 passed on GPU, 1 failed, 3 no GPU: numpy only)"
} | tee "$OUT/summary.txt"
exit "$rc"
