"""Testing your own agents: a scripted model in this process, no HTTP, no port, no key.

    from prefixlock.testing import TestModel, Rule, Script, Step

    model = TestModel(Script(rules=[Rule(match="refund", steps=[
        Step(text="Checking.", tool="lookup", input={"number": "INV-7"}),
        Step(text="Refund approved."),
    ])]))
    agent = model.agent(my_prefix, model="claude-sonnet-4-6")   # an ordinary prefixlock Agent
    async with agent.session() as s:
        assert await s.ask("refund INV-7") == "Refund approved."
    assert model.requests[0].body["tools"]                       # what your agent sent

The official SDK builds each request as it would for the provider; instead of a socket, its
HTTP client hands the bytes to the emulator's decisions (`prefixlock.emulator`: the same request
checks, the same prompt-cache rules, the same scripted model and wire formats, streaming
included) and gets the response bytes back. So the whole agent runs, tools, cache accounting,
guard and ledger included, the way it does against a provider, in milliseconds. Faults and
latency are the served emulator's (`Emulator.start()`): this one answers every request.
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from typing import TYPE_CHECKING

from .billing.prices import PriceTable
from .clock import Clock, ManualClock
from .emulator import intake
from .emulator.answers import Answer, error_answer, json_answer, response_answer
from .emulator.apierror import ApiError
from .emulator.config import EmulatorConfig
from .emulator.core import EmulatorCore
from .emulator.intake import RecordedRequest
from .emulator.model import Rule, Script, Step

if TYPE_CHECKING:
    import httpx2

    from .agent import Agent
    from .delegation import Delegator
    from .guard.budget import CacheBudget
    from .prefix import FrozenPrefix
    from .settings import Settings
    from .store.database import SessionStore

__all__ = ["BASE_URL", "Rule", "Script", "Step", "TestModel"]

# Never resolved: the client's transport answers every request in process.
BASE_URL = "http://prefixlock-test.invalid"
TEST_KEY = "test-key"


class TestModel:
    """A scripted model answering the official SDKs in process (see the module doc)."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(
        self,
        script: Script | None = None,
        *,
        clock: Clock | None = None,
        config: EmulatorConfig | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        config = config or EmulatorConfig()
        self.clock: Clock = clock if clock is not None else ManualClock()
        prices = prices or PriceTable.default(config.prices)
        # With no script: answer each turn with the script's default reply (no rules).
        self.core: EmulatorCore = EmulatorCore(
            config, prices, script if script is not None else Script()
        )
        self.requests: list[RecordedRequest] = []  # every request, as it arrived
        self._lock = threading.Lock()
        self._ids = 0

    def http_client(self) -> httpx2.AsyncClient:
        """An async HTTP client for the official SDKs that this model answers."""
        import httpx2

        async def handle(request: httpx2.Request) -> httpx2.Response:
            answer = self.answer(request.url.path, dict(request.headers), request.content)
            content = answer.body if answer.frames is None else b"".join(answer.frames)
            headers = [(k, v) for k, v in answer.headers if k.lower() != "content-length"]
            return httpx2.Response(answer.status, headers=headers, content=content)

        return httpx2.AsyncClient(transport=httpx2.MockTransport(handle))

    def answer(self, target: str, headers: dict[str, str], raw: bytes) -> Answer:
        """The emulator's answer to a POST of `raw` to `target` (what the server would write)."""
        path = intake.post_path(target)
        flavor = intake.flavor_of(path)
        with self._lock:
            self._ids += 1
            rid = f"req_test_{self._ids}"
            now = self.clock.now()
            rec = intake.arrival(path, now)
            self.requests.append(rec)
            try:
                key = intake.api_key({k.lower(): v for k, v in headers.items()})
                content_type = next(
                    (v for k, v in headers.items() if k.lower() == "content-type"), ""
                )
                request = intake.parse(path, key, content_type, raw, rec)
                if request.route.api == "anthropic-count":
                    rec.status = 200
                    return json_answer(200, self.core.count_tokens(request.body))
                plan = self.core.plan(request.route.api, request.body, request.api_key, now)
                self.core.commit(plan, now)
            except ApiError as err:
                rec.error, rec.status = err.message, err.status
                return error_answer(flavor, err, rid)
            rec.usage, rec.machine, rec.status = plan.usage, plan.machine, 200
        return response_answer(
            plan.body, plan.events, api=plan.api, done_marker=plan.done_marker, rid=rid
        )

    def agent(
        self,
        prefix: FrozenPrefix,
        model: str = "claude-sonnet-4-6",
        *,
        settings: Settings | None = None,
        budget: CacheBudget | None = None,
        store: SessionStore | str | os.PathLike[str] | None = None,
        delegator: Delegator | None = None,
    ) -> Agent:
        """A prefixlock `Agent` whose requests this model answers (its clock is this one's)."""
        from .agent import Agent

        return Agent(
            prefix,
            model=model,
            api_key=TEST_KEY,
            base_url=BASE_URL,
            clock=self.clock,
            settings=settings,
            http_client=self.http_client(),
            budget=budget,
            store=store,
            delegator=delegator,
        )


def sample_png(width: int, height: int, *, seed: int = 0) -> bytes:
    """A valid PNG of `width` x `height` (a grey pattern from `seed`, so two seeds are two
    pictures; it compresses well, so a big picture stays a small file), for tests that send
    `prefixlock.Image.from_bytes(...)`."""
    state = seed * 2_654_435_761 % 2**32 or 1
    noise = bytearray()
    for _ in range(width):
        state = (state * 1_103_515_245 + 12_345) % 2**31  # a small LCG: no random import
        noise.append(state >> 23)
    rows = bytearray()
    for y in range(height):
        shift = y % max(1, width)
        rows += b"\x00" + noise[shift:] + noise[:shift]  # filter byte 0, then the row
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows)))
        + chunk(b"IEND", b"")
    )


def sample_pdf(pages: list[str]) -> bytes:
    """A valid PDF with one page per text (Helvetica, one line each), for tests that send
    `prefixlock.Document.from_bytes(...)`."""
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({safe}) Tj ET".encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
