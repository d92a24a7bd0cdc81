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

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from collections.abc import Sequence
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
    """Dense ids 1..n for `keys`, numbered in order of first appearance.

    Keys that already count up from their first value in order of first use (each new key is
    one more than the largest before it, as Mooncake's hash ids do) are that numbering shifted,
    checked in one pass; others take one stable sort."""
    n = keys.shape[0]
    if n == 0:
        return np.zeros(0, np.int64), 0
    base = int(keys[0])
    top = np.maximum.accumulate(keys)
    if int(keys.min()) == base and bool((keys[1:] <= top[:-1] + 1).all()):
        # By induction the keys seen before i are exactly base..top[i-1], so a key is new iff
        # it is top[i-1] + 1, and the k-th new key is base + k - 1.
        return keys - (base - 1), int(top[-1]) - base + 1
    del top
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.empty(n, bool)  # the first of each run of equal keys in sorted order
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered
    firsts = order[new]  # each key's first reference (the sort is stable)
    first = np.zeros(n, bool)
    first[firsts] = True
    number = np.cumsum(first)[firsts]  # each key's rank in order of first use
    nodes = np.empty(n, np.int64)
    nodes[order] = number[np.cumsum(new) - 1]
    return nodes, int(number.shape[0])


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


def _count_less(
    xp: Any, values: Any, bits: int, end: Any, bound: Any, weights: Any | None = None
) -> Any:
    """Sum of weights[j] (1 without weights) over j < end[q] with values[j] < bound[q], for every
    query q (a wavelet matrix, level by level).

    Values and bounds must be below 2**bits; every array has the dtype of `values`. A query's
    bit selects its update by arithmetic, and each level's stable partition is two `compress`
    calls: on a CPU both beat `where` and boolean masks, whose branches follow random bits."""
    n = values.shape[0]
    dt = values.dtype
    cur = values
    w = weights
    lo = xp.zeros(end.shape[0], dtype=dt)
    hi = end.astype(dt)
    res = xp.zeros(end.shape[0], dtype=dt)
    zeros = xp.zeros(n + 1, dtype=dt)  # zeros[i]: values before i whose bit is 0
    summed = zeros if w is None else xp.zeros(n + 1, dtype=dt)  # ... and their weights
    for level in range(bits - 1, -1, -1):
        bit = (cur >> level) & 1
        zero = bit == 0
        zeros[1:] = xp.cumsum(zero, dtype=dt)
        nz = zeros[n]
        if w is not None:
            summed[1:] = xp.cumsum(zero * w, dtype=dt)
        # Queries whose bound has this bit set count the zeros in their range and move to the
        # ones' side of the next level; the others follow the zeros.
        qb = (bound >> level) & 1
        a = zeros[lo]
        b = zeros[hi]
        res += qb * ((b - a) if w is None else (summed[hi] - summed[lo]))
        lo = a + qb * (lo + nz - 2 * a)
        hi = b + qb * (hi + nz - 2 * b)
        del a, b, qb
        if level:
            one = bit.astype(bool)
            cur = xp.concatenate([xp.compress(zero, cur), xp.compress(one, cur)])
            if w is not None:
                w = xp.concatenate([xp.compress(zero, w), xp.compress(one, w)])
            del one
        del bit, zero
    return res


def stack_ranks(p: Plan, backend: Backend = NUMPY) -> tuple[I64, I64]:
    """LRU rank of every reference at the start of its request, and the request it was last used.

    rank = distinct blocks used since this block was last used (COLD if never used); a block is
    cached at capacity C iff rank < C (see the module docstring for the ordering that makes this
    exact). The second array is the previous request using the node (-1 if none), for TTLs.

    In the stream (requests in order, each deepest block first) a reuse at request r of a block
    last used at stream position s, in request a, has rank = #{distinct blocks before r} -
    (s + 1) + #{positions <= s whose block is used again before r}. A block deeper than that
    one in request a is next used no earlier than r (a request holding it holds its whole
    prefix), so the last term counts the uses in requests before a whose next use is in a
    request before r: pairs (request, request of the next use), of which a trace has few
    distinct ones (conversation_trace: 17k for 106k reuses). Read in trace order they come
    sorted (by request, then by next request, which cannot fall along a request's blocks), so
    one pass counts them, and a wavelet matrix of the distinct pairs, weighted by those counts,
    answers every reuse.
    """
    n = p.references
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if backend.device:
        xp = backend.xp
        rank, prev = device_ranks(
            xp, xp.asarray(p.nodes), xp.asarray(p.req), xp.asarray(p.starts), p.requests
        )
        return backend.asnumpy(rank), backend.asnumpy(prev)
    xp = np
    dt = np.int32 if n < 2**30 else np.int64  # the wavelet matrix's values
    R = p.requests
    nodes = xp.asarray(p.nodes)
    # Consecutive uses of each node (a node appears at most once per request: a request is a
    # path of the trie).
    order = xp.argsort(nodes, kind="stable")
    by_node = nodes[order]
    k = xp.flatnonzero(by_node[1:] == by_node[:-1])
    del nodes, by_node
    next_use = xp.full(n, -1, dtype=np.int64)
    next_use[order[k]] = order[k + 1]
    del order, k
    j = xp.flatnonzero(next_use >= 0)  # the references used again, in trace order ...
    i = next_use[j]  # ... and their next uses
    del next_use
    rank = xp.full(n, int(COLD), dtype=np.int64)
    prev_req = xp.full(n, -1, dtype=np.int64)
    m = j.shape[0]
    if m:
        req = xp.asarray(p.req)
        starts = xp.asarray(p.starts)
        a = req[j]
        r = req[i]
        del req
        new = xp.empty(m, dtype=bool)  # the first of each run of equal (a, r) pairs
        new[0] = True
        new[1:] = (a[1:] != a[:-1]) | (r[1:] != r[:-1])
        run = xp.cumsum(new, dtype=dt) - 1
        first = xp.flatnonzero(new)
        del new
        pa = a[first]
        pr = r[first].astype(dt)
        weight = xp.empty(first.shape[0], dtype=dt)
        weight[:-1] = first[1:] - first[:-1]
        weight[-1:] = m - first[-1:]
        del first
        # pairs of earlier requests than each pair's own
        earlier = xp.zeros(R + 1, dtype=dt)
        earlier[1:] = xp.cumsum(xp.bincount(pa, minlength=R), dtype=dt)
        bits = max(1, int(R - 1).bit_length())
        again = _count_less(xp, pr, bits, earlier[pa], pr, weight)[run]
        del pa, pr, weight, earlier, run
        # distinct blocks before request r: its start less the reuses in earlier requests
        reuses = xp.zeros(R + 1, dtype=np.int64)
        reuses[1:] = xp.cumsum(xp.bincount(r, minlength=R), dtype=np.int64)
        # stream position of j, plus one: its request's blocks run deepest first
        after_j = starts[a] + starts[a + 1] - j
        rank[i] = starts[r] - reuses[r] - after_j + again
        del again, reuses, after_j
        prev_req[i] = a
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


