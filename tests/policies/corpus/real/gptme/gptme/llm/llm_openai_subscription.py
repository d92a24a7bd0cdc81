"""OpenAI Subscription Provider.

Enables use of ChatGPT Plus/Pro subscriptions with gptme through the
ChatGPT backend API (not the Platform API). Uses OAuth 2.0 + PKCE for
authentication.

Uses the OpenAI **Responses API** format (not Chat Completions):
- ``input`` instead of ``messages`` for conversation items
- ``instructions`` for system-level guidance (separated from input)
- SSE events like ``response.output_text.delta`` and ``response.done``
See: https://platform.openai.com/docs/api-reference/responses

Based on opencode-openai-codex-auth plugin OAuth implementation.

NOTICE: For personal development use with your own ChatGPT Plus/Pro subscription.
For production or multi-user applications, use the OpenAI Platform API.

Usage:
    1. First run: `gptme auth openai-subscription` to authenticate
    2. Use model like: openai-subscription/gpt-5.2

Endpoint: https://chatgpt.com/backend-api/codex/responses

TODO: The regular OpenAI provider (llm_openai.py) could also be migrated to the
Responses API, which would allow unifying both providers. The Responses API is now
the recommended path forward for OpenAI and supports the same models. A unified
provider could share auth, request building, and response parsing, with the only
difference being the auth method (API key vs OAuth) and base URL.
"""

import base64
import hashlib
import http.server
import json
import logging
import os
import secrets
import socket
import threading
import time
import webbrowser
from base64 import urlsafe_b64decode
from collections.abc import Generator
from dataclasses import dataclass
from math import isfinite
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qs, urlencode, urlparse
from uuid import uuid4

import requests

from ..message import Message, MessageMetadata
from .openai_responses import (
    _extract_usage_token_counts,
    _messages_to_responses_input,
    _stream_responses_events,
    _tool_spec_to_responses_tool,
)

logger = logging.getLogger(__name__)

# OAuth Configuration (from opencode)
OAUTH_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
OAUTH_AUTH_URL = "https://auth.openai.com/oauth/authorize"
OAUTH_TOKEN_URL = "https://auth.openai.com/oauth/token"
OAUTH_CALLBACK_PORT = 1455
OAUTH_CALLBACK_PATH = "/auth/callback"
OAUTH_SCOPES = "openid profile email offline_access"

# ChatGPT backend API base URL
CHATGPT_BASE_URL = "https://chatgpt.com"
CODEX_ENDPOINT = f"{CHATGPT_BASE_URL}/backend-api/codex/responses"


def _get_token_storage_path() -> Path:
    """Get path to store OAuth tokens."""
    config_dir = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config"))
    token_dir = config_dir / "gptme" / "oauth"
    token_dir.mkdir(parents=True, exist_ok=True)
    return token_dir / "openai_subscription.json"


@dataclass
class SubscriptionAuth:
    """Authentication state for OpenAI subscription."""

    access_token: str
    refresh_token: str | None
    account_id: str
    expires_at: float


# Global auth state
_auth: SubscriptionAuth | None = None


def _generate_pkce() -> tuple[str, str]:
    """Generate PKCE code verifier and challenge."""
    code_verifier = secrets.token_urlsafe(32)
    digest = hashlib.sha256(code_verifier.encode()).digest()
    code_challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return code_verifier, code_challenge


