#!/usr/bin/env bash
# GPU checks of the KV-prefix simulator: cupy == numpy parity tests and the GPU sweep benchmark.
#
#   OUT=/some/dir tests/benchmarks/gpu_check.sh
#
# Installs nothing from the network. What it needs where it runs:
# - a Python with numpy and pytest: $PYTHON, else .venv/bin/python, else python3 (on the lent
#   H200 machine python3 is /opt/torch/.venv/bin/python3, which has numpy, pytest and
#   cupy-cuda13x 14.x preinstalled: nothing has to travel but this repo);
# - cupy importable there, for the GPU half. Where it is not and the repo root holds a folder
#   .whl/ of wheels (cupy-cuda12x or cupy-cuda13x and fastrlock, downloaded beside the repo with
#   `pip download --no-deps --only-binary=:all: --python-version 3.12 --platform
#   manylinux2014_x86_64 -d .whl NAME==VERSION` and carried with the run), they are installed
#   with --no-index into a temporary folder first;
# - prefixlock importable: if it is not installed in that Python, a temporary folder that links
#   `prefixlock` to harness/ goes on PYTHONPATH (the simulator needs nothing but numpy).
# Everything it prints also lands under $OUT (default ./gpu-results): environment.txt,
# parity.txt (+ parity.xml), gpu-tests.txt, bench.txt, bench.json, summary.txt.
# Exit code: 0 every GPU check ran and passed; 1 a check failed; 3 no usable GPU or cupy (the
# numpy half and the CPU stand-in of the cupy pipeline still ran, and passed).
# Arguments for the benchmark go in GPU_SIM_ARGS (default "--configs 1024 --curve-requests
# 10000000 --batch-refs 100000000 --profile"; e.g. "--configs 512"). A batch of 100M references
# takes about 25 GB of device memory. summary.txt ends with the figures the targets are about:
# the sweep's references per second and its ratio to one numpy core in the same run, the CLI LRU
# curve's ratio on 10M requests, and the sweep's time by pipeline stage.
set -u
cd "$(dirname "$0")/../.."
OUT="${OUT:-./gpu-results}"
mkdir -p "$OUT"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

if ! "$PY" -c 'import numpy, pytest' 2>/dev/null; then
  echo "gpu_check: $PY lacks numpy or pytest; set PYTHON to a Python that has both" \
    | tee "$OUT/summary.txt"
  exit 1
fi
if ! "$PY" -c 'import cupy' 2>/dev/null && compgen -G ".whl/*.whl" >/dev/null; then
  echo "cupy not importable: installing the carried wheels in .whl/ (no index)"
  "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$TMP/site" .whl/*.whl \
    && export PYTHONPATH="$TMP/site:$PYTHONPATH"
fi
if ! "$PY" -c 'import prefixlock.sim' 2>/dev/null; then
  mkdir -p "$TMP/pkg" && ln -s "$PWD/harness" "$TMP/pkg/prefixlock"
  export PYTHONPATH="$TMP/pkg:$PYTHONPATH"
fi

{
  echo "date: $(date -u +%FT%TZ)"
  echo "python: $PY ($("$PY" -c 'import sys; print(sys.version.split()[0])' 2>&1))"
  "$PY" - <<'PYEOF' 2>&1
import numpy
import prefixlock.sim.engine as engine
print("numpy", numpy.__version__, "; prefixlock from", engine.__file__)
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
if [ "$have_gpu" != "1" ]; then
  echo "no GPU: cupy is not importable or sees no CUDA device (see environment.txt);"
  echo "the GPU tests and the cupy benchmark are skipped, the CPU stand-in and numpy still run"
fi

# Parity: the cupy path run on numpy standing in for cupy (always), and the real cupy tests
# (marked gpu; they skip without a GPU).
"$PY" -m pytest tests/sim/test_sim_backend.py tests/sim/test_sim_strict_backend.py -q \
  -p no:cacheprovider -rs --junitxml="$OUT/parity.xml" > "$OUT/parity.txt" 2>&1
parity_rc=$?
tail -n 8 "$OUT/parity.txt"
gpu_rc=0
if [ "$have_gpu" = "1" ]; then
  # With a GPU the gpu-marked tests must all run: a skip there is a failure.
  "$PY" -m pytest tests/sim/test_sim_backend.py -m gpu -q -p no:cacheprovider -rs \
    > "$OUT/gpu-tests.txt" 2>&1
  gpu_rc=$?
  if grep -q "skipped" "$OUT/gpu-tests.txt"; then gpu_rc=1; fi
  tail -n 5 "$OUT/gpu-tests.txt"
fi

# Benchmark: 1,024 configurations on the GPU (references/s and the ratio to one numpy core),
# numpy on a subset, curves compared; then the CLI's LRU curve on 10M generated requests, numpy
# against the GPU. GPU_SIM_ARGS replaces these arguments.
# shellcheck disable=SC2086
"$PY" tests/benchmarks/gpu_sim.py --json "$OUT/bench.json" \
  ${GPU_SIM_ARGS:---configs 1024 --curve-requests 10000000 --batch-refs 100000000 --profile} \
  > "$OUT/bench.txt" 2>&1
bench_rc=$?
cat "$OUT/bench.txt"

if [ "$parity_rc" -ne 0 ] || [ "$gpu_rc" -ne 0 ] || { [ "$bench_rc" -ne 0 ] && [ "$bench_rc" -ne 3 ]; }; then
  rc=1
elif [ "$have_gpu" != "1" ] || [ "$bench_rc" -eq 3 ]; then
  rc=3
else
  rc=0
fi
{
  echo "gpu available: $have_gpu"
  echo "parity tests exit code: $parity_rc"
  echo "gpu tests exit code: $gpu_rc$([ "$have_gpu" = "1" ] || echo ' (not run: no GPU)')"
  echo "benchmark exit code: $bench_rc"
  "$PY" - "$OUT/bench.json" <<'PYEOF' 2>&1
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    print("benchmark figures: none (", exc, ")")
    sys.exit(0)
n = r.get("numpy", {})
print(f"numpy, one core: {n.get('refs_per_s', 0):,.0f} references/s ({n.get('configs')} configurations)")
g = r.get("cupy")
if isinstance(g, dict):
    kind = "stand-in" if r.get("stand_in") else "GPU"
    print(f"{kind} sweep: {g['refs_per_s']:,.0f} references/s over {g['configs']} configurations, "
          f"{g['speedup_vs_numpy']:.1f}x one numpy core in the same run; parity "
          f"{'identical' if g['parity_with_numpy'] else 'DIFFERENT'}")
else:
    print("GPU sweep: not run (", g, ")")
c = r.get("cli_curve")
if c:
    print(f"CLI LRU curve, {c['requests']:,} requests: numpy {c['numpy_s']:.2f} s, "
          f"device {c['device_s']:.2f} s = {c['speedup_vs_numpy']:.1f}x numpy; "
          f"{'identical' if c['identical'] else 'DIFFERENT'}")
for name, met in (r.get("targets") or {}).items():
    print(f"target {name}: {'met' if met else 'NOT met'}")
p = r.get("profile")
if p:
    print(f"sweep by stage (total {p['total']:.3f} s):")
    for k, v in p.items():
        if k != "total":
            print(f"  {k:<40} {v:8.3f} s")
PYEOF
  echo "result: $rc (0 passed on GPU, 1 failed, 3 no GPU: numpy only)"
} | tee "$OUT/summary.txt"
exit "$rc"
