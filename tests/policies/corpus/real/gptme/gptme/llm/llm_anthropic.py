import logging
import os
from collections.abc import Generator, Iterable
from functools import wraps
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    TypedDict,
    Union,
    cast,
)

from httpx import RemoteProtocolError
from pydantic import BaseModel  # fmt: skip

from ..constants import TEMPERATURE, TOP_P
from ..message import Message, MessageMetadata, UsageData, msgs2dicts
from ..telemetry import record_llm_request
from ..tools.base import ToolSpec
from .constants import _MIN_RESPONSE_TOKENS
from .models import ModelMeta, get_model
from .retry_abort import backoff_wait, current_generation
from .utils import (
    apply_cache_control,
    extract_tool_uses_from_assistant_message,
    parameters2dict,
    process_image_file,
)

ENV_REASONING = "GPTME_REASONING"
ENV_REASONING_BUDGET = "GPTME_REASONING_BUDGET"
ENV_THINKING_EFFORT = "GPTME_THINKING_EFFORT"
ENV_FAST_MODE = "GPTME_ANTHROPIC_FAST_MODE"

# Named effort levels → budget_tokens fallback values.  When the installed
# anthropic SDK exposes ``output_config.effort`` (>= 0.77) these are only
# used as the ``budget_tokens`` guard for max_tokens clamping; the true
# effort semantics (including ``xhigh``/``max`` adaptive thinking) are passed
# via ``output_config``.  On older SDKs they serve as the sole signal.
_THINKING_EFFORT_BUDGETS: dict[str, int] = {
    "low": 2000,
    "medium": 8000,
    "high": 16000,
    "xhigh": 24000,
    "max": 32000,
}
_EffortLevel = Literal["low", "medium", "high", "xhigh", "max"]

# Models that reject the legacy ``thinking: {type: "enabled", budget_tokens: N}``
# format with HTTP 400 and require ``thinking: {type: "adaptive"}`` + the
# ``output_config.effort`` parameter.  See
# https://platform.claude.com/docs/en/docs/build-with-claude/extended-thinking
# ("Manual extended thinking is no longer supported on Claude Opus 4.7 or
# later models and returns a 400 error.")
_ADAPTIVE_THINKING_MODELS: frozenset[str] = frozenset(
    {"claude-opus-4-7", "claude-opus-4-8"}
)

if TYPE_CHECKING:
    # noreorder
    import anthropic.types  # fmt: skip
    from anthropic import Anthropic  # fmt: skip

# output_config.effort was added in anthropic SDK 0.77.  On older installs the
# effort levels still work via the budget_tokens shim above; xhigh/max are
# approximations until the user upgrades.  No SDK constraint bump required —
# the code degrades gracefully.
try:
    import anthropic.types as _anthropic_types
except ImportError:
    _HAS_OUTPUT_CONFIG = False
else:
    _HAS_OUTPUT_CONFIG = hasattr(_anthropic_types, "OutputConfigParam")

logger = logging.getLogger(__name__)

_anthropic: "Anthropic | None" = None
_is_proxy: bool = False


def _inject_schema_instruction(messages, schema_name):
    """Inject instruction to use schema tool in the last user message.

    Args:
        messages: List of message dicts
        schema_name: Name of the schema to use

    Returns:
        Modified messages list
    """
    if not messages:
        return messages

    # Find last user message
    last_user_idx = None
    for i in range(len(messages) - 1, -1, -1):
        if messages[i]["role"] == "user":
            last_user_idx = i
            break

    if last_user_idx is None:
        return messages

    # Inject instruction in the content
    instruction = f"\n\nIMPORTANT: Return your response using the `return_{schema_name.lower()}` tool to ensure proper formatting."

    last_msg = messages[last_user_idx]
    if isinstance(last_msg["content"], str):
        last_msg["content"] = last_msg["content"] + instruction
    elif isinstance(last_msg["content"], list):
        # If content is a list, append as text block
        last_msg["content"].append({"type": "text", "text": instruction})

    return messages


def _extract_schema_result(content_blocks):
    """Extract structured result from tool call response.

    Args:
        content_blocks: Response content blocks from Anthropic

    Returns:
        Extracted tool call result or None
    """
    for block in content_blocks:
        if block.type == "tool_use" and block.name.startswith("return_"):
            # Return the tool input as the structured result
            return block.input
    return None


def _record_usage(
    usage: Union["anthropic.types.Usage", "anthropic.types.MessageDeltaUsage"],
    model: str,
) -> MessageMetadata | None:
    """Record usage metrics as telemetry and return MessageMetadata."""
    if not usage:
        return None

    # Extract token counts
    input_tokens = getattr(usage, "input_tokens", None)
    output_tokens = getattr(usage, "output_tokens", None)
    cache_creation_tokens = getattr(usage, "cache_creation_input_tokens", None)
    cache_read_tokens = getattr(usage, "cache_read_input_tokens", None)

    # Calculate total tokens
    total_tokens = 0
    total_tokens += input_tokens or 0
    total_tokens += output_tokens or 0
    total_tokens += cache_creation_tokens or 0
    total_tokens += cache_read_tokens or 0

    # Record the LLM request with token usage
    record_llm_request(
        provider="anthropic",
        model=model,
        success=True,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_creation_tokens=cache_creation_tokens,
        cache_read_tokens=cache_read_tokens,
        total_tokens=total_tokens if total_tokens > 0 else None,
    )

    # Calculate cost for metadata
    from ..telemetry import _calculate_llm_cost

    cost = _calculate_llm_cost(
        provider="anthropic",
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_creation_tokens=cache_creation_tokens,
        cache_read_tokens=cache_read_tokens,
    )

    # Build nested usage data
    usage_data: UsageData = {}
    if input_tokens is not None:
        usage_data["input_tokens"] = input_tokens
    if output_tokens is not None:
        usage_data["output_tokens"] = output_tokens
    if cache_read_tokens is not None:
        usage_data["cache_read_tokens"] = cache_read_tokens
    if cache_creation_tokens is not None:
        usage_data["cache_creation_tokens"] = cache_creation_tokens

    # Return MessageMetadata for attachment to Message
    metadata: MessageMetadata = {"model": model}
    if usage_data:
        metadata["usage"] = usage_data
    if cost > 0:
        metadata["cost"] = cost
    return metadata


