"""The Responses API's server-side state: stored responses and conversations, per organization.

Pure: the core hands in request bodies, the caller's scope (the one-way id of its API key) and
ids, and gets back the body the model and the cache see, or an ApiError. As OpenAI documents:
- a response is stored unless the request says `store: false`; `GET /v1/responses/{id}` returns
  it, and `previous_response_id` continues it: its input and output come first, then the new
  input (its `instructions` are not carried over). The continued prompt starts with the earlier
  one's, so it reads what that request cached, as it would had the client re-sent it all;
- a conversation (`POST /v1/conversations`, then `conversation` on a response) collects every
  response's input and output; a response that names it starts with those items;
- the two are exclusive; an id another organization made, or none made, is not found;
- server-side compaction: "the latest compaction item carries the necessary context", so the
  model and the cache see the input from its most recent `compaction` item on, whether the
  client chained by `previous_response_id` or appended the items itself.
Both stores keep the most recently used `capacity` entries: the real API keeps them for 30 days,
a long-running emulator keeps its memory flat instead.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .apierror import ApiError


@dataclass(frozen=True)
class StoredResponse:
    """A stored response: what it returned, and the items it adds to a continuation."""

    scope: str
    response: dict[str, Any]
    input_items: tuple[Any, ...]  # its own input (the items the request sent)
    parent: StoredResponse | None  # the response it continued

    def context(self) -> list[Any]:
        """Every item a continuation of this response starts with, oldest first."""
        chain: list[StoredResponse] = []
        node: StoredResponse | None = self
        while node is not None:
            chain.append(node)
            node = node.parent
        items: list[Any] = []
        for node in reversed(chain):
            items.extend(node.input_items)
            items.extend(node.response.get("output") or [])
        return items


@dataclass
class StoredConversation:
    scope: str
    id: str
    created_at: int
    metadata: Mapping[str, Any]
    items: list[Any] = field(default_factory=list)

    def as_object(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "conversation",
            "created_at": self.created_at,
            "metadata": dict(self.metadata),
        }


@dataclass(frozen=True)
class Resolved:
    """A Responses request with its server-side state resolved."""

    body: dict[str, Any]  # what the model and the cache see: the whole input, no state fields
    own_input: tuple[Any, ...]  # the items this request sent
    parent: StoredResponse | None
    conversation: StoredConversation | None


def input_items(raw: Any) -> list[Any]:
    """A request's `input` as items (a string is one user message)."""
    if isinstance(raw, str):
        return [{"role": "user", "content": raw}]
    return list(raw) if isinstance(raw, list) else []


def since_compaction(items: list[Any]) -> list[Any]:
    """The items from the most recent `compaction` item on (all of them when there is none):
    what a compacted conversation renders into the prompt."""
    for i in range(len(items) - 1, -1, -1):
        item = items[i]
        if isinstance(item, Mapping) and item.get("type") == "compaction":
            return items[i:]
    return items


def _conversation_id(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("id"), str):
        return str(value["id"])
    raise ApiError(
        400,
        "Invalid type for 'conversation': expected a string or an object with an 'id'",
        param="conversation",
    )


