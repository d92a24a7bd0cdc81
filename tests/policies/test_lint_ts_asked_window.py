"""TypeScript: a chat request that asks its server for the last turns only (`historyWindow:
8` beside the conversation's id and the new query) is a window (PL303); a setting kept apart
from any request, an agent loop's `maxTurns`, a model's `contextWindow` and a count of one
are not. Synthetic code."""

from __future__ import annotations

import pytest

from prefixlock.policies.engine import lint_source

_REQUEST = """\
export async function ask(conversationId: string, query: string) {
  const body = {
    conversationId,
    query,
    historyWindow: 8,
    stream: true,
  };
  return fetch("/api/agent/chat", { method: "POST", body: JSON.stringify(body) });
}
"""


def _windows(text: str) -> list[int]:
    return [f.line for f in lint_source(text, "client.ts") if f.code == "PL303"]


def test_a_request_asking_the_server_for_the_last_turns() -> None:
    assert _windows(_REQUEST) == [5]


def test_a_session_id_and_a_history_limit_are_read_alike() -> None:
    text = _REQUEST.replace("conversationId,\n    query,", "sessionId: conversationId,")
    assert _windows(text.replace("historyWindow: 8", "maxHistoryMessages: 20")) == [4]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("conversationId,\n    query,", "theme: 'dark',"),  # a setting, not a request
        ("historyWindow: 8", "maxTurns: 8"),  # an agent loop's rounds
        ("historyWindow: 8", "contextWindow: 128000"),  # the model's size
        ("historyWindow: 8", "historyWindow: 1"),  # the latest exchange
    ],
)
def test_what_is_no_window_asked_for_is_silent(old: str, new: str) -> None:
    assert _windows(_REQUEST.replace(old, new)) == []
