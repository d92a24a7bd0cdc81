"""What a user meets off the happy path, end to end: a model unknown to the price table run
through the loop (unpriced, or priced by the user's file), flags that were once tracebacks or
misleading errors (`--max-dollars nan`, a non-UTF-8 `--system @FILE`, an empty task, a base URL
without a scheme), short API keys that must not mangle error text, and OpenAI-compatible servers
mounted under a path other than `/v1`."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from prefixlock.agent import Agent
from prefixlock.billing.ledger import Ledger
from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage
from prefixlock.cli.main import main
from prefixlock.errors import ConfigError, PrefixError, ProviderError
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import resolve_route
from prefixlock.settings import Settings
from prefixlock.tools import tool
from tests.helpers import sse_responses as sse
from tests.helpers.cli import Ran, run_cli
from tests.helpers.httpx_bridge import async_client

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "PREFIXLOCK_API_KEY")
PREFIX = FrozenPrefix(system="You help.", tools=[])
VLLM = "http://vllm.local:8000/v1"


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in KEYS:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.delenv("PREFIXLOCK_PRICES", raising=False)


def _price_file(tmp_path: Path, model: str, provider: str = "custom") -> Path:
    path = tmp_path / "prices.json"
    entry = {"model": model, "provider": provider, "input": "2", "output": "8"}
    entry["cache_read"] = "0.2"
    path.write_text(json.dumps({"models": [entry]}))
    return path


def _cli(*args: str, cwd: Path | None = None) -> Ran:
    return run_cli(*args, drop=("PREFIXLOCK_PRICES",), cwd=cwd)


USAGE = {
    "prompt_tokens": 1_200,
    "completion_tokens": 30,
    "prompt_tokens_details": {"cached_tokens": 1_024},
}


async def test_unknown_model_on_a_compatible_server_is_unpriced_never_zero(
    router: respx.Router, http_client: Any
) -> None:
    router.post(f"{VLLM}/chat/completions").mock(
        side_effect=[sse.chat("one", usage=USAGE), sse.chat("two", usage=USAGE)]
    )
    agent = Agent(
        PREFIX, model="openai-compat:my-llama", base_url=VLLM, api_key="x", http_client=http_client
    )
    async with agent.session() as s:
        assert await s.ask("hi") == "one"
        assert await s.ask("again") == "two"
    assert s.ledger.cost is None and s.ledger.saved is None
    assert s.ledger.priced_cost == 0 and s.ledger.unpriced_models == ("my-llama",)
    assert s.ledger.usage.cache_read == 2 * 1_024  # the tokens are counted all the same
    assert s.ledger.summary().endswith("cost unpriced (my-llama)")


async def test_unknown_model_priced_by_the_users_file_through_the_loop(
    tmp_path: Path, router: respx.Router, http_client: Any
) -> None:
    router.post(f"{VLLM}/chat/completions").mock(return_value=sse.chat("ok", usage=USAGE))
    prices = PriceTable.default(_price_file(tmp_path, "my-llama"))
    agent = Agent(
        PREFIX,
        model="openai-compat:my-llama",
        base_url=VLLM,
        api_key="x",
        prices=prices,
        http_client=http_client,
    )
    async with agent.session() as s:
        await s.ask("hi")
    # Prompt tokens include the cached ones (OpenAI's formula): 176 uncached at $2, 1,024 read
    # at $0.2, 30 out at $8 per million.
    hand = (Decimal(176) * 2 + Decimal(1_024) * Decimal("0.2") + Decimal(30) * 8) / 1_000_000
    assert s.ledger.cost == hand


def test_a_dollar_limit_on_an_unpriced_model_is_refused_up_front(tmp_path: Path) -> None:
    # The limit reads the ledger's dollars; an unpriced model has none, so it would never stop.
    settings = Settings(max_dollars=Decimal("0.50"))
    with pytest.raises(ConfigError) as err:
        Agent(PREFIX, model="openai-compat:my-llama", base_url=VLLM, settings=settings)
    assert err.value.where == "settings.max_dollars" and "'my-llama'" in str(err.value)
    prices = PriceTable.default(_price_file(tmp_path, "my-llama"))
    agent = Agent(
        PREFIX, model="openai-compat:my-llama", base_url=VLLM, settings=settings, prices=prices
    )
    assert agent.settings.max_dollars == Decimal("0.50")


def test_cli_dollar_limit_on_an_unpriced_model_is_one_line_exit_2(capsys: Any) -> None:
    code = main(
        ["run", "hi", "--model", "openai-compat:my-llama", "--base-url", VLLM, "--max-dollars", "1"]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("prefixlock: error: --max-dollars: 'my-llama' is not in")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["--max-dollars", "nan"], "prefixlock: error: --max-dollars: not a dollar amount: 'nan'"),
        (["--max-dollars", "-1"], "prefixlock: error: --max-dollars: not a dollar amount: '-1'"),
        (["--max-dollars", "inf"], "prefixlock: error: --max-dollars: not a dollar amount"),
        (
            ["--model", "openai-compat:x", "--base-url", "localhost:8000"],
            "prefixlock: error: --base-url: not an http(s) URL: 'localhost:8000'",
        ),
    ],
)
def test_cli_flags_that_were_tracebacks_or_misleading(args: list[str], start: str) -> None:
    proc = _cli("run", "hi", "--tools", "none", *args)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.startswith(start), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_system_file_not_utf8_and_empty_task(tmp_path: Path) -> None:
    latin1 = tmp_path / "system.txt"
    latin1.write_bytes(b"Sei hilfsbereit und pr\xe4zise.")
    proc = _cli("run", "hi", "--tools", "none", "--system", f"@{latin1}")
    assert proc.returncode == 2 and proc.stdout == ""
    expected = f"prefixlock: error: {latin1}: cannot read system prompt: not UTF-8 text\n"
    assert proc.stderr == expected
    proc = _cli("run", "  ", "--tools", "none")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("prefixlock: error: task: the task is empty")


def test_cli_prices_file_models_run_on_the_emulator(tmp_path: Path) -> None:
    # No key: the emulator stands in, and it must know the model the user's file adds.
    prices = _price_file(tmp_path, "claude-house-1", provider="anthropic")
    proc = _cli(
        "run", "hi", "--tools", "none", "--model", "claude-house-1", "--prices", str(prices)
    )
    assert proc.returncode == 0, proc.stderr
    summary = proc.stderr.strip().splitlines()[-1]  # the answer alone is on stdout
    assert summary.startswith("1 request:") and "cost $" in summary, summary


def test_base_url_is_checked_where_the_route_is_made() -> None:
    with pytest.raises(ConfigError) as err:
        resolve_route("openai-compat:x", "localhost:8000")
    assert err.value.where == "base_url"
    assert resolve_route("openai-compat:x", "https://gw.example/v1beta/openai").api == (
        "openai-compat"
    )


async def test_compatible_api_under_a_path_other_than_v1(
    router: respx.Router, http_client: Any
) -> None:
    # e.g. Gemini's OpenAI-compatible endpoint: the URL given is the API root, used as is.
    base = "https://gw.example/v1beta/openai"
    route = router.post(f"{base}/chat/completions").mock(return_value=sse.chat("hello"))
    agent = Agent(
        PREFIX, model="openai-compat:gemma", base_url=base, api_key="k", http_client=http_client
    )
    async with agent.session() as s:
        assert await s.ask("hi") == "hello"
    assert route.call_count == 1
    # A bare host still gets /v1 (the emulator, https://api.deepseek.com).
    bare = router.post("http://127.0.0.1:9/v1/chat/completions").mock(return_value=sse.chat("hey"))
    agent = Agent(
        PREFIX,
        model="openai-compat:gemma",
        base_url="http://127.0.0.1:9",
        api_key="k",
        http_client=async_client(router),  # the first session closed its client
    )
    async with agent.session() as s:
        assert await s.ask("hi") == "hey"
    assert bare.call_count == 1


@pytest.mark.parametrize("key", ["x", "sk-live-0123456789"])
async def test_short_keys_do_not_mangle_errors_and_real_keys_are_masked(
    key: str, router: respx.Router, http_client: Any
) -> None:
    message = f"The model `gemma` does not exist (key {key}), ask the admin"
    router.post(f"{VLLM}/chat/completions").mock(
        return_value=httpx.Response(404, json={"error": {"type": "not_found", "message": message}})
    )
    agent = Agent(
        PREFIX, model="openai-compat:gemma", base_url=VLLM, api_key=key, http_client=http_client
    )
    async with agent.session() as s:
        with pytest.raises(ProviderError) as err:
            await s.ask("hi")
    text = str(err.value)
    # The key never shows, however short; the words around it stay readable ("exist" holds
    # an x: a plain replace once made it "e***ist").
    assert "(key ***)" in text and f"(key {key})" not in text
    assert "does not exist" in text and "ask the admin" in text


class Opaque:
    """A type pydantic cannot describe (its error runs over several lines)."""


def _fetch(x: Opaque) -> str:
    """Takes something pydantic cannot describe."""
    return ""


def test_prefix_and_tool_errors_are_one_line_user_errors() -> None:
    with pytest.raises(PrefixError) as err:
        FrozenPrefix(system=5)  # type: ignore[arg-type]
    assert err.value.where == "system" and "got int" in str(err.value)

    with pytest.raises(PrefixError) as perr:
        tool(_fetch)
    assert str(perr.value).startswith("tool '_fetch': schema is not serializable:")
    assert len(str(perr.value).splitlines()) == 1


def test_summary_shows_a_negative_saving_as_minus_dollars() -> None:
    from prefixlock.providers import SessionInfo, make_builder
    from prefixlock.transcript import Message, Transcript

    req = make_builder("anthropic", "claude-haiku-4-5").build_request(
        PREFIX, Transcript([Message.user("hi")]), Settings(), SessionInfo("s")
    )
    ledger = Ledger(PriceTable.default())
    ledger.record(req, Usage(cache_write_5m=10_000, output=10))  # written, not yet read
    assert ledger.saved is not None and ledger.saved < 0
    assert ledger.summary().endswith("cost $0.0126, saved -$0.0025")


def test_models_table_shows_every_id_price_date_and_source_in_80_columns() -> None:
    proc = run_cli("models", env={"COLUMNS": "80"}, drop=("PREFIXLOCK_PRICES",))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    head, _, tail = out.partition("Sources:")
    assert max(len(line) for line in head.splitlines()) <= 80
    assert "…" not in out  # nothing cut: ids and prices are what the user reads
    table = PriceTable.builtin()
    rows = {line.split()[0]: line.split() for line in head.splitlines() if line.strip()}
    for p in table:
        assert p.model in rows, f"{p.model} missing or cut"
        row = rows[p.model]
        assert row[1:4] == [str(p.input), str(p.cache_read), str(p.write_5m)]
        assert row[-1] == p.date
        assert p.source in tail
    assert "deepseek-v4-flash: peak price" in tail  # notes say what the figure is


def test_models_json_with_a_user_file_and_a_broken_one(tmp_path: Path, capsys: Any) -> None:
    prices = _price_file(tmp_path, "my-llama")
    assert main(["models", "--json", "--prices", str(prices)]) == 0
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["my-llama"]["input"] == "2" and rows["my-llama"]["provider"] == "custom"
    assert rows["claude-opus-4-7"]["cache_write_1h"] == "10"
    assert rows["claude-opus-4-7"]["source"].startswith("https://docs.anthropic.com/")
    broken = tmp_path / "broken.json"
    broken.write_text('{"models": [\n  {"model": "x",}\n]}')
    assert main(["models", "--prices", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"prefixlock: error: {broken}:2:") and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_dollars", "nan"),
        ("max_dollars", "lots"),
        ("max_dollars", "-0.5"),
        ("max_tokens", "many"),
        ("max_turns", 2.5),
        ("retries", -1),
        ("timeout", 0),
        ("retry_max_wait", -1.0),
    ],
)
def test_bad_settings_are_config_errors_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(ConfigError) as err:
        Settings(**{field: value})  # type: ignore[arg-type]
    assert err.value.where == f"settings.{field}" and len(str(err.value).splitlines()) == 1
    assert Settings(max_dollars="0.25").max_dollars == Decimal("0.25")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"data: {not json\n\n", "malformed response: an event is not JSON"),
        (b'data: {"choices": "oops"}\n\n', "malformed response: unexpected event"),
        (
            b'data: {"choices": [{"delta": {"tool_calls": [{"index": "first"}]}}]}\n\n',
            "malformed response: unexpected event",
        ),
    ],
)
async def test_a_malformed_stream_is_a_provider_error_not_a_traceback(
    content: bytes, says: str, router: respx.Router, http_client: Any, sleeps: Any
) -> None:
    waited, sleep = sleeps
    route = router.post(f"{VLLM}/chat/completions").mock(
        return_value=httpx.Response(200, headers=sse.SSE, content=content)
    )
    agent = Agent(
        PREFIX,
        model="openai-compat:gemma",
        base_url=VLLM,
        api_key="k",
        http_client=http_client,
        sleep=sleep,
    )
    async with agent.session() as s:
        with pytest.raises(ProviderError, match=says) as err:
            await s.ask("hi")
    assert not err.value.retryable and route.call_count == 1 and waited == []
    assert len(s.transcript) == 0 and len(s.ledger) == 0  # nothing half-recorded


async def test_sync_session_inside_a_running_loop_says_what_to_use() -> None:
    # Jupyter runs an event loop: the sync wrapper cannot, and must say so (it used to fail
    # with "Cannot run the event loop while another loop is running").
    agent = Agent(PREFIX, model="claude-haiku-4-5", api_key="k")
    with agent.sync_session() as s:
        with pytest.raises(RuntimeError, match=r"async with agent\.session"):
            s.ask("hi")
        with pytest.raises(RuntimeError, match="already running"):
            list(s.iter_send("hi"))
    with pytest.raises(RuntimeError, match=r"async with agent\.session"):
        agent.run_sync("hi")


async def test_a_server_that_reports_no_usage_is_estimated_never_zero(
    tmp_path: Path, router: respx.Router, http_client: Any
) -> None:
    # Some compatible servers ignore stream_options.include_usage: no usage chunk at all.
    chunks = [c for c in sse.chat_chunks("the answer") if "usage" not in c]
    body = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"
    router.post(f"{VLLM}/chat/completions").mock(
        return_value=httpx.Response(200, headers=sse.SSE, content=body)
    )
    agent = Agent(
        PREFIX,
        model="openai-compat:my-llama",
        base_url=VLLM,
        api_key="x",
        prices=PriceTable.default(_price_file(tmp_path, "my-llama")),
        http_client=http_client,
    )
    async with agent.session() as s:
        assert await s.ask("hi") == "the answer"
    row = s.ledger.rows[0]
    assert row.usage.uncached_input == s.requests[0].input_tokens > 0  # all input, uncached
    assert row.usage.output > 0 and row.cost is not None and row.cost > 0
    assert "1 of them estimated: the server reported no usage" in s.ledger.summary()
