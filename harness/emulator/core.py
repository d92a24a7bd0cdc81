"""The emulator's decisions for one request, without HTTP: which cache lookup it gets, what usage
it reports, its response body and stream events, and what it stores once answered.

Pure: no sockets, threads or clock reads. The time comes in as `now`, the request as the
parsed body; the server calls an EmulatorCore under its own lock, writes what comes back, and
commits a plan's cache writes when the response starts. Each provider reports usage its own way,
and the plan carries it exactly as the client gets it:
- Anthropic: disjoint counters (`input_tokens` is what was neither read nor written;
  `cache_read_input_tokens`, `cache_creation_input_tokens` with its 5m/1h split);
- OpenAI: prompt/input tokens INCLUDE the cached ones (`*_tokens_details.cached_tokens`; the
  write, where the model bills it, as `cache_write_tokens`);
- DeepSeek (Chat Completions): `prompt_cache_hit_tokens` and `prompt_cache_miss_tokens`.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import itertools
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..billing.prices import Price, PriceTable
from ..cache.openai import retention_seconds
from ..cache.units import (
    anthropic_units,
    openai_cache_options,
    openai_explicit_cache,
    openai_reply_chain,
    openai_tokens,
    openai_units,
)
from . import anthropic_api, openai_api
from .answers import Answer, Event, error_answer, json_answer
from .apierror import ApiError
from .config import EmulatorConfig
from .diagnostics import (
    ANTHROPIC_FIELD,
    ANTHROPIC_REF,
    OPENAI_FIELD,
    OPENAI_REF,
    DiagnosticsMemory,
    anthropic_diagnostics,
    openai_diagnostics,
    requested_ref,
)
from .faults import FaultQueue
from .model import Reply, Script, ScriptedModel
from .promptcache import (
    AnthropicPromptCache,
    DeepSeekPromptCache,
    OpenAIPromptCache,
    PendingWrite,
    key_id,
)
from .responses_state import ResponsesState, input_items


class _Store(Protocol):
    def commit(self, pending: PendingWrite, now: float) -> None: ...


@dataclass
class Plan:
    """A successful response, decided but not yet written, and the cache writes it makes."""

    body: dict[str, Any]
    events: list[Event] | None  # the stream, when the request asked for one
    done_marker: bool  # the stream ends with `data: [DONE]` (Chat Completions)
    usage: dict[str, Any]  # exactly as reported to the client
    store: _Store  # the cache that `pending` goes into
    pending: PendingWrite
    machine: int | None = None  # the simulated machine that served it, where there are several
    api: str = "anthropic"  # anthropic | openai-chat | openai-responses: the stream's error shape


@dataclass(frozen=True)
class _Cached:
    """What an OpenAI-style cache lookup decided: the usage to report and the writes to make."""

    usage: dict[str, Any]
    store: _Store
    pending: PendingWrite
    machine: int | None


class EmulatorCore:
    """The emulator's state (caches, scripted model, faults, ids) and its decisions on it."""

    def __init__(
        self, config: EmulatorConfig, prices: PriceTable, script: Script | None = None
    ) -> None:
        self.config = config
        self.prices = prices
        self.model: ScriptedModel = ScriptedModel(script)
        self.anthropic_cache: AnthropicPromptCache = AnthropicPromptCache(
            config.anthropic, config.seed
        )
        # Every response's model and unit hashes, for clients that ask why they missed.
        self.diagnostics: DiagnosticsMemory = DiagnosticsMemory()
        self.openai_cache: OpenAIPromptCache = OpenAIPromptCache(config.openai, config.seed)
        self.deepseek_cache: DeepSeekPromptCache = DeepSeekPromptCache(
            config.openai.capacity_blocks
        )
        self.faults: FaultQueue = FaultQueue(config.faults)
        # The Responses API's stored responses and conversations.
        self.responses: ResponsesState = ResponsesState(config.stored_responses)
        self._ids = itertools.count(1)

    def next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    # ---- the caches ------------------------------------------------------------------------

    def commit(self, plan: Plan, now: float) -> None:
        """The response starts at `now`: from here on its cache writes are readable. Every
        cache forgets what expired by then, whichever API the request used, so a long-running
        server (`prefixlock serve`) holds only what is still within its TTL."""
        plan.store.commit(plan.pending, now)
        self.anthropic_cache.drop_expired(now)
        self.openai_cache.drop_expired(now)
        self.deepseek_cache.drop_expired(now)

    def evict(self, model: str | None = None, api_key: str | None = None) -> int:
        """Drop cached prefixes (all, one model's, or on Anthropic's cache one key's): see
        Emulator.evict. Returns the entries dropped."""
        if model is not None:
            price = self.prices.lookup(model)
            model = price.model if price is not None else model
        scope = key_id(api_key) if api_key is not None else None
        return (
            self.anthropic_cache.evict(model, scope)
            + self.openai_cache.evict(model, scope)
            + self.deepseek_cache.evict(model, scope)
        )

    # ---- requests --------------------------------------------------------------------------

    def price(self, model: str, flavor: str) -> Price:
        """The price entry of a requested model, or the 404 its provider answers (a model of
        the other provider's family is not found either)."""
        price = self.prices.lookup(model)
        family_ok = price is not None and (
            (flavor == "anthropic") == (price.provider == "anthropic")
        )
        if price is None or not family_ok:
            if flavor == "anthropic":
                raise ApiError(404, f"model: {model}", param="model")
            raise ApiError(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                param="model",
            )
        return price

    def count_tokens(self, body: Any) -> dict[str, Any]:
        """POST /v1/messages/count_tokens: checked like a message, nothing cached or answered."""
        anthropic_api.validate(body, count_tokens=True)
        self.price(body["model"], "anthropic")
        units = anthropic_units(body)
        anthropic_api.check_breakpoints(units, self.config.anthropic.max_breakpoints, body)
        return {"input_tokens": units[-1].end if units else 0}

    def plan(self, api: str, body: Any, api_key: str, now: float) -> Plan:
        """The response to a request of `api` (anthropic | openai-chat | openai-responses)."""
        if api == "anthropic":
            return self._plan_anthropic(body, api_key, now)
        return self._plan_openai(body, api_key, now, responses=api == "openai-responses")

    def _plan_anthropic(self, body: Any, api_key: str, now: float) -> Plan:
        anthropic_api.validate(body)
        price = self.price(body["model"], "anthropic")
        units = anthropic_units(body)
        anthropic_api.check_breakpoints(units, self.config.anthropic.max_breakpoints, body)
        check_window(price, units[-1].end if units else 0, int(body["max_tokens"]), "anthropic")
        outcome = self.anthropic_cache.lookup(
            key_id(api_key), price.model, units, price.min_cacheable_tokens, now
        )
        warmup = body["max_tokens"] == 0
        reply = None if warmup else self.model.reply(anthropic_api.conversation(body))
        msg = anthropic_api.message(body, reply, outcome, self.next_id("msg_emu_"))
        asked, ref = requested_ref(body, ANTHROPIC_FIELD, ANTHROPIC_REF)
        if asked:
            reason = self.diagnostics.verdict(
                ref, price.model, units, outcome.cache_read, price.min_cacheable_tokens
            )
            msg["diagnostics"] = anthropic_diagnostics(ref, reason)
            self.diagnostics.remember(msg["id"], price.model, units)
        events: list[Event] | None = None
        if body.get("stream"):
            events = list(anthropic_api.sse_events(msg, self.config.stream_chunk_chars))
        machine = outcome.machine if self.config.anthropic.machines > 1 else None
        return Plan(
            msg, events, False, dict(msg["usage"]), self.anthropic_cache, outcome.pending, machine
        )

    def _plan_openai(self, body: Any, api_key: str, now: float, *, responses: bool) -> Plan:
        mod = openai_api
        scope = key_id(api_key)
        request = body
        resolved = None
        if responses:
            mod.validate_responses(body)
            # previous_response_id / conversation: the model and the cache see the whole input.
            resolved = self.responses.resolve(body, scope)
            body = resolved.body
            mod.check_function_outputs(body)
        else:
            mod.validate_chat(body)
        price = self.price(body["model"], "openai")
        explicit_model = price.provider == "openai" and openai_explicit_cache(price.model)
        mod.check_prompt_cache(body, responses=responses, explicit_model=explicit_model)
        if price.context_window is not None:
            if responses and body.get("truncation") == "auto":
                body = truncated(body, price.context_window)
            limit = mod.responses_output_limit(body) if responses else mod.chat_output_limit(body)
            prompt = openai_units(body)[-1].end
            check_window(price, prompt, limit or 0, "openai-responses" if responses else "chat")
        conv = mod.conversation_responses(body) if responses else mod.conversation_chat(body)
        # Responses' prompt_cache_options.prewarm: "Prepares the prompt cache without generating
        # output" (the SDK's docs): the cache is read and written as for any request, the
        # model is not asked (its script does not move) and no output is billed.
        opts = body.get("prompt_cache_options")
        prewarm = responses and isinstance(opts, Mapping) and opts.get("prewarm") is True
        reply = Reply("") if prewarm else self.model.reply(conv)
        # The cap bills as the real API does: a keep-alive ping is billed its cap (1 token on
        # Chat, 16 on Responses), and a DeepSeek unit stores the reply as cut (what the client
        # sends back).
        limit = mod.responses_output_limit(body) if responses else mod.chat_output_limit(body)
        reply, output_tokens, cut = mod.cap_reply(reply, None if prewarm else limit)
        if prewarm:
            output_tokens = 0
        rid = self.next_id("resp_emu_" if responses else "chatcmpl-emu")
        created = int(now)
        # Server-side compaction (OpenAI's compaction guide): past the threshold the server
        # "triggers a compaction pass, emits a compaction output item ... and prunes context
        # before continuing inference": two passes, both billed (`with_compaction_pass`).
        threshold = mod.compact_threshold(body) if resolved is not None else None
        compaction: dict[str, Any] | None = None
        if threshold is not None and openai_units(body)[-1].end >= threshold:
            summary = self.model.script.summary
            compaction = mod.compaction_item(
                input_items(body.get("input")), "cmp_" + rid, summary.tokens if summary else None
            )
        cached = self._openai_cache(
            body,
            scope,
            price,
            reply,
            0 if compaction is not None else output_tokens,
            now,
            responses=responses,
            explicit=explicit_model,
        )
        if compaction is not None:
            continued = self._openai_cache(
                mod.pruned_body(body, compaction),
                scope,
                price,
                reply,
                output_tokens,
                now,
                responses=responses,
                explicit=explicit_model,
            )
            usage = mod.with_compaction_pass(
                cached.usage, continued.usage, mod.compaction_tokens(compaction)
            )
            pending = cached.pending
            if continued.pending.machine == pending.machine:
                pending = PendingWrite(pending.entries + continued.pending.entries, pending.machine)
            cached = _Cached(usage, cached.store, pending, cached.machine)
        usage = cached.usage
        diagnostics: dict[str, Any] | None = None
        asked, ref = requested_ref(body, OPENAI_FIELD, OPENAI_REF)
        if asked:
            units = openai_units(body)
            read = int(usage.get("prompt_cache_hit_tokens", 0)) or _cached_of(usage)
            reason = self.diagnostics.verdict(
                ref, price.model, units, read, price.min_cacheable_tokens
            )
            diagnostics = openai_diagnostics(ref, reason)
            self.diagnostics.remember(rid, price.model, units)
        chunk = self.config.stream_chunk_chars
        done = mod.Replied(reply, usage, rid, created, cut)
        if resolved is not None:
            resp = mod.response_object(request, done)
            if diagnostics is not None:
                resp[OPENAI_FIELD] = diagnostics
            if compaction is not None:
                # The response carries the compaction item first, and what continues from it
                # (by previous_response_id, or with the item appended to the next input)
                # starts there (`responses_state.since_compaction`).
                resp["output"].insert(0, compaction)
            self.responses.remember(resolved, request, resp, scope)
            events = mod.responses_events(resp, chunk) if body.get("stream") else None
            return Plan(
                resp,
                events,
                False,
                usage,
                cached.store,
                cached.pending,
                cached.machine,
                "openai-responses",
            )
        completion = mod.chat_completion(body, done)
        if diagnostics is not None:
            completion[OPENAI_FIELD] = diagnostics
        events = None
        if body.get("stream"):
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            events = mod.chat_chunks(completion, chunk, include_usage=include)
            if diagnostics is not None and events:
                # Carried by the last chunk (the usage chunk when usage is streamed).
                kind, data = events[-1]
                events[-1] = (kind, {**data, OPENAI_FIELD: diagnostics})
        return Plan(
            completion,
            events,
            True,
            usage,
            cached.store,
            cached.pending,
            cached.machine,
            "openai-chat",
        )

    def _openai_cache(
        self,
        body: Any,
        scope: str,
        price: Price,
        reply: Reply,
        output_tokens: int,
        now: float,
        *,
        responses: bool,
        explicit: bool,
    ) -> _Cached:
        """The cache an OpenAI-format request reads and the usage shape it reports: DeepSeek's
        (Chat Completions to a DeepSeek model), OpenAI's breakpoint cache (gpt-5.6 and later) or
        OpenAI's automatic prefix cache (earlier models and other providers)."""
        mod = openai_api
        ttl = retention_seconds(body.get("prompt_cache_retention"), float(price.cache_ttl_seconds))
        if price.provider == "deepseek" and not responses:
            units = openai_units(body)
            ds = self.deepseek_cache.lookup(
                scope,
                price.model,
                units,
                price.min_cacheable_tokens,
                ttl,
                now,
                openai_reply_chain(units, mod.chat_echo(reply)),
            )
            usage = mod.deepseek_usage(ds.prompt_tokens, ds.hit_tokens, output_tokens)
            return _Cached(usage, self.deepseek_cache, ds.pending, None)
        if explicit:
            # gpt-5.6 and later: breakpoints, exact matches, 30-minute entries.
            mode, request_ttl = openai_cache_options(body)
            oc = self.openai_cache.lookup_breakpoints(
                scope,
                price.model,
                openai_units(body),
                openai_tokens(body),
                body.get("prompt_cache_key"),
                mode,
                request_ttl,
                price.min_cacheable_tokens,
                now,
            )
        else:
            oc = self.openai_cache.lookup(
                scope,
                price.model,
                openai_tokens(body),
                body.get("prompt_cache_key"),
                price.min_cacheable_tokens,
                ttl,
                now,
            )
        # Models with a write price (gpt-5.6 and later) report what they stored.
        written = oc.written_tokens if price.cache_write_5m is not None else None
        if responses:
            usage = mod.responses_usage(
                oc.prompt_tokens,
                oc.cached_tokens,
                output_tokens,
                written,
                oc.written_12h if explicit else None,
            )
        else:
            usage = mod.chat_usage(oc.prompt_tokens, oc.cached_tokens, output_tokens, written)
        return _Cached(usage, self.openai_cache, oc.pending, oc.machine)

    # ---- listings --------------------------------------------------------------------------

    def create_conversation(self, body: Any, api_key: str, now: float) -> dict[str, Any]:
        """POST /v1/conversations."""
        cid = self.next_id("conv_emu_")
        return self.responses.create_conversation(key_id(api_key), body, cid, int(now))

    def state(self, method: str, target: str, api_key: str) -> Answer | None:
        """GET or DELETE of a stored response or conversation (None: not such a path)."""
        path = target.split("?", 1)[0].rstrip("/")
        parts = path.split("/")
        if (
            len(parts) < 4
            or parts[:2] != ["", "v1"]
            or parts[2] not in ("responses", "conversations")
        ):
            return None
        rid = self.next_id("req_emu_")
        if not api_key:
            return error_answer("openai", ApiError(401, "You didn't provide an API key."), rid)
        scope, kind, oid = key_id(api_key), parts[2], urllib.parse.unquote(parts[3])
        state = self.responses
        try:
            if kind == "responses" and len(parts) == 5 and parts[4] == "input_items":
                items = state.response_input_items(scope, oid)
                return json_answer(200, _listing(items))
            if len(parts) != 4:
                return None
            if kind == "responses":
                out = (
                    state.response(scope, oid)
                    if method == "GET"
                    else state.delete_response(scope, oid)
                )
            else:
                out = (
                    state.conversation(scope, oid)
                    if method == "GET"
                    else state.delete_conversation(scope, oid)
                )
        except ApiError as err:
            return error_answer("openai", err, rid)
        return json_answer(200, out)

    def get(self, target: str, api_key: str = "") -> Answer:
        """A GET: the model list, one model (models.retrieve, a client checking its model
        before the first request), a stored response or conversation, or a 404."""
        stateful = self.state("GET", target, api_key)
        if stateful is not None:
            return stateful
        path = target.split("?", 1)[0]
        if path.rstrip("/") == "/v1/models":
            data = [model_object(p) for p in self.prices]
            return json_answer(
                200,
                {
                    "object": "list",
                    "data": data,
                    "has_more": False,
                    "first_id": data[0]["id"] if data else None,
                    "last_id": data[-1]["id"] if data else None,
                },
            )
        if path.startswith("/v1/models/"):
            model = urllib.parse.unquote(path.removeprefix("/v1/models/").rstrip("/"))
            price = self.prices.lookup(model)
            if price is not None:
                return json_answer(200, model_object(price))
            rid = self.next_id("req_emu_")
            if model.startswith("claude"):
                err = ApiError(404, f"model: {model}", param="model")
                return error_answer("anthropic", err, rid)
            err = ApiError(404, f"The model `{model}` does not exist", param="model")
            return error_answer("openai", err, rid)
        return json_answer(
            404,
            {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}},
        )