def _decode_jwt_payload(token: str) -> dict[str, Any]:
    """Decode JWT payload without verification."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("Invalid JWT format")

    payload = parts[1]
    padding = 4 - len(payload) % 4
    if padding != 4:
        payload += "=" * padding

    decoded = urlsafe_b64decode(payload)
    return json.loads(decoded)


def _extract_account_id(access_token: str) -> str:
    """Extract chatgpt-account-id from JWT claims."""
    payload = _decode_jwt_payload(access_token)

    for key, value in payload.items():
        if "openai" in key.lower() and isinstance(value, dict):
            if "organization_id" in value:
                return value["organization_id"]

    if "sub" in payload:
        return payload["sub"]

    raise ValueError("Could not extract account ID from JWT")


def _get_token_expiry(access_token: str) -> float:
    """Extract expiry timestamp from JWT."""
    try:
        payload = _decode_jwt_payload(access_token)
        if "exp" in payload:
            return float(payload["exp"])
    except Exception as e:
        logger.warning(f"Failed to extract token expiry: {e}")
    return time.time() + 3600


def _save_tokens(auth: SubscriptionAuth) -> None:
    """Save tokens to disk."""
    token_path = _get_token_storage_path()
    data = {
        "access_token": auth.access_token,
        "refresh_token": auth.refresh_token,
        "account_id": auth.account_id,
        "expires_at": auth.expires_at,
    }
    token_path.write_text(json.dumps(data, indent=2))
    token_path.chmod(0o600)
    logger.debug(f"Saved tokens to {token_path}")


def _load_tokens() -> SubscriptionAuth | None:
    """Load tokens from disk."""
    token_path = _get_token_storage_path()
    if not token_path.exists():
        return None

    try:
        data = json.loads(token_path.read_text())
        return SubscriptionAuth(
            access_token=data["access_token"],
            refresh_token=data.get("refresh_token"),
            account_id=data["account_id"],
            expires_at=data["expires_at"],
        )
    except Exception as e:
        logger.warning(f"Failed to load tokens: {e}")
        return None


def _is_port_available(port: int) -> bool:
    """Check if a port is available."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


class _OAuthCallbackHandler(http.server.BaseHTTPRequestHandler):
    """HTTP handler for OAuth callback."""

    # Thread-safe state using class variables (single OAuth flow at a time)
    # Protected by port check - only one flow can run on OAUTH_CALLBACK_PORT
    authorization_code: str | None = None
    error: str | None = None
    expected_state: str | None = None  # Set before starting server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        parsed = urlparse(self.path)
        params = parse_qs(parsed.query)

        # Validate state parameter to prevent CSRF attacks
        received_state = params.get("state", [None])[0]
        if received_state != _OAuthCallbackHandler.expected_state:
            _OAuthCallbackHandler.error = (
                "Invalid state parameter (possible CSRF attack)"
            )
            self._send_error_response("Security error: Invalid state parameter")
            return

        if "code" in params:
            _OAuthCallbackHandler.authorization_code = params["code"][0]
            self._send_success_response()
        elif "error" in params:
            err = params.get("error_description", params["error"])[0]
            _OAuthCallbackHandler.error = err
            self._send_error_response(err)
        else:
            self._send_error_response("No authorization code received")

    def _send_success_response(self) -> None:
        html = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>gptme - Authentication Successful</title>
</head>
<body style="font-family: system-ui; text-align: center; padding: 50px; color: #222; background: #fafafa;">
<h1 style="font-size: 1.5em;">gptme</h1>
<p style="font-size: 1.2em;">Authentication successful. You can close this window and return to your terminal.</p>
<script>setTimeout(() => window.close(), 3000);</script>
</body>
</html>"""
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(html.encode())

    def _send_error_response(self, error: str) -> None:
        html = f"""<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>gptme - Authentication Failed</title>
