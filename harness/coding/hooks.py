"""Claude Code's hooks, run by `prefixlock run` and the chat: shell commands the settings name
for PreToolUse, PostToolUse, UserPromptSubmit, Stop and SessionStart, given the event as JSON
on stdin and answering with their exit code and (optionally) JSON on stdout.

Read from the `hooks` key of Claude Code's `settings.json` files (`~/.claude/settings.json`,
the workspace's `.claude/settings.json` and `.claude/settings.local.json`), in its shape:

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [
        {"type": "command", "command": "./check.sh", "timeout": 30}]}]}}

What each answer does, as Claude Code documents it:
- exit 0: go on; stdout that is JSON is read (`decision: "block"` and `reason`,
  `hookSpecificOutput.permissionDecision: "deny"`, `additionalContext`, `continue: false`);
  plain stdout of UserPromptSubmit and SessionStart is context for the model.
- exit 2: block. PreToolUse: the call is refused and stderr goes to the model;
  PostToolUse: stderr goes to the model beside the result; UserPromptSubmit: the prompt is
  not sent and stderr is shown; Stop: the model goes on with stderr as its next instruction.
- any other exit: a visible line, and the work goes on.

Context from SessionStart and UserPromptSubmit joins the user's message, never the system
prompt: the cached prefix stays as it was. A `permissionDecision` of "allow" or "ask" does not
override prefixlock's own permission rules (said once in a line); events prefixlock does not
have (Notification, PreCompact, SubagentStop, SessionEnd) are listed as not run.

A hook runs on the host, outside the command sandbox, as in Claude Code: a repository must not
run a process on the user's machine by being opened, so the hooks of the workspace's own files
run only with the user's consent, and are otherwise listed, not run: `--trust-hooks` (headless
`prefixlock run`, or the chat), or the chat's dialog, whose "always" is kept by
`HookConsent` outside the repository (`<store folder>/hook-consent/<hash of the workspace
path>.json`), keyed by a hash of the hooks' content (`fingerprint`): hooks edited after the
answer are asked about again, and nothing a repository ships (a settings key, a file at that
path inside the workspace) counts as an answer.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..tools import Tool

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart")
NOT_RUN = ("Notification", "PreCompact", "SubagentStop", "SessionEnd", "PermissionRequest")
DEFAULT_TIMEOUT = 60.0  # seconds, Claude Code's default per hook command
MAX_STOP_CONTINUES = 3  # a Stop hook that always blocks must not loop forever
OUTPUT_LIMIT = 10_000  # characters of a hook's stdout/stderr kept for the model
# Our tools under Claude Code's names, so a matcher written for Claude Code matches here.
CLAUDE_NAMES = {
    "read_file": "Read",
    "write_file": "Write",
    "edit_file": "Edit",
    "run_command": "Bash",
    "grep": "Grep",
    "glob": "Glob",
    "list_dir": "LS",
}
# Environment variables a hook never sees (the provider keys the session holds).
_SECRET = re.compile(r"(API_KEY|_TOKEN|SECRET|PASSWORD)$")


@dataclass(frozen=True)
class Hook:
    """One hook command for one event."""

    event: str
    matcher: str  # "" or "*": every tool; else a regex over the tool's name
    command: str
    timeout: float
    source: str  # "path (hooks.PreToolUse[0].hooks[1])"
    project: bool  # from a file in the workspace: runs only with consent

    def matches(self, tool: str | None) -> bool:
        if tool is None or self.matcher in ("", "*"):
            return True
        names = {tool, CLAUDE_NAMES.get(tool, tool)}
        try:
            pattern = re.compile(self.matcher)
        except re.error:
            return self.matcher in names
        return any(pattern.fullmatch(n) for n in names)


def parse_hooks(data: object, source: str, *, project: bool) -> tuple[list[Hook], list[str]]:
    """The hooks of one settings file's `hooks` value, and notes for what is not run."""
    if data is None:
        return [], []
    if not isinstance(data, dict):
        raise ConfigError("must be an object of events", where=f"{source}: hooks")
    hooks: list[Hook] = []
    notes: list[str] = []
    for event, groups in data.items():
        at = f"{source}: hooks.{event}"
        if event in NOT_RUN or event not in EVENTS:
            notes.append(f"{at}: prefixlock has no {event} event; its hooks are not run")
            continue
        if not isinstance(groups, list):
            raise ConfigError("must be a list of {matcher, hooks}", where=at)
        for i, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                raise ConfigError("must be {matcher, hooks: [...]}", where=f"{at}[{i}]")
            matcher = group.get("matcher", "")
            if not isinstance(matcher, str):
                raise ConfigError("must be a string", where=f"{at}[{i}].matcher")
            for j, spec in enumerate(group["hooks"]):
                where = f"{at}[{i}].hooks[{j}]"
                if not isinstance(spec, dict) or spec.get("type", "command") != "command":
                    notes.append(f"{where}: only command hooks are run")
                    continue
                command = spec.get("command")
                if not isinstance(command, str) or not command.strip():
                    raise ConfigError("command must be a non-empty string", where=where)
                timeout = spec.get("timeout", DEFAULT_TIMEOUT)
                if not isinstance(timeout, int | float) or isinstance(timeout, bool):
                    raise ConfigError("timeout must be a number of seconds", where=where)
                if timeout <= 0:
                    raise ConfigError("timeout must be positive", where=where)
                hooks.append(Hook(event, matcher, command, float(timeout), where, project))
    return hooks, notes


