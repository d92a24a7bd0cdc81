"""What a trace of third-party requests should have been billed, by the providers' documented
rules, and where the emulator's bill differs.

A trace is JSONL, one request a line: `api`, `path`, `status`, `time` (the emulator clock),
`key_id` (one-way), `stream`, `body` exactly as the client sent it, `usage` exactly as reported,
for a Responses continuation `context`, the stored items the provider prepends (the earlier
inputs and outputs), and for a reply that compacted server-side its `compaction` item. Each
key's requests are replayed, in order, through a `CacheGuard` of their own: the guard applies
prefixlock.cache's rules to the bytes of each body and predicts read / written / uncached
tokens; `mismatches` lists every request whose reported usage differs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage, parse_usage
from prefixlock.guard import CacheGuard
from prefixlock.proxy.observe import wire_request

if TYPE_CHECKING:
    from prefixlock.emulator import Emulator

BILLED_APIS = ("anthropic", "openai-chat", "openai-responses")


def emulator_trace(emulator: Emulator) -> list[dict[str, Any]]:
    """The emulator's requests as trace lines; a Responses continuation carries the stored items
    its `previous_response_id` names (read back from the emulator's store of responses)."""
    out = []
    for rec in emulator.requests:
        line: dict[str, Any] = {
            "api": rec.api,
            "path": rec.path,
            "status": rec.status,
            "time": rec.time,
            "key_id": rec.key_id,
            "body": rec.body,
            "usage": rec.usage,
            "error": rec.error,
            "stream": rec.stream,
        }
        if rec.compaction is not None:
            line["compaction"] = rec.compaction
        prev = rec.body.get("previous_response_id") if isinstance(rec.body, dict) else None
        if rec.api == "openai-responses" and isinstance(prev, str) and rec.key_id is not None:
            state = emulator.core.responses
            line["context"] = [
                *state.response_input_items(rec.key_id, prev),
                *(state.response(rec.key_id, prev).get("output") or []),
            ]
        out.append(line)
    return out


def write_trace(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for rec in records:
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")


def read_trace(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def model_input(record: Mapping[str, Any]) -> dict[str, Any]:
    """The body the model (and the cache) sees: a Responses continuation's stored context first,
    as OpenAI documents `previous_response_id` and `conversation`, then the request's own input."""
    body = dict(record["body"])
    if record["api"] != "openai-responses":
        return body
    context = record.get("context") or []
    for state in ("previous_response_id", "conversation"):
        body.pop(state, None)
    own = body.get("input")
    if context or not isinstance(own, str):
        items = [{"role": "user", "content": own}] if isinstance(own, str) else list(own or [])
        body["input"] = _since_compaction([*context, *items])
    return body


def _since_compaction(items: list[Any]) -> list[Any]:
    """OpenAI's compaction guide: "the latest compaction item carries the necessary context",
    so what comes before the most recent `compaction` item is not part of the prompt."""
    last = max(
        (
            i
            for i, item in enumerate(items)
            if isinstance(item, Mapping) and item.get("type") == "compaction"
        ),
        default=0,
    )
    return items[last:]


@dataclass(frozen=True)
class Bill:
    index: int
    api: str
    predicted: Usage  # by the documented rules (output copied from the report)
    reported: Usage

    @property
    def hit_rate(self) -> float:
        total = self.reported.input_total
        return self.reported.cache_read / total if total else 0.0


def bills(trace: Iterable[Mapping[str, Any]], prices: PriceTable | None = None) -> Iterator[Bill]:
    """Every served, billed request of `trace` with its predicted and reported usage."""
    guards: dict[str, CacheGuard] = {}
    for index, rec in enumerate(trace):
        if rec["api"] not in BILLED_APIS or rec["status"] != 200:
            continue
        body = model_input(rec)
        req = wire_request(rec["api"], rec["path"], body)
        guard = guards.setdefault(str(rec["key_id"]), CacheGuard(prices or PriceTable.default()))
        now = float(rec["time"])
        pred = guard.predict(req, now)
        reported = parse_usage(rec["api"], rec["usage"])
        item = rec.get("compaction")
        if item is None:
            guard.observe(req, pred, reported, now)
            yield Bill(index, rec["api"], pred.usage(reported.output), reported)
            continue
        # A reply that compacted: a compaction pass over the whole prompt, then inference on
        # the prompt pruned to the compaction item ("prunes context before continuing
        # inference", OpenAI's compaction guide), both looked up in the cache as it stood when
        # the request arrived; the reply's usage is their sum (the emulator's reading, since
        # OpenAI documents each pass's usage but not how a compacted reply reports both).
        pruned = {k: v for k, v in body.items() if k not in ("input", "context_management")}
        pruned["input"] = [item]
        req2 = wire_request(rec["api"], rec["path"], pruned)
        pred2 = guard.predict(req2, now)
        first, second = pred.usage(), pred2.usage()
        guard.observe(req, pred, first, now, aside=True)
        guard.observe(req2, pred2, second, now)
        total = Usage(
            first.uncached_input + second.uncached_input,
            first.cache_read + second.cache_read,
            first.cache_write_5m + second.cache_write_5m,
            first.cache_write_1h + second.cache_write_1h,
            reported.output,
        )
        yield Bill(index, rec["api"], total, reported)


def mismatches(trace: Iterable[Mapping[str, Any]]) -> list[str]:
    return [
        f"request {b.index} ({b.api}): reported {b.reported}, the rules give {b.predicted}"
        for b in bills(trace)
        if b.reported != b.predicted
    ]
