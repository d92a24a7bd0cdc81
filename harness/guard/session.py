"""The cache guard's side of a Session: priced actions, miss budget, keep-alive, compaction, store.

`GuardedSession` is a mixin of `prefixlock.agent.Session`. The agent loop calls four small hooks
(`_guard_before`, `_guard_after`, `_guard_record`, `_guard_turn_done`); everything else here is
public API on the session:

- `quote_switch(model)` / `switch_model(model, quote=... | policy="allow")`
- `quote_tools(...)` / `change_tools(..., quote=...)`
- `quote_effort(**settings)` / `change_effort(quote=..., **settings)`
- `quote_compaction()` / `await compact(quote=...)`
- `budget` (a CacheBudget, checked before every request and action)
- `enable_keepalive(...)` / `await keepalive_tick()`
- store writes (one transaction per completed turn) and `resume_session(agent, id)`.

An action that would lose cached tokens raises QuoteRequired unless it is given its quote (made
for the current state) or `policy="allow"`; on a cold cache it costs nothing extra and proceeds
without a SwitchWarning.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from ..canonical import canonical_bytes, fingerprint
from ..clock import Clock
from ..delegation import DelegationResult
from ..errors import ConfigError, PrefixError, ProviderError, UserError
from ..events import (
    CacheBreak,
    Event,
    KeepAlivePing,
    PrefixChanged,
    ResumedPrefixDiffers,
    SwitchWarning,
    UsageReport,
)
from ..ledger import Ledger, LedgerRow
from ..money import parse_dollars
from ..prefix import FrozenPrefix
from ..providers import (
    AttemptProgress,
    Reply,
    SDKProvider,
    SessionInfo,
    make_builder,
    resolve_route,
)
from ..providers.transport import ESTIMATE_KEY
from ..settings import Settings
from ..store.database import (
    NewRequest,
    SessionStore,
    StoredRequest,
    StoreError,
    UnknownSessionError,
    UsageRow,
)
from ..tokenizer import count_tokens
from ..tools import Tool, ToolLike, ToolSpec, as_spec
from ..transcript import Message, Transcript, text_block
from ..usage import parse_usage
from ..wire import WireRequest
from .budget import CacheBudget
from .cacheguard import CacheGuard, Prediction, provider_verdict
from .compaction import (
    DEFAULT_INSTRUCTION,
    SummaryPlacement,
    check_placement,
    compacted,
    estimate_summary_tokens,
    summary_messages,
)
from .keepalive import KeepAlive, plan_ping
from .quote import Quote, QuoteRequired, check_quote, default_task, price_action

POLICIES = ("allow", "confirm")
RECENT_REQUESTS = 10  # how many recent requests profile the work a switch is compared with
# Raw-usage key of an abandoned request's row: why its stream stopped (stopped, cancelled,
# failed, retried).
PARTIAL_KEY = "prefixlock_partial"


def settings_dict(settings: Settings) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(settings):
        v = getattr(settings, f.name)
        out[f.name] = str(v) if isinstance(v, Decimal) else v
    return out


def _chat_echo(request: WireRequest, reply: Reply) -> Mapping[str, Any] | None:
    """The reply as the next Chat request carries it back, for an OpenAI-compatible provider
    (DeepSeek stores a cache unit through it); None elsewhere, where the guard needs none."""
    if request.api != "openai-compat" or not reply.blocks:
        return None
    from ..providers.openai import chat_messages  # only DeepSeek-style sessions need it

    sent = chat_messages(Message("assistant", tuple(reply.blocks)))
    return sent[-1] if sent else None


def settings_from(data: Mapping[str, Any], base: Settings) -> Settings:
    """Settings stored with a session, over `base` (unknown fields are ignored)."""
    names = {f.name for f in dataclasses.fields(Settings)}
    changes = {k: v for k, v in data.items() if k in names}
    try:  # Settings parses max_dollars (stored as a string) itself
        return base.with_(**changes)
    except (TypeError, ValueError):
        return base


class GuardedSession:
    """Mixin: the guard, priced actions, budget, keep-alive, compaction and store of a session."""

    # Provided by Session (prefixlock.agent).
    agent: Any
    id: str
    info: SessionInfo
    prefix: FrozenPrefix
    settings: Settings
    clock: Clock
    provider: SDKProvider
    model: str
    transcript: Transcript
    ledger: Ledger
    requests: list[WireRequest]
    turn: int

    def _use_provider(self, provider: SDKProvider) -> None: ...  # pragma: no cover
    def _use_prefix(self, prefix: FrozenPrefix) -> None: ...  # pragma: no cover

    # ---- set-up ------------------------------------------------------------------------------

    def _guard_init(self) -> None:
        budget = getattr(self.agent, "budget", None)
        self.guard = CacheGuard(self.agent.prices, budget=budget)
        store = getattr(self.agent, "store", None)
        if isinstance(store, (str, os.PathLike)):
            store = self.agent.store = SessionStore(store)  # a path: open it once per agent
        self.store: SessionStore | None = store
        self.keepalive: KeepAlive | None = None
        self.queued_events: list[Event] = []
        self.quotes: list[Quote] = []
        self.compactions = 0
        self._prediction: Prediction | None = None
        self._last_break: CacheBreak | None = None  # the guard's verdict on the last request
        # The provider's id of the last response: what cache diagnostics compare against.
        self._last_message_id: str | None = None
        # After a resume: did the stored prefix and transcript rebuild the last stored request
        # byte for byte? (None: not resumed, or nothing was sent on the current prefix.)
        self.resume_verified: bool | None = None
        self.resumed = False  # continued from the store (agent.resume)
        self._unstored: list[NewRequest] = []
        self._stored_messages = 0
        self._stored_subagents = 0  # ledger.subagents.results already written to the store
        self._store_created = False
        self._retired: list[SDKProvider] = []
        self._close_tasks: list[asyncio.Task[None]] = []
        # A keep-alive ping holds this lock while it is sent, and a turn (or a compaction) waits
        # for it before sending; `_turns_running` counts the turns running or waiting, and a
        # ping never starts while it is not zero. A turn holds no lock while it runs (a caller
        # that abandons a turn's event stream half-way must not block the next turn).
        self._send_lock = asyncio.Lock()
        self._turns_running = 0

    @contextlib.asynccontextmanager
    async def _guard_turn(self) -> AsyncIterator[None]:
        """Run a turn apart from keep-alive pings: a ping in flight finishes first, and no ping
        starts until the turn has ended (however it ends)."""
        self._turns_running += 1
        try:
            async with self._send_lock:
                pass  # a ping in flight has finished; none can start while the count is up
            yield
        finally:
            self._turns_running -= 1

    @property
    def turn_in_flight(self) -> bool:
        """A turn (or compaction) is running or waiting to send: pings skip meanwhile."""
        return self._turns_running > 0

    @property
    def agent_prefix(self) -> FrozenPrefix:
        """The prefix of the agent this session was made by (`prefix` is the one it runs on:
        a resumed session keeps its stored one, see `resumed_prefix_differs`)."""
        prefix: FrozenPrefix = self.agent.prefix
        return prefix

    @property
    def resumed_prefix_differs(self) -> bool:
        """True while a resumed session runs on its stored prefix and the agent's differs:
        moving costs what `quote_prefix(agent_prefix)` says (`change_prefix` applies it)."""
        return self.resumed and self.prefix.fingerprint != self.agent_prefix.fingerprint

    @property
    def budget(self) -> CacheBudget:
        return self.guard.budget

    @budget.setter
    def budget(self, value: CacheBudget) -> None:
        self.guard.budget = value

    # ---- hooks called by the agent loop ------------------------------------------------------

    def _guard_before(self, request: WireRequest) -> list[Event]:
        """Predict the request; enforce the miss budget (raises: nothing is sent)."""
        now = self.clock.now()
        pred = self.guard.predict(request, now)
        self.guard.check_budget(pred, "the next request")
        self._prediction = pred
        if self.settings.cache_diagnostics:
            self.provider.ask_diagnostics(self._last_message_id)
        if self.keepalive is not None:
            self.keepalive.active_again(now)
        events, self.queued_events = self.queued_events, []
        return events

    def _guard_after(
        self, request: WireRequest, reply: Reply, started_at: float
    ) -> tuple[str | None, int | None, list[Event]]:
        """Compare the reported usage with the prediction: (cause, predicted read, events)."""
        pred = self._prediction or self.guard.predict(request, started_at)
        self._prediction = None
        # The provider's own miss reason, when cache diagnostics were asked for.
        verdict = provider_verdict(request.api, reply.cache_diagnostics)
        self._last_message_id = reply.message_id or self._last_message_id
        brk = self.guard.observe(
            request,
            pred,
            reply.usage,
            started_at,
            request_index=len(self.ledger),
            verdict=verdict,
            echo=_chat_echo(request, reply),
        )
        self._last_break = brk
        return (brk.cause if brk else None), pred.read, ([brk] if brk else [])

    def _guard_record(
        self, request: WireRequest, reply: Reply, row: LedgerRow, kind: str = "turn"
    ) -> None:
        """Keep the request for the store; it is written when its turn completes."""
        if self.store is None:
            return
        self._unstored.append(self._new_request(request, reply, row, kind))

    def _guard_turn_done(self) -> None:
        """A turn completed: write its requests and messages in one transaction."""
        if self.store is None:
            return
        self._ensure_stored_session()
        messages = self.transcript.messages[self._stored_messages :]
        self.store.record_turn(
            self.id,
            requests=self._unstored,
            messages=[m.to_dict() for m in messages],
            first_index=self._stored_messages,
            model=self.model,
            time=self.clock.now(),
            subagents=self._unstored_subagents(),
        )
        self._unstored = []
        self._stored_messages = len(self.transcript)
        self._stored_subagents = len(self.ledger.subagents)

    def _guard_turn_stopped(self) -> None:
        """A turn stopped by a fault, a cancellation or the caller after some of its requests
        succeeded: those were billed and the live transcript holds their messages, so the store
        gets them now, as after a turn stopped at a limit (else the stored ledger would miss
        their cost and a resumed session their messages)."""
        if self._unstored:
            self._guard_turn_done()

    def _guard_abandoned(
        self, request: WireRequest, attempt: AttemptProgress, started_at: float, reason: str
    ) -> LedgerRow | None:
        """An attempt at `request` that the provider started but that ended without a Reply
        (`reason`: stopped by the caller, cancelled, failed, or retried after a fault). It was
        billed, and it wrote cache entries: it gets a ledger row (kind "abandoned"), a store row
        (written with the stopped turn, as 1fba71c stores its other requests) and the guard
        observes it, so the next request is predicted to read what it wrote. Nothing enters the
        transcript. A fault before the provider reported any usage records nothing (None): the
        provider may have refused it unbilled, and there is no figure to go by."""
        raw = attempt.raw_usage
        if not raw and reason not in ("stopped", "cancelled"):
            return None
        pred = self._prediction or self.guard.predict(request, started_at)
        # A retry of the same request is predicted again, after what this attempt wrote.
        self._prediction = None
        # Output tokens: the local tokenizer's count of the text deltas received. Anthropic's
        # message_start carries a placeholder output count (0 or 1) and only message_delta the
        # real one, so the larger of the two is what is known to have been generated.
        counted = count_tokens("".join(attempt.text))
        meta: dict[str, Any] = {"kind": "abandoned", "reason": reason}
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
            request, pred, usage, started_at, request_index=len(self.ledger), aside=True
        )
        self._last_break = brk
        row = self.ledger.record(
            request,
            usage,
            time=started_at,
            previous=self.requests[-1] if self.requests else None,  # the last completed one
            cause=brk.cause if brk else None,
            predicted_read=pred.read,
            meta=meta,
        )
        # The caller stopped reading: the report (a panel's hit rate and dollars count it) and
        # any miss come before the next request. Its raw usage says it was abandoned.
        self.queued_events.append(
            UsageReport(
                turn=self.turn,
                request=row.seq,
                model=request.model,
                usage=usage,
                cost=row.cost,
                cost_without_cache=row.cost_without_cache,
                predicted_read=row.predicted_read,
            )
        )
        if brk is not None:
            self.queued_events.append(brk)
        if self.store is not None:
            reply = Reply((), "abandoned", usage, dict(usage.raw))
            self._unstored.append(self._new_request(request, reply, row, "abandoned"))
        return row

    # ---- store -------------------------------------------------------------------------------

    def _new_request(
        self, request: WireRequest, reply: Reply, row: LedgerRow | None, kind: str
    ) -> NewRequest:
        price = self.guard.price(request.model)
        # The guard's cause (the ledger only counts misses against the previous request).
        brk = self._last_break if kind != "ping" else None
        return NewRequest(
            kind=kind,
            time=row.time if row is not None else self.clock.now(),
            provider=self.provider.route.provider,
            api=request.api,
            model=request.model,
            path=request.path,
            body=request.body,
            usage=reply.usage,
            cost=row.cost if row is not None else (price.cost(reply.usage) if price else None),
            cost_without_cache=row.cost_without_cache if row is not None else None,
            cache_key=request.cache_key or _body_cache_key(request.body),
            predicted_read=row.predicted_read if row is not None else None,
            cause=brk.cause if brk else (row.cause if row is not None else None),
            rebilled=brk.tokens_rebilled if brk else (row.rebilled if row is not None else 0),
            detail=_detail(brk),
        )

    def _unstored_subagents(self) -> list[dict[str, Any]]:
        """Subagent runs charged since the last write (a turn's `delegate` calls, a code-path
        delegation): stored with the turn that produced them."""
        return [r.to_dict() for r in self.ledger.subagents.results[self._stored_subagents :]]

    def _ensure_stored_session(self) -> None:
        if self.store is None or self._store_created:
            return
        self.store.create_session(
            self.id,
            model=self.model,
            api=self.provider.api,
            provider=self.provider.route.provider,
            prefix=self.prefix.to_dict(),
            prefix_fingerprint=self.prefix.fingerprint,
            created=self.clock.now(),
            settings=settings_dict(self.settings),
            meta={"route": self.provider.route.label},
        )
        self._store_created = True

    # ---- quotes ------------------------------------------------------------------------------

    def _state(self) -> str:
        """What a quote is valid for: requests sent, model, prefix, settings, compactions."""
        data = canonical_bytes(
            [
                len(self.requests),
                len(self.transcript),
                self.provider.route.label,
                self.prefix.fingerprint,
                settings_dict(self.settings),
                self.compactions,
            ]
        )
        return fingerprint(data)

    def _next_messages(self, next_message: str | None) -> list[Message]:
        pending = list(getattr(self, "_pending_results", []) or [])
        blocks: list[Any] = [*pending, text_block(next_message or "(next message)")]
        return [*self.transcript.messages, Message.user(blocks)]

    def _hypothetical(
        self,
        api: str,
        model: str,
        prefix: FrozenPrefix,
        settings: Settings,
        messages: Sequence[Message],
    ) -> WireRequest:
        # A fresh builder: the live one's incremental memo must not see hypothetical turns.
        return make_builder(api, model).build_request(prefix, messages, settings, self.info)

    def _averages(self) -> tuple[int, int]:
        """(output tokens, new input tokens) per request so far, for next-turn estimates."""
        rows = self.ledger.rows
        if not rows:
            return 0, 0
        out = sum(r.usage.output for r in rows) // len(rows)
        new = sum(r.usage.cache_write + r.usage.uncached_input for r in rows[1:])
        return out, new // max(len(rows) - 1, 1)

    def _recent_turns(self) -> tuple[int, int, int]:
        """(new input tokens, output tokens) per request and requests per user turn, from the
        session's recent requests: the profile of the work a switch is usually for.

        Only ordinary turns that read what they could count (not the first request, pings,
        summaries, or misses, whose writes re-bill old context rather than bring new tokens).
        """
        other = ("ping", "summary", "abandoned")  # an abandoned request's output was cut short
        rows = [r for r in self.ledger.rows if r.meta.get("kind") not in other]
        turns = max(self.turn, 1)
        per_turn = max(round(len(rows) / turns), 1) if rows else 1
        recent = [r for r in rows if r.seq > 0 and r.cause is None][-RECENT_REQUESTS:]
        if not recent:
            return 0, 0, per_turn
        new = sum(r.usage.cache_write + r.usage.uncached_input for r in recent) // len(recent)
        out = sum(r.usage.output for r in recent) // len(recent)
        return new, out, per_turn

    def _price(
        self,
        action: str,
        *,
        api: str,
        model: str,
        prefix: FrozenPrefix,
        settings: Settings,
        next_message: str | None,
        target: Any,
        with_messages: Sequence[Message] | None = None,
        extra: Decimal = Decimal(0),
        task: Any = None,
    ) -> Quote:
        messages = self._next_messages(next_message)
        without = self._hypothetical(
            self.provider.api, self.model, self.prefix, self.settings, messages
        )
        with_ = self._hypothetical(
            api, model, prefix, settings, messages if with_messages is None else with_messages
        )
        out, new = self._averages()
        if task is None and action == "switch_model":
            recent_new, recent_out, per_turn = self._recent_turns()
            task = default_task(with_.input_tokens, recent_new, recent_out, per_turn)
        q = price_action(
            self.guard,
            action,
            without,
            with_,
            self.clock.now(),
            session_id=self.id,
            state=self._state(),
            output_tokens=out,
            new_tokens=new,
            target=target,
            extra_dollars=extra,
            task=task,
        )
        self.quotes.append(q)
        return q

    def quote_switch(
        self, model: str, *, next_message: str | None = None, task: Any = None
    ) -> Quote:
        """Price switching this session to `model` before doing it. `next_message` makes the
        next-turn figures exact. The quote compares the switch with running the work in a
        subagent on `model`: `task` (a prefixlock.guard.economics.TaskProfile) names that work; by
        default it is one user turn like the recent ones (`quote.default_task`)."""
        route = resolve_route(model, self.agent.base_url, self.agent.prices)
        return self._price(
            "switch_model",
            api=route.api,
            model=route.model,
            prefix=self.prefix,
            settings=self.settings,
            next_message=next_message,
            target=route.label,
            task=task,
        )

    @staticmethod
    def _current(quote: Quote | None, requote: Callable[[], Quote]) -> Quote:
        """The quote to act on: the caller's, unless the cache has gone cold since it was made
        (then a fresh one, which re-bills nothing and warns of nothing)."""
        if quote is None:
            return requote()
        if quote.warns:
            fresh = requote()
            if not fresh.warns:
                return fresh
        return quote

    def _authorize(self, q: Quote, quote: Quote | None, policy: str | None, what: str) -> None:
        if policy is not None and policy not in POLICIES:
            raise UserError(f"policy must be one of {POLICIES}, got {policy!r}", where="policy")
        if q.warns and quote is None and policy != "allow":
            raise QuoteRequired(
                f"{what} re-bills {q.tokens_rebilled:,} cached tokens "
                f"({'unpriced' if q.dollars is None else f'${q.dollars:.4f}'}) while the cache "
                f"is warm for {q.warm_seconds:.0f}s more; get the price first "
                f"(quote = s.quote_...()) and pass quote=quote, or policy='allow'",
                where=q.action,
            )
        self.guard.budget.check(
            q.tokens_rebilled,
            q.dollars,
            self.guard.rebilled_tokens,
            self.guard.rebilled_dollars,
            what,
        )

    def switch_model(
        self, model: str, *, quote: Quote | None = None, policy: str | None = None
    ) -> Quote:
        """Move the session to `model`. A warm cache needs the quote (or policy='allow')."""
        route = resolve_route(model, self.agent.base_url, self.agent.prices)
        if self.settings.max_dollars is not None and self.agent.prices.lookup(route.model) is None:
            # As Agent() refuses it: the ledger never prices that model, so the dollar limit
            # would silently stop counting after the switch.
            raise ConfigError(
                f"model {route.model!r} is not in the price table, so the dollar limit cannot "
                "be kept: add it with a prices file (PREFIXLOCK_PRICES) or drop max_dollars",
                where="settings.max_dollars",
            )
        check_quote(quote, action="switch_model", state=self._state(), target=route.label)
        q = self._current(quote, lambda: self.quote_switch(model))
        self._authorize(q, quote, policy, f"switching to {route.model}")
        if route.label == self.provider.route.label:
            return q
        provider = self.agent.provider(route.label)
        old = self.provider
        old_fp = self._context_fingerprint()
        self._use_provider(provider)
        self._retire(old)
        if q.warns:
            self.queued_events.append(SwitchWarning("switch_model", q))
        self.queued_events.append(
            PrefixChanged("model", old_fp, self._context_fingerprint(), self.model)
        )
        if self.store is not None and self._store_created:
            self.store.set_model(
                self.id, self.model, self.clock.now(), self.provider.route.label
            )
        return q

    def _context_fingerprint(self) -> str:
        return self.prefix.fingerprint

    def _retire(self, provider: SDKProvider) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._retired.append(provider)
            return
        self._close_tasks.append(loop.create_task(provider.aclose()))

    async def _close_retired(self) -> None:
        for p in self._retired:
            await p.aclose()
        self._retired = []
        if self._close_tasks:
            await asyncio.gather(*self._close_tasks, return_exceptions=True)
            self._close_tasks = []

    def _tool_list(
        self,
        tools: Iterable[ToolLike] | None,
        add: Iterable[ToolLike] | Tool | ToolSpec,
        remove: Iterable[str] | str,
    ) -> list[ToolLike]:
        current: dict[str, ToolLike] = {}
        for spec in self.prefix.tools:
            current[spec.name] = self.prefix.runner(spec.name) or spec
        if tools is not None:
            current = {as_spec(t).name: t for t in tools}
        # One tool or one name alone is taken as such: a str iterated is its letters, and
        # remove="grep" removed nothing, silently.
        for t in [add] if isinstance(add, (Tool, ToolSpec)) else add:
            current[as_spec(t).name] = t
        for name in [remove] if isinstance(remove, str) else remove:
            if name not in current:  # a typo must not leave the tool in place unnoticed
                raise PrefixError(
                    f"no tool named {name!r} to remove; the tools are: "
                    + (", ".join(sorted(current)) or "(none)"),
                    where="remove",
                )
            del current[name]
        return list(current.values())

    def quote_tools(
        self,
        tools: Iterable[ToolLike] | None = None,
        *,
        add: Iterable[ToolLike] | Tool | ToolSpec = (),
        remove: Iterable[str] | str = (),
        next_message: str | None = None,
    ) -> Quote:
        """Price a new tool set (the whole list, or tools added / removed by name)."""
        new_prefix = self.prefix.replace(tools=self._tool_list(tools, add, remove))
        return self._quote_move("tools", new_prefix, next_message)

    def change_tools(
        self,
        tools: Iterable[ToolLike] | None = None,
        *,
        add: Iterable[ToolLike] | Tool | ToolSpec = (),
        remove: Iterable[str] | str = (),
        quote: Quote | None = None,
        policy: str | None = None,
    ) -> Quote:
        """Move the session to a new tool set. A warm cache needs the quote (or policy)."""
        new_prefix = self.prefix.replace(tools=self._tool_list(tools, add, remove))
        return self._apply_move("tools", new_prefix, quote, policy)

    def quote_prefix(self, prefix: FrozenPrefix, *, next_message: str | None = None) -> Quote:
        """Price moving the session to another frozen prefix (system prompt and/or tools)."""
        return self._quote_move("prefix", prefix, next_message)

    def change_prefix(
        self, prefix: FrozenPrefix, *, quote: Quote | None = None, policy: str | None = None
    ) -> Quote:
        """Move the session to `prefix`. A warm cache needs the quote (or policy='allow')."""
        return self._apply_move("prefix", prefix, quote, policy)

    def _quote_move(self, what: str, prefix: FrozenPrefix, next_message: str | None) -> Quote:
        """The quote of action `change_{what}`: the same model and settings on `prefix`."""
        return self._price(
            f"change_{what}",
            api=self.provider.api,
            model=self.model,
            prefix=prefix,
            settings=self.settings,
            next_message=next_message,
            target=prefix.fingerprint,
        )

    def _apply_move(
        self, what: str, prefix: FrozenPrefix, quote: Quote | None, policy: str | None
    ) -> Quote:
        """change_tools / change_prefix: the quote must be for this move; a cache gone cold
        since is priced again; a warm one needs the quote (or policy); then the move."""
        check_quote(quote, action=f"change_{what}", state=self._state(), target=prefix.fingerprint)
        q = self._current(quote, lambda: self._quote_move(what, prefix, None))
        self._authorize(q, quote, policy, f"changing the {what}")
        self._move_prefix(prefix, what, q)
        return q

    def _move_prefix(self, new_prefix: FrozenPrefix, reason: str, q: Quote | None) -> None:
        old_fp = self.prefix.fingerprint
        if new_prefix.fingerprint == old_fp:
            return
        self._use_prefix(new_prefix)
        if q is not None and q.warns:
            self.queued_events.append(SwitchWarning(f"change_{reason}", q))
        self.queued_events.append(
            PrefixChanged(reason, old_fp, new_prefix.fingerprint, self.model)
        )
        if self.store is not None and self._store_created:
            self.store.new_epoch(
                self.id,
                prefix=new_prefix.to_dict(),
                prefix_fingerprint=new_prefix.fingerprint,
                messages=[m.to_dict() for m in self.transcript.messages[: self._stored_messages]],
                model=self.model,
                time=self.clock.now(),
            )

    def _changed_settings(self, changes: Mapping[str, Any]) -> Settings:
        try:
            return self.settings.with_(**changes)
        except TypeError:
            known = ", ".join(f.name for f in dataclasses.fields(Settings))
            raise UserError(
                f"unknown setting in {sorted(changes)}; settings are: {known}", where="settings"
            ) from None

    def quote_effort(self, *, next_message: str | None = None, **changes: Any) -> Quote:
        """Price a settings change (effort, TTL...): what it does to the cache."""
        new_settings = self._changed_settings(changes)
        return self._price(
            "change_effort",
            api=self.provider.api,
            model=self.model,
            prefix=self.prefix,
            settings=new_settings,
            next_message=next_message,
            target=fingerprint(canonical_bytes(settings_dict(new_settings))),
        )

    def change_effort(
        self, *, quote: Quote | None = None, policy: str | None = None, **changes: Any
    ) -> Quote:
        """Apply a settings change. One that breaks a warm cache needs its quote (or policy)."""
        new_settings = self._changed_settings(changes)
        target = fingerprint(canonical_bytes(settings_dict(new_settings)))
        check_quote(quote, action="change_effort", state=self._state(), target=target)
        q = self._current(quote, lambda: self.quote_effort(**changes))
        self._authorize(q, quote, policy, "changing effort / settings")
        self.settings = new_settings
        if q.warns:
            self.queued_events.append(SwitchWarning("change_effort", q))
        return q

    # ---- compaction --------------------------------------------------------------------------

    def quote_compaction(
        self, *, placement: SummaryPlacement = "system", next_message: str | None = None
    ) -> Quote:
        """Price compacting now: the summary request plus the next turn on the new prefix."""
        history = self.transcript.tokens
        summary_tokens = estimate_summary_tokens(history)
        guess = "x " * summary_tokens
        plan = compacted(self.prefix, guess, placement)
        messages = [*plan.messages, Message.user(next_message or "(next message)")]
        # The summary request itself: reads the cached history, writes the instruction.
        summary_req = self._hypothetical(
            self.provider.api,
            self.model,
            self.prefix,
            self.settings,
            summary_messages(self.transcript.messages, DEFAULT_INSTRUCTION),
        )
        pred = self.guard.predict(summary_req, self.clock.now())
        price = self.guard.price(self.model)
        extra = Decimal(0) if price is None else price.cost(pred.usage(summary_tokens))
        return self._price(
            "compact",
            api=self.provider.api,
            model=self.model,
            prefix=plan.prefix,
            settings=self.settings,
            next_message=next_message,
            target="compact",
            with_messages=messages,
            extra=extra,
        )

    async def compact(
        self,
        *,
        instruction: str = DEFAULT_INSTRUCTION,
        quote: Quote | None = None,
        policy: str | None = None,
        placement: SummaryPlacement = "system",
    ) -> list[Event]:
        """Summarize with a request that reads the cache, then move to the compacted prefix.

        Returns the events (usage of the summary request, warnings, PrefixChanged).
        """
        check_placement(placement)  # before anything is sent
        check_quote(quote, action="compact", state=self._state())
        q = self._current(quote, lambda: self.quote_compaction(placement=placement))
        self._authorize(q, quote, policy, "compacting")
        if not self.transcript.messages:
            raise UserError("nothing to compact: the session has no messages", where="compact")
        pending = list(getattr(self, "_pending_results", []) or [])
        messages = summary_messages(self.transcript.messages, instruction, pending)
        built = self.provider.build_request(self.prefix, messages, self.settings, self.info)
        request = dataclasses.replace(built, meta={**built.meta, "kind": "summary"})
        events: list[Event] = list(self.queued_events)
        self.queued_events = []
        async with self._guard_turn():  # a keep-alive ping never overlaps the summary request
            events.extend(self._guard_before(request))
            started = self.clock.now()
            reply = await self._one_request(request, events)
        cause, predicted, brk_events = self._guard_after(request, reply, started)
        row = self.ledger.record(
            request,
            reply.usage,
            time=started,
            previous=self.requests[-1] if self.requests else None,
            cause=cause,
            predicted_read=predicted,
            meta={"kind": "summary"},
        )
        events.append(
            UsageReport(
                self.turn, row.seq, request.model, reply.usage, row.cost,
                row.cost_without_cache, predicted,
            )
        )
        events.extend(brk_events)
        if q.warns:
            events.append(SwitchWarning("compact", q))
        plan = compacted(self.prefix, reply.text, placement)
        old_fp = self.prefix.fingerprint
        if hasattr(self, "_pending_results"):
            self._pending_results: list[dict[str, Any]] = []
        self._use_prefix(plan.prefix)
        self.transcript = Transcript(plan.messages)
        self.requests.append(request)
        self.compactions += 1
        self.guard.forget_last()
        new_fp = plan.prefix.fingerprint
        if placement == "messages":
            new_fp = fingerprint(f"{new_fp}:{self.transcript.chain()}".encode())
        events.append(PrefixChanged("compaction", old_fp, new_fp, self.model))
        if self.store is not None:
            self._ensure_stored_session()
            summary_req = self._new_request(request, reply, row, "summary")
            self.store.new_epoch(
                self.id,
                prefix=plan.prefix.to_dict(),
                prefix_fingerprint=plan.prefix.fingerprint,
                messages=[m.to_dict() for m in plan.messages],
                model=self.model,
                time=self.clock.now(),
                requests=[*self._unstored, summary_req],
                subagents=self._unstored_subagents(),
            )
            self._unstored = []
            self._stored_subagents = len(self.ledger.subagents)
            self._stored_messages = len(self.transcript)
        return events

    async def _one_request(self, request: WireRequest, events: list[Event]) -> Reply:
        reply: Reply | None = None
        async for item in self.provider.stream(request):
            if isinstance(item, Reply):
                reply = item
            else:
                events.append(item)
        if reply is None:
            raise ProviderError("stream ended without a reply", retryable=True)
        return reply

    # ---- keep-alive --------------------------------------------------------------------------

    def enable_keepalive(
        self,
        max_spend: Decimal | float | str = Decimal("0.50"),
        *,
        margin: float = 30.0,
        max_idle: float | None = None,
    ) -> KeepAlive:
        """Turn keep-alive pings on (drive them with `await keepalive_tick()`). The cap is
        for the whole session: pings already in the ledger (a resumed session's restored rows
        included) count toward it."""
        cap = parse_dollars(max_spend, "keepalive.max_spend")
        if margin < 0 or (max_idle is not None and max_idle < 0):
            raise UserError(
                "keep-alive margin and max_idle are seconds >= 0", where="keepalive.margin"
            )
        ka = self.keepalive = KeepAlive(cap, margin, max_idle)
        for row in self.ledger.rows:
            if row.meta.get("kind") == "ping":
                ka.record(row.time, row.usage.cache_read, row.cost or Decimal(0))
        ka.idle_spent = Decimal(0)  # an idle stretch starts now (as it did before)
        ka.last_active = self.guard.last_time
        return ka

    def next_ping_at(self) -> float | None:
        """When the next keep-alive ping is due (None: none will be)."""
        if self.keepalive is None:
            return None
        return plan_ping(self.guard, self._ping_base(), self.keepalive, self.clock.now()).due_at

    def _ping_base(self) -> WireRequest | None:
        """The request a ping repeats: the last one, if it still has the session's prefix and
        model (after a compaction or a switch there is nothing worth keeping warm yet)."""
        if not self.requests:
            return None
        last = self.requests[-1]
        fp = last.meta.get("prefix")
        if last.model != self.model or (fp is not None and fp != self.prefix.fingerprint):
            return None
        if last.meta.get("kind") == "summary":
            return None
        return last

    async def keepalive_tick(self) -> list[Event]:
        """Send a ping if one is due now and still pays; returns its KeepAlivePing event."""
        ka = self.keepalive
        if ka is None or self.turn_in_flight or self._send_lock.locked():
            return []  # a turn is in flight (it keeps the cache warm itself) or a ping is
        async with self._send_lock:
            return await self._ping(ka)

    async def _ping(self, ka: KeepAlive) -> list[Event]:
        """Plan and send one ping (the send lock is held)."""
        now = self.clock.now()
        last = self._ping_base()
        plan = plan_ping(self.guard, last, ka, now)
        if not plan.send or plan.request is None:
            return []
        ping = plan.request
        pred = self.guard.predict(ping, now)
        events: list[Event] = []
        try:
            reply = await self._one_request(ping, events)
        except ProviderError:
            # Reported to the caller once; no ping is retried every tick until the session
            # sends again (a real request shows whether the provider is back).
            ka.stopped = "failed"
            raise
        self.guard.observe(ping, pred, reply.usage, now, request_index=len(self.ledger))
        row = self.ledger.record(
            ping,
            reply.usage,
            time=now,
            previous=last,
            predicted_read=pred.read,
            meta={"kind": "ping"},
        )
        cost = row.cost if row.cost is not None else Decimal(0)
        ka.record(now, reply.usage.cache_read, cost)
        if self.store is not None:
            self._ensure_stored_session()
            self.store.record_request(self.id, self._new_request(ping, reply, row, "ping"))
        events.append(KeepAlivePing(reply.usage.cache_read, row.cost))
        return events

    async def run_keepalive(self, stop: asyncio.Event, poll: float = 5.0) -> None:
        """Ping in the background until `stop` is set (real time; tests use keepalive_tick)."""
        while not stop.is_set():
            await self.keepalive_tick()
            try:
                await asyncio.wait_for(stop.wait(), timeout=poll)
            except TimeoutError:
                continue

    # ---- resume ------------------------------------------------------------------------------

    def _restore_ledger(self) -> None:
        """The ledger answers for the whole stored session, not only what follows the resume:
        its rows come back from the store's usage rows (no request body is rebuilt)."""
        if self.store is None:
            return
        self.ledger.restore(ledger_row(r) for r in self.store.usage_rows(self.id))
        runs = [DelegationResult.from_dict(d) for d in self.store.subagents(self.id)]
        self.ledger.subagents.results[:0] = runs
        self._stored_subagents = len(self.ledger.subagents)

    def _guard_resume(self, loaded: Any) -> None:
        """Take over a stored session: prefix, transcript, turn count, guard state."""
        from ..store.database import LoadedSession

        assert isinstance(loaded, LoadedSession)
        runners = [r for r in (self.agent.prefix.runner(t.name) for t in self.agent.prefix.tools)]
        prefix = FrozenPrefix.from_dict(loaded.prefix, [r for r in runners if r is not None])
        self._use_prefix(prefix)
        self.transcript = Transcript([Message.from_dict(m) for m in loaded.messages])
        self.turn = loaded.record.turns
        self.settings = settings_from(loaded.record.settings, self.settings)
        self._store_created = True
        self._stored_messages = len(self.transcript)
        self._restore_ledger()
        last = loaded.last_request
        if last is None:
            self._resume_after_move(loaded.earlier_requests)
            return
        msgs = self.transcript.messages
        if len(loaded.message_turns) == len(msgs):
            # Only the messages of turns up to that request's: later turns that sent nothing
            # (code-path delegations) appended their pairs after it.
            msgs = msgs[: sum(1 for t in loaded.message_turns if t <= last.turn)]
        reply = msgs[-1] if msgs and msgs[-1].role == "assistant" else None
        if reply is not None:
            msgs = msgs[:-1]
        # Rebuild that request from the restored prefix, transcript and settings: equal bytes
        # mean the next request extends it exactly, so it will read what it cached.
        again: WireRequest | None
        try:
            again = self._hypothetical(last.api, last.model, prefix, self.settings, msgs)
        except (ValueError, KeyError, TypeError):
            again = None
        self.resume_verified = again is not None and again.body_bytes == canonical_bytes(last.body)
        # The last request's units tell the guard what is cached. Equal bytes give equal units,
        # so a verified rebuild's (computed incrementally) spare hashing the body again.
        if again is not None and self.resume_verified:
            units = again.units
        else:
            units = WireRequest(last.api, last.model, last.path, last.body).recomputed_units()
        req = WireRequest(
            last.api, last.model, last.path, last.body, units, last.cache_key,
            {"prefix": self.prefix.fingerprint, "session": self.id, "resumed": True},
        )
        echo: Mapping[str, Any] | None = None
        if reply is not None:
            # That request's reply: DeepSeek stored a unit through it, as observed live.
            echo = _chat_echo(req, Reply(reply.blocks, "end_turn", last.usage))
        pred = self.guard.predict(req, last.time)
        self.guard.observe(req, pred, last.usage, last.time, echo=echo)
        self.guard.breaks.clear()
        self.guard.rebilled_tokens = 0
        self.guard.rebilled_dollars = Decimal(0)
        self.requests.append(req)
        self.ledger.restore((), last=req)


    def _note_resumed_prefix(self) -> None:
        """The resume kept the stored prefix (it keeps the cache): when the agent's differs,
        the first send says so before its request, with the quote of moving (the user
        decides; nothing moves silently, in either direction)."""
        self.resumed = True
        if not self.resumed_prefix_differs:
            return
        quote: Quote | None
        try:
            quote = self.quote_prefix(self.agent_prefix)
        except (UserError, ProviderError):  # e.g. a model the price table does not know
            quote = None
        self.queued_events.append(
            ResumedPrefixDiffers(self.prefix.fingerprint, self.agent_prefix.fingerprint, quote)
        )

    def _resume_after_move(self, earlier: Sequence[StoredRequest]) -> None:
        """Nothing was sent on the current prefix before the stop (the last event moved the
        session: a compaction, a tool or prefix change). The guard learns what the cache holds
        from the requests before the move, seen again in order as the live session saw them, so
        the first request after the resume is predicted as it would have been without the stop
        (a hit on what the new prefix shares with them while within its TTL), not as a full
        miss. The store hands back those that may still hold entries (store.EARLIER_*)."""
        last: WireRequest | None = None
        for r in earlier:
            units = WireRequest(r.api, r.model, r.path, r.body).recomputed_units()
            # Not the current prefix: a keep-alive ping does not keep it warm, as live.
            meta: dict[str, Any] = {"prefix": "(before the move)", "session": self.id}
            meta["resumed"] = True
            if r.kind != "turn":
                meta["kind"] = r.kind  # summary, ping: as the live request's meta said
            req = WireRequest(r.api, r.model, r.path, r.body, units, r.cache_key, meta)
            self.guard.observe(req, self.guard.predict(req, r.time), r.usage, r.time)
            if r.kind == "summary":
                self.guard.forget_last()  # a compaction starts a new lineage, as it did live
            if r.kind not in ("ping", "abandoned"):  # its messages are not in the transcript
                last = req
        self.guard.breaks.clear()
        self.guard.rebilled_tokens = 0
        self.guard.rebilled_dollars = Decimal(0)
        if last is not None:
            self.requests.append(last)
            self.ledger.restore((), last=last)