def _shortfall(
    p: Plan, rank: I64, only: B | None = None, steps: int = 8, chunk_cells: int = 4_000_000
) -> B:
    """Per reference: cached by rank at capacity rank + 1, yet not cached in the replay.

    A request longer than the capacity C leaves only C - 1 of its blocks cached (the last one
    inserted is evicted to make room for the next, which then cannot join a missing parent),
    unless its first C blocks were all cached already. From then on the cache holds the top
    C - 1 of the LRU stack until a request inserts a block. Per capacity that is a two-state
    automaton (1: top C, 0: top C - 1) whose transitions are constants or the identity, so the
    state before a request is set by the last request before it that is not the identity. In
    state 0 exactly the block of rank C - 1 is lost, hence one flag per reference. Only
    capacities below the longest request need this. `only`: the references to look at (the
    others are left False); `steps`: requests stepped back before the forward fill.

    Request r sets the state of capacity C to 0 iff head[r] < C < len[r], and to 1 iff
    len[r] <= C <= last[r] + 1, which almost every request does for almost every C; so
    each flag is read from the request before, stepping back a few requests where that one left
    the state alone, and the rare rest come from a forward fill over just their capacities.
    """
    flags = np.zeros(p.references, bool)
    width = (int(p.lengths.max()) if p.requests else 0) - 1  # capacities 1..width
    if width <= 0:
        return flags
    low = rank < width
    q = np.flatnonzero(low if only is None else low & only)
    if not q.shape[0]:
        return flags
    # The first C blocks have ranks 0..C-1 exactly iff block C-1 has rank C-1 (ranks rise along a
    # request and rank >= depth), so "top C = this request's head" holds for C <= head[r]: the
    # number of leading blocks whose rank equals their depth, counted up to `width` (which
    # decides the same for every C <= width) among the blocks of rank below it.
    below = np.flatnonzero(low)
    r_low = p.req[below]
    head = np.bincount(r_low[rank[below] == below - p.starts[r_low]], minlength=p.requests)
    del low, below, r_low
    lengths = p.lengths
    last = rank[p.starts[1:] - 1]
    cap = rank[q] + 1
    cand = p.req[q] - 1  # the request that may have set the state before this one
    state = np.ones(q.shape[0], np.int8)  # no request before: the cache holds the top C
    todo = np.arange(q.shape[0])
    for _ in range(steps):
        live = cand >= 0
        todo, cand, c = todo[live], cand[live], cap[todo[live]]
        if not todo.shape[0]:
            break
        L = lengths[cand]
        short = c < L
        sets = np.where(short, head[cand] < c, c <= last[cand] + 1)
        state[todo[sets]] = ~short[sets]
        keep = ~sets
        todo, cand = todo[keep], cand[keep] - 1
    else:
        todo = todo[cand >= 0]
        if todo.shape[0]:
            state[todo] = _fill_states(
                head,
                np.minimum(lengths, width + 1),
                np.minimum(last, width + 1),
                p.req[q[todo]],
                cap[todo],
                chunk_cells,
            )
    flags[q] = state == 0
    return flags


