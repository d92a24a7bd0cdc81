"""Grok Subscription Provider.

Enables use of SuperGrok/SuperGrok-Heavy subscriptions with gptme through
the grok-build CLI proxy, using OAuth tokens from the grok CLI.

The grok CLI (https://grok.com) stores OAuth tokens at ~/.grok/auth.json.
This provider reads those tokens and authenticates with the grok-build
subscription proxy (cli-chat-proxy.grok.com), which is the same endpoint
used by other SuperGrok harnesses (e.g. openclaw, pi). The access token
scope ``api:access`` explicitly authorizes this endpoint.

Prerequisite: Install and authenticate the grok CLI first:
    1. Install: download from https://grok.com/download or ``pip install grok-cli``
    2. Login: ``grok login``
    3. Use:   ``gptme --model grok-subscription/grok-4.6``

Or authenticate directly via gptme (opens grok.com in browser):
    ``gptme auth grok-subscription``

NOTICE: For personal development use with your own SuperGrok subscription.
For production or multi-user applications, use the xAI Platform API (``xai``
provider) with an API key from console.x.ai.

Endpoint: https://cli-chat-proxy.grok.com/v1 (subscription proxy, OpenAI-compatible)
"""

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

logger = logging.getLogger(__name__)

# xAI OAuth configuration (same client ID as grok CLI)
OAUTH_CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
OAUTH_ISSUER = "https://auth.x.ai"
OAUTH_TOKEN_URL = f"{OAUTH_ISSUER}/oauth2/token"
OAUTH_AUTH_URL = f"{OAUTH_ISSUER}/oauth2/authorize"
OAUTH_CALLBACK_PORT = (
    1456  # local port for OAuth callback (1455 is openai-subscription's)
)
OAUTH_SCOPES = "openid profile email offline_access grok-cli:access api:access"

# Subscription proxy endpoint (used by SuperGrok harnesses; requires api:access scope)
GROK_PROXY_URL = "https://cli-chat-proxy.grok.com/v1"

# Minimum grok CLI version accepted by the proxy; passed via x-grok-client-version header
GROK_CLIENT_VERSION = "0.1.202"

# grok CLI auth storage key format: "{issuer}::{client_id}"
GROK_AUTH_KEY = f"{OAUTH_ISSUER}::{OAUTH_CLIENT_ID}"


def _get_grok_cli_auth_path() -> Path:
    """Get path to grok CLI auth file."""
    return Path.home() / ".grok" / "auth.json"


def _get_token_storage_path() -> Path:
    """Get path to store gptme-managed grok subscription tokens."""
    config_dir = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config"))
    token_dir = config_dir / "gptme" / "oauth"
    token_dir.mkdir(parents=True, exist_ok=True)
    return token_dir / "grok_subscription.json"


@dataclass
class SubscriptionAuth:
    """Authentication state for grok subscription."""

    access_token: str
    refresh_token: str | None
    expires_at: float


# Global auth state (in-memory cache)
_auth: SubscriptionAuth | None = None


def _parse_expires_at(expires_at_str: str) -> float:
    """Parse ISO 8601 expiry string to Unix timestamp."""
    try:
        import re
        from datetime import datetime

        # Python's fromisoformat supports up to 6 decimal places (microseconds).
        # Grok CLI stores nanoseconds (9 digits) — truncate the excess.
        normalized = re.sub(r"(\.\d{6})\d+", r"\1", expires_at_str)
        dt = datetime.fromisoformat(normalized.replace("Z", "+00:00"))
        return dt.timestamp()
    except (ValueError, AttributeError):
        return 0.0  # treat unparseable expiry as already-expired to force refresh


