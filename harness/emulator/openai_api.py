"""OpenAI wire formats (Chat Completions, Responses; DeepSeek-style usage). Pure.

Request checks, the scripted model's view of a conversation, response bodies and their streamed
chunks or events, and usage exactly where each API puts it: prompt/input tokens INCLUDE cached
tokens, which sit in `prompt_tokens_details` (chat) or `input_tokens_details` (responses);
DeepSeek reports `prompt_cache_hit_tokens` and `prompt_cache_miss_tokens` instead.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from ..cache import openai
from ..cache.units import BREAKPOINT_FIELD, OPENAI_CACHE_MODES, OPENAI_DEFAULT_TTL
from ..canonical import canonical_json
from ..tokenizer import pieces
from .apierror import ApiError
from .media_checks import check_openai_part
from .model import Conversation, Reply, Turns, offered_tools

CHAT_FIELDS = frozenset(
    {
        "model",
        "messages",
        "stream",
        "stream_options",
        "tools",
        "tool_choice",
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "n",
        "stop",
        "user",
        "prompt_cache_key",
        "prompt_cache_retention",
        "prompt_cache_options",
        "parallel_tool_calls",
        "response_format",
        "reasoning_effort",
        "verbosity",
        "seed",
        "metadata",
        "store",
        "frequency_penalty",
        "presence_penalty",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "service_tier",
        "safety_identifier",
        "modalities",
        "audio",
        "prediction",
        "web_search_options",
        "functions",
        "function_call",
        "moderation",
    }
)
RESPONSES_FIELDS = frozenset(
    {
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "stream",
        "stream_options",
        "max_output_tokens",
        "temperature",
        "top_p",
        "prompt_cache_key",
        "prompt_cache_retention",
        "prompt_cache_options",
        "parallel_tool_calls",
        "reasoning",
        "text",
        "store",
        "metadata",
        "include",
        "truncation",
        "user",
        "service_tier",
        "background",
        "safety_identifier",
        "max_tool_calls",
        "top_logprobs",
        # Server-side state (responses_state) and what the current SDK sends besides.
        "previous_response_id",
        "conversation",
        "prompt",
        "context_management",
        "access_programs",
        "background_options",
        "image",
        "moderation",
    }
)
# The Responses API refuses a smaller `max_output_tokens` (guard.keepalive pings with it).
RESPONSES_MIN_OUTPUT = 16
CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
CHAT_PART_TYPES = frozenset({"text", "image_url", "input_audio", "file", "refusal"})
INPUT_PART_TYPES = frozenset({"input_text", "input_image", "input_file", "output_text", "refusal"})
ITEM_TYPES = frozenset(
    {"message", "function_call", "function_call_output", "reasoning", "compaction"}
)


def one_of(value: Any, options: Collection[str]) -> bool:
    """Is `value` one of the strings `options`? (A list or object from a client is not, and
    is not hashable either: asking a set about it would raise.)"""
    return isinstance(value, str) and value in options


def _common(body: Any, allowed: frozenset[str], *, responses: bool = False) -> None:
    if not isinstance(body, Mapping):
        raise ApiError(400, "request body must be a JSON object")
    for key in body:
        if key not in allowed:
            if responses:  # the Responses API's own wording and code
                raise ApiError(
                    400, f"Unknown parameter: '{key}'.", param=key, code="unknown_parameter"
                )
            raise ApiError(400, f"Unrecognized request argument supplied: {key}", param=key)
    if not isinstance(body.get("model"), str):
        raise ApiError(400, "you must provide a model parameter", param="model")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise ApiError(400, "Invalid type for 'tools': expected an array", param="tools")
    for key, (ok, wanted) in _OPTION_TYPES.items():
        if body.get(key) is not None and not ok(body[key]):
            raise ApiError(400, f"Invalid value for '{key}': expected {wanted}", param=key)


# Optional fields the emulator reads: the type each must have when present (null is allowed).
_OPTION_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "prompt_cache_key": (lambda v: isinstance(v, str), "a string"),
    "stream": (lambda v: isinstance(v, bool), "a boolean"),
    "stream_options": (lambda v: isinstance(v, Mapping), "an object"),
    "prompt_cache_retention": (
        lambda v: v in openai.RETENTIONS,
        " or ".join(repr(r) for r in openai.RETENTIONS),
    ),
}


def _check_parts(content: Any, where: str, allowed: Collection[str]) -> None:
    """A message's `content` given as a list: every part a mapping of an allowed type."""
    if not isinstance(content, list):
        raise ApiError(400, f"Invalid type for '{where}.content'", param=f"{where}.content")
    for j, part in enumerate(content):
        if not isinstance(part, Mapping) or not one_of(part.get("type"), allowed):
            raise ApiError(
                400,
                f"Invalid value for '{where}.content[{j}].type'",
                param=f"{where}.content[{j}].type",
            )
        check_openai_part(part, f"{where}.content[{j}]")


