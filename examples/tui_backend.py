"""The chat app's backend without the screen: one session on the built-in emulator, its
workspace tools behind the SDK's deferred approvals (the turn stops on a write; the caller
sees its diff, decides, and resumes), and the cache panel's figures after each turn.

Runs offline in a temporary workspace and prints what the panel would show.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from prefixlock.clock import ManualClock
from prefixlock.events import ApprovalRequired, ToolCall, TurnComplete
from prefixlock.tui.approval_flow import preview
from prefixlock.tui.backend import BackendOptions, ChatBackend
from prefixlock.tui.state import format_countdown, format_dollars


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
        )
        await backend.start()
        try:
            for text in ("hello", "look around", "add a note"):
                print(f"> {text}")
                events = backend.send(text)
                while True:
                    async for ev in events:
                        backend.observe(ev)
                        if isinstance(ev, ToolCall):
                            print(f"  tool: {ev.name} {ev.input}")
                        elif isinstance(ev, ApprovalRequired):
                            print(f"  waiting for approval: {[c.name for c in ev.calls]}")
                        elif isinstance(ev, TurnComplete) and ev.text:
                            print(f"  answer: {ev.text.splitlines()[0]}")
                    calls = backend.pending_approvals()
                    if not calls:
                        break
                    for call in calls:
                        request = await preview(backend.workspace, call)  # its diff
                        shown = request if isinstance(request, str) else request.summary
                        print(f"  approve? {shown} -> yes")
                        backend.decide(call, "once")
                    events = backend.resume_turn()
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
