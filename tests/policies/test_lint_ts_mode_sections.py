"""A system-prompt builder whose sections follow a mode or the skills its caller hands in
(`policies/jscheck/modesections.py`, PL302): compared with a literal, tested, written into a
template or handed to a section builder. Each with its near misses: a mode the builder works
out itself, a module constant, a builder of where the prompt is kept, a user-turn builder."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

_SECTIONS = (
    "export function buildSystemPrompt(developmentMode: Mode, tools: string[]): string {\n"
    "  const sections: string[] = [loadSection('identity')]\n"
    "  sections.push(loadSection(`approach-${developmentMode}`))\n"
    "  if (developmentMode !== 'plan') {\n"
    "    sections.push(loadSection('coding'))\n"
    "  }\n"
    "  return sections.join('\\n\\n')\n"
    "}\n"
)


def test_sections_picked_by_a_handed_in_mode_are_reported_once() -> None:
    # The mode's first use; the later test of the same mode is the same choice.
    assert lines_of(_SECTIONS, "PL302", "prompt.ts") == [3]


def test_a_compared_mode_alone_is_reported() -> None:
    text = _SECTIONS.replace("loadSection(`approach-${developmentMode}`)", "loadSection('all')")
    assert lines_of(text, "PL302", "prompt.ts") == [4]


def test_a_mode_worked_out_inside_the_builder_is_no_choice_of_the_caller() -> None:
    text = _SECTIONS.replace(
        "  const sections", "  const overrideMode = config.mode ?? 'replace'\n  const sections"
    ).replace("developmentMode", "overrideMode")
    text = text.replace("buildSystemPrompt(overrideMode: Mode,", "buildSystemPrompt(")
    assert lines_of(text, "PL302", "prompt.ts") == []


def test_a_user_turn_builder_is_not_the_system_prompt() -> None:
    text = _SECTIONS.replace("buildSystemPrompt", "buildUserPrompt")
    assert lines_of(text, "PL302", "prompt.ts") == []


_PARTS = (
    "export function buildSystemPrompt(options: Options): string {\n"
    "  return [\n"
    "    IDENTITY,\n"
    "    buildModeSection(options.mode),\n"
    "    buildToolSection(options.toolNames),\n"
    "    buildSkillSection(options.activeSkillNames),\n"
    "  ].filter(Boolean).join('\\n\\n')\n"
    "}\n"
)


def test_a_mode_and_active_skills_handed_to_section_builders_are_reported() -> None:
    assert lines_of(_PARTS, "PL302", "prompt.ts") == [4, 6]


def test_skills_not_picked_for_the_message_are_no_choice() -> None:
    # All the skills a project has (`options.skillNames`) are one list for the conversation.
    text = _PARTS.replace("options.mode", "options.locale").replace(
        "activeSkillNames", "skillNames"
    )
    assert lines_of(text, "PL302", "prompt.ts") == []


_GETTER = (
    "export function buildAgentSystemPrompt(ctx: AgentContext): string {\n"
    "  return assemble([\n"
    "    SYSTEM_PROMPT,\n"
    "    creativeModePrompt(findSkill(ctx.getCreativeMode())),\n"
    "  ])\n"
    "}\n"
)


def test_a_mode_read_from_a_handed_in_context_is_reported() -> None:
    assert lines_of(_GETTER, "PL302", "prompt.ts") == [4]


def test_a_module_wide_mode_is_no_choice_of_the_caller() -> None:
    text = _GETTER.replace("ctx.getCreativeMode()", "DEFAULT_MODE")
    assert lines_of(text, "PL302", "prompt.ts") == []


def test_where_a_mode_s_prompt_is_kept_is_no_prompt_text() -> None:
    text = (
        "export function getSystemPromptFilePath(cwd: string, mode: Mode): string {\n"
        "  return path.join(cwd, '.app', `system-prompt-${mode}`)\n"
        "}\n"
    )
    assert lines_of(text, "PL302", "paths.ts") == []


def test_a_mode_written_as_text_into_a_section_builder_is_reported() -> None:
    text = (
        "export function buildModePromptSection(mode: Mode): string {\n"
        "  const header = `# Mode\\nCurrent mode: ${mode}`\n"
        "  return header\n"
        "}\n"
    )
    assert lines_of(text, "PL302", "prompt.ts") == [2]


_APPENDED = (
    "export async function reply(history: Msg[], text: string, channel: 'voice' | 'sms') {\n"
    "  let systemInstruction = PERSONA\n"
    "  let header = ''\n"
    "  if (channel === 'sms') {\n"
    "    header += '[SMS] '\n"
    "  }\n"
    "  if (channelMode === 'sms') {\n"
    "    systemInstruction += SMS_PROTOCOL\n"
    "  }\n"
    "  const messages = [{ role: 'system', content: systemInstruction }, ...history]\n"
    "  messages.push({ role: 'user', content: header + text })\n"
    "  return client.chat(messages)\n"
    "}\n"
)


def test_a_system_prompt_appended_under_a_handed_in_mode_is_reported() -> None:
    text = _APPENDED.replace("channel:", "channelMode:").replace("(channel ===", "(channelMode ===")
    assert lines_of(text, "PL302", "reply.ts") == [7]


def test_a_mode_that_is_no_parameter_or_only_the_user_turn_is_quiet() -> None:
    # `channelMode` is not handed in here; `channel` (no mode word) changes only the user turn.
    assert lines_of(_APPENDED, "PL302", "reply.ts") == []


def test_a_test_inside_a_callback_of_the_function_is_not_its_own() -> None:
    # The same append, inside a callback the function defines (a handler it registers): that code
    # runs apart from the request the function builds, so its test is not read as the function's.
    text = _APPENDED.replace("channel:", "channelMode:").replace(
        "  if (channelMode === 'sms') {\n    systemInstruction += SMS_PROTOCOL\n  }\n",
        "  bus.on('x', () => {\n"
        "    if (channelMode === 'sms') {\n      systemInstruction += SMS_PROTOCOL\n    }\n  })\n",
    )
    assert "bus.on" in text
    assert lines_of(text, "PL302", "reply.ts") == []