def validate_chat(body: Any) -> None:
    _common(body, CHAT_FIELDS)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "'messages' must be a non-empty array", param="messages")
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(msg, Mapping) or not one_of(msg.get("role"), CHAT_ROLES):
            raise ApiError(400, f"Invalid value for '{where}.role'", param=f"{where}.role")
        content = msg.get("content")
        if content is None or isinstance(content, str):
            continue
        _check_parts(content, where, CHAT_PART_TYPES)
    for j, tool in enumerate(body.get("tools") or []):
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise ApiError(400, f"Missing required parameter: 'tools[{j}].function.name'")
    _check_chat_tool_messages(messages)
    if body.get("max_tokens") is not None and reasoning_model(str(body["model"])):
        # https://github.com/griptape-ai/ComfyUI-Griptape/issues/312 quotes this body whole.
        raise ApiError(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
            "'max_completion_tokens' instead.",
            param="max_tokens",
            code="unsupported_parameter",
        )


_REASONING = re.compile(r"^(?:gpt-5|o\d)")


def reasoning_model(model: str) -> bool:
    """OpenAI's reasoning models (gpt-5 and later, the o-series), which refuse `max_tokens`
    on Chat Completions; gpt-5's chat-latest variants are not reasoning models."""
    return bool(_REASONING.match(model)) and "chat" not in model


def _check_chat_tool_messages(messages: list[Any]) -> None:
    """A `tool` message answers a tool call of the assistant message before it (tool messages
    in between), and an assistant message's tool calls are each answered before anything else."""
    open_calls: list[str] = []  # calls of the last assistant message still unanswered
    asked: set[str] = set()
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role == "tool":
            call = str(msg.get("tool_call_id"))
            if call not in asked:
                # https://github.com/Haervwe/open-webui-tools/issues/12 quotes this body whole
                # ("preceeding" is the API's spelling).
                raise ApiError(
                    400,
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    param=f"messages.[{i}].role",
                )
            if call in open_calls:
                open_calls.remove(call)
            continue
        if open_calls:
            # https://github.com/router-for-me/CLIProxyAPI/issues/2798 quotes this body whole.
            raise ApiError(
                400,
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(open_calls)}",
                param=f"messages.[{i}].role",
            )
        calls = msg.get("tool_calls") if role == "assistant" else None
        ids = [str(c.get("id")) for c in calls or [] if isinstance(c, Mapping)]
        open_calls, asked = ids, set(ids)