</head>
<body style="font-family: system-ui; text-align: center; padding: 50px; color: #222; background: #fafafa;">
<h1 style="font-size: 1.5em;">gptme</h1>
<p style="font-size: 1.2em; color: #c00;">Authentication failed: {error}</p>
<p>Please close this window and try again.</p>
</body>
</html>"""
        self.send_response(400)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(html.encode())


def oauth_authenticate() -> SubscriptionAuth:
    """Perform OAuth authentication flow.

    Opens browser for user to log in, handles callback, and exchanges
    authorization code for tokens.
    """
    if not _is_port_available(OAUTH_CALLBACK_PORT):
        raise ValueError(
            f"Port {OAUTH_CALLBACK_PORT} is not available. "
            "Please close any other gptme instances and try again."
        )

    code_verifier, code_challenge = _generate_pkce()
    state = secrets.token_urlsafe(16)

    auth_params = {
        "client_id": OAUTH_CLIENT_ID,
        "redirect_uri": f"http://localhost:{OAUTH_CALLBACK_PORT}{OAUTH_CALLBACK_PATH}",
        "response_type": "code",
        "scope": OAUTH_SCOPES,
        "state": state,
        "code_challenge": code_challenge,
        "code_challenge_method": "S256",
        "id_token_add_organizations": "true",
        "codex_cli_simplified_flow": "true",
        "originator": "codex_cli_rs",
    }
    auth_url = f"{OAUTH_AUTH_URL}?{urlencode(auth_params)}"

    # Reset handler state (protected by port check - only one flow at a time)
    _OAuthCallbackHandler.authorization_code = None
    _OAuthCallbackHandler.error = None
    _OAuthCallbackHandler.expected_state = state  # For CSRF validation

    server = http.server.HTTPServer(
        ("127.0.0.1", OAUTH_CALLBACK_PORT),
        _OAuthCallbackHandler,
    )
    server.timeout = 120  # 2 minutes should be sufficient for browser auth

    print("\n🔐 Opening browser for OpenAI authentication...")
    print(f"   If browser doesn't open, visit:\n   {auth_url}")

    def open_browser() -> None:
        time.sleep(0.5)
        webbrowser.open(auth_url)

    threading.Thread(target=open_browser, daemon=True).start()

    print(f"   Waiting for authentication callback on port {OAUTH_CALLBACK_PORT}...")
    try:
        while (
            _OAuthCallbackHandler.authorization_code is None
            and _OAuthCallbackHandler.error is None
        ):
            server.handle_request()
    finally:
        server.server_close()

    if _OAuthCallbackHandler.error:
        raise ValueError(f"OAuth error: {_OAuthCallbackHandler.error}")

    if not _OAuthCallbackHandler.authorization_code:
        raise ValueError("No authorization code received")

    print("   Exchanging authorization code for tokens...")
    token_response = requests.post(
        OAUTH_TOKEN_URL,
        data={
            "client_id": OAUTH_CLIENT_ID,
            "grant_type": "authorization_code",
            "code": _OAuthCallbackHandler.authorization_code,
            "redirect_uri": f"http://localhost:{OAUTH_CALLBACK_PORT}{OAUTH_CALLBACK_PATH}",
            "code_verifier": code_verifier,
        },
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        timeout=30,
    )

    if token_response.status_code != 200:
        raise ValueError(
            f"Token exchange failed: {token_response.status_code} - {token_response.text}"
        )

    tokens = token_response.json()
    access_token = tokens.get("access_token")
    refresh_token = tokens.get("refresh_token")

    if not access_token:
        raise ValueError("No access token in response")

    account_id = _extract_account_id(access_token)
    expires_at = _get_token_expiry(access_token)

    auth = SubscriptionAuth(
        access_token=access_token,
        refresh_token=refresh_token,
        account_id=account_id,
        expires_at=expires_at,
    )

    _save_tokens(auth)

    print("✅ Authentication successful!")
    return auth


def _refresh_access_token(
    refresh_token: str, timeout: float | tuple[float, float] = 30
) -> SubscriptionAuth:
    """Refresh access token using refresh token."""
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
        raise ValueError(f"Token refresh failed: {response.status_code}")

    tokens = response.json()
    access_token = tokens.get("access_token")
    new_refresh_token = tokens.get("refresh_token", refresh_token)

    if not access_token:
        raise ValueError("No access token in refresh response")

    account_id = _extract_account_id(access_token)
    expires_at = _get_token_expiry(access_token)

    auth = SubscriptionAuth(
        access_token=access_token,
        refresh_token=new_refresh_token,
        account_id=account_id,
        expires_at=expires_at,
    )

    _save_tokens(auth)
    logger.info("Access token refreshed successfully")
    return auth


def get_auth(timeout: float | tuple[float, float] = 30) -> SubscriptionAuth:
    """Get current auth, refreshing or prompting login if needed."""
    global _auth
    last_refresh_error: Exception | None = None

    if _auth is not None:
        if time.time() < _auth.expires_at - 300:
            return _auth

        if _auth.refresh_token:
            try:
                _auth = _refresh_access_token(_auth.refresh_token, timeout=timeout)
                return _auth
            except Exception as e:
                logger.warning(f"Token refresh failed: {e}")
                last_refresh_error = e

    stored_auth = _load_tokens()
    if stored_auth is not None:
        if time.time() < stored_auth.expires_at - 300:
            _auth = stored_auth
            return _auth

        if stored_auth.refresh_token:
            try:
                _auth = _refresh_access_token(
                    stored_auth.refresh_token, timeout=timeout
                )
                return _auth
            except Exception as e:
                logger.warning(f"Token refresh failed: {e}")
                last_refresh_error = e

    if last_refresh_error is not None:
        raise ValueError(
            f"OpenAI subscription token refresh failed: {last_refresh_error}\n"
            "This may be a temporary issue (network, OAuth server). "
            "If persistent, re-authenticate with: gptme auth openai-subscription"
        ) from last_refresh_error

    raise ValueError(
        "OpenAI subscription not authenticated.\n"
        "Please run: gptme auth openai-subscription"
    )


def _transform_to_codex_request(
    input_items: list[dict[str, Any]],
    model: str,
    *,
    instructions: str | None = None,
    stream: bool = True,
    reasoning_level: str | None = None,
    max_output_tokens: int | None = None,
) -> dict[str, Any]:
    """Build a Responses API request body from shared Responses helpers."""
    base_model = model.split(":")[0] if ":" in model else model
    if ":" in model:
        reasoning_level = model.split(":")[1]

    if reasoning_level is None:
        reasoning_level = "medium"

    body: dict[str, Any] = {
        "model": base_model,
        "instructions": instructions or "You are a helpful assistant.",
        "input": input_items,
        "stream": stream,
        "store": False,
        "reasoning": {
            "effort": reasoning_level,
        },
    }
    if max_output_tokens is not None:
        body["max_output_tokens"] = max_output_tokens
    return body


def _parse_sse_response(line: bytes | str) -> dict[str, Any] | None:
    """Parse a single SSE line (bytes or str)."""
    if isinstance(line, bytes):
        line = line.decode("utf-8")

    if not line.startswith("data:"):
        return None

    data = line[5:].strip()
    if data == "[DONE]":
        return {"done": True}

    try:
        return json.loads(data)
    except json.JSONDecodeError:
        return None


def stream(
    messages: list[Message],
    model: str,
    tools: list[Any] | None = None,
    max_tokens: int | None = None,
    **kwargs: Any,
) -> Generator[str, None, MessageMetadata | None]:
    """Stream completion from ChatGPT subscription API.

    Returns usage metadata dict via generator return value, captured by
    _StreamWithMetadata in the caller.
    """
    auth = get_auth()

    instructions, api_messages = _messages_to_responses_input(messages)

    request_body = _transform_to_codex_request(
        input_items=api_messages,
        model=model,
        instructions=instructions,
        stream=True,
        max_output_tokens=max_tokens,
    )

    if tools:
        request_body["tools"] = [_tool_spec_to_responses_tool(t) for t in tools]

    headers = {
        "Authorization": f"Bearer {auth.access_token}",
        "Content-Type": "application/json",
        "OpenAI-Beta": "responses=experimental",
        "chatgpt-account-id": auth.account_id,
        "originator": "gptme",
        "session_id": str(uuid4()),
    }

    # Timeout is (connect, read). With stream=True the read timeout applies
    # BETWEEN stream chunks — reasoning models (gpt-5.5 high, gpt-5.6-sol)
    # can think for minutes without emitting an event, so the default is
    # deliberately generous. Override via GPTME_SUBSCRIPTION_READ_TIMEOUT
    # for latency-sensitive callers.
    _DEFAULT_READ_TIMEOUT = 600.0
    _env_val = os.environ.get("GPTME_SUBSCRIPTION_READ_TIMEOUT", "")
    if _env_val:
        try:
            _parsed = float(_env_val)
            if _parsed <= 0 or not isfinite(_parsed):
                raise ValueError("must be a positive finite number")
            read_timeout = _parsed
        except ValueError:
            logger.warning(
                "Invalid GPTME_SUBSCRIPTION_READ_TIMEOUT=%r; using default %.0fs",
                _env_val,
                _DEFAULT_READ_TIMEOUT,
            )
            read_timeout = _DEFAULT_READ_TIMEOUT
    else:
        read_timeout = _DEFAULT_READ_TIMEOUT
    # Stream retries, mirroring codex-rs (DEFAULT_STREAM_IDLE_TIMEOUT_MS=300s
    # with DEFAULT_STREAM_MAX_RETRIES=5): silence/drop on the wire is a
    # retryable condition, not fatal. No read timeout is a true upper bound on
    # a reasoning pause, so a timeout alone always has a failure mode; the
    # retry closes it. Only retried BEFORE the first event has been yielded —
    # re-POSTing restarts generation, so retrying after partial output would
    # duplicate content downstream.
    try:
        max_stream_retries = int(
            os.environ.get("GPTME_SUBSCRIPTION_STREAM_RETRIES", "3")
        )
    except ValueError:
        max_stream_retries = 3
    max_stream_retries = max(0, min(max_stream_retries, 100))

    def _open_response() -> requests.Response:
        resp = requests.post(
            CODEX_ENDPOINT,
            json=request_body,
            headers=headers,
            stream=True,
            timeout=(30, read_timeout),
        )
        if resp.status_code != 200:
            error_text = resp.text[:500]
            raise ValueError(f"Codex API error {resp.status_code}: {error_text}")
        return resp

    def _sse_events():
        attempts = 0
        yielded_any = False
        response = _open_response()
        try:
            while True:
                try:
                    for line in response.iter_lines():
                        if not line:
                            continue
                        data = _parse_sse_response(line)
                        if data is None:
                            continue
                        if data.get("done"):
                            return
                        yielded_any = True
                        yield data
                    return
                except (
                    requests.exceptions.Timeout,
                    requests.exceptions.ConnectionError,
                    requests.exceptions.ChunkedEncodingError,
                ) as e:
                    # Close before rebinding so the abandoned SSL socket is
                    # released immediately rather than at interpreter teardown.
                    response.close()
                    if yielded_any or attempts >= max_stream_retries:
                        raise
                    attempts += 1
                    logger.warning(
                        "Subscription stream idle/dropped before first event (%s); "
                        "retrying (%d/%d)",
                        e,
                        attempts,
                        max_stream_retries,
                    )
                    response = _open_response()
        finally:
            # Runs on every exit path: normal return, exception, or GeneratorExit
            # when _stream_responses_events breaks early on response.done.
            # Without this the streaming SSL socket lingers until interpreter
            # teardown and can SIGSEGV when _ssl is finalized out-of-order
            # (status=139, recurring in PM canary with gpt-5.6-sol).
            response.close()

    _usage_holder: list[Any] = []

    def _capture_usage(usage: Any) -> None:
        _usage_holder.append(usage)

    yield from _stream_responses_events(_sse_events(), usage_callback=_capture_usage)

    # Return usage metadata so _StreamWithMetadata can attach it to the message.
    # _StreamWithMetadata adds the full provider-prefixed model name automatically.
    if not _usage_holder:
        return None
    counts = _extract_usage_token_counts(_usage_holder[0])
    usage_data: dict[str, int] = {}
    if isinstance(counts.input_tokens, int):
        usage_data["input_tokens"] = counts.input_tokens
    if isinstance(counts.output_tokens, int):
        usage_data["output_tokens"] = counts.output_tokens
    if isinstance(counts.cache_read_tokens, int):
        usage_data["cache_read_tokens"] = counts.cache_read_tokens
    if isinstance(counts.cache_creation_tokens, int):
        usage_data["cache_creation_tokens"] = counts.cache_creation_tokens
    return cast(MessageMetadata, {"usage": usage_data}) if usage_data else None


def chat(
    messages: list[Message],
    model: str,
    tools: list[Any] | None = None,
    **kwargs: Any,
) -> str:
    """Non-streaming completion from ChatGPT subscription API."""
    content_parts = list(stream(messages, model, tools, **kwargs))
    return "".join(content_parts)


def init(config: Any) -> bool:
    """Initialize the OpenAI subscription provider."""
    global _auth

    stored_auth = _load_tokens()
    if stored_auth is not None:
        if time.time() < stored_auth.expires_at - 300:
            _auth = stored_auth
            logger.info("OpenAI subscription provider initialized with stored tokens")
            return True

        if stored_auth.refresh_token:
            try:
                _auth = _refresh_access_token(stored_auth.refresh_token)
                logger.info(
                    "OpenAI subscription provider initialized with refreshed token"
                )
                return True
            except Exception as e:
                logger.debug(f"Token refresh failed during init: {e}")

    logger.info(
        "OpenAI subscription provider available "
        "(run 'gptme auth openai-subscription' to authenticate)"
    )
    return True
