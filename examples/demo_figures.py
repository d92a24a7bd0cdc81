"""The `prefixlock demo` figures from Python: prefixlock vs a naive client, on two servers."""

from __future__ import annotations

from harness.demo import CLIENTS, SERVERS, run_demo


def main() -> None:
    result = run_demo()
    for client in CLIENTS:
        for server in SERVERS:
            run = result.run(client, server)
            print(f"{client:10} {server:11} hit {run.hit_rate:6.1%}  ${run.cost:.4f}")
    print(f"prefixlock is {result.margin:.1f}x cheaper on the cache-aware server")
    if result.switch is not None:
        print("switch warning:", result.switch.summary)


if __name__ == "__main__":
    main()
