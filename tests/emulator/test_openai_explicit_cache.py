"""gpt-5.6-family prompt caching on the emulator, through the official `openai` SDK over HTTP.

Entries are written only at breakpoints (OpenAI's implicit one at the end of the newest input
message, plus explicit `prompt_cache_breakpoint` marks) and matched exactly there, for 30
minutes. Every request also goes through the cache guard first: its prediction must equal what
the emulator reports, on every case. Expected token counts come from the unit ends of
prefixlock.cache.units (the one definition of what the cache sees); dollars are computed by hand
from gpt-5.6-terra's prices ($2 input, $0.20 read, $2.50 write, $12 output per million).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage, from_openai_chat, from_openai_responses
from prefixlock.cache.units import openai_units
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator, EmulatorConfig
from prefixlock.guard.cacheguard import CacheGuard
from prefixlock.wire import WireRequest
from tests.helpers.sdk import openai

MODEL = "gpt-5.6-terra"
SYSTEM = "You are a meticulous assistant for the invoice service repository. " * 110
MARK = {"mode": "explicit"}
PRICES = PriceTable.default()


def dollars(u: Usage) -> Decimal:
    """gpt-5.6-terra by hand: writes at 1.25x and reads at 0.1x of the $2 input price."""
    return (
        u.uncached_input * Decimal("2")
        + u.cache_read * Decimal("0.20")
        + u.cache_write_5m * Decimal("2.50")
        + u.output * Decimal("12")
    ) / Decimal(1_000_000)


def system(marked: bool) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "text": SYSTEM}
    if marked:
        part["prompt_cache_breakpoint"] = MARK
    return {"role": "system", "content": [part]}


def chat(user: str, *, marked: bool = False, model: str = MODEL, **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [system(marked), {"role": "user", "content": user}],
        "prompt_cache_key": "session-1",
        **extra,
    }


def end_of(body: dict[str, Any], item: int) -> int:
    """Tokens from the start of the prompt through input item `item` (cache.units' count)."""
    units = openai_units(body)
    first = len(units) - len(body.get("messages") or body.get("input") or [])
    return units[first + item].end


class Client:
    """The SDK against the emulator, with the guard predicting every request before it goes."""

    def __init__(self, emu: Emulator) -> None:
        self.emu = emu
        self.sdk = openai.OpenAI(api_key="test-key", base_url=emu.openai_base_url, max_retries=0)
        self.guard = CacheGuard(PRICES)

    def _check(self, api: str, path: str, body: dict[str, Any], usage: Usage) -> Usage:
        req = WireRequest(api, body["model"], path, body, tuple(openai_units(body)))
        now = self.emu.clock.now()
        pred = self.guard.predict(req, now)
        assert (pred.read, pred.write_5m, pred.uncached) == (
            usage.cache_read,
            usage.cache_write_5m,
            usage.uncached_input,
        ), "the guard predicts what the emulator reports"
        self.guard.observe(req, pred, usage, now)
        price = PRICES.require(body["model"])
        assert price.cost(usage) == dollars(usage)  # the ledger's price of it, by hand
        return usage

    def chat(self, body: dict[str, Any]) -> Usage:
        raw = self.sdk.chat.completions.create(**body).usage
        assert raw is not None and raw.prompt_tokens_details is not None
        usage = from_openai_chat(raw.model_dump())
        assert raw.prompt_tokens == usage.input_total  # prompt tokens include reads and writes
        return self._check("openai-chat", "/v1/chat/completions", body, usage)

    def responses(self, body: dict[str, Any]) -> Usage:
        raw = self.sdk.responses.create(**body).usage
        assert raw is not None
        usage = from_openai_responses(raw.model_dump())
        assert raw.input_tokens == usage.input_total
        return self._check("openai-responses", "/v1/responses", body, usage)


@pytest.fixture
def client(emulator: Emulator) -> Iterator[Client]:
    c = Client(emulator)
    yield c
    c.sdk.close()  # its connection pool's sockets, or each test leaves one to the collector


def advance(emu: Emulator, seconds: float) -> None:
    assert isinstance(emu.clock, ManualClock)
    emu.clock.advance(seconds)


def test_implicit_only_reads_nothing_when_the_suffix_changes(client: Client) -> None:
    # OpenAI's own breakpoint sits at the end of the user message, which changes every
    # request: the 1,800-token system prompt before it is written again each time.
    for i in range(3):
        body = chat(f"Request {i} at 12:0{i}: why does test_parse fail?")
        u = client.chat(body)
        n = end_of(body, 1)
        assert (u.cache_read, u.cache_write_5m, u.uncached_input) == (0, n, 0)


def test_hybrid_reads_the_whole_stable_prefix(client: Client) -> None:
    first = chat("Request 0 at 12:00: why does test_parse fail?", marked=True)
    u0 = client.chat(first)
    assert (u0.cache_read, u0.cache_write_5m) == (0, end_of(first, 1))
    stable = end_of(first, 0)
    assert stable > 1024
    for i in range(1, 3):
        body = chat(f"Request {i} at 12:0{i}: and test_render?", marked=True)
        u = client.chat(body)
        assert u.cache_read == stable  # exactly the marked system prompt, no 128-token rounding
        assert u.cache_write_5m == end_of(body, 1) - stable
        assert u.uncached_input == 0


def test_implicit_breakpoint_is_matched_exactly_with_no_shorter_fallback(client: Client) -> None:
    base = chat("Why does test_parse fail?")
    client.chat(base)
    grown = {
        **base,
        "messages": [
            *base["messages"],
            {"role": "assistant", "content": "It reads an empty list."},
            {"role": "user", "content": "Fix it."},
        ],
    }
    u = client.chat(grown)
    assert u.cache_read == end_of(base, 1)  # last request's implicit breakpoint
    assert u.cache_write_5m == end_of(grown, 3) - end_of(base, 1)
    # The same system prompt under another first question: the system prompt ends at no
    # breakpoint ever written, and nothing shorter is matched.
    other = chat("Why does test_render fail?")
    assert client.chat(other).cache_read == 0


def test_explicit_mode_without_a_breakpoint_caches_nothing(client: Client) -> None:
    body = chat("Why does test_parse fail?", prompt_cache_options={"mode": "explicit"})
    for _ in range(2):
        u = client.chat(body)
        assert (u.cache_read, u.cache_write_5m, u.uncached_input) == (0, 0, end_of(body, 1))


def test_explicit_mode_writes_only_at_the_marks(client: Client) -> None:
    opts = {"mode": "explicit", "ttl": "30m"}
    first = chat("12:00 question", marked=True, prompt_cache_options=opts)
    stable = end_of(first, 0)
    u0 = client.chat(first)
    # No write for the changing question: it stays plain input.
    assert (u0.cache_read, u0.cache_write_5m) == (0, stable)
    assert u0.uncached_input == end_of(first, 1) - stable
    u1 = client.chat(chat("12:01 another question", marked=True, prompt_cache_options=opts))
    assert (u1.cache_read, u1.cache_write_5m) == (stable, 0)


def test_responses_api_follows_the_same_rules(client: Client) -> None:
    def body(question: str, marked: bool) -> dict[str, Any]:
        part: dict[str, Any] = {"type": "input_text", "text": SYSTEM}
        if marked:
            part["prompt_cache_breakpoint"] = MARK
        return {
            "model": MODEL,
            "input": [
                {"role": "developer", "content": [part]},
                {"role": "user", "content": [{"type": "input_text", "text": question}]},
            ],
            "prompt_cache_key": "r-1",
            "prompt_cache_options": {"mode": "implicit", "ttl": "30m"},
        }

    assert client.responses(body("12:00 plain", False)).cache_read == 0
    assert client.responses(body("12:01 plain", False)).cache_read == 0
    client.responses(body("12:02 marked", True))
    marked = body("12:03 marked", True)
    u = client.responses(marked)
    assert u.cache_read == end_of(marked, 0)
    assert u.cache_write_5m == end_of(marked, 1) - end_of(marked, 0)


def test_entries_live_thirty_minutes(client: Client) -> None:
    stable = end_of(chat("x", marked=True), 0)
    client.chat(chat("12:00", marked=True))
    advance(client.emu, 29 * 60 + 59)
    assert client.chat(chat("12:29", marked=True)).cache_read == stable  # read: refreshed
    advance(client.emu, 30 * 60 + 1)
    late = client.chat(chat("13:00", marked=True))
    assert (late.cache_read, late.cache_write_5m) == (0, end_of(chat("13:00", marked=True), 1))


def _five_marked_questions(mode: str) -> dict[str, Any]:
    questions = [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": f"Question {i}: " + "why? " * 40,
                    "prompt_cache_breakpoint": MARK,
                }
            ],
        }
        for i in range(5)
    ]
    return {
        "model": MODEL,
        "messages": [system(False), *questions],
        "prompt_cache_key": "many",
        "prompt_cache_options": {"mode": mode},
    }


