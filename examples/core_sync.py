"""The same agent loop from a plain script: the sync wrapper, on the local emulator, with an
OpenAI model (a stable per-session prompt_cache_key keeps requests on one cache machine).
Offline, a few seconds, no key needed."""

from __future__ import annotations

from prefixlock import Agent, FrozenPrefix, Settings, tool
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator


@tool
def read_file(path: str) -> str:
    """Read a UTF-8 file from the workspace."""
    return f"# {path}\ndef round_cents(x):\n    return int(x * 100 + 0.5) / 100\n"


SYSTEM = "You are a concise coding assistant. Answer from the files you read.\n" * 80


def main() -> None:
    prefix = FrozenPrefix(system=SYSTEM, tools=[read_file])
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            prefix,
            model="gpt-5",
            base_url=emu.base_url,
            api_key="test-key",
            settings=Settings(max_turns=8, retention="24h"),
        )
        with agent.sync_session() as s:
            for question in ("Why does test_parse fail?", "Fix it", "Thanks"):
                answer = s.ask(question)
                print(f"> {question}\n{answer}\n")
            keys = {r.cache_key for r in s.session.requests}
            print(f"{len(s.session.requests)} requests, prompt_cache_key {keys.pop()} on all")
            print(s.ledger.summary())


if __name__ == "__main__":
    main()
