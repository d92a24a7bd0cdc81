"""The pure simulator engine: prefix trie, LRU stack distances, the one-pass hit-rate curve.

Semantics (the same as Mooncake's `kvcache-simulator`, so results compare to 4 decimals):
- A block is a node of the prefix trie: (parent node, block id). A request hits the longest
  prefix of its blocks that is cached; hits are counted only there.
- After the lookup every missing block of the request is inserted in prompt order. Only leaves
  of the cached trie are evicted (a cached block always has its parent cached) and the request's
  own cached blocks are protected while it inserts.
- The measurement window is the requests after a warm-up fraction; a capacity the cache never
  filled during the warm-up is flagged `underfilled`.

For LRU that eviction rule is a stack algorithm once each request is read deepest block first
(a parent is then always more recent than its children, and the least recent block is a leaf):
a block is cached at capacity C iff fewer than C distinct blocks were used since it was last used.
One pass computes that rank ("stack distance") for every reference with a wavelet matrix (integer
array operations only, so numpy and cupy agree bit for bit) and gives the hit rate at every
capacity at once. A request longer than the capacity is the one exception: the replay then keeps
C - 1 blocks instead of C; a two-state automaton per capacity below the longest request reproduces
that exactly. A TTL adds one condition (the block was used less than TTL seconds ago) and keeps
the ranks: everything more recent than a live block is live too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .backend import NUMPY, Backend
from .trace import Trace

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

COLD = np.int64(2**62)  # rank of a block never seen (or expired): a miss at every capacity


@dataclass(frozen=True)
class Plan:
    """A trace mapped onto its prefix trie, ready for the engine and the replays."""

    nodes: I64  # trie node of each reference (1..n_nodes), numbered in order of first use
    parent: I64  # parent node of each node (index 0 is the root)
    tokens: I64
    starts: I64
    req: I64  # request of each reference
    times: F64
    n_nodes: int
    warmup: int  # requests in the warm-up (not measured)

    @property
    def requests(self) -> int:
        return int(self.starts.shape[0] - 1)

    @property
    def references(self) -> int:
        return int(self.nodes.shape[0])

    @property
    def lengths(self) -> I64:
        return np.diff(self.starts)

    def measured(self) -> B:
        """Per reference: inside the measurement window."""
        return self.req >= self.warmup


def warmup_requests(requests: int, fraction: float) -> int:
    """Requests in the warm-up: floor(requests * fraction), as kvcache-simulator counts them."""
    if not 0.0 <= fraction < 1.0:
        raise ValueError("the warm-up fraction must be in [0, 1)")
    return max(0, min(requests, int(np.floor(requests * fraction))))


def _first_use_numbering(keys: I64) -> tuple[I64, int]:
    """Dense ids 1..n for `keys`, numbered in order of first appearance."""
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(uniq.shape[0], np.int64)
    rank[order] = np.arange(1, uniq.shape[0] + 1, dtype=np.int64)
    return rank[inverse.reshape(-1)], int(uniq.shape[0])


def trie_nodes(ids: I64, starts: I64) -> tuple[I64, I64, int]:
    """Map each reference to its trie node (parent node, id); returns nodes, parents, count.

    Chained ids (each id always follows the same parent id) already name their node, which is
    checked in one vectorized pass; otherwise the trie is built level by level.
    """
    n = ids.shape[0]
    head = np.zeros(n, bool)
    head[starts[:-1][np.diff(starts) > 0]] = True
    nodes, count = _first_use_numbering(ids)
    par_ref = np.empty(n, np.int64)
    par_ref[1:] = nodes[:-1]
    par_ref[head] = 0
    parent = np.zeros(count + 1, np.int64)
    parent[nodes] = par_ref  # with chained ids every write for a node agrees
    if n and not np.array_equal(parent[nodes], par_ref):
        # Some id appears under two different parents: key every reference by its full path,
        # level by level (one vectorized unique per depth).
        lengths = np.diff(starts)
        depth = np.arange(n, dtype=np.int64) - np.repeat(starts[:-1], lengths)
        path = np.zeros(n, np.int64)
        order = np.argsort(depth, kind="stable")
        bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
        issued = 0
        for d in range(bounds.shape[0] - 1):
            sel = order[bounds[d] : bounds[d + 1]]
            above = path[sel - 1] if d else np.zeros(sel.shape[0], np.int64)
            uniq, inv = np.unique(above * (count + 1) + nodes[sel], return_inverse=True)
            path[sel] = inv.reshape(-1) + issued + 1
            issued += int(uniq.shape[0])
        del order, depth
        nodes, count = _first_use_numbering(path)
        del path
        par_ref[1:] = nodes[:-1]
        par_ref[head] = 0
        parent = np.zeros(count + 1, np.int64)
        parent[nodes] = par_ref
    return nodes, parent, count


def plan(trace: Trace, *, warmup: float = 0.5, share: bool = True) -> Plan:
    """Map `trace` onto its prefix trie. `share=False` keys every block by its tenant too."""
    ids = trace.ids
    if not share:
        tenant = np.repeat(trace.tenant, trace.lengths)
        _, tkey = np.unique(np.stack([tenant, ids], axis=1), axis=0, return_inverse=True)
        ids = tkey.reshape(-1).astype(np.int64)
    nodes, parent, count = trie_nodes(ids, trace.starts)
    req = np.repeat(np.arange(trace.requests, dtype=np.int64), trace.lengths)
    return Plan(
        nodes=nodes,
        parent=parent,
        tokens=trace.tokens.astype(np.int64),
        starts=trace.starts,
        req=req,
        times=trace.times,
        n_nodes=count,
        warmup=warmup_requests(trace.requests, warmup),
    )


def next_request(p: Plan) -> I64:
    """For each reference, the next request that uses its node (requests + 1 if none)."""
    order = np.lexsort((np.arange(p.references), p.nodes))
    nxt = np.full(p.references, p.requests + 1, np.int64)
    same = p.nodes[order[1:]] == p.nodes[order[:-1]]
    nxt[order[:-1][same]] = p.req[order[1:][same]]
    return nxt


# --- stack distances ------------------------------------------------------------------------


def _count_less(xp: Any, values: Any, bits: int, end: Any, bound: Any) -> Any:
    """#{j < end[q] : values[j] < bound[q]} for every query q (a wavelet matrix, level by level)."""
    n = values.shape[0]
    cur = values
    lo = xp.zeros(end.shape[0], values.dtype)
    hi = end.astype(values.dtype)
    res = xp.zeros(end.shape[0], values.dtype)
    r0 = xp.zeros(n + 1, values.dtype)
    for level in range(bits - 1, -1, -1):
        mask = 1 << level
        zero = (cur & mask) == 0
        r0[1:] = xp.cumsum(zero, dtype=values.dtype)
        nz = r0[n]
        qb = (bound & mask) != 0
        # Queries whose bound has this bit set count the zeros in their range and move to the
        # ones' side of the next level; the others follow the zeros.
        a = r0[lo]
        b = r0[hi]
        res += xp.where(qb, b - a, 0)
        lo = xp.where(qb, lo - a + nz, a)
        del a
        hi = xp.where(qb, hi - b + nz, b)
        del b, qb
        ones = cur[~zero]
        cur = xp.concatenate([cur[zero], ones])
        del ones, zero
    return res


