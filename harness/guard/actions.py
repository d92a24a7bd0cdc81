"""Priced actions: what a session does that may break its cache, each quoted before it is done.

- switch the model: `quote_switch` / `switch_model`
- change the tools or the whole prefix: `quote_tools` / `change_tools`, `quote_prefix` /
  `change_prefix`
- change settings (effort, TTL...): `quote_effort` / `change_effort`
- compact the history: `quote_compaction` / `compact`

`PricedActionMethods` is those methods as a session offers them, each signature written once:
`Session` and the script-facing `SyncSession` both inherit it (`compact` sends a request, so it
is the session's own). They call the session's `PricedActions`, which works on the session's
state (`prefixlock.state.SessionState`): a quote builds the next request both ways and prices
the difference with the session's guard; an action that would lose cached tokens raises
QuoteRequired unless it is given its quote (made for the current state) or `policy="allow"`; on
a cold cache it costs nothing extra and proceeds without a SwitchWarning. A move queues its
events (SwitchWarning, PrefixChanged) for the next send and tells the store
(`prefixlock.store.recorder`).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Unpack

from ..canonical import canonical_bytes, fingerprint
from ..errors import ConfigError, PrefixError, UserError
from ..events import Event, PrefixChanged, SwitchWarning
from ..prefix import FrozenPrefix
from ..providers import Reply, SDKProvider, SessionInfo, make_builder, resolve_route
from ..providers.anthropic import without_message_breakpoints
from ..settings import Settings, SettingsChanges, settings_dict
from ..state import SessionAgent, SessionState
from ..store.recorder import Recorder
from ..tools import Tool, ToolLike, ToolSpec, as_spec
from ..transcript import Message, Transcript, text_block
from ..wire import WireRequest
from .compaction import (
    DEFAULT_INSTRUCTION,
    SummaryPlacement,
    compacted,
    estimate_summary_tokens,
    resolve_placement,
    summary_messages,
)
from .economics import TaskProfile
from .quote import Quote, QuoteRequired, check_quote, default_task, price_action
from .tracker import GuardTracker

POLICIES = ("allow", "confirm")
RECENT_REQUESTS = 10  # how many recent requests profile the work a switch is compared with

# Sends a request outside a turn (apart from pings, predicted and budgeted as a turn's request
# is); its stream's other events go to the list. Returns the reply and when it was sent.
SendAside = Callable[[WireRequest, list[Event]], Awaitable[tuple[Reply, float]]]


def hypothetical_request(
    api: str,
    model: str,
    prefix: FrozenPrefix,
    settings: Settings,
    messages: Sequence[Message],
    info: SessionInfo,
    volatile: Sequence[str] = (),
) -> WireRequest:
    """The request session `info` would send with these parts (nothing is sent)."""
    # A fresh builder: the live one's incremental memo must not see hypothetical turns.
    return make_builder(api, model).build_request(prefix, messages, settings, info, volatile)


class PricedActions:
    """Quotes and applies one session's cache-breaking actions."""

    def __init__(
        self,
        state: SessionState,
        agent: SessionAgent,
        tracker: GuardTracker,
        recorder: Recorder,
        choose: Callable[[Callable[[Settings], WireRequest]], WireRequest],
    ) -> None:
        self.state = state
        self.agent = agent  # its base URL and prices route a switch; it makes the provider
        self.tracker = tracker
        self.recorder = recorder
        self.quotes: list[Quote] = []  # every quote made, in order
        # How the next request's settings are chosen from a builder (the policy's:
        # TurnEndRunner.choose), so a quote prices the request that will go out.
        self.choose = choose
        self._retired: list[SDKProvider] = []
        self._close_tasks: list[asyncio.Task[None]] = []

    # ---- pricing -----------------------------------------------------------------------------

    def _next_messages(self, next_message: str | None) -> list[Message]:
        s = self.state
        blocks: list[Any] = [*s.pending_results, text_block(next_message or "(next message)")]
        return [*s.transcript.messages, Message.user(blocks)]

    def _averages(self) -> tuple[int, int]:
        """(output tokens, new input tokens) per request so far, for next-turn estimates."""
        rows = self.state.ledger.rows
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
        ledger = self.state.ledger
        rows = [r for r in ledger.rows if r.meta.get("kind") not in other]
        # A bounded ledger's older rows count too (folded by kind).
        count = len(rows) + sum(p.count for k, p in ledger.folded.items() if k not in other)
        turns = max(self.state.turn, 1)
        per_turn = max(round(count / turns), 1) if count else 1
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
        task: TaskProfile | None = None,
    ) -> Quote:
        s = self.state
        messages = self._next_messages(next_message)
        without = self.choose(
            lambda st: hypothetical_request(s.provider.api, s.model, s.prefix, st, messages, s.info)
        )
        with_messages = messages if with_messages is None else with_messages
        with_ = hypothetical_request(api, model, prefix, settings, with_messages, s.info)
        out, new = self._averages()
        if task is None and action == "switch_model":
            recent_new, recent_out, per_turn = self._recent_turns()
            task = default_task(with_.input_tokens, recent_new, recent_out, per_turn)
        q = price_action(
            self.tracker.guard,
            action,
            without,
            with_,
            s.clock.now(),
            session_id=s.id,
            state=s.fingerprint(),
            output_tokens=out,
            new_tokens=new,
            target=target,
            extra_dollars=extra,
            task=task,
        )
        self.quotes.append(q)
        return q

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
        self.tracker.check_action(q, what)

    def _warn(self, action: str, q: Quote | None) -> None:
        if q is not None and q.warns:
            self.state.queued_events.append(SwitchWarning(action, q))

    # ---- model -------------------------------------------------------------------------------

    def price_switch(self, model: str, next_message: str | None, task: TaskProfile | None) -> Quote:
        """The quote of switching to `model` (compared with a subagent doing `task` there)."""
        route = resolve_route(model, self.agent.base_url, self.agent.prices)
        return self._price(
            "switch_model",
            api=route.api,
            model=route.model,
            prefix=self.state.prefix,
            settings=self.state.settings,
            next_message=next_message,
            target=route.label,
            task=task,
        )

    def apply_switch(self, model: str, quote: Quote | None, policy: str | None) -> Quote:
        """Move to `model`: a provider for it, the old one closed; a warm cache needs the quote
        (or policy)."""
        s = self.state
        route = resolve_route(model, self.agent.base_url, self.agent.prices)
        if s.settings.max_dollars is not None and self.agent.prices.lookup(route.model) is None:
            # As Agent() refuses it: the ledger never prices that model, so the dollar limit
            # would silently stop counting after the switch.
            raise ConfigError(
                f"model {route.model!r} is not in the price table, so the dollar limit cannot "
                "be kept: add it with a prices file (PREFIXLOCK_PRICES) or drop max_dollars",
                where="settings.max_dollars",
            )
        check_quote(quote, action="switch_model", state=s.fingerprint(), target=route.label)
        q = self._current(quote, lambda: self.price_switch(model, None, None))
        self._authorize(q, quote, policy, f"switching to {route.model}")
        if route.label == s.provider.route.label:
            return q
        provider = self.agent.provider(route.label)
        old = s.provider
        old_fp = s.prefix.fingerprint
        s.provider = provider
        self._retire(old)
        self._warn("switch_model", q)
        s.queued_events.append(PrefixChanged("model", old_fp, s.prefix.fingerprint, s.model))
        self.recorder.model_changed()
        return q

    def _retire(self, provider: SDKProvider) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._retired.append(provider)
            return
        self._close_tasks.append(loop.create_task(provider.aclose()))

    async def close_retired(self) -> None:
        """Close the providers that switches left behind."""
        for p in self._retired:
            await p.aclose()
        self._retired = []
        if self._close_tasks:
            await asyncio.gather(*self._close_tasks, return_exceptions=True)
            self._close_tasks = []

    # ---- tools and prefix --------------------------------------------------------------------

    def with_tools(
        self,
        tools: Iterable[ToolLike] | None,
        add: Iterable[ToolLike] | Tool | ToolSpec,
        remove: Iterable[str] | str,
    ) -> FrozenPrefix:
        """The session's prefix with a new tool set (the whole list, or tools added / removed
        by name)."""
        prefix = self.state.prefix
        current: dict[str, ToolLike] = {}
        for spec in prefix.tools:
            current[spec.name] = prefix.runner(spec.name) or spec
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
        return prefix.replace(tools=list(current.values()))

    def price_move(self, what: str, prefix: FrozenPrefix, next_message: str | None) -> Quote:
        """The quote of action `change_{what}` (tools, prefix): the same model and settings on
        `prefix`."""
        s = self.state
        return self._price(
            f"change_{what}",
            api=s.provider.api,
            model=s.model,
            prefix=prefix,
            settings=s.settings,
            next_message=next_message,
            target=prefix.fingerprint,
        )

    def apply_move(
        self, what: str, prefix: FrozenPrefix, quote: Quote | None, policy: str | None
    ) -> Quote:
        """change_tools / change_prefix: the quote must be for this move; a cache gone cold
        since is priced again; a warm one needs the quote (or policy); then the move."""
        check_quote(
            quote,
            action=f"change_{what}",
            state=self.state.fingerprint(),
            target=prefix.fingerprint,
        )
        q = self._current(quote, lambda: self.price_move(what, prefix, None))
        self._authorize(q, quote, policy, f"changing the {what}")
        s = self.state
        old_fp = s.prefix.fingerprint
        if prefix.fingerprint == old_fp:
            return q
        s.prefix = prefix
        self._warn(f"change_{what}", q)
        s.queued_events.append(PrefixChanged(what, old_fp, prefix.fingerprint, s.model))
        self.recorder.prefix_moved()
        return q

    # ---- settings ----------------------------------------------------------------------------

    def _changed_settings(self, changes: Mapping[str, Any]) -> Settings:
        try:
            return self.state.settings.with_(**changes)
        except TypeError:
            known = ", ".join(f.name for f in dataclasses.fields(Settings))
            raise UserError(
                f"unknown setting in {sorted(changes)}; settings are: {known}", where="settings"
            ) from None

    def price_settings(self, changes: Mapping[str, Any], next_message: str | None) -> Quote:
        """The quote of the settings with `changes` (same model and prefix)."""
        s = self.state
        new_settings = self._changed_settings(changes)
        return self._price(
            "change_effort",
            api=s.provider.api,
            model=s.model,
            prefix=s.prefix,
            settings=new_settings,
            next_message=next_message,
            target=fingerprint(canonical_bytes(settings_dict(new_settings))),
        )

    def apply_settings(
        self, changes: Mapping[str, Any], quote: Quote | None, policy: str | None
    ) -> Quote:
        """Apply `changes` to the settings; one that breaks a warm cache needs its quote."""
        new_settings = self._changed_settings(changes)
        target = fingerprint(canonical_bytes(settings_dict(new_settings)))
        check_quote(quote, action="change_effort", state=self.state.fingerprint(), target=target)
        q = self._current(quote, lambda: self.price_settings(changes, None))
        self._authorize(q, quote, policy, "changing effort / settings")
        self.state.settings = new_settings
        self._warn("change_effort", q)
        return q

    # ---- compaction --------------------------------------------------------------------------

    def price_compaction(
        self,
        placement: SummaryPlacement | None,
        next_message: str | None,
        route: SDKProvider | None = None,
    ) -> Quote:
        """The quote of compacting now: the summary request (on `route`, default the session's
        provider) plus the next turn after it. `placement` None: the session's wire API's
        (`resolve_placement`)."""
        s = self.state
        placement = resolve_placement(placement, s.provider.api)
        on = s.provider if route is None else route
        summary_tokens = estimate_summary_tokens(s.transcript.tokens)
        plan = compacted(s.prefix, "x " * summary_tokens, placement)
        messages = [*plan.messages, Message.user(next_message or "(next message)")]
        # The summary request itself: reads the cached history; the instruction is not cached.
        _, extra = self._summary_request(
            hypothetical_request(
                on.api,
                on.model,
                s.prefix,
                s.settings,
                summary_messages(s.transcript.messages, s.pending_results),
                s.info,
                (DEFAULT_INSTRUCTION,),
            ),
            summary_tokens,
        )
        return self._price(
            "compact",
            api=s.provider.api,
            model=s.model,
            prefix=plan.prefix,
            settings=s.settings,
            next_message=next_message,
            target="compact",
            with_messages=messages,
            extra=extra,
        )

    def summary_dollars(self, api: str, model: str) -> Decimal | None:
        """What a summary request of this session costs on `model` (over wire API `api`), by
        the guard's prediction of that model's cache (None: unpriced). After an excursion to
        another model, the model the session comes back to may still hold nearly all of the
        history, at a lower output price than the model that answered last."""
        s = self.state
        if self.tracker.guard.price(model) is None:
            return None
        summary_tokens = estimate_summary_tokens(s.transcript.tokens)
        request = hypothetical_request(
            api,
            model,
            s.prefix,
            s.settings,
            summary_messages(s.transcript.messages, s.pending_results),
            s.info,
            (DEFAULT_INSTRUCTION,),
        )
        return self._summary_request(request, summary_tokens)[1]

    def _summary_request(
        self, request: WireRequest, summary_tokens: int
    ) -> tuple[WireRequest, Decimal]:
        """The cheaper way to send a summary request, by the guard's prediction, and its cost:
        as built (the history read from the cache, its new tail written), or, on Anthropic,
        with no breakpoint in the messages (the history plain input at 1x). Nothing reads the
        history after a compaction, so once the cache has expired (an idle gap with keep-alive
        off, a resume) a write at 1.25x would be paid for nothing."""
        guard = self.tracker.guard
        price = guard.price(request.model)
        if price is None:
            return request, Decimal(0)
        now = self.state.clock.now()
        options = [request]
        if request.api == "anthropic":
            options.append(without_message_breakpoints(request))
        costs = [price.cost(guard.predict(r, now).usage(summary_tokens)) for r in options]
        best = min(range(len(options)), key=lambda i: (costs[i], i))  # ties: as built
        return options[best], costs[best]

    async def compact(
        self,
        send: SendAside,
        *,
        instruction: str,
        quote: Quote | None,
        policy: str | None,
        placement: SummaryPlacement | None,
        route: SDKProvider | None = None,
    ) -> list[Event]:
        """Summarize with a request that reads the cache (built for `route`, default the
        session's provider, and sent by `send`), then move to the compacted prefix. Returns the
        events (the summary's usage, warnings, PrefixChanged). `placement` None: the session's
        wire API's, as for the automatic compaction (`resolve_placement`); the session's, not
        the route's, since the compacted context runs on the session's provider."""
        s = self.state
        on = s.provider if route is None else route
        placement = resolve_placement(placement, s.provider.api)  # checked before sending
        check_quote(quote, action="compact", state=s.fingerprint())
        q = self._current(quote, lambda: self.price_compaction(placement, None, route))
        self._authorize(q, quote, policy, "compacting")
        if not s.transcript.messages:
            raise UserError("nothing to compact: the session has no messages", where="compact")
        # The instruction goes after the last breakpoint (volatile): it is read once, by this
        # request, so writing it to the cache would cost 1.25x for nothing.
        history = s.transcript.messages
        pending = summary_messages(history, s.pending_results)[len(history) :]
        as_built = on.build_request(s.prefix, history, s.settings, s.info, (instruction,), pending)
        built, _ = self._summary_request(as_built, estimate_summary_tokens(s.transcript.tokens))
        request = dataclasses.replace(built, meta={**built.meta, "kind": "summary"})
        events = s.take_queued()
        reply, started = await send(request, events)
        row, observed = self.tracker.completed(request, reply, started, meta={"kind": "summary"})
        events.extend(observed)
        if q.warns:
            events.append(SwitchWarning("compact", q))
        plan = compacted(s.prefix, reply.text, placement)
        old_fp = s.prefix.fingerprint
        s.pending_results = []
        s.prefix = plan.prefix
        s.transcript = Transcript(plan.messages)
        s.requests.append(request)
        s.compactions += 1
        self.tracker.guard.forget_last()
        new_fp = plan.prefix.fingerprint
        if placement == "messages":
            new_fp = fingerprint(f"{new_fp}:{s.transcript.chain()}".encode())
        events.append(PrefixChanged("compaction", old_fp, new_fp, s.model))
        self.recorder.compacted(request, row, self.tracker.last_break)
        return events


