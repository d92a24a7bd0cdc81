"""The twelfth TypeScript pass: values that are no clock, working directory or conversation
prefix where they are read. `Date.UTC(y, m, d)` is the moment its arguments name; a file's
name is not the working directory its path starts from; an image model's prompt and a page
of rendered prompts are no chat request's prefix; a builder that returns a fresh system and
user pair makes a one-shot request. Each with the near misses that stay reported."""

from __future__ import annotations

import re

from prefixlock.policies.engine import lint_source
from tests.helpers.lintfind import line_codes, lines_of

_BOUNDS = (
    "function bounds(dateStr) {\n"
    "  const [y, m, d] = dateStr.split('-').map(Number)\n"
    "  const start = new Date(Date.UTC(y, m - 1, d, -8, 0, 0, 0))\n"
    "  return { startAt: start.toISOString() }\n"
    "}\n"
    "export async function answer(client, dateStr, history) {\n"
    "  const b = bounds(dateStr)\n"
    "  const system = `You summarise the day from ${b.startAt}.`\n"
    "  return client.chat.completions.create({\n"
    "    messages: [{ role: 'system', content: system }, ...history],\n"
    "  })\n"
    "}\n"
)


def test_a_date_built_from_given_parts_reads_no_clock() -> None:
    assert line_codes(_BOUNDS, "day.ts") == []


def test_a_date_parsed_from_a_given_text_reads_no_clock() -> None:
    parsed = _BOUNDS.replace("Date.UTC(y, m - 1, d, -8, 0, 0, 0)", "Date.parse(`${y}-${m}-${d}`)")
    assert line_codes(parsed, "day.ts") == []


def test_the_clock_in_place_of_the_given_parts_stays_reported() -> None:
    assert lines_of(
        _BOUNDS.replace("Date.UTC(y, m - 1, d, -8, 0, 0, 0)", "Date.now()"), "PL101", "day.ts"
    ) == [8]
    assert lines_of(
        _BOUNDS.replace("new Date(Date.UTC(y, m - 1, d, -8, 0, 0, 0))", "new Date()"),
        "PL101",
        "day.ts",
    ) == [8]


def test_a_clock_read_handed_to_date_utc_stays_reported() -> None:
    year = _BOUNDS.replace("Date.UTC(y,", "Date.UTC(new Date().getFullYear(),")
    assert lines_of(year, "PL101", "day.ts") == [8]


_SKILLS = (
    'import { join, basename } from "path"\n'
    'import { readdirSync, readFileSync, existsSync } from "fs"\n'
    "function skillIndex(): string {\n"
    '  const dir = join(process.cwd(), "playground")\n'
    "  const out: string[] = []\n"
    "  for (const entry of readdirSync(dir).sort()) {\n"
    '    const file = join(dir, entry, "SKILL.md")\n'
    "    if (!existsSync(file)) continue\n"
    '    const text = readFileSync(file, "utf-8")\n'
    '    out.push(`- ${entry}: ${file.split("/").pop()} ${text.slice(0, 80)}`)\n'
    "  }\n"
    '  return out.join("\\n")\n'
    "}\n"
    "const SYSTEM_PROMPT = `You are a bot.\\n${skillIndex()}`\n"
    "export async function reply(client, history) {\n"
    "  return client.messages.create({ system: SYSTEM_PROMPT, messages: history })\n"
    "}\n"
)


def _filetree_origins(text: str) -> list[str]:
    """What each file-tree finding names as the value's origin (`readdirSync`)."""
    found = [
        re.search(r"filetree value \(([\w.]+)", f.message)
        for f in lint_source(text, "skills.ts")
        if f.code == "PL105"
    ]
    return [m.group(1) for m in found if m is not None]


def test_a_file_name_at_a_working_directory_path_is_not_the_working_directory() -> None:
    # The listing itself is still a file-tree value; the working directory is not reported.
    assert _filetree_origins(_SKILLS) == ["readdirSync"]
    named = _SKILLS.replace('file.split("/").pop()', "basename(file)")
    assert _filetree_origins(named) == ["readdirSync"]


def test_the_whole_path_at_the_working_directory_stays_reported() -> None:
    whole = _SKILLS.replace('file.split("/").pop()', "file")
    assert _filetree_origins(whole) == ["process.cwd"]
    counted = _SKILLS.replace('file.split("/").pop()', 'file.split("/").length')
    assert _filetree_origins(counted) == ["process.cwd"]


def test_the_unsorted_listing_stays_reported_beside_the_file_names() -> None:
    assert lines_of(_SKILLS.replace(".sort()", ""), "PL203", "skills.ts") == [14]