def validate_responses(body: Any) -> None:
    _common(body, RESPONSES_FIELDS, responses=True)
    _check_state_fields(body)
    cap = body.get("max_output_tokens")
    if cap is not None:
        if not isinstance(cap, int) or isinstance(cap, bool):
            raise ApiError(
                400,
                "Invalid type for 'max_output_tokens': expected an integer",
                param="max_output_tokens",
            )
        if cap < RESPONSES_MIN_OUTPUT:
            raise ApiError(
                400,
                "Invalid 'max_output_tokens': integer below minimum value. Expected a value "
                f">= {RESPONSES_MIN_OUTPUT}, but got {cap} instead.",
                param="max_output_tokens",
            )
    raw = body.get("input")
    if isinstance(raw, str):
        return
    if not isinstance(raw, list) or not raw:
        raise ApiError(400, "'input' must be a string or a non-empty array", param="input")
    for i, item in enumerate(raw):
        where = f"input[{i}]"
        if not isinstance(item, Mapping):
            raise ApiError(400, f"Invalid type for '{where}'", param=where)
        kind = item.get("type", "message")
        if not one_of(kind, ITEM_TYPES):
            raise ApiError(
                400, f"Invalid value for '{where}.type': {kind!r}", param=f"{where}.type"
            )
        if kind == "message":
            content = item.get("content")
            if isinstance(content, str):
                continue
            _check_parts(content, where, INPUT_PART_TYPES)
        if kind == "compaction" and not isinstance(item.get("encrypted_content"), str):
            raise ApiError(
                400,
                f"Missing required parameter: '{where}.encrypted_content'.",
                param=f"{where}.encrypted_content",
                code="missing_required_parameter",
            )
    for j, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool, Mapping) or (
            tool.get("type", "function") == "function" and not isinstance(tool.get("name"), str)
        ):
            raise ApiError(400, f"Missing required parameter: 'tools[{j}].name'")


def check_function_outputs(body: Mapping[str, Any]) -> None:
    """Each `function_call_output` answers a `function_call` earlier in the (resolved) input,
    and each `function_call` is answered by an output somewhere after it."""
    raw = body.get("input")
    calls: list[str] = []
    answered: set[str] = set()
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "function_call":
            calls.append(str(item.get("call_id")))
        elif item.get("type") == "function_call_output":
            call_id = str(item.get("call_id"))
            if call_id not in calls:
                # https://github.com/continuedev/continue/issues/10092 quotes this body whole.
                raise ApiError(
                    400,
                    f"No tool call found for function call output with call_id {call_id}.",
                    param="input",
                )
            answered.add(call_id)
    for call_id in calls:
        if call_id not in answered:
            # https://github.com/router-for-me/CLIProxyAPI/issues/2368 quotes this body whole
            # (type invalid_request_error, param input, code null).
            raise ApiError(400, f"No tool output found for function call {call_id}.", param="input")


def compact_threshold(body: Mapping[str, Any]) -> int | None:
    """The rendered-token count past which the request asks for server-side compaction: the
    lowest `compact_threshold` of its `context_management` entries (checked by
    `_check_state_fields`). None: no compaction (an entry without a threshold names none)."""
    entries = body.get("context_management")
    if not isinstance(entries, list):
        return None
    thresholds = [
        e["compact_threshold"]
        for e in entries
        if isinstance(e, Mapping) and isinstance(e.get("compact_threshold"), int)
    ]
    return min(thresholds) if thresholds else None


# A compaction item is opaque and "uses fewer tokens" than what it replaces (OpenAI's guide
# gives no ratio): the emulator's is a tenth of their tokens, at least this many, unless the
# script says how long a summary is (`Script.summary`: the same length whoever compacts).
COMPACTION_RATIO = 10
COMPACTION_MIN_TOKENS = 64


