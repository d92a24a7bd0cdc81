"""Which provider serves a model id, and where its API key comes from.

`claude-*` -> Anthropic; `gpt-*`, `o1`/`o3`/... -> the OpenAI Responses API (OpenAI recommends it
for new work, and there the instructions come before the tools: docs/providers.md#openai-api);
`deepseek-*` -> OpenAI-compatible at the base URL of the price table. An explicit prefix wins:
`anthropic:`, `openai:` (Responses), `openai-chat:` (Chat Completions), `openai-responses:`,
`openai-compat:`. Aliases of the price table (`haiku`) resolve
first. A model nothing recognizes needs a prefix or a `base_url` (then it is OpenAI-compatible).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..billing.prices import PriceTable
from ..errors import ConfigError, MissingKeyError, UnknownModelError

PREFIXES = {
    "anthropic": "anthropic",
    "openai": "openai-responses",
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
    "openai-compat": "openai-compat",
}
KEY_VARS = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "custom": "PREFIXLOCK_API_KEY",
}
KEY_VAR_NAMES = tuple(dict.fromkeys(KEY_VARS.values()))  # each variable once, in that order
_OPENAI_MODEL = re.compile(r"^(gpt-|o\d|chatgpt-|codex-|ft:gpt-)")


@dataclass(frozen=True)
class Route:
    """Where requests for a model go: wire API, model id on the wire, base URL, key variable."""

    api: str  # anthropic | openai-chat | openai-responses | openai-compat
    model: str  # the id sent on the wire (prefix stripped, alias resolved)
    base_url: str | None
    key_var: str
    provider: str  # anthropic | openai | deepseek | custom

    @property
    def label(self) -> str:
        return f"{self.api}:{self.model}"


def resolve_route(
    model: str, base_url: str | None = None, prices: PriceTable | None = None
) -> Route:
    """The route for `model` (see the module docstring)."""
    table = prices or PriceTable.default()
    explicit: str | None = None
    name = model.strip()
    head, sep, rest = name.partition(":")
    if sep and head in PREFIXES:
        explicit, name = PREFIXES[head], rest
    if not name:
        raise UnknownModelError("empty model id", where="model")
    if base_url is not None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            # Caught here, not as a connection error retried five times that never says why.
            raise ConfigError(f"not an http(s) URL: {base_url!r}", where="base_url")
    price = table.lookup(name)
    wire_model = price.model if price is not None else name
    api = explicit
    if api is None:
        if wire_model.startswith("claude-"):
            api = "anthropic"
        elif _OPENAI_MODEL.match(wire_model):
            api = "openai-responses"
        elif wire_model.startswith("deepseek-"):
            api = "openai-compat"
        elif price is not None:
            api = price.api
        elif base_url is not None:
            api = "openai-compat"
        else:
            raise UnknownModelError(
                f"cannot tell which provider serves {model!r}: prefix it with anthropic:, "
                "openai:, openai-responses: or openai-compat: (and give a base URL for a "
                "compatible server)",
                where="model",
            )
    url = base_url
    if url is None and price is not None and price.base_url and api == "openai-compat":
        url = price.base_url
    if api == "anthropic":
        provider = "anthropic"
    elif api in ("openai-chat", "openai-responses"):
        provider = "openai"
    elif "deepseek" in (url or "") or wire_model.startswith("deepseek-"):
        provider = "deepseek"
    else:
        provider = "custom"
    if api == "openai-compat" and url is None:
        raise UnknownModelError(
            f"{model!r} is served by an OpenAI-compatible API: give its base URL",
            where="base_url",
        )
    key_var = KEY_VARS[api] if provider in ("anthropic", "openai") else KEY_VARS[provider]
    return Route(api, wire_model, url, key_var, provider)


def find_key(route: Route, api_key: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The API key to use: the one given, else the route's environment variable."""
    if api_key:
        return api_key
    environ = os.environ if env is None else env
    key = environ.get(route.key_var)
    if not key:
        raise MissingKeyError(
            f"no API key for {route.label}: set {route.key_var} (or pass api_key=)",
            where=route.key_var,
        )
    return key