@pytest.mark.parametrize("mode", ["implicit", "explicit"])
def test_only_the_latest_marks_are_written_and_more_are_no_error(client: Client, mode: str) -> None:
    # Five marks: implicit mode writes its own breakpoint (here on the fifth question) and the
    # latest three others; explicit mode the latest four. The first question's mark is not
    # written either way, and the request is not refused.
    body = _five_marked_questions(mode)
    u = client.chat(body)
    assert (u.cache_read, u.cache_write_5m) == (0, end_of(body, 5))

    def probe(upto: int) -> int:
        head = body["messages"][: upto + 1]
        p = {**body, "messages": [*head, {"role": "user", "content": "something else"}]}
        return client.chat(p).cache_read

    assert probe(1) == 0  # the first question: marked, not written
    assert probe(2) == end_of(body, 2)
    assert probe(4) == end_of(body, 4)


def test_below_the_minimum_nothing_is_written(client: Client) -> None:
    short = {
        "model": MODEL,
        "messages": [
            {
                "role": "system",
                "content": [
                    {"type": "text", "text": "Be brief. " * 50, "prompt_cache_breakpoint": MARK}
                ],
            },
            {"role": "user", "content": "hi"},
        ],
    }
    assert end_of(short, 1) < 1024
    for _ in range(2):
        u = client.chat(short)
        assert (u.cache_read, u.cache_write_5m) == (0, 0)