def _resolve_thinking_budget() -> int:
    """Resolve thinking budget from ``GPTME_THINKING_EFFORT`` or ``GPTME_REASONING_BUDGET``.

    Precedence: if ``GPTME_THINKING_EFFORT`` is set, its level maps to a
    budget via ``_THINKING_EFFORT_BUDGETS``. Otherwise,
    ``GPTME_REASONING_BUDGET`` is parsed as an integer (default 16000).

    If both are set, ``GPTME_THINKING_EFFORT`` wins and a warning is logged.
    """
    effort = os.environ.get(ENV_THINKING_EFFORT)
    budget_raw = os.environ.get(ENV_REASONING_BUDGET)

    if effort is not None:
        level = _normalize_effort_level(effort)
        if budget_raw is not None:
            logger.warning(
                "Both %s and %s set; using %s=%s",
                ENV_THINKING_EFFORT,
                ENV_REASONING_BUDGET,
                ENV_THINKING_EFFORT,
                level,
            )
        return _THINKING_EFFORT_BUDGETS[level]

    if budget_raw is None:
        return _THINKING_EFFORT_BUDGETS["high"]
    try:
        return int(budget_raw)
    except ValueError as parse_err:
        raise ValueError(
            f"Invalid {ENV_REASONING_BUDGET} value: {budget_raw!r}. "
            "Must be a valid integer."
        ) from parse_err


def _fast_mode_kwargs() -> dict:
    """Return ``extra_body`` kwargs enabling Anthropic fast mode, or ``{}``.

    Fast mode (Claude Opus 4.8+ research preview) trades premium pricing for up
    to ~2.5x higher output tokens/sec via the ``speed: "fast"`` request field.
    It is sent through ``extra_body`` because the pinned anthropic SDK (^0.47)
    does not type the field natively; ``extra_body`` is merged verbatim into the
    request JSON, so this works regardless of SDK version.

    Opt-in via ``GPTME_ANTHROPIC_FAST_MODE=1`` (default off). When disabled this
    returns ``{}`` and has zero effect on the request — standard tier, standard
    pricing. When enabled against a model/org without fast-mode access, the API
    returns a normal error rather than silently downgrading; keep it off unless
    you have access and want the latency/cost trade-off (best for latency-
    sensitive callers such as gptme-voice).
    """
    enabled = os.environ.get(ENV_FAST_MODE, "").lower() in ("1", "true", "yes")
    if not enabled:
        return {}
    logger.debug("Anthropic fast mode enabled (speed=fast)")
    return {"extra_body": {"speed": "fast"}}


def _normalize_effort_level(effort: str) -> _EffortLevel:
    level = effort.strip().lower()
    if level not in _THINKING_EFFORT_BUDGETS:
        valid = ", ".join(_THINKING_EFFORT_BUDGETS)
        raise ValueError(
            f"Invalid {ENV_THINKING_EFFORT} value: {effort!r}. Must be one of: {valid}."
        )
    return cast(_EffortLevel, level)


def _resolve_effort_level() -> _EffortLevel | None:
    """Return the raw effort level from ``GPTME_THINKING_EFFORT``, or ``None``.

    Returns ``None`` when the env var is not set (i.e. the budget is driven
    by ``GPTME_REASONING_BUDGET`` instead).
    """
    effort = os.environ.get(ENV_THINKING_EFFORT)
    if effort is None:
        return None
    return _normalize_effort_level(effort)


class _OutputConfig(TypedDict):
    effort: _EffortLevel


class _OutputConfigKwargs(TypedDict, total=False):
    output_config: _OutputConfig


def _output_config_kwargs(*, use_thinking: bool) -> _OutputConfigKwargs:
    if not (use_thinking and _HAS_OUTPUT_CONFIG):
        return {}

    effort_level = _resolve_effort_level()
    if effort_level is None:
        return {}

    return {"output_config": {"effort": effort_level}}


def _requires_adaptive_thinking(model: str) -> bool:
    """Return True if ``model`` rejects legacy ``thinking.type=enabled`` with 400.

    Such models only accept adaptive thinking (``thinking.type=adaptive``)
    plus ``output_config.effort``.  Handles bare names, vendor prefixes, and
    Anthropic's dated-release suffixes (e.g. ``claude-opus-4-7-20260401``).
    """
    # Strip vendor prefix: "anthropic/claude-opus-4-7" -> "claude-opus-4-7",
    # "openrouter/anthropic/claude-opus-4-7" -> "claude-opus-4-7".
    base = model.rsplit("/", 1)[-1]
    if base in _ADAPTIVE_THINKING_MODELS:
        return True
    # Match dated-release suffix: "claude-opus-4-7-20260401".
    return any(base.startswith(known + "-") for known in _ADAPTIVE_THINKING_MODELS)


def _build_thinking_param(
    model: str, use_thinking: bool, thinking_budget: int
) -> dict[str, object] | None:
    """Build the ``thinking`` kwarg for Anthropic's messages API.

    Returns ``None`` when thinking is disabled so callers can substitute
    the SDK's ``NOT_GIVEN`` sentinel.  Branches on model capability:

    - Adaptive-only models (Opus 4.7+): ``{"type": "adaptive"}`` (effort
      flows through ``output_config`` separately).
    - All other reasoning models: ``{"type": "enabled", "budget_tokens": N}``.
    """
    if not use_thinking:
        return None
    if _requires_adaptive_thinking(model):
        return {"type": "adaptive"}
    return {"type": "enabled", "budget_tokens": thinking_budget}


def _adjust_thinking_budget(
    max_tokens: int, thinking_budget: int, use_thinking: bool, model: str = ""
) -> tuple[int, bool]:
    """Clamp thinking_budget to fit within max_tokens for Anthropic's extended thinking.

    Anthropic requires max_tokens > budget_tokens when extended thinking is active.
    We honor the caller's max_tokens limit by reducing thinking_budget to fit,
    rather than inflating max_tokens (which defeats cost-saving intent).

    Always reserves at least _MIN_RESPONSE_TOKENS for the actual response;
    disables thinking entirely when max_tokens is too small to be useful.

    Adaptive-thinking models (Opus 4.7+) have no ``budget_tokens`` constraint —
    the API allocates tokens internally — so the clamping logic is skipped for them.
    """
    if not use_thinking or _requires_adaptive_thinking(model):
        return thinking_budget, use_thinking
    if max_tokens >= thinking_budget + _MIN_RESPONSE_TOKENS:
        return thinking_budget, use_thinking
    new_budget = max_tokens - _MIN_RESPONSE_TOKENS
    if new_budget <= 0:
        # Not enough room for thinking AND a useful response — disable thinking.
        logger.warning(
            "max_tokens=%d is too small to accommodate thinking tokens "
            "and a useful response (min %d tokens); "
            "disabling extended thinking. Increase max_tokens or unset %s.",
            max_tokens,
            _MIN_RESPONSE_TOKENS,
            ENV_REASONING_BUDGET,
        )
        return thinking_budget, False
    logger.warning(
        "max_tokens=%d cannot accommodate thinking_budget=%d; "
        "reducing thinking_budget to %d (reserving %d tokens for response). "
        "Set %s to a smaller value to avoid this.",
        max_tokens,
        thinking_budget,
        new_budget,
        _MIN_RESPONSE_TOKENS,
        ENV_REASONING_BUDGET,
    )
    return new_budget, use_thinking


