"""Fixtures of the core tests: a big prefix (10K-token system prompt, 12 tools), a respx router
bridged to the SDKs' httpx2 client, and a sleep that records instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import respx

from prefixlock.prefix import FrozenPrefix
from prefixlock.tools import Tool, make_tool
from tests.helpers.httpx_bridge import async_client

TOOL_NAMES = (
    "read_file",
    "write_file",
    "list_files",
    "grep",
    "run_tests",
    "git_diff",
    "git_log",
    "search_docs",
    "open_issue",
    "format_code",
    "lint",
    "fetch_url",
)


def _tool(name: str) -> Tool:
    def fn(path: str, limit: int = 10) -> str:
        return f"{name}({path}, {limit})"

    fn.__doc__ = (
        f"Tool {name}: does {name.replace('_', ' ')} on a workspace path.\n\n"
        "Args:\n    path: the path.\n    limit: at most this many items."
    )
    return make_tool(fn, name=name)


def make_tools() -> list[Tool]:
    return [_tool(n) for n in TOOL_NAMES]


def system_prompt(tokens: int = 10_000) -> str:
    lines = []
    i = 0
    text = ""
    from prefixlock.tokenizer import count_tokens

    while count_tokens(text) < tokens:
        lines.append(f"Rule {i}: keep every prefix byte identical, sort lists, never inject time.")
        i += 1
        if i % 50 == 0:
            text = "\n".join(lines)
    return "\n".join(lines)


@pytest.fixture(scope="session")
def big_prefix() -> FrozenPrefix:
    return FrozenPrefix(system=system_prompt(), tools=make_tools())


@pytest.fixture
def router() -> respx.Router:
    return respx.Router(assert_all_called=False)


@pytest.fixture
def http_client(router: respx.Router) -> Any:
    return async_client(router)


@pytest.fixture
def sleeps() -> tuple[list[float], Callable[[float], Any]]:
    waited: list[float] = []

    async def sleep(seconds: float) -> None:
        waited.append(seconds)

    return waited, sleep