def _load_grok_cli_tokens() -> SubscriptionAuth | None:
    """Load tokens from grok CLI auth file (~/.grok/auth.json).

    The grok CLI stores tokens as a dict keyed by "{issuer}::{client_id}".
    Each entry has: key (access token), refresh_token, expires_at (ISO 8601).

    Falls back to any key that contains our exact client ID, so variant issuer
    URL formats are handled while ensuring we never use a token belonging to a
    different OAuth client or account.
    """
    grok_path = _get_grok_cli_auth_path()
    if not grok_path.exists():
        return None

    try:
        data = json.loads(grok_path.read_text())

        # First try to find the entry for our exact OAuth client ID.
        entry = data.get(GROK_AUTH_KEY)

        # Fall back to any key that embeds our exact client ID.
        # We check the client ID (not the issuer URL) so we only accept tokens
        # issued for this application, preventing use of tokens from unrelated
        # OAuth clients that happen to share the same issuer domain.
        if entry is None:
            for key, value in data.items():
                if OAUTH_CLIENT_ID in key:
                    entry = value
                    logger.debug("Using alternate grok auth key %r", key)
                    break

        if entry is None:
            logger.warning(
                "Expected grok auth key %r not found; "
                "run 'grok login' or 'gptme auth grok-subscription' to authenticate",
                GROK_AUTH_KEY,
            )
            return None

        access_token = entry.get("key")
        if not access_token:
            return None

        return SubscriptionAuth(
            access_token=access_token,
            refresh_token=entry.get("refresh_token"),
            expires_at=_parse_expires_at(entry.get("expires_at", "")),
        )
    except Exception as e:
        logger.debug(f"Failed to load grok CLI tokens: {e}")
        return None


def _load_stored_tokens() -> SubscriptionAuth | None:
    """Load tokens stored by gptme (from a previous ``gptme auth grok-subscription``)."""
    token_path = _get_token_storage_path()
    if not token_path.exists():
        return None

    try:
        data = json.loads(token_path.read_text())
        return SubscriptionAuth(
            access_token=data["access_token"],
            refresh_token=data.get("refresh_token"),
            expires_at=float(data["expires_at"]),
        )
    except Exception as e:
        logger.debug(f"Failed to load stored grok tokens: {e}")
        return None


def _save_tokens(auth: SubscriptionAuth) -> None:
    """Save tokens to gptme's token storage."""
    token_path = _get_token_storage_path()
    data = {
        "access_token": auth.access_token,
        "refresh_token": auth.refresh_token,
        "expires_at": auth.expires_at,
    }
    token_path.write_text(json.dumps(data, indent=2))
    token_path.chmod(0o600)
    logger.debug(f"Saved grok subscription tokens to {token_path}")


def _update_grok_cli_tokens(auth: SubscriptionAuth) -> None:
    """Write refreshed tokens back to grok CLI auth file to keep them in sync.

    Uses a separate .lock file as the flock target so the lock inode stays
    constant across os.replace() calls (locking auth.json directly is unsafe
    because os.replace() swaps the inode, releasing concurrent flocks).
    """
    import fcntl

    grok_path = _get_grok_cli_auth_path()
    if not grok_path.exists():
        return

    lock_path = grok_path.parent / (grok_path.name + ".lock")
    tmp_path = grok_path.parent / f"{grok_path.name}.tmp.{os.getpid()}"
    try:
        lock_fd = open(lock_path, "a")
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            if not grok_path.exists():
                return
            data = json.loads(grok_path.read_text())
            if GROK_AUTH_KEY not in data:
                return

            from datetime import datetime, timezone

            dt = datetime.fromtimestamp(auth.expires_at, tz=timezone.utc)
            entry = data[GROK_AUTH_KEY]
            entry["key"] = auth.access_token
            entry["expires_at"] = dt.strftime("%Y-%m-%dT%H:%M:%S.%f000Z")
            if auth.refresh_token:
                entry["refresh_token"] = auth.refresh_token

            tmp_path.write_text(json.dumps(data, indent=2))
            os.replace(tmp_path, grok_path)
            logger.debug("Updated grok CLI auth file with refreshed tokens")
        finally:
            fcntl.flock(lock_fd, fcntl.LOCK_UN)
            lock_fd.close()
    except Exception as e:
        logger.debug(f"Failed to update grok CLI auth file: {e}")
        try:
            tmp_path.unlink(missing_ok=True)
        except Exception:
            pass


