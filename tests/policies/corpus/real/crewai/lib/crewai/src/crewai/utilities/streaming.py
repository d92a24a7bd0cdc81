"""Streaming utilities for crew and flow execution."""

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
import contextvars
import logging
import queue
import threading
from typing import Any, NamedTuple, cast
import uuid

from typing_extensions import TypedDict

from crewai.events.base_events import BaseEvent
from crewai.events.event_bus import crewai_event_bus
from crewai.events.stream_context import add_stream_sink, reset_stream_sinks
from crewai.events.types.flow_events import ConversationMessageAddedEvent, FlowEvent
from crewai.events.types.llm_events import (
    LLMEventBase,
    LLMStreamChunkEvent,
)
from crewai.events.types.tool_usage_events import (
    ToolExecutionErrorEvent,
    ToolUsageEvent,
)
from crewai.types.streaming import (
    AsyncStreamSession,
    CrewStreamingOutput,
    FlowStreamingOutput,
    StreamChannel,
    StreamChunk,
    StreamChunkType,
    StreamFrame,
    StreamSession,
    ToolCallChunk,
)
from crewai.utilities.string_utils import sanitize_tool_name


logger = logging.getLogger(__name__)

_current_stream_ids: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "_current_stream_ids", default=()
)


class TaskInfo(TypedDict):
    """Task context information for streaming."""

    index: int
    name: str
    id: str
    agent_role: str
    agent_id: str


class StreamingState(NamedTuple):
    """Immutable state for streaming execution."""

    current_task_info: TaskInfo
    result_holder: list[Any]
    sync_queue: queue.Queue[StreamChunk | None | Exception]
    async_queue: asyncio.Queue[StreamChunk | None | Exception] | None
    loop: asyncio.AbstractEventLoop | None
    handler: Callable[[Any, BaseEvent], None]
    stream_id: str | None = None


class FrameStreamingState(NamedTuple):
    """Immutable state for public frame streaming execution."""

    result_holder: list[Any]
    sync_queue: queue.Queue[StreamFrame | None | Exception]
    async_queue: asyncio.Queue[StreamFrame | None | Exception] | None
    loop: asyncio.AbstractEventLoop | None
    sink: Callable[[Any, BaseEvent], None]


def _extract_tool_call_info(
    event: LLMStreamChunkEvent,
) -> tuple[StreamChunkType, ToolCallChunk | None]:
    """Extract tool call information from an LLM stream chunk event.

    Args:
        event: The LLM stream chunk event to process.

    Returns:
        A tuple of (chunk_type, tool_call_chunk) where tool_call_chunk is None
        if the event is not a tool call.
    """
    if event.tool_call:
        return (
            StreamChunkType.TOOL_CALL,
            ToolCallChunk(
                tool_id=event.tool_call.id,
                tool_name=sanitize_tool_name(event.tool_call.function.name)
                if event.tool_call.function.name
                else None,
                arguments=event.tool_call.function.arguments,
                index=event.tool_call.index,
            ),
        )
    return StreamChunkType.TEXT, None


def _create_stream_chunk(
    event: LLMStreamChunkEvent,
    current_task_info: TaskInfo,
) -> StreamChunk:
    """Create a StreamChunk from an LLM stream chunk event.

    Args:
        event: The LLM stream chunk event to process.
        current_task_info: Task context info.

    Returns:
        A StreamChunk populated with event and task info.
    """
    chunk_type, tool_call_chunk = _extract_tool_call_info(event)

    return StreamChunk(
        content=event.chunk,
        chunk_type=chunk_type,
        task_index=current_task_info["index"],
        task_name=current_task_info["name"],
        task_id=current_task_info["id"],
        agent_role=event.agent_role or current_task_info["agent_role"],
        agent_id=event.agent_id or current_task_info["agent_id"],
        tool_call=tool_call_chunk,
    )


_FRAME_DATA_EXCLUDE = {
    "timestamp",
    "type",
    "event_id",
    "parent_event_id",
    "previous_event_id",
    "emission_sequence",
}