def load_hooks(workspace: Path, user_dir: Path | None) -> tuple[list[Hook], list[str]]:
    """The hooks of the Claude Code settings files (user level first), and notes."""
    files: list[tuple[Path, bool]] = []
    if user_dir is not None:
        files.append((user_dir / ".claude" / "settings.json", False))
    files += [
        (workspace / ".claude" / "settings.json", True),
        (workspace / ".claude" / "settings.local.json", True),
    ]
    hooks: list[Hook] = []
    notes: list[str] = []
    seen: set[Path] = set()
    for path, project in files:
        if not path.is_file() or path.resolve() in seen:
            continue
        seen.add(path.resolve())  # a home folder that is the workspace: read once, as the user's
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue  # the settings loader names a broken file; hooks add nothing to that
        if isinstance(data, dict):
            found, said = parse_hooks(data.get("hooks"), str(path), project=project)
            hooks += found
            notes += said
    return hooks, notes


def fingerprint(hooks: Sequence[Hook]) -> str:
    """What the user agreed to run: each hook's event, matcher, command and timeout, in order."""
    what = [[h.event, h.matcher, h.command, h.timeout] for h in hooks]
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:32]


class HookConsent:
    """The user's "always" answers about one workspace's hooks: the fingerprints approved.
    Kept beside the session store, never in the repository: a path inside the workspace (a
    store there) is not read, so a repository cannot ship an answer."""

    def __init__(self, store_path: Path | None, workspace: Path) -> None:
        from ..store.database import project_file

        path = project_file(store_path, workspace, "hook-consent", ".json")
        if path is not None and path.resolve().is_relative_to(workspace.resolve()):
            path = None  # the repository could have written it
        self.path = path
        self.approved: set[str] = self._load()
        self.warning: str | None = None  # set when an answer could not be saved

    def _load(self) -> set[str]:
        if self.path is None:
            return set()
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return set()
        found = data.get("approved") if isinstance(data, dict) else None
        return {str(f) for f in found} if isinstance(found, list) else set()

    def allows(self, hooks: Sequence[Hook]) -> bool:
        return fingerprint(hooks) in self.approved

    def remember(self, hooks: Sequence[Hook]) -> None:
        self.approved.add(fingerprint(hooks))
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"approved": sorted(self.approved)}, indent=1), "utf-8")
            tmp.replace(self.path)  # whole or not at all
        except OSError as exc:  # a read-only data dir: the answer holds for this session
            self.warning = f"hook consent not saved to {self.path}: {exc.strerror or exc}"


@dataclass
class Outcome:
    """What the hooks of one event decided."""

    block: str | None = None  # why the action is refused / the prompt stopped / go on (Stop)
    context: list[str] = field(default_factory=list)  # for the model
    notes: list[str] = field(default_factory=list)  # for the user (stderr, the chat's notes)


def interpret(event: str, code: int | None, stdout: str, stderr: str, source: str) -> Outcome:
    """One hook's answer (exit code, stdout, stderr) as Claude Code reads it. Pure."""
    out = Outcome()
    stderr = stderr.strip()[:OUTPUT_LIMIT]
    stdout = stdout.strip()[:OUTPUT_LIMIT]
    if code is None:
        out.notes.append(f"hook {source} timed out and was stopped")
        return out
    if code == 2:
        out.block = stderr or f"blocked by the {event} hook {source}"
        return out
    if code != 0:
        out.notes.append(f"hook {source} failed (exit {code}): {stderr or 'no message'}")
        return out
    answer: object = None
    if stdout.startswith("{"):
        try:
            answer = json.loads(stdout)
        except ValueError:
            answer = None
    if not isinstance(answer, dict):
        if stdout and event in ("UserPromptSubmit", "SessionStart"):
            out.context.append(stdout)
        return out
    reason = str(answer.get("reason") or answer.get("stopReason") or "")
    if answer.get("continue") is False or answer.get("decision") == "block":
        out.block = reason or f"blocked by the {event} hook {source}"
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict):
        decision = specific.get("permissionDecision")
        why = str(specific.get("permissionDecisionReason") or reason)
        if decision == "deny":
            out.block = why or f"denied by the PreToolUse hook {source}"
        elif decision in ("allow", "ask"):
            out.notes.append(
                f"hook {source}: permissionDecision {decision!r} not honoured: prefixlock's "
                "permission rules decide (a hook can only deny)"
            )
        extra = specific.get("additionalContext")
        if isinstance(extra, str) and extra.strip():
            out.context.append(extra.strip())
    return out