def compaction_item(items: list[Any], item_id: str, tokens: int | None = None) -> dict[str, Any]:
    """The `compaction` output item standing for `items` (the input it compacts): opaque,
    deterministic content of `tokens` tokens (default: a tenth of theirs)."""
    data = canonical_json(items)
    target = tokens or max(COMPACTION_MIN_TOKENS, len(pieces(data)) // COMPACTION_RATIO)
    digest = hashlib.sha256(data.encode("utf-8")).hexdigest()
    stream: list[str] = []
    # Hex cuts into at most 5 characters a token: 5 per token wanted is always enough.
    while sum(len(b) for b in stream) < 5 * target:
        digest = hashlib.sha256(digest.encode("ascii")).hexdigest()
        stream.append(digest)
    content = "".join(pieces("".join(stream))[:target])
    return {"id": item_id, "type": "compaction", "encrypted_content": content}


def compaction_tokens(item: Mapping[str, Any]) -> int:
    """The output tokens of a compaction item (what the compaction pass generated)."""
    return len(pieces(str(item.get("encrypted_content", ""))))


def pruned_body(body: Mapping[str, Any], item: Mapping[str, Any]) -> dict[str, Any]:
    """The prompt inference continues from after a compaction pass: the same instructions and
    tools, the input pruned to the compaction item ("prunes context before continuing
    inference", OpenAI's compaction guide)."""
    out = {k: v for k, v in body.items() if k not in ("input", "context_management")}
    out["input"] = [dict(item)]
    return out


def with_compaction_pass(
    usage: Mapping[str, Any], continued: Mapping[str, Any], item_tokens: int
) -> dict[str, Any]:
    """The usage of a response that compacted: the compaction pass over the whole prompt
    (`usage`'s input, cached as any prompt is), which generates the compaction item
    (`item_tokens` output), plus the inference that continues from the pruned prompt
    (`continued`: its input, and the reply's output). OpenAI's API reference gives a compaction
    pass's usage ("Token accounting for the compaction pass, including cached, reasoning, and
    total tokens": input and output, on `/responses/compact`); that a compacted response's
    usage adds both passes is this emulator's reading (docs/providers.md#openai-compaction)."""
    first = usage.get("input_tokens_details") or {}
    then = continued.get("input_tokens_details") or {}

    def both(key: str, *parts: Mapping[str, Any]) -> int | None:
        if all(key not in part for part in parts):
            return None
        return sum(int(part.get(key, 0)) for part in parts)

    split, split_then = (d.get("cache_write_tokens_details") or {} for d in (first, then))
    return responses_usage(
        int(usage["input_tokens"]) + int(continued["input_tokens"]),
        both("cached_tokens", first, then) or 0,
        item_tokens + int(continued["output_tokens"]),
        both("cache_write_tokens", first, then),
        both("ttl_12h_tokens", split, split_then),
    )


def _check_state_fields(body: Mapping[str, Any]) -> None:
    """`truncation`, `context_management` and `prompt`, as the Responses API documents them."""
    truncation = body.get("truncation")
    if truncation is not None and truncation not in ("auto", "disabled"):
        raise ApiError(
            400,
            f"Invalid value: '{truncation}'. Supported values are: 'auto' and 'disabled'.",
            param="truncation",
            code="invalid_value",
        )
    cm = body.get("context_management")
    if cm is not None:
        if not isinstance(cm, list):
            raise ApiError(
                400,
                "Invalid type for 'context_management': expected an array",
                param="context_management",
            )
        for i, entry in enumerate(cm):
            where = f"context_management[{i}]"
            if not isinstance(entry, Mapping) or entry.get("type") != "compaction":
                raise ApiError(
                    400,
                    f"Invalid value for '{where}.type': expected 'compaction'",
                    param=f"{where}.type",
                )
            threshold = entry.get("compact_threshold")
            if threshold is not None and (
                not isinstance(threshold, int) or isinstance(threshold, bool) or threshold < 1
            ):
                raise ApiError(
                    400,
                    f"Invalid value for '{where}.compact_threshold': expected a positive integer",
                    param=f"{where}.compact_threshold",
                )
    prompt = body.get("prompt")
    if prompt is not None:
        pid = prompt.get("id") if isinstance(prompt, Mapping) else None
        if not isinstance(pid, str):
            raise ApiError(400, "Missing required parameter: 'prompt.id'.", param="prompt.id")
        # The emulator holds no prompt templates: every id is one this organization lacks.
        raise ApiError(404, f"Prompt with id '{pid}' not found.", param="prompt.id", code="")


# comparison_response_id asks for prompt cache diagnostics, prewarm prepares the cache without
# generating output: the Responses API only (the SDK's Chat PromptCacheOptions has neither).
CACHE_OPTION_FIELDS = frozenset({"mode", "ttl"})
RESPONSES_CACHE_OPTION_FIELDS = CACHE_OPTION_FIELDS | {"comparison_response_id", "prewarm"}
# Request-level TTLs by API (the SDK's PromptCacheOptions: Chat takes the default 30m only,
# Responses every TTL); a breakpoint may ask for any on both.
CHAT_TTLS = (OPENAI_DEFAULT_TTL,)
RESPONSES_TTLS = BREAKPOINT_TTLS = tuple(openai.TTL_SECONDS)


def check_prompt_cache(body: Mapping[str, Any], *, responses: bool, explicit_model: bool) -> None:
    """`prompt_cache_options` and `prompt_cache_breakpoint` marks, as gpt-5.6 and later take
    them; both are refused on older models, which cache automatically only."""
    opts = body.get("prompt_cache_options")
    if opts is not None:
        if not explicit_model:
            raise ApiError(
                400,
                f"prompt_cache_options is not supported with the model {body['model']!r} "
                "(gpt-5.6 and later only)",
                param="prompt_cache_options",
            )
        if not isinstance(opts, Mapping):
            raise ApiError(
                400, "Invalid type for 'prompt_cache_options'", param="prompt_cache_options"
            )
        fields = RESPONSES_CACHE_OPTION_FIELDS if responses else CACHE_OPTION_FIELDS
        for key in opts:
            if key not in fields:
                raise ApiError(
                    400,
                    f"Unrecognized argument: 'prompt_cache_options.{key}'",
                    param=f"prompt_cache_options.{key}",
                )
        if "prewarm" in opts and not isinstance(opts["prewarm"], bool):
            raise ApiError(
                400,
                f"Invalid type for 'prompt_cache_options.prewarm': expected a boolean, got "
                f"{type(opts['prewarm']).__name__}",
                param="prompt_cache_options.prewarm",
            )
        if "mode" in opts and opts["mode"] not in OPENAI_CACHE_MODES:
            modes = " or ".join(repr(m) for m in OPENAI_CACHE_MODES)
            raise ApiError(
                400,
                f"Invalid value for 'prompt_cache_options.mode': {opts['mode']!r}; "
                f"expected {modes}",
                param="prompt_cache_options.mode",
            )
        ttls = RESPONSES_TTLS if responses else CHAT_TTLS
        if "ttl" in opts and opts["ttl"] not in ttls:
            raise ApiError(
                400,
                f"Invalid value for 'prompt_cache_options.ttl': {opts['ttl']!r}; "
                f"supported: {', '.join(ttls)}",
                param="prompt_cache_options.ttl",
            )
        if "ttl" in opts and body.get("prompt_cache_retention") is not None:
            raise ApiError(
                400,
                "prompt_cache_retention cannot be combined with prompt_cache_options.ttl, "
                "which supersedes it: send only prompt_cache_options.ttl",
                param="prompt_cache_retention",
            )
    items = body.get("messages") if not responses else body.get("input")
    if not isinstance(items, list):
        return
    where_items = "input" if responses else "messages"
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            continue
        key = "output" if item.get("type") == "function_call_output" else "content"
        parts = item.get(key)
        if not isinstance(parts, list):
            continue
        for j, part in enumerate(parts):
            if not isinstance(part, Mapping) or BREAKPOINT_FIELD not in part:
                continue
            where = f"{where_items}[{i}].{key}[{j}].{BREAKPOINT_FIELD}"
            if not explicit_model:
                raise ApiError(
                    400,
                    f"{BREAKPOINT_FIELD} is not supported with the model {body['model']!r} "
                    "(gpt-5.6 and later only)",
                    param=where,
                )
            if item.get("role") == "assistant":
                raise ApiError(
                    400,
                    f"{BREAKPOINT_FIELD} is not supported on assistant messages: mark a "
                    "system, developer, user or tool content block",
                    param=where,
                )
            mark = part[BREAKPOINT_FIELD]
            if not isinstance(mark, Mapping) or mark.get("mode") != "explicit":
                raise ApiError(
                    400,
                    f"Invalid value for '{where}.mode': expected 'explicit'",
                    param=where + ".mode",
                )
            if "ttl" in mark and mark["ttl"] not in BREAKPOINT_TTLS:
                raise ApiError(
                    400, f"Invalid value for '{where}.ttl': {mark['ttl']!r}", param=where + ".ttl"
                )


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and "text" in p
        )
    return ""


