"""A conversation loaded through a remote method named in a string, its cap in a parameter
dict (`request("conversation.get", {"conversationId": cid, "limit": 12})`), is a sliding
window like a loader named for it (`pycheck.loadedwindow`); its near misses (a cap of one, the
oldest messages first, a method that loads something else) report nothing."""

from __future__ import annotations

import pytest

from prefixlock.policies.pycheck import check_python

_RUNTIME = (
    "class Runtime:\n"
    "    async def context(self, conversation_id, text):\n"
    "        snapshot = await self.data.request({CALL})\n"
    "        history = [\n"
    "            {'role': m['role'], 'content': m['content']} for m in snapshot['messages']\n"
    "        ]\n"
    "        return history + [{'role': 'user', 'content': text}]\n"
)


def _pl303(call: str) -> list[int]:
    text = _RUNTIME.replace("{CALL}", call)
    return [f.line for f in check_python("runtime.py", text) if f.code == "PL303"]


def test_a_remote_load_of_the_last_messages_is_a_window() -> None:
    assert _pl303("'conversation.get', {'conversationId': conversation_id, 'limit': 12}") == [3]


@pytest.mark.parametrize(
    "call",
    [
        "'conversation.get', {'conversationId': conversation_id, 'limit': 1}",
        "'conversation.get', {'conversationId': conversation_id, 'limit': 12, 'order': 'asc'}",
        "'user.get', {'userId': conversation_id, 'limit': 12}",
        "'conversation.get', {'conversationId': conversation_id}",
    ],
)
def test_a_single_message_the_oldest_first_or_another_record_is_no_window(call: str) -> None:
    assert _pl303(call) == []
