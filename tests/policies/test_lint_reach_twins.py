"""Twins of this round's rules that drop findings (a value reaching one-shot requests only, an
identity field of a record, a prompt-named call, a realtime session's start): in each pair the
form the rule is for drops the finding, and a near form that is a real breaker keeps it."""

from __future__ import annotations

from prefixlock.policies.jscheck import check_js


def _codes(text: str, path: str = "chat.ts") -> list[str]:
    return [f.code for f in check_js(path, text)]


_META = (
    "export async function chat(history: any[], q: string) {\n"
    "  const meta = { sessionUuid: crypto.randomUUID(), lang: 'en' };\n"
    "  return openai.chat.completions.create({\n"
    "    model: 'gpt-4o',\n"
    "    messages: [\n"
    "      { role: 'system', content: `Context: ${SENT}` },\n"
    "      ...history,\n"
    "      { role: 'user', content: q },\n"
    "    ],\n"
    "  });\n"
    "}\n"
)


def test_a_records_identity_field_is_text_where_the_record_is_serialised() -> None:
    # A field read off the record carries that field alone: the uuid is not in the prompt.
    assert "PL103" not in _codes(_META.replace("SENT", "meta.lang"))
    # The twin: `JSON.stringify(meta)` writes every field, the uuid too, into the prompt.
    assert "PL103" in _codes(_META.replace("SENT", "JSON.stringify(meta)"))
    literal = _META.replace("meta = {", "unused = {").replace(
        "SENT", "JSON.stringify({ requestKey: crypto.randomUUID(), lang: 'en' })"
    )
    assert "PL103" in _codes(literal)


_PROMPT_CALL = (
    "export async function chat(history: any[], q: string) {\n"
    "  const system = `Today is ${new Date().toISOString()}`;\n"
    "  const title = await openai.chat.completions.create({\n"
    "    model: 'gpt-4o-mini',\n"
    "    messages: [{ role: 'system', content: system }, { role: 'user', content: q }],\n"
    "  });\n"
    "  return CALL;\n"
    "}\n"
)


def test_a_prompt_named_call_handed_the_history_may_ask_a_model() -> None:
    # A prompt named as a noun, handed a text, builds it: the one-shot request decides.
    assert "PL101" not in _codes(_PROMPT_CALL.replace("CALL", "AnswerSystemPrompt(system)"))
    # The twin: handed the conversation, the call named for a prompt sends it.
    assert "PL101" in _codes(_PROMPT_CALL.replace("CALL", "processPrompt(system, history, q)"))
    assert "PL101" in _codes(_PROMPT_CALL.replace("CALL", "runPipelinePrompt(system, ...turns)"))


_REALTIME = (
    "export function onUserTurn(client: RealtimeClient, text: string) {\n"
    "  const now = new Date().toLocaleTimeString();\n"
    "  client.SET({ instructions: `You are a voice assistant. It is ${now}.`, voice: 'alloy' });\n"
    "  client.sendUserMessageContent([{ type: 'input_text', text }]);\n"
    "}\n"
)


def test_a_realtime_sessions_instructions_updated_each_turn_are_kept() -> None:
    # Set when the session starts (no turn answered there): fixed for the session.
    start = _REALTIME.replace("SET", "startSession").replace(
        "  client.sendUserMessageContent([{ type: 'input_text', text }]);\n", ""
    )
    assert "PL101" not in _codes(start)
    # The twin: updated where each user turn is sent, the live session's prefix changes.
    assert "PL101" in _codes(_REALTIME.replace("SET", "updateSession"))
    raw = (
        "export function onTurn(ws: WebSocket, text: string) {\n"
        "  const now = new Date().toLocaleTimeString();\n"
        "  const update = { type: 'session.update',\n"
        "    session: { instructions: `It is ${now}.`, voice: 'alloy' } };\n"
        "  const respond = { type: 'response.create' };\n"
        "  emit(update, respond);\n"
        "}\n"
    )
    assert "PL101" in _codes(raw)
    assert "PL101" not in _codes(raw.replace("'response.create'", "'input_audio_buffer.clear'"))
