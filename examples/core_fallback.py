"""Model fallback: the provider fails (529 overloaded, after the retries), and the session moves
to the next model of the agent's chain. It is a model switch, so the guard prices it (the quote
in the ModelFallback event) and names the cache it re-bills. Offline, on the emulator."""

from __future__ import annotations

from prefixlock import Agent, CacheBreak, FrozenPrefix, ModelFallback, Settings
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

SYSTEM = "You answer questions about the shop's invoices.\n" * 150


def main() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            FrozenPrefix(system=SYSTEM),
            model="claude-sonnet-4-6",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
            settings=Settings(retries=1),
            fallback=["claude-haiku-4-5", "gpt-5"],
        )
        with agent.sync_session() as s:
            s.ask("How many invoices are open?")
            emu.inject("529", count=2)  # the next request and its retry are overloaded
            for event in s.send("And how many are overdue?"):
                if isinstance(event, ModelFallback):
                    q = event.quote
                    print(f"fell back {event.failed_model} -> {event.model}: {event.error}")
                    print(
                        f"  priced as a switch: {q.tokens_rebilled} tokens re-billed, ${q.dollars}"
                    )
                elif isinstance(event, CacheBreak):
                    print(f"  cache break: {event.cause}, {event.tokens_rebilled} tokens")
            print(f"now on {s.session.model}: {s.last_text[:60]}")


if __name__ == "__main__":
    main()
