"""Values carried field by field (`policies/jscheck/values.py`, `pycheck/taint.py`): an object
literal's identity or bookkeeping field (`id`, `storageKey`, `uuid`, `createdAt`, `tokenCount`)
carries its value into a prompt only where that field itself is read into prompt text, and a
field read off a literal carries that field's value alone. Each test is fresh code in the shape
real code has, with a twin that goes the other way."""

from __future__ import annotations

import pytest

from tests.helpers.lintfind import line_codes as _codes

# A settings store that makes a persona with a storage id; the function is named for a persona
# (a prompt word), so its return value was read as prompt text.
_PERSONA_TS = (
    "export function createPersona(input: { name: string }): string {\n"
    "  const id = `persona-${Date.now()}-${Math.random().toString(36).slice(2, 9)}`;\n"
    "  const now = new Date().toISOString();\n"
    "  const p: Persona = { id, name: input.name, description: '', createdAt: now };\n"
    "  personas.value.push(p);\n"
    "  return id;\n"
    "}\n"
)


def test_typescript_a_records_id_returned_is_no_prompt_text() -> None:
    assert _codes(_PERSONA_TS, "persona.ts") == []
    # The twin: the same value returned as the persona's text is prompt text.
    text = _PERSONA_TS.replace("  return id;\n", "  return `You are ${input.name}. ${id}`;\n")
    got = _codes(text, "persona.ts")
    assert (2, "PL101") in got and (2, "PL103") in got


_FIELD_TS = (
    "export function buildSystemPrompt(name: string): string {\n"
    "  const card = { storageKey: `card-${Date.now()}`, name, tokenCount: countTokens(name) };\n"
    "  return `You are ${card.name}.`;\n"
    "}\n"
)


def test_typescript_a_field_read_off_a_literal_carries_that_field_alone() -> None:
    assert _codes(_FIELD_TS, "prompt.ts") == []
    # The twin: the key itself read into the prompt text carries the clock.
    keyed = _FIELD_TS.replace("${card.name}.", "${card.name} (${card.storageKey}).")
    assert (3, "PL101") in _codes(keyed, "prompt.ts")


# A run's state, handed in or made fresh (`existing ?? { ... }`), its start time a field of it.
_STATE_TS = (
    "export function buildSystemPrompt(existing: State | undefined, rules: string): string {\n"
    "  const state = existing ?? { startedAt: new Date().toISOString(), planMode: false };\n"
    "  return `${rules}\\nPlan mode: ${state.planMode}`;\n"
    "}\n"
)


@pytest.mark.parametrize("op", ["??", "||"])
def test_typescript_a_field_read_off_a_defaulted_literal_carries_that_field_alone(op: str) -> None:
    text = _STATE_TS.replace("??", op)
    assert _codes(text, "prompt.ts") == []
    # The twin: the start time itself read into the prompt text.
    timed = text.replace("${state.planMode}", "${state.startedAt}")
    assert (3, "PL101") in _codes(timed, "prompt.ts")


def test_typescript_a_defaulted_value_that_is_no_literal_keeps_every_taint() -> None:
    # `existing ?? makeState()`: the field's value is not written here; the whole is read.
    text = _STATE_TS.replace(
        "{ startedAt: new Date().toISOString(), planMode: false }",
        "makeState(new Date().toISOString())",
    )
    assert (3, "PL101") in _codes(text, "prompt.ts")


# A prompt builder that returns the messages beside their measured size (metadata for the UI).
_MEASURED_TS = (
    "export async function buildPrompt(history: Msg[], system: string) {\n"
    "  const messages = [{ role: 'system', content: system }, ...history];\n"
    "  const tokenCount = await countMessageTokens(messages);\n"
    "  return { messages, tokenCount };\n"
    "}\n"
)


def test_typescript_a_token_count_returned_beside_the_messages_is_no_text() -> None:
    assert [c for _, c in _codes(_MEASURED_TS, "prompt-builder.ts") if c == "PL106"] == []
    # The twin: the count written into the system message is a runtime value in the prefix.
    written = _MEASURED_TS.replace(
        "  return { messages, tokenCount };\n",
        "  return { messages: [{ role: 'system', content: `${system} (${tokenCount})` }] };\n",
    )
    assert (4, "PL106") in _codes(written, "prompt-builder.ts")


# A CLI's message store: the system prompt (with the clock) is written once when a chat starts;
# a compaction keeps that first message byte for byte and replaces the rest with a summary.
_COMPACT_TS = (
    "export class MessageStore {\n"
    "  private messages: Message[] = [];\n"
    "  reset(): void {\n"
    "    this.messages = [{ role: 'system', content: buildSystem(new Date().toISOString()) }];\n"
    "  }\n"
    "  compact(summary: string): void {\n"
    "    const systemMessage = this.messages[0];\n"
    "    this.messages = [systemMessage, { role: 'user', content: summary }];\n"
    "  }\n"
    "}\n"
)