class ResponsesState:
    """Stored responses and conversations, each kept per scope, least recently used dropped."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._responses: OrderedDict[str, StoredResponse] = OrderedDict()
        self._conversations: OrderedDict[str, StoredConversation] = OrderedDict()

    def __len__(self) -> int:
        return len(self._responses) + len(self._conversations)

    # ---- lookups ------------------------------------------------------------------------------

    def _response(self, scope: str, rid: str) -> StoredResponse | None:
        stored = self._responses.get(rid)
        if stored is None or stored.scope != scope:
            return None
        self._responses.move_to_end(rid)
        return stored

    def _conversation(self, scope: str, cid: str) -> StoredConversation:
        conv = self._conversations.get(cid)
        if conv is None or conv.scope != scope:
            raise ApiError(404, f"Conversation with id '{cid}' not found.", code="")
        self._conversations.move_to_end(cid)
        return conv

    def response(self, scope: str, rid: str) -> dict[str, Any]:
        """GET /v1/responses/{id}."""
        stored = self._response(scope, rid)
        if stored is None:
            raise ApiError(404, f"Response with id '{rid}' not found.", code="")
        return stored.response

    def response_input_items(self, scope: str, rid: str) -> list[Any]:
        """GET /v1/responses/{id}/input_items: the input the response was generated from."""
        stored = self._response(scope, rid)
        if stored is None:
            raise ApiError(404, f"Response with id '{rid}' not found.", code="")
        parent = stored.parent.context() if stored.parent is not None else []
        return [*parent, *stored.input_items]

    def delete_response(self, scope: str, rid: str) -> dict[str, Any]:
        self.response(scope, rid)
        del self._responses[rid]
        return {"id": rid, "object": "response", "deleted": True}

    def conversation(self, scope: str, cid: str) -> dict[str, Any]:
        """GET /v1/conversations/{id}."""
        return self._conversation(scope, cid).as_object()

    def delete_conversation(self, scope: str, cid: str) -> dict[str, Any]:
        self._conversation(scope, cid)
        del self._conversations[cid]
        return {"id": cid, "object": "conversation.deleted", "deleted": True}

    # ---- changes ------------------------------------------------------------------------------

    def create_conversation(
        self, scope: str, body: Any, cid: str, created_at: int
    ) -> dict[str, Any]:
        """POST /v1/conversations: `items` (optional) seed it, `metadata` is kept."""
        if body is None:
            body = {}
        if not isinstance(body, Mapping):
            raise ApiError(400, "request body must be a JSON object")
        for key in body:
            if key not in ("items", "metadata"):
                raise ApiError(
                    400, f"Unknown parameter: '{key}'.", param=key, code="unknown_parameter"
                )
        items = body.get("items") or []
        if not isinstance(items, list):
            raise ApiError(400, "Invalid type for 'items': expected an array", param="items")
        metadata = body.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise ApiError(400, "Invalid type for 'metadata': expected an object", param="metadata")
        conv = StoredConversation(scope, cid, created_at, dict(metadata), list(items))
        self._conversations[cid] = conv
        self._trim(self._conversations)
        return conv.as_object()

    def resolve(self, body: Mapping[str, Any], scope: str) -> Resolved:
        """The request as the model sees it: stored context first, then its own input."""
        prev_id = body.get("previous_response_id")
        conv_ref = body.get("conversation")
        if prev_id is not None and conv_ref is not None:
            raise ApiError(
                400,
                "Mutually exclusive parameters: Ensure you are only providing one of: "
                "'previous_response_id' or 'conversation'.",
                param="conversation",
                code="mutually_exclusive_parameters",
            )
        own = input_items(body.get("input"))
        context: list[Any] = []
        parent: StoredResponse | None = None
        conv: StoredConversation | None = None
        if prev_id is not None:
            if not isinstance(prev_id, str):
                raise ApiError(
                    400,
                    "Invalid type for 'previous_response_id': expected a string",
                    param="previous_response_id",
                )
            parent = self._response(scope, prev_id)
            if parent is None:
                raise ApiError(
                    400,
                    f"Previous response with id '{prev_id}' not found.",
                    param="previous_response_id",
                    code="previous_response_not_found",
                )
            context = parent.context()
        elif conv_ref is not None:
            conv = self._conversation(scope, _conversation_id(conv_ref))
            context = list(conv.items)
        seen = {k: v for k, v in body.items() if k not in ("previous_response_id", "conversation")}
        if context or not isinstance(body.get("input"), str):
            seen["input"] = since_compaction([*context, *own])
        return Resolved(seen, tuple(own), parent, conv)

    def remember(
        self, resolved: Resolved, request: Mapping[str, Any], response: dict[str, Any], scope: str
    ) -> None:
        """After a response: store it (unless `store: false`), extend its conversation."""
        if resolved.conversation is not None:
            resolved.conversation.items.extend([*resolved.own_input, *response["output"]])
        if request.get("store") is False:
            return
        self._responses[response["id"]] = StoredResponse(
            scope, response, resolved.own_input, resolved.parent
        )
        self._trim(self._responses)

    def _trim(self, store: OrderedDict[str, Any]) -> None:
        while len(store) > self.capacity:
            store.popitem(last=False)
