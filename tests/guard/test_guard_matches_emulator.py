"""The guard's prediction of every request equals what the emulator's cache bills for it, on
random request sequences: appended turns, turns of many blocks, rewritten history, a changed
system prompt, a model switch, idle gaps across TTLs, for Anthropic, OpenAI up to gpt-5.5, from
gpt-5.6, and DeepSeek. Both ask the same rule functions (prefixlock.cache); this pins that the
guard's model of the cache and the emulator's served cache stay in step."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage
from prefixlock.cache.units import (
    anthropic_units,
    openai_cache_options,
    openai_reply_chain,
    openai_tokens,
    openai_units,
)
from prefixlock.emulator.promptcache import (
    AnthropicPromptCache,
    DeepSeekPromptCache,
    OpenAIPromptCache,
)
from prefixlock.guard import CacheGuard
from prefixlock.wire import WireRequest

PRICES = PriceTable.default()
MODELS = {
    "anthropic": ["claude-opus-4-7", "claude-sonnet-4-6", "claude-opus-5"],
    "openai": ["gpt-5.4", "gpt-4o"],
    "gpt-5.6": ["gpt-5.6-terra"],
    "deepseek": ["deepseek-v4-flash", "deepseek-flash"],
}
GAPS = [1.0, 200.0, 299.0, 301.0, 700.0, 1900.0, 3700.0]
OPS = ["turn", "turn", "turn", "blocks", "edit", "system", "model"]


def words(seed: int, n: int) -> str:
    return " ".join(f"w{(seed * 31 + i) % 997}" for i in range(n))


class Conversation:
    def __init__(self, family: str, seed: int) -> None:
        self.family = family
        self.system = words(seed, 400 + seed % 1200)
        self.model = MODELS[family][0]
        self.msgs: list[tuple[str, list[str]]] = []
        self.echo: dict[str, Any] | None = None
        self.seed = seed

    def apply(self, op: str, n: int) -> None:
        if op == "edit" and self.msgs:
            role, blocks = self.msgs[n % len(self.msgs)]
            self.msgs[n % len(self.msgs)] = (role, [*blocks[:-1], blocks[-1] + " edited"])
        elif op == "system":
            self.system += " changed"
        elif op == "model":
            self.model = MODELS[self.family][n % len(MODELS[self.family])]
        else:
            count = 22 + n % 6 if op == "blocks" and self.family == "anthropic" else 1
            if self.echo is not None:
                self.msgs.append(("assistant", [str(self.echo["content"])]))
            self.msgs.append(("user", [words(n + i, 5 + (n + i) % 300) for i in range(count)]))
        self.echo = {"role": "assistant", "content": words(n, 3 + n % 20)}

    def request(self, n: int) -> WireRequest:
        if self.family == "anthropic":
            ttl = {"ttl": "1h"} if n % 3 == 0 else {}
            system = [
                {"type": "text", "text": self.system, "cache_control": {"type": "ephemeral", **ttl}}
            ]
            messages: list[dict[str, Any]] = [
                {"role": role, "content": [{"type": "text", "text": b} for b in blocks]}
                for role, blocks in self.msgs
            ]
            if messages and n % 4:
                messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
            body: dict[str, Any] = {
                "model": self.model,
                "max_tokens": 10,
                "system": system,
                "messages": messages,
            }
            return WireRequest(
                "anthropic", self.model, "/v1/messages", body, tuple(anthropic_units(body))
            )
        items: list[dict[str, Any]] = [{"role": "system", "content": self.system}]
        for role, blocks in self.msgs:
            part: dict[str, Any] = {"type": "text", "text": blocks[0]}
            if self.family == "gpt-5.6" and role == "user" and n % 3 == 0:
                part["prompt_cache_breakpoint"] = {"mode": "explicit"}
            items.append({"role": role, "content": [part] if role == "user" else blocks[0]})
        body = {"model": self.model, "messages": items}
        if self.family == "gpt-5.6" and n % 5 == 0:
            body["prompt_cache_options"] = {"mode": "explicit"}
        api = "openai-compat" if self.family == "deepseek" else "openai-chat"
        return WireRequest(api, self.model, "/v1/chat/completions", body, tuple(openai_units(body)))


class Served:
    """The emulator's caches, asked and committed as its server does, billing as it reports."""

    def __init__(self) -> None:
        self.anthropic = AnthropicPromptCache()
        self.openai = OpenAIPromptCache()
        self.deepseek = DeepSeekPromptCache()

    def bill(self, req: WireRequest, now: float, echo: dict[str, Any]) -> Usage:
        price = PRICES.require(req.model)
        units, minimum = req.units, price.min_cacheable_tokens
        if req.api == "anthropic":
            a = self.anthropic.lookup("key", price.model, units, minimum, now)
            self.anthropic.commit(a.pending, now)
            return Usage(a.input_tokens, a.cache_read, a.write_5m, a.write_1h, 5)
        ttl = float(price.cache_ttl_seconds)
        if req.api == "openai-compat":
            d = self.deepseek.lookup(
                "key", price.model, units, minimum, ttl, now, openai_reply_chain(units, echo)
            )
            self.deepseek.commit(d.pending, now)
            return Usage(d.miss_tokens, d.hit_tokens, 0, 0, 5)
        tokens = openai_tokens(req.body)
        if price.model.startswith("gpt-5.6"):
            mode, request_ttl = openai_cache_options(req.body)
            o = self.openai.lookup_breakpoints(
                "key", price.model, units, tokens, "k", mode, request_ttl, minimum, now
            )
        else:
            o = self.openai.lookup("key", price.model, tokens, "k", minimum, ttl, now)
        self.openai.commit(o.pending, now)
        written = o.written_tokens if price.cache_write_5m is not None else 0
        return Usage(o.prompt_tokens - o.cached_tokens - written, o.cached_tokens, written, 0, 5)


@settings(max_examples=60, deadline=None)
# A read refreshes every entry it finds on the way: the system prompt's entry, found from its
# own breakpoint before the conversation's took over, is still warm 299 s after that read.
@example("anthropic", 616, [("turn", 1, 1.0), ("turn", 1, 1.0), ("turn", 0, 299.0)])
@given(
    family=st.sampled_from(sorted(MODELS)),
    seed=st.integers(0, 10_000),
    steps=st.lists(
        st.tuples(st.sampled_from(OPS), st.integers(0, 1000), st.sampled_from(GAPS)),
        min_size=2,
        max_size=7,
    ),
)
def test_guard_predicts_what_the_emulator_bills(
    family: str, seed: int, steps: list[tuple[str, int, float]]
) -> None:
    conv, served, guard = Conversation(family, seed), Served(), CacheGuard()
    now = 0.0
    for op, n, gap in steps:
        conv.apply(op, n)
        req = conv.request(n)
        now += gap
        echo = conv.echo or {}
        pred = guard.predict(req, now)
        billed = served.bill(req, now, echo)
        assert pred.usage(5) == billed, (op, req.model, pred)
        brk = guard.observe(req, pred, billed, now, echo=echo if family == "deepseek" else None)
        assert brk is None or brk.cause != "unexplained", brk
