"""Resume: a Session rebuilt from the store, so that its next request reads the cache.

`resume_session(agent, id)` loads stored session `id` and continues it from its last completed
turn: the stored prefix (its tools run by the agent's functions of the same names), transcript,
turn count and settings come back, the ledger gets the stored rows, and the guard replays the
stored requests, so the first request after the resume is predicted as it would have been
without the stop. The last stored request is rebuilt from the restored parts: equal bytes
(`Session.resume_verified`) mean the next request extends it exactly. When the resuming agent's
prefix differs from the stored one, the session stays on the stored one (that is what reads the
cache) and its first send says so (`ResumedPrefixDiffers`, with the quote of moving).

`refuse_stored_id` keeps a new session from taking a stored session's id.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..billing.ledger import LedgerRow
from ..cache.units import unit_bytes
from ..delegation import DelegationResult
from ..errors import ConfigError, ProviderError, UserError
from ..events import ResumedPrefixDiffers
from ..guard.actions import hypothetical_request
from ..guard.quote import Quote
from ..guard.tracker import chat_echo
from ..prefix import FrozenPrefix
from ..providers import Reply
from ..session import Session
from ..settings import TTL, Settings, SettingsChanges, settings_from
from ..state import SessionAgent
from ..transcript import Message, Transcript
from ..wire import WireRequest
from .errors import StoreError, UnknownSessionError
from .leases import Lease
from .records import LoadedSession, StoredRequest, UsageRow

TTLS: tuple[TTL, ...] = ("5m", "1h")


def resume_session(
    agent: SessionAgent,
    session_id: str,
    *,
    fork: bool | str = False,
    wait: float = 0.0,
    on_wait: Callable[[Lease | None], object] | None = None,
) -> Session:
    """A Session continuing stored session `session_id` from its last completed turn.

    The session is written by one process at a time: while another holds it (a second
    `prefixlock chat --resume` of it) this raises SessionBusyError, after waiting up to `wait`
    seconds (of the store's clock: the agent's, when it opened the store) for it to close;
    `on_wait(holder)` is called once if it has to wait. `fork=True` (or a new id) continues a
    copy of its history under a new id instead, whoever holds the original.
    """
    store = agent.open_store()
    if store is None:
        raise UserError("resume needs a session store: Agent(..., store=SessionStore(path))")
    if fork:
        new_id = fork if isinstance(fork, str) else uuid.uuid4().hex
        store.fork(session_id, new_id, time=agent.clock.now())
        session_id = new_id
    else:
        store.session(session_id)  # an unknown id says so, not that it is busy
    store.acquire(session_id, wait=wait, on_wait=on_wait)
    try:
        loaded = store.load(session_id)
        route = str(loaded.record.meta.get("route") or loaded.record.model)
        if route.rpartition(":")[2] != loaded.record.model:
            route = loaded.record.model  # a store written before the route was kept up to date
        session = Session(agent, session_id, agent.provider(route))
        _restore(session, loaded)
        _note_resumed_prefix(session)
    except BaseException:
        store.release(session_id)
        raise
    return session


def refuse_stored_id(agent: SessionAgent, session_id: str) -> None:
    """A new session may not take the id of a stored one: its turns would be written over the
    stored session's messages. Continuing that session is `agent.resume(id)`."""
    store = agent.open_store()
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


def _restore(session: Session, loaded: LoadedSession) -> None:
    """Take over a stored session: prefix, transcript, turn count, ledger, guard state."""
    state = session.state
    agent_prefix = session.agent_prefix
    runners = [agent_prefix.runner(t.name) for t in agent_prefix.tools]
    state.prefix = FrozenPrefix.from_dict(loaded.prefix, [r for r in runners if r is not None])
    state.transcript = Transcript([Message.from_dict(m) for m in loaded.messages])
    state.turn = loaded.record.turns
    state.settings = settings_from(loaded.record.settings, state.settings)
    _restore_ledger(session)
    session.recorder.resumed()  # what the session holds now is stored already
    last = loaded.last_request
    if last is None:
        _replay_before_move(session, loaded.earlier_requests)
        return
    msgs = state.transcript.messages
    if len(loaded.message_turns) == len(msgs):
        # Only the messages of turns up to that request's: later turns that sent nothing
        # (code-path delegations) appended their pairs after it.
        msgs = msgs[: sum(1 for t in loaded.message_turns if t <= last.turn)]
    reply = msgs[-1] if msgs and msgs[-1].role == "assistant" else None
    if reply is not None:
        msgs = msgs[:-1]
    # Rebuild that request from the restored prefix, transcript and settings: equal bytes
    # mean the next request extends it exactly, so it will read what it cached. The settings
    # that shape a request (effort, output limit, temperature; the TTLs, which only place
    # breakpoints) are the ones it went out with: a change made mid-session (`/effort`)
    # lives in the requests, not in the session's row.
    again: WireRequest | None = None
    verified = False
    sent = _sent_settings(last.api, last.body, state.settings)
    for settings in _candidates(sent):
        try:
            built = hypothetical_request(
                last.api, last.model, state.prefix, settings, msgs, state.info
            )
        except (ValueError, KeyError, TypeError):
            continue
        if again is None:
            again = built
        if same_request(built.body, last.body):
            again, verified = built, True
            # A held reply is the policy's choice for that request, not the session's TTLs.
            state.settings = settings if settings.history_ttl == sent.history_ttl else sent
            break
    else:
        state.settings = sent
    session.resume_verified = verified
    # The last request's units tell the guard what is cached. Equal bytes give equal units,
    # so a verified rebuild's (computed incrementally) spare hashing the body again.
    if again is not None and verified:
        units = again.units
    else:
        units = WireRequest(last.api, last.model, last.path, last.body).recomputed_units()
    req = WireRequest(
        last.api,
        last.model,
        last.path,
        last.body,
        units,
        last.cache_key,
        {"prefix": state.prefix.fingerprint, "session": state.id, "resumed": True},
    )
    echo: Mapping[str, Any] | None = None
    if reply is not None:
        # That request's reply: DeepSeek stored a unit through it, as observed live.
        echo = chat_echo(req, Reply(reply.blocks, "end_turn", last.usage))
    session.tracker.replay(req, last.usage, last.time, echo)
    session.tracker.replayed()
    state.requests.append(req)
    state.ledger.restore((), last=req)