def model_object(price: Price) -> dict[str, Any]:
    """One model as both SDKs' model types read it."""
    return {
        "id": price.model,
        "object": "model",
        "type": "model",
        "display_name": price.model,
        "owned_by": price.provider,
        "created": 0,
        "created_at": "2026-01-01T00:00:00Z",
    }


def check_window(price: Price, prompt: int, output_cap: int, api: str) -> None:
    """A prompt (with its output cap) past the model's context window is a 400, worded as each
    API words it. Models without a known window are not checked."""
    window = price.context_window
    if window is None:
        return
    if api == "anthropic":
        if prompt > window:
            # Worded as in https://github.com/earendil-works/pi/issues/102
            raise ApiError(400, f"prompt is too long: {prompt} tokens > {window} maximum")
        if prompt + output_cap > window:
            # Worded as in https://github.com/docker/docker-agent/issues/569
            raise ApiError(
                400,
                f"input length and `max_tokens` exceed context limit: {prompt} + {output_cap} "
                f"> {window}, decrease input length or `max_tokens` and try again",
            )
        return
    if prompt + output_cap <= window:
        return
    if api == "chat":
        # Chat Completions words the two cases apart: the messages alone past the window
        # (https://github.com/chathub-dev/chathub/issues/126, with param and code), or the
        # messages fitting but not with the completion's cap
        # (https://github.com/The-Vibe-Company/quivr/issues/505).
        if prompt > window:
            detail = (
                f"your messages resulted in {prompt} tokens. Please reduce the length of the "
                "messages."
            )
        else:
            detail = (
                f"you requested {prompt + output_cap} tokens ({prompt} in the messages, "
                f"{output_cap} in the completion). Please reduce the length of the messages or "
                "completion."
            )
        raise ApiError(
            400,
            f"This model's maximum context length is {window} tokens. However, {detail}",
            param="messages",
            code="context_length_exceeded",
        )
    # https://github.com/anomalyco/opencode/issues/6071 quotes this body (param, code) whole.
    raise ApiError(
        400,
        "Your input exceeds the context window of this model. Please adjust your input and try "
        "again.",
        param="input",
        code="context_length_exceeded",
    )


def truncated(body: dict[str, Any], window: int) -> dict[str, Any]:
    """`truncation: "auto"`: items dropped from the start of the input until the prompt (with
    its output cap) fits the window, the newest item always kept."""
    items = body.get("input")
    if not isinstance(items, list):
        return body
    cap = openai_api.responses_output_limit(body) or 0
    while len(items) > 1 and openai_units({**body, "input": items})[-1].end + cap > window:
        items = items[1:]
    return {**body, "input": items}


def _listing(items: list[Any]) -> dict[str, Any]:
    """A list object as the OpenAI SDK's cursor pages read it."""
    data = [dict(item) if isinstance(item, Mapping) else item for item in items]
    return {
        "object": "list",
        "data": data,
        "has_more": False,
        "first_id": None,
        "last_id": None,
    }


def _cached_of(usage: Mapping[str, Any]) -> int:
    """Cached tokens from an OpenAI usage dict (Chat or Responses shape)."""
    for key in ("prompt_tokens_details", "input_tokens_details"):
        details = usage.get(key)
        if isinstance(details, Mapping):
            return int(details.get("cached_tokens") or 0)
    return 0
