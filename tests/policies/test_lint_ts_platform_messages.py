"""A chat platform's message is no model request: a window kept by a Discord, Telegram or Slack
bot's handler that only reaches the platform (`message.channel.send(...)`, `ctx.reply(...)`,
`bot.sendMessage(chatId, ...)`, `interaction.reply(...)`) is not reported, known by where the
value called comes from (the platform's SDK) rather than by the call's name; a model request
beside it, a model client's `sendMessage`, or the window handed to the project's own module is
still reported."""

from __future__ import annotations

from tests.helpers.lintfind import line_codes as _codes

_TELEGRAM = (
    "import TelegramBot from 'node-telegram-bot-api';\n"
    "\n"
    "const bot = new TelegramBot(process.env.TOKEN ?? '', { polling: true });\n"
    "const history: string[] = [];\n"
    "\n"
    "bot.on('message', async (msg) => {\n"
    "  history.push(msg.text ?? '');\n"
    "  const recent = history.slice(-20);\n"
    "  await bot.sendMessage(msg.chat.id, recent.join('\\n'));\n"
    "});\n"
)

_TELEGRAF = (
    "import { Telegraf } from 'telegraf';\n"
    "\n"
    "const bot = new Telegraf(process.env.TOKEN ?? '');\n"
    "const history: string[] = [];\n"
    "\n"
    "bot.command('history', async (ctx) => {\n"
    "  history.push(ctx.message.text);\n"
    "  const recent = history.slice(-10);\n"
    "  await ctx.reply(recent.join('\\n'));\n"
    "});\n"
)

_COMMAND = (
    "import { ChatInputCommandInteraction } from 'discord.js';\n"
    "\n"
    "const history: string[] = [];\n"
    "\n"
    "export async function execute(interaction: ChatInputCommandInteraction) {\n"
    "  if (!interaction.isChatInputCommand()) return;\n"
    "  history.push(interaction.options.getString('text') ?? '');\n"
    "  const last = history.slice(-5);\n"
    "  const stamp = new Date().toISOString();\n"
    "  await interaction.reply(`${stamp}\\n${last.join('\\n')}`);\n"
    "}\n"
)

_MIXED = (
    "import { Client } from 'discord.js';\n"
    "import OpenAI from 'openai';\n"
    "\n"
    "const client = new Client({ intents: [] });\n"
    "const openai = new OpenAI();\n"
    "const history: { role: 'user' | 'assistant'; content: string }[] = [];\n"
    "\n"
    "client.on('messageCreate', async (message) => {\n"
    "  history.push({ role: 'user', content: message.content });\n"
    "  const recent = history.slice(-10);\n"
    "  const out = await openai.chat.completions.create({ model: 'gpt-4o', messages: recent });\n"
    "  await message.reply(out.choices[0].message.content ?? '');\n"
    "});\n"
)

_GEMINI = (
    "import { Client } from 'discord.js';\n"
    "import { GoogleGenerativeAI } from '@google/generative-ai';\n"
    "\n"
    "const client = new Client({ intents: [] });\n"
    "const model = new GoogleGenerativeAI('k').getGenerativeModel({ model: 'gemini-pro' });\n"
    "const history: string[] = [];\n"
    "\n"
    "client.on('messageCreate', async (message) => {\n"
    "  history.push(message.content);\n"
    "  const recent = history.slice(-10);\n"
    "  const chat = model.startChat();\n"
    "  const answer = await chat.sendMessage(recent.join('\\n'));\n"
    "  await message.channel.send(answer.response.text());\n"
    "});\n"
)

_HANDED_ON = (
    "import { Client } from 'discord.js';\n"
    "import { answer } from './ai';\n"
    "\n"
    "const client = new Client({ intents: [] });\n"
    "const history: string[] = [];\n"
    "\n"
    "client.on('messageCreate', async (message) => {\n"
    "  history.push(message.content);\n"
    "  const recent = history.slice(-10);\n"
    "  const text = await answer(recent);\n"
    "  await message.channel.send(text);\n"
    "});\n"
)

_DISCORD = (
    "import { Client, GatewayIntentBits } from 'discord.js';\n"
    "\n"
    "const client = new Client({ intents: [GatewayIntentBits.Guilds] });\n"
    "const history: string[] = [];\n"
    "\n"
    "client.on('messageCreate', async (message) => {\n"
    "  history.push(message.content);\n"
    "  const recent = history.slice(-10);\n"
    "  await message.channel.send(recent.join('\\n'));\n"
    "});\n"
)


def test_a_discord_message_sent_back_is_no_request() -> None:
    assert _codes(_DISCORD, "bot.ts") == []


def test_the_same_window_sent_by_an_object_of_no_platform_is_reported() -> None:
    # Without the SDK's import `client` and `message` are any objects: `send` may ask a model.
    plain = _DISCORD.replace("import { Client, GatewayIntentBits } from 'discord.js';", "")
    assert _codes(plain, "bot.ts") == [(8, "PL303")]


def test_a_telegram_bots_send_message_to_a_chat_is_no_request() -> None:
    assert _codes(_TELEGRAM, "bot.ts") == []


def test_a_telegraf_contexts_reply_is_no_request() -> None:
    assert _codes(_TELEGRAF, "bot.ts") == []


def test_a_slash_commands_reply_to_its_typed_interaction_is_no_request() -> None:
    # `execute(interaction: ChatInputCommandInteraction)`: typed by the SDK, called per command
    assert _codes(_COMMAND, "command.ts") == []


def test_a_bot_that_also_asks_a_model_with_the_window_is_reported() -> None:
    assert _codes(_MIXED, "bot.ts") == [(10, "PL303")]


def test_a_model_clients_send_message_in_a_bot_is_still_a_request() -> None:
    # `chat.sendMessage(...)` on Gemini's chat session: the chat comes from no platform's SDK
    assert _codes(_GEMINI, "bot.ts") == [(10, "PL303")]


def test_a_window_handed_to_the_projects_own_module_is_reported() -> None:
    # `answer(recent)` from `./ai`: a module of the project that may ask a model with it
    assert _codes(_HANDED_ON, "bot.ts") == [(9, "PL303")]


def test_a_platforms_sdk_is_known_by_its_package_not_by_a_local_module() -> None:
    from prefixlock.policies.jscheck.platform import platform_module

    assert platform_module("discord.js")
    assert platform_module("node-telegram-bot-api")
    assert platform_module("@slack/bolt")
    assert platform_module("@line/bot-sdk")
    assert not platform_module("./slack")  # the project's own wrapper may ask a model
    assert not platform_module("readline")
    assert not platform_module("openai")