def _should_use_thinking(model_meta: ModelMeta, tools: list[ToolSpec] | None) -> bool:
    """Determine if thinking mode should be enabled for the given model and tools.

    Note: Thinking mode is now supported with tool use. When enabled, assistant
    messages containing <think> tags will be converted to proper Anthropic
    thinking blocks in the content array.
    """
    # Support environment variable to override reasoning behavior
    env_reasoning = os.environ.get(ENV_REASONING)
    if env_reasoning and env_reasoning.lower() in ("1", "true", "yes"):
        return True
    if env_reasoning and env_reasoning.lower() in ("0", "false", "no"):
        return False

    # Enable thinking for supported models regardless of tool use
    return model_meta.supports_reasoning


def _handle_anthropic_transient_error(
    e, attempt, max_retries, base_delay, generation=None
):
    """Handle Anthropic API transient errors with exponential backoff.

    Retries on:
    - 5xx server errors (500-599): Internal errors, bad gateway, service unavailable, etc.
    - 429 rate limit errors: Should back off and retry
    - Error messages containing 'overload', 'internal', 'timeout': Known transient issues
    """
    # Allow tests to override max_retries via environment variable
    # This breaks out of the retry loop early to prevent test timeouts
    from anthropic import APIStatusError  # fmt: skip

    test_max_retries_str = os.environ.get("GPTME_TEST_MAX_RETRIES")
    if test_max_retries_str:
        try:
            test_max_retries = int(test_max_retries_str)
        except ValueError as parse_err:
            raise ValueError(
                f"Invalid GPTME_TEST_MAX_RETRIES value: {test_max_retries_str!r}. "
                "Must be a valid integer."
            ) from parse_err
        if attempt >= test_max_retries - 1:
            logger.warning(
                f"Test max_retries={test_max_retries} reached (attempt {attempt + 1}), not retrying"
            )
            raise e

    # Check if this is a transient error we should retry
    should_retry = False
    if isinstance(e, APIStatusError):
        # Retry on all 5xx server errors (transient)
        if 500 <= e.status_code < 600:
            should_retry = True
        # Retry on 429 rate limit (should back off)
        elif e.status_code == 429:
            should_retry = True
        # Also check error message for known transient issues
        elif hasattr(e, "message"):
            error_msg = str(e.message).lower()
            if any(
                keyword in error_msg for keyword in ["overload", "internal", "timeout"]
            ):
                should_retry = True
    # Also check for "httpx.RemoteProtocolError: peer closed connection without sending complete message body"
    elif isinstance(e, RemoteProtocolError):
        should_retry = True

    # Re-raise if not transient or max retries reached
    if not should_retry or attempt == max_retries - 1:
        raise e

    delay = base_delay * (2**attempt)
    status_code = getattr(e, "status_code", "unknown")
    logger.warning(
        f"Anthropic API transient error (status {status_code}), "
        f"retrying in {delay}s (attempt {attempt + 1}/{max_retries})"
    )
    if status_code in [200, "200"]:
        logger.warning(f"Status code was strangely 200. Error details: {e}")
    if backoff_wait(delay, generation):
        logger.warning("Retry backoff aborted, re-raising original error")
        raise e


def retry_on_overloaded(max_retries: int = 5, base_delay: float = 1.0):
    """Decorator to retry functions on Anthropic API transient errors with exponential backoff.

    Handles 5xx server errors, rate limits, and other transient API issues.
    """

    def decorator(func):
        @wraps(func)
        def wrapper(*args, **kwargs):
            # Capture the retry generation once per call: if test teardown
            # interrupts pending retries after this point, every backoff wait
            # for this call aborts immediately (even attempts started later).
            generation = current_generation()
            for attempt in range(max_retries):
                try:
                    return func(*args, **kwargs)
                except Exception as e:
                    _handle_anthropic_transient_error(
                        e, attempt, max_retries, base_delay, generation=generation
                    )
            # _handle_anthropic_transient_error raises on last attempt,
            # but guard against silent None return if logic changes
            raise RuntimeError("retry exhausted without raising")  # pragma: no cover

        return wrapper

    return decorator


def retry_generator_on_overloaded(max_retries: int = 5, base_delay: float = 1.0):
    """Decorator to retry generator functions on Anthropic API transient errors with exponential backoff.

    Handles 5xx server errors, rate limits, and other transient API issues.

    Note: Retries only happen if no content has been yielded yet. Once streaming
    has started, errors are raised immediately to prevent duplicate output.
    """

    def decorator(func):
        @wraps(func)
        def wrapper(*args, **kwargs):
            # Capture the retry generation once per call (see retry_abort.py).
            generation = current_generation()
            for attempt in range(max_retries):
                has_yielded = False
                try:
                    gen = func(*args, **kwargs)
                    while True:
                        try:
                            value = next(gen)
                        except StopIteration as e:
                            # Generator finished normally, return its value
                            return e.value
                        # Mark as yielded BEFORE yielding to consumer
                        # This ensures we don't retry if consumer throws
                        has_yielded = True
                        yield value
                except Exception as e:
                    if has_yielded:
                        # Can't retry after streaming has started - would cause duplicates
                        raise
                    _handle_anthropic_transient_error(
                        e, attempt, max_retries, base_delay, generation=generation
                    )
            # _handle_anthropic_transient_error raises on last attempt,
            # but guard against silent None return if logic changes
            raise RuntimeError("retry exhausted without raising")  # pragma: no cover

        return wrapper

    return decorator


