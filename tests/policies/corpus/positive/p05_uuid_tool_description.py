import uuid

SEARCH_TOOL = {
    "name": "search",
    "description": f"Search the index (build {uuid.uuid4().hex[:8]}).",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
}
