"""The values of a file that stand for a chat platform (a Discord, Slack or Telegram bot's
client, the interaction, message or context an event hands it): a call on one of them
(`interaction.reply(text)`, `message.channel.send(answer)`, `bot.sendMessage(chatId, text)`)
shows a user a message and asks no model, whatever its name says. Known by where a value
comes from, not by its name: imported from a platform's SDK, made from what was imported
(`new Client(...)`, `this.client.channels.cache.get(id)`), a parameter typed with an imported
type (`interaction: ChatInputCommandInteraction`) or handed in by such a value's event
(`client.on("messageCreate", (message) => ...)`, `bot.command("x", (ctx) => ...)`). Pure.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from tree_sitter import Node

from ..meaning import words
from .syntax import (
    FUNCTIONS,
    Source,
    arguments,
    callee_name,
    project_module,
    string_value,
    unwrap,
    walk,
)

# Words of a module name that mark a chat platform's SDK (`discord.js`, `@discordjs/rest`,
# `telegraf`, `node-telegram-bot-api`, `@slack/bolt`, `grammy`, `whatsapp-web.js`,
# `@whiskeysockets/baileys`, a Facebook Messenger client such as `fca-unofficial`).
_PLATFORM_WORDS = frozenset(
    {"discord", "discordjs", "telegraf", "telegram", "grammy", "slack", "whatsapp", "baileys"}
    | {"fca", "botbuilder", "tmi", "eris", "oceanic", "messenger", "vk", "line"}
)
# Words that name other things too (`line`, `vk`): only beside a bot's or an SDK's word
# (`@line/bot-sdk`).
_WEAK = frozenset({"line", "vk", "tmi", "eris", "oceanic"})
_DEPTH = 3  # passes over the file: a client, a channel read from it, a message of the channel


def platform_module(name: str) -> bool:
    if project_module(name):
        return False  # the project's own module (`./slack`), whatever it wraps
    ws = set(words(name.replace("@", " ").replace("/", " ").replace(".", " ")))
    strong = ws & (_PLATFORM_WORDS - _WEAK)
    if strong:
        return True
    return bool(ws & _WEAK) and bool(ws & {"bot", "sdk", "js", "io", "chat"})


def platform_values(src: Source) -> frozenset[str]:
    """The texts (`client`, `this.client`, `interaction`) of values bound to a chat platform."""
    names: set[str] = set()
    for n in walk(src.root):
        if n.type == "import_statement":
            module = string_value(src, n.child_by_field_name("source"))
            if module is not None and platform_module(module):
                names |= {src.text(i) for i in _imported_names(n)}
        elif n.type == "variable_declarator":
            value = n.child_by_field_name("value")
            if value is not None and _required_platform(src, unwrap(value)):
                names |= _bound(src, n.child_by_field_name("name"))
    if not names:
        return frozenset()
    for _ in range(_DEPTH):
        before = len(names)
        for n in walk(src.root):
            if n.type == "variable_declarator":
                value = n.child_by_field_name("value")
                if value is not None and _from(src, value, names):
                    names |= _bound(src, n.child_by_field_name("name"))
            elif n.type == "for_in_statement":  # `for (const channel of channels)`
                right = n.child_by_field_name("right")
                if right is not None and _from(src, right, names):
                    names |= _bound(src, n.child_by_field_name("left"))
            elif n.type == "assignment_expression":
                left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
                if left is not None and right is not None and _from(src, right, names):
                    names.add(src.text(left))
            elif _typed_by(src, n, names):
                names |= _bound(src, n.child_by_field_name("pattern"))
            elif n.type == "call_expression" and _on_platform(src, n, names):
                for a in arguments(n):
                    if a.type in FUNCTIONS:
                        names |= _parameters(src, a)
        if len(names) == before:
            break
    return frozenset(names)


def platform_handler(src: Source, fn: Node, names: frozenset[str]) -> bool:
    """Whether the platform calls `fn` for one of its events: a callback handed to a platform
    value's call (`client.on("messageCreate", async (message) => ...)`) or a function with a
    parameter typed by the platform's SDK (`(client: Client, interaction: CommandInteraction)`)."""
    if not names:
        return False
    up = fn.parent
    call = up.parent if up is not None and up.type == "arguments" else None
    if call is not None and call.type == "call_expression" and _on_platform(src, call, names):
        return True
    params = fn.child_by_field_name("parameters")
    return params is not None and any(_typed_by(src, p, names) for p in params.named_children)


