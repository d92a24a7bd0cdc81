"""`python -m tests.thirdparty.report`: run every third-party client once against a fresh
emulator and print what it did: turns, requests, streamed / continued requests, hit rates and
how many bills differ from the documented rules (the figures of the compatibility suite)."""

from __future__ import annotations

import subprocess
import tempfile

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from tests.thirdparty.billing import bills, emulator_trace, mismatches
from tests.thirdparty.env import thirdparty_python
from tests.thirdparty.test_clients import CLIENTS, CLIENTS_DIR


def main() -> None:
    python = thirdparty_python()
    for name in sorted(CLIENTS):
        with (
            Emulator.start(config=EmulatorConfig(), clock=ManualClock()) as emu,
            tempfile.TemporaryDirectory() as cwd,
        ):
            done = subprocess.run(
                [str(python), str(CLIENTS_DIR / f"{name}.py"), emu.base_url, "sk-fake"],
                capture_output=True,
                text=True,
                cwd=cwd,
                timeout=600,
            )
            trace = emulator_trace(emu)
        hits = " ".join(f"{b.hit_rate:.3f}" for b in bills(trace))
        continued = sum(bool(r["body"].get("previous_response_id")) for r in trace)
        streamed = sum(bool(r["stream"]) for r in trace)
        print(
            f"{name:30} exit {done.returncode}  turns {len(done.stdout.splitlines())}  "
            f"requests {len(trace)}  streamed {streamed}  previous_response_id {continued}  "
            f"mismatches {len(mismatches(trace))}  hit rates {hits}"
        )


if __name__ == "__main__":
    main()