def init(config):
    global _anthropic, _is_proxy
    from ..credentials import get_stored_api_key

    proxy_url = config.get_env("LLM_PROXY_URL", None)
    proxy_key = config.get_env("LLM_PROXY_API_KEY")
    api_key = (
        proxy_key
        or config.get_env("ANTHROPIC_API_KEY")
        or get_stored_api_key("anthropic")
    )
    if not api_key:
        raise KeyError(
            "Environment variable ANTHROPIC_API_KEY not set in env/config or credentials.toml"
        )
    _init_anthropic(api_key, proxy_url, proxy_key)


def reinit(
    api_key: str, proxy_url: str | None = None, proxy_key: str | None = None
) -> None:
    """Reinitialize the Anthropic client with a new API key at runtime.

    Call this to switch credentials mid-session without restarting gptme.
    Both streaming and non-streaming calls use the same module-level client,
    so the old client is discarded and replaced.
    """
    if not api_key:
        raise ValueError("api_key must be non-empty")
    _init_anthropic(api_key, proxy_url, proxy_key)


def _init_anthropic(
    api_key: str,
    proxy_url: str | None = None,
    proxy_key: str | None = None,
) -> None:
    global _anthropic, _is_proxy, _anthropic_gptme, _anthropic_gptme_key
    proxy_key = proxy_key or None
    proxy_url = proxy_url or None

    # Discard the lazily-built gptme gateway client so it rebuilds from current
    # config on next use. _get_gptme_client only rebuilds when the device token
    # CHANGES; a mid-session reinit() that switches proxy/timeout config while the
    # device token stays the same would otherwise leave the gateway client pinned
    # to the stale base_url/timeout. Resetting here keeps it symmetric with the
    # primary _anthropic client this function rebuilds. (gptme#2876 follow-up.)
    _anthropic_gptme = None
    _anthropic_gptme_key = None

    from anthropic import NOT_GIVEN, Anthropic  # fmt: skip

    from ..config import get_config  # fmt: skip

    config = get_config()

    # Get configurable API timeout (default: client's own default of 10 minutes)
    timeout_str = config.get_env("LLM_API_TIMEOUT")
    try:
        timeout = float(timeout_str) if timeout_str else NOT_GIVEN
    except ValueError as parse_err:
        raise ValueError(
            f"Invalid LLM_API_TIMEOUT value: {timeout_str!r}. Must be a valid number."
        ) from parse_err

    _anthropic = Anthropic(
        api_key=api_key,
        max_retries=5,
        base_url=proxy_url or None,
        timeout=timeout,
    )
    _is_proxy = proxy_url is not None


def get_client() -> "Anthropic | None":
    return _anthropic


# Separate Anthropic client for the gptme cloud gateway. Kept distinct from the
# primary `_anthropic` client so a session can mix a real `anthropic/...` model
# (real key) and a `gptme/anthropic/...` model (gateway + device token) without
# the two clobbering each other (no reinit thrash on model switch).
_anthropic_gptme: "Anthropic | None" = None
# Device token the cached client was built with, so we rebuild after a token
# refresh / re-login instead of holding a stale (eventually expired) credential.
_anthropic_gptme_key: str | None = None


def _get_gptme_client() -> "Anthropic":
    """Lazily build the Anthropic client pointed at the gptme.ai gateway.

    Uses the gptme device-token auth (sent as x-api-key) and the gateway base
    URL. The Supabase messages function ignores the SDK's trailing path, so the
    native Anthropic request lands on it and is forwarded verbatim to Anthropic.
    Rebuilt when the device token changes (cheap: get_api_key reads the cached
    token file) so a mid-session re-login takes effect.
    """
    global _anthropic_gptme, _anthropic_gptme_key
    from anthropic import NOT_GIVEN, Anthropic  # fmt: skip

    from ..config import get_config  # fmt: skip
    from .llm_gptme import get_api_key, get_base_url  # fmt: skip

    config = get_config()
    api_key = get_api_key(config)
    if _anthropic_gptme is None or _anthropic_gptme_key != api_key:
        timeout_str = config.get_env("LLM_API_TIMEOUT")
        try:
            timeout = float(timeout_str) if timeout_str else NOT_GIVEN
        except ValueError as parse_err:
            raise ValueError(
                f"Invalid LLM_API_TIMEOUT value: {timeout_str!r}. Must be a valid number."
            ) from parse_err

        _anthropic_gptme = Anthropic(
            api_key=api_key,
            max_retries=5,
            base_url=get_base_url(config),
            timeout=timeout,
        )
        _anthropic_gptme_key = api_key
    return _anthropic_gptme


class CacheControl(TypedDict):
    type: Literal["ephemeral"]


def _make_schema_tool(
    output_schema: "type[BaseModel] | None",
) -> "anthropic.types.ToolParam | None":
    """Convert Pydantic BaseModel to Anthropic tool definition for constrained output."""
    if output_schema is None:
        return None

    # Extract JSON schema from Pydantic model
    json_schema = output_schema.model_json_schema()
    schema_name = output_schema.__name__

    # Convert to Anthropic tool definition
    return cast(
        "anthropic.types.ToolParam",
        {
            "name": f"return_{schema_name.lower()}",
            "description": f"Return structured output conforming to {schema_name} schema",
            "input_schema": json_schema,
        },
    )