def _stream_channel(event: BaseEvent) -> StreamChannel:
    if isinstance(event, LLMEventBase):
        return "llm"
    if isinstance(event, ConversationMessageAddedEvent):
        return "messages"
    if isinstance(event, FlowEvent):
        return "flow"
    if isinstance(event, ToolUsageEvent | ToolExecutionErrorEvent):
        return "tools"
    if "error" in event.type or "failed" in event.type:
        return "lifecycle"
    return "custom"


def _stream_namespace(event: BaseEvent, channel: StreamChannel) -> list[str]:
    namespace: list[str] = [channel]
    for attr in (
        "flow_name",
        "method_name",
        "session_id",
        "call_id",
        "tool_name",
        "agent_role",
        "task_name",
    ):
        value = getattr(event, attr, None)
        if value is not None:
            namespace.append(str(value))
    return namespace


def stream_frame_from_event(event: BaseEvent) -> StreamFrame:
    """Convert an internal CrewAI event into the public stream frame contract."""
    channel = _stream_channel(event)
    data = event.to_json(exclude=_FRAME_DATA_EXCLUDE)
    if not isinstance(data, dict):
        data = {"value": data}
    return StreamFrame(
        id=event.event_id,
        seq=event.emission_sequence,
        type=event.type,
        channel=channel,
        namespace=_stream_namespace(event, channel),
        timestamp=event.timestamp,
        parent_id=event.parent_event_id,
        previous_id=event.previous_event_id,
        data=cast(dict[str, Any], data),
    )


def _create_frame_sink(
    sync_queue: queue.Queue[StreamFrame | None | Exception],
    async_queue: asyncio.Queue[StreamFrame | None | Exception] | None = None,
    loop: asyncio.AbstractEventLoop | None = None,
) -> Callable[[Any, BaseEvent], None]:
    def frame_sink(_: Any, event: BaseEvent) -> None:
        frame = stream_frame_from_event(event)
        if async_queue is not None and loop is not None:
            loop.call_soon_threadsafe(async_queue.put_nowait, frame)
        else:
            sync_queue.put(frame)

    return frame_sink


def create_frame_streaming_state(
    result_holder: list[Any],
    use_async: bool = False,
) -> FrameStreamingState:
    """Create state for a scoped public frame stream."""
    sync_queue: queue.Queue[StreamFrame | None | Exception] = queue.Queue()
    async_queue: asyncio.Queue[StreamFrame | None | Exception] | None = None
    loop: asyncio.AbstractEventLoop | None = None
    if use_async:
        async_queue = asyncio.Queue()
        loop = asyncio.get_running_loop()
    sink = _create_frame_sink(sync_queue, async_queue, loop)
    return FrameStreamingState(
        result_holder=result_holder,
        sync_queue=sync_queue,
        async_queue=async_queue,
        loop=loop,
        sink=sink,
    )


def _signal_frame_end(state: FrameStreamingState, is_async: bool = False) -> None:
    if is_async and state.async_queue is not None and state.loop is not None:
        state.loop.call_soon_threadsafe(state.async_queue.put_nowait, None)
    else:
        state.sync_queue.put(None)


def _signal_frame_error(
    state: FrameStreamingState, error: Exception, is_async: bool = False
) -> None:
    if is_async and state.async_queue is not None and state.loop is not None:
        state.loop.call_soon_threadsafe(state.async_queue.put_nowait, error)
    else:
        state.sync_queue.put(error)


def _finalize_frame_streaming(
    state: FrameStreamingState,
    stream_session: StreamSession[Any] | AsyncStreamSession[Any],
) -> None:
    stream_session._on_cleanup = None
    if state.result_holder:
        stream_session._set_result(state.result_holder[0])


def create_frame_generator(
    state: FrameStreamingState,
    run_func: Callable[[], Any],
    output_holder: list[StreamSession[Any]],
) -> Iterator[StreamFrame]:
    """Create a scoped synchronous public frame generator."""

    def run_with_sink() -> None:
        token = add_stream_sink(state.sink)
        try:
            result = run_func()
            state.result_holder.append(result)
        except Exception as e:
            _signal_frame_error(state, e)
        finally:
            reset_stream_sinks(token)
            _signal_frame_end(state)

    ctx = contextvars.copy_context()
    thread = threading.Thread(target=ctx.run, args=(run_with_sink,), daemon=True)
    thread.start()

    try:
        while True:
            item = state.sync_queue.get()
            if item is None:
                break
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        thread.join()
        if output_holder:
            _finalize_frame_streaming(state, output_holder[0])


