import datetime

from jinja2 import Template

SYSTEM_TEMPLATE = Template("You are {{ product }}'s assistant. {{ rules }}")
RULES = "Answer from the documentation only."


def system_prompt_for(product: str) -> str:
    return SYSTEM_TEMPLATE.render(product=product, rules=RULES)


def user_turn(question: str) -> dict:
    return {"role": "user", "content": f"[{datetime.datetime.now():%H:%M}] {question}"}