def conversation_chat(body: Mapping[str, Any]) -> Conversation:
    t = Turns()
    for msg in body.get("messages") or []:
        role = msg.get("role")
        if role == "user":
            t.user(_text_of(msg.get("content")))
        elif role == "assistant":
            t.reply()
        elif role == "tool":
            t.result(_text_of(msg.get("content")))
    functions = [
        spec.get("function") or {} for spec in body.get("tools") or [] if isinstance(spec, Mapping)
    ]
    tools, schemas = offered_tools(functions, "parameters")
    return t.conversation(tools, schemas)


def conversation_responses(body: Mapping[str, Any]) -> Conversation:
    raw = body.get("input")
    if isinstance(raw, str):
        raw = [{"role": "user", "content": raw}]
    t = Turns()
    in_step = False  # one reply may be several items: a message, then its function calls
    for item in raw or []:
        kind = item.get("type", "message")
        if kind == "function_call_output":
            output = item.get("output")
            t.result(output if isinstance(output, str) else _text_of(output))
        if kind == "message" and item.get("role") == "user":
            t.user(_text_of(item.get("content")))
            in_step = False
        elif kind == "message" and item.get("role") == "assistant":
            t.reply()
            in_step = True
        elif kind == "function_call":
            if not in_step:
                t.reply()
            in_step = True
        else:
            if kind == "compaction":  # the input starts here (`responses_state.since_compaction`)
                t.compacted(str(item.get("encrypted_content", "")))
            in_step = False
    tools, schemas = offered_tools(body.get("tools") or [], "parameters")
    return t.conversation(tools, schemas)


