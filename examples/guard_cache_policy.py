"""Decide how a session meets idle gaps and model switches (prefixlock.guard.policy.CachePolicy).

`plan_idle` prices doing nothing, keep-alive pings and a 1-hour TTL over the idle gaps you
expect (here: a day of 40 turns with some coffee breaks and a lunch) and picks the cheapest; on
an OpenAI model the long option is the day-long retention (`Settings(retention="24h")`),
which `IdlePlan.settings` sets. `switch_action` reads the guard's switch quote: switch, stay on
the warm model, or (the default `switch="auto"`) delegate the turn's work to a subagent on the
new model when the quote's subagent alternative beats both. Pure: no emulator, no key.
"""

from __future__ import annotations

from decimal import Decimal

from prefixlock.billing.prices import PriceTable
from prefixlock.guard.policy import CachePolicy, plan_idle
from prefixlock.guard.quote import Alternative, Quote
from prefixlock.settings import Settings


def main() -> None:
    price = PriceTable.builtin().require("claude-sonnet-4-6")
    gaps = [45.0] * 34 + [360.0, 600.0, 900.0, 1500.0, 2400.0, 90 * 60.0]
    # cold_tokens: the session's first write of its 22K-token prefix (a 1-hour TTL bills it at
    # 2x too, not only the turns' new messages).
    plan = plan_idle(
        gaps,
        turns=40,
        context_tokens=40_000,
        written_per_turn=2_000,
        cold_tokens=22_000,
        price=price,
    )
    print(plan.reason)
    settings = Settings(ttl=plan.ttl)  # what the session is created with
    print(
        f"settings.ttl={settings.ttl}, pings={'on' if plan.mode == 'pings' else 'off'}",
        f"max_idle={plan.max_idle}",
    )
    # The same day on gpt-5: no write fee, a 10-minute in-memory cache, a free day-long one.
    openai_plan = plan_idle(
        gaps,
        turns=40,
        context_tokens=40_000,
        written_per_turn=2_000,
        cold_tokens=22_000,
        price=PriceTable.builtin().require("gpt-5"),
    )
    print("gpt-5:", openai_plan.reason)
    print("gpt-5 settings.retention =", openai_plan.settings(Settings()).retention)
    # A quote as Session.quote_switch returns it: 29K cached tokens, break-even in 9 requests,
    # and its subagent alternative (priced by guard.economics): cheaper than switching, and the
    # advisor says cheaper than staying too.
    subagent = Alternative(
        "subagent",
        "run the work in a subagent on claude-haiku-4-5",
        Decimal("0.0119"),
        {"cheaper": "subagent", "task": {"turns": 3}, "advice": {"recommend": True}},
    )
    quote = Quote(
        "switch_model",
        "s1",
        "state",
        "claude-sonnet-4-6",
        "claude-haiku-4-5",
        29_000,
        Decimal("0.0553"),
        None,
        None,
        9,
        280.0,
        29_500,
        0.0,
        (subagent,),
    )
    for policy in (CachePolicy(), CachePolicy(switch="quote")):
        # "delegate": `await s.delegate(prompt, agent=policy.delegate_agent, model=new)`.
        print(
            f"switch={policy.switch}: one turn on haiku:",
            policy.switch_action(quote, 1),
            "| the rest of the day on haiku:",
            policy.switch_action(quote, 30),
        )


if __name__ == "__main__":
    main()
