"""The data-flow pass for structural breakers (policies/prefixflow.py and each front end's
prefixflow): from a request's `messages` back to every write of the list and of the system
prompt at its head, whatever the names, judged by where the write lands; and the shape rule
that keeps minified bundles from being read as source. Each shape has a case that stays
silent."""

from __future__ import annotations

from pathlib import Path

from prefixlock.policies.bundles import looks_minified
from prefixlock.policies.engine import lint_file, lint_source
from prefixlock.policies.prefixflow import Write, breaks


def _codes(text: str, path: str = "agent.py") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(text, path) if f.code.startswith("PL3")]


def test_the_classification_is_by_position_and_flow() -> None:
    assert not breaks(Write.APPEND, kept=True, varies=True)
    for w in (Write.REWRITE, Write.INSERT, Write.DROP, Write.REORDER, Write.FILTER):
        assert breaks(w, kept=True, varies=False)  # the kept history: sent bytes change
        assert breaks(w, kept=False, varies=True)  # a copy, rewritten with per-call values
        assert not breaks(w, kept=False, varies=False)  # a copy, the same bytes every call
    # A head put in once (only where the list has none): only a head made per request breaks.
    assert not breaks(Write.HEAD, kept=True, varies=False)
    assert breaks(Write.HEAD, kept=True, varies=True)
    assert breaks(Write.HEAD, kept=False, varies=True)


def test_python_a_system_prompt_made_from_what_the_request_brings() -> None:
    # Names mean nothing here: `blob` comes from the newest message, `n` from the history.
    src = (
        "async def turn(client, text, sender):\n"
        "    past = await load(sender)\n"
        "    blob = await lookup(text)\n"
        "    n = len(past) == 0\n"
        "    head = BASE\n"
        "    head += f'{blob}'\n"
        "    head += f'first: {n}'\n"
        "    head += f'{sender}'\n"
        "    msgs = [{'role': 'system', 'content': head}]\n"
        "    msgs += past\n"
        "    msgs.append({'role': 'user', 'content': text})\n"
        "    return await client.chat.completions.create(model=M, messages=msgs)\n"
    )
    assert _codes(src) == [(6, "PL304"), (7, "PL304")]


def test_python_silent_a_one_off_request_and_a_fixed_system_prompt() -> None:
    # No history after the system prompt: nothing cached to lose. A system prompt of fixed text
    # before a history is stable.
    src = (
        "def ask(client, text):\n"
        "    found = lookup(text)\n"
        "    msgs = [{'role': 'system', 'content': f'{found}'}]\n"
        "    msgs.append({'role': 'user', 'content': text})\n"
        "    return client.chat.completions.create(model=M, messages=msgs)\n"
        "def chat(client, text, past):\n"
        "    msgs = [{'role': 'system', 'content': BASE}, *past]\n"
        "    msgs.append({'role': 'user', 'content': text})\n"
        "    return client.chat.completions.create(model=M, messages=msgs)\n"
    )
    assert _codes(src) == []


def test_python_earlier_messages_of_a_copy_rewritten_with_what_the_request_brings() -> None:
    src = (
        "def hook(state, request):\n"
        "    extra = render(request.messages)\n"
        "    out = list(request.messages)\n"
        "    for i, m in enumerate(out):\n"
        "        if m.role == 'system':\n"
        "            out[i] = SystemMessage(content=m.content + extra)\n"
        "    out.insert(0, SystemMessage(content=extra))\n"
        "    return request.override(messages=out)\n"
    )
    # The inserted system message is also a system prompt made from the history (PL304).
    assert _codes(src) == [(2, "PL304"), (6, "PL303"), (7, "PL303")]


