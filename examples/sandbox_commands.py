"""Commands run confined: bubblewrap where it works, a one-line refusal where it does not, and
the unconfined mode only when chosen. Keys in this process never reach the command, and a fork
bomb is stopped at the process cap.

Runs offline in a temporary directory.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from prefixlock.coding.sandbox import Sandbox, SandboxError, SandboxOptions


async def main() -> None:
    # This process's environment with a key in it (as a user's shell has).
    environ = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-example-not-for-commands"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sandbox = Sandbox(root, SandboxOptions(network=False), environ=environ)
        try:
            sandbox.check()
        except SandboxError as exc:
            print(f"refused: {exc}")
            sandbox = Sandbox(root, SandboxOptions(mode="off"), environ=environ)  # opted out
        print(sandbox.describe())
        out = await sandbox.run(
            "echo key=${ANTHROPIC_API_KEY:-unset}; seq 3000; echo made > made.txt",
            timeout=30,
            limit=120,  # bytes kept: the head and the tail of the output
        )
        print(out.output)
        print(f"exit {out.exit_code}, {out.total_bytes:,} bytes, {out.cut_bytes:,} cut")
        print("written in the workspace:", (root / "made.txt").read_text().strip())
        # A fork bomb meets the process cap (32 here) and is stopped at once, not at its
        # timeout; where nothing can cap the count, it is not run at all.
        capped = Sandbox(root, SandboxOptions(mode=sandbox.options.mode, max_processes=32),
                         environ=environ)  # fmt: skip
        why = capped.cap_problem()
        if why:
            print(f"no process cap here: {why}")
        else:
            out = await capped.run("bash -c ':(){ :|:& };:'; sleep 60", timeout=30, limit=200)
            print(f"fork bomb stopped: {out.killed_for}")


if __name__ == "__main__":
    asyncio.run(main())
