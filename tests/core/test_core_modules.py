"""The small core modules: canonical bytes, tokenizer, @tool, FrozenPrefix, Transcript, cache
units, Usage parsing and prices. Includes the bugs found and fixed while verifying them."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage, parse_usage
from prefixlock.cache.units import anthropic_units, openai_units
from prefixlock.canonical import canonical_bytes, chain_hash, fingerprint
from prefixlock.errors import ConfigError, PrefixError, UnknownModelError
from prefixlock.prefix import FrozenPrefix
from prefixlock.tokenizer import count_tokens, tokenize
from prefixlock.tools import make_tool, tool
from prefixlock.transcript import Message, Transcript


def test_canonical_bytes() -> None:
    assert canonical_bytes({"b": 1, "a": [1, 2], "c": "é"}) == '{"a":[1,2],"b":1,"c":"é"}'.encode()
    assert canonical_bytes({"s": {3, 1, 2}}) == b'{"s":[1,2,3]}'
    with pytest.raises(ValueError):
        canonical_bytes(float("nan"))
    with pytest.raises(TypeError):
        canonical_bytes({1: "x"})
    assert fingerprint(b"x") == fingerprint(b"x") != fingerprint(b"y")
    assert chain_hash("", b"ab") != chain_hash(chain_hash("", b"a"), b"b")


def test_tokenizer_is_deterministic_and_about_four_chars_a_token() -> None:
    text = "def parse(line: str) -> dict:\n    return json.loads(line)  # 12345\n" * 20
    assert tokenize(text) == tokenize(text)
    n = count_tokens(text)
    assert n == len(tokenize(text)) and 2 < len(text) / n < 5


def test_tool_schema_from_hints_and_docstring() -> None:
    @tool
    def search(pattern: str, limit: int = 10, regex: bool = False) -> list[str]:
        """Search the workspace.

        Args:
            pattern: what to look for.
            limit: at most this many hits.
        """
        return [pattern] * limit

    spec = search.spec
    assert spec.description == "Search the workspace."
    props = spec.input_schema["properties"]
    assert props["pattern"] == {"description": "what to look for.", "type": "string"}
    assert props["limit"]["default"] == 10 and spec.input_schema["required"] == ("pattern",)
    assert "title" not in json.dumps(spec.to_dict())
    assert spec.to_dict()["input_schema"]["required"] == ["pattern"]  # plain lists for SDKs
    assert asyncio.run(search.invoke({"pattern": "x", "limit": 2})) == '["x","x"]'


def test_tool_invoke_sync_async_and_non_json_results() -> None:
    @tool
    async def later(x: int) -> int:
        """Async."""
        return x * 2

    @tool
    def where() -> Path:
        """Returns a Path, which JSON cannot hold: the text of it is the result."""
        return Path("/tmp/x")

    assert asyncio.run(later.invoke({"x": 4})) == "8"
    assert asyncio.run(where.invoke({})) == "/tmp/x"  # was: TypeError, an error result


def test_tool_names_are_checked_whole() -> None:
    def f() -> str:
        return ""

    with pytest.raises(PrefixError):
        make_tool(f, name="bad name")
    with pytest.raises(PrefixError):
        make_tool(f, name="trailing\n")  # `$` used to accept a trailing newline


def test_frozen_prefix_is_immutable_even_through_schemas() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    p = FrozenPrefix(system="s", tools=[{"name": "t", "description": "d", "input_schema": schema}])
    before = (p.fingerprint, p.to_dict())
    schema["properties"]["b"] = {"type": "integer"}  # the caller's dict changes afterwards
    with pytest.raises(TypeError):
        p.tools[0].input_schema["x"] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        p.fingerprint = "x"
    assert (p.fingerprint, p.to_dict()) == before
    assert FrozenPrefix(system="s", tools=[p.to_dict()["tools"][0]]) == p


def test_prefix_segments_replace_and_roundtrip() -> None:
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    p = FrozenPrefix(system=["a", "b"], tools=[ping])
    assert [s.name for s in p.segments] == ["tools", "system"]
    q = p.replace(system="c")
    assert q != p and q.segment("tools") == p.segment("tools") and q.runner("ping") is not None
    r = FrozenPrefix.from_dict(json.loads(json.dumps(p.to_dict())), runners=[ping])
    assert r == p and r.runner("ping") is not None and hash(r) == hash(p)


def test_transcript_append_only_and_fork() -> None:
    t = Transcript([Message.user("a"), Message.assistant("b")])
    chain = t.chain()
    t.append(Message.user("c"))
    assert t.chain(2) == chain and len(t) == 3 and t.tokens == sum(m.tokens for m in t)
    f = t.fork(1)
    assert len(f) == 1 and len(t) == 3 and f.chain() == t.chain(1)
    with pytest.raises(IndexError):
        t.fork(4)
    with pytest.raises(ValueError):
        Message.from_dict({"role": "system", "content": "x"})
    m = Message.user([{"type": "text", "text": "x"}])
    with pytest.raises(TypeError):
        m.blocks[0]["text"] = "y"  # type: ignore[index]
    assert Message.from_dict(m.to_dict()).data == m.data


@pytest.mark.parametrize(
    "message",
    [
        Message.user("plain"),
        Message.assistant('ünïcode "quoted" \\ and \n lines'),
        Message.user([]),
        Message.assistant(
            [
                {"type": "text", "text": "a"},
                {"type": "tool_use", "id": "t1", "name": "read", "input": {"z": 1, "a": [2.5]}},
            ]
        ),
        Message.user(
            [{"type": "tool_result", "tool_use_id": "t1", "content": "x", "is_error": True}]
        ),
    ],
)
def test_message_bytes_are_the_canonical_serialization(message: Message) -> None:
    # `data` is put together from the blocks' bytes; it must equal serializing the whole.
    assert message.data == canonical_bytes(message.to_dict())


def test_cache_units_ignore_cache_control_and_fold_settings() -> None:
    body = {
        "tools": [{"name": "t", "description": "d", "input_schema": {}}],
        "system": "sys",
        "messages": [{"role": "user", "content": "hi"}],
    }
    marked = json.loads(json.dumps(body))
    marked["tools"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    marked["system"] = [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
    a, b = anthropic_units(body), anthropic_units(marked)
    assert [u.chain for u in a] == [u.chain for u in b]
    assert [u.breakpoint for u in b] == ["1h", "5m", None]
    choice = anthropic_units({**body, "tool_choice": {"type": "any"}})
    assert [u.chain for u in choice][:2] == [u.chain for u in a][:2]  # tools, system: hit
    assert choice[2].chain != a[2].chain  # messages: miss
    auto = anthropic_units({**body, "cache_control": {"type": "ephemeral"}})
    assert auto[-1].breakpoint == "5m"
    chat = {
        "model": "m",
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    }
    units = openai_units(chat)
    assert [u.section for u in units] == ["settings", "system", "messages"]
    par = openai_units({**chat, "parallel_tool_calls": False})
    assert all(x.chain != y.chain for x, y in zip(units, par, strict=True))


def test_usage_formulas() -> None:
    a = parse_usage(
        "anthropic",
        {
            "input_tokens": 50,
            "cache_read_input_tokens": 1000,
            "cache_creation_input_tokens": 300,
            "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 200},
            "output_tokens": 7,
        },
    )
    assert (a.uncached_input, a.cache_read, a.cache_write_5m, a.cache_write_1h) == (
        50,
        1000,
        100,
        200,
    )
    assert a.input_total == 1350 and a.hit_rate == 1000 / 1350
    o = parse_usage(
        "openai-chat",
        {
            "prompt_tokens": 2000,
            "completion_tokens": 9,
            "prompt_tokens_details": {"cached_tokens": 1536},
        },
    )
    assert (o.uncached_input, o.cache_read, o.input_total) == (464, 1536, 2000)
    d = parse_usage(
        "openai-compat",
        {"prompt_tokens": 900, "prompt_cache_hit_tokens": 800, "prompt_cache_miss_tokens": 100},
    )
    assert (d.uncached_input, d.cache_read) == (100, 800)
    r = parse_usage(
        "openai-responses",
        {"input_tokens": 3000, "output_tokens": 4, "input_tokens_details": {"cached_tokens": 2048}},
    )
    assert (r.uncached_input, r.cache_read, r.output) == (952, 2048, 4)
    assert (a + o).cache_read == 2536
    assert Usage.from_dict(a.to_dict()) == a


def test_prices(tmp_path: Path) -> None:
    table = PriceTable.default()
    opus = table.require("claude-opus-4-7")
    u = Usage(
        uncached_input=1_000_000,
        cache_read=1_000_000,
        cache_write_5m=1_000_000,
        cache_write_1h=1_000_000,
        output=1_000_000,
    )
    assert opus.cost(u) == Decimal("5") + Decimal("0.50") + Decimal("6.25") + Decimal("10") + 25
    assert table.require("haiku").model == "claude-haiku-4-5"
    assert table.lookup("openai-compat:deepseek-v4-flash") is not None
    gpt = table.require("gpt-5")
    assert gpt.write_5m == gpt.input  # no write fee: writes bill as plain input
    with pytest.raises(UnknownModelError, match="PREFIXLOCK_PRICES"):
        table.require("nope")
    # Colons inside model ids are not provider prefixes (Ollama tags, OpenAI fine-tunes).
    assert table.resolve("llama3:8b") == "llama3:8b"
    assert table.resolve("ft:gpt-4o-mini:org::id") == "ft:gpt-4o-mini:org::id"
    assert table.resolve("openai-compat:llama3:8b") == "llama3:8b"
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "models": [
                    {
                        "model": "x",
                        "input": 1,
                        "output": 1,
                        "cache_read": 0,
                        "min_cacheable_tokens": "lots",
                    }
                ]
            }
        )
    )
    with pytest.raises(ConfigError, match="min_cacheable_tokens"):
        PriceTable.default(bad)
    broken = tmp_path / "broken.json"
    broken.write_text("{ nope")
    with pytest.raises(ConfigError, match=r"broken\.json:1"):
        PriceTable.default(broken)