def test_older_models_keep_128_token_steps_and_no_write_field(client: Client) -> None:
    body = chat("Why?", model="gpt-5.4")
    client.sdk.chat.completions.create(**body)
    raw = client.sdk.chat.completions.create(**body).usage
    assert raw is not None and raw.prompt_tokens_details is not None
    assert raw.prompt_tokens_details.cached_tokens == raw.prompt_tokens // 128 * 128
    assert raw.prompt_tokens_details.cache_write_tokens is None


BAD: list[tuple[str, dict[str, Any], str]] = [
    (
        "both TTL options",
        chat("q", prompt_cache_retention="24h", prompt_cache_options={"ttl": "30m"}),
        "prompt_cache_retention",
    ),
    ("bad mode", chat("q", prompt_cache_options={"mode": "always"}), "prompt_cache_options.mode"),
    ("bad TTL", chat("q", prompt_cache_options={"ttl": "1h"}), "prompt_cache_options.ttl"),
    (
        "unknown option",
        chat("q", prompt_cache_options={"mode": "implicit", "lifetime": "30m"}),
        "prompt_cache_options.lifetime",
    ),
    (
        "breakpoint mode",
        {
            "model": MODEL,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "q",
                            "prompt_cache_breakpoint": {"mode": "implicit"},
                        }
                    ],
                }
            ],
        },
        "messages[0].content[0].prompt_cache_breakpoint.mode",
    ),
    (
        "breakpoint on assistant output",
        {
            "model": MODEL,
            "messages": [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "a", "prompt_cache_breakpoint": MARK}],
                },
                {"role": "user", "content": "q2"},
            ],
        },
        "messages[1].content[0].prompt_cache_breakpoint",
    ),
    (
        "options on an older model",
        chat("q", model="gpt-5.4", prompt_cache_options={"mode": "implicit"}),
        "prompt_cache_options",
    ),
]


@pytest.mark.parametrize(("case", "body", "param"), BAD, ids=[c[0] for c in BAD])
def test_bad_cache_options_get_a_400_naming_the_field(
    client: Client, case: str, body: dict[str, Any], param: str
) -> None:
    with pytest.raises(openai.BadRequestError) as err:
        client.sdk.chat.completions.create(**body)
    assert err.value.status_code == 400 and err.value.param == param, case
    assert client.chat(chat("still serving")).input_total > 0


def test_responses_accepts_twelve_hours_and_chat_does_not(client: Client) -> None:
    body: dict[str, Any] = {
        "model": MODEL,
        "input": "hello",
        "prompt_cache_options": {"mode": "implicit", "ttl": "12h"},
    }
    assert client.sdk.responses.create(**body).usage is not None
    with pytest.raises(openai.BadRequestError) as err:
        client.sdk.chat.completions.create(**chat("q", prompt_cache_options={"ttl": "12h"}))
    assert err.value.param == "prompt_cache_options.ttl"


def test_write_fee_is_billed_at_one_and_a_quarter_times_input() -> None:
    price = PRICES.require(MODEL)
    assert price.cache_write_5m == price.input * Decimal("1.25")
    assert price.cache_read == price.input / 10
    assert price.cache_ttl_seconds == 30 * 60
    assert EmulatorConfig().openai.block_tokens == 128  # older models' step, untouched
