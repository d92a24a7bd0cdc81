"""A process that resumes a stored session and runs turns on it (tests/store/test_store_lease.py).

`python -m tests.store.lease_worker STORE SESSION TURNS MODE` (from the repository root):
resumes SESSION (MODE "fork": a busy one is forked instead; "wait": a busy one is waited for,
up to 120 s, saying "waiting" on a line of its own; "hold": after the resume it prints "held"
and waits for a line on stdin before its turns), runs TURNS turns on its own emulator, prints
one JSON line: what it did.
"""

from __future__ import annotations

import asyncio
import json
import sys

from prefixlock.store.database import SessionStore
from prefixlock.store.leases import SessionBusyError
from tests.helpers.guardkit import advance, agent, start_emulator


async def main(store: str, session_id: str, turns: int, mode: str) -> dict[str, object]:
    out: dict[str, object] = {"busy": False}
    with start_emulator() as emu:
        a = agent(emu, store=SessionStore(store))
        try:
            if mode == "wait":  # says "waiting" (a line before the JSON) if it has to
                s = a.resume(session_id, wait=120.0, on_wait=lambda _: print("waiting", flush=True))
            else:
                s = a.resume(session_id)
        except SessionBusyError as exc:
            out["busy"] = True
            out["error"] = str(exc)
            if mode != "fork":
                return out
            s = a.resume(session_id, fork=True)
        async with s:
            if mode == "hold":
                print("held", flush=True)
                sys.stdin.readline()
            for i in range(turns):
                await s.ask(f"{mode} turn {i} from this process")
                advance(emu, 30)
            out["id"] = s.id
            out["messages"] = len(s.transcript)
    return out


if __name__ == "__main__":
    store, sid, n, how = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    print(json.dumps(asyncio.run(main(store, sid, n, how))), flush=True)