def _fill_states(
    head: I64, lengths: I64, last: I64, q_req: I64, q_cap: I64, chunk_cells: int
) -> npt.NDArray[np.int8]:
    """The automaton state of `_shortfall` at capacity q_cap[i] before request q_req[i], by a
    forward fill over the requests for just the capacities asked about."""
    caps_all, col = np.unique(q_cap, return_inverse=True)
    col = col.reshape(-1)
    width = caps_all.shape[0]
    caps = caps_all[None, :]
    order = np.argsort(q_req, kind="stable")
    sorted_req = q_req[order]
    out = np.empty(q_req.shape[0], np.int8)
    end = int(sorted_req[-1])  # states before this request are enough
    carry = np.ones(width, np.int8)
    step = max(1, chunk_cells // width)
    cols = np.arange(width)
    for r0 in range(0, end, step):
        r1 = min(end, r0 + step)
        n = r1 - r0
        # Row 0 holds the state carried in; row k + 1 the transition of request r0 + k. The
        # state before request r0 + k is the value of the last non-identity row among 0..k.
        val = np.empty((n + 1, width), np.int8)
        val[0] = carry
        val[1:] = np.where(
            caps < lengths[r0:r1, None],
            np.where(caps <= head[r0:r1, None], np.int8(-1), np.int8(0)),
            np.where(caps <= last[r0:r1, None] + 1, np.int8(1), np.int8(-1)),
        )
        fill = np.where(val >= 0, np.arange(n + 1, dtype=np.int32)[:, None], np.int32(0))
        np.maximum.accumulate(fill, axis=0, out=fill)
        lo, hi = np.searchsorted(sorted_req, [r0, r1 + 1] if r1 == end else [r0, r1])
        sel = order[lo:hi]
        row, c = q_req[sel] - r0, col[sel]
        out[sel] = val[fill[row, c], c]
        carry = val[fill[n], cols]
    return out


def hit_mask(p: Plan, rank: I64, capacity: int | None, shortfall: B | None = None) -> B:
    """Per reference: cached when its request arrives, at `capacity` blocks (None: unbounded)."""
    if capacity is not None and capacity <= 0:
        raise ValueError("capacity must be positive")
    hit = rank < (COLD if capacity is None else capacity)
    if capacity is not None and p.requests and capacity < int(p.lengths.max()):
        sf = _shortfall(p, rank, rank == capacity - 1) if shortfall is None else shortfall
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
    w0 = int(p.starts[p.warmup])  # the measured references are the ones from here on
    r = rank[w0:]
    tok = p.tokens[w0:]
    v = np.minimum(r, top)
    hb = np.cumsum(np.bincount(v, minlength=top + 1))[:top].astype(np.int64)
    ht = np.rint(np.cumsum(np.bincount(v, weights=tok, minlength=top + 1))[:top]).astype(np.int64)
    del v
    lost = np.flatnonzero(_shortfall(p, rank, p.measured()) & (rank < top))
    if lost.shape[0]:
        # a lost block of rank d changes the capacity d + 1 only
        hb -= np.bincount(rank[lost], minlength=top)[:top]
        lt = np.bincount(rank[lost], weights=p.tokens[lost], minlength=top)[:top]
        ht -= np.rint(lt).astype(np.int64)
    first_use = np.zeros(p.n_nodes + 1, bool)
    first_use[p.nodes[:w0]] = True
    return Curve(
        capacities=np.arange(1, top + 1, dtype=np.int64),
        hit_blocks=hb,
        hit_tokens=ht,
        total_blocks=p.references - w0,
        total_tokens=int(tok.sum()),
        warmup_unique=int(first_use.sum()),
    )


# --- the device pipeline --------------------------------------------------------------------
#
# On a GPU every output size that depends on the data (a boolean mask, nonzero, compress,
# unique, bincount's max) and every int() or bool() of a device value makes the host wait for
# the device and copy a value back. The functions below keep every shape fixed by the host-side
# plans but one (the number of distinct pairs in `device_ranks`, which sizes its wavelet matrix
# to about a tenth of the references), so a whole batch is one queue of kernels, one value read
# and one copy back at the end. They are written against the numpy API through `xp` (numpy
# itself runs them in the tests, exactly).


def _count_less_fixed(
    xp: Any,
    values: Any,
    bits: int,
    end: Any,
    bound: Any,
    start: Any | None = None,
    weights: Any | None = None,
) -> Any:
    """Sum of weights[j] (1 without weights) over start[q] <= j < end[q] with values[j] <
    bound[q], for every query q (start: 0 without it): `_count_less` with each level's stable
    partition a scatter to computed positions instead of `compress` (whose output size the host
    would read back once per level). Values and bounds below 2**bits; every array has the dtype
    of `values`."""
    n = values.shape[0]
    dt = values.dtype
    cur = values
    w = weights
    lo = xp.zeros(end.shape[0], dtype=dt) if start is None else start.astype(dt)
    hi = end.astype(dt)
    res = xp.zeros(end.shape[0], dtype=dt)
    zeros = xp.zeros(n + 1, dtype=dt)  # zeros[i]: values before i whose bit is 0
    summed = zeros if w is None else xp.zeros(n + 1, dtype=dt)  # ... and their weights
    idx = xp.arange(n, dtype=dt)
    for level in range(bits - 1, -1, -1):
        bit = (cur >> level) & 1
        zeros[1:] = xp.cumsum(1 - bit, dtype=dt)
        if w is not None:
            summed[1:] = xp.cumsum((1 - bit) * w, dtype=dt)
        nz = zeros[n]  # stays on the device: a 0-d array, never read by the host
        qb = (bound >> level) & 1
        a = zeros[lo]
        b = zeros[hi]
        res += qb * ((b - a) if w is None else (summed[hi] - summed[lo]))
        lo = a + qb * (lo + nz - 2 * a)
        hi = b + qb * (hi + nz - 2 * b)
        del a, b, qb
        if level:
            # zeros keep their order at the front, ones after them: element i goes to
            # zeros[i] if its bit is 0, else nz + (ones before i)
            before = zeros[:n]
            pos = before + bit * (nz + idx - 2 * before)
            nxt = xp.empty(n, dtype=dt)
            nxt[pos] = cur
            cur = nxt
            if w is not None:
                nw = xp.empty(n, dtype=dt)
                nw[pos] = w
                w = nw
            del before, pos
        del bit
    return res


def device_ranks(
    xp: Any,
    nodes: Any,
    req: Any,
    starts: Any,
    requests: int,
    segments: tuple[Any, int, int] | None = None,
) -> tuple[Any, Any]:
    """`stack_ranks` on arrays of module `xp` (nodes, req, starts of a plan), with every shape
    fixed but one: the same ranks and previous requests, as int64 arrays of `xp`.

    As `stack_ranks` does, the wavelet matrix holds the distinct (request, next-use request)
    pairs weighted by their references, a never-reused reference carrying the next-use request
    `requests` (no bound is above it, so it never counts): again[j] = #{p < start of j's
    request : next-use request of p < that of j}. The reuses before request r are a prefix sum
    at starts[r]. The number of pairs is the one value read back before the results.

    `segments` (segment of each reference, requests and references per segment): stretches of
    the stream no node crosses (a batch's configurations, each the same size). A reuse in an
    earlier segment always counts, so the wavelet matrix holds request numbers within each
    segment and answers each query over its own segment only: log2(requests per segment)
    levels instead of log2(all the batch's requests)."""
    n = nodes.shape[0]
    R = requests
    dt = np.int32 if n < 2**30 and R < 2**30 else np.int64
    order = xp.argsort(nodes, kind="stable")
    by_node = nodes[order]
    nxt = xp.full(n, n, dtype=np.int64)  # next use of each reference (n: none)
    nxt[order[:-1]] = xp.where(by_node[1:] == by_node[:-1], order[1:], n)
    del order, by_node
    reused = nxt < n
    target = xp.minimum(nxt, n - 1)
    a = req  # request of each reference ...
    r = xp.where(reused, req[target], R)  # ... and of its next use (R: none)
    is_reuse = xp.zeros(n + 1, dtype=np.int64)  # reference i is some reference's next use
    is_reuse[nxt] = 1  # index n (none) lands in the spare slot
    before = xp.zeros(n + 1, dtype=np.int64)
    before[1:] = xp.cumsum(is_reuse[:n], dtype=np.int64)  # reuses before each position
    del is_reuse
    # The wavelet matrix holds the distinct (request, next-use request) pairs, each weighted by
    # its references: in trace order a request's next uses never fall (a deeper block is
    # reused no earlier than its prefix), so equal pairs are runs. Their number is the one
    # value the host reads before the end (it sizes the matrix, about a tenth of the
    # references on Mooncake's conversation trace).
    new = xp.empty(n, dtype=bool)
    new[:1] = True
    new[1:] = (a[1:] != a[:-1]) | (r[1:] != r[:-1])
    run = xp.zeros(n + 1, dtype=np.int64)  # the pair of each reference (n: their number)
    run[:n] = xp.cumsum(new, dtype=np.int64) - 1
    m = int(run[n - 1]) + 1
    run[n:] = m
    first = xp.empty(m + 1, dtype=np.int64)  # each pair's first reference; n past the last
    first[xp.where(new, run[:n], m)] = xp.arange(n, dtype=np.int64)
    first[m:] = n
    del new
    head = first[:m]
    weight = (first[1:] - head).astype(dt)
    pa = a[head]
    pr = r[head]
    end = run[starts[pa]]  # the pairs of the requests before each pair's own
    if segments is None:
        again_pair = _count_less_fixed(
            xp,
            pr.astype(dt),
            max(1, int(R).bit_length()),
            end.astype(dt),
            pr.astype(dt),
            weights=weight,
        )
        again = again_pair.astype(np.int64)[run[:n]]
    else:
        seg, seg_requests, seg_refs = segments
        first_ref = seg * seg_refs
        pseg = seg[head]
        local = xp.where(pr < R, pr - pseg * seg_requests, seg_requests).astype(dt)
        # the reused references of earlier segments (as many as the next uses there: no
        # node crosses a segment), each used again before this request ...
        again = before[first_ref]
        # ... and those of this segment before this request whose next use is earlier
        again_pair = _count_less_fixed(
            xp,
            local,
            max(1, int(seg_requests).bit_length()),
            end.astype(dt),
            local,
            run[pseg * seg_refs].astype(dt),
            weight,
        )
        again += again_pair.astype(np.int64)[run[:n]]
        del local, first_ref, pseg
    del run, first, head, weight, pa, pr, end, again_pair
    j = xp.arange(n, dtype=np.int64)
    # stream position of j, plus one: its request's blocks run deepest first
    after_j = starts[a] + starts[a + 1] - j
    value = starts[r] - before[starts[r]] - after_j + again
    del again, after_j, before, j
    slot = xp.where(reused, nxt, n)  # the never-reused write into the spare slot n
    rank = xp.full(n + 1, int(COLD), dtype=np.int64)
    rank[slot] = value
    prev = xp.full(n + 1, -1, dtype=np.int64)
    prev[slot] = a
    return rank[:n], prev[:n]


def _expire(xp: Any, rank: Any, prev_req: Any, req: Any, times: Any, ttl: Any) -> Any:
    """`effective_ranks` with a TTL per reference (inf: none), on arrays of module `xp`."""
    gap = times[req] - times[xp.maximum(prev_req, 0)]
    return xp.where((prev_req >= 0) & (gap < ttl), rank, int(COLD))


def _shortfall_fixed(
    xp: Any,
    rank: Any,
    req: Any,
    s_dev: Any,
    reset: Any,
    cuts: tuple[I64, I64],
    query: Any,
    width: int,
    requests: int,
    chunk_cells: int = 1 << 25,
) -> Any:
    """`_shortfall` on arrays of module `xp` with every shape fixed: flags of the references
    where `query` holds. `s_dev`: the request starts on the device; `reset`: per request, whether
    its transition is forced to "top C" for every capacity (the last request of each stream, so
    no state crosses into the next one); `cuts`: request indices and their first references,
    on the host, where the requests may be cut into chunks (every request when the host knows
    the starts, else each configuration's first).

    Where `_shortfall` steps back a few requests and forward-fills only what they leave open,
    this fills every (request, capacity <= width) cell: on a GPU the cells are cheap and the
    open queries are not rare (conversation_trace leaves 6,016 of 6,022 open after 64 steps).
    The state before a request is the value of the last non-identity transition before it in
    its column: a prefix count of the non-identity cells down each column numbers them, each
    writes its value to its number's row (a scatter to computed positions) and a query reads
    the row of its count. Four passes over the cells, where a running maximum by doubling took
    log2(rows) of them. Requests are taken in chunks of about `chunk_cells` cells between cuts,
    the state carried between."""
    n = rank.shape[0]
    flags = xp.zeros(n, dtype=bool)
    if width <= 0 or n == 0:
        return flags
    low = rank < width
    depth = xp.arange(n, dtype=np.int64) - s_dev[req]
    lead = xp.zeros(n + 1, dtype=np.int64)
    lead[1:] = xp.cumsum((low & (rank == depth)).astype(np.int64), dtype=np.int64)
    head = lead[s_dev[1:]] - lead[s_dev[:-1]]  # leading blocks whose rank is their depth
    del depth, lead
    # Request r sets capacity c to 0 iff head < c < len, to 1 iff len <= c <= last + 1, and
    # leaves it alone otherwise (head <= len): it acts exactly on lower < c <= upper, with
    # lower = min(head, len - 1) and upper = max(len - 1, last + 1), and sets c >= len. A reset
    # is "top C" for every C: len 0, lower -1, upper past every capacity.
    idt = np.int32 if width < 2**30 else np.int64
    length = xp.where(reset, 0, s_dev[1:] - s_dev[:-1])
    last = xp.minimum(rank[xp.maximum(s_dev[1:] - 1, 0)], width + 1)
    lower = xp.where(reset, -1, xp.minimum(head, length - 1)).astype(idt)
    upper = xp.where(reset, width + 2, xp.maximum(length - 1, last + 1)).astype(idt)
    length = length.astype(idt)
    del head, last
    caps = xp.arange(1, width + 1, dtype=idt)[None, :]
    cols = xp.arange(width, dtype=np.int64)
    carry = xp.full(width, 1, dtype=np.int8)  # no request before: the cache holds the top C
    step = max(1, chunk_cells // width)
    cut_req, cut_ref = cuts
    k = 0
    r0 = 0
    while r0 < requests:
        # the furthest cut within `step` requests, at least the next one
        k1 = max(k + 1, int(np.searchsorted(cut_req, r0 + step, side="right")) - 1)
        r1 = int(cut_req[k1]) if k1 < cut_req.shape[0] else requests
        a = int(cut_ref[k])  # host ints: the references of these requests
        b = int(cut_ref[k1]) if k1 < cut_req.shape[0] else n
        rows = r1 - r0
        # Row 0: the state carried in; row i + 1: request r0 + i, whether it acts on each
        # capacity and the state it would set.
        acts = xp.empty((rows + 1, width), dtype=bool)
        acts[0] = True
        acts[1:] = (caps > lower[r0:r1, None]) & (caps <= upper[r0:r1, None])
        val = xp.empty((rows + 1, width), dtype=np.int8)
        val[0] = carry
        val[1:] = (caps >= length[r0:r1, None]).astype(np.int8)
        # count[i, c]: the acting cells of column c in rows 0..i (row 0 always acts); the
        # k-th of them writes its state to nth[k - 1, c], the others to a spare slot
        cells = (rows + 1) * width
        cdt = np.int32 if cells < 2**31 - 1 else np.int64
        count = xp.cumsum(acts.astype(cdt), axis=0, dtype=cdt)
        at = xp.where(acts, (count - 1) * width + cols.astype(cdt), cells)
        del acts
        nth = xp.empty(cells + 1, dtype=np.int8)
        nth[at.reshape(-1)] = val.reshape(-1)
        del at, val
        if b > a:
            q_row = req[a:b] - r0
            q_col = xp.minimum(xp.maximum(rank[a:b], 0), width - 1)  # cap - 1, where < width
            state = nth[(count[q_row, q_col] - 1) * width + q_col]
            flags[a:b] = query[a:b] & low[a:b] & (state == 0)
        carry = nth[(count[rows] - 1) * width + cols]
        del count, nth
        k, r0 = k1, r1
    return flags


def _sorted_bincounts(xp: Any, keys: Any, weights: Sequence[Any], length: int) -> list[Any]:
    """Integer sums of each of `weights` per key in 0..length-1 (keys outside are dropped): one
    stable sort of the keys and a prefix sum per weight, exact, with an output size the host
    knows (cupy's bincount reads the largest key back first)."""
    order = xp.argsort(keys, kind="stable")
    bounds = xp.searchsorted(keys[order], xp.arange(length + 1, dtype=keys.dtype))
    out = []
    csum = xp.zeros(keys.shape[0] + 1, dtype=np.int64)
    for w in weights:
        csum[1:] = xp.cumsum(w[order], dtype=np.int64)
        out.append(csum[bounds[1:]] - csum[bounds[:-1]])
    return out


def sweep_curves(
    groups: Sequence[Sequence[Plan]],
    ttls: Sequence[float | None],
    top: int,
    backend: Backend = NUMPY,
) -> I64:
    """Measured LRU hit tokens of many configurations at every per-node capacity 1..top.

    A configuration is a group of plans (its nodes' streams) and a TTL; row g, column C - 1 is
    the tokens group g's measured references find cached at C blocks per node, summed over its
    nodes: each plan's `lru_curve(...).hit_tokens` (the shortfall below the longest request
    included), added up. On numpy: one rank pass over all the plans, then a bincount and the
    shortfall per plan. On a device backend: the whole batch in one fixed-shape pass
    (`device_ranks`, `_shortfall_fixed`, sorted histograms over every group), one value read
    (the wavelet matrix's size) and one copy back, whatever the number of groups or levels."""
    if len(groups) != len(ttls):
        raise ValueError("one TTL per group")
    if backend.device:
        return _device_sweep(groups, ttls, top, backend, blocks=False)[0]
    flat = [q for g in groups for q in g]
    ranks = batch_ranks(flat, NUMPY) if flat else []
    out = np.zeros((len(groups), top), np.int64)
    k = 0
    for gi, g in enumerate(groups):
        total = np.zeros(top + 1, np.float64)
        lost_total = np.zeros(top, np.float64)
        for q in g:
            rank, prev = ranks[k]
            k += 1
            eff = effective_ranks(q, rank, prev, ttls[gi])
            m = q.req >= q.warmup
            total += np.bincount(np.minimum(eff[m], top), weights=q.tokens[m], minlength=top + 1)
            lost = np.flatnonzero(_shortfall(q, eff, m) & (eff < top))
            if lost.shape[0]:  # a lost block of rank d changes the capacity d + 1 only
                lost_total += np.bincount(eff[lost], weights=q.tokens[lost], minlength=top)[:top]
        out[gi] = np.rint(np.cumsum(total)[:top]).astype(np.int64)
        out[gi] -= np.rint(lost_total).astype(np.int64)
    return out


def device_curve(
    p: Plan, ttl: float | None, backend: Backend, max_capacity: int | None = None
) -> Curve:
    """`lru_curve(p, effective_ranks(p, *stack_ranks(p), ttl), max_capacity)` on a device
    backend: ranks, expiry, shortfall and both curves on the device, one value read and one
    copy back."""
    top = max(1, p.n_nodes if max_capacity is None else max_capacity)
    w0 = int(p.starts[p.warmup])
    if p.references == 0:
        zero = np.zeros(top, np.int64)
        return Curve(np.arange(1, top + 1, dtype=np.int64), zero, zero, 0, 0, 0)
    # The plan's arrays go over as they are (no host copy or concatenation); the request of
    # each reference, what is measured and where the stream ends are made on the device.
    xp = backend.xp
    R = p.requests
    n = p.references
    small = np.int32 if p.n_nodes < 2**31 and n < 2**31 else np.int64
    nodes = xp.asarray(p.nodes.astype(small, copy=False))
    starts = xp.asarray(p.starts)
    req = xp.searchsorted(starts, xp.arange(n, dtype=np.int64), side="right") - 1
    reset = xp.zeros(R, dtype=bool)
    reset[R - 1 :] = True
    seen = xp.zeros(p.n_nodes + 1, dtype=np.int64)  # the warm-up's distinct blocks
    seen[nodes[:w0]] = 1
    tokens, blocks, unique = _device_pass(
        backend,
        Streams(
            nodes=nodes,
            req=req,
            starts=starts,
            tokens=xp.asarray(p.tokens),
            times=xp.asarray(p.times),
            measured=req >= p.warmup,
            group=None,
            reset=reset,
            cuts=(np.arange(R + 1, dtype=np.int64), p.starts),
            width=int(p.lengths.max()) - 1,
            references=n,
        ),
        [ttl],
        top,
        blocks=True,
        extra=xp.cumsum(seen, dtype=np.int64)[-1:],
    )
    return Curve(
        capacities=np.arange(1, top + 1, dtype=np.int64),
        hit_blocks=blocks[0],
        hit_tokens=tokens[0],
        total_blocks=n - w0,
        total_tokens=int(p.tokens[w0:].sum()),
        warmup_unique=int(unique[0]),
    )


def _device_sweep(
    groups: Sequence[Sequence[Plan]],
    ttls: Sequence[float | None],
    top: int,
    backend: Backend,
    blocks: bool,
) -> list[I64]:
    """The device half of `sweep_curves`: the token curves, and with `blocks` the block curves
    too (the same ranks and shortfall, a second pair of histograms), in one copy back."""
    xp = backend.xp
    G = len(groups)
    flat = [q for g in groups for q in g]
    big = concat_plans(flat)
    if big.references == 0:
        return [np.zeros((G, top), np.int64)] * (2 if blocks else 1)
    sizes = [sum(q.references for q in g) for g in groups]
    group = np.repeat(np.arange(G, dtype=np.int64), sizes)
    measured = np.concatenate([q.req >= q.warmup for q in flat])
    reset = np.zeros(big.requests, bool)
    ends = np.cumsum([q.requests for q in flat]) - 1  # each plan's last request
    reset[ends[ends >= 0]] = True
    every = np.arange(big.requests + 1, dtype=np.int64)
    return _device_pass(
        backend,
        Streams(
            nodes=xp.asarray(big.nodes),
            req=xp.asarray(big.req),
            starts=xp.asarray(big.starts),
            tokens=xp.asarray(big.tokens),
            times=xp.asarray(big.times),
            measured=xp.asarray(measured),
            group=xp.asarray(group),
            reset=xp.asarray(reset),
            cuts=(every, big.starts),
            width=int(big.lengths.max()) - 1,
            references=big.references,
        ),
        ttls,
        top,
        blocks,
    )


@dataclass(frozen=True)
class Streams:
    """A batch's node streams laid end to end on the device: per reference its node (distinct
    across streams), request, tokens, whether it is measured and its configuration; per request
    its arrival time and whether it ends a stream; the request starts; where the host may cut
    the requests into chunks (`_shortfall_fixed`); the longest request's length less one."""

    nodes: Any
    req: Any
    starts: Any
    tokens: Any
    times: Any
    measured: Any
    group: Any
    reset: Any
    cuts: tuple[I64, I64]
    width: int
    references: int
    segment: tuple[int, int] | None = None  # requests and references of each configuration


def _device_pass(
    backend: Backend,
    s: Streams,
    ttls: Sequence[float | None],
    top: int,
    blocks: bool,
    extra: Any | None = None,
) -> list[I64]:
    """Ranks, expiry, shortfall and the curves of every configuration in `s` (`group` None:
    one configuration): one queue of kernels, one value read (`device_ranks`' pairs) and one
    copy back, which carries `extra` (a 1-d int64 device array) too, returned last."""
    xp = backend.xp
    G = len(ttls)
    n = s.references
    ttl = xp.asarray(np.array([np.inf if t is None else t for t in ttls], np.float64))
    requests = int(s.starts.shape[0] - 1)
    segments = None if s.segment is None or s.group is None else (s.group, *s.segment)
    rank, prev = device_ranks(xp, s.nodes, s.req, s.starts, requests, segments)
    eff = _expire(xp, rank, prev, s.req, s.times, ttl[0] if s.group is None else ttl[s.group])
    del rank, prev
    # the shortfall: a lost block of rank d changes the capacity d + 1 only (column d)
    lost = _shortfall_fixed(
        xp, eff, s.req, s.starts, s.reset, s.cuts, s.measured, s.width, requests
    )
    bins = G * (top + 1)
    # Measured references go to bin group * (top + 1) + min(rank, top); the others past the
    # end. A lost block counts in its own bin with the opposite sign, so one sort of the keys
    # serves every histogram.
    kdt = np.int32 if bins < 2**31 - 1 else np.int64
    rank_bin = xp.minimum(eff, top).astype(kdt)
    if s.group is None:
        keys = xp.where(s.measured, rank_bin, bins)
    else:
        keys = xp.where(s.measured, s.group.astype(kdt) * (top + 1) + rank_bin, bins)
    lost = (lost & (eff < top)).astype(np.int64)
    del eff, rank_bin
    kinds = 2 if blocks else 1
    ones = xp.full(n, 1, dtype=np.int64)
    weights = [s.tokens, ones][:kinds]
    hists = _sorted_bincounts(xp, keys, [*weights, *(w * lost for w in weights)], bins)
    del keys, lost, ones
    out = xp.empty((kinds, G, top), dtype=np.int64)
    for k in range(kinds):
        out[k] = xp.cumsum(hists[k].reshape(G, top + 1)[:, :top], axis=1, dtype=np.int64)
        out[k] -= hists[kinds + k].reshape(G, top + 1)[:, :top]
    flat = out.reshape(-1)
    if extra is not None:
        flat = xp.concatenate([flat, extra])
    host = np.asarray(backend.asnumpy(flat), np.int64)
    result = [host[k * G * top : (k + 1) * G * top].reshape(G, top) for k in range(kinds)]
    if extra is not None:
        result.append(host[kinds * G * top :])
    return result


@dataclass(frozen=True)
class Resident:
    """A plan's arrays copied to a device once, for every configuration a sweep routes over it;
    `keys` (each request's session or cache key, -1: none) for the routes that read them."""

    plan: Plan
    nodes: Any
    tokens: Any
    starts: Any
    lengths: Any
    times: Any
    keys: Any | None = None


def resident(p: Plan, backend: Backend, keys: I64 | None = None) -> Resident:
    xp = backend.xp
    small = np.int32 if p.n_nodes < 2**31 else np.int64  # what the device sorts by
    return Resident(
        p,
        xp.asarray(p.nodes.astype(small, copy=False)),
        xp.asarray(p.tokens),
        xp.asarray(p.starts),
        xp.asarray(p.lengths),
        xp.asarray(p.times),
        None if keys is None else xp.asarray(np.asarray(keys, np.int64)),
    )


def node_streams(p: Plan, node: I64) -> list[Plan]:
    """The per-node plans of `p` when request r runs on node `node[r]` (nodes 0..max): the
    requests of each node in order (`cluster.sub_plan`)."""
    from .cluster import sub_plan  # cluster builds on this module

    count = int(node.max()) + 1 if node.shape[0] else 1
    return [sub_plan(p, node == i)[0] for i in range(count)]


def sweep_assigned(
    base: Plan | Resident,
    assignments: Sequence[Any],
    ttls: Sequence[float | None],
    top: int,
    backend: Backend = NUMPY,
    keys: I64 | None = None,
) -> I64:
    """`sweep_curves` of configurations that each route `base`'s requests to nodes: row g is
    the hit tokens at every per-node capacity 1..top of the streams `node_streams(base,
    assignments[g])` under TTL `ttls[g]`. An assignment is the node of every request (an int
    array) or a `cluster.Route`, routed by `cluster.route` over `keys` (a Resident's own keys
    where it has them).

    On a device backend the routes are drawn and the streams cut out on the device from
    `base`'s arrays, which a `Resident` keeps there across calls: per batch only each
    configuration's router, node count and seed travel (an int array: one int a request), never
    a per-reference array, and the batch runs as one pass with one value read and one copy
    back."""
    from .cluster import Route, route  # cluster builds on this module

    if len(assignments) != len(ttls):
        raise ValueError("one TTL per assignment")
    p = base.plan if isinstance(base, Resident) else base
    if keys is None and isinstance(base, Resident) and not backend.device:
        keys = base.keys  # host arrays on a host backend
    specs = [(g, a) for g, a in enumerate(assignments) if isinstance(a, Route)]
    if not backend.device:
        host = list(assignments)
        if specs:
            drawn = route(np, [a for _, a in specs], p.requests, keys)
            for k, (g, _) in enumerate(specs):
                host[g] = drawn[k].astype(np.int64)
        return sweep_curves([node_streams(p, np.asarray(a)) for a in host], ttls, top, NUMPY)
    res = base if isinstance(base, Resident) else resident(p, backend, keys)
    xp = backend.xp
    R = p.requests
    G = len(assignments)
    if G == 0 or p.references == 0:
        return np.zeros((G, top), np.int64)
    arrays = [(g, np.asarray(a)) for g, a in enumerate(assignments) if not isinstance(a, Route)]
    span = max(  # stream ids: configuration * span + node
        [int(a.nodes) for _, a in specs] + [int(a.max()) + 1 for _, a in arrays if a.shape[0]],
        default=1,
    )
    if specs:
        dkeys = res.keys if res.keys is not None else (None if keys is None else xp.asarray(keys))
        node = route(xp, [a for _, a in specs], R, dkeys)
        if arrays:  # both kinds in one batch: the explicit rows travel and join the drawn ones
            full = xp.empty((G, R), dtype=np.int32)
            full[xp.asarray(np.array([g for g, _ in specs], np.int64))] = node
            full[xp.asarray(np.array([g for g, _ in arrays], np.int64))] = xp.asarray(
                np.stack([a for _, a in arrays]).astype(np.int32)
            )
            node = full
    else:
        node = xp.asarray(np.stack([a for _, a in arrays]).astype(np.int32))
    # Device: each configuration's requests ordered by node (one stable sort of small keys for
    # the batch), then every reference of the batch gathered from the resident arrays.
    kdt = np.int32 if G * span < 2**31 else np.int64
    key = (xp.arange(G * R, dtype=kdt) // R) * span + node.reshape(-1).astype(kdt)
    del node
    pick = xp.argsort(key, kind="stable")
    stream = key[pick]
    order = pick % R  # the request of the base plan
    del key, pick
    starts = xp.zeros(G * R + 1, dtype=np.int64)
    starts[1:] = xp.cumsum(res.lengths[order], dtype=np.int64)
    reset = xp.full(G * R, True, dtype=bool)  # the last request of each stream
    reset[:-1] = stream[1:] != stream[:-1]
    n = G * p.references
    j = xp.arange(n, dtype=np.int64)
    req = xp.searchsorted(starts, j, side="right") - 1
    src_req = order[req]
    src = res.starts[src_req] + (j - starts[req])
    del j
    # node ids distinct across streams; 32 bits where they fit (the device sorts them)
    ndt = np.int32 if G * span * (p.n_nodes + 1) < 2**31 else np.int64
    configs = np.arange(G + 1, dtype=np.int64)
    return _device_pass(
        backend,
        Streams(
            nodes=res.nodes[src].astype(ndt) + stream[req].astype(ndt) * (p.n_nodes + 1),
            req=req,
            starts=starts,
            tokens=res.tokens[src],
            times=res.times[order],
            measured=src_req >= p.warmup,
            group=req // R,
            reset=reset,
            cuts=(configs * R, configs * p.references),  # a configuration's first request
            width=int(p.lengths.max()) - 1,
            references=n,
            segment=(R, p.references),
        ),
        ttls,
        top,
        blocks=False,
    )[0]