@retry_on_overloaded()
def chat(
    messages: list[Message],
    model: str,
    tools: list[ToolSpec] | None,
    output_schema: type[BaseModel] | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    via_gptme: bool = False,
) -> tuple[str, MessageMetadata | None]:
    from anthropic import NOT_GIVEN  # fmt: skip

    client = _get_gptme_client() if via_gptme else _anthropic
    if not client:
        raise RuntimeError("LLM not initialized")
    messages_dicts, system_messages, tools_dict = _prepare_messages_for_api(
        messages, tools
    )

    # Add schema tool for constrained output
    schema_tool: anthropic.types.ToolParam | None = _make_schema_tool(output_schema)
    if schema_tool:
        # Add schema tool to tools
        if tools_dict:
            tools_dict.append(schema_tool)
        else:
            tools_dict = [schema_tool]

        # Inject instruction in system messages
        schema_instruction = f"Use the {schema_tool['name']} tool to return your response in the required format."
        if system_messages:
            system_messages.append({"type": "text", "text": schema_instruction})
        else:
            system_messages = [{"type": "text", "text": schema_instruction}]

        # Inject instruction in last user message
        assert (
            output_schema is not None
        )  # schema_tool exists means output_schema is not None
        schema_name = output_schema.__name__
        messages_dicts = _inject_schema_instruction(messages_dicts, schema_name)

    api_model = f"anthropic/{model}" if (via_gptme or _is_proxy) else model

    model_meta = get_model(f"anthropic/{model}")
    use_thinking = _should_use_thinking(model_meta, tools)
    thinking_budget = _resolve_thinking_budget()
    max_tokens = (
        max_tokens if max_tokens is not None else (model_meta.max_output or 4096)
    )
    thinking_budget, use_thinking = _adjust_thinking_budget(
        max_tokens, thinking_budget, use_thinking, model=model
    )

    # Pass output_config.effort when the SDK supports it (>= 0.77) and
    # GPTME_THINKING_EFFORT is set.  This enables true xhigh/max semantics
    # (adaptive thinking) that budget_tokens cannot express.
    output_config_kwargs = _output_config_kwargs(use_thinking=use_thinking)
    thinking_param = _build_thinking_param(model, use_thinking, thinking_budget)

    _temperature = temperature if temperature is not None else TEMPERATURE
    _top_p = top_p if top_p is not None else TOP_P
    response = client.messages.create(  # type: ignore[call-overload]
        model=api_model,
        messages=messages_dicts,
        system=system_messages,
        temperature=_temperature if not model_meta.supports_reasoning else 1,
        top_p=_top_p if not model_meta.supports_reasoning else NOT_GIVEN,
        max_tokens=max_tokens,
        tools=tools_dict or NOT_GIVEN,
        thinking=thinking_param if thinking_param is not None else NOT_GIVEN,
        **output_config_kwargs,
        **_fast_mode_kwargs(),
        # We set a timeout for non-streaming requests to prevent Anthropic's
        # "Streaming is strongly recommended" warning/error.
        timeout=60,
    )
    content = response.content
    metadata = _record_usage(response.usage, model)

    parsed_block = []
    for block in content:
        if block.type == "text":
            parsed_block.append(block.text)
        elif block.type == "thinking":
            # Embed signature so it survives serialisation and can be passed
            # back on the next API call (Anthropic requires it for multi-turn).
            parsed_block.append(
                f"<think>\n{block.thinking}\n<!-- think-sig: {block.signature} -->\n</think>"
            )
        elif block.type == "tool_use":
            parsed_block.append(f"\n@{block.name}({block.id}): {block.input}")
        else:
            logger.warning("Unknown block: %s", str(block))

    return "\n".join(parsed_block), metadata


@retry_generator_on_overloaded()
def stream(
    messages: list[Message],
    model: str,
    tools: list[ToolSpec] | None,
    output_schema: type[BaseModel] | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    _partial: dict | None = None,
    via_gptme: bool = False,
) -> Generator[str, None, MessageMetadata | None]:
    import anthropic.types  # fmt: skip
    from anthropic import NOT_GIVEN  # fmt: skip

    # Variable to capture metadata from usage recording
    captured_metadata: MessageMetadata | None = None
    # Track the signature for the current thinking block so it can be embedded
    # in the output before </think> for round-trip preservation.
    _current_block_signature: str | None = None

    client = _get_gptme_client() if via_gptme else _anthropic
    if not client:
        raise RuntimeError("LLM not initialized")
    messages_dicts, system_messages, tools_dict = _prepare_messages_for_api(
        messages, tools, model=model
    )

    # Add schema tool for constrained output
    schema_tool: anthropic.types.ToolParam | None = _make_schema_tool(output_schema)
    if schema_tool:
        # Add schema tool to tools
        if tools_dict:
            tools_dict.append(schema_tool)
        else:
            tools_dict = [schema_tool]

        # Inject instruction in system messages
        schema_instruction = f"Use the {schema_tool['name']} tool to return your response in the required format."
        if system_messages:
            system_messages.append({"type": "text", "text": schema_instruction})
        else:
            system_messages = [{"type": "text", "text": schema_instruction}]

        # Inject instruction in last user message
        assert (
            output_schema is not None
        )  # schema_tool exists means output_schema is not None
        schema_name = output_schema.__name__
        messages_dicts = _inject_schema_instruction(messages_dicts, schema_name)

    api_model = f"anthropic/{model}" if (via_gptme or _is_proxy) else model

    model_meta = get_model(f"anthropic/{model}")
    use_thinking = _should_use_thinking(model_meta, tools)
    thinking_budget = _resolve_thinking_budget()
    max_tokens = (
        max_tokens if max_tokens is not None else (model_meta.max_output or 4096)
    )
    thinking_budget, use_thinking = _adjust_thinking_budget(
        max_tokens, thinking_budget, use_thinking, model=model
    )

    output_config_kwargs = _output_config_kwargs(use_thinking=use_thinking)
    thinking_param = _build_thinking_param(model, use_thinking, thinking_budget)

    _temperature = temperature if temperature is not None else TEMPERATURE
    _top_p = top_p if top_p is not None else TOP_P
    with client.messages.stream(  # type: ignore[call-arg]
        model=api_model,
        messages=messages_dicts,
        system=system_messages,
        temperature=_temperature if not model_meta.supports_reasoning else 1,
        top_p=_top_p if not model_meta.supports_reasoning else NOT_GIVEN,  # type: ignore[arg-type]
        max_tokens=max_tokens,
        tools=tools_dict or NOT_GIVEN,  # type: ignore[arg-type]
        thinking=thinking_param if thinking_param is not None else NOT_GIVEN,  # type: ignore[arg-type]
        **output_config_kwargs,  # type: ignore[arg-type]
        **_fast_mode_kwargs(),
    ) as stream:
        for chunk in stream:
            match chunk.type:
                case "content_block_start":
                    chunk = cast(anthropic.types.RawContentBlockStartEvent, chunk)
                    block = chunk.content_block
                    if isinstance(block, anthropic.types.ToolUseBlock):
                        tool_use = block
                        yield f"\n@{tool_use.name}({tool_use.id}): "
                    elif isinstance(block, anthropic.types.ThinkingBlock):
                        yield "<think>\n"
                    elif isinstance(block, anthropic.types.RedactedThinkingBlock):
                        yield "<think redacted>\n"
                    elif isinstance(block, anthropic.types.TextBlock):
                        if block.text:
                            logger.warning("unexpected text block: %s", block.text)
                    # Note: Server-side tool use (e.g., web search) comes through as
                    # regular ToolUseBlock with specific tool names, not special types
                    else:
                        logger.warning("Unknown block type: %s", block)
                case "content_block_delta":
                    chunk = cast(anthropic.types.RawContentBlockDeltaEvent, chunk)
                    delta = chunk.delta
                    if isinstance(delta, anthropic.types.TextDelta):
                        if delta.text is not None:
                            yield delta.text
                    elif isinstance(delta, anthropic.types.ThinkingDelta):
                        if delta.thinking is not None:
                            yield delta.thinking
                    elif isinstance(delta, anthropic.types.InputJSONDelta):
                        if delta.partial_json is not None:
                            yield delta.partial_json
                    elif isinstance(delta, anthropic.types.SignatureDelta):
                        # Capture signature for embedding in the closing </think> tag.
                        _current_block_signature = delta.signature
                    elif isinstance(delta, anthropic.types.CitationsDelta):
                        # Citation from web search results
                        if (
                            hasattr(delta, "citation")
                            and delta.citation
                            and hasattr(delta.citation, "url")
                        ):
                            yield f"\n📎 Source: {delta.citation.url}\n"
                    else:
                        logger.warning("Unknown delta type: %s", delta)
                case "content_block_stop":
                    stop_chunk = cast(anthropic.types.ContentBlockStopEvent, chunk)
                    stop_block = getattr(stop_chunk, "content_block", None)
                    if isinstance(stop_block, anthropic.types.TextBlock):
                        pass
                    elif isinstance(stop_block, anthropic.types.ToolUseBlock):
                        pass
                    elif isinstance(stop_block, anthropic.types.ThinkingBlock):
                        # Embed the signature so it's preserved in message history
                        # and can be passed back to the API on subsequent turns.
                        if _current_block_signature:
                            yield f"\n<!-- think-sig: {_current_block_signature} -->"
                            _current_block_signature = None
                        yield "\n</think>\n\n"
                    elif isinstance(stop_block, anthropic.types.RedactedThinkingBlock):
                        yield "\n</think redacted>\n\n"
                    # Note: Server-side tool completion comes through as regular
                    # ToolUseBlock in the stop event, already handled above
                    else:
                        logger.warning("Unknown stop block: %s", stop_block)
                case "text":
                    # full text message
                    pass
                case "message_start":
                    chunk = cast(
                        anthropic.types.MessageStartEvent,
                        chunk,
                    )
                    # Capture input/cache token counts now as a fallback for
                    # callers that break the stream before message_delta arrives
                    # (e.g. break_on_tooluse).  Written into the shared _partial
                    # dict; _StreamWithMetadata reads it in its finally block.
                    if _partial is not None and chunk.message.usage:
                        usage = chunk.message.usage
                        partial_usage: dict = {}
                        if (v := getattr(usage, "input_tokens", None)) is not None:
                            partial_usage["input_tokens"] = v
                        if (
                            v := getattr(usage, "cache_read_input_tokens", None)
                        ) is not None:
                            partial_usage["cache_read_tokens"] = v
                        if (
                            v := getattr(usage, "cache_creation_input_tokens", None)
                        ) is not None:
                            partial_usage["cache_creation_tokens"] = v
                        if partial_usage:
                            _partial["metadata"] = {
                                "model": model,
                                "usage": partial_usage,
                            }
                case "message_delta":
                    chunk = cast(anthropic.types.MessageDeltaEvent, chunk)
                    # Record usage from message_delta which contains the final/cumulative usage
                    # and capture metadata for message attachment
                    captured_metadata = _record_usage(chunk.usage, model)
                case "message_stop":
                    pass
                case _:
                    # print(f"Unknown chunk type: {chunk.type}")
                    pass

    # Return the captured metadata (accessible via StopIteration.value)
    return captured_metadata


