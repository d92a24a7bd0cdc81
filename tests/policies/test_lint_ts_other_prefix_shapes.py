"""TypeScript: one conversation sent under two system prompts by two functions of one module or
class (PL305), in the shapes development data showed: the history spread as a field of a
record (`...memory.chatHistory`) or with a default (`...(input.history ?? [])`), LangChain.js's
`fromMessages([["system", A], new MessagesPlaceholder("messages")])`, and the finding placed at
the system text that differs. Each positive has a twin that must stay silent."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def _pl305(text: str, name: str = "agent.ts") -> list[int]:
    return [f.line for f in lint_source(text, name) if f.code == "PL305"]


_FIELD = """\
import OpenAI from "openai";
const client = new OpenAI();

export class Coordinator {
  async answer(sessionId: string) {
    const memory = await this.store.load(sessionId);
    return client.chat.completions.create({
      model: "gpt-4o",
      messages: [
        { role: "system", content: ANSWER_PROMPT },
        ...memory.chatHistory,
      ],
    });
  }

  async wrapUp(sessionId: string) {
    const memory = await this.store.load(sessionId);
    return client.chat.completions.create({
      model: "gpt-4o",
      messages: [
        {
          role: "system",
          content: WRAP_UP_PROMPT,
        },
        ...memory.chatHistory,
      ],
    });
  }
}
"""


def test_a_history_field_sent_under_another_system_prompt_is_reported_at_its_text() -> None:
    assert _pl305(_FIELD) == [23]


def test_the_same_history_field_under_the_same_prompt_is_silent() -> None:
    assert _pl305(_FIELD.replace("WRAP_UP_PROMPT", "ANSWER_PROMPT")) == []


def test_a_field_that_is_no_conversation_is_silent() -> None:
    assert _pl305(_FIELD.replace("memory.chatHistory", "memory.examples")) == []


def test_a_history_with_a_default_is_read_through_it() -> None:
    text = _FIELD.replace("...memory.chatHistory", "...(input.history ?? [])")
    assert _pl305(text) == [23]


_GRAPH = """\
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { SystemMessage } from "@langchain/core/messages";

export function buildAgent(model: any, boundModel: any) {
  const callModel = async (state: any) => {
    const prompt = ChatPromptTemplate.fromMessages([
      new SystemMessage(OPERATOR_PROMPT),
      new MessagesPlaceholder("messages"),
    ]);
    return { messages: [await prompt.pipe(boundModel).invoke({ messages: state.messages })] };
  };
  const finish = async (state: any) => {
    const prompt = ChatPromptTemplate.fromMessages([
      [
        "system",
        "Finish the interaction politely.",
      ],
      new MessagesPlaceholder("messages"),
    ]);
    return { messages: [await prompt.pipe(model).invoke({ messages: state.messages })] };
  };
  return { callModel, finish };
}
"""


def test_a_langchain_step_with_its_own_system_prompt_over_the_messages() -> None:
    assert _pl305(_GRAPH) == [15]


def test_a_langchain_step_under_the_same_system_prompt_is_silent() -> None:
    pair = '[\n        "system",\n        "Finish the interaction politely.",\n      ]'
    same = _GRAPH.replace(pair, "new SystemMessage(OPERATOR_PROMPT)")
    assert _pl305(same) == []
