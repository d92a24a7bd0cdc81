"""What the proxy learns from each exchange: usage read out of a reply (whole or streamed), and
per-session figures (hit rate, dollars, saved, breaks with the guard's causes).

Pure: bytes and parsed bodies in, figures out; the server feeds it and writes what it returns.
Each detected session has its own `CacheGuard`, so a break is named the way prefixlock's own
sessions name theirs (system changed, tools changed, model switch, expired, lookback...).
"""

from __future__ import annotations

import json
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from ..billing.prices import PriceTable
from ..billing.usage import Usage, parse_usage
from ..cache.units import anthropic_units, openai_units
from ..guard.cacheguard import CacheGuard, Prediction
from ..wire import WireRequest
from .sse import SSEDecoder

# Which API a request path speaks; others pass through unobserved.
ROUTES = {
    "/v1/messages": "anthropic",
    "/v1/chat/completions": "openai-chat",
    "/v1/responses": "openai-responses",
}


def api_of(path: str) -> str | None:
    return ROUTES.get(path.split("?", 1)[0].rstrip("/"))


# Sessions whose guard and figures are kept in memory (the least recently used beyond are
# dropped: their rows are in the store; one that comes back starts a fresh guard). A guard keeps
# its session's last body (to explain the next miss; tens of KB in a long session), so unbounded
# they grew with every session; 256 is far more sessions than one machine's agents run at once.
MAX_SESSIONS = 256
# A session's newest requests kept for its timeline on /dashboard (the rows `analyze --html`
# draws its timelines from).
TIMELINE = 200


class StreamUsage:
    """Reads usage (and a Responses id) out of an SSE stream fed chunk by chunk, as it passes.

    `on_response_id` is called once, as soon as the stream names its response (Responses API
    `response.created`, before the answer ends): the server links it to the session there, so
    a client continuing with `previous_response_id` at once still finds its session."""

    def __init__(self, api: str, on_response_id: Callable[[str], None] | None = None) -> None:
        self.api = api
        self._on_response_id = on_response_id
        self._sse = SSEDecoder()
        self.raw: dict[str, Any] | None = None
        self.response_id: str | None = None
        self.events: int = 0

    def feed(self, chunk: bytes) -> None:
        for event in self._sse.feed(chunk):
            self.events += 1
            if '"usage"' in event.data or '"response.created"' in event.data:
                self._event(event.data)

    def _event(self, data: str) -> None:
        try:
            doc = json.loads(data)
        except ValueError:
            return
        if not isinstance(doc, dict):
            return
        kind = doc.get("type")
        if self.api == "anthropic":
            if kind == "message_start" and isinstance(doc.get("message"), dict):
                self.raw = dict(doc["message"].get("usage") or {})
            elif kind == "message_delta" and isinstance(doc.get("usage"), dict):
                self.raw = {**(self.raw or {}), **doc["usage"]}
        elif self.api == "openai-chat":
            if isinstance(doc.get("usage"), dict):
                self.raw = doc["usage"]
        elif isinstance(doc.get("response"), dict):
            response = doc["response"]
            rid = response.get("id")
            if isinstance(rid, str) and rid != self.response_id:
                self.response_id = rid
                if self._on_response_id is not None:
                    self._on_response_id(rid)
            if isinstance(response.get("usage"), dict):
                self.raw = response["usage"]