def stack_ranks(p: Plan, backend: Backend = NUMPY) -> tuple[I64, I64]:
    """LRU rank of every reference at the start of its request, and the request it was last used.

    rank = distinct blocks used since this block was last used (COLD if never used); a block is
    cached at capacity C iff rank < C (see the module docstring for the ordering that makes this
    exact). The second array is the previous request using the node (-1 if none), for TTLs.
    """
    xp = backend.xp
    n = p.references
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    dt = np.int32 if n < 2**30 else np.int64
    starts = xp.asarray(p.starts.astype(dt))
    req = xp.asarray(p.req.astype(dt))
    s = starts[req]
    pos = starts[req + 1] - 1 - xp.arange(n, dtype=dt)
    pos += s  # deepest block first inside each request
    del starts
    stream = xp.empty(n, dtype=np.int64)
    stream[pos] = xp.asarray(p.nodes)
    order = xp.argsort(stream, kind="stable")
    same = stream[order[1:]] == stream[order[:-1]]
    del stream
    prev = xp.full(n, -1, dtype=dt)
    nxt = xp.full(n, n, dtype=dt)
    lo_idx = order[:-1][same]
    hi_idx = order[1:][same]
    del order, same
    prev[hi_idx] = lo_idx
    nxt[lo_idx] = hi_idx
    del lo_idx, hi_idx
    first = prev < 0
    distinct = xp.zeros(n + 1, dtype=dt)
    distinct[1:] = xp.cumsum(first, dtype=dt)
    # Per reused reference (in stream order): its previous use, its request's start in the
    # stream, and how many distinct blocks came before that start.
    q = xp.flatnonzero(~first).astype(dt)
    del first
    pq = prev[q]
    del prev
    s_stream = xp.empty(n, dtype=dt)
    s_stream[pos] = s
    del s
    sq = s_stream[q]
    del s_stream
    dq = distinct[sq]
    del distinct
    req_stream = xp.empty(n, dtype=dt)
    req_stream[pos] = req
    del req
    bits = max(1, int(n).bit_length())
    dq -= (pq + 1) - _count_less(xp, nxt, bits, pq + 1, sq)
    del nxt, sq
    rank_stream = xp.full(n, int(COLD), dtype=np.int64)
    rank_stream[q] = dq
    del dq
    rank = backend.asnumpy(rank_stream[pos])
    del rank_stream
    prev_req_stream = xp.full(n, -1, dtype=np.int64)
    prev_req_stream[q] = req_stream[pq]
    del req_stream, pq, q
    prev_req = backend.asnumpy(prev_req_stream[pos])
    return rank, prev_req


