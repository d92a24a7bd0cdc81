"""Shapes real14's development half missed or reported falsely, made general: a history window
asked of the server (`context_management` compaction or clearing), the working directory read
per call into a system prompt, a procedure's current step written into the system prompt,
instructions sent only when a response chain starts, and a broken file in a backup folder.
Each test is fresh code in the real shape with a twin that must stay silent."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes


def test_typescript_server_side_compaction_asked_by_the_request() -> None:
    # A Responses chain whose every call asks the server to compact older turns; the twin
    # asks for nothing, or for an edit that cuts nothing.
    src = (
        "export async function turn(client: OpenAI, prev: string, input: string) {\n"
        "  return client.responses.create({\n"
        "    model: 'gpt-5',\n"
        "    input,\n"
        "    previous_response_id: prev,\n"
        "    context_management: [{ type: 'compaction', compact_threshold: 30_000 }],\n"
        "  });\n"
        "}\n"
    )
    assert _codes(src, "agent.ts") == [(6, "PL303")]
    quiet = src.replace(
        "    context_management: [{ type: 'compaction', compact_threshold: 30_000 }],\n", ""
    )
    assert _codes(quiet, "agent.ts") == []
    other = src.replace("'compaction'", "'none'")
    assert _codes(other, "agent.ts") == []


def test_python_server_side_clearing_asked_by_the_request() -> None:
    # Anthropic context editing through the SDK's keyword, and the same through extra_body.
    src = (
        "def turn(client, history):\n"
        "    return client.beta.messages.create(\n"
        "        model=MODEL,\n"
        "        system=SYSTEM,\n"
        "        messages=history,\n"
        '        context_management={"edits": [{"type": "clear_tool_uses_20250919"}]},\n'
        "    )\n"
        "def turn2(client, history):\n"
        "    return client.responses.create(\n"
        "        model=MODEL,\n"
        "        input=history,\n"
        '        extra_body={"context_management": [{"type": "compaction"}]},\n'
        "    )\n"
    )
    assert _codes(src, "agent.py") == [(2, "PL303"), (12, "PL303")]
    quiet = src.replace('"clear_tool_uses_20250919"', '"none"').replace('"compaction"', '"none"')
    assert _codes(quiet, "agent.py") == []
    # Settings kept for later requests (an agent SDK's ModelSettings) are no request: the rule
    # reports where a request asks, beside its input.
    kept = 'settings = ModelSettings(context_management=[{"type": "compaction"}])\n'
    assert _codes(kept, "agent.py") == []


def test_python_server_cut_in_a_body_dict_only_beside_its_input() -> None:
    # As in TypeScript: a request body written as a dict asks for the cut where it carries
    # the request's input; a dict of settings alone is kept for later requests.
    body = (
        "def turn(client, history):\n"
        '    body = {"model": MODEL, "messages": history,\n'
        '            "context_management": [{"type": "compaction"}]}\n'
        "    return client.beta.messages.create(**body)\n"
    )
    assert _codes(body, "agent.py") == [(3, "PL303")]
    settings = body.replace('"messages": history,', "")
    assert _codes(settings, "agent.py") == []


def test_python_working_directory_read_per_call_into_the_system_prompt() -> None:
    # A coding agent's prompt builder reads the directory its tools may change at every call;
    # the twin reads it once at import, fixed for the process.
    src = (
        "import os\n"
        "def get_system_prompt():\n"
        "    cwd = os.getcwd()\n"
        '    return f"You are a coding agent.\\nWorking directory: {cwd}"\n'
        "def turn(client, history):\n"
        '    msgs = [{"role": "system", "content": get_system_prompt()}, *history]\n'
        "    return client.chat.completions.create(model=M, messages=msgs)\n"
    )
    assert _codes(src, "prompts.py") == [(3, "PL105")]
    once = src.replace("    cwd = os.getcwd()\n", "").replace(
        "def get_system_prompt():\n", "CWD = os.getcwd()\ndef get_system_prompt():\n    cwd = CWD\n"
    )
    assert [c for _, c in _codes(once, "prompts.py") if c == "PL105"] == []
    # The directory as the fallback of the session's workspace, chosen once per session; and a
    # file it locates, opened and read: the file's text, not the tree.
    fallback = src.replace("os.getcwd()", "workspace or os.getcwd()").replace(
        "def get_system_prompt():", "def get_system_prompt(workspace=None):"
    )
    assert [c for _, c in _codes(fallback, "prompts.py") if c == "PL105"] == []
    opened = src.replace(
        "    cwd = os.getcwd()\n",
        '    with (pathlib.Path.cwd() / "NOTES.md").open() as f:\n        cwd = f.read()\n',
    ).replace("import os\n", "import os\nimport pathlib\n")
    assert [c for _, c in _codes(opened, "prompts.py") if c == "PL105"] == []


def test_typescript_instructions_sent_only_when_a_response_chain_starts() -> None:
    # Later turns chain on previous_response_id and carry no instructions: the time in them is
    # filled once per conversation. The twin sends them on every turn.
    src = (
        "export class Agent {\n"
        "  async respond(client: OpenAI, session: Session, text: string) {\n"
        "    const prev = session.previousResponseId;\n"
        "    const instructions = prev === undefined ? this.buildInstructions() : undefined;\n"
        "    return client.responses.create({\n"
        "      model: 'gpt-5',\n"
        "      ...(instructions !== undefined ? { instructions } : {}),\n"
        "      input: [{ role: 'user', content: text }],\n"
        "      previous_response_id: prev,\n"
        "    });\n"
        "  }\n"
        "  private buildInstructions(): string {\n"
        "    const now = new Date().toISOString();\n"
        "    return `You are a voice assistant. Current time: ${now}.`;\n"
        "  }\n"
        "}\n"
    )
    assert [c for _, c in _codes(src, "agent.ts") if c.startswith("PL1")] == []
    every = src.replace(
        "prev === undefined ? this.buildInstructions() : undefined", "this.buildInstructions()"
    )
    assert [c for _, c in _codes(every, "agent.ts") if c.startswith("PL1")] != []


def test_a_broken_copy_in_a_trash_or_backup_folder_is_no_finding() -> None:
    # An import-cleanup script left a try without its except in a trashed copy; the same text
    # in the project's own folder is still a parse failure.
    src = "def plan():\n    try:\n        import json\n\nx = 1\n"
    assert _codes(src, "backups/cleanup/agents/_trash_2025-06-13/planner.py") == []
    assert _codes(src, "old.bak/planner.py") == []
    assert [c for _, c in _codes(src, "agents/planner.py")] == ["PL901"]


def test_typescript_a_procedures_current_step_in_the_system_prompt() -> None:
    # The step advances within the conversation; the twin writes the whole procedure only.
    src = (
        "export function createSystemPrompt(model: string, sop: Sop, currentStepId?: string) {\n"
        "  let prompt = `You are ${model}.`;\n"
        "  prompt += `\\n\\n## Procedure\\n${JSON.stringify(sop)}`;\n"
        "  const step = currentStepId ? sop.steps.find((s) => s.id === currentStepId) : null;\n"
        "  if (step) {\n"
        "    prompt += `\\n\\n## Current step\\n${JSON.stringify(step)}`;\n"
        "  }\n"
        "  return prompt;\n"
        "}\n"
    )
    assert _codes(src, "prompt.ts") == [(6, "PL304")]
    whole = src.replace(", currentStepId?: string", "").replace(
        "currentStepId ? sop.steps.find((s) => s.id === currentStepId) : null", "sop.steps[0]"
    )
    assert _codes(whole, "prompt.ts") == []


def test_python_a_procedures_current_step_in_the_system_prompt() -> None:
    src = (
        "def build_system_prompt(sop, sop_text, current_step_id=None):\n"
        '    prompt = f"Follow this procedure:\\n{sop_text}"\n'
        "    step = find_step(sop, current_step_id) if current_step_id else None\n"
        "    if step:\n"
        '        prompt += f"\\n\\nCurrent step:\\n{step}"\n'
        "    return prompt\n"
    )
    assert _codes(src, "prompt.py") == [(5, "PL304")]
    whole = src.replace(", current_step_id=None", "").replace(
        "find_step(sop, current_step_id) if current_step_id else None", 'sop["steps"][0]'
    )
    assert _codes(whole, "prompt.py") == []


def test_python_a_page_of_messages_listed_for_the_client_is_no_window() -> None:
    # The GET endpoint pages through a conversation for the UI; the chat endpoint beside it
    # reads the newest ten back for the model (skip=0): that one is a window.
    src = (
        "def list_messages(db, cid, skip: int = 0, limit: int = 100):\n"
        "    messages = crud.message.get_by_conversation(db, cid, skip=skip, limit=limit)\n"
        "    return messages\n"
        "def reply(db, client, conversation_id):\n"
        "    messages = crud.message.get_by_conversation(db, conversation_id, skip=0, limit=10)\n"
        '    chat = [{"role": m.role, "content": m.content} for m in messages]\n'
        "    return client.chat.completions.create(model=M, messages=chat)\n"
    )
    assert [(n, c) for n, c in _codes(src, "conversations.py") if c == "PL303"] == [(5, "PL303")]


def test_typescript_tools_chosen_by_a_mode_fixed_per_agent_instance() -> None:
    # The mode is set once, when the agent is made: one tool list for the conversation it
    # holds. The twin lets the mode change mid-conversation.
    src = (
        "export class Agent {\n"
        "  private mode: string;\n"
        "  constructor(opts: Opts) {\n"
        "    this.mode = opts.mode ?? 'chat';\n"
        "  }\n"
        "  async respond(client: OpenAI, history: Msg[], text: string) {\n"
        "    const tools = [\n"
        "      ...memoryTools(),\n"
        "      ...(this.mode === 'goal' ? [] : [askTool()]),\n"
        "    ];\n"
        "    history.push({ role: 'user', content: text });\n"
        "    return client.chat.completions.create({ model: 'm', messages: history, tools });\n"
        "  }\n"
        "}\n"
    )
    assert [c for _, c in _codes(src, "agent.ts") if c == "PL302"] == []
    setter = "  setMode(mode: string) {\n    this.mode = mode;\n  }\n"
    switched = src.replace("  async respond(", setter + "  async respond(")
    assert [c for _, c in _codes(switched, "agent.ts") if c == "PL302"] == ["PL302"]


def test_python_tools_chosen_by_a_mode_fixed_per_agent_instance() -> None:
    src = (
        "class Agent:\n"
        "    def __init__(self, client, mode='chat'):\n"
        "        self.client = client\n"
        "        self.mode = mode\n"
        "        self.history = []\n"
        "    def respond(self, text):\n"
        "        self.history.append({'role': 'user', 'content': text})\n"
        "        return self.client.chat.completions.create(\n"
        "            model=M,\n"
        "            messages=self.history,\n"
        "            tools=GOAL_TOOLS if self.mode == 'goal' else CHAT_TOOLS,\n"
        "        )\n"
    )
    assert [c for _, c in _codes(src, "agent.py") if c == "PL302"] == []
    setter = "    def set_mode(self, mode):\n        self.mode = mode\n"
    switched = src.replace("    def respond(", setter + "    def respond(")
    assert [c for _, c in _codes(switched, "agent.py") if c == "PL302"] == ["PL302"]


def test_python_retrieved_memories_appended_to_the_system_prompt() -> None:
    # The memories recalled for this reply go into the system prompt ahead of the history;
    # the user's profile (settled for the conversation) and a one-off request stay silent.
    src = (
        "def reply(db, client, user, history):\n"
        '    system_prompt = "You are a companion."\n'
        "    context = memory.get_conversation_context(db, user_id=user.id, limit=5)\n"
        "    if context:\n"
        '        system_prompt += f"\\n\\nContext:\\n{context}"\n'
        "    return generate(model=M, system_prompt=system_prompt, messages=history)\n"
    )
    assert [(n, c) for n, c in _codes(src, "chat.py") if c == "PL304"] == [(5, "PL304")]
    profile = src.replace("context", "profile_context")
    assert [c for _, c in _codes(profile, "chat.py") if c == "PL304"] == []
    one_off = src.replace("messages=history", 'messages=[{"role": "user", "content": "hi"}]')
    assert [c for _, c in _codes(one_off, "chat.py") if c == "PL304"] == []


def test_typescript_a_history_window_built_only_to_measure_the_payload() -> None:
    # The composer's size meter builds the messages as a send would, to count their bytes;
    # the twin, named for sending, is a window.
    src = (
        "export function estimateChatPayload(input: Input): number {\n"
        "  const history = input.messages.slice(-20);\n"
        "  const messages = [{ role: 'system', content: input.systemPrompt }, ...history];\n"
        "  return new Blob([JSON.stringify(messages)]).size;\n"
        "}\n"
    )
    assert _codes(src, "payload.ts") == []
    sent = src.replace("estimateChatPayload", "sendChat").replace(
        "return new Blob([JSON.stringify(messages)]).size;",
        "return client.chat.completions.create({ model: 'm', messages });",
    )
    assert [c for _, c in _codes(sent, "payload.ts")] == ["PL303"]


def test_python_a_history_window_built_only_to_measure_the_payload() -> None:
    src = (
        "def estimate_payload_bytes(system_prompt, history):\n"
        '    messages = [{"role": "system", "content": system_prompt}, *history[-20:]]\n'
        "    return len(json.dumps(messages))\n"
    )
    assert [c for _, c in _codes(src, "payload.py") if c == "PL303"] == []
    sent = src.replace("estimate_payload_bytes", "send_chat").replace(
        "return len(json.dumps(messages))",
        "return client.chat.completions.create(model=M, messages=messages)",
    )
    assert [c for _, c in _codes(sent, "payload.py") if c == "PL303"] == ["PL303"]
