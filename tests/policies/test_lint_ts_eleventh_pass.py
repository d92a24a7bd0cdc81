"""The eleventh TypeScript pass, written on a wide sample of the real17-19 projects' code that no
labeller picked (tests/policies/corpus/wide/ts-findings.toml): a finding needs a value that can
reach a request. A tool list a function only reads where it stands (its length, whether it
holds a name, a few names written into a status line or logged) is never handed on, so it is
no request's tool list; handed on anywhere, it is still reported."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes, lines_of

_STATUS = (
    "export function status(modeManager, currentMode) {\n"
    "  let statusMsg = `Mode: ${currentMode}`\n"
    "  const allowedTools = modeManager.getAllowedTools(currentMode)\n"
    "  if (allowedTools.length > 0) {\n"
    "    if (allowedTools.includes('*')) statusMsg += 'Tools: all'\n"
    "    else statusMsg += `Tools: ${allowedTools.slice(0, 5).join(', ')}`\n"
    "  }\n"
    "  console.log('tools', allowedTools.map((t) => t.name))\n"
    "  return statusMsg\n"
    "}\n"
)


def test_a_tool_list_only_read_for_a_status_line_is_no_request_s_tools() -> None:
    assert lines_of(_STATUS, "PL302", "modes.ts") == []


def test_the_same_list_handed_to_a_request_is_still_chosen_by_the_mode() -> None:
    sent = _STATUS.replace(
        "  return statusMsg\n",
        "  return client.chat.completions.create({ model, messages, tools: allowedTools })\n",
    )
    assert lines_of(sent, "PL302", "modes.ts") == [3, 9]


def test_a_list_mapped_into_a_request_is_handed_on() -> None:
    sent = _STATUS.replace(
        "  return statusMsg\n",
        "  return ask({ messages, tools: allowedTools.map((t) => t.schema) })\n",
    )
    assert lines_of(sent, "PL302", "modes.ts") == [3]


def test_a_list_returned_through_a_fallback_is_handed_on() -> None:
    kept = _STATUS.replace("  return statusMsg\n", "  return allowedTools.filter(Boolean) || []\n")
    assert lines_of(kept, "PL302", "modes.ts") == [3]


def test_a_list_picked_by_a_ternary_branch_is_handed_on() -> None:
    kept = _STATUS.replace(
        "  return statusMsg\n", "  return currentMode ? allowedTools.slice(0) : []\n"
    )
    assert lines_of(kept, "PL302", "modes.ts") == [3]


def test_a_system_prompt_class_constructed_with_new_is_read_without_failing() -> None:
    # `new SystemPrompt(actions, maxActions)`: a `new` expression has no `function` field; the
    # file used to fail whole (PL906) and nothing in it was checked.
    code = (
        "export class Agent {\n"
        "  constructor(actions) {\n"
        "    this.prompt = new SystemPrompt(actions, 10).message()\n"
        "    this.stamp = `Now: ${new Date().toISOString()}`\n"
        "  }\n"
        "}\n"
    )
    assert "PL906" not in [c for _, c in line_codes(code, "agent.tsx")]


_SESSION = (
    "export async function handle(c, userText, openai, history) {\n"
    "  const sessionId = c.req.header('x-session-id') || `s_${Date.now()}_${Math.random()}`\n"
    "  const db = new DatabaseService(c.env, sessionId)\n"
    "  const session = await db.getSession(sessionId)\n"
    "  const systemPrompt = `You are ${session.persona}.`\n"
    "  const messages = [{ role: 'system', content: systemPrompt }, ...history]\n"
    "  return openai.chat.completions.create({ model: 'm', messages })\n"
    "}\n"
)


def test_a_record_looked_up_by_an_id_made_from_the_clock_is_not_the_clock() -> None:
    # The id (however it was made) names the session; the persona read back is stored text.
    assert line_codes(_SESSION, "h.ts") == []


def test_the_id_itself_written_into_the_system_prompt_is_still_reported() -> None:
    dated = _SESSION.replace("You are ${session.persona}.", "Session ${sessionId}.")
    assert lines_of(dated, "PL101", "h.ts") == [2]


def test_a_service_built_from_the_clock_itself_still_carries_it() -> None:
    made = _SESSION.replace(
        "new DatabaseService(c.env, sessionId)",
        "new DatabaseService(c.env, `${sessionId} ${new Date().toISOString()}`)",
    )
    assert lines_of(made, "PL101", "h.ts") == [5]


_AUDIT = (
    "export async function handle(req, history, client) {\n"
    "  const pendingArgs = req.body.pendingArgs ?? ''\n"
    "  await writeAuditLog({ wsId: req.wsId, systemAction: pendingArgs, confirmed: true })\n"
    "  const messages = [{ role: 'system', content: 'Fixed.' }, ...history]\n"
    "  return client.chat.completions.create({ model: 'm', messages })\n"
    "}\n"
)


def test_a_prompt_named_field_of_an_audit_record_is_no_system_prompt() -> None:
    assert lines_of(_AUDIT, "PL304", "boss.ts") == []


def test_the_same_object_handed_to_an_agent_call_is_still_read() -> None:
    sent = _AUDIT.replace("writeAuditLog(", "sendToAgent(")
    assert lines_of(sent, "PL304", "boss.ts") == [2]


_STORED = (
    "export async function save(image, history, client) {\n"
    "  const task = { id: genId(), revisedPrompt: `${image.prompt} ${Date.now()}`, createdAt: 1 }\n"
    "  await store.put(task)\n"
    "}\n"
)


def test_a_prompt_named_field_of_a_stored_record_is_no_prefix() -> None:
    # `{ id, ..., createdAt }`: a row kept in a store, not a request's options.
    assert lines_of(_STORED, "PL101", "store.ts") == []


def test_the_same_field_without_the_record_s_identity_is_still_reported() -> None:
    bare = _STORED.replace("id: genId(), ", "").replace(", createdAt: 1", "")
    assert lines_of(bare, "PL101", "store.ts") == [2]


_TEST_BODY = (
    'import { expect, test } from "bun:test"\n'
    "\n"
    'test("the prompt is dated", () => {\n'
    "  const systemPrompt = `Today: ${new Date().toISOString()}`\n"
    '  expect(systemPrompt).toContain("Today")\n'
    "})\n"
)


def test_a_prompt_built_in_a_module_level_test_callback_is_no_request() -> None:
    assert lines_of(_TEST_BODY, "PL101", "prompt.ts") == []


def test_the_same_callback_handed_to_another_call_is_still_read() -> None:
    ran = _TEST_BODY.replace('test("the prompt', 'schedule("the prompt')
    assert lines_of(ran, "PL101", "prompt.ts") == [4]


_SUMMARY = (
    "export async function POST({ request }) {\n"
    "  const { messages, agentId } = await request.json()\n"
    "  const slice = messages.slice(-MAX_MESSAGES)\n"
    "  const transcript = slice.map((m) => `${m.role}: ${m.content}`).join('\\n')\n"
    "  const { text } = await generateText({\n"
    "    model,\n"
    "    system: 'You extract insights from a conversation.',\n"
    "    prompt: `Extract insights from this conversation:\\n\\n${transcript}`,\n"
    "  })\n"
    "  return { text, turns: slice.length }\n"
    "}\n"
)


def test_recent_turns_mapped_and_joined_into_a_one_shot_prompt_are_quoted_text() -> None:
    # A system prompt beside one user text (`{ system, prompt }`): the last turns are quoted
    # in the new request, no history is re-sent after a prefix.
    assert lines_of(_SUMMARY, "PL303", "summarize.ts") == []


def test_the_same_window_sent_as_messages_is_still_a_window() -> None:
    sent = _SUMMARY.replace(
        "    prompt: `Extract", "    messages: [...slice],\n    prompt: `Extract"
    )
    assert lines_of(sent, "PL303", "summarize.ts") == [3]


def test_the_window_read_whole_is_still_a_window() -> None:
    whole = _SUMMARY.replace("slice.map((m) => `${m.role}: ${m.content}`).join('\\n')", "slice")
    assert lines_of(whole, "PL303", "summarize.ts") == [3]