def concat_plans(plans: list[Plan]) -> Plan:
    """Many plans as one: node ids are offset so no two plans share a block. Stack ranks of the
    result, cut back apart, equal each plan's own (a previous use never crosses a boundary), so
    a sweep can hand one large array job to the GPU instead of many small ones."""
    offset = 0
    ref_off = 0
    nodes, tokens, starts, req, times = [], [], [np.zeros(1, np.int64)], [], []
    req_off = 0
    for q in plans:
        nodes.append(q.nodes + offset)
        tokens.append(q.tokens)
        starts.append(q.starts[1:] + ref_off)
        req.append(q.req + req_off)
        times.append(q.times)
        offset += q.n_nodes
        ref_off += q.references
        req_off += q.requests
    return Plan(
        nodes=np.concatenate(nodes),
        parent=np.zeros(offset + 1, np.int64),  # not needed for ranks
        tokens=np.concatenate(tokens),
        starts=np.concatenate(starts),
        req=np.concatenate(req),
        times=np.concatenate(times),
        n_nodes=offset,
        warmup=0,
    )


def batch_ranks(plans: list[Plan], backend: Backend = NUMPY) -> list[tuple[I64, I64]]:
    """`stack_ranks` of each plan, computed in one pass over their concatenation."""
    rank, prev = stack_ranks(concat_plans(plans), backend)
    out = []
    ref = 0
    req = 0
    for q in plans:
        pr = prev[ref : ref + q.references]
        out.append((rank[ref : ref + q.references], np.where(pr >= 0, pr - req, -1)))
        ref += q.references
        req += q.requests
    return out


def effective_ranks(p: Plan, rank: I64, prev_req: I64, ttl: float | None) -> I64:
    """Ranks with expired blocks made cold: a block idle for `ttl` seconds or more is gone."""
    if ttl is None:
        return rank
    gap = p.times[p.req] - p.times[np.maximum(prev_req, 0)]
    return np.where((prev_req >= 0) & (gap < ttl), rank, COLD)


# --- hits from ranks ----------------------------------------------------------------------------