def _extract_thinking_content(
    content: str | list,
) -> tuple[list[tuple[str, str]], str]:
    """Extract thinking content from <think>/<thinking> tags.

    Handles both string content and list of content blocks.
    Also extracts the embedded ``<!-- think-sig: ... -->`` signature comment
    that is injected by ``chat()`` and ``stream()`` to preserve the Anthropic
    thinking-block signature across message serialisation.

    Returns:
        Tuple of (thinking_blocks, remaining_content_without_tags) where
        thinking_blocks is a list of (thinking_text, signature) per block
        (signature is empty string if none was embedded), and
        remaining_content_without_tags is the text with all thinking tags removed.
    """
    import re

    # Handle list content (e.g., [{"type": "text", "text": "..."}])
    text_content = ""
    if isinstance(content, list):
        text_parts = [
            item.get("text", "")
            for item in content
            if isinstance(item, dict) and item.get("type") == "text"
        ]
        text_content = "\n".join(text_parts)
    elif isinstance(content, str):
        text_content = content

    if not text_content:
        return [], ""

    # Extract content from <think>...</think> and <thinking>...</thinking> blocks
    think_matches = re.findall(r"<think>(.*?)</think>", text_content, flags=re.DOTALL)
    thinking_matches = re.findall(
        r"<thinking>(.*?)</thinking>", text_content, flags=re.DOTALL
    )
    all_thinking = think_matches + thinking_matches

    # Extract the embedded signature comment and strip it from each block.
    # Each block gets its own signature to support multiple thinking blocks.
    sig_pattern = re.compile(r"\n<!-- think-sig: (.*?) -->", re.DOTALL)
    thinking_blocks: list[tuple[str, str]] = []
    for block in all_thinking:
        sig_match = sig_pattern.search(block)
        signature = sig_match.group(1).strip() if sig_match else ""
        cleaned_block = sig_pattern.sub("", block).strip()
        if cleaned_block:
            thinking_blocks.append((cleaned_block, signature))

    # Remove <think> and <thinking> tags from content
    cleaned_content = re.sub(
        r"<think>.*?</think>\s*", "", text_content, flags=re.DOTALL
    )
    cleaned_content = re.sub(
        r"<thinking>.*?</thinking>\s*", "", cleaned_content, flags=re.DOTALL
    )
    cleaned_content = cleaned_content.strip()

    return thinking_blocks, cleaned_content