def test_python_silent_a_copy_rewritten_from_its_own_messages_or_appended_to() -> None:
    # The same history always yields the same bytes; a write at the end adds after the cache;
    # a system prompt handed in (an adapter's) or set up in a list built here is the caller's.
    src = (
        "def chat(model, messages, system_prompt=''):\n"
        "    out = list(messages)\n"
        "    out.insert(0, {'role': 'system', 'content': system_prompt})\n"
        "    return service.chat(model=model, messages=out)\n"
        "def once(config, prompt):\n"
        "    msgs = [{'role': 'user', 'content': prompt}]\n"
        "    msgs.insert(0, {'role': 'system', 'content': config.get('system')})\n"
        "    return llm.generate(messages=msgs)\n"
    )
    assert _codes(src) == []
    src = (
        "def hook(request):\n"
        "    out = list(request.messages)\n"
        "    for i, m in enumerate(out):\n"
        "        out[i] = clean(m)\n"
        "    out.insert(0, SystemMessage(content=BASE))\n"
        "    out[-1] = tag(out[-1])\n"
        "    out.append(note)\n"
        "    return request.override(messages=out)\n"
    )
    assert _codes(src) == []


def test_python_the_kept_history_cut_or_reordered_in_place() -> None:
    src = (
        "class Bot:\n"
        "    def reply(self, text):\n"
        "        log = self.history\n"
        "        log.append({'role': 'user', 'content': text})\n"
        "        if too_long(log):\n"
        "            log.pop(1)\n"
        "        log.sort(key=rank)\n"
        "        return self.client.create(model=M, messages=log)\n"
    )
    assert _codes(src) == [(6, "PL303"), (7, "PL303")]


def test_a_minified_bundle_is_not_read_as_source(tmp_path: Path) -> None:
    # A bundle's two-letter names read by their words mean anything (`Wa`, `Ts`): it is
    # skipped by its shape (long lines, mostly one- or two-letter names).
    body = "".join(
        f"const Ts{i}=Date.now();function Wa{i}(e,t){{return e+t+Ts{i}}}" for i in range(30)
    )
    prompt = "const systemPrompt=`Now: ${new Date().toISOString()}`;"
    bundle = tmp_path / "index-AbC123.js"
    bundle.write_text(prompt + body + "\n")
    assert looks_minified(bundle.read_text())
    assert lint_file(str(bundle), "js", None) == ([], 0)


def test_silent_long_hand_written_lines_are_read() -> None:
    # A prompt written on one long line is text with long words, not a bundle.
    long_prompt = "const systemPrompt = `" + "You are a careful assistant. " * 60 + "`;\n"
    assert not looks_minified(long_prompt + "export function f(query) { return query; }\n")
    code = "\n".join(f"function helper{i}(a, b) {{ return a + b; }}" for i in range(200))
    assert not looks_minified(code)


def test_typescript_a_system_prompt_made_from_what_the_request_brings() -> None:
    src = (
        "export async function turn(client, text: string, past: Msg[]) {\n"
        "  const hits = await lookup(text);\n"
        "  const head = `${BASE}\\n${hits}`;\n"
        "  const msgs = [{ role: 'system', content: head }, ...past];\n"
        "  msgs.push({ role: 'user', content: text });\n"
        "  return client.chat.completions.create({ model: M, messages: msgs });\n"
        "}\n"
    )
    assert _codes(src, "chat.ts") == [(3, "PL304")]


def test_typescript_silent_a_fixed_system_prompt_and_a_one_off_request() -> None:
    src = (
        "export async function turn(client, text: string, past: Msg[]) {\n"
        "  const msgs = [{ role: 'system', content: BASE }, ...past];\n"
        "  msgs.push({ role: 'user', content: text });\n"
        "  return client.chat.completions.create({ model: M, messages: msgs });\n"
        "}\n"
        "export async function once(client, text: string) {\n"
        "  const hits = await lookup(text);\n"
        "  const msgs = [\n"
        "    { role: 'system', content: `${hits}` },\n"
        "    { role: 'user', content: text },\n"
        "  ];\n"
        "  return client.chat.completions.create({ model: M, messages: msgs });\n"
        "}\n"
    )
    assert _codes(src, "chat.ts") == []


