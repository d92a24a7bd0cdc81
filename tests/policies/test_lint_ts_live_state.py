"""TypeScript: the app's live state read when a message is sent (a store's snapshot,
`ctx.getState()`; a component's own hook, `useCalendar()`) written into a system prompt ahead of
the history is PL106 (`jscheck/livestate.py`); the same state after the history, beside no
history, or what a hook gives that is fixed for the session, is silent. Synthetic code, in the
shapes of a video editor's timeline section and a calendar assistant's events."""

from __future__ import annotations

import pytest

from tests.helpers.lintfind import lines_of

_SECTION = """\
export function editorStatePrompt(ctx: AgentContext): string {
  const s = ctx.getState();
  const lines = s.items.map((it) => `${it.id} ${it.name} @${it.start}`);
  return ["<editor_state>", ...lines, "</editor_state>"].join("\\n");
}
export function buildAgentSystemPrompt(ctx: AgentContext): string {
  return [SYSTEM_PROMPT, RULES].join("") + editorStatePrompt(ctx);
}
"""

_HOOK = """\
const ChatAssistant = () => {
  const { addEvent, events, user } = useCalendar();
  const [messages, setMessages] = useState<any[]>([]);
  const send = async (text: string) => {
    const systemPrompt = `You help with a calendar. Events: ${JSON.stringify(events)}`;
    return client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: systemPrompt },
        ...messages.map((m) => ({ role: m.role, content: m.content })),
        { role: "user", content: text },
      ],
    });
  };
  return null;
};
"""


def test_a_stores_snapshot_section_in_the_system_prompt_builder() -> None:
    assert lines_of(_SECTION, "PL106", "systemPrompt.ts") == [7]


def test_a_components_hook_state_in_the_system_message_ahead_of_the_history() -> None:
    assert lines_of(_HOOK, "PL106", "ChatAssistant.tsx") == [5]


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        # the section handed to a builder not named for the system prompt (a tool's report)
        (_SECTION, "buildAgentSystemPrompt", "buildTimelineReport"),
        # the section reads no store (the document it is handed)
        (_SECTION, "const s = ctx.getState();", "const s = ctx.doc;"),
        # the live events placed after the history, in the newest user message
        (
            _HOOK,
            '{ role: "user", content: text },',
            '{ role: "user", content: `${text}\\nEvents: ${JSON.stringify(events)}` },',
        ),
        # a one-shot request: no history after the system message
        (_HOOK, "...messages.map((m) => ({ role: m.role, content: m.content })),", ""),
        # what the hook gives that is fixed for the session (the signed-in user)
        (_HOOK, "JSON.stringify(events)", "user"),
        # React's own hook: the component's state, not the app's records
        (_HOOK, "= useCalendar();", "= useState();"),
    ],
)
def test_near_misses_are_silent(text: str, old: str, new: str) -> None:
    changed = text.replace(old, new)
    assert changed != text
    if old == '{ role: "user", content: text },':
        changed = changed.replace("Events: ${JSON.stringify(events)}`;", "`;")
    path = "systemPrompt.ts" if text is _SECTION else "ChatAssistant.tsx"
    assert lines_of(changed, "PL106", path) == []
