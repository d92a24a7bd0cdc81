"""An incremental Server-Sent Events decoder, as the WHATWG HTML standard parses an event stream
(section 9.2.6): lines end in CRLF, LF or CR (a CR at the end of one chunk and an LF at the start
of the next are one line end), a leading BOM is dropped, `:` starts a comment, a field's value
loses one leading space, and the fields are `event`, `data` (lines joined with LF), `id` (not
when it holds NUL) and `retry` (digits only); a blank line dispatches the event, and an event
without data is not dispatched.

Pure: bytes in, events out. The proxy feeds it the chunks it relays, as they pass.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    """One dispatched event."""

    type: str  # "message" unless the stream named it
    data: str
    id: str  # the last event id, as the stream set it so far
    retry: int | None  # the reconnection time the stream asked for last, in ms


class SSEDecoder:
    """Feed chunks in order; each call returns the events they completed."""

    def __init__(self) -> None:
        self._rest = b""  # an unfinished line
        self._after_cr = False  # the last chunk ended in CR: a leading LF is its pair
        self._started = False
        self._data: list[str] = []
        self._type = ""
        self._id = ""
        self.retry: int | None = None

    def feed(self, chunk: bytes) -> list[Event]:
        if self._after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._after_cr = False
        if not chunk:
            return []
        if not self._started:
            buf = self._rest + chunk
            if len(buf) < 3 and b"\xef\xbb\xbf".startswith(buf):
                self._rest = buf
                return []
            self._started = True
            chunk = buf[3:] if buf.startswith(b"\xef\xbb\xbf") else buf
            self._rest = b""
        # bytes.splitlines splits on exactly LF, CR and CRLF: the three line ends of the format.
        lines = (self._rest + chunk).splitlines(keepends=True)
        self._rest = b""
        if lines and not lines[-1].endswith((b"\n", b"\r")):
            self._rest = lines.pop()
        if chunk.endswith(b"\r"):
            self._after_cr = True
        out: list[Event] = []
        for raw in lines:
            line = raw.rstrip(b"\r\n")
            if not line:
                if self._data:
                    out.append(
                        Event(self._type or "message", "\n".join(self._data), self._id, self.retry)
                    )
                self._data = []
                self._type = ""
                continue
            self._field(line)
        return out

    def _field(self, line: bytes) -> None:
        if line.startswith(b":"):
            return  # a comment (keep-alive pings are sent as these)
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        text = value.decode("utf-8", "replace")
        if name == b"data":
            self._data.append(text)
        elif name == b"event":
            self._type = text
        elif name == b"id":
            if "\x00" not in text:
                self._id = text
        elif name == b"retry" and text.isascii() and text.isdigit():
            self.retry = int(text)