_IMAGE = (
    "export async function picture(client, page) {\n"
    "  const stamp = `anon_${Date.now()}_${Math.random()}`\n"
    "  const imagePrompt = await describePage(page, stamp)\n"
    "  return client.images.generate({ prompt: imagePrompt })\n"
    "}\n"
)


def test_an_image_models_prompt_is_no_chat_prefix() -> None:
    assert line_codes(_IMAGE, "image.ts") == []


def test_a_system_prompt_for_a_picture_chat_stays_reported() -> None:
    chat = _IMAGE.replace("imagePrompt", "imageSystemPrompt")
    assert lines_of(chat, "PL101", "image.ts") == [3]


_RECORD = (
    "export async function report(env, items) {\n"
    "  const stamp = new Date().toISOString()\n"
    "  const system = 'You write the daily report.'\n"
    "  const out = await callChatAPI(env, items.join(), system)\n"
    "  let promptsMarkdownContent = `# Prompts of ${stamp}\\n`\n"
    "  promptsMarkdownContent += `## System\\n${system}\\n`\n"
    "  return generatePageHtml(out, promptsMarkdownContent)\n"
    "}\n"
)


def test_a_markdown_record_of_the_prompts_sent_is_no_prefix() -> None:
    assert line_codes(_RECORD, "report.ts") == []
    assert line_codes(_RECORD.replace("promptsMarkdownContent", "promptsHtml"), "report.ts") == []


def test_a_record_not_named_for_its_rendering_stays_reported() -> None:
    plain = _RECORD.replace("promptsMarkdownContent", "promptsContent")
    assert lines_of(plain, "PL101", "report.ts") == [5]


def test_one_prompt_written_in_markdown_stays_reported() -> None:
    one = _RECORD.replace("promptsMarkdownContent", "promptMarkdown")
    assert lines_of(one, "PL101", "report.ts") == [5]


_ANSWER = (
    "export const ANSWER_SYSTEM_PROMPT = `Answer from the context only.\n"
    "Context:\n"
    "{{retrieved_context}}`\n"
    "export function buildAnswerPrompt(context: string, question: string) {\n"
    "  return [\n"
    "    {\n"
    "      role: 'system',\n"
    "      content: ANSWER_SYSTEM_PROMPT.replace('{{retrieved_context}}', context),\n"
    "    },\n"
    "    { role: 'user', content: question },\n"
    "  ]\n"
    "}\n"
)


def test_a_returned_system_and_user_pair_is_a_one_shot_request() -> None:
    assert line_codes(_ANSWER, "prompts.ts") == []
    written = _ANSWER.replace(
        "ANSWER_SYSTEM_PROMPT.replace('{{retrieved_context}}', context)",
        "`Answer from: ${context}. Asked: ${question}`",
    ).replace("{{retrieved_context}}`", "`")
    assert line_codes(written, "prompts.ts") == []


def test_a_returned_pair_spread_before_the_history_stays_reported() -> None:
    spread = _ANSWER + (
        "export async function ask(ai, c, q, history) {\n"
        "  return ai.chat([...buildAnswerPrompt(c, q), ...history])\n"
        "}\n"
    )
    assert line_codes(spread, "prompts.ts") == [(1, "PL304"), (8, "PL304")]
    grown = _ANSWER + (
        "export async function ask(ai, c, q, history) {\n"
        "  return ai.chat(buildAnswerPrompt(c, q).concat(history))\n"
        "}\n"
    )
    assert line_codes(grown, "prompts.ts") == [(1, "PL304"), (8, "PL304")]


def test_a_returned_system_message_before_the_history_stays_reported() -> None:
    kept = _ANSWER.replace("{ role: 'user', content: question },", "...history,").replace(
        "question: string)", "question: string, history)"
    )
    assert line_codes(kept, "prompts.ts") == [(1, "PL304"), (8, "PL304")]


_ROWS = (
    "export async function digest(client, db, history) {\n"
    "  const stamp = new Date().toISOString()\n"
    "  const result = await db.prepare('SELECT title FROM items WHERE at <= ?').bind(stamp).all()\n"
    "  const titles = result.results.map((r) => r.title).join('\\n')\n"
    "  const system = `You digest the news.\\n${titles}`\n"
    "  return client.chat.completions.create({\n"
    "    messages: [{ role: 'system', content: system }, ...history],\n"
    "  })\n"
    "}\n"
)


def test_rows_read_by_a_prepared_statement_are_not_its_bound_values() -> None:
    assert line_codes(_ROWS, "news.ts") == []


def test_a_clock_in_the_statements_text_stays_reported() -> None:
    # Not a placeholder's value: the statement written with the clock reading in it.
    inline = _ROWS.replace(
        "'SELECT title FROM items WHERE at <= ?'", "`SELECT title, ${stamp} FROM items`"
    )
    assert lines_of(inline, "PL101", "news.ts") == [4]


