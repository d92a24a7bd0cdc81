"""The cache guard's bookkeeping for one session: each request predicted before it goes out
(the miss budget checked there), compared with what the provider reported when it comes back,
and ledgered with the guard's cause and prediction.

`GuardTracker` wraps the session's `CacheGuard` and works on the session's state
(`prefixlock.state.SessionState`). It makes the ledger row and the `UsageReport` of every kind of
request (a turn's, a compaction's summary, a keep-alive ping, an attempt abandoned mid-stream),
names misses as `CacheBreak` events, checks priced actions against the budget, and replays
stored requests when a session is resumed, so the guard knows what the cache holds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..billing.ledger import LedgerRow
from ..billing.usage import Usage, parse_usage
from ..events import CacheBreak, Event, UsageReport
from ..providers import AttemptProgress, Reply
from ..providers.transport import ESTIMATE_KEY
from ..state import SessionState
from ..tokenizer import count_tokens
from ..transcript import Message
from ..wire import WireRequest
from .cacheguard import CacheGuard, Prediction, provider_verdict
from .quote import Quote

# Raw-usage key of an abandoned request's row: why its stream stopped (stopped, cancelled,
# failed, retried).
PARTIAL_KEY = "prefixlock_partial"


def chat_echo(request: WireRequest, reply: Reply) -> Mapping[str, Any] | None:
    """The reply as the next Chat request carries it back, for an OpenAI-compatible provider
    (DeepSeek stores a cache unit through it); None elsewhere, where the guard needs none."""
    if request.api != "openai-compat" or not reply.blocks:
        return None
    from ..providers.openai import chat_messages  # only DeepSeek-style sessions need it

    sent = chat_messages(Message("assistant", tuple(reply.blocks)))
    return sent[-1] if sent else None


class GuardTracker:
    """Prediction, observation and ledger rows of one session's requests."""

    def __init__(self, state: SessionState, guard: CacheGuard) -> None:
        self.state = state
        self.guard = guard
        self._prediction: Prediction | None = None  # of the request going out now
        self.last_break: CacheBreak | None = None  # the guard's verdict on the last request
        # The provider's id of the last response: what cache diagnostics compare against.
        self._last_message_id: str | None = None

    def before(self, request: WireRequest, now: float) -> None:
        """Predict `request`; enforce the miss budget (raises: nothing is sent)."""
        pred = self.guard.predict(request, now)
        self.guard.check_budget(pred, "the next request")
        self._prediction = pred
        warning = self.guard.window_warning(request, self.state.settings.max_tokens)
        if warning is not None:
            self.state.queued_events.append(warning)
        if self.state.settings.cache_diagnostics:
            self.state.provider.ask_diagnostics(self._last_message_id)

    def _take_prediction(self, request: WireRequest, started_at: float) -> Prediction:
        pred = self._prediction or self.guard.predict(request, started_at)
        self._prediction = None
        return pred

    def completed(
        self,
        request: WireRequest,
        reply: Reply,
        started_at: float,
        meta: dict[str, Any] | None = None,
    ) -> tuple[LedgerRow, list[Event]]:
        """`request` got its reply: compare the reported usage with the prediction, ledger it.
        Returns the row and the events to yield (its UsageReport, a CacheBreak on a miss)."""
        pred = self._take_prediction(request, started_at)
        # The provider's own miss reason, when cache diagnostics were asked for.
        verdict = provider_verdict(request.api, reply.cache_diagnostics)
        self._last_message_id = reply.message_id or self._last_message_id
        brk = self.guard.observe(
            request,
            pred,
            reply.usage,
            started_at,
            request_index=len(self.state.ledger),
            verdict=verdict,
            echo=chat_echo(request, reply),
        )
        self.last_break = brk
        row = self.state.ledger.record(
            request,
            reply.usage,
            time=started_at,
            previous=self.state.previous_request,
            cause=brk.cause if brk else None,
            predicted_read=pred.read,
            meta=meta,
        )
        return row, self._report(row, brk)

    def abandoned(
        self, request: WireRequest, attempt: AttemptProgress, started_at: float, reason: str
    ) -> tuple[LedgerRow, list[Event]] | None:
        """An attempt at `request` that the provider started but that ended without a Reply
        (`reason`: stopped by the caller, cancelled, failed, or retried after a fault). It was
        billed, and it wrote cache entries: it gets a ledger row (kind "abandoned") and the
        guard observes it, so the next request is predicted to read what it wrote. Returns the
        row and its events (its UsageReport, a CacheBreak), for the caller to see before the
        next request. A fault before the provider began its answer records nothing (None): it
        may have been refused unbilled. Anthropic begins with message_start, which carries the
        input-side usage; OpenAI Chat and Responses report usage only at the end, so there an
        attempt that received any event was billed, and its row is the guard's estimate."""
        raw = attempt.raw_usage
        began = attempt.events > 0 and request.api != "anthropic"
        if not raw and not began and reason not in ("stopped", "cancelled"):
            return None
        # A retry of the same request is predicted again, after what this attempt wrote.
        pred = self._take_prediction(request, started_at)
        # Output tokens: the local tokenizer's count of the text deltas received. Anthropic's
        # message_start carries a placeholder output count (0 or 1) and only message_delta the
        # real one, so the larger of the two is what is known to have been generated.
        counted = count_tokens("".join(attempt.text))
        meta: dict[str, Any] = {"kind": "abandoned", "reason": reason}
        usage: Usage
        if raw:  # Anthropic: message_start already carried the input-side counters
            usage = parse_usage(request.api, raw)
            usage = dataclasses.replace(
                usage, output=max(usage.output, counted), raw={**raw, PARTIAL_KEY: reason}
            )
        else:
            # OpenAI Chat Completions (usage only in the last chunk, with include_usage) and
            # Responses (usage only in response.completed) report nothing before the end. The
            # request was billed all the same: the guard's predicted input counters stand in,
            # flagged as an estimate (meta and raw usage), rather than no row at all.
            note = "stream stopped before the provider reported usage: the guard's prediction"
            usage = dataclasses.replace(
                pred.usage(counted), raw={ESTIMATE_KEY: note, PARTIAL_KEY: reason}
            )
            meta["estimated"] = True
        brk = self.guard.observe(
            request, pred, usage, started_at, request_index=len(self.state.ledger), aside=True
        )
        self.last_break = brk
        row = self.state.ledger.record(
            request,
            usage,
            time=started_at,
            previous=self.state.previous_request,  # the last completed one
            cause=brk.cause if brk else None,
            predicted_read=pred.read,
            meta=meta,
        )
        return row, self._report(row, brk)

    def pinged(
        self,
        ping: WireRequest,
        pred: Prediction,
        usage: Usage,
        now: float,
        previous: WireRequest,
    ) -> LedgerRow:
        """A keep-alive ping came back: the guard sees it refresh the cache; a ledger row of
        kind "ping" (a ping is no turn: no report, and no miss of its own)."""
        self.guard.observe(ping, pred, usage, now, request_index=len(self.state.ledger))
        return self.state.ledger.record(
            ping,
            usage,
            time=now,
            previous=previous,
            predicted_read=pred.read,
            meta={"kind": "ping"},
        )

    def _report(self, row: LedgerRow, brk: CacheBreak | None) -> list[Event]:
        report = UsageReport(
            turn=self.state.turn,
            request=row.seq,
            model=row.model,
            usage=row.usage,
            cost=row.cost,
            cost_without_cache=row.cost_without_cache,
            predicted_read=row.predicted_read,
        )
        return [report, brk] if brk is not None else [report]

    def check_action(self, quote: Quote, what: str) -> None:
        """Raise CacheBudgetExceeded if the priced action would pass the miss budget."""
        self.guard.budget.check(
            quote.tokens_rebilled,
            quote.dollars,
            self.guard.rebilled_tokens,
            self.guard.rebilled_dollars,
            what,
        )

    # ---- resume ------------------------------------------------------------------------------

    def replay(
        self,
        request: WireRequest,
        usage: Usage,
        time: float,
        echo: Mapping[str, Any] | None = None,
    ) -> None:
        """A stored request seen again as the live session saw it: the guard learns what it
        cached (it gets no ledger row: the store's rows are restored as they were)."""
        pred = self.guard.predict(request, time)
        self.guard.observe(request, pred, usage, time, echo=echo)

    def replayed(self) -> None:
        """The replay is over: the misses it saw were counted when they happened."""
        self.guard.forget_breaks()
