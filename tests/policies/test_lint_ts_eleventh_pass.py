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