def _typed_by(src: Source, param: Node, names: set[str] | frozenset[str]) -> bool:
    """A parameter whose type names one of the platform's (`interaction: CommandInteraction`)."""
    if param.type not in ("required_parameter", "optional_parameter"):
        return False
    kind = param.child_by_field_name("type")
    return kind is not None and any(
        i.type == "type_identifier" and src.text(i) in names for i in walk(kind)
    )


def project_imports(src: Source) -> frozenset[str]:
    """The names a file imports from the project's own modules (`./ai`, `@/lib/agent`)."""
    out: set[str] = set()
    for n in walk(src.root):
        if n.type == "import_statement":
            module = string_value(src, n.child_by_field_name("source")) or ""
            if project_module(module):
                out |= {src.text(i) for i in _imported_names(n)}
    return frozenset(out)


def on_platform(src: Source, call: Node, names: frozenset[str]) -> bool:
    """Whether a call is made on a platform's value (`interaction.reply(...)`,
    `message.channel.send(...)`) or is one such value called (`say(text)` handed in by Slack's
    `app.message(async ({ say }) => ...)`)."""
    return bool(names) and _on_platform(src, call, names)


def _on_platform(src: Source, call: Node, names: set[str] | frozenset[str]) -> bool:
    fn = call.child_by_field_name("function")
    if fn is None:
        return False
    fn = unwrap(fn)
    if fn.type == "identifier":
        return src.text(fn) in names
    return fn.type == "member_expression" and _rooted(src, fn, names)


def _rooted(src: Source, node: Node, names: set[str] | frozenset[str]) -> bool:
    """Whether a member chain's object, or an object of that, is a platform's value."""
    while node.type == "member_expression":
        obj = node.child_by_field_name("object")
        if obj is None:
            return False
        node = unwrap(obj)
        if src.text(node) in names:
            return True
        if node.type == "call_expression":
            inner = node.child_by_field_name("function")
            node = unwrap(inner) if inner is not None else node
    return False


def _from(src: Source, value: Node, names: set[str]) -> bool:
    """A value made from a platform's: `new Client(...)`, `createBot(...)`, a read of one
    (`this.client.channels.cache.get(id)`, `await interaction.fetchReply()`)."""
    value = unwrap(value)
    while value.type == "await_expression" and value.named_children:
        value = unwrap(value.named_children[0])
    if src.text(value) in names:
        return True
    if value.type == "binary_expression":  # `sdk.default || sdk`
        return any(_from(src, v, names) for v in value.named_children)
    if value.type in ("new_expression", "call_expression"):
        fn = value.child_by_field_name("constructor") or value.child_by_field_name("function")
        if fn is None:
            return False
        fn = unwrap(fn)
        return src.text(fn) in names or (fn.type == "member_expression" and _rooted(src, fn, names))
    return value.type == "member_expression" and _rooted(src, value, names)


def _required_platform(src: Source, value: Node) -> bool:
    """`require("discord.js")`, or a member or construction of it."""
    for n in walk(value):
        if n.type == "call_expression" and callee_name(src, n) == "require":
            args = arguments(n)
            module = string_value(src, args[0]) if args else None
            return module is not None and platform_module(module)
    return False


def _imported_names(stmt: Node) -> list[Node]:
    clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
    if clause is None:
        return []
    out: list[Node] = []
    for n in walk(clause):
        if n.type == "import_specifier":
            local = n.child_by_field_name("alias") or n.child_by_field_name("name")
            if local is not None:
                out.append(local)
        elif (
            n.type == "identifier"
            and n.parent is not None
            and n.parent.type
            in (
                "import_clause",
                "namespace_import",
            )
        ):
            out.append(n)
    return out


def _bound(src: Source, pattern: Node | None) -> set[str]:
    """The names a declaration's or parameter's pattern binds (`client`, `{ message, say }`)."""
    if pattern is None:
        return set()
    if pattern.type == "identifier":
        return {src.text(pattern)}
    return {
        src.text(n)
        for n in walk(pattern)
        if n.type in ("identifier", "shorthand_property_identifier_pattern") and not _key_of_pair(n)
    }


def _key_of_pair(n: Node) -> bool:
    """`{ channel: target }`: `channel` is the property read, `target` the name bound."""
    p = n.parent
    return p is not None and p.type == "pair_pattern" and p.child_by_field_name("key") == n


def _parameters(src: Source, fn: Node) -> set[str]:
    params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    if params is None:
        return set()
    if params.type == "identifier":
        return {src.text(params)}
    out: set[str] = set()
    for p in params.named_children:
        pattern = p.child_by_field_name("pattern") if p.type.endswith("_parameter") else p
        out |= _bound(src, pattern)
    return out