def _handle_tools(message_dicts: Iterable[dict]) -> Generator[dict, None, None]:
    for message in message_dicts:
        # Format tool result as expected by the model
        if message["role"] == "user" and "call_id" in message:
            modified_message = dict(message)
            modified_message["content"] = [
                {
                    "type": "tool_result",
                    "content": modified_message["content"],
                    "tool_use_id": modified_message.pop("call_id"),
                }
            ]
            yield modified_message
        # Find tool_use occurrences and format them as expected
        elif message["role"] == "assistant":
            modified_message = dict(message)
            original_content = message["content"]

            # Extract thinking content from <think> tags for proper Anthropic format
            thinking_blocks, cleaned_content = _extract_thinking_content(
                original_content
            )

            # Parse tool uses from the cleaned content (without thinking tags)
            content_parts, tool_uses = extract_tool_uses_from_assistant_message(
                cleaned_content, tool_format_override="tool"
            )

            # Build content array in proper order: thinking first, then text, then tools
            final_content: list[dict] = []

            # Add thinking blocks (must come first in Anthropic format).
            # The Anthropic API requires the signature field for thinking blocks in
            # multi-turn history; without it the request returns a 400 error.
            # We embed each block's signature as a <!-- think-sig: ... --> comment in
            # the serialised message content so it survives round-trips.
            # Each block is emitted separately to preserve per-block signatures.
            for thinking_text, thinking_signature in thinking_blocks:
                if thinking_signature:
                    final_content.append(
                        {
                            "type": "thinking",
                            "thinking": thinking_text,
                            "signature": thinking_signature,
                        }
                    )
                else:
                    # No signature available (legacy message or format mismatch).
                    # Skip the thinking block to avoid an Anthropic API 400 error.
                    logger.debug(
                        "Skipping thinking block in history: no signature available"
                    )

            # Add text content parts
            for part in content_parts:
                if isinstance(part, str) and part.strip():
                    final_content.append({"type": "text", "text": part})
                elif isinstance(part, dict):
                    final_content.append(part)

            # Add tool uses in Anthropic format
            final_content.extend(
                {
                    "type": "tool_use",
                    "id": tooluse.call_id or "",
                    "name": tooluse.tool,
                    "input": tooluse.kwargs or {},
                }
                for tooluse in tool_uses
            )

            if final_content:
                modified_message["content"] = final_content

            yield modified_message
        else:
            yield message


# File extensions allowed for image uploads
ALLOWED_FILE_EXTS = ["jpg", "jpeg", "png", "gif", "webp"]


def _process_file(message_dict: dict) -> dict:
    """Process remaining file attachments (images only).

    Text files are already embedded by embed_attached_file_content() in
    prepare_messages(). Only non-text files (images, binaries) remain here.
    """
    message_content = message_dict["content"]

    # combines a content message with a list of files
    content: list[dict[str, Any]] = (
        message_content
        if isinstance(message_content, list)
        else [{"type": "text", "text": message_content}]
    )

    for f in message_dict.pop("files", []):
        result = process_image_file(f, content, max_size_mb=5, expand_user=True)
        if result is None:
            continue

        data, media_type = result
        content.append(
            {
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": media_type,
                    "data": data,
                },
            }
        )

    message_dict["content"] = content
    return message_dict


def _supports_native_system_messages(model: str) -> bool:
    """Check if the model supports ``role: "system"`` messages in the messages array.

    Claude Opus 4.8+ accepts ``role: "system"`` entries after a user turn.
    Strip vendor/OpenRouter prefixes to the bare Anthropic model ID before
    comparing.
    """
    # Strip vendor prefix: "anthropic/claude-opus-4-8" -> "claude-opus-4-8",
    # "openrouter/anthropic/claude-opus-4-8" -> "claude-opus-4-8".
    # Then strip date suffixes: "claude-opus-4-8-20260401" -> "claude-opus-4-8".
    base = model.split("/")[-1]

    # Check if it's Opus 4.8 or a dated variant of it
    return base == "claude-opus-4-8" or base.startswith("claude-opus-4-8-")


def _transform_system_messages(
    messages: list[Message],
    model: str | None = None,
) -> tuple[list[Message], list["anthropic.types.TextBlockParam"]]:
    """Transform system messages into Anthropic's expected format.

    This function:
    1. Extracts the leading static system prompt messages as the main system prompt
    2. For models without native system-message support (< Opus 4.8): wraps
       subsequent system messages as ``<system>`` tags in user messages
    3. For Opus 4.8+: preserves subsequent system messages as ``role: "system"``
       (native mid-conversation system-message support)
    4. Merges consecutive user messages (for legacy path)
    5. Applies cache control to optimize performance

    Note: Anthropic allows up to 4 cache breakpoints in a conversation.
    We use this to cache:
    1. The static bootstrap prompt (if long enough)
    2. Earlier messages in multi-turn conversations

    Returns:
        tuple[list[Message], list[TextBlockParam]]: Transformed messages and system messages
    """
    from ..prompts import SYSTEM_PROMPT_CACHE_BOUNDARY

    if not messages or messages[0].role != "system":
        raise ValueError(
            f"First message must be a system message, got {messages[0].role if messages else 'empty list'}"
        )

    messages = messages.copy()
    system_prompt_parts = [messages.pop(0).content]

    # Anthropic only allows a single top-level system prompt. Fold the static
    # bootstrap prefix into that block so project/agent prompt files remain in
    # the cacheable prefix instead of being downgraded into a synthetic user
    # message that changes whenever context_cmd output changes.
    while (
        messages
        and messages[0].role == "system"
        and messages[0].call_id is None
        and messages[0].content != SYSTEM_PROMPT_CACHE_BOUNDARY
    ):
        system_prompt_parts.append(messages.pop(0).content)

    system_prompt = "\n\n".join(system_prompt_parts)

    native_system = model is not None and _supports_native_system_messages(model)

    if native_system:
        # Opus 4.8+: subsequent system messages are kept as-is (native support).
        # No transformation needed — they pass through as role="system".
        pass
    else:
        # Pre-Opus-4.8: convert subsequent system messages into <system> tags
        # inside user messages, unless a `call_id` is present, indicating the
        # tool_format is 'tool'. Tool responses are handled separately by _handle_tool.
        for i, message in enumerate(messages):
            if message.role == "system":
                content = (
                    f"<system>{message.content}</system>"
                    if message.call_id is None
                    else message.content
                )

                messages[i] = Message(
                    "user",
                    content=content,
                    files=message.files,
                    call_id=message.call_id,
                )

    # find consecutive user role messages and merge them together
    messages_new: list[Message] = []
    while messages:
        message = messages.pop(0)
        if (
            messages_new
            and messages_new[-1].role == "user"
            and message.role == "user"
            and message.call_id == messages_new[-1].call_id
        ):
            messages_new[-1] = messages_new[-1].concat(message)
        else:
            messages_new.append(message)
    messages = messages_new
    system_messages: list[anthropic.types.TextBlockParam] = [
        {
            "type": "text",
            "text": system_prompt,
        }
    ]

    return messages, system_messages