def test_typescript_the_kept_history_edited_before_its_end() -> None:
    # An earlier message rewritten and one inserted at the head of the kept history; a push
    # and a write to the last message are silent.
    src = (
        "class Chat {\n"
        "  async send(text: string) {\n"
        "    const msgs = this.history;\n"
        "    msgs.push({ role: 'user', content: text });\n"
        "    msgs[msgs.length - 1] = tag(msgs[msgs.length - 1]);\n"
        "    msgs[1] = { role: 'user', content: shorten(msgs[1].content) };\n"
        "    msgs.unshift({ role: 'system', content: BASE });\n"
        "    return this.client.chat.completions.create({ model: M, messages: msgs });\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src, "chat.ts") == [(6, "PL303"), (7, "PL303")]


def test_python_a_builder_returns_the_list_its_caller_sends() -> None:
    # The list a builder returns is followed as a request's; its history makes it more than a
    # one-off. A builder whose system prompt is fixed text stays silent.
    src = (
        "def build(question, past):\n"
        "    notes = crunch(question)\n"
        "    return [\n"
        "        {'role': 'system', 'content': PROMPT + notes},\n"
        "        *past,\n"
        "        {'role': 'user', 'content': question},\n"
        "    ]\n"
        "def build_fixed(question, past):\n"
        "    out = [{'role': 'system', 'content': PROMPT}, *past]\n"
        "    out.append({'role': 'user', 'content': question})\n"
        "    return out\n"
    )
    assert _codes(src) == [(4, "PL304")]


def test_typescript_a_builder_returns_the_list_its_caller_sends() -> None:
    src = (
        "export function build(question: string, past: Msg[]) {\n"
        "  const notes = crunch(question);\n"
        "  return [\n"
        "    { role: 'system', content: PROMPT + notes },\n"
        "    ...past,\n"
        "    { role: 'user', content: question },\n"
        "  ];\n"
        "}\n"
        "export function buildFixed(question: string, past: Msg[]) {\n"
        "  const head = { role: 'system', content: PROMPT };\n"
        "  return [head, ...past, { role: 'user', content: question }];\n"
        "}\n"
    )
    assert _codes(src, "chat.ts") == [(4, "PL304")]


def test_typescript_a_route_puts_what_it_found_for_the_last_message_in_system() -> None:
    # `messages` comes from the request body: it is the history. What is computed from its
    # last message and written into `system` changes per request; a fixed `system` is silent.
    src = (
        "export async function POST(req: Request) {\n"
        "  const { messages } = await req.json();\n"
        "  const last = messages[messages.length - 1];\n"
        "  const found = await crunch(last.content);\n"
        "  return streamText({ model, system: `${BASE}\\n${found}`, messages });\n"
        "}\n"
        "export async function PUT(req: Request) {\n"
        "  const { messages } = await req.json();\n"
        "  return streamText({ model, system: BASE, messages });\n"
        "}\n"
    )
    assert _codes(src, "route.ts") == [(5, "PL304")]


def test_python_a_fetched_history_with_per_request_content_in_the_system_prompt() -> None:
    src = (
        "async def reply(store, chat_id, text):\n"
        "    past = await store.load(chat_id)\n"
        "    first = not past\n"
        "    head = {'role': 'system', 'content': f'{BASE} first={first}'}\n"
        "    past.append({'role': 'user', 'content': text})\n"
        "    return await llm.create(model=M, system=head['content'], messages=past)\n"
    )
    assert _codes(src) == [(6, "PL304")]


def test_python_a_system_prompt_rebuilt_on_each_pass_of_the_loop_that_sends_it() -> None:
    # Each step's system prompt names the step and the last answer, in front of the same
    # growing list; a retry loop with a fixed system prompt is silent.
    src = (
        "def run(client, task, steps):\n"
        "    log = [{'role': 'user', 'content': task}]\n"
        "    note = ''\n"
        "    for step in steps:\n"
        "        head = f'{BASE} now: {step}'\n"
        "        out = client.messages.create(model=M, system=head, messages=log)\n"
        "        log.append({'role': 'assistant', 'content': out.text})\n"
        "def retry(client, task):\n"
        "    log = [{'role': 'user', 'content': task}]\n"
        "    for _ in range(3):\n"
        "        out = client.messages.create(model=M, system=BASE, messages=log)\n"
        "        log.append({'role': 'assistant', 'content': out.text})\n"
    )
    assert _codes(src) == [(5, "PL304")]


def test_typescript_a_system_prompt_rebuilt_on_each_pass_of_the_loop_that_sends_it() -> None:
    src = (
        "export async function run(client, task: string, steps: string[]) {\n"
        "  const log = [{ role: 'user', content: task }];\n"
        "  for (const step of steps) {\n"
        "    const head = `${BASE} now: ${step}`;\n"
        "    const out = await client.messages.create({ model: M, system: head, messages: log });\n"
        "    log.push({ role: 'assistant', content: out.text });\n"
        "  }\n"
        "  for (let i = 0; i < 3; i++) {\n"
        "    const out = await client.messages.create({ model: M, system: BASE, messages: log });\n"
        "    log.push({ role: 'assistant', content: out.text });\n"
        "  }\n"
        "}\n"
    )
    assert _codes(src, "run.ts") == [(4, "PL304")]


def test_a_list_a_loop_sends_and_grows_is_the_kept_history() -> None:
    # Rewriting its first message mid-loop changes what the earlier passes sent; before the
    # loop, or on a list sent once, the same write is building the request.
    py = (
        "def run(client, task):\n"
        "    log = [{'role': 'system', 'content': BASE}, {'role': 'user', 'content': task}]\n"
        "    while True:\n"
        "        out = client.create(model=M, messages=log)\n"
        "        log.append({'role': 'assistant', 'content': out.text})\n"
        "        if out.failed:\n"
        "            log[0] = {'role': 'system', 'content': FALLBACK}\n"
        "def once(client, task):\n"
        "    log = [{'role': 'user', 'content': task}]\n"
        "    log.insert(0, {'role': 'system', 'content': BASE})\n"
        "    return client.create(model=M, messages=log)\n"
    )
    assert _codes(py) == [(7, "PL303")]
    ts = (
        "export async function run(client, task: string) {\n"
        "  const log = [{ role: 'system', content: BASE }, { role: 'user', content: task }];\n"
        "  while (true) {\n"
        "    const out = await client.create({ model: M, messages: log });\n"
        "    log.push({ role: 'assistant', content: out.text });\n"
        "    if (out.failed) log[0] = { role: 'system', content: FALLBACK };\n"
        "  }\n"
        "}\n"
    )
    assert _codes(ts, "run.ts") == [(6, "PL303")]


def test_python_a_hook_run_before_every_model_call_rewrites_the_system_message() -> None:
    # A `@before_model` hook is the body of the agent's loop: the state it is handed is that
    # step's, so a system message rewritten from it changes per step. Undecorated, the same
    # function is an adapter whose caller decides (silent).
    body = (
        "def inject(state, request):\n"
        "    notes = '\\n'.join(state.get('todo', []))\n"
        "    msgs = list(request.messages)\n"
        "    for i, m in enumerate(msgs):\n"
        "        if isinstance(m, SystemMessage):\n"
        "            msgs[i] = SystemMessage(content=m.content + notes)\n"
        "    return request.override(messages=msgs)\n"
    )
    assert _codes("@before_model\n" + body) == [(7, "PL303")]
    assert _codes(body) == []


def test_python_a_system_message_put_first_once_where_the_history_has_none() -> None:
    # Guarded by the list's head, the same message goes in once: the history handed in keeps
    # its prefix (silent). Unguarded on a kept list, each request puts another one first.
    src = (
        "def chat(messages):\n"
        "    if messages[0].role != 'system':\n"
        "        messages.insert(0, Message(role='system', content=PROMPT))\n"
        "    return client.completion(messages=messages)\n"
    )
    assert _codes(src) == []
    src = (
        "class Bot:\n"
        "    def reply(self, text):\n"
        "        log = self.history\n"
        "        log.append({'role': 'user', 'content': text})\n"
        "        log.insert(0, {'role': 'system', 'content': BASE})\n"
        "        return client.create(model=M, messages=log)\n"
    )
    assert _codes(src) == [(5, "PL303")]
    src = (
        "def chat(messages):\n"
        "    if messages[0]['role'] != 'system':\n"
        "        messages.insert(0, {'role': 'system', 'content': digest(messages)})\n"
        "    return client.completion(messages=messages)\n"
    )
    # Made from the history, it is a system prompt that changes per request (one finding).
    assert [c for _, c in _codes(src)] == ["PL304"]
