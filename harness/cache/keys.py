"""OpenAI `prompt_cache_key` by prefix family: one key for every session of one stable prefix,
split into shards only while sessions of the family run side by side.

OpenAI routes a request by a hash of its first ~256 tokens combined with `prompt_cache_key`,
and one prefix-and-key combination is served by one machine up to about 15 requests a minute
(docs/providers.md#openai-routing). A key per session sends each new session of a program to
whatever machine its fresh key hashes to, away from the one that holds the shared prefix; one
key for the family keeps sessions that follow each other (a program that runs one session per
task, a resume) on the machine that has it. Sessions that run at once would together pass what
one machine serves (a session in a tool loop sends a request every few seconds), so a session
takes the lowest shard that no other session of the family is using: one that sent a request
in the last `ACTIVE_SECONDS`. Its shard is kept for its life (its own requests stay together).
Pure: time is passed in.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

ACTIVE_SECONDS = 60.0  # a session that sent within this is using its shard
# A session silent this long is forgotten (a long-running proxy sees sessions that never say
# they closed); coming back, it takes the lowest free shard again, as a new one would.
FORGET_SECONDS = 3600.0


def family_key(family: str, shard: int) -> str:
    """The `prompt_cache_key` of shard `shard` of a prefix family (`family`: the stable
    prefix's fingerprint, with the agent's name where it has one). Reveals nothing of either."""
    data = f"{family}\x00{shard}".encode()
    return "pl-" + hashlib.sha256(data).hexdigest()[:24]


@dataclass
class KeyShards:
    """Which sessions use which shard of each family, and when each last sent."""

    _users: dict[str, dict[str, tuple[int, float | None]]] = field(default_factory=dict)

    def take(self, family: str, session_id: str, now: float) -> int:
        """The shard for `session_id`: its own if it holds one, else the lowest shard no other
        session of the family has sent on within `ACTIVE_SECONDS` of `now`."""
        users = self._users.setdefault(family, {})
        if session_id in users:
            return users[session_id][0]
        for sid, (_, last) in list(users.items()):
            if last is not None and now - last > FORGET_SECONDS:
                del users[sid]
        busy = {
            shard
            for sid, (shard, last) in users.items()
            if last is None or now - last < ACTIVE_SECONDS
        }
        shard = 0
        while shard in busy:
            shard += 1
        users[session_id] = (shard, None)
        return shard

    def sent(self, family: str, session_id: str, now: float) -> None:
        """`session_id` sent a request at `now`."""
        users = self._users.get(family)
        if users is not None and session_id in users:
            users[session_id] = (users[session_id][0], now)

    def release(self, family: str, session_id: str) -> None:
        """The session closed: its shard is free for the next one."""
        users = self._users.get(family)
        if users is not None:
            users.pop(session_id, None)