def reply_usage(api: str, body: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """Usage and (Responses API) response id of a whole JSON reply."""
    try:
        doc = json.loads(body)
    except ValueError:
        return None, None
    if not isinstance(doc, dict):
        return None, None
    usage = doc.get("usage")
    rid = doc.get("id") if api == "openai-responses" else None
    return (usage if isinstance(usage, dict) else None), (rid if isinstance(rid, str) else None)


def wire_request(api: str, path: str, body: Mapping[str, Any]) -> WireRequest:
    units = anthropic_units(body) if api == "anthropic" else openai_units(body)
    key = body.get("prompt_cache_key")
    return WireRequest(
        api=api,
        model=str(body.get("model", "")),
        path=path,
        body=body,
        units=tuple(units),
        cache_key=key if isinstance(key, str) else None,
    )


@dataclass(frozen=True)
class Observed:
    """One request as the proxy saw it, ready to record."""

    session_id: str
    seq: int
    time: float
    api: str
    model: str
    path: str
    body: Mapping[str, Any]
    usage: Usage
    cost: Decimal | None
    cost_without_cache: Decimal | None
    predicted_read: int
    cause: str | None
    rebilled: int
    detail: str
    repairs: tuple[str, ...]
    estimated: bool  # no usage came back (a stream without it): the guard's prediction stands
    status: int


@dataclass
class SessionFigures:
    """A detected session's running figures."""

    session_id: str
    client: str  # the hash of the client's key
    api: str
    model: str = ""
    requests: int = 0
    input_total: int = 0
    cache_read: int = 0
    cost: Decimal = Decimal(0)
    cost_without_cache: Decimal = Decimal(0)
    unpriced: int = 0
    breaks: dict[str, int] = field(default_factory=dict)  # cause -> tokens re-billed
    repairs: dict[str, int] = field(default_factory=dict)  # repair -> requests it was made on
    last_time: float = 0.0
    timeline: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=TIMELINE))

    @property
    def hit_rate(self) -> float:
        return self.cache_read / self.input_total if self.input_total else 0.0

    @property
    def saved(self) -> Decimal:
        return self.cost_without_cache - self.cost

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "api": self.api,
            "model": self.model,
            "requests": self.requests,
            "input_tokens": self.input_total,
            "cache_read": self.cache_read,
            "hit_rate": round(self.hit_rate, 4),
            "cost": str(self.cost),
            "saved": str(self.saved),
            "breaks": dict(self.breaks),
            "repairs": dict(self.repairs),
        }


class Observer:
    """Per-session guards and figures, for the `max_sessions` sessions used most recently. Not
    thread-safe: the server calls it from one thread."""

    def __init__(self, prices: PriceTable, max_sessions: int = MAX_SESSIONS) -> None:
        self.prices = prices
        self.max_sessions = max_sessions
        self.sessions: OrderedDict[str, SessionFigures] = OrderedDict()
        self._guards: OrderedDict[str, CacheGuard] = OrderedDict()

    def guard(self, session_id: str) -> CacheGuard:
        guard = self._guards.get(session_id)
        if guard is None:
            guard = self._guards[session_id] = CacheGuard(self.prices)
            while len(self._guards) > self.max_sessions:
                self._guards.popitem(last=False)
        else:
            self._guards.move_to_end(session_id)
        return guard

    def predict(self, session_id: str, req: WireRequest, now: float) -> Prediction:
        return self.guard(session_id).predict(req, now)

    def observe(
        self,
        session_id: str,
        client: str,
        req: WireRequest,
        pred: Prediction,
        raw_usage: Mapping[str, Any] | None,
        now: float,
        *,
        repairs: tuple[str, ...] = (),
        status: int = 200,
        output: int = 0,
    ) -> Observed:
        """Account one request the upstream may have billed (`raw_usage` as the provider
        reported it). Call it for every such request, whatever the client did.

        `raw_usage=None`: billed, usage unknown (the client hung up, or the stream was cut
        before the provider reported usage). The row is the guard's predicted input counters
        and `output` (the output tokens known to have been generated, e.g. counted from the
        deltas passed on), flagged as an estimate. The guard does not learn cache entries
        from it: what the provider stored is unknown (nothing, when it was cut before its
        usage), and predicting the next request from entries it may never have written made
        false `unexplained` breaks; predicting less is never a false break."""
        guard = self.guard(session_id)
        estimated = raw_usage is None
        usage = pred.usage(output) if raw_usage is None else parse_usage(req.api, raw_usage)
        brk = None
        if raw_usage is None:
            usage = Usage.from_dict(
                usage.to_dict(), {"prefixlock_estimate": True, "billed_usage_unknown": True}
            )
        else:
            brk = guard.observe(req, pred, usage, now)
        price = self.prices.lookup(req.model)
        cost = price.cost(usage) if price is not None else None
        without = price.cost_without_cache(usage) if price is not None else None
        figs = self.sessions.get(session_id)
        if figs is None:
            figs = self.sessions[session_id] = SessionFigures(session_id, client, req.api)
            while len(self.sessions) > self.max_sessions:
                self.sessions.popitem(last=False)
        else:
            self.sessions.move_to_end(session_id)
        gap = now - figs.last_time if figs.requests else 0.0
        figs.timeline.append(
            timeline_row(now, gap, req.model, usage, cost, None if brk is None else brk.cause)
        )
        figs.model = req.model
        figs.requests += 1
        figs.input_total += usage.input_total
        figs.cache_read += usage.cache_read
        figs.last_time = now
        if cost is None or without is None:
            figs.unpriced += 1
        else:
            figs.cost += cost
            figs.cost_without_cache += without
        if brk is not None:
            figs.breaks[brk.cause] = figs.breaks.get(brk.cause, 0) + brk.tokens_rebilled
        for r in repairs:
            figs.repairs[r] = figs.repairs.get(r, 0) + 1
        return Observed(
            session_id=session_id,
            seq=figs.requests - 1,
            time=now,
            api=req.api,
            model=req.model,
            path=req.path,
            body=req.body,
            usage=usage,
            cost=cost,
            cost_without_cache=without,
            predicted_read=pred.read,
            cause=None if brk is None else brk.cause,
            rebilled=0 if brk is None else brk.tokens_rebilled,
            detail="" if brk is None else brk.detail,
            repairs=repairs,
            estimated=estimated,
            status=status,
        )

    def warm_until(self, session_id: str, req: WireRequest, now: float) -> float | None:
        guard = self._guards.get(session_id)
        return None if guard is None else guard.warm_until(req, now)


