"""The reach gate (TypeScript): a window (PL303) or a volatile value (PL1xx, PL304) is
reported only where the linter sees it reach a model request, or cannot see where it goes;
not where every use of it stays in code that asks no model (printed by a CLI, answered to an
HTTP client, checked by a test). Each suppression has a twin that still reports the breaker:
the window sent, returned to a caller in another file that sends it, kept on state another
function sends, or exported with no caller in the project."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.lintfind import line_codes, ts_project_findings

_HISTORY_TS = (
    "type Message = { role: 'user' | 'assistant'; content: string };\n"
    "\n"
    "const history: Message[] = [];\n"
    "\n"
    "export function recordMessage(message: Message): void {\n"
    "  history.push(message);\n"
    "}\n"
    "\n"
    "export function recentHistory(): Message[] {\n"
    "  return history.slice(-20);\n"
    "}\n"
)

_PRINTED_TS = (
    "import { recentHistory } from './history';\n"
    "\n"
    "function main(): void {\n"
    "  for (const m of recentHistory()) {\n"
    "    console.log(`${m.role}: ${m.content}`);\n"
    "  }\n"
    "}\n"
    "\n"
    "main();\n"
)

_SENT_TS = (
    "import OpenAI from 'openai';\n"
    "import { recentHistory } from './history';\n"
    "\n"
    "const openai = new OpenAI();\n"
    "\n"
    "export async function answer(question: string) {\n"
    "  return openai.chat.completions.create({\n"
    "    model: 'gpt-4o',\n"
    "    messages: [\n"
    "      { role: 'system', content: 'You are terse.' },\n"
    "      ...recentHistory(),\n"
    "      { role: 'user', content: question },\n"
    "    ],\n"
    "  });\n"
    "}\n"
)


def test_a_window_only_a_cli_prints_is_not_reported(tmp_path: Path) -> None:
    found = ts_project_findings(tmp_path, {"history.ts": _HISTORY_TS, "cli.ts": _PRINTED_TS})
    assert ("history.ts", 10, "PL303") not in found


def test_a_window_returned_to_a_caller_in_another_file_that_sends_it(tmp_path: Path) -> None:
    found = ts_project_findings(tmp_path, {"history.ts": _HISTORY_TS, "chat.ts": _SENT_TS})
    assert ("history.ts", 10, "PL303") in found


def test_a_window_printed_by_one_caller_and_sent_by_another(tmp_path: Path) -> None:
    found = ts_project_findings(
        tmp_path, {"history.ts": _HISTORY_TS, "cli.ts": _PRINTED_TS, "chat.ts": _SENT_TS}
    )
    assert ("history.ts", 10, "PL303") in found


def test_an_exported_window_no_file_of_the_project_calls() -> None:
    # its callers are outside what the linter sees: kept
    assert (10, "PL303") in line_codes(_HISTORY_TS, "src/history.ts")


# The project's own helper named like a request (`sendToArchive`) that only formats text:
# its body, in its own file, asks nothing.
_ARCHIVE_TS = (
    "export function sendToArchive(lines: string[]): string {\n"
    "  return lines.map((line, i) => `${i + 1}. ${line}`).join('\\n');\n"
    "}\n"
)

_ARCHIVED_TS = (
    "import { recentHistory } from './history';\n"
    "import { sendToArchive } from './archive';\n"
    "\n"
    "function main(): void {\n"
    "  console.log(sendToArchive(recentHistory().map((m) => m.content)));\n"
    "}\n"
    "\n"
    "main();\n"
)


def test_a_window_handed_to_a_helper_named_for_sending_that_asks_nothing(
    tmp_path: Path,
) -> None:
    found = ts_project_findings(
        tmp_path,
        {"history.ts": _HISTORY_TS, "archive.ts": _ARCHIVE_TS, "cli.ts": _ARCHIVED_TS},
    )
    assert ("history.ts", 10, "PL303") not in found


def test_a_window_handed_to_a_helper_that_posts_it(tmp_path: Path) -> None:
    posting = (
        "export async function sendToArchive(lines: string[]): Promise<void> {\n"
        "  await fetch('https://llm.example/v1/chat', {\n"
        "    method: 'POST',\n"
        "    body: JSON.stringify({ lines }),\n"
        "  });\n"
        "}\n"
    )
    found = ts_project_findings(
        tmp_path, {"history.ts": _HISTORY_TS, "archive.ts": posting, "cli.ts": _ARCHIVED_TS}
    )
    assert ("history.ts", 10, "PL303") in found


# A Next.js route that answers the client with the newest stored messages of a chat.
_ROUTE_TS = (
    "import Database from 'better-sqlite3';\n"
    "\n"
    "const db = new Database('chat.db');\n"
    "\n"
    "function recentMessages(chatId: string) {\n"
    "  const messages = db.prepare('SELECT role, content FROM messages WHERE chat = ?')"
    ".all(chatId);\n"
    "  return messages.slice(-50);\n"
    "}\n"
    "\n"
    "export async function GET(req: Request) {\n"
    "  const chatId = new URL(req.url).searchParams.get('chat') ?? '';\n"
    "  return Response.json({ messages: recentMessages(chatId) });\n"
    "}\n"
)


def test_a_window_a_get_route_answers_to_the_client_is_not_reported() -> None:
    assert (7, "PL303") not in line_codes(_ROUTE_TS, "app/api/messages/route.ts")


def test_the_same_window_sent_by_a_post_route() -> None:
    sent = _ROUTE_TS.replace(
        "import Database from 'better-sqlite3';\n",
        "import Database from 'better-sqlite3';\nimport OpenAI from 'openai';\n",
    ) + (
        "\n"
        "export async function POST(req: Request) {\n"
        "  const { chatId, question } = await req.json();\n"
        "  const reply = await new OpenAI().chat.completions.create({\n"
        "    model: 'gpt-4o',\n"
        "    messages: [...recentMessages(chatId), { role: 'user', content: question }],\n"
        "  });\n"
        "  return Response.json(reply);\n"
        "}\n"
    )
    assert (8, "PL303") in line_codes(sent, "app/api/messages/route.ts")


# A window kept on module state by a listener that asks nothing; another function of the file
# sends that state: what one function keeps, another may send.
_KEPT_TS = (
    "import OpenAI from 'openai';\n"
    "import { EventEmitter } from 'node:events';\n"
    "\n"
    "const bus = new EventEmitter();\n"
    "let history: { role: 'user' | 'assistant'; content: string }[] = [];\n"
    "\n"
    "function remember(content: string): void {\n"
    "  history.push({ role: 'user', content });\n"
    "  history = history.slice(-20);\n"
    "}\n"
    "\n"
    "bus.on('message', (text: string) => remember(text));\n"
    "\n"
    "export async function answer() {\n"
    "  return new OpenAI().chat.completions.create({ model: 'gpt-4o', messages: history });\n"
    "}\n"
)


def test_a_window_kept_on_state_another_function_sends() -> None:
    assert (9, "PL303") in line_codes(_KEPT_TS, "src/bus.ts")


def test_a_window_kept_on_state_nothing_in_the_file_sends() -> None:
    quiet = _KEPT_TS.replace("import OpenAI from 'openai';\n", "").replace(
        "export async function answer() {\n"
        "  return new OpenAI().chat.completions.create({ model: 'gpt-4o', messages: history });\n"
        "}\n",
        "function count(): number {\n  return history.length;\n}\n\nbus.on('count', count);\n",
    )
    assert (8, "PL303") not in line_codes(quiet, "src/bus.ts")


# A window handed to an object the function is given (`agent.process(...)`): what that object
# does is not seen here, so the window may be sent.
_HANDED_TS = (
    "type Message = { role: 'user' | 'assistant'; content: string };\n"
    "type Agent = { process(messages: Message[]): Promise<void> };\n"
    "\n"
    "const history: Message[] = [];\n"
    "\n"
    "function recentHistory(): Message[] {\n"
    "  return history.slice(-10);\n"
    "}\n"
    "\n"
    "async function step(agent: Agent): Promise<void> {\n"
    "  await agent.process(recentHistory());\n"
    "}\n"
    "\n"
    "step({ process: async () => {} });\n"
)


def test_a_window_handed_to_an_object_given_to_its_caller() -> None:
    assert (7, "PL303") in line_codes(_HANDED_TS, "src/loop.ts")


def test_the_same_window_only_counted_for_a_log() -> None:
    printed = _HANDED_TS.replace(
        "await agent.process(recentHistory());", "console.log(recentHistory().length);"
    )
    assert (7, "PL303") not in line_codes(printed, "src/loop.ts")


def test_a_window_handed_to_a_model_client_s_call_with_options_made_elsewhere() -> None:
    # `openai.chat.completions.create(body)`: no request options in sight, but the client's
    # path names a model's chat: the window may be sent.
    sent = _HANDED_TS.replace(
        "type Agent = { process(messages: Message[]): Promise<void> };\n",
        "import OpenAI from 'openai';\n",
    ).replace(
        "async function step(agent: Agent): Promise<void> {\n"
        "  await agent.process(recentHistory());\n"
        "}\n"
        "\n"
        "step({ process: async () => {} });\n",
        "const openai = new OpenAI();\n"
        "const options = { model: 'gpt-4o' };\n"
        "\n"
        "async function step(): Promise<void> {\n"
        "  const body: Record<string, unknown> = { ...options };\n"
        "  body.messages = recentHistory();\n"
        "  await openai.chat.completions.create(body);\n"
        "}\n"
        "\n"
        "step();\n",
    )
    assert (7, "PL303") in line_codes(sent, "src/loop.ts")
