"""The sync session at parity with the async one: quote a model switch, see it refused without
its quote, apply it, and read the warning and the typed quote back. Offline, on the emulator."""

from __future__ import annotations

from prefixlock import Agent, FrozenPrefix, QuoteRequired, SwitchWarning
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

SYSTEM = "You review invoices for rounding errors and answer briefly.\n" * 120


def main() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            FrozenPrefix(system=SYSTEM),
            model="claude-sonnet-4-6",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
        )
        with agent.sync_session() as s:
            s.ask("Check invoice 7")
            quote = s.quote_switch("claude-haiku-4-5", next_message="Check invoice 8")
            print(quote.summary())
            try:
                s.switch_model("claude-haiku-4-5")
            except QuoteRequired as exc:
                print(f"refused: {exc}")
            s.switch_model("claude-haiku-4-5", quote=quote)
            for event in s.send("Check invoice 8"):
                if isinstance(event, SwitchWarning):
                    q = event.quote  # a Quote, typed
                    print(
                        f"switched {q.old_model} -> {q.new_model}: {q.tokens_rebilled} tokens "
                        f"re-billed, ${q.dollars}"
                    )
            print(s.ledger.summary())


if __name__ == "__main__":
    main()