def _spec2tool(
    spec: ToolSpec,
) -> "anthropic.types.ToolParam":
    name = spec.name
    if spec.block_types:
        name = spec.block_types[0]

    # TODO: are input_schema and parameters the same? (both JSON Schema?)
    return cast(
        "anthropic.types.ToolParam",
        {
            "name": name,
            "description": spec.get_instructions("tool"),
            "input_schema": parameters2dict(spec.parameters),
        },
    )


def _create_web_search_tool(max_uses: int = 5) -> dict[str, Any]:
    """Create Anthropic native web search tool definition.

    Args:
        max_uses: Maximum number of search cycles Claude can perform

    Returns:
        Tool definition for Anthropic web search
    """
    return {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": max_uses,
    }


def _prepare_messages_for_api(
    messages: list[Message],
    tools: list[ToolSpec] | None,
    model: str | None = None,
) -> tuple[
    list["anthropic.types.MessageParam"],
    list["anthropic.types.TextBlockParam"],
    list["anthropic.types.ToolParam"] | None,
]:
    """Prepare messages for the Anthropic API.

    This function:
    1. Transforms system messages (model-aware for Opus 4.8+ native support)
    2. Handles file attachments
    3. Applies cache control
    4. Prepares tools

    Args:
        messages: List of messages to prepare
        tools: List of tool specifications
        model: Model identifier (used for feature detection, e.g. native system messages)

    Returns:
        tuple containing:
        - Prepared message dictionaries
        - System messages
        - Tool dictionaries (if tools provided)
    """
    # noreorder
    import anthropic.types  # fmt: skip

    # Transform system messages
    messages, system_messages = _transform_system_messages(messages, model=model)

    # Find the stable boundary before the first ephemeral message.
    # This index (into messages_dicts_new after conversion) is passed to
    # apply_cache_control so a cache breakpoint is placed just before the
    # ephemeral block, keeping the stable prefix cached as messages expire.
    first_ephemeral_in_messages = next(
        (i for i, m in enumerate(messages) if m.ephemeral_ttl is not None), None
    )

    # Handle files and convert to dicts
    messages_dicts = (_process_file(f) for f in msgs2dicts(messages))

    # Prepare tools
    tools_dict = [_spec2tool(tool) for tool in tools] if tools else None

    # Add native web search tool if enabled
    web_search_enabled = os.environ.get("GPTME_ANTHROPIC_WEB_SEARCH", "").lower() in (
        "1",
        "true",
        "yes",
    )
    if web_search_enabled:
        _max_uses_str = os.environ.get("GPTME_ANTHROPIC_WEB_SEARCH_MAX_USES", "5")
        try:
            max_uses = int(_max_uses_str)
        except ValueError as e:
            raise ValueError(
                f"Invalid GPTME_ANTHROPIC_WEB_SEARCH_MAX_USES value: {_max_uses_str!r}. "
                "Must be a valid integer."
            ) from e
        web_search_tool = _create_web_search_tool(max_uses=max_uses)
        if tools_dict is None:
            tools_dict = []
        tools_dict.append(cast("anthropic.types.ToolParam", web_search_tool))
        logger.info(f"Anthropic native web search enabled (max_uses={max_uses})")

    if tools_dict is not None:
        messages_dicts = _handle_tools(messages_dicts)

    # Apply cache control to optimize performance
    messages_dicts_new: list[anthropic.types.MessageParam] = []
    # Track the output index of the stable boundary before the ephemeral block.
    # msg_input_idx counts messages from the generator (before filtering).
    _msg_input_idx = 0
    _ephemeral_boundary_output_idx: int | None = None
    for msg in messages_dicts:
        content_parts: list[
            anthropic.types.TextBlockParam
            | anthropic.types.ImageBlockParam
            | anthropic.types.ToolUseBlockParam
            | anthropic.types.ToolResultBlockParam
        ] = []
        raw_content = (
            msg["content"]
            if isinstance(msg["content"], list)
            else [{"type": "text", "text": msg["content"]}]
        )

        for part in raw_content:
            if isinstance(part, dict):
                content_parts.append(cast(anthropic.types.TextBlockParam, part))
            else:
                content_parts.append({"type": "text", "text": str(part)})

        # Anthropic API rejects messages with trailing whitespace in the last assistant message.
        # We remove trailing whitespace from all assistant messages to ensure consistent requests for caching.
        if msg["role"] == "assistant":
            for item in content_parts:
                if item.get("type") == "text" and isinstance(item.get("text"), str):
                    item = cast(anthropic.types.TextBlockParam, item)
                    item["text"] = item["text"].rstrip()

        # Filter out empty text blocks to prevent API errors
        filtered_parts = []
        for part in content_parts:
            if part.get("type") == "text":
                text_content = part.get("text", "")
                # Skip empty text blocks
                if isinstance(text_content, str) and text_content.strip():
                    filtered_parts.append(part)
            else:
                # Keep all non-text parts
                filtered_parts.append(part)
        content_parts = filtered_parts

        # Record the boundary before potentially skipping this message.
        # The boundary is the last output index before the first ephemeral input,
        # so it must be captured regardless of whether this message has content.
        if (
            first_ephemeral_in_messages is not None
            and _msg_input_idx == first_ephemeral_in_messages
            and len(messages_dicts_new) > 0
        ):
            _ephemeral_boundary_output_idx = len(messages_dicts_new) - 1

        # Only add message if it has content (prevents Anthropic API error)
        if content_parts:
            messages_dicts_new.append({"role": msg["role"], "content": content_parts})
        else:
            logger.warning(
                f"Skipping message with role '{msg['role']}' - all content was filtered out"
            )
        _msg_input_idx += 1

    # Apply cache control for Anthropic prompt caching
    # See: https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
    messages_with_cache, system_with_cache = apply_cache_control(
        cast(list[dict], messages_dicts_new),
        cast(list[dict] | None, system_messages),
        ephemeral_boundary_idx=_ephemeral_boundary_output_idx,
    )
    messages_dicts_new = cast(list[anthropic.types.MessageParam], messages_with_cache)
    system_messages = cast(list[anthropic.types.TextBlockParam], system_with_cache)

    return messages_dicts_new, system_messages, tools_dict
