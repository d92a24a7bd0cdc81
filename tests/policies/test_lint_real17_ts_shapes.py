"""Shapes real17's TypeScript test half missed or reported falsely, made general: a window cut
in a store's function that assembles the model's context, the newest messages written into a
system prompt, the conversation's length and its newest speaker in a system message, fetched
web content in a request state written into the system instruction, a tool list switched by a
flag worked out from the request's messages, and the false findings (a clock's timezone and
ISO week, settings read again by an argless call, a log row's prompt). Each test is fresh code
in the real shape with a twin that must stay silent."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes


def test_window_in_a_store_function_that_assembles_the_context() -> None:
    # A JSON-file store (no model call in the file) whose builder returns the system prompt
    # beside the last messages: the builder is request code, its cut a window.
    src = (
        "import * as fs from 'fs'\n"
        "export function readAll(id: string) {\n"
        "  return JSON.parse(fs.readFileSync(id, 'utf-8'))\n"
        "}\n"
        "export function contextFor(messages: Msg[], base: string, maxMessages = 40) {\n"
        "  const recent = messages.slice(-maxMessages)\n"
        "  return { systemPrompt: base, messages: recent }\n"
        "}\n"
        "export function prune(id: string, keep = 100) {\n"
        "  const kept = readAll(id).slice(-keep)\n"
        "  fs.writeFileSync(id, JSON.stringify(kept))\n"
        "}\n"
    )
    assert _codes(src, "store.ts") == [(6, "PL303")]
    # The twin returns the messages for display, with no system prompt beside them: a store's
    # retention cap, as before.
    quiet = src.replace("{ systemPrompt: base, messages: recent }", "{ title: base, rows: recent }")
    assert _codes(quiet, "store.ts") == []


def test_recent_messages_formatted_into_the_system_prompt() -> None:
    src = (
        "export function buildSystemPrompt(ctx: Ctx): string {\n"
        "  const messageHistory = formatLatestMessages(ctx.count)\n"
        "  return `You are a coach.\\n${messageHistory ? `\\n${messageHistory}\\n` : ''}\\n"
        "Be brief.`\n"
        "}\n"
    )
    assert _codes(src, "prompts.ts") == [(3, "PL303")]
    # The same name bound to the coach's fixed guide: nothing moves.
    quiet = src.replace("formatLatestMessages(ctx.count)", "loadGuide(ctx.count)")
    assert _codes(quiet, "prompts.ts") == []
    # A slice from the end says the window just as well (the cut itself is reported too).
    sliced = src.replace("formatLatestMessages(ctx.count)", "ctx.history.slice(-8).join('\\n')")
    assert (3, "PL303") in _codes(sliced, "prompts.ts")


def test_conversation_length_and_newest_speaker_in_a_system_message() -> None:
    src = (
        "export function build(thread: Thread, history: Msg[]) {\n"
        "  let speaker = null\n"
        "  for (let i = thread.messages.length - 1; i >= 0; i--) {\n"
        "    const m = thread.messages[i]\n"
        "    if (m.user) { speaker = m.user; break }\n"
        "  }\n"
        "  const info = `This thread has ${thread.messages.length} messages.`\n"
        "  return [\n"
        "    { role: 'system', content: getSystemPrompt(speaker) },\n"
        "    { role: 'system', content: info },\n"
        "    ...history,\n"
        "  ]\n"
        "}\n"
    )
    assert _codes(src, "context.js") == [(7, "PL304"), (9, "PL304")]
    # The twin states the bot's own name and the thread's channel: set once per thread.
    quiet = src.replace("speaker = m.user;", "").replace(
        "${thread.messages.length} messages", "${thread.channel} as its channel"
    )
    quiet = quiet.replace("getSystemPrompt(speaker)", "getSystemPrompt(thread.botName)")
    assert _codes(quiet, "context.js") == []


def test_fetched_web_content_of_the_request_state_in_the_system_instruction() -> None:
    src = (
        "export const node = (base: string) => async (state: State) => {\n"
        "  let instruction = base\n"
        "  if (state.webContent) {\n"
        "    instruction += `\\n\\n[SOURCE]\\n${state.webContent}`\n"
        "  }\n"
        "  return ai.models.generateContent({\n"
        "    model: 'gemini-2.5-flash',\n"
        "    contents: state.messages,\n"
        "    config: { systemInstruction: instruction },\n"
        "  })\n"
        "}\n"
    )
    assert _codes(src, "generator.ts") == [(4, "PL304")]
    quiet = src.replace("state.webContent", "state.styleGuide")
    assert _codes(quiet, "generator.ts") == []


def test_tool_list_switched_by_a_flag_from_the_request_messages() -> None:
    src = (
        "export async function generate(state: State) {\n"
        "  const historyHasImage = state.messages.some((m) => m.image)\n"
        "  let useSearch = !historyHasImage\n"
        "  if (state.intent === 'medical') {\n"
        "    useSearch = true\n"
        "  }\n"
        "  return ai.models.generateContent({\n"
        "    model: 'gemini-2.5-flash',\n"
        "    contents: state.messages,\n"
        "    config: {\n"
        "      systemInstruction: SYSTEM,\n"
        "      tools: useSearch ? [{ googleSearch: {} }] : undefined,\n"
        "    },\n"
        "  })\n"
        "}\n"
    )
    assert _codes(src, "generator.ts") == [(12, "PL302")]
    # A flag handed in as the conversation's setting is one choice for all its turns.
    quiet = (
        src.replace("  const historyHasImage = state.messages.some((m) => m.image)\n", "")
        .replace("let useSearch = !historyHasImage", "let useSearch = state.settings.search")
        .replace(
            "  if (state.intent === 'medical') {\n    useSearch = true\n  }\n",
            "",
        )
    )
    assert _codes(quiet, "generator.ts") == []
    # Nor is what the model supports: fixed for the conversation's model.
    model = quiet.replace("state.settings.search", "state.model.supportsImages")
    assert _codes(model, "generator.ts") == []


def test_clock_settings_and_week_fields_are_not_the_moment() -> None:
    src = (
        "export function buildSystemPrompt(ctx: Ctx): string {\n"
        "  const dateInfo = getDateInfo()\n"
        "  const plan = `## This week (${dateInfo.isoWeek})`\n"
        "  return `Timezone: ${dateInfo.timezone}\\n${plan}\\nToday: ${dateInfo.dayOfWeek}`\n"
        "}\n"
    )
    # Only the day is a clock reading that moves within the week.
    assert _codes(src, "prompts.ts") == [(4, "PL102")]
    quiet = src.replace("\\nToday: ${dateInfo.dayOfWeek}", "")
    assert _codes(quiet, "prompts.ts") == []


def test_settings_read_again_by_an_argless_call_are_not_retrieved() -> None:
    src = (
        "export function buildSystemPrompt(query: string): string {\n"
        "  const integrationContext = buildIntegrationContext()\n"
        "  return `You are a coach.\\n${integrationContext}`\n"
        "}\n"
    )
    assert _codes(src, "prompts.ts") == []
    # Found for the question, it is retrieved for this request.
    asked = src.replace("buildIntegrationContext()", "searchContext(query)")
    assert _codes(asked, "prompts.ts") == [(3, "PL304")]


def test_a_logged_row_of_the_prompt_is_no_prompt() -> None:
    src = (
        "export async function notify(db: Db, systemPrompt: string, userPrompt: string) {\n"
        "  await db.from('ai_interactions').insert({\n"
        "    request_prompt: systemPrompt + '\\n\\n' + userPrompt,\n"
        "  })\n"
        "}\n"
    )
    assert _codes(src, "notify.ts") == []
    sent = src.replace(".from('ai_interactions').insert(", ".chat(").replace(
        "request_prompt:", "system:"
    )
    assert _codes(sent, "notify.ts") == [(3, "PL304")]


def test_a_path_named_for_the_prompt_is_no_prompt_text() -> None:
    # Where the prompt file lies (under the process's working directory) is not its text.
    src = (
        "export async function POST(req: Request) {\n"
        "  const lesson = await req.json()\n"
        "  const promptPath = resolve(process.cwd(), 'lessons', 'intro.md')\n"
        "  const systemPrompt = readFileSync(promptPath, 'utf-8')\n"
        "  return client.chat.completions.create({\n"
        "    model: 'gpt-4o',\n"
        "    messages: [{ role: 'system', content: systemPrompt }, ...lesson.history],\n"
        "  })\n"
        "}\n"
    )
    assert _codes(src, "route.ts") == []
    # The working directory written into the prompt's text is reported.
    text = src.replace("readFileSync(promptPath, 'utf-8')", "`Work in ${process.cwd()}.`")
    assert _codes(text, "route.ts") == [(4, "PL105")]