Runner = Callable[[str, bytes, Path, Mapping[str, str], float], Any]


async def run_shell(
    command: str, stdin: bytes, cwd: Path, env: Mapping[str, str], timeout: float
) -> tuple[int | None, str, str]:
    """Run one hook command; (exit code or None on timeout, stdout, stderr)."""
    proc = await asyncio.create_subprocess_shell(
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None, "", ""
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


class HookRunner:
    """The hooks of one session: each event's matching commands, run in order."""

    def __init__(
        self,
        hooks: Sequence[Hook],
        cwd: Path,
        *,
        trust_project: bool = False,
        session_id: str = "",
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.hooks: list[Hook] = [h for h in hooks if trust_project or not h.project]
        self.untrusted: list[Hook] = [h for h in hooks if h.project and not trust_project]
        base = dict(os.environ if environ is None else environ)
        self.env: dict[str, str] = {k: v for k, v in base.items() if not _SECRET.search(k)}
        self.env["CLAUDE_PROJECT_DIR"] = str(cwd)
        self.notes: list[str] = []  # said to the user, taken by `take_notes`
        self.stop_continues: int = 0

    def take_notes(self) -> list[str]:
        notes, self.notes = self.notes, []
        return notes

    async def fire(self, event: str, payload: dict[str, Any], tool: str | None = None) -> Outcome:
        """Run every hook of `event` matching `tool`; the first block wins, contexts add up."""
        total = Outcome()
        body = {
            "session_id": self.session_id,
            "cwd": str(self.cwd),
            "hook_event_name": event,
            **payload,
        }
        stdin = json.dumps(body, ensure_ascii=False).encode()
        for hook in self.hooks:
            if hook.event != event or not hook.matches(tool):
                continue
            code, out, err = await run_shell(hook.command, stdin, self.cwd, self.env, hook.timeout)
            got = interpret(event, code, out, err, hook.source)
            total.context += got.context
            total.notes += got.notes
            if got.block is not None and total.block is None:
                total.block = got.block
        self.notes += total.notes
        return total

    async def prompt(self, text: str, *, start: str | None = None) -> tuple[str | None, str]:
        """UserPromptSubmit (and SessionStart first, when `start` is "startup" or "resume"):
        (why the prompt is blocked or None, the text to send with the hooks' context)."""
        context: list[str] = []
        if start is not None:
            context += (await self.fire("SessionStart", {"source": start})).context
        got = await self.fire("UserPromptSubmit", {"prompt": text})
        if got.block is not None:
            return got.block, text
        context += got.context
        if not context:
            return None, text
        return None, text + "\n\n" + "\n\n".join(context)

    async def stop(self, answer: str) -> str | None:
        """Stop: the instruction to go on with, or None to end the turn."""
        active = self.stop_continues > 0
        got = await self.fire("Stop", {"stop_hook_active": active, "last_answer": answer})
        if got.block is None or self.stop_continues >= MAX_STOP_CONTINUES:
            self.stop_continues = 0
            return None
        self.stop_continues += 1
        return got.block

    def wrap(self, tools: Sequence[Tool], root: Path) -> list[Tool]:
        """The tools with PreToolUse / PostToolUse around each (`wrap_tool`)."""
        return [self.wrap_tool(t, root) for t in tools]

    def wrap_tool(self, tool: Tool, root: Path) -> Tool:
        """The tool with PreToolUse / PostToolUse around it (its spec unchanged, so the
        prefix's bytes are the same with or without hooks); the tool itself when no hook
        fires around tools."""
        if not any(h.event in ("PreToolUse", "PostToolUse") for h in self.hooks):
            return tool
        runner = self

        async def fn(**arguments: Any) -> str:
            given = claude_input(tool.name, arguments, root)
            name = CLAUDE_NAMES.get(tool.name, tool.name)
            payload = {"tool_name": name, "tool_input": given}
            before = await runner.fire("PreToolUse", payload, tool.name)
            if before.block is not None:
                raise HookBlocked(before.block)
            result = await tool.invoke(arguments)
            after = await runner.fire(
                "PostToolUse", {**payload, "tool_response": result}, tool.name
            )
            feedback = [*after.context, *([after.block] if after.block else [])]
            if feedback:
                result += "\n\n[PostToolUse hook] " + "\n".join(feedback)
            return result

        return replace(tool, fn=fn, args_model=None, context_param=None)


class HookBlocked(Exception):
    """A PreToolUse hook refused the call (its reason goes to the model)."""


def claude_input(tool: str, arguments: Mapping[str, Any], root: Path) -> dict[str, Any]:
    """A call's input in Claude Code's field names (`file_path` absolute), for the hook."""
    given = dict(arguments)
    if tool in ("read_file", "write_file", "edit_file") and "path" in given:
        given["file_path"] = str((root / str(given.pop("path"))).resolve())
    return given
