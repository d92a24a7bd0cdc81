"""Rules made general after real5 was scored (real2-real5, both halves, became development
data): cache breakers spread across helpers rather than written beside the model call, in the
shapes real code uses (a trimmer class, a memory manager, a template engine, a recall service),
each with the near miss that must stay quiet."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.config import LintConfig
from prefixlock.policies.engine import lint_paths, lint_source


def _codes(text: str, path: str = "agent.ts") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(text, path)]


def test_a_window_start_computed_from_the_history_length() -> None:
    # A memory class that splices off what is over its cap, a screenshot window, and a
    # trimmer that keeps messages from an index: each a sliding window, found at the line that
    # computes the start. The last message (`- 1`) and a title request's recent turns are not.
    src = """export class Memory {
  messages: Message[] = [];
  manage(max: number) {
    if (this.messages.length > max) {
      const excess = this.messages.length - max;
      this.messages.splice(0, excess);
    }
  }
}
export function keepImages(images: string[], maxImages: number) {
  const overflow = images.length - maxImages;
  return images.slice(overflow);
}
export function keepRecent(messages: Message[], keep: number) {
  const out: Message[] = [];
  const keepFromIndex = messages.length - keep;
  for (let i = 0; i < messages.length; i++) {
    if (i >= keepFromIndex) out.push(messages[i]);
  }
  return out;
}
export function last(messages: Message[]) {
  const lastIndex = messages.length - 1;
  return messages[lastIndex];
}
export function title(messages: Message[], n: number) {
  const startIndex = messages.length - n;
  const topicMessages = messages.slice(startIndex);
  return topicMessages;
}
"""
    assert _codes(src) == [(5, "PL303"), (11, "PL303"), (16, "PL303")]


def test_earlier_messages_cut_once_the_history_is_over_a_bound() -> None:
    # Compression of earlier messages in place once past a threshold, and a trimmer that
    # truncates every message while the total is over the budget. Formatting each message
    # the same way on every request (no bound) changes nothing between requests.
    src = """export class Memory {
  messages: Message[] = [];
  compress(threshold: number, maxLength: number) {
    if (this.messages.length > threshold) {
      for (let i = 0; i < this.messages.length; i++) {
        const message = this.messages[i];
        message.content = message.content.slice(0, maxLength);
      }
    }
  }
  trim(output: Message[], maxTokens: number, share: number) {
    for (let i = 0; i < output.length && countTokens(output) > maxTokens; i++) {
      output[i] = truncateMessage(output[i], share);
    }
  }
  normalise() {
    for (let i = 0; i < this.messages.length; i++) {
      const message = this.messages[i];
      message.content = message.content.trim();
    }
  }
}
"""
    assert _codes(src) == [(7, "PL303"), (13, "PL303")]


def test_a_template_engine_fill_and_a_helper_chain_carry_the_date(tmp_path: Path) -> None:
    # The system prompt rendered by a template engine from another package, with the date as
    # a slot value; the caller hands the date in, so it is reported where the caller makes
    # it, not at the parameter's name in the builder.
    (tmp_path / "prompt.ts").write_text(
        """import { PromptTemplate } from "./prompt-template";
export function getChatSystemPrompt(datetime: string, tabs?: Tab[]): string {
  return PromptTemplate.render(TEMPLATE, {
    datetime: datetime,
    tabs: JSON.stringify(tabs ?? []),
  }).trim();
}
export function getAgentSystemPrompt(vars: Map<string, string>): string {
  return PromptTemplate.render(AGENT_TEMPLATE, {
    datetime: vars.get("datetime") || new Date().toLocaleString(),
  });
}
"""
    )
    (tmp_path / "agent.ts").write_text(
        """import { getChatSystemPrompt } from "./prompt";
export async function turn(memory: Memory) {
  const datetime = new Date().toLocaleString();
  const systemPrompt = getChatSystemPrompt(datetime, undefined);
  memory.setSystemPrompt(systemPrompt);
}
"""
    )
    found = lint_paths([str(tmp_path)], LintConfig()).findings
    got = {(Path(f.path).name, f.line, f.code) for f in found}
    assert ("prompt.ts", 9, "PL101") in got  # the render's fallback clock (line 10)
    assert ("prompt.ts", 3, "PL101") in got  # the date slot, by the parameter's name
    assert ("prompt.ts", 3, "PL105") in got  # open tabs, browser state
    agent = [f for f in found if f.path.endswith("agent.ts")]
    assert [(f.line, f.code) for f in agent] == [(4, "PL101")]
    assert "new Date(), line 3)" in agent[0].message and "prompt.ts" not in agent[0].message


def test_content_recalled_for_the_request_reaches_the_system_prompt() -> None:
    # Memories recalled with the user's message, handed to a prompt builder and set as the
    # system prompt; search results written into a system message by position; a system
    # template's slot filled with the results. A recall keyed by a fixed id, and a record
    # returned beside the prompt, are not.
    src = """export async function turn(chatId: string, userPrompt: string) {
  const memory = await service.memoryRecall(chatId, userPrompt);
  const settled = await service.memoryRecall(chatId, "profile");
  const systemPrompt = buildPrompt(memory, settled);
  return systemPrompt;
}
export function inject(messages: Message[], memories: string) {
  const systemIndex = messages.findIndex((m) => m.role === "system");
  const systemMessage = messages[systemIndex];
  const newContent = `${systemMessage.content}\\n\\n${memories}`;
  messages[systemIndex] = { ...systemMessage, content: newContent };
  return messages;
}
export async function web(query: string) {
  const search_results = await searchWeb(query);
  const system = await getWebSearchPrompt();
  const prompt = system.replace("{search_results}", search_results);
  return { prompt, sources: search_results };
}
"""
    assert _codes(src) == [(4, "PL304"), (11, "PL304"), (17, "PL304")]
    quiet = """export async function turn(chatId: string, context: RunContext) {
  const memory = await service.memoryRecall(chatId, "profile");
  const systemPrompt = buildPrompt(memory, context.task);
  return systemPrompt;
}
"""
    assert _codes(quiet) == []