def _shortfall(p: Plan, rank: I64, chunk_cells: int = 4_000_000) -> B:
    """Per reference: cached by rank at capacity rank + 1, yet not cached in the replay.

    A request longer than the capacity C leaves only C - 1 of its blocks cached (the last one
    inserted is evicted to make room for the next, which then cannot join a missing parent),
    unless its first C blocks were all cached already. From then on the cache holds the top
    C - 1 of the LRU stack until a request inserts a block. Per capacity that is a two-state
    automaton (1: top C, 0: top C - 1) whose transitions are constants or the identity, so the
    state before each request is a forward fill. In state 0 exactly the block of rank C - 1 is
    lost, hence one flag per reference. Only capacities below the longest request need this.
    """
    flags = np.zeros(p.references, bool)
    width = (int(p.lengths.max()) if p.requests else 0) - 1  # capacities 1..width
    if width <= 0:
        return flags
    caps = np.arange(1, width + 1, dtype=np.int32)[None, :]
    carry = np.ones(width, np.int8)
    step = max(1, chunk_cells // width)
    # The first C blocks have ranks 0..C-1 exactly iff block C-1 has rank C-1 (ranks rise along a
    # request and rank >= depth), so "top C = this request's head" holds for C <= head[r]: the
    # number of leading blocks whose rank equals their depth.
    depth = np.arange(p.references, dtype=np.int64) - p.starts[p.req]
    head = np.bincount(p.req, weights=rank == depth, minlength=p.requests).astype(np.int32)
    del depth
    lengths_all = np.minimum(p.lengths, width + 1).astype(np.int32)
    last_all = np.minimum(rank[p.starts[1:] - 1], width + 1).astype(np.int32)
    cols = np.arange(width)
    for r0 in range(0, p.requests, step):
        r1 = min(p.requests, r0 + step)
        n = r1 - r0
        # Row 0 holds the state carried in; row k + 1 the transition of request r0 + k. The
        # state before request r0 + k is the value of the last non-identity row among 0..k.
        val = np.empty((n + 1, width), np.int8)
        val[0] = carry
        val[1:] = np.where(
            caps < lengths_all[r0:r1, None],
            np.where(caps <= head[r0:r1, None], np.int8(-1), np.int8(0)),
            np.where(caps <= last_all[r0:r1, None] + 1, np.int8(1), np.int8(-1)),
        )
        fill = np.where(val >= 0, np.arange(n + 1, dtype=np.int32)[:, None], np.int32(0))
        np.maximum.accumulate(fill, axis=0, out=fill)
        e0, e1 = int(p.starts[r0]), int(p.starts[r1])
        d = rank[e0:e1]
        sel = np.flatnonzero(d < width)
        row = p.req[e0:e1][sel] - r0
        col = d[sel]
        flags[e0 + sel] = val[fill[row, col], col] == 0
        carry = val[fill[n], cols]
    return flags


def hit_mask(p: Plan, rank: I64, capacity: int | None, shortfall: B | None = None) -> B:
    """Per reference: cached when its request arrives, at `capacity` blocks (None: unbounded)."""
    if capacity is not None and capacity <= 0:
        raise ValueError("capacity must be positive")
    hit = rank < (COLD if capacity is None else capacity)
    if capacity is not None and p.requests and capacity < int(p.lengths.max()):
        sf = _shortfall(p, rank) if shortfall is None else shortfall
        hit &= ~(sf & (rank == capacity - 1))
    return hit


def request_hits(
    p: Plan, rank: I64, capacity: int | None, shortfall: B | None = None
) -> tuple[I64, I64]:
    """Blocks and tokens each request finds cached at `capacity` (None: unbounded)."""
    hit = hit_mask(p, rank, capacity, shortfall)
    blocks = np.bincount(p.req, weights=hit, minlength=p.requests)
    toks = np.bincount(p.req, weights=np.where(hit, p.tokens, 0), minlength=p.requests)
    return np.rint(blocks).astype(np.int64), np.rint(toks).astype(np.int64)


@dataclass(frozen=True)
class Curve:
    """Measured hits at every capacity 1..max_capacity (index C - 1), LRU, one pass."""

    capacities: I64
    hit_blocks: I64
    hit_tokens: I64
    total_blocks: int
    total_tokens: int
    warmup_unique: int  # distinct blocks of the warm-up: larger capacities never fill

    @property
    def token_rate(self) -> F64:
        return self.hit_tokens / max(self.total_tokens, 1)

    @property
    def block_rate(self) -> F64:
        return self.hit_blocks / max(self.total_blocks, 1)

    def at(self, capacity: int) -> tuple[float, float]:
        """(token hit rate, block hit rate) at `capacity` blocks."""
        i = min(capacity, int(self.capacities[-1])) - 1
        return float(self.token_rate[i]), float(self.block_rate[i])

    def underfilled(self, capacity: int, warmup: int) -> bool:
        return warmup > 0 and capacity > self.warmup_unique


def lru_curve(p: Plan, rank: I64, max_capacity: int | None = None) -> Curve:
    """Measured LRU hits at every capacity from 1 to `max_capacity` (default: every block)."""
    top = max(1, p.n_nodes if max_capacity is None else max_capacity)
    meas = p.measured()
    r = rank[meas]
    tok = p.tokens[meas]
    v = np.minimum(r, top)
    hb = np.cumsum(np.bincount(v, minlength=top + 1))[:top].astype(np.int64)
    ht = np.rint(np.cumsum(np.bincount(v, weights=tok, minlength=top + 1))[:top]).astype(np.int64)
    sf = _shortfall(p, rank)
    lost = sf & meas & (rank < top)
    if lost.any():
        # a lost block of rank d changes the capacity d + 1 only
        hb -= np.bincount(rank[lost], minlength=top)[:top]
        lt = np.bincount(rank[lost], weights=p.tokens[lost], minlength=top)[:top]
        ht -= np.rint(lt).astype(np.int64)
    first_use = np.zeros(p.n_nodes + 1, bool)
    warm_refs = int(p.starts[p.warmup])
    first_use[p.nodes[:warm_refs]] = True
    return Curve(
        capacities=np.arange(1, top + 1, dtype=np.int64),
        hit_blocks=hb,
        hit_tokens=ht,
        total_blocks=int(meas.sum()),
        total_tokens=int(tok.sum()),
        warmup_unique=int(first_use.sum()),
    )