class PricedActionMethods:
    """The priced actions as a session offers them, each written once: `Session` and
    `SyncSession` inherit these, and `actions` is the session's `PricedActions` (a sync
    session's is its session's).

    An action that would lose cached tokens raises QuoteRequired unless it is given its quote
    (made for the current state) or policy="allow"; a quote for another state raises
    StaleQuote. On a cold cache it costs nothing extra and proceeds without a SwitchWarning."""

    actions: PricedActions

    def quote_switch(
        self, model: str, *, next_message: str | None = None, task: TaskProfile | None = None
    ) -> Quote:
        """Price switching this session to `model` before doing it. `next_message` makes the
        next-turn figures exact. The quote compares the switch with running the work in a
        subagent on `model`: `task` (a prefixlock.guard.economics.TaskProfile) names that work;
        by default it is one user turn like the recent ones (`quote.default_task`)."""
        return self.actions.price_switch(model, next_message, task)

    def switch_model(
        self, model: str, *, quote: Quote | None = None, policy: str | None = None
    ) -> Quote:
        """Move the session to `model`. A warm cache needs the quote (or policy='allow')."""
        return self.actions.apply_switch(model, quote, policy)

    def quote_tools(
        self,
        tools: Iterable[ToolLike] | None = None,
        *,
        add: Iterable[ToolLike] | Tool | ToolSpec = (),
        remove: Iterable[str] | str = (),
        next_message: str | None = None,
    ) -> Quote:
        """Price a new tool set (the whole list, or tools added / removed by name)."""
        prefix = self.actions.with_tools(tools, add, remove)
        return self.actions.price_move("tools", prefix, next_message)

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
        prefix = self.actions.with_tools(tools, add, remove)
        return self.actions.apply_move("tools", prefix, quote, policy)

    def quote_prefix(self, prefix: FrozenPrefix, *, next_message: str | None = None) -> Quote:
        """Price moving the session to another frozen prefix (system prompt and/or tools)."""
        return self.actions.price_move("prefix", prefix, next_message)

    def change_prefix(
        self, prefix: FrozenPrefix, *, quote: Quote | None = None, policy: str | None = None
    ) -> Quote:
        """Move the session to `prefix`. A warm cache needs the quote (or policy='allow')."""
        return self.actions.apply_move("prefix", prefix, quote, policy)

    def quote_effort(
        self, *, next_message: str | None = None, **changes: Unpack[SettingsChanges]
    ) -> Quote:
        """Price a settings change (effort, TTL...): what it does to the cache."""
        return self.actions.price_settings(changes, next_message)

    def change_effort(
        self,
        *,
        quote: Quote | None = None,
        policy: str | None = None,
        **changes: Unpack[SettingsChanges],
    ) -> Quote:
        """Apply a settings change. One that breaks a warm cache needs its quote (or policy)."""
        return self.actions.apply_settings(changes, quote, policy)

    def quote_compaction(
        self, *, placement: SummaryPlacement | None = None, next_message: str | None = None
    ) -> Quote:
        """Price compacting now: the summary request plus the next turn on the new prefix
        (`compact(quote=)` does it). `placement` None (the default): where the session's wire
        API keeps the cached prefix whole (`compaction.resolve_placement`)."""
        return self.actions.price_compaction(placement, next_message)