def chat_output_limit(body: Mapping[str, Any]) -> int | None:
    """The output cap of a Chat Completions request: `max_completion_tokens`, else the older
    `max_tokens` (OpenAI still honours it; DeepSeek and other compatible servers know only it).
    None: uncapped, the script's whole reply."""
    for name in ("max_completion_tokens", "max_tokens"):
        value = body.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return max(value, 0)
    return None


def responses_output_limit(body: Mapping[str, Any]) -> int | None:
    """The output cap of a Responses request (`max_output_tokens`, checked by
    validate_responses). None: uncapped."""
    value = body.get("max_output_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cap_reply(reply: Reply, limit: int | None) -> tuple[Reply, int, bool]:
    """`reply` as the API returns it under an output cap: (reply, billed output tokens, cut).

    Generation stops at the cap, so the text is cut at `limit` tokens and billed `limit`. A tool
    call past the cap is dropped whole rather than sent with half its arguments (the scripted
    model has no partial call to give; the finish reason `length` tells the client either way)."""
    if limit is None or reply.output_tokens <= limit:
        return reply, reply.output_tokens, False
    text = "".join(pieces(reply.text)[:limit])
    return Reply(text, (), reply.extra), limit, True


def chat_usage(prompt: int, cached: int, output: int, written: int | None = None) -> dict[str, Any]:
    """`written` (cache_write_tokens) only for models that bill writes (gpt-5.6 and later)."""
    details: dict[str, Any] = {"cached_tokens": cached, "audio_tokens": 0}
    if written is not None:
        details["cache_write_tokens"] = written
    return {
        "prompt_tokens": prompt,
        "completion_tokens": output,
        "total_tokens": prompt + output,
        "prompt_tokens_details": details,
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def deepseek_usage(prompt: int, hit: int, output: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": output,
        "total_tokens": prompt + output,
        "prompt_cache_hit_tokens": hit,
        "prompt_cache_miss_tokens": prompt - hit,
    }


def responses_usage(
    prompt: int,
    cached: int,
    output: int,
    written: int | None = None,
    written_12h: int | None = None,
) -> dict[str, Any]:
    """`written` as in chat_usage; `written_12h` (gpt-5.6 and later) adds the write's split by
    TTL, `cache_write_tokens_details` of the SDK's Responses `InputTokensDetails` (Chat's
    `prompt_tokens_details` has no such field in the SDK, so chat_usage reports none)."""
    details: dict[str, Any] = {"cached_tokens": cached}
    if written is not None:
        details["cache_write_tokens"] = written
        if written_12h is not None:
            details["cache_write_tokens_details"] = {
                "ttl_30m_tokens": written - written_12h,
                "ttl_12h_tokens": written_12h,
            }
    return {
        "input_tokens": prompt,
        "input_tokens_details": details,
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt + output,
    }


def _call_id(reply_id: str) -> str:
    return "call_" + reply_id


def chat_echo(reply: Reply) -> dict[str, Any]:
    """The reply's assistant message as a client sends it back in the next request.

    Null fields a client drops (`refusal`) are left out. Tool-call arguments are compact JSON
    with sorted keys, the form a client that parses and re-serializes them (prefixlock.providers)
    sends too, so the echo is byte-equal whether a client copies the message or rebuilds it;
    DeepSeek's cache (docs/providers.md#deepseek-cache-units: a unit at the end of each request's
    output) matches it."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(c.id),
                "type": "function",
                "function": {"name": c.name, "arguments": canonical_json(dict(c.input))},
            }
            for c in reply.tool_calls
        ]
    return message


@dataclass(frozen=True)
class Replied:
    """What a response reports of the model's reply, in either API's shape: the reply, its
    usage, the response id, when it was created, and whether it stopped at the request's
    output cap (`cut`)."""

    reply: Reply
    usage: Mapping[str, Any]
    rid: str
    created: int
    cut: bool = False


def chat_completion(body: Mapping[str, Any], done: Replied) -> dict[str, Any]:
    """A cut reply finishes with reason `length`."""
    reply = done.reply
    message: dict[str, Any] = {**chat_echo(reply), "refusal": None}
    finish = "length" if done.cut else "tool_calls" if reply.tool_calls else "stop"
    return {
        "id": done.rid,
        "object": "chat.completion",
        "created": done.created,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish,
                "logprobs": None,
            }
        ],
        "usage": dict(done.usage),
        "system_fingerprint": "fp_emulator",
    }


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def chat_chunks(
    completion: Mapping[str, Any], size: int, *, include_usage: bool
) -> list[tuple[str | None, dict[str, Any]]]:
    """`chat.completion.chunk` objects; usage in an extra final chunk when asked for."""
    base = {k: completion[k] for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"
    choice = completion["choices"][0]
    msg = choice["message"]

    def chunk(
        delta: dict[str, Any], finish: str | None = None
    ) -> tuple[str | None, dict[str, Any]]:
        data = {
            **base,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }
        if include_usage:
            data["usage"] = None
        return (None, data)

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    for piece in _chunks(msg.get("content") or "", size):
        out.append(chunk({"content": piece}))
    for index, call in enumerate(msg.get("tool_calls") or []):
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        out.append(chunk({"tool_calls": [head]}))
        for piece in _chunks(call["function"]["arguments"], size):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    out.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        out.append((None, {**base, "choices": [], "usage": completion["usage"]}))
    return out


def response_object(body: Mapping[str, Any], done: Replied) -> dict[str, Any]:
    """A cut reply (stopped at `max_output_tokens`) makes the response and its message
    `incomplete`, with that reason in `incomplete_details`, as the API reports it."""
    reply, rid, cut = done.reply, done.rid, done.cut
    status = "incomplete" if cut else "completed"
    output: list[dict[str, Any]] = []
    if reply.text:
        output.append(
            {
                "type": "message",
                "id": "msg_" + rid,
                "status": status,
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}
                ],
            }
        )
    for c in reply.tool_calls:
        output.append(
            {
                "type": "function_call",
                "id": "fc_" + c.id,
                "call_id": _call_id(c.id),
                "name": c.name,
                "arguments": json.dumps(dict(c.input)),
                "status": "completed",
            }
        )
    return {
        "id": rid,
        "object": "response",
        "created_at": done.created,
        "status": status,
        "model": body["model"],
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": list(body.get("tools") or []),
        "instructions": body.get("instructions"),
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "metadata": body.get("metadata") or {},
        "temperature": body.get("temperature", 1.0),
        "top_p": body.get("top_p", 1.0),
        "max_output_tokens": body.get("max_output_tokens"),
        "previous_response_id": body.get("previous_response_id"),
        "conversation": _conversation_ref(body.get("conversation")),
        "prompt_cache_key": body.get("prompt_cache_key"),
        "reasoning": {"effort": None, "summary": None},
        "text": {"format": {"type": "text"}},
        "truncation": body.get("truncation") or "disabled",
        "usage": dict(done.usage),
        "store": body.get("store", True),
    }


def _conversation_ref(value: Any) -> dict[str, Any] | None:
    """A response's `conversation`: the id it was part of, as an object (None: none)."""
    if isinstance(value, str):
        return {"id": value}
    if isinstance(value, Mapping) and isinstance(value.get("id"), str):
        return {"id": value["id"]}
    return None


def responses_events(resp: Mapping[str, Any], size: int) -> list[tuple[str | None, dict[str, Any]]]:
    """The Responses stream: created, per-item added/deltas/done, then completed (or, for a
    reply cut at its cap, incomplete) with usage."""
    events: list[tuple[str | None, dict[str, Any]]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

    pending = {**resp, "status": "in_progress", "output": [], "usage": None}
    emit("response.created", response=pending)
    emit("response.in_progress", response=pending)
    for index, item in enumerate(resp["output"]):
        if item["type"] == "message":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            part = item["content"][0]
            emit(
                "response.content_part.added",
                output_index=index,
                item_id=item["id"],
                content_index=0,
                part={**part, "text": ""},
            )
            for piece in _chunks(part["text"], size):
                emit(
                    "response.output_text.delta",
                    output_index=index,
                    item_id=item["id"],
                    content_index=0,
                    delta=piece,
                    logprobs=[],
                )
            emit(
                "response.output_text.done",
                output_index=index,
                item_id=item["id"],
                content_index=0,
                text=part["text"],
                logprobs=[],
            )
            emit(
                "response.content_part.done",
                output_index=index,
                item_id=item["id"],
                content_index=0,
                part=part,
            )
        elif item["type"] == "compaction":
            # The compaction item comes whole at its end, after a `compacting` event
            # (the SDK's ResponseCompactionCompactingEvent: it carries no content).
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "encrypted_content": ""},
            )
            emit("response.compaction.compacting", output_index=index, item_id=item["id"])
        else:
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            for piece in _chunks(item["arguments"], size):
                emit(
                    "response.function_call_arguments.delta",
                    output_index=index,
                    item_id=item["id"],
                    delta=piece,
                )
            emit(
                "response.function_call_arguments.done",
                output_index=index,
                item_id=item["id"],
                arguments=item["arguments"],
                name=item["name"],
            )
        emit("response.output_item.done", output_index=index, item=item)
    emit(f"response.{resp['status']}", response=dict(resp))
    return events