def timeline_row(
    now: float,
    gap: float,
    model: str,
    usage: Usage,
    cost: Decimal | None,
    cause: str | None,
) -> dict[str, Any]:
    """One request as a row of `analyze`'s report (what its HTML timelines draw)."""
    return {
        "first": datetime.fromtimestamp(now, UTC).isoformat(),
        "thread": "main",
        "model": model,
        "cache_read": usage.cache_read,
        "cache_write_5m": usage.cache_write_5m,
        "cache_write_1h": usage.cache_write_1h,
        "cache_write_unsplit": 0,
        "uncached_input": usage.uncached_input,
        "output": usage.output,
        "usd": None if cost is None else str(cost),
        "break": cause,
        "gap_s": gap,
        "ttl_s": 3600 if usage.cache_write_1h else None,  # None: the default TTL (5 minutes)
    }


def stored_timeline(
    rows: Sequence[Mapping[str, Any]], keep: int = TIMELINE
) -> list[dict[str, Any]]:
    """A session's timeline from its stored requests (`PostgresStore.timelines`: time, model,
    usage as `Usage.to_dict`, cost, cause; oldest first), as `Observer` keeps it in memory:
    the newest `keep` (a row before them only gives the first one its gap)."""
    out = []
    last: float | None = None
    for r in rows:
        usage = Usage.from_dict(r["usage"])
        cost = None if r["cost"] is None else Decimal(str(r["cost"]))
        gap = 0.0 if last is None else r["time"] - last
        out.append(timeline_row(r["time"], gap, r["model"], usage, cost, r["cause"]))
        last = r["time"]
    return out[-keep:] if keep else []


def trace_line(o: Observed) -> dict[str, Any]:
    """`o` as one line of the JSONL trace format (what `prefixlock lint --report` reads)."""
    return {
        "session_id": o.session_id,
        "seq": o.seq,
        "time": o.time,
        "provider": "anthropic" if o.api == "anthropic" else "openai",
        "api": o.api,
        "model": o.model,
        "path": o.path,
        "body": o.body,
        "usage": o.usage.to_dict(),
        "raw_usage": dict(o.usage.raw),
        "cost": None if o.cost is None else str(o.cost),
        "cache_key": o.body.get("prompt_cache_key"),
        "cause": o.cause,
        "repairs": list(o.repairs),
    }