def ledger_row(row: UsageRow) -> LedgerRow:
    """A stored request's figures as a ledger row. The ceiling is what was read plus what the
    guard counted as re-billed (after a model change the cache was the other model's: 0)."""
    ceiling = 0 if row.cause == "model" else row.usage.cache_read + row.rebilled
    return LedgerRow(
        seq=row.seq,
        time=row.time,
        model=row.model,
        api=row.api,
        usage=row.usage,
        cost=row.cost,
        cost_without_cache=row.cost_without_cache,
        ceiling=ceiling,
        rebilled=row.rebilled if row.cause else 0,
        cause=row.cause if row.rebilled else None,
        predicted_read=row.predicted_read,
        meta={} if row.kind == "turn" else {"kind": row.kind},
    )


def _detail(brk: CacheBreak | None) -> str:
    """What the store keeps beside a miss's cause: the guard's detail, and the provider's own
    verdict when cache diagnostics gave one."""
    if brk is None:
        return ""
    if brk.provider_verdict:
        return f"{brk.detail}; provider: {brk.provider_verdict}"
    return brk.detail


def _body_cache_key(body: Mapping[str, Any]) -> str | None:
    key = body.get("prompt_cache_key")
    return str(key) if isinstance(key, str) else None


def _agent_store(agent: Any) -> SessionStore | None:
    """The agent's store, opened once when it was given as a path."""
    store = getattr(agent, "store", None)
    if isinstance(store, (str, os.PathLike)):
        store = agent.store = SessionStore(store)
    return store if isinstance(store, SessionStore) else None


def refuse_stored_id(agent: Any, session_id: str) -> None:
    """A new session may not take the id of a stored one: its turns would be written over the
    stored session's messages. Continuing that session is `agent.resume(id)`."""
    store = _agent_store(agent)
    if store is None:
        return
    try:
        store.session(session_id)
    except UnknownSessionError:
        return
    raise StoreError(
        f"session {session_id!r} is already stored: continue it with agent.resume("
        f"{session_id!r}), or start a new session under another id",
        where=str(store.path),
    )


def resume_session(agent: Any, session_id: str, session_cls: Any) -> Any:
    """A Session continuing stored session `session_id` from its last completed turn."""
    store = _agent_store(agent)
    if store is None:
        raise UserError("resume needs a session store: Agent(..., store=SessionStore(path))")
    loaded = store.load(session_id)
    route = str(loaded.record.meta.get("route") or loaded.record.model)
    if route.rpartition(":")[2] != loaded.record.model:
        route = loaded.record.model  # a store written before the route was kept up to date
    session = session_cls(agent, session_id, agent.provider(route))
    session._guard_resume(loaded)
    session._note_resumed_prefix()
    return session
