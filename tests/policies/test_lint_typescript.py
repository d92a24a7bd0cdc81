"""The TypeScript/JavaScript front end on the shapes real agents use: `prefixlock lint` on a
project, values followed across files, template literals, `+=`, joined arrays, `.replace` fills,
and the sinks of the SDKs and frameworks (Anthropic and OpenAI SDKs, the Vercel AI SDK,
LangChain.js, OpenAI Agents)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlock.cli.main import main
from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source

PROMPT_TS = """import { getGitStatus } from "./git";

export const SYSTEM_PROMPT = `You are a coding agent working in this repository.
Today's date: ${new Date().toISOString().split("T")[0]}

Current git status:
${getGitStatus()}
`;
"""
GIT_TS = """import { execSync } from "node:child_process";

export function getGitStatus(): string {
  try {
    return execSync("git status --porcelain", { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}
"""


def test_lint_command_on_a_typescript_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "prompt.ts").write_text(PROMPT_TS)
    (src / "git.ts").write_text(GIT_TS)
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "--no-source", "."]) == 1
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if "PL10" in ln]
    # The date where it enters the template (line 4) and the git status (line 7), each naming
    # the line that makes the value and the line of the sink (the constant, line 3).
    assert lines[0].startswith("src/prompt.ts:4:") and "PL102" in lines[0]
    assert "line 4" in lines[0] and "`SYSTEM_PROMPT` (line 3)" in lines[0]
    assert lines[1].startswith("src/prompt.ts:7:") and "PL104" in lines[1]
    assert "line 5 of" in lines[1] and "git.ts" in lines[1]
    assert "`SYSTEM_PROMPT` (line 3)" in lines[1]
    assert len(lines) == 2


def _codes(ts: str, path: str = "agent.ts") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(ts, path)]


def test_value_followed_into_another_module_by_its_value_not_its_name(tmp_path: Path) -> None:
    # Neither name says "git" or "date": only following the value finds them.
    (tmp_path / "helpers.ts").write_text(
        'import { execSync } from "child_process";\n'
        "export const describeChanges = () =>\n"
        '  execSync("git diff --stat").toString();\n'
        "export function stamp(): string {\n"
        "  const d = new Date();\n"
        "  return d.toLocaleDateString();\n"
        "}\n"
    )
    (tmp_path / "agent.ts").write_text(
        'import { describeChanges, stamp as label } from "./helpers.js";\n'
        "const parts: string[] = [];\n"
        'parts.push("You are a reviewer.");\n'
        "parts.push(`Changes: ${describeChanges()}`);\n"
        "let systemPrompt = parts.join('\\n');\n"
        "systemPrompt += `\\nAs of ${label()}`;\n"
    )
    result = lint_paths([str(tmp_path)], LintConfig(), jobs=1)
    assert [(Path(f.path).name, f.line, f.code) for f in result.findings] == [
        ("agent.ts", 4, "PL104"),
        ("agent.ts", 6, "PL102"),
    ]


def test_template_literal_plus_and_replace_fills() -> None:
    ts = (
        'const BASE = "You are Bolt.";\n'
        "const today = new Date();\n"
        "let sys = BASE;\n"
        'sys += "\\nCurrent date: " + today.toDateString();\n'
        "const messages = [{ role: 'system', content: sys }];\n"
        'const TEMPLATE = "Date: {{CURRENT_DATE}}\\nRules...";\n'
        "export const instructions = TEMPLATE.replace(\n"
        '  "{{CURRENT_DATE}}",\n'
        "  new Date().toISOString(),\n"
        ");\n"
        "const userPrompt = `Now: ${Date.now()}`;\n"
    )
    # `sys` holds the date through `+=` and becomes the system message; the slot fill is
    # reported once; the user's turn is not a prefix.
    assert _codes(ts) == [(4, "PL102"), (9, "PL101")]


def test_sdk_and_framework_sinks() -> None:
    ts = """import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { streamText, generateText } from "ai";
import { SystemMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { Agent } from "@openai/agents";
import { randomUUID } from "node:crypto";
const now = () => new Date().toISOString();
await new Anthropic().messages.create({ model: "m", system: `Time ${now()}`, messages: [] });
await new OpenAI().chat.completions.create({
  model: "m",
  messages: [{ role: "developer", content: "Run " + randomUUID() },
    { role: "user", content: now() }],
});
streamText({ model, system: `It is ${new Date().toLocaleDateString()}`, messages });
generateText({ model, system: "Plain.", prompt: `Time ${now()}` });
const msgs = [new SystemMessage(`Clock ${Date.now()}`), new HumanMessage(`Clock ${Date.now()}`)];
const tpl = ChatPromptTemplate.fromMessages([["system", `Session ${Math.random()}`],
  ["human", "{q}"]]);
const agent = new Agent({ name: "a", instructions: `Date ${new Date().toDateString()}` });
"""
    # `streamText` is handed a conversation (`messages`): with one `prompt` instead it is a
    # one-off request, whose date breaks no cache (tests/policies/test_lint_one_off.py).
    assert _codes(ts) == [
        (9, "PL101"),
        (12, "PL103"),
        (15, "PL102"),
        (17, "PL101"),
        (18, "PL103"),
        (20, "PL102"),
    ]


def test_orders_of_tools_and_prompts() -> None:
    ts = (
        'import { readdirSync } from "fs";\n'
        'import fg from "fast-glob";\n'
        "const skills = readdirSync('skills');\n"
        "const sortedSkills = readdirSync('skills').sort();\n"
        "const files = await fg(['**/*.md']);\n"
        "files.sort();\n"
        "const systemPrompt = `Skills: ${skills.join(', ')}`;\n"
        "const instructions = `Skills: ${sortedSkills.join(', ')} ${files.join(',')}`;\n"
        "const tools = Object.keys(process.env).map((k) => ({ name: k }));\n"
    )
    assert _codes(ts) == [(7, "PL105"), (7, "PL203"), (8, "PL105"), (8, "PL105"), (9, "PL201")]


def test_editor_state_and_runtime_in_a_vscode_extension_prompt() -> None:
    ts = (
        'import * as vscode from "vscode";\n'
        "function getSystemPrompt(): string {\n"
        "  const open = vscode.window.visibleTextEditors.map((e) => e.document.fileName);\n"
        "  return `Open files: ${open.join(', ')}\\npid ${process.pid}`;\n"
        "}\n"
        "function helper() { return `${new Date()}`; }\n"
    )
    assert _codes(ts) == [(4, "PL105"), (4, "PL106")]


def test_typescript_negatives() -> None:
    ts = (
        "const re = /`${new Date()}`/;\n"
        "// const SYSTEM_PROMPT = `${Date.now()}`;\n"
        "const SYSTEM_PROMPT = `You are ${NAME}. Work in ${process.cwd()}.`;\n"
        "const userMessage = `Today is ${new Date().toDateString()}`;\n"
        "const messages = [{ role: 'system', content: SYSTEM_PROMPT },"
        " { role: 'user', content: `${Date.now()}` }];\n"
        "const onUpdatePendingPrompt = async () => ({ prompts: [`${Date.now()}`] });\n"
        "const log = { system: 'x', at: Date.now() };\n"
        "const timeLimit = 30;\n"
        "const instructions = `Stop after ${timeLimit} s.`;\n"
    )
    assert _codes(ts) == []


def test_tsx_and_javascript_files() -> None:
    tsx = (
        "export function Chat() {\n"
        "  const systemPrompt = `Today ${new Date().toLocaleDateString()}`;\n"
        "  return <div title={systemPrompt}>hi</div>;\n"
        "}\n"
    )
    assert _codes(tsx, "chat.tsx") == [(2, "PL102")]
    js = "const x = require('./x');\nmodule.exports.SYSTEM = 'It is ' + Date.now();\n"
    assert _codes(js, "agent.cjs") == [(2, "PL101")]


def test_walk_reads_dot_folders_and_skips_vcs_caches_and_virtualenvs(tmp_path: Path) -> None:
    bad = "export const SYSTEM_PROMPT = `Now ${Date.now()}`;\n"
    for folder in ("app/lib/.server", ".git", "node_modules/x", ".venv/lib", "env", ".next"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "llm.ts").write_text(bad)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    result = lint_paths([str(tmp_path)], LintConfig(), jobs=1)
    assert [Path(f.path).relative_to(tmp_path).as_posix() for f in result.findings] == [
        "app/lib/.server/llm.ts"
    ]


def test_tools_chosen_per_mode_and_side_requests() -> None:
    ts = (
        'import Anthropic from "@anthropic-ai/sdk";\n'
        "const client = new Anthropic();\n"
        "const READ_ONLY = [readTool, grepTool];\n"
        "const ALL = [...READ_ONLY, editTool, bashTool];\n"
        "const TOOLS_BY_MODE: Record<string, Tool[]> = { plan: READ_ONLY, act: ALL };\n"
        "export async function turn(mode: string, system: string, messages: Msg[]) {\n"
        "  const tools = TOOLS_BY_MODE[mode];\n"
        '  return client.messages.create({ model: "m", system, tools, messages });\n'
        "}\n"
        "export async function summarizeConversation(messages: Msg[]) {\n"
        "  return client.messages.create({\n"
        '    model: "m",\n'
        '    system: "Summarize the conversation so far in five bullet points.",\n'
        "    messages,\n"
        "  });\n"
        "}\n"
        "export async function main(messages: Msg[]) {\n"
        "  const tools = ALL;\n"
        '  return client.messages.create({ model: "m", system: "You code.", tools, messages });\n'
        "}\n"
    )
    # The mode picks the tools (the first part of the prefix); the summariser sends the
    # history under its own system prompt; the main turn is fine.
    assert _codes(ts) == [(7, "PL302"), (11, "PL305")]


def test_history_filled_backwards_while_a_token_budget_lasts() -> None:
    # chatbot-ui's build-prompt.ts shape: newest first, `unshift` while tokens remain.
    ts = (
        "export function build(chatMessages: Msg[], remainingTokens: number) {\n"
        "  const finalMessages = [];\n"
        "  for (let i = chatMessages.length - 1; i >= 0; i--) {\n"
        "    const messageTokens = count(chatMessages[i].content);\n"
        "    if (messageTokens <= remainingTokens) {\n"
        "      remainingTokens -= messageTokens;\n"
        "      finalMessages.unshift(chatMessages[i]);\n"
        "    } else break;\n"
        "  }\n"
        "  return finalMessages;\n"
        "}\n"
        "export function render(rows: Row[]) {\n"
        "  for (let i = rows.length - 1; i >= 0; i--) { print(rows[i]); }\n"
        "}\n"
    )
    assert _codes(ts) == [(3, "PL303")]


def test_history_cut_from_a_moving_index_but_not_from_a_fixed_one() -> None:
    ts = (
        "export function cut(processedMessages: Msg[], props: Props) {\n"
        "  const a = processedMessages.slice(props.messageSliceId);\n"
        "  const b = processedMessages.slice(1);\n"
        "  return [a, b];\n"
        "}\n"
    )
    assert _codes(ts) == [(2, "PL303")]


def test_system_prompt_chosen_by_a_mode() -> None:
    ts = (
        'import { streamText } from "ai";\n'
        "export function send(chatMode: string, messages: Msg[], model: Model) {\n"
        "  return streamText({\n"
        "    model,\n"
        '    system: chatMode === "build" ? buildPrompt : discussPrompt(),\n'
        "    messages,\n"
        "  });\n"
        "}\n"
        "export const answer = (ok: boolean) => streamText({ system: ok ? A : B, messages: [] });\n"
    )
    assert _codes(ts) == [(5, "PL302")]


def test_working_directory_read_per_request_but_not_at_load() -> None:
    ts = (
        "const ROOT = process.cwd();\n"
        "const SYSTEM_PROMPT = `Work in ${ROOT}.`;\n"
        "export function getSystemPrompt(): string {\n"
        "  return `You are in ${process.cwd()}.`;\n"
        "}\n"
    )
    assert _codes(ts) == [(4, "PL105")]


def test_editor_state_handed_to_a_system_message_builder() -> None:
    # void's convertToLLMMessageService.ts shape: the open and active files, read from the
    # editor services, passed to a function named for the system message.
    ts = (
        "export class Converter {\n"
        "  build() {\n"
        "    const openedURIs = this.modelService.getModels()\n"
        "      .filter((m) => m.isAttachedToEditor()).map((m) => m.uri.fsPath);\n"
        "    const activeURI = this.editorService.activeEditor?.resource?.fsPath;\n"
        "    const mode = this.settings.mode;\n"
        "    return chat_systemMessage({ openedURIs, activeURI, mode });\n"
        "  }\n"
        "}\n"
    )
    assert _codes(ts) == [(7, "PL105"), (7, "PL105")]


def test_message_metadata_and_response_fields_are_not_prompt_text() -> None:
    # NextChat's createMessage and node-DeepResearch's response chunk: an id, a date and a
    # `system_fingerprint` travel beside the text, never in it; the content still counts.
    ts = (
        "function createMessage(override: Partial<Msg>): Msg {\n"
        "  return { id: nanoid(), date: new Date().toLocaleString(), role: 'user',"
        " content: '', ...override };\n"
        "}\n"
        "export function systemPrompts(): Msg[] {\n"
        "  return [createMessage({ role: 'system', content: TEMPLATE })];\n"
        "}\n"
        "export function chunk(requestId: string) {\n"
        "  return { id: requestId, system_fingerprint: 'fp_' + Date.now() };\n"
        "}\n"
        "export const systemMessage = { id: uuidv4(), role: 'system',"
        " content: `Now: ${Date.now()}` };\n"
    )
    # The last line's clock is reported (once per sink: the name and the system role).
    assert sorted(set(_codes(ts))) == [(10, "PL101")]


def test_a_bare_function_named_like_a_string_method_is_not_a_join(tmp_path: Path) -> None:
    # `join` from "path" (and a bare `replace` or `concat`) is a function, not a string's
    # method: its value is a leaf. The front end took every call of these names for a method
    # and crashed on real code where a system prompt was read from a joined path.
    (tmp_path / "prompt.ts").write_text(
        'import { join } from "node:path";\n'
        'import { readFileSync } from "node:fs";\n\n'
        'const systemPrompt = join(__dirname, "prompts", "system.md");\n'
        'export const SYSTEM = readFileSync(systemPrompt, "utf8") + `\\nDate: ${Date.now()}`;\n'
    )
    result = lint_paths([str(tmp_path)], LintConfig(), jobs=1)
    assert [f.code for f in result.findings] == ["PL101"]
