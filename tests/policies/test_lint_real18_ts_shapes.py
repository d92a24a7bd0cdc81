"""Shapes real18's TypeScript halves missed or reported falsely (both halves development data
since the test half's one scoring), made general. Each test is fresh code in the real shape
with a near miss that must go the other way."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes

_SERVED = (
    "Deno.serve(async (req) => {\n"
    "  const { line, beat } = await req.json()\n"
    "  const systemPrompt = `You direct scenes.\\nThis scene's beat: ${beat}`\n"
    "  const r = await fetch(URL, { method: 'POST', body: JSON.stringify({\n"
    "    model: 'm',\n"
    "    messages: [\n"
    "      { role: 'system', content: systemPrompt },\n"
    "      { role: 'user', content: `Write a prompt for: ${line}` },\n"
    "    ],\n"
    "  }) })\n"
    "  return new Response(await r.text())\n"
    "})\n"
)


def test_a_served_handler_sending_one_shot_requests_is_not_a_conversation() -> None:
    # A handler registered at module level sends a system prompt and one user message: no
    # history sits behind the system prompt, so what the request brings may go into it.
    assert _codes(_SERVED, "index.ts") == []


def test_a_served_handler_replaying_a_history_still_reports() -> None:
    # The same handler with the client's history between the two: a conversation, and the
    # beat written into its system prompt moves the prefix ahead of that history.
    src = _SERVED.replace("const { line, beat }", "const { line, beat, history }").replace(
        "      { role: 'user', content: `Write",
        "      ...history,\n      { role: 'user', content: `Write",
    )
    assert (3, "PL304") in _codes(src, "index.ts")


_STORED = (
    "export async function POST(req: Request) {\n"
    "  const { id, text } = await req.json()\n"
    "  const { data: rows } = await db.from('chat_messages')\n"
    "    .select('role, content')\n"
    "    .eq('conversation_id', id)\n"
    "    .order('created_at', { ascending: true })\n"
    "    .limit(MAX_CONTEXT_MESSAGES)\n"
    "  const history = await loadHistory(id, MAX_HISTORY_MESSAGES)\n"
    "  return openai.chat.completions.create({ model: 'm', messages: [\n"
    "    { role: 'system', content: 'You help.' }, ...rows, ...history,\n"
    "    { role: 'user', content: text }] })\n"
    "}\n"
)


def test_the_oldest_rows_read_to_a_cap_are_a_stable_prefix() -> None:
    # Read oldest first, the cap keeps the same first rows on every turn: context is lost
    # past it, the cache is not. The loader beside it, with no order said, still reports.
    assert _codes(_STORED, "route.ts") == [(8, "PL303")]


def test_the_newest_rows_read_to_a_cap_still_report() -> None:
    for newest in ("{ ascending: false }", "'desc'"):
        src = _STORED.replace("{ ascending: true }", newest)
        assert _codes(src, "route.ts") == [(7, "PL303"), (8, "PL303")], newest
    # One key oldest first but a later one newest first: not all ascending, still a window.
    mixed = _STORED.replace(
        "    .limit(MAX", "    .order('id', { ascending: false })\n    .limit(MAX"
    )
    assert _codes(mixed, "route.ts") == [(8, "PL303"), (9, "PL303")]


_LOGGED = (
    "export async function answer(q: string, history: Msg[]) {\n"
    "  const systemTokens = await llm.countTokens(SYSTEM)\n"
    "  log('/chat tokens', { contextSystem: systemTokens, total: 4 })\n"
    "  return llm.chat({ model: 'm', messages: [{ role: 'system', content: SYSTEM },\n"
    "    ...history, { role: 'user', content: q }] })\n"
    "}\n"
)


def test_a_figure_handed_to_a_log_line_is_not_a_prompt() -> None:
    assert _codes(_LOGGED, "chat.ts") == []
    assert _codes(_LOGGED.replace("log('/chat tokens', ", "console.debug("), "chat.ts") == []


def test_the_same_figure_handed_to_the_request_still_reports() -> None:
    src = _LOGGED.replace("log('/chat tokens', ", "llm.configure(")
    assert [c for _, c in _codes(src, "chat.ts")] == ["PL106"]


_AFTER = (
    "import * as fs from 'fs'\n"
    "export async function chat(history: Msg[], q: string) {\n"
    "  const filesPrompt = 'The codebase says:\\n' + fs.readdirSync('src').join('\\n')\n"
    "  log('filesPrompt', filesPrompt, await llm.countTokens(filesPrompt))\n"
    "  const messages = [{ role: 'system', content: SYSTEM }, ...history]\n"
    "  messages.push({ role: 'function', name: 'memories', content: filesPrompt })\n"
    "  messages.push({ role: 'user', content: q })\n"
    "  return llm.chat({ model: 'm', messages })\n"
    "}\n"
)


def test_a_prompt_named_text_pushed_after_the_history_is_not_the_prefix() -> None:
    # The listing goes into a function message pushed behind the history (and is otherwise
    # measured and logged): no earlier byte of the prefix depends on its order.
    assert _codes(_AFTER, "chat-routes.ts") == []


def test_the_same_text_ahead_of_the_history_or_in_the_system_message_still_reports() -> None:
    system = _AFTER.replace("role: 'function', name: 'memories'", "role: 'system'")
    assert (3, "PL203") in _codes(system, "chat-routes.ts")
    ahead = _AFTER.replace(
        "{ role: 'system', content: SYSTEM }, ...history",
        "{ role: 'system', content: filesPrompt }, ...history",
    )
    assert (3, "PL203") in _codes(ahead, "chat-routes.ts")


_ROLES = (
    "import * as fs from 'fs'\n"
    "export function loadRoles(dir: string): Role[] {\n"
    "  const entries = fs.readdirSync(dir)\n"
    "  return entries.filter((f) => f.endsWith('.md')).map((fileName) => {\n"
    "    const name = fileName.replace(/\\.md$/, '')\n"
    "    const systemPrompt = readText(fileName) || `You are ${name}.`\n"
    "    return { name, systemPrompt }\n"
    "  })\n"
    "}\n"
)


def test_each_files_own_prompt_in_a_map_over_a_listing_is_one_item() -> None:
    # One role per file, its prompt that file's text: the listing orders the roles, no
    # prompt's bytes.
    assert _codes(_ROLES, "roles.ts") == []


def test_a_listing_accumulated_or_captured_into_a_prompt_still_reports() -> None:
    # Every name written into one prompt across the loop: the listing's order is its order.
    summed = (
        "import * as fs from 'fs'\n"
        "export function build(dir: string) {\n"
        "  let systemPrompt = 'Files:'\n"
        "  fs.readdirSync(dir).forEach((f) => { systemPrompt += `\\n${f}` })\n"
        "  return systemPrompt\n"
        "}\n"
    )
    assert (4, "PL203") in _codes(summed, "build.ts")
    # The whole listing read inside each item's prompt (it is not the collection mapped).
    captured = _ROLES.replace(
        "`You are ${name}.`", "`You are ${name}. Files: ${fs.readdirSync('.').join(', ')}`"
    )
    assert (6, "PL203") in _codes(captured, "roles.ts")


_TYPED = (
    "function applyWindow(all: ConversationMessage[]): ConversationMessage[] {\n"
    "  return all.length > WINDOW ? all.slice(-WINDOW) : all\n"
    "}\n"
    "export async function reply(rows: ConversationMessage[], system: string) {\n"
    "  return streamText({ model, system, messages: applyWindow(rows) })\n"
    "}\n"
)


def test_a_parameter_typed_as_messages_cut_from_the_end_is_a_window() -> None:
    assert _codes(_TYPED, "orchestrator.ts") == [(2, "PL303")]
    generic = _TYPED.replace("ConversationMessage[]", "Array<ChatMessage>")
    assert _codes(generic, "orchestrator.ts") == [(2, "PL303")]


def test_a_parameter_typed_as_other_lists_cut_from_the_end_is_not() -> None:
    for other in ("string[]", "Row[]", "Message"):
        src = _TYPED.replace("ConversationMessage[]", other)
        assert _codes(src, "orchestrator.ts") == [], other


_TOOL_CONTEXT = (
    "export function buildSystemPrompt({ language, toolContext }: Input = {}): string {\n"
    "  const toolSection = toolContext?.trim() ? `Tool context:\\n${toolContext.trim()}` : ''\n"
    "  return `You are Mochi.\\n${toolSection}`.trim()\n"
    "}\n"
)


def test_a_tools_fresh_context_in_the_system_prompt_reports() -> None:
    # What a tool fetched for this reply, written into the system prompt ahead of the history.
    assert _codes(_TOOL_CONTEXT, "chat.ts") == [(3, "PL304")]


def test_a_tool_catalogue_or_result_name_is_still_settled() -> None:
    # `toolsContext` (the tools on offer) and a `toolResults` record stay settled, as before.
    for name in ("toolsContext", "toolResults"):
        assert _codes(_TOOL_CONTEXT.replace("toolContext", name), "chat.ts") == [], name
    # Fixed text bound to the name is no fetch.
    fixed = _TOOL_CONTEXT.replace("({ language, toolContext }: Input = {})", "()").replace(
        "  const toolSection", "  const toolContext = 'Call tools.'\n  const toolSection"
    )
    assert _codes(fixed, "chat.ts") == []


_SHEET = (
    "export async function send(messages: Msg[], selectedRange?: string) {\n"
    "  const systemMessage = {\n"
    "    role: 'system' as const,\n"
    "    content: `You help with Excel.\\n${selectedRange ? `Selected: ${selectedRange}` : ''}`,\n"
    "  }\n"
    "  return client.chat.completions.create({\n"
    "    model: 'm', messages: [systemMessage, ...messages] })\n"
    "}\n"
)


def test_the_users_selection_in_a_document_app_in_the_system_prompt_reports() -> None:
    assert _codes(_SHEET, "useAI.ts") == [(2, "PL105"), (4, "PL105")]
    sheet = _SHEET.replace("selectedRange", "activeWorksheet")
    assert _codes(sheet, "useAI.ts") == [(2, "PL105"), (4, "PL105")]


def test_a_selection_that_is_a_setting_or_no_place_in_a_document_is_not() -> None:
    # A model picked in the settings, a range with no word of the user's current place.
    for name in ("selectedModel", "dateRange", "currentLanguage"):
        assert _codes(_SHEET.replace("selectedRange", name), "useAI.ts") == [], name


_STAMPS = (
    "function ago(stamp: number): string {\n"
    "  const minutes = Math.floor((Date.now() - stamp) / 60000)\n"
    "  return `${minutes} minutes ago`\n"
    "}\n"
    "export function withTimes(messageHistory: Msg[]): Msg[] {\n"
    "  const out = JSON.parse(JSON.stringify(messageHistory))\n"
    "  for (let i = 0; i < messageHistory.length; i++) {\n"
    "    const stamp = messageHistory[i].sentAt\n"
    "    messageHistory[i].content = messageHistory[i].content.replace('$$', ago(stamp))\n"
    "  }\n"
    "  return messageHistory\n"
    "}\n"
)


def test_earlier_messages_rewritten_with_the_time_elapsed_report() -> None:
    assert _codes(_STAMPS, "bot.ts") == [(9, "PL101")]


def test_earlier_messages_rewritten_without_a_clock_or_another_list_do_not() -> None:
    # The stored time written as it is: the same bytes on every request.
    fixed = _STAMPS.replace("ago(stamp)", "new Date(stamp).toISOString()")
    assert _codes(fixed, "bot.ts") == []
    # A list of reminders (no history) stamped with the time left.
    other = _STAMPS.replace("messageHistory", "reminders")
    assert _codes(other, "bot.ts") == []


_PREVIEW = (
    "export const reply = async (history: Msg[], currentTime?: string) => {\n"
    "  if (getSettings().preview) {\n"
    "    const msg = t('dev.preview_msg')\n"
    "    return msg.replace('{{time}}', currentTime || 'Unknown')\n"
    "  }\n"
    "  return ask(history)\n"
    "}\n"
)


def test_a_translated_ui_string_filled_through_a_local_is_no_prompt() -> None:
    assert _codes(_PREVIEW, "respond.ts") == []


def test_a_prompt_template_filled_through_a_local_still_reports() -> None:
    src = _PREVIEW.replace("t('dev.preview_msg')", "loadTemplate('reply')")
    assert _codes(src, "respond.ts") == [(4, "PL101")]


_PROFILE = (
    "import { buildSystemPrompt } from './prompts'\n"
    "export async function POST(request: Request) {\n"
    "  const { data: { user } } = await supabase.auth.getUser()\n"
    "  const { message } = await request.json()\n"
    "  const history = await loadHistory(user.id)\n"
    "  const petContext = await fetchPetContext(supabase, user.email)\n"
    "  const system = buildSystemPrompt(petContext)\n"
    "  return openai.chat.completions.create({ model: 'm', messages: [\n"
    "    { role: 'system', content: system }, ...history, { role: 'user', content: message }] })\n"
    "}\n"
)


def test_a_users_stored_records_read_by_their_identity_are_not_per_request() -> None:
    # Handed a client and the signed-in user's email: nothing of this request picks them.
    assert _codes(_PROFILE, "route.ts") == []


def test_what_a_call_handed_the_request_fetched_still_reports() -> None:
    src = _PROFILE.replace("fetchPetContext(supabase, user.email)", "fetchPetContext(message)")
    assert (7, "PL304") in _codes(src, "route.ts")
    query = _PROFILE.replace("fetchPetContext(supabase, user.email)", "fetchPetContext(query)")
    assert _codes(query, "route.ts") == [(7, "PL304")]


_IMAGES = (
    "export function Chat() {\n"
    "  const addSelectedImages = () => {\n"
    "    if (selectedImages.length === 0) return {}\n"
    "    return { images: selectedImages.map((image) => image.base64) }\n"
    "  }\n"
    "  const formatRequest = async () => {\n"
    "    const body = {\n"
    "      model: currentModelName,\n"
    "      messages: messagesRef.current.map((message) => {\n"
    "        return { role: message.role, content: message.content, ...addSelectedImages() }\n"
    "      }),\n"
    "    }\n"
    "    return fetch(addr, { method: 'POST', body: JSON.stringify(body) })\n"
    "  }\n"
    "}\n"
)


def test_what_the_new_message_attaches_spread_into_every_earlier_one_reports() -> None:
    assert _codes(_IMAGES, "Chat.tsx") == [(10, "PL303")]


def test_a_messages_own_attachments_or_a_list_of_other_things_do_not() -> None:
    # Each message keeps its own images (read from the item): the same bytes every request.
    own = _IMAGES.replace("...addSelectedImages()", "...imagesOf(message)")
    assert _codes(own, "Chat.tsx") == []
    # The images spread into each card of a gallery, no history.
    gallery = _IMAGES.replace("messagesRef.current.map", "cardsRef.current.map")
    assert _codes(gallery, "Chat.tsx") == []