async def create_async_frame_generator(
    state: FrameStreamingState,
    run_coro: Callable[[], Any],
    output_holder: list[AsyncStreamSession[Any]],
) -> AsyncIterator[StreamFrame]:
    """Create a scoped asynchronous public frame generator."""
    if state.async_queue is None:
        raise RuntimeError(
            "Async queue not initialized. Use create_frame_streaming_state(use_async=True)."
        )

    async def run_with_sink() -> None:
        token = add_stream_sink(state.sink)
        try:
            result = await run_coro()
            state.result_holder.append(result)
        except Exception as e:
            _signal_frame_error(state, e, is_async=True)
        finally:
            reset_stream_sinks(token)
            _signal_frame_end(state, is_async=True)

    task = asyncio.create_task(run_with_sink())
    try:
        while True:
            item = await state.async_queue.get()
            if item is None:
                break
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        if not task.done():
            task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception:
            logger.debug("Background frame streaming task failed", exc_info=True)
        if output_holder:
            _finalize_frame_streaming(state, output_holder[0])


def _create_stream_handler(
    current_task_info: TaskInfo,
    sync_queue: queue.Queue[StreamChunk | None | Exception],
    async_queue: asyncio.Queue[StreamChunk | None | Exception] | None = None,
    loop: asyncio.AbstractEventLoop | None = None,
    stream_id: str | None = None,
) -> Callable[[Any, BaseEvent], None]:
    """Create a stream handler function.

    Args:
        current_task_info: Task context info.
        sync_queue: Synchronous queue for chunks.
        async_queue: Optional async queue for chunks.
        loop: Optional event loop for async operations.
        stream_id: Stream scope ID for concurrent isolation.

    Returns:
        Handler function that can be registered with the event bus.
    """

    def stream_handler(_: Any, event: BaseEvent) -> None:
        if not isinstance(event, LLMStreamChunkEvent):
            return

        if stream_id is not None and stream_id not in _current_stream_ids.get():
            return

        chunk = _create_stream_chunk(event, current_task_info)

        if async_queue is not None and loop is not None:
            loop.call_soon_threadsafe(async_queue.put_nowait, chunk)
        else:
            sync_queue.put(chunk)

    return stream_handler


def _unregister_handler(handler: Callable[[Any, BaseEvent], None]) -> None:
    """Unregister a stream handler from the event bus.

    Args:
        handler: The handler function to unregister.
    """
    with crewai_event_bus._rwlock.w_locked():
        handlers: frozenset[Callable[..., None]] = crewai_event_bus._sync_handlers.get(
            LLMStreamChunkEvent, frozenset()
        )
        crewai_event_bus._sync_handlers[LLMStreamChunkEvent] = handlers - {handler}


def _finalize_streaming(
    state: StreamingState,
    streaming_output: CrewStreamingOutput | FlowStreamingOutput,
) -> None:
    """Finalize streaming by unregistering handler and setting result.

    Args:
        state: The streaming state to finalize.
        streaming_output: The streaming output to set the result on.
    """
    _unregister_handler(state.handler)
    streaming_output._on_cleanup = None
    if state.result_holder:
        streaming_output._set_result(state.result_holder[0])


def register_cleanup(
    streaming_output: CrewStreamingOutput | FlowStreamingOutput,
    state: StreamingState,
) -> None:
    """Register a cleanup callback on the streaming output.

    Ensures the event handler is unregistered even if aclose()/close()
    is called before iteration starts.
    """
    streaming_output._on_cleanup = lambda: _unregister_handler(state.handler)


