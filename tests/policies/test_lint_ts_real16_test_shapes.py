"""TypeScript shapes of real16's test half (development data since it was scored): a window cut
from the history with the new turn appended (`[...messages, turn].filter(...).slice(-10)`), a
chat platform's channel read as its latest messages to a cap, SQL text that reads a messages
table newest first to a cap, and a field handed in that the prompt's own label calls the
present moment. Each test is fresh code in the shape with a twin that must stay silent."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _codes(text: str, name: str = "agent.ts") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(text, name)]


_APPENDED = """\
import { useState } from "react";
import { askModel } from "../lib/api";

export function Pane() {
  const [messages, setMessages] = useState<any[]>([]);
  async function send(text: string) {
    const recent = [...messages, { role: "user", text }]
      .filter((m) => m.role === "user" || m.role === "assistant").slice(-10)
      .map((m) => ({ role: m.role, text: m.text }));
    const out = await askModel({ messages: recent });
    setMessages((m) => [...m, { role: "assistant", text: out.text }]);
  }
  return <button onClick={() => send("x")} />;
}
"""


def test_a_window_of_the_history_with_the_new_turn_appended() -> None:
    assert (8, "PL303") in _codes(_APPENDED, "Pane.tsx")


def test_the_history_with_the_new_turn_sent_whole_is_silent() -> None:
    whole = _APPENDED.replace(".slice(-10)", "")
    assert [c for c in _codes(whole, "Pane.tsx") if c[1] == "PL303"] == []


def test_a_window_of_a_list_that_only_begins_with_other_items_is_silent() -> None:
    # the spread is not first: the list is not the history with a turn appended
    other = _APPENDED.replace('[...messages, { role: "user", text }]', '[{ role: "user", text }]')
    assert [c for c in _codes(other, "Pane.tsx") if c[1] == "PL303"] == []


_CHANNEL = """\
export async function onMessage(message: any, client: any, config: any) {
  const channel = message.channel;
  const previous = await channel.messages.fetch({
    limit: config.inputLimit,
  });
  const chat = [...previous.values()].map((m: any) => ({ role: "user", content: m.content }));
  const res = await client.chat.completions.create({ model: "m", messages: chat });
  await message.reply(res.choices[0].message.content);
}
"""


def test_a_channels_latest_messages_fetched_to_a_cap() -> None:
    assert (4, "PL303") in _codes(_CHANNEL)


def test_the_channels_latest_message_alone_is_silent() -> None:
    one = _CHANNEL.replace("limit: config.inputLimit", "limit: 1")
    assert [c for c in _codes(one) if c[1] == "PL303"] == []


def test_a_capped_fetch_of_something_not_messages_is_silent() -> None:
    members = _CHANNEL.replace("channel.messages.fetch", "channel.members.fetch")
    assert [c for c in _codes(members) if c[1] == "PL303"] == []


_SQL = """\
export async function history(db: any, chatId: string) {
  const rows = await db.all(
    `SELECT role, content FROM messages WHERE chat_id = ? ORDER BY created_at DESC LIMIT 20`,
    [chatId],
  );
  return rows.reverse();
}
"""


def test_sql_that_reads_the_newest_messages_to_a_cap() -> None:
    assert (3, "PL303") in _codes(_SQL)


def test_sql_in_order_or_for_the_last_message_alone_is_silent() -> None:
    ordered = _SQL.replace("DESC LIMIT 20", "ASC")
    last = _SQL.replace("LIMIT 20", "LIMIT 1")
    users = _SQL.replace("FROM messages", "FROM users")
    for text in (ordered, last, users):
        assert [c for c in _codes(text) if c[1] == "PL303"] == []


_LABELLED = """\
import OpenAI from "openai";
const client = new OpenAI();
const BASE = "You are a helpful bot.";
function buildSystemPrompt(context?: { isoTimestamp: string }): string {
  let prompt = BASE;
  if (context) {
    prompt += `\\nCurrent ISO timestamp: ${context.isoTimestamp}`;
  }
  return prompt;
}
export async function reply(history: any[], context: any) {
  const messages = [{ role: "system", content: buildSystemPrompt(context) }, ...history];
  return client.chat.completions.create({ model: "m", messages });
}
"""


def test_a_handed_in_time_the_prompt_labels_current() -> None:
    assert (7, "PL101") in _codes(_LABELLED)


def test_a_handed_in_time_labelled_as_a_records_is_silent() -> None:
    record = _LABELLED.replace("Current ISO timestamp", "Conversation started at")
    assert [c for c in _codes(record) if c[1] in ("PL101", "PL102")] == []


_GUEST = """\
serve(async (req) => {
  const { message, history, guestName, intent } = await req.json();
  const systemPrompt = `You are a concierge. The guest is ${guestName}.SLOT`;
  const turn = { role: "user", content: message };
  const messages = [{ role: "system", content: systemPrompt }, ...history, turn];
  const res = await fetch(URL, { method: "POST", body: JSON.stringify({ model: "m", messages }) });
  return new Response(await res.text());
});
"""


def test_the_guests_name_from_the_request_is_silent() -> None:
    # the person the conversation is with: the same on every turn of it
    assert [c for c in _codes(_GUEST.replace("SLOT", "")) if c[1] == "PL304"] == []


def test_a_field_of_this_request_beside_it_is_reported() -> None:
    assert (3, "PL304") in _codes(_GUEST.replace("SLOT", " Intent: ${intent}"))


_WORKSPACE = """\
import * as vscode from "vscode";

export async function chat(ctx: { FIELD?: string; history: string[] }, systemPrompt: string) {
  let prompt = systemPrompt;
  if (ctx.FIELD) {
    prompt += `\\n\\nWorkspace:\\n${ctx.FIELD}`;
  }
  const messages = [vscode.LanguageModelChatMessage.User(prompt)];
  for (const turn of ctx.history) {
    messages.push(vscode.LanguageModelChatMessage.Assistant(turn));
  }
  const model = (await vscode.lm.selectChatModels())[0];
  return model.sendRequest(messages, {});
}
"""


def test_the_workspace_context_handed_in_is_appended_to_the_system_prompt() -> None:
    assert (6, "PL105") in _codes(_WORKSPACE.replace("FIELD", "workspaceContext"))


def test_a_workspace_name_or_stored_state_handed_in_is_silent() -> None:
    for field in ("workspaceName", "workspaceState"):
        found = [c for c in _codes(_WORKSPACE.replace("FIELD", field)) if c[1].startswith("PL1")]
        assert found == [], field
