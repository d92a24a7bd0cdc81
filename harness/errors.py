"""Error types shared by the whole SDK.

`UserError` is anything the user can fix (bad config, malformed input, unknown model, missing
key). The CLI turns it into one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import copy


class PrefixlockError(Exception):
    """Base class for every error prefixlock raises on purpose."""


class UserError(PrefixlockError):
    """A mistake the user can fix. `where` names the file, line or field at fault."""

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)

    def at(self, where: str) -> UserError:
        """The same error (same class, same message) said of `where`: the SDK names a Python
        argument (`model`), a command line names its flag (`--model`)."""
        relabelled = copy.copy(self)
        relabelled.where = where
        relabelled.args = (f"{where}: {self.message}",)
        return relabelled


class ConfigError(UserError):
    """Bad configuration: a settings file, a flag, an environment variable."""


class MissingKeyError(UserError):
    """An API key is needed and not set; the message names the variable."""


class UnknownModelError(UserError):
    """A model id that no provider or price table knows."""


class PrefixError(UserError):
    """A prefix that cannot be built (duplicate tool names, non-serializable schemas)."""


class ProviderError(PrefixlockError):
    """A fault reported by a provider after retries ran out (429, 529, 5xx, cut stream)."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        self.status = status
        self.retryable = retryable
        super().__init__(message)
