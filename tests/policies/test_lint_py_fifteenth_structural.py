"""The fifteenth structural pass, Python: a conversation read from its store as its newest rows,
whatever the table is named, where the function turns those rows into chat messages; and a
document store's `$slice` projection of the newest stored messages. Each with its near misses:
rows shown on a page, the newest message read alone, a list that is no conversation's."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_NEWEST_THREE = (
    "def responder(db, cliente, contexto, mensaje):\n"
    "    mensajes = [\n"
    '        {"role": "system", "content": PROMPT},\n'
    '        {"role": "user", "content": mensaje},\n'
    "    ]\n"
    "    recientes = (\n"
    "        db.query(Conversacion)\n"
    '        .filter(Conversacion.remitente == contexto.get("remitente"))\n'
    "        .order_by(Conversacion.id.desc())\n"
    "        .limit(3)\n"
    "        .all()\n"
    "    )\n"
    "    for conv in reversed(recientes):\n"
    "        mensajes.extend([\n"
    '            {"role": "user", "content": conv.mensaje},\n'
    '            {"role": "assistant", "content": conv.respuesta},\n'
    "        ])\n"
    '    return cliente.chat.completions.create(model="gpt-4", messages=mensajes)\n'
)


def test_newest_rows_read_reversed_into_chat_messages_are_reported() -> None:
    assert lines_of(_NEWEST_THREE, "PL303", "gpt.py") == [10]


def test_newest_rows_shown_on_a_page_are_no_window() -> None:
    # The rows are listed for a page, not walked into the messages sent.
    page = _NEWEST_THREE.replace(
        "    for conv in reversed(recientes):\n"
        "        mensajes.extend([\n"
        '            {"role": "user", "content": conv.mensaje},\n'
        '            {"role": "assistant", "content": conv.respuesta},\n'
        "        ])\n",
        "    pagina = [c.mensaje for c in recientes]\n    print(pagina)\n",
    )
    assert lines_of(page, "PL303", "gpt.py") == []


def test_the_whole_conversation_read_oldest_first_is_no_window() -> None:
    whole = _NEWEST_THREE.replace(
        "        .order_by(Conversacion.id.desc())\n        .limit(3)\n",
        "        .order_by(Conversacion.id)\n",
    )
    assert lines_of(whole, "PL303", "gpt.py") == []


_SLICED = (
    "class Store:\n"
    "    def get_history(self, phone_number, limit=10):\n"
    "        result = self.conversations.find_one(\n"
    '            {"phone_number": phone_number},\n'
    '            {"messages": {"$slice": -limit}},\n'
    "        )\n"
    '        return result.get("messages", []) if result else []\n'
)


def test_a_slice_projection_of_the_newest_messages_is_reported() -> None:
    assert lines_of(_SLICED, "PL303", "mongo.py") == [5]


def test_the_newest_message_read_alone_is_no_window() -> None:
    latest = _SLICED.replace('"$slice": -limit', '"$slice": -1')
    assert lines_of(latest, "PL303", "mongo.py") == []


def test_a_slice_of_a_list_that_holds_no_messages_is_no_window() -> None:
    readings = _SLICED.replace('{"messages":', '{"readings":')
    assert lines_of(readings, "PL303", "mongo.py") == []


def test_the_new_message_put_ahead_of_the_replayed_exchanges_is_reported() -> None:
    assert lines_of(_NEWEST_THREE, "PL304", "gpt.py") == [4]


def test_the_new_message_appended_after_the_replayed_exchanges_is_not() -> None:
    after = _NEWEST_THREE.replace('        {"role": "user", "content": mensaje},\n', "").replace(
        "    return cliente",
        '    mensajes.append({"role": "user", "content": mensaje})\n    return cliente',
    )
    assert lines_of(after, "PL304", "gpt.py") == []


_AGENT_LOOP = (
    "def run(client, task, tools):\n"
    "    messages = [\n"
    '        {"role": "system", "content": PROMPT},\n'
    '        {"role": "user", "content": task},\n'
    "    ]\n"
    "    for step in range(10):\n"
    '        reply = client.chat.completions.create(model="gpt-4o", messages=messages)\n'
    '        messages.append({"role": "assistant", "content": reply.text})\n'
    '        messages.append({"role": "user", "content": run_tools(reply, step)})\n'
    "    return messages\n"
)


def test_an_agent_loop_growing_the_conversation_is_no_replay() -> None:
    assert lines_of(_AGENT_LOOP, "PL304", "agent.py") == []


_REQUEST_CONTEXT = (
    "class PromptService:\n"
    "    def _system(self, context):\n"
    '        return SYSTEM_PROMPT + "\\n\\nRetrieved:\\n" + context\n'
    "\n"
    "    def build_messages(self, request):\n"
    "        system_content = self._system(request.context)\n"
    '        messages = [ChatMessage(role="system", content=system_content)]\n'
    "        if request.history:\n"
    "            messages.extend(request.history)\n"
    '        messages.append(ChatMessage(role="user", content=request.question))\n'
    "        return messages\n"
)


def test_context_the_request_brings_in_the_system_message_ahead_of_its_history() -> None:
    assert lines_of(_REQUEST_CONTEXT, "PL304", "service.py") == [7]


def test_a_setting_the_request_brings_is_not_retrieved_material() -> None:
    setting = _REQUEST_CONTEXT.replace("request.context", "request.language")
    assert lines_of(setting, "PL304", "service.py") == []


def test_an_attribute_of_the_object_itself_is_not_what_the_request_brings() -> None:
    own = _REQUEST_CONTEXT.replace("self._system(request.context)", "self._system(self.context)")
    assert lines_of(own, "PL304", "service.py") == []


_FIRST_TURN = (
    "def ask(client, question, history, user_profile=None, retrieved_profiles=None):\n"
    "    parts = []\n"
    "    if user_profile:\n"
    '        parts.append(f"Asker:\\n{user_profile}")\n'
    "    if retrieved_profiles:\n"
    '        parts.append("\\n".join(retrieved_profiles))\n'
    '    context_prefix = "\\n\\n".join(parts)\n'
    "    contents = []\n"
    "    for i, entry in enumerate(history):\n"
    '        text = entry["text"]\n'
    "        if i == 0 and context_prefix:\n"
    '            text = f"{context_prefix}\\n\\n{text}"\n'
    '        contents.append({"role": entry["role"], "parts": [{"text": text}]})\n'
    '    contents.append({"role": "user", "parts": [{"text": question}]})\n'
    '    return client.models.generate_content(model="gemini-2.5-flash", contents=contents)\n'
)


def test_per_request_material_written_into_the_first_replayed_turn_is_reported() -> None:
    assert lines_of(_FIRST_TURN, "PL304", "gemini.py") == [12]


def test_a_fixed_prompt_folded_into_the_first_turn_is_not() -> None:
    # A model without a system role: a prompt read at the module's load, the same prefix on
    # every request.
    fixed = "PERSONA = load_prompt()\n\n\n" + _FIRST_TURN.replace(
        'text = f"{context_prefix}\\n\\n{text}"', 'text = f"{PERSONA}\\n\\n{text}"'
    )
    assert "PERSONA}" in fixed
    assert lines_of(fixed, "PL304", "gemini.py") == []
