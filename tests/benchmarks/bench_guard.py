"""Figures for the cache guard and the session store (run: python -m tests.benchmarks.bench_guard).

1. Switch quote vs what the emulator bills: a 30-turn session switched Opus -> Sonnet at turn
   20, against a twin session that stays (the baseline of the same run).
2. The guard's work per turn at 10K / 100K / 1M tokens of context, beside the request builder's
   (the baseline), for Anthropic and OpenAI rules.
3. The store: bytes kept vs bytes sent over a long session, and the time to write a turn.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from decimal import Decimal
from pathlib import Path

from prefixlock.billing.prices import PriceTable
from prefixlock.billing.usage import Usage
from prefixlock.canonical import canonical_bytes
from prefixlock.events import UsageReport
from prefixlock.guard.cacheguard import CacheGuard
from prefixlock.prefix import FrozenPrefix
from prefixlock.providers import SessionInfo, make_builder
from prefixlock.settings import Settings
from prefixlock.store.database import SessionStore
from prefixlock.transcript import Message
from tests.helpers.guardkit import advance, agent, of, run_turns, start_emulator, turn


async def switch_agreement() -> None:
    text = "Turn 21: look at src/app.py and tell me what f21 does."
    with start_emulator() as ea, start_emulator() as eb:
        async with agent(ea).session("a") as a, agent(eb).session("b") as b:
            await run_turns(ea, a, 20)
            await run_turns(eb, b, 20)
            q = a.quote_switch("claude-sonnet-4-6")
            a.switch_model("claude-sonnet-4-6", quote=q)
            ua = of(await turn(a, text), UsageReport)[0].usage
            ub = of(await turn(b, text), UsageReport)[0].usage
    sonnet = PriceTable.default().require("claude-sonnet-4-6")
    billed = ub.cache_read * (sonnet.write_5m - sonnet.cache_read) / 1_000_000
    input_a = sonnet.cost(Usage(ua.uncached_input, ua.cache_read, ua.cache_write_5m, 0, 0))
    assert q.dollars is not None and q.with_action is not None
    print("1. switch quote vs emulator (Opus 4.7 -> Sonnet 4.6 after turn 20)")
    print(
        f"   tokens re-billed: quote {q.tokens_rebilled:,}, emulator {ub.cache_read:,} "
        f"({(q.tokens_rebilled - ub.cache_read) / ub.cache_read:+.3%})"
    )
    print(
        f"   re-bill dollars:  quote ${q.dollars:.5f}, emulator ${billed:.5f} "
        f"({float((q.dollars - billed) / billed):+.3%})"
    )
    wi = q.with_action.input_dollars or Decimal(0)
    print(
        f"   next-turn input:  quote ${wi:.5f}, emulator ${input_a:.5f} "
        f"({float((wi - input_a) / input_a):+.3%})"
    )
    print(f"   break-even {q.break_even_turns} turns, warm {q.warm_seconds:.0f}s")


def guard_cost() -> None:
    print("2. guard work per turn (ms), request building as the baseline")
    for api, model in (("anthropic", "claude-opus-4-7"), ("openai-chat", "gpt-5.4")):
        for ctx in (10_000, 100_000, 1_000_000):
            builder = make_builder(api, model)
            prefix = FrozenPrefix(system="rules " * 3000)
            msgs: list[Message] = []
            for i in range(ctx // 600):
                msgs += [Message.user(f"file {i} " + "word " * 300), Message.assistant("ok")]
            g = CacheGuard()
            tb = tg = 0.0
            for k in range(8):
                msgs.append(Message.user(f"new {k} " + "word " * 100))
                t0 = time.perf_counter()
                r = builder.build_request(prefix, msgs, Settings(), SessionInfo("s"))
                t1 = time.perf_counter()
                p = g.predict(r, k * 10.0)
                g.observe(r, p, Usage(p.uncached, p.read, p.write_5m, p.write_1h, 5), k * 10.0)
                t2 = time.perf_counter()
                if k >= 3:
                    tb, tg = tb + t1 - t0, tg + t2 - t1
                msgs.append(Message.assistant(f"answer {k}"))
            print(
                f"   {api:<12} {r.input_tokens:>9,} tokens: build {tb / 5 * 1e3:6.2f}  "
                f"guard {tg / 5 * 1e3:6.2f}"
            )


async def store_growth() -> None:
    print("3. store: bytes kept vs bytes sent, time per turn write")
    with tempfile.TemporaryDirectory() as tmp, start_emulator() as emu:
        path = Path(tmp) / "s.sqlite"
        store = SessionStore(path)
        async with agent(emu, store=store).session("s") as s:
            t_write = 0.0
            for i in range(60):
                t0 = time.perf_counter()
                await turn(s, f"Turn {i}: what does f{i} do?")
                t_write += time.perf_counter() - t0
                advance(emu, 10)
            sent = sum(len(canonical_bytes(r.body)) for r in s.requests)
            last = len(canonical_bytes(s.requests[-1].body))
        stats = store.stats()
        t0 = time.perf_counter()
        bodies = [r.body for r in store.requests("s")]
        t_read = time.perf_counter() - t0
        store.close()
        size = path.stat().st_size
    kept = stats["blob_bytes"] + stats["skeleton_bytes"]
    print(
        f"   60 turns, {len(bodies)} requests: sent {sent / 1e6:.1f} MB, "
        f"kept {kept / 1e6:.2f} MB ({kept / last:.2f}x the last body), file {size / 1e6:.2f} MB"
    )
    print(
        f"   whole turn incl. emulator round trips {t_write / 60 * 1e3:.1f} ms; "
        f"rebuilding all {len(bodies)} bodies {t_read * 1e3:.0f} ms"
    )


def test_bench_guard() -> None:
    asyncio.run(switch_agreement())
    guard_cost()
    asyncio.run(store_growth())


if __name__ == "__main__":
    test_bench_guard()
