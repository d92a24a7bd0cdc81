"""Which provider's cache rules apply to a request: `anthropic`, `deepseek`, `openai-breakpoints`
(gpt-5.6 and later) or `openai` (128-token blocks), from the wire API, the provider of the
model's price entry and the model id.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from typing import Literal

from .units import openai_explicit_cache

Rules = Literal["anthropic", "deepseek", "openai-breakpoints", "openai"]


def rules_for(api: str, provider: str | None, model: str) -> Rules:
    """The rules of a request on `api` for `model`; `provider` is its price entry's (None:
    unpriced). An OpenAI-compatible endpoint that is not OpenAI's caches DeepSeek-style."""
    if api == "anthropic":
        return "anthropic"
    if api == "openai-compat" and provider != "openai":
        return "deepseek"
    if openai_explicit_cache(model):
        return "openai-breakpoints"  # directly or through a compatible proxy
    return "openai"


def writes_at_breakpoints(api: str, model: str) -> bool:
    """Does the cache keep entries only where a request marked a breakpoint (Anthropic, and
    OpenAI from gpt-5.6), rather than whole blocks or whole prompts?"""
    return api == "anthropic" or openai_explicit_cache(model)
