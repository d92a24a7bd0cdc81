"""Side requests made general after real7 became development data: a summariser that sends
the conversation as a transcript under a system prompt built for it (by a builder named for its
job, not a literal), beside a request that stays in the session's own prefix."""

from __future__ import annotations

from prefixlock.policies.engine import lint_source


def test_a_summariser_sends_a_transcript_under_a_system_prompt_from_its_own_builder() -> None:
    # A browser agent's compaction: the messages become a transcript in one user message, and
    # the system prompt comes from a builder named for summarising. A call whose system prompt
    # is the session's own builder is the session's request, not a side one.
    src = (
        "import { streamText } from 'ai'\n"
        "async function callSummarizer(model: LanguageModel, messages: ModelMessage[]) {\n"
        "  const transcript = messagesToTranscript(messages)\n"
        "  return streamText({\n"
        "    model,\n"
        "    system: buildSummarizationSystemPrompt(),\n"
        "    messages: [{ role: 'user', content: `<transcript>${transcript}</transcript>` }],\n"
        "  })\n"
        "}\n"
        "async function step(model: LanguageModel, messages: ModelMessage[]) {\n"
        "  return streamText({ model, system: buildSystemPrompt(), messages })\n"
        "}\n"
    )
    assert [(f.line, f.code) for f in lint_source(src, "compaction.ts")] == [(4, "PL305")]
