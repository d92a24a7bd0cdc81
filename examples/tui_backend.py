"""The chat app's backend without the screen: one session on the built-in emulator, its
workspace tools behind an approval callback, and the cache panel's figures after each turn.

Runs offline in a temporary workspace and prints what the panel would show.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from prefixlock.clock import ManualClock
from prefixlock.events import ToolCall, TurnComplete
from prefixlock.tui.backend import BackendOptions, ChatBackend
from prefixlock.tui.state import format_countdown, format_dollars
from prefixlock.workspace import ApprovalRequest, Decision


async def approve(request: ApprovalRequest) -> Decision:
    print(f"  approve? {request.summary} -> yes")
    return True


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        (ws / "src").mkdir(parents=True)
        (ws / "README.md").write_text("# demo\n")
        clock = ManualClock()
        backend = ChatBackend(
            BackendOptions(
                workspace=ws,
                store_path=Path(tmp) / "s.sqlite",
                api_key="",
                clock=clock,
                session_id="example",
            ),
            approve=approve,
        )
        await backend.start()
        try:
            for text in ("hello", "look around", "add a note"):
                print(f"> {text}")
                async for ev in backend.send(text):
                    backend.observe(ev)
                    if isinstance(ev, ToolCall):
                        print(f"  tool: {ev.name} {ev.input}")
                    elif isinstance(ev, TurnComplete):
                        print(f"  answer: {ev.text.splitlines()[0]}")
                v = backend.panel_view()
                print(
                    f"  panel: hit {v.hit_rate:.1%}, read {v.last_read}, written "
                    f"{v.last_written}, {format_countdown(v.warm_seconds)}, main "
                    f"{format_dollars(v.cost_main)}, saved {format_dollars(v.saved)}"
                )
                clock.advance(20)
            assert (ws / "NOTES.md").exists()
            print(backend.cost_text())
        finally:
            await backend.close()


if __name__ == "__main__":
    asyncio.run(main())
