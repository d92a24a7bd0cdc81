"""A local model's chat template that renders today's date (`strftime_now`) into the text ahead
of every message: PL102 in Python and TypeScript, at the tag that reads the clock; near misses
(no chat template, the date handed in by the caller, the clock outside a tag) not."""

from __future__ import annotations

from tests.helpers.lintfind import lines_of

# Llama 3.1's template, as a project writes it into a module to set on its tokenizer.
_TEMPLATE = (
    "{%- if not date_string is defined %}\\n"
    '    {%- set date_string = strftime_now(\\"%d %b %Y\\") %}\\n'
    "{%- endif %}\\n"
    '{{- \\"<|start_header_id|>system<|end_header_id|>\\\\n\\\\n\\" }}\\n'
    '{{- \\"Today Date: \\" + date_string }}\\n'
    "{%- for message in messages %}{{- message['content'] }}{%- endfor %}\\n"
    "{%- if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>{%- endif %}"
)

PY_MODULE = f'llama_chat_template = "{_TEMPLATE}"\n'

PY_MULTILINE = '''\
CHAT_TEMPLATE = """
{%- set today = strftime_now("%Y-%m-%d") %}
<|im_start|>system
Today is {{ today }}.<|im_end|>
{%- for m in messages %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant{%- endif %}
"""


def load(tok):
    tok.chat_template = CHAT_TEMPLATE
    return tok
'''

TS_MODULE = f'export const llamaChatTemplate = "{_TEMPLATE}";\n'


def test_python_module_constant_is_reported() -> None:
    assert lines_of(PY_MODULE, "PL102", "llms/constants.py") == [1]


def test_python_triple_quoted_template_reported_at_the_clock_line() -> None:
    assert lines_of(PY_MULTILINE, "PL102", "chat.py") == [2]


def test_typescript_template_is_reported() -> None:
    assert lines_of(TS_MODULE, "PL102", "src/template.ts") == [1]


def test_caller_that_hands_the_date_is_not_reported() -> None:
    text = PY_MULTILINE + (
        "\n\ndef render(tok, messages):\n"
        "    return tok.apply_chat_template(messages, date_string='26 Jul 2024')\n"
    )
    assert lines_of(text, "PL102", "chat.py") == []


def test_clock_outside_a_template_tag_is_not_reported() -> None:
    # The renderer's own helper, exposed to Jinja under that name: no template text dates here.
    text = (
        "import datetime\n"
        "from jinja2 import Environment\n\n"
        "def strftime_now(fmt):\n"
        "    return datetime.date(2024, 7, 26).strftime(fmt)\n\n"
        "env = Environment()\n"
        "env.globals['strftime_now'] = strftime_now\n"
        "PROMPT = '{% for message in messages %}{{ message.content }}{% endfor %}'\n"
    )
    assert lines_of(text, "PL102", "render.py") == []


def test_template_text_that_is_no_chat_template_is_not_reported() -> None:
    text = 'REPORT = "Report of {{ strftime_now(\\"%Y\\") }}: {{ total }} rows"\n'
    assert lines_of(text, "PL102", "report.py") == []