def _refresh_access_token(
    refresh_token: str, timeout: float | tuple[float, float] = 30
) -> SubscriptionAuth:
    """Refresh access token using OAuth2 refresh_token grant."""
    response = requests.post(
        OAUTH_TOKEN_URL,
        data={
            "client_id": OAUTH_CLIENT_ID,
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
        },
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        timeout=timeout,
    )

    if response.status_code != 200:
        raise ValueError(
            f"Token refresh failed: {response.status_code} {response.text[:300]}"
        )

    tokens = response.json()
    access_token = tokens.get("access_token")
    new_refresh_token = tokens.get("refresh_token", refresh_token)
    expires_in = tokens.get("expires_in", 21600)  # default 6h

    if not access_token:
        raise ValueError("No access token in refresh response")

    auth = SubscriptionAuth(
        access_token=access_token,
        refresh_token=new_refresh_token,
        expires_at=time.time() + expires_in,
    )
    _save_tokens(auth)
    logger.info("Grok subscription access token refreshed")
    return auth


def oauth_authenticate() -> SubscriptionAuth:
    """Authenticate via xAI OAuth PKCE flow and return tokens.

    If valid grok CLI tokens already exist (~/.grok/auth.json), they are
    returned immediately without opening a browser.  Otherwise, the xAI
    PKCE flow opens the user's browser and waits for the OAuth callback on
    localhost:{OAUTH_CALLBACK_PORT}.
    """
    import base64
    import hashlib
    import http.server
    import secrets
    import threading
    import time
    import webbrowser
    from urllib.parse import parse_qs, urlencode, urlparse

    cli_auth = _load_grok_cli_tokens()
    if cli_auth is not None and time.time() < cli_auth.expires_at - 300:
        return cli_auth

    code_verifier = secrets.token_urlsafe(32)
    digest = hashlib.sha256(code_verifier.encode()).digest()
    code_challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    state = secrets.token_urlsafe(16)
    callback_url = f"http://localhost:{OAUTH_CALLBACK_PORT}/auth/callback"

    auth_params = {
        "client_id": OAUTH_CLIENT_ID,
        "redirect_uri": callback_url,
        "response_type": "code",
        "scope": OAUTH_SCOPES,
        "state": state,
        "code_challenge": code_challenge,
        "code_challenge_method": "S256",
    }
    auth_url = f"{OAUTH_AUTH_URL}?{urlencode(auth_params)}"

    result: dict = {}

    class _Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            parsed = urlparse(self.path)
            params = parse_qs(parsed.query)
            received_state = params.get("state", [None])[0]
            if received_state != state:
                result["error"] = "Invalid state (possible CSRF)"
                self._respond(400, "Security error: invalid state.")
                return
            if "code" in params:
                result["code"] = params["code"][0]
                self._respond(
                    200, "Authentication successful. You can close this window."
                )
            elif "error" in params:
                result["error"] = params.get("error_description", params["error"])[0]
                self._respond(400, f"Error: {result['error']}")

        def _respond(self, status: int, msg: str) -> None:
            body = f"<html><body><p>{msg}</p></body></html>".encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)

    try:
        server = http.server.HTTPServer(("127.0.0.1", OAUTH_CALLBACK_PORT), _Handler)
        server.timeout = 120
    except OSError as e:
        raise RuntimeError(
            f"Could not start callback server on port {OAUTH_CALLBACK_PORT}: {e}"
        ) from e

    logger.info("Opening browser for xAI authentication (url: %s)", auth_url)

    def _open() -> None:
        time.sleep(0.5)
        webbrowser.open(auth_url)

    threading.Thread(target=_open, daemon=True).start()

    deadline = time.time() + 300
    try:
        while "code" not in result and "error" not in result:
            if time.time() > deadline:
                raise TimeoutError("xAI authentication timed out after 5 minutes.")
            server.handle_request()
    finally:
        server.server_close()

    if "error" in result:
        raise RuntimeError(f"xAI authentication failed: {result['error']}")

    token_resp = requests.post(
        OAUTH_TOKEN_URL,
        data={
            "client_id": OAUTH_CLIENT_ID,
            "grant_type": "authorization_code",
            "code": result["code"],
            "redirect_uri": callback_url,
            "code_verifier": code_verifier,
        },
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        timeout=30,
    )
    if token_resp.status_code != 200:
        raise RuntimeError(
            f"Token exchange failed: {token_resp.status_code} {token_resp.text[:200]}"
        )
    tokens = token_resp.json()
    access_token = tokens.get("access_token")
    if not access_token:
        raise RuntimeError("No access token in xAI response")
    refresh_token = tokens.get("refresh_token")
    expires_in = tokens.get("expires_in", 21600)

    auth = SubscriptionAuth(
        access_token=access_token,
        refresh_token=refresh_token,
        expires_at=time.time() + expires_in,
    )
    _save_tokens(auth)
    return auth


