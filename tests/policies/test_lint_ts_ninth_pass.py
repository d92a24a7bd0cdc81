"""The ninth TypeScript pass: a window of any list followed to where it is sent after a
system prompt (a system message held in a local, a loop that pushes each kept item), each with
the near misses that stay quiet."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes

_NAMED_SYSTEM = (
    "export async function speak(client, base, persona) {\n"
    "  const working = [...base]\n"
    "  const system = { role: 'system', content: persona }\n"
    "  const payload = [system, ...working.slice(-10).map((m) => ({ role: m.role, t: m.t }))]\n"
    "  return client.chat(payload)\n"
    "}\n"
)


def test_a_window_spread_after_a_system_message_held_in_a_local_is_reported() -> None:
    assert (4, "PL303") in _codes(_NAMED_SYSTEM, "round.ts")


def test_a_window_spread_after_a_local_that_is_no_system_message_is_no_finding() -> None:
    # The local holds a user message: the list starts with the newest question, not a prompt.
    user = _NAMED_SYSTEM.replace("role: 'system'", "role: 'user'")
    assert (4, "PL303") not in _codes(user, "round.ts")


def test_the_first_items_of_a_list_after_a_named_system_message_are_no_window() -> None:
    # `slice(0, 10)` keeps the oldest ten: a stable prefix.
    oldest = _NAMED_SYSTEM.replace("working.slice(-10)", "working.slice(0, 10)")
    assert (4, "PL303") not in _codes(oldest, "round.ts")


_PUSHED = (
    "export async function send(ref, userMsg, limit, invoke) {\n"
    "  const context = [{ role: 'system', content: 'You are a helper.' }]\n"
    "  const recent = [...ref.current, userMsg].filter((m) => !m.loading).slice(-limit)\n"
    "  for (const msg of recent) {\n"
    "    context.push({ role: msg.role, content: msg.content })\n"
    "  }\n"
    "  await invoke('chat', { messages: context })\n"
    "}\n"
)


def test_a_window_pushed_item_by_item_after_a_system_message_is_reported() -> None:
    assert _codes(_PUSHED, "useChat.ts") == [(3, "PL303")]


def test_a_window_pushed_onto_a_list_with_no_system_message_is_no_finding() -> None:
    # Nothing stable comes first: the window is the whole request, no prefix to break.
    bare = _PUSHED.replace("[{ role: 'system', content: 'You are a helper.' }]", "[]")
    assert _codes(bare, "useChat.ts") == []


def test_a_loop_over_another_list_does_not_send_the_window() -> None:
    # The loop pushes the pinned notes, not the cut list: the window goes nowhere here.
    other = _PUSHED.replace("for (const msg of recent)", "for (const msg of ref.pinned)")
    assert _codes(other, "useChat.ts") == []


def test_a_loop_that_pushes_each_item_elsewhere_is_no_finding() -> None:
    # Each kept item is pushed onto a display list, not the request's.
    shown = _PUSHED.replace("context.push({", "shownRows.push({")
    assert _codes(shown, "useChat.ts") == []
