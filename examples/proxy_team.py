"""`prefixlock proxy` for a team: spend per key, user and agent, a daily budget per user, and
the `/metrics` and `/dashboard` pages every instance serves.

Two developers' agents share one key; the team names each developer in an `x-prefixlock-user`
header (the proxy does not forward it). Alice's budget is a few cents a day: past it the proxy
answers 429 in Anthropic's own error shape, which her SDK raises as `RateLimitError`. Runs
offline against the local emulator, no key needed.

From a shell: `prefixlock proxy --fix --budget-user 20 [--store postgresql://...]`, then open
http://127.0.0.1:8787/dashboard.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import anthropic
import httpx2

from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator
from prefixlock.proxy import Proxy, ProxyConfig, parse_fixes
from prefixlock.proxy.team import Budgets

SYSTEM = "You are a careful coding assistant for the invoice service. " * 150


def developer(base_url: str, name: str, turns: int) -> str:
    client = anthropic.Anthropic(
        api_key="team-key", base_url=base_url, default_headers={"x-prefixlock-user": name}
    )
    messages: list[Any] = []
    for turn in range(turns):
        messages.append({"role": "user", "content": f"Task {turn}: review the next file."})
        try:
            reply = client.messages.create(
                model="claude-sonnet-4-6", max_tokens=200, system=SYSTEM, messages=messages
            )
        except anthropic.RateLimitError as exc:
            return f"refused at turn {turn}: {exc.body['error']['message']}"  # type: ignore[index]
        messages.append({"role": "assistant", "content": reply.content})
    return f"{turns} turns answered"


def main() -> None:
    budgets = Budgets(per_user=Decimal("0.01"))
    config = ProxyConfig(fixes=parse_fixes(""))
    with Emulator.start(clock=ManualClock()) as emu:
        config.upstream = emu.base_url
        with Proxy.start(config, clock=emu.clock, budgets=budgets) as px:
            print("alice:", developer(px.base_url, "alice", 12))
            print("bob:  ", developer(px.base_url, "bob", 3))
            px.settle()
            for row in px.team.rows():
                print(
                    f"  {row['user']:<6} {row['agent']:<10} {row['requests']:>3} requests, "
                    f"hit {row['hit_rate']:.1%}, ${Decimal(row['cost']):.4f}"
                )
            metrics = httpx2.get(px.base_url + "/metrics", trust_env=False).text
            print(
                *[line for line in metrics.splitlines() if "cost_dollars_total{" in line], sep="\n"
            )
            page = httpx2.get(px.base_url + "/dashboard", trust_env=False).text
            assert "alice" in page and "bob" in page


if __name__ == "__main__":
    main()