def get_auth(timeout: float | tuple[float, float] = 30) -> SubscriptionAuth:
    """Get a valid access token, loading or refreshing as needed.

    Priority order:
    1. In-memory cache (if not expired)
    2. grok CLI tokens (~/.grok/auth.json) — if valid or refreshable
    3. gptme-stored tokens (~/.config/gptme/oauth/grok_subscription.json)
    """
    global _auth

    # In-memory cache still valid
    if _auth is not None and time.time() < _auth.expires_at - 300:
        return _auth

    # Gather candidates: grok CLI tokens take priority (managed by the CLI)
    sources = []
    cli_auth = _load_grok_cli_tokens()
    if cli_auth is not None:
        sources.append(("grok CLI", cli_auth, True))

    stored_auth = _load_stored_tokens()
    if stored_auth is not None:
        sources.append(("gptme storage", stored_auth, False))

    last_error: Exception | None = None

    for source_name, source_auth, is_cli in sources:
        # Still valid?
        if time.time() < source_auth.expires_at - 300:
            _auth = source_auth
            return _auth

        # Try refresh
        if source_auth.refresh_token:
            try:
                new_auth = _refresh_access_token(source_auth.refresh_token, timeout)
                if is_cli:
                    _update_grok_cli_tokens(new_auth)
                _auth = new_auth
                # Re-initialize the cached OpenAI client so it uses the new token
                try:
                    from .llm_openai import _init_openai_client

                    _init_openai_client(
                        "grok-subscription",
                        api_key=_auth.access_token,
                        base_url=GROK_PROXY_URL,
                        default_headers={"x-grok-client-version": GROK_CLIENT_VERSION},
                    )
                except Exception:
                    pass  # client may not be set up yet; init() will handle it
                return _auth
            except Exception as e:
                logger.warning(f"Token refresh failed ({source_name}): {e}")
                last_error = e

    if last_error is not None:
        raise ValueError(
            f"Grok subscription token refresh failed: {last_error}\n"
            "This may be a temporary issue. If persistent, re-authenticate:\n"
            "  grok login\n"
            "  or: gptme auth grok-subscription"
        ) from last_error

    raise ValueError(
        "Grok subscription not authenticated.\n"
        "Install and authenticate the grok CLI:\n"
        "  grok login\n"
        "Or authenticate directly:\n"
        "  gptme auth grok-subscription"
    )


def init(config: Any) -> bool:
    """Initialize the grok subscription provider.

    Loads stored tokens and registers an OpenAI-compatible client pointed at
    xAI's API using the subscription access token as the bearer credential.
    Returns True whether or not tokens are available (provider is always usable).
    """
    global _auth

    # Collect all token sources
    cli_auth = _load_grok_cli_tokens()
    stored_auth = _load_stored_tokens()

    initial_auth: SubscriptionAuth | None = None
    for source_auth in [cli_auth, stored_auth]:
        if source_auth is None:
            continue
        if time.time() < source_auth.expires_at - 300:
            initial_auth = source_auth
            break

    if initial_auth is None:
        # Try to refresh from any available refresh token
        for source_name, source_auth, is_cli in [
            ("grok CLI", cli_auth, True),
            ("gptme storage", stored_auth, False),
        ]:
            if source_auth is not None and source_auth.refresh_token:
                try:
                    initial_auth = _refresh_access_token(source_auth.refresh_token)
                    if is_cli:
                        _update_grok_cli_tokens(initial_auth)
                    break
                except Exception as e:
                    logger.debug(
                        f"Token refresh during init failed ({source_name}): {e}"
                    )

    if initial_auth is not None:
        _auth = initial_auth
        from .llm_openai import _init_openai_client

        _init_openai_client(
            "grok-subscription",
            api_key=_auth.access_token,
            base_url=GROK_PROXY_URL,
            default_headers={"x-grok-client-version": GROK_CLIENT_VERSION},
        )
        logger.info("Grok subscription provider initialized with stored tokens")
    else:
        logger.info(
            "Grok subscription provider available "
            "(run 'grok login' or 'gptme auth grok-subscription' to authenticate)"
        )

    return True
