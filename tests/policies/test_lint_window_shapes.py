"""History windows that real7's Python projects cut inside framework classes and helpers
(made general after real7 became development data): a window iterated into rebuilt messages, a
store read back to a count, a chain walked back to a count, a start index computed from a token
budget, and the oldest message popped in a branch over a budget. Each test is the real code's
shape with a case that must stay silent."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes


def test_a_window_iterated_into_rebuilt_message_objects() -> None:
    # A RAG answerer: the last n exchanges of the chat history become message objects. A loop
    # over the newest results for display builds no message.
    src = (
        "class AnswerPipeline:\n"
        "    def stream(self, question, history):\n"
        "        messages = [SystemMessage(content=self.system_prompt)]\n"
        "        for human, ai in history[-self.n_last_interactions :]:\n"
        "            messages.append(HumanMessage(content=human))\n"
        "            messages.append(AIMessage(content=ai))\n"
        "        for item in history[-3:]:\n"
        "            print(item)\n"
        "        messages.append(HumanMessage(content=question))\n"
        "        return self.llm(messages)\n"
    )
    assert _codes(src, "citation_qa.py") == [(4, "PL303")]


def test_a_history_read_back_from_the_store_to_a_count() -> None:
    # The stored exchanges of a conversation, newest first, limited to history_len. A model
    # call's sampling `top_k` is no count of messages.
    src = (
        "def create_chain(history_len, conversation_id, llm):\n"
        "    messages = filter_message(conversation_id=conversation_id, limit=history_len)\n"
        "    history = []\n"
        "    for m in reversed(messages):\n"
        "        history.append({'role': 'user', 'content': m['query']})\n"
        "    chat_completion = llm.create_chat_completion(history, top_k=40)\n"
        "    return chat_completion\n"
    )
    assert _codes(src, "chat.py") == [(2, "PL303")]


def test_a_reply_chain_walked_back_to_a_count() -> None:
    # A chat bot walks the reply chain from the newest message until max_messages are
    # collected; a loop bounded by a retry count collects no conversation.
    src = (
        "async def on_message(new_msg, config):\n"
        "    max_messages = config.get('max_messages', 25)\n"
        "    messages = []\n"
        "    curr = new_msg\n"
        "    while curr is not None and len(messages) < max_messages:\n"
        "        messages.append({'role': 'user', 'content': curr.content})\n"
        "        curr = curr.parent\n"
        "    tries = []\n"
        "    while len(tries) < 3:\n"
        "        tries.append(1)\n"
        "    return await client.chat.completions.create(model='m', messages=messages[::-1])\n"
    )
    assert _codes(src, "bot.py") == [(5, "PL303")]


def test_a_history_cut_at_an_index_a_helper_computed_from_a_token_budget() -> None:
    # The start index comes from a helper that counts tokens back from the newest message; the
    # kept messages are added to the list the function returns. A slice kept for a UI's global
    # list is not the request.
    src = (
        "def drop_overflow(messages, token_counts, max_allowed_tokens):\n"
        "    final_messages = []\n"
        "    history_msgs = messages[:-1]\n"
        "    start = find_last_index(token_counts, max_prompt_tokens=max_allowed_tokens)\n"
        "    final_messages.extend(history_msgs[start:])\n"
        "    final_messages.append(messages[-1])\n"
        "    return final_messages\n"
        "def remember(history_planner):\n"
        "    PLANNER_HISTORY.extend(history_planner[-3:])\n"
    )
    assert _codes(src, "prompt_utils.py") == [(5, "PL303")]


def test_the_oldest_message_popped_in_a_branch_over_a_budget() -> None:
    # A local model's wrapper rebuilds the prompt until it fits 90% of the context, dropping
    # the oldest message each time; reported at the `if` over the budget.
    src = (
        "class LLMWrapper:\n"
        "    def generate_prompt(self, messages):\n"
        "        while True:\n"
        "            prompt = self.render(messages)\n"
        "            prompt_tokens = len(self.tokenizer.encode(prompt))\n"
        "            if prompt_tokens < 0.9 * self.CONTEXT_SIZE:\n"
        "                return prompt\n"
        "            else:\n"
        "                messages.pop(0)\n"
    )
    assert _codes(src, "wrapper.py") == [(6, "PL303")]