def test_typescript_the_kept_first_message_read_back_in_a_compaction_is_no_new_value() -> None:
    got = _codes(_COMPACT_TS, "message-store.ts")
    assert (4, "PL101") in got  # where the clock is written, once
    assert (7, "PL101") not in got
    # The twin: the compaction writes a fresh system prompt, reading the clock again.
    fresh = _COMPACT_TS.replace(
        "    const systemMessage = this.messages[0];\n",
        "    const systemMessage = { role: 'system', content: buildSystem(Date.now()) };\n",
    )
    assert (7, "PL101") in _codes(fresh, "message-store.ts")


_RECORD_PY = (
    "import time\n"
    "import uuid\n"
    "\n"
    "def build_system_prompt(name, traits):\n"
    "    persona = {'id': str(uuid.uuid4()), 'name': name, 'created_at': time.time()}\n"
    "    save_persona(persona)\n"
    "    return f\"You are {persona['name']}. Traits: {traits}.\"\n"
)


def test_python_a_field_read_off_a_dict_literal_carries_that_field_alone() -> None:
    assert _codes(_RECORD_PY, "personas.py") == []
    # The twin: the persona's id read into the prompt text carries the random id.
    with_id = _RECORD_PY.replace("Traits: {traits}.", "Id: {persona['id']}.")
    assert (5, "PL103") in _codes(with_id, "personas.py")


# A browser agent's task runner: the system prompt, then the new user message, then the chat
# history replayed behind it.
_AHEAD_JS = (
    "async function runTask(userMessage, chatHistory) {\n"
    "  const messages = [];\n"
    "  messages.push({ role: 'system', content: SYSTEM_PROMPT });\n"
    "  messages.push({ role: 'user', content: userMessage });\n"
    "  for (const msg of chatHistory) {\n"
    "    messages.push({ role: msg.role, content: msg.content });\n"
    "  }\n"
    "  return client.chat.completions.create({ model, messages, tools });\n"
    "}\n"
)


def test_javascript_the_new_user_message_pushed_ahead_of_the_history() -> None:
    assert (4, "PL304") in _codes(_AHEAD_JS, "runner.js")
    # The twin: the new message appended after the history.
    after = _AHEAD_JS.replace(
        "  messages.push({ role: 'user', content: userMessage });\n", ""
    ).replace(
        "  return client",
        "  messages.push({ role: 'user', content: userMessage });\n  return client",
    )
    assert [c for _, c in _codes(after, "runner.js") if c == "PL304"] == []


# A profile made with clock-stamped bookkeeping fields, one field of which is handed to a
# request's system prompt (a WhatsApp lead extractor's shape).
_PROFILE_PY = (
    "from datetime import datetime\n"
    "\n"
    "class Extractor:\n"
    "    def profile(self, number, row):\n"
    "        return ClientProfile(\n"
    "            info=ClientInfo(name=row['name']),\n"
    "            number=number,\n"
    "            created_at=datetime.now(),\n"
    "        )\n"
    "\n"
    "    def extract(self, message, info):\n"
    "        system_prompt = f'Known so far: {info.name}. Extract the rest.'\n"
    "        return self.client.chat.completions.create(\n"
    "            model=MODEL,\n"
    "            messages=[{'role': 'system', 'content': system_prompt}, *self.history],\n"
    "        )\n"
    "\n"
    "    def process(self, number, message, row):\n"
    "        profile = self.profile(number, row)\n"
    "        return self.extract(message, READ)\n"
)

# A job record kept in a dict attribute, stamped when made; a later request reads its topic.
_JOB_PY = (
    "import time\n"
    "\n"
    "class Service:\n"
    "    def start(self, job_id, topic):\n"
    "        self.jobs[job_id] = {'topic': topic, 'created_at': time.time()}\n"
    "\n"
    "    def regenerate(self, job_id, history):\n"
    "        job = self.jobs[job_id]\n"
    "        topic = READ\n"
    "        system = f'You revise the plan for {topic}.'\n"
    "        return client.messages.create(model=M, system=system, messages=history)\n"
)


@pytest.mark.parametrize(
    ("src", "other_field", "own_field", "line"),
    [
        (_PROFILE_PY, "profile.info", "profile.created_at", 8),
        (_JOB_PY, 'job["topic"]', 'job["created_at"]', 5),
        (_JOB_PY, 'job.get("topic")', 'job.get("created_at")', 5),
    ],
)
def test_python_a_records_other_field_does_not_carry_its_clock(
    src: str, other_field: str, own_field: str, line: int
) -> None:
    assert (line, "PL101") not in _codes(src.replace("READ", other_field), "records.py")
    # The twin: the stamped field itself read into the prompt carries the clock.
    assert (line, "PL101") in _codes(src.replace("READ", own_field), "records.py")
    # And the whole record rendered into it does too.
    assert (line, "PL101") in _codes(
        src.replace("READ", own_field.split("[")[0].split(".")[0]), "records.py"
    )