def create_streaming_state(
    current_task_info: TaskInfo,
    result_holder: list[Any],
    use_async: bool = False,
) -> StreamingState:
    """Create and register streaming state.

    Args:
        current_task_info: Task context info.
        result_holder: List to hold the final result.
        use_async: Whether to use async queue.

    Returns:
        Initialized StreamingState with registered handler.
    """
    sync_queue: queue.Queue[StreamChunk | None | Exception] = queue.Queue()
    async_queue: asyncio.Queue[StreamChunk | None | Exception] | None = None
    loop: asyncio.AbstractEventLoop | None = None

    if use_async:
        async_queue = asyncio.Queue()
        loop = asyncio.get_event_loop()

    stream_id = str(uuid.uuid4())

    handler = _create_stream_handler(
        current_task_info, sync_queue, async_queue, loop, stream_id=stream_id
    )
    crewai_event_bus.register_handler(LLMStreamChunkEvent, handler)

    return StreamingState(
        current_task_info=current_task_info,
        result_holder=result_holder,
        sync_queue=sync_queue,
        async_queue=async_queue,
        loop=loop,
        handler=handler,
        stream_id=stream_id,
    )


def signal_end(state: StreamingState, is_async: bool = False) -> None:
    """Signal end of stream.

    Args:
        state: The streaming state.
        is_async: Whether this is an async stream.
    """
    if is_async and state.async_queue is not None and state.loop is not None:
        state.loop.call_soon_threadsafe(state.async_queue.put_nowait, None)
    else:
        state.sync_queue.put(None)


def signal_error(
    state: StreamingState, error: Exception, is_async: bool = False
) -> None:
    """Signal an error in the stream.

    Args:
        state: The streaming state.
        error: The exception to signal.
        is_async: Whether this is an async stream.
    """
    if is_async and state.async_queue is not None and state.loop is not None:
        state.loop.call_soon_threadsafe(state.async_queue.put_nowait, error)
    else:
        state.sync_queue.put(error)


def create_chunk_generator(
    state: StreamingState,
    run_func: Callable[[], None],
    output_holder: list[CrewStreamingOutput | FlowStreamingOutput],
) -> Iterator[StreamChunk]:
    """Create a chunk generator that uses a holder to access streaming output.

    Args:
        state: The streaming state.
        run_func: Function to run in a separate thread.
        output_holder: Single-element list that will contain the streaming output.

    Yields:
        StreamChunk objects as they arrive.
    """
    if state.stream_id is not None:
        token = _current_stream_ids.set((*_current_stream_ids.get(), state.stream_id))
        ctx = contextvars.copy_context()
        _current_stream_ids.reset(token)
    else:
        ctx = contextvars.copy_context()
    thread = threading.Thread(target=ctx.run, args=(run_func,), daemon=True)
    thread.start()

    try:
        while True:
            item = state.sync_queue.get()
            if item is None:
                break
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        thread.join()
        if output_holder:
            _finalize_streaming(state, output_holder[0])
        else:
            _unregister_handler(state.handler)


async def create_async_chunk_generator(
    state: StreamingState,
    run_coro: Callable[[], Any],
    output_holder: list[CrewStreamingOutput | FlowStreamingOutput],
) -> AsyncIterator[StreamChunk]:
    """Create an async chunk generator that uses a holder to access streaming output.

    Args:
        state: The streaming state.
        run_coro: Coroutine function to run as a task.
        output_holder: Single-element list that will contain the streaming output.

    Yields:
        StreamChunk objects as they arrive.
    """
    if state.async_queue is None:
        raise RuntimeError(
            "Async queue not initialized. Use create_streaming_state(use_async=True)."
        )

    if state.stream_id is not None:
        token = _current_stream_ids.set((*_current_stream_ids.get(), state.stream_id))
        task = asyncio.create_task(run_coro())
        _current_stream_ids.reset(token)
    else:
        task = asyncio.create_task(run_coro())

    try:
        while True:
            item = await state.async_queue.get()
            if item is None:
                break
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        if not task.done():
            task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception:
            logger.debug("Background streaming task failed", exc_info=True)
        if output_holder:
            _finalize_streaming(state, output_holder[0])
        else:
            _unregister_handler(state.handler)