def test_values_handed_to_a_call_that_is_no_statement_are_kept() -> None:
    assert lines_of(_ROWS.replace("db.prepare(", "db.format("), "PL101", "news.ts") == [4]
    assert lines_of(_ROWS.replace(".bind(stamp).all()", ".all(stamp)"), "PL101", "news.ts") == [4]


_SUMMARY = (
    "function pickSummaryContext(messages: ChatMessage[], fallback: string): string {\n"
    "  const recent = messages.slice(-6)\n"
    "  const context = recent.map((m) => `${m.role}: ${m.content}`).join('\\n')\n"
    "  return context || fallback\n"
    "}\n"
    "export async function summarise(messages: ChatMessage[]) {\n"
    "  const prompt = `Summarise:\\n${pickSummaryContext(messages, '')}`\n"
    "  return callOllama([{ role: 'user', content: prompt }])\n"
    "}\n"
)


def test_recent_turns_quoted_as_text_for_a_summary_are_no_window() -> None:
    assert line_codes(_SUMMARY, "summary.ts") == []


def test_the_same_cut_in_a_function_not_named_for_a_side_task_stays_reported() -> None:
    plain = _SUMMARY.replace("pickSummaryContext", "pickContext")
    assert lines_of(plain, "PL303", "summary.ts") == [2]


def test_recent_turns_kept_as_messages_for_a_summary_stay_reported() -> None:
    kept = _SUMMARY.replace(".map((m) => `${m.role}: ${m.content}`).join('\\n')", "")
    assert lines_of(kept, "PL303", "summary.ts") == [2]
    sent = _SUMMARY.replace("  return context || fallback\n", "  send(recent)\n  return context\n")
    assert lines_of(sent, "PL303", "summary.ts") == [2]


_MOVED = (
    "export async function reply(\n"
    "  userMessage: string,\n"
    "  chatHistory: { role: string; content: string }[],\n"
    "  affectionLevel: number,\n"
    "): Promise<{ reply: string; affectionDelta: number }> {\n"
    "  const stage = affectionLevel < 40 ? 'cold' : 'warm'\n"
    "  const systemPrompt = `You are Livia.\n"
    "Closeness now: ${stage}\n"
    "Answer in JSON.`\n"
    "  const history = chatHistory.map((m) => `${m.role}: ${m.content}`).join('\\n')\n"
    "  const text = `${systemPrompt}\\n${history}\\n${userMessage}`\n"
    "  const result = await model.generateContent(text)\n"
    "  return JSON.parse(result.response.text())\n"
    "}\n"
)


def test_a_figure_the_reply_changes_written_ahead_of_the_history_is_reported() -> None:
    assert lines_of(_MOVED, "PL304", "livia.ts") == [8]
    direct = _MOVED.replace("Closeness now: ${stage}", "Closeness now: ${affectionLevel}/100")
    assert lines_of(direct, "PL304", "livia.ts") == [8]


def test_a_figure_the_reply_returns_no_change_of_is_not_reported() -> None:
    assert lines_of(_MOVED.replace("affectionDelta", "mood"), "PL304", "livia.ts") == []


def test_a_figure_in_a_one_text_request_with_no_history_is_not_reported() -> None:
    alone = _MOVED.replace("  chatHistory: { role: string; content: string }[],\n", "").replace(
        "  const history = chatHistory.map((m) => `${m.role}: ${m.content}`).join('\\n')\n", ""
    )
    assert lines_of(alone.replace("\\n${history}", ""), "PL304", "livia.ts") == []


def test_a_figure_in_the_users_prompt_is_not_reported() -> None:
    assert lines_of(_MOVED.replace("systemPrompt", "userPrompt"), "PL304", "livia.ts") == []


_NAMED = (
    "export async function ask(phone: string, name: string, history: Msg[], note: string) {\n"
    "  const messages = [\n"
    "    { role: 'system', content: 'You are a helpful assistant' },\n"
    "    { role: 'system', content: `The name of the user is ${name}` },\n"
    "    ...history,\n"
    "  ]\n"
    "  return openai.chat.completions.create({ model: 'gpt-4o', messages })\n"
    "}\n"
)


def test_the_name_of_whom_the_chat_is_with_is_the_same_every_request() -> None:
    assert line_codes(_NAMED, "ask.ts") == []
    user = _NAMED.replace("${name}", "${userName}").replace("name: string", "userName: string")
    assert line_codes(user, "ask.ts") == []


def test_other_text_handed_in_as_a_second_system_message_stays_reported() -> None:
    assert lines_of(_NAMED.replace("${name}", "${note}"), "PL304", "ask.ts") == [4]
    named = _NAMED.replace("${name}", "${fileName}").replace("name: string", "fileName: string")
    assert lines_of(named, "PL304", "ask.ts") == [4]
