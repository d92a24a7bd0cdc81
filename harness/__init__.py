"""prefixlock's SDK: frozen prefixes, cache-aware providers, ledger, guard, store, emulator,
simulator.

Names are imported lazily (PEP 562) so that `import prefixlock.sim` or `prefixlock --help` does not
load the provider SDKs: the simulator runs where only numpy (or cupy) is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .lazy import lazy_exports

if TYPE_CHECKING:  # what this package exports (prefixlock.lazy reads it)
    from .agent import Agent as Agent
    from .agent import RunResult as RunResult
    from .agent import SyncSession as SyncSession
    from .approvals import Approvals as Approvals
    from .billing.ledger import Ledger as Ledger
    from .billing.ledger import LedgerRow as LedgerRow
    from .billing.prices import Price as Price
    from .billing.prices import PriceTable as PriceTable
    from .billing.usage import Usage as Usage
    from .billing.usage import parse_usage as parse_usage
    from .canonical import canonical_bytes as canonical_bytes
    from .canonical import canonical_json as canonical_json
    from .canonical import fingerprint as fingerprint
    from .clock import Clock as Clock
    from .clock import ManualClock as ManualClock
    from .clock import SystemClock as SystemClock
    from .coding.mcp_tools import McpServer as McpServer
    from .coding.mcp_tools import ToolListChange as ToolListChange
    from .coding.workspace import Workspace as Workspace
    from .coding.workspace import WorkspaceError as WorkspaceError
    from .context import RunContext as RunContext
    from .delegation import DelegationResult as DelegationResult
    from .delegation import Delegator as Delegator
    from .emulator.server import Emulator as Emulator
    from .errors import ConfigError as ConfigError
    from .errors import MissingKeyError as MissingKeyError
    from .errors import PrefixError as PrefixError
    from .errors import PrefixlockError as PrefixlockError
    from .errors import ProviderError as ProviderError
    from .errors import UnknownModelError as UnknownModelError
    from .errors import UserError as UserError
    from .events import ApprovalRequired as ApprovalRequired
    from .events import CacheBreak as CacheBreak
    from .events import Event as Event
    from .events import FinalOutput as FinalOutput
    from .events import KeepAlivePing as KeepAlivePing
    from .events import ModelFallback as ModelFallback
    from .events import PrefixChanged as PrefixChanged
    from .events import ProviderFault as ProviderFault
    from .events import ResumedPrefixDiffers as ResumedPrefixDiffers
    from .events import SubagentEvent as SubagentEvent
    from .events import SubagentFinish as SubagentFinish
    from .events import SubagentStart as SubagentStart
    from .events import SwitchWarning as SwitchWarning
    from .events import TextDelta as TextDelta
    from .events import ToolCall as ToolCall
    from .events import ToolResult as ToolResult
    from .events import TurnComplete as TurnComplete
    from .events import UsageReport as UsageReport
    from .extras import MissingExtraError as MissingExtraError
    from .guard.budget import CacheBudget as CacheBudget
    from .guard.budget import CacheBudgetExceeded as CacheBudgetExceeded
    from .guard.cacheguard import CacheGuard as CacheGuard
    from .guard.cacheguard import Prediction as Prediction
    from .guard.economics import TaskProfile as TaskProfile
    from .guard.keepalive import KeepAlive as KeepAlive
    from .guard.policy import CachePolicy as CachePolicy
    from .guard.quote import Alternative as Alternative
    from .guard.quote import Quote as Quote
    from .guard.quote import QuoteRequired as QuoteRequired
    from .guard.quote import StaleQuote as StaleQuote
    from .media import Document as Document
    from .media import Image as Image
    from .media import UserPart as UserPart
    from .output import OutputError as OutputError
    from .output import output_tool as output_tool
    from .prefix import FrozenPrefix as FrozenPrefix
    from .providers import SDKProvider as SDKProvider
    from .providers import SessionInfo as SessionInfo
    from .providers import make_provider as make_provider
    from .providers import resolve_route as resolve_route
    from .session import Session as Session
    from .settings import Settings as Settings
    from .settings import SettingsChanges as SettingsChanges
    from .state import SessionAgent as SessionAgent
    from .store.database import SessionStore as SessionStore
    from .store.errors import StoreError as StoreError
    from .tools import Tool as Tool
    from .tools import ToolLike as ToolLike
    from .tools import ToolSpec as ToolSpec
    from .tools import tool as tool
    from .transcript import Message as Message
    from .transcript import Transcript as Transcript
    from .wire import WireRequest as WireRequest


# Annotated so type checkers read the lazy names as the package's own attributes.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = lazy_exports(__name__)
