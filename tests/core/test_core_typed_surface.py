"""The typed surface: `@tool` refuses an argument it cannot describe, a connection error names
the server, the sync session prices and applies what the async one does, and a delegation
returns a `DelegationResult`, all through the official SDKs over HTTP to the emulator."""

from __future__ import annotations

import socket

import pytest

from prefixlock import (
    Agent,
    DelegationResult,
    FrozenPrefix,
    PrefixError,
    ProviderError,
    Quote,
    QuoteRequired,
    Settings,
    SwitchWarning,
    tool,
)
from prefixlock.clock import ManualClock
from prefixlock.emulator import Emulator

SYSTEM = "You review invoices for rounding errors and answer briefly.\n" * 120


def test_tool_refuses_a_parameter_without_a_type_hint() -> None:
    def lookup(invoice_id: str, verbose):  # type: ignore[no-untyped-def]
        return invoice_id

    with pytest.raises(PrefixError) as caught:
        tool(lookup)
    message = str(caught.value)
    assert "'lookup'" in message and "'verbose'" in message and "no type hint" in message
    assert caught.value.where == "lookup.verbose"
    # A plain function given to the prefix goes through the same check.
    with pytest.raises(PrefixError, match="parameter 'verbose'"):
        FrozenPrefix(system="s", tools=[lookup])


def _closed_port() -> int:
    with socket.socket() as s:  # bound then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "gpt-5"])
def test_a_connection_error_names_the_url(model: str) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    agent = Agent(
        FrozenPrefix(system="s"),
        model=model,
        api_key="secret-key-123",
        base_url=url,
        settings=Settings(retries=0),
    )
    with agent.sync_session() as s, pytest.raises(ProviderError) as caught:
        s.ask("hello")
    message = str(caught.value)
    assert f"127.0.0.1:{url.rsplit(':', 1)[1]}" in message and "connection error" in message
    assert "secret-key-123" not in message


def test_sync_session_quotes_and_switches_like_the_async_one() -> None:
    with Emulator.start(clock=ManualClock()) as emu:
        agent = Agent(
            FrozenPrefix(system=SYSTEM),
            model="claude-sonnet-4-6",
            base_url=emu.base_url,
            api_key="test-key",
            clock=emu.clock,
        )
        with agent.sync_session() as s:
            s.ask("Check invoice 7")
            quote = s.quote_switch("claude-haiku-4-5", next_message="and invoice 8")
            assert isinstance(quote, Quote) and quote.warns and quote.tokens_rebilled > 0
            with pytest.raises(QuoteRequired):
                s.switch_model("claude-haiku-4-5")
            assert s.switch_model("claude-haiku-4-5", quote=quote) is quote
            events = s.send("and invoice 8")
            warning = next(e for e in events if isinstance(e, SwitchWarning))
            assert warning.quote is quote and warning.quote.new_model == "claude-haiku-4-5"
            assert s.session.model == "claude-haiku-4-5"
            # The other priced actions are there too, with the async session's arguments.
            assert s.quote_tools(add=[tool(lambda_free)]).action == "change_tools"
            assert s.quote_effort(ttl="1h").action == "change_effort"
            assert s.quote_compaction().action == "compact"
            assert s.quote_prefix(FrozenPrefix(system="other")).action == "change_prefix"


def lambda_free(text: str) -> str:
    """Echo the text."""
    return text


def test_delegation_result_is_typed() -> None:
    result = DelegationResult(
        name="explorer", model="m", task="t", summary="[subagent x]", error="turns"
    )
    assert not result.ok and result.error == "turns"
    assert DelegationResult(name="e", model="m", task="t", summary="done").ok


def test_settings_changes_names_every_settings_field_with_its_type() -> None:
    import dataclasses
    import typing

    from prefixlock import Settings, SettingsChanges

    fields = typing.get_type_hints(Settings)
    keys = typing.get_type_hints(SettingsChanges)
    assert keys == {f.name: fields[f.name] for f in dataclasses.fields(Settings)}
    assert Settings().with_(ttl="1h", effort="high") == Settings(ttl="1h", effort="high")


def test_agent_http_client_is_the_sdk_client_type() -> None:
    import sys
    import typing

    import httpx2

    import prefixlock

    hints = typing.get_type_hints(
        prefixlock.Agent.__init__,
        globalns={
            **{n: getattr(prefixlock, n) for n in prefixlock.__all__},
            **vars(typing),
            **vars(sys.modules["prefixlock.agent"]),
            "httpx2": httpx2,
            "Tracer": object,
        },
    )
    assert hints["http_client"] == httpx2.AsyncClient | None
