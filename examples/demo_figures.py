"""The `prefixlock demo` figures from Python: prefixlock vs a naive client, on two servers.

The first 8 user turns of the built-in session, with the model switch before turn 5, keep this
example to a few seconds; `prefixlock demo` runs all 32 turns.
"""

from __future__ import annotations

from prefixlock.cli.demo import CLIENTS, SERVERS, run_demo
from prefixlock.emulator import BUILTIN_PROMPTS


def main() -> None:
    result = run_demo(prompts=BUILTIN_PROMPTS[:8], switch_at=4)
    for client in CLIENTS:
        for server in SERVERS:
            run = result.run(client, server)
            print(f"{client:10} {server:11} hit {run.hit_rate:6.1%}  ${run.cost:.4f}")
    print(f"prefixlock is {result.margin:.1f}x cheaper on the cache-aware server")
    if result.switch is not None:
        print("switch warning:", result.switch.summary)


if __name__ == "__main__":
    main()
