"""prefixlock's own JSONL traces (the session store's export) as simulator traces.

One request a line: session_id, seq, time (epoch s), provider, api, model, path, body (the exact
wire body), usage, cache_key. Each body is tokenized the way the emulator and the guard see it
(prefixlock.cache.units: Anthropic tools -> system -> settings -> messages; OpenAI's unit order),
with the offline tokenizer, then cut into blocks of `block_size` tokens whose ids are chained
hashes seeded by the model (the cache is per model): the same chain a serving engine builds.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..cache.units import (
    anthropic_message_settings,
    as_blocks,
    message_unit_data,
    openai_tokens,
    without_cache_control,
)
from ..canonical import canonical_bytes
from ..tokenizer import tokenize
from .trace import Trace, TraceError, bad_line, from_requests
from .tracefile import _records


def anthropic_token_ids(body: Mapping[str, Any]) -> list[int]:
    """Token ids of an Anthropic body in hashing order (the cut of cache.units.anthropic_units)."""
    out: list[int] = []
    for t in body.get("tools") or []:
        out.extend(tokenize(canonical_bytes(without_cache_control(t)).decode("utf-8")))
    system = body.get("system")
    for block in as_blocks(system) if system is not None else []:
        out.extend(tokenize(canonical_bytes(without_cache_control(block)).decode("utf-8")))
    settings = anthropic_message_settings(body)
    if settings != b"{}":
        out.extend(tokenize(settings.decode("utf-8")))
    for msg in body.get("messages") or []:
        role = str(msg.get("role", "")) if isinstance(msg, Mapping) else ""
        for block in as_blocks(msg.get("content") if isinstance(msg, Mapping) else None):
            data = message_unit_data(role, canonical_bytes(without_cache_control(block)))
            out.extend(tokenize(data.decode("utf-8")))
    return out


def chained_blocks(tokens: list[int], block_size: int, seed: str) -> list[int]:
    """63-bit chained block ids: block k hashes block k-1's id and its own token ids."""
    ids: list[int] = []
    parent = hashlib.blake2b(seed.encode("utf-8"), digest_size=8).digest()
    arr = np.asarray(tokens, dtype=np.uint32)
    for k in range(0, max(len(tokens), 1), block_size):
        h = hashlib.blake2b(parent + arr[k : k + block_size].tobytes(), digest_size=8).digest()
        ids.append(int.from_bytes(h, "little") >> 1)
        parent = h
    return ids


def read_prefixlock(
    path: str | os.PathLike[str], *, block_size: int = 64, skip_bad: bool = False, limit: int = 0
) -> Trace:
    """Read a prefixlock JSONL trace; see the module docstring."""
    where = str(path)
    rows: list[tuple[float, list[int], int, int, int, int, int]] = []
    tokens: list[list[int]] = []
    sessions: dict[str, int] = {}
    keys: dict[str, int] = {}
    models: dict[str, int] = {}
    cache_keys: list[int] = []
    skipped = 0
    t0: float | None = None
    # One line at a time: a line holds a whole request body, so batches would hold many.
    for lineno, rec, error in _records(path, batch=1):
        try:
            if error is not None:
                raise ValueError(error)  # invalid JSON
            if not isinstance(rec, dict):
                raise ValueError("expected a JSON object")
            body = rec.get("body")
            if not isinstance(body, dict):
                raise ValueError("'body' must be the request's JSON object")
            model = rec.get("model") or body.get("model")
            if not isinstance(model, str) or not model:
                raise ValueError("missing 'model'")
            t = rec.get("time")
            if isinstance(t, bool) or not isinstance(t, (int, float)):
                raise ValueError("'time' must be a number (epoch seconds)")
            api = str(rec.get("api", "anthropic"))
            toks = anthropic_token_ids(body) if api == "anthropic" else openai_tokens(body)
            if not toks:
                raise ValueError("the body has no prompt tokens")
            usage = rec.get("usage") or {}
            out = int(usage.get("output", 0)) if isinstance(usage, dict) else 0
        except (ValueError, TypeError, AttributeError) as exc:
            if skip_bad:
                skipped += 1
                continue
            raise bad_line(exc, where, lineno) from None
        t0 = float(t) if t0 is None else t0
        sid = sessions.setdefault(str(rec.get("session_id", "")), len(sessions))
        mid = models.setdefault(model, len(models))
        ck = rec.get("cache_key") or body.get("prompt_cache_key")
        cache_keys.append(keys.setdefault(str(ck), len(keys)) if ck else -1)
        ids = chained_blocks(toks, block_size, model)
        per_block = [min(block_size, len(toks) - k) for k in range(0, len(toks), block_size)]
        rows.append((float(t) - t0, ids, len(toks), out, sid, 0, mid))
        tokens.append(per_block)
        if limit and len(rows) >= limit:
            break
    if not rows:
        raise TraceError("the trace has no requests", where=where)
    trace = from_requests(
        rows,
        block_size=block_size,
        models=tuple(models),
        name=os.path.basename(where),
        tokens=tokens,
    )
    from dataclasses import replace

    # Cache keys are numbered after sessions so the two never collide in affinity routing.
    ck_arr = np.array(cache_keys, np.int64)
    ck_arr = np.where(ck_arr >= 0, ck_arr + len(sessions), -1)
    return replace(trace, cache_key=ck_arr, skipped=skipped)
