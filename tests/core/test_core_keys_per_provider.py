"""The api_key given to an Agent is its provider's: never sent to another provider.

An Agent for claude-* with api_key="sk-ant-..." that switched to gpt-5.4 (or resumed a session
stored on an OpenAI model) built the OpenAI client with the Anthropic key: the key went to
api.openai.com and the request failed with a 401. Now a model of another provider takes its key
from that provider's variable (MissingKeyError naming it when unset), as each official SDK and
pydantic-ai's providers do. With a base_url (a gateway, the emulator) one key serves every model.
"""

from __future__ import annotations

import pytest

from prefixlock import Agent, FrozenPrefix
from prefixlock.errors import MissingKeyError

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "PREFIXLOCK_API_KEY")
PREFIX = FrozenPrefix(system="You are terse.")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in KEYS:
        monkeypatch.delenv(var, raising=False)


def test_the_given_key_stays_with_its_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = Agent(PREFIX, model="claude-sonnet-4-6", api_key="sk-ant-given")
    assert agent.provider().transport._key == "sk-ant-given"
    assert agent.provider("claude-haiku-4-5").transport._key == "sk-ant-given"
    with pytest.raises(MissingKeyError, match="OPENAI_API_KEY") as info:
        agent.provider("gpt-5.4")
    assert "sk-ant-given" not in str(info.value)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-env")
    assert agent.provider("gpt-5.4").transport._key == "sk-openai-env"
    assert agent.provider("openai-responses:gpt-5.4").transport._key == "sk-openai-env"


async def test_a_switch_to_another_provider_does_not_take_the_key() -> None:
    agent = Agent(PREFIX, model="claude-sonnet-4-6", api_key="sk-ant-given")
    async with agent.session() as s:
        with pytest.raises(MissingKeyError, match="OPENAI_API_KEY"):
            s.switch_model("gpt-5.4", policy="allow")  # cold: no quote needed
        assert s.model == "claude-sonnet-4-6"


def test_with_a_base_url_one_key_serves_every_model() -> None:
    agent = Agent(
        PREFIX, model="claude-sonnet-4-6", api_key="gateway-key", base_url="http://127.0.0.1:9"
    )
    assert agent.provider("gpt-5.4").transport._key == "gateway-key"
