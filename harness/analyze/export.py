"""The workload `analyze` read, as a Mooncake-format trace `prefixlock sim` replays: one line per
request in arrival order (`timestamp` ms, `input_length`, `output_length`, `hash_ids` of 512-token
blocks, `session_id` = session/thread), so server-side questions (capacity, eviction policy,
routing) can be asked of a user's real traffic.

The logs hold counts, not text, so the block ids are rebuilt from them: a request shares with the
previous request of its thread the blocks its cache read covered, and fresh ids follow for the
rest of its input. Where the provider dropped a prefix the request did resend (a TTL expiry, an
unexplained miss), it shares what the previous request left readable: the content was the same,
only the provider's cache had lost it. A thread's first request shares its read with earlier
sessions of the same model (the warm system prompt the logs show across sessions). Pure apart
from writing to the stream it is handed.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO

from .breaks import Row
from .pricing import normalize

BLOCK = 512
RESENT = ("ttl_expiry", "unknown")


def trace_lines(rows: Iterable[Row], block: int = BLOCK) -> Iterable[dict[str, object]]:
    ordered = sorted(
        (w for w in rows if w.req.first_ts is not None), key=lambda w: w.req.first_ts or 0.0
    )
    chains: dict[tuple[str, str, str], list[int]] = {}
    common: dict[str, list[int]] = {}
    next_id = 1
    for w in ordered:
        r = w.req
        key = (r.source, r.session, r.thread)
        model = normalize(r.raw_model)
        shared = max(r.read, w.expected) if w.cause in RESENT else r.read
        base = chains.get(key)
        first = base is None
        if base is None:
            base = common.setdefault(model, [])
        keep = min(shared // block, len(base))
        ids = base[:keep]
        need = max(-(-r.input_total // block), 1)
        while len(ids) < need:
            ids.append(next_id)
            next_id += 1
        if first and len(base) < shared // block:
            base.extend(ids[len(base) : shared // block])
        chains[key] = ids
        yield {
            "timestamp": round((r.first_ts or 0.0) * 1000),
            "input_length": r.input_total,
            "output_length": r.output,
            "hash_ids": ids,
            "session_id": f"{r.session}/{r.thread}",
        }


def write_trace(rows: Iterable[Row], out: IO[str], block: int = BLOCK) -> int:
    """Write the trace; returns the number of requests written (those with a timestamp)."""
    n = 0
    for line in trace_lines(rows, block):
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
        n += 1
    return n