def same_request(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Do two request bodies read as the same prompt to a provider's cache? Structure in any
    key order; a tool call's arguments and a tool's schema in the order written (they are
    rendered into the prompt as sent: prefixlock.cache.units.unit_bytes)."""
    return unit_bytes(a) == unit_bytes(b)


def _sent_settings(api: str, body: Mapping[str, Any], base: Settings) -> Settings:
    """`base` with the effort, output limit and temperature a stored request was sent with
    (each API spells them its own way)."""
    if api == "anthropic":
        limit, effort = body.get("max_tokens"), _get(body.get("output_config"), "effort")
    elif api == "openai-responses":
        limit, effort = body.get("max_output_tokens"), _get(body.get("reasoning"), "effort")
    else:
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        effort = body.get("reasoning_effort")
    changes: SettingsChanges = {"effort": effort if isinstance(effort, str) else None}
    temperature = body.get("temperature")
    changes["temperature"] = float(temperature) if isinstance(temperature, int | float) else None
    if isinstance(limit, int) and not isinstance(limit, bool):
        changes["max_tokens"] = limit
    try:
        return base.with_(**changes)
    except (TypeError, ValueError):
        return base


def _get(value: object, key: str) -> object:
    return value.get(key) if isinstance(value, Mapping) else None


def _candidates(sent: Settings) -> list[Settings]:
    """The settings to rebuild the last request with, likeliest first: as sent, then each
    TTL pair (the breakpoints' TTL is in the body only where it is 1h)."""
    out = [sent]
    for ttl in TTLS:
        for prefix_ttl in (None, *TTLS):
            for history_ttl in (None, *TTLS):  # the policy's per-request longer mark
                try:
                    other = replace(sent, ttl=ttl, prefix_ttl=prefix_ttl, history_ttl=history_ttl)
                except ConfigError:  # a 1h conversation after a 5m prefix: never sent
                    continue
                if other != sent and other not in out:
                    out.append(other)
    return out


def _restore_ledger(session: Session) -> None:
    """The ledger answers for the whole stored session, not only what follows the resume:
    its rows come back from the store's usage rows (no request body is rebuilt), and the
    subagent runs charged to it."""
    store = session.recorder.store
    if store is None:
        return
    ledger = session.ledger
    ledger.restore(ledger_row(r) for r in store.usage_rows(session.id))
    runs = [DelegationResult.from_dict(d) for d in store.subagents(session.id)]
    ledger.subagents.results[:0] = runs


def _replay_before_move(session: Session, earlier: Sequence[StoredRequest]) -> None:
    """Nothing was sent on the current prefix before the stop (the last event moved the
    session: a compaction, a tool or prefix change). The guard learns what the cache holds
    from the requests before the move, seen again in order as the live session saw them, so
    the first request after the resume is predicted as it would have been without the stop
    (a hit on what the new prefix shares with them while within its TTL), not as a full
    miss. The store hands back those that may still hold entries (store.EARLIER_*)."""
    tracker = session.tracker
    last: WireRequest | None = None
    for r in earlier:
        units = WireRequest(r.api, r.model, r.path, r.body).recomputed_units()
        # Not the current prefix: a keep-alive ping does not keep it warm, as live.
        meta: dict[str, Any] = {"prefix": "(before the move)", "session": session.id}
        meta["resumed"] = True
        if r.kind != "turn":
            meta["kind"] = r.kind  # summary, ping: as the live request's meta said
        req = WireRequest(r.api, r.model, r.path, r.body, units, r.cache_key, meta)
        tracker.replay(req, r.usage, r.time)
        if r.kind == "summary":
            tracker.guard.forget_last()  # a compaction starts a new lineage, as it did live
        if r.kind not in ("ping", "abandoned"):  # its messages are not in the transcript
            last = req
    tracker.replayed()
    if last is not None:
        session.state.requests.append(last)
        session.ledger.restore((), last=last)


def _note_resumed_prefix(session: Session) -> None:
    """The resume kept the stored prefix (it keeps the cache): when the agent's differs,
    the first send says so before its request, with the quote of moving (the user
    decides; nothing moves silently, in either direction)."""
    session.resumed = True
    if not session.resumed_prefix_differs:
        return
    quote: Quote | None
    try:
        quote = session.quote_prefix(session.agent_prefix)
    except (UserError, ProviderError):  # e.g. a model the price table does not know
        quote = None
    session.state.queued_events.append(
        ResumedPrefixDiffers(session.prefix.fingerprint, session.agent_prefix.fingerprint, quote)
    )


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
