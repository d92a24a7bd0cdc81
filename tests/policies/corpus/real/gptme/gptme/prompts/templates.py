import logging
import platform
from collections.abc import Generator
from datetime import datetime, timezone
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from ..config import get_config, get_project_config
from ..dirs import get_project_git_dir
from ..llm.models import get_model
from ..message import Message
from ..tools import ToolFormat, ToolSpec
from . import _xml_section
from .skills import prompt_skills_summary

logger = logging.getLogger(__name__)

# Providers whose models tend to narrate tool use instead of emitting actual calls.
# Inspired by Hermes/OpenClaw research on "describe without doing" drift.
_TOOL_ENFORCEMENT_PROVIDERS = frozenset(
    ["openai", "openai-subscription", "azure", "gemini", "xai"]
)
# Model name substrings that need enforcement when running under generic providers
# (openrouter, groq, deepseek, nvidia, local).
_TOOL_ENFORCEMENT_MODEL_FAMILIES = ("gpt-", "codex", "gemini", "gemma", "grok")

_TOOL_USE_ENFORCEMENT_PROMPT = (
    "\n\nWhen a tool is available for a task, call it immediately — do not describe "
    "what you would do or which tool you would use. Every decision to use a tool "
    "must produce an actual tool call in the same message."
)


def _needs_tool_use_enforcement(model_meta) -> bool:
    """Return True for model families that tend to narrate instead of calling tools."""
    if model_meta is None:
        return False
    provider = str(model_meta.provider)
    if provider in _TOOL_ENFORCEMENT_PROVIDERS:
        return True
    # For pass-through providers, check the model name for known families.
    model_name = model_meta.model.lower()
    return any(family in model_name for family in _TOOL_ENFORCEMENT_MODEL_FAMILIES)


def prompt_full(
    interactive: bool,
    tools: list[ToolSpec],
    tool_format: ToolFormat,
    model: str | None,
    agent_name: str | None = None,
    workspace: Path | None = None,
) -> Generator[Message, None, None]:
    """Full prompt to start the conversation."""
    yield from prompt_gptme(
        interactive, model, agent_name, tool_format=tool_format, tools=tools
    )
    yield from prompt_tools(tools=tools, tool_format=tool_format, model=model)
    if interactive:
        yield from prompt_user(tool_format=tool_format)
    yield from prompt_project(tool_format=tool_format)
    yield from prompt_systeminfo(workspace, tool_format=tool_format)
    yield from prompt_timeinfo(tool_format=tool_format)
    yield from prompt_skills_summary(tool_format=tool_format)


def prompt_short(
    interactive: bool,
    tools: list[ToolSpec],
    tool_format: ToolFormat,
    model: str | None = None,
    agent_name: str | None = None,
) -> Generator[Message, None, None]:
    """Short prompt to start the conversation."""
    yield from prompt_gptme(
        interactive,
        model,
        agent_name=agent_name,
        tool_format=tool_format,
        compact=True,
        tools=tools,
    )
    yield from prompt_tools(
        examples=False, tools=tools, tool_format=tool_format, model=model
    )
    if interactive:
        yield from prompt_user(tool_format=tool_format)
    yield from prompt_project(tool_format=tool_format)


def prompt_gptme(
    interactive: bool,
    model: str | None = None,
    agent_name: str | None = None,
    tool_format: ToolFormat = "markdown",
    compact: bool = False,
    tools: list[ToolSpec] | None = None,
) -> Generator[Message, None, None]:
    """
    Base system prompt for gptme.

    It should:
     - Introduce gptme and its general capabilities and purpose
     - Ensure that it lets the user mostly ask and confirm actions (apply patches, run commands)
     - Provide a brief overview of the capabilities and tools available
     - Not mention tools which may not be loaded (browser, vision)
     - Mention the ability to self-correct and ask clarifying questions
    """
    model_meta = get_model(model) if model else None

    # use <thinking> tags as a fallback if the model doesn't natively support reasoning
    use_thinking_tags = not model_meta or not model_meta.supports_reasoning

    from ..__version__ import __version__

    if agent_name:
        agent_blurb = f"{agent_name}, an agent running in gptme v{__version__}, letting you act as a general-purpose AI assistant powered by LLMs"
    else:
        agent_name = f"gptme v{__version__}"
        agent_blurb = f"{agent_name}, a general-purpose AI assistant powered by LLMs"

    placeholder_guidance = (
        "Do not use unset placeholders like `$REPO`."
        if compact
        else "Do not use placeholders like `$REPO` unless they have been set."
    )
    tool_guidance = (
        "Use available tools proactively instead of suggesting manual actions."
        if compact
        else """Always prioritize using the provided tools over suggesting manual actions.
Be proactive in using tools to gather information or perform tasks.
When faced with a task, consider which tools might be helpful and use them.
Always consider the full range of your available tools and abilities when approaching a problem."""
    )
    communication_guidance = (
        "Be concise and thorough."
        if compact
        else "Maintain a professional and efficient communication style. Be concise but thorough in your explanations."
    )
    # Applied uniformly across backends: measurement across Claude, GPT-4o and
    # Codex found ending on an offer/question instead of an action to be the
    # shared weakness, not a per-backend one.
    next_step_guidance = (
        "End with a concrete next step (a command or specific action), not an offer to elaborate."
        if compact
        else """End your response with a concrete next step: a command to run, a file to change, or a specific action to take.
Do not end with an offer to elaborate ("I can give you a patch if you want") or a generic suggestion."""
    )
    if interactive:
        next_step_guidance += (
            " Ask a clarifying question only when the request is genuinely ambiguous."
            if compact
            else "\nAsk a clarifying question only when the request is genuinely ambiguous and you cannot proceed without the answer."
        )

    # Determine which editing tools are active in this session.
    # Tool names are the registered .name values: "patch" (gptme/tools/patch.py)
    # and "save" (gptme/tools/save.py). Not "write" — that is an alias in some docs.
    tool_names = {t.name for t in (tools or [])}
    has_patch = "patch" in tool_names
    has_save = "save" in tool_names

    # Inline editing hint (only mentions tools that are actually available)
    if has_patch and has_save:
        editing_inline = "When suggesting code changes, prefer applying patches over examples. Preserve comments, unless they are no longer relevant.\nUse the patch tool to edit existing files, or the save tool to overwrite."
    elif has_patch:
        editing_inline = "When suggesting code changes, prefer applying patches over examples. Preserve comments, unless they are no longer relevant.\nUse the patch tool to edit existing files."
    elif has_save:
        editing_inline = "When suggesting code changes, use the save tool to write or overwrite files. Preserve comments, unless they are no longer relevant."
    else:
        editing_inline = "When suggesting code changes, show the changes clearly in your response. Preserve comments, unless they are no longer relevant."

    # Full Code Editing Strategy section — only emitted when at least one editing tool is present
    if has_patch or has_save:
        patch_section = (
            """1. **patch** — For targeted changes to existing files
   - BEST FOR: Fixing a bug, changing a function, adding imports
   - Uses conflict-marker format (not unified diff) to describe what changes
   - FAIL MODE: Context-line mismatch if the file changed since you read it
   - Always read the file first so your context lines match exactly
"""
            if has_patch
            else ""
        )
        save_section = (
            f"""{"2" if has_patch else "1"}. **save** — For complete rewrites or new files
   - BEST FOR: Test files, newly generated code, structural refactors
   - COST: Higher (rewrite entire file content)
   - FAIL MODE: Loses the review diff structure; harder for humans to review
   - USE WHEN: Multiple edits accumulate, or a patch would be very complex
"""
            if has_save
            else ""
        )
        prefer_save_hint = (
            "- **Prefer the save tool for complex changes** — one clean rewrite beats several risky patches\n"
            if has_save
            else ""
        )
        intro_line = (
            "You have two edit tools with different cost/correctness tradeoffs:"
            if has_patch and has_save
            else "You have one file-editing tool:"
        )
        # Only warn about patch fragility when patch is actually available
        patch_fragility_warning = (
            "- DO NOT try to edit cells with patch (whitespace/quoting fragile)\n"
            if has_patch
            else ""
        )
        code_editing_strategy = f"""
## Code Editing Strategy

{intro_line}

{patch_section}{save_section}
When editing a file:
- **Always read first** to get the current state before editing
{prefer_save_hint}- **After each edit**: Verify with a read or test run — don't assume it worked

## Spreadsheet and Data Editing

When working with CSV, Excel, or JSON data files:

{patch_fragility_warning}- PREFERRED: Write Python scripts that load, modify, and save data
  - Use libraries: openpyxl (Excel), csv (CSV), json (JSON)
  - Write to a temp file first, verify, then move to final location
- READ the file format first (is it really CSV or Excel?)
- VERIFY your output matches the expected structure before claiming success

## Editing Multiple Files

When you need to edit multiple files in sequence:

1. Read ALL files first to understand dependencies
2. PLAN the edits (which file gets edited in which order)
3. Make ONE edit, verify it works (run tests or read back)
4. Then move to the next file
5. DO NOT edit file A, then B, then A again without reading A after the B edit (file state changes can make later edits fail)

This is especially important for code that imports across files.
"""
    else:
        code_editing_strategy = ""

    default_base_prompt = f"""
You are {agent_blurb}. {
        ("Currently using model: " + model_meta.full) if model_meta else ""
    }
You are designed to help users with programming tasks, such as writing code, debugging, and learning new concepts.
You can run code, execute terminal commands, and access the filesystem on the local machine.
You will help the user with writing code, either from scratch or in existing projects.
{
        "You will think step by step when solving a problem, in `<thinking>` tags."
        if use_thinking_tags
        else ""
    }
Break down complex tasks into smaller, manageable steps.

You have the ability to self-correct. {
        '''If you receive feedback that your output or actions were incorrect, you should:
- acknowledge the mistake
- analyze what went wrong in `<thinking>` tags
- provide a corrected response'''
        if use_thinking_tags
        else ""
    }

You should learn about the context needed to provide the best help,
such as exploring the current working directory and reading the code using terminal tools.

{editing_inline}
When the output of a command is of interest, end the code block and message, so that it can be executed before continuing.

Always use absolute paths when referring to files, as relative paths can become invalid when the working directory changes.
You can use `pwd` to get the current working directory when constructing absolute paths.
{code_editing_strategy}
{placeholder_guidance}
Do not suggest opening a browser or editor, instead do it using available tools.

{tool_guidance}

{communication_guidance}

{"Use `<thinking>` tags to think before you answer." if use_thinking_tags else ""}
""".strip()

    compact_base_prompt = f"""
You are {agent_blurb}. {
        ("Currently using model: " + model_meta.full) if model_meta else ""
    }
You help users with programming tasks by reading code, running terminal commands, and editing files on the local machine.
{"Think step by step in `<thinking>` tags." if use_thinking_tags else ""}
Gather context before acting. {editing_inline}
Use absolute paths and `pwd` when needed.
{placeholder_guidance}
Do not suggest opening a browser or editor when available tools can do it.
{tool_guidance}
{communication_guidance}
{"Use `<thinking>` tags to think before you answer." if use_thinking_tags else ""}
""".strip()

    interactive_prompt = """
You are in interactive mode. The user is available to provide feedback.
You should show the user how you can use your tools to write code, interact with the terminal, and access the internet.
The user can execute the suggested commands so that you see their output.
If the user aborted or interrupted an operation don't try it again, ask for clarification instead.
If clarification is needed, ask the user.
""".strip()

    non_interactive_prompt = """
You are in non-interactive mode. The user is not available to provide feedback.
All code blocks you suggest will be automatically executed.
Do not provide examples or ask for permission before running commands.
Proceed directly with the most appropriate actions to complete the task.
""".strip()

    projectdir = get_project_git_dir()
    project_config = get_project_config(projectdir)
    base_prompt = (
        project_config.base_prompt
        if project_config and project_config.base_prompt
        else (compact_base_prompt if compact else default_base_prompt)
    )

    full_prompt = (
        base_prompt
        + "\n\n"
        + (interactive_prompt if interactive else non_interactive_prompt)
    )
    # next_step_guidance is applied uniformly even when a project overrides
    # base_prompt, so the concrete-next-step instruction is not silently dropped.
    full_prompt += "\n\n" + next_step_guidance
    if _needs_tool_use_enforcement(model_meta):
        full_prompt += _TOOL_USE_ENFORCEMENT_PROMPT
    if tool_format == "xml":
        full_prompt = _xml_section("role", xml_escape(full_prompt))
    yield Message("system", full_prompt)


def prompt_user(
    tool_format: ToolFormat = "markdown",
) -> Generator[Message, None, None]:
    """
    Generate the user-specific prompt based on config.

    Only included in interactive mode.
    Reads from ``[user]`` section first, falling back to ``[prompt]`` for backward compat.
    """
    config = get_config()
    user_identity = config.user.user
    config_prompt = config.user.prompt

    # Prefer [user] section, fall back to [prompt] for backward compat
    about_user = (
        user_identity.about
        or config_prompt.about_user
        or "You are interacting with a human programmer."
    )
    response_prefs = (
        user_identity.response_preference
        or config_prompt.response_preference
        or "No specific preferences set."
    ).strip()

    user_name = user_identity.name or "User"

    if tool_format == "xml":
        prompt_content = _xml_section(
            "user",
            f"<name>{xml_escape(user_name)}</name>\n"
            f"<about>{xml_escape(about_user)}</about>\n"
            f"<response-preferences>{xml_escape(response_prefs)}</response-preferences>",
        )
    else:
        prompt_content = f"""# About {user_name}

{about_user}

## {user_name}'s Response Preferences

{response_prefs}
"""
    yield Message("system", prompt_content)


def prompt_project(
    tool_format: ToolFormat = "markdown",
) -> Generator[Message, None, None]:
    """
    Generate the project-specific prompt based on the current Git repository.

    Project-specific prompt can be set in the :ref:`global-config` or :ref:`project-config` files.
    """
    projectdir = get_project_git_dir()
    if not projectdir:
        return

    project_config = get_project_config(projectdir)
    config_prompt = get_config().user.prompt
    project = projectdir.name
    project_info = project_config and project_config.prompt
    if not project_info:
        # TODO: remove project preferences in global config? use only project config
        project_info = (config_prompt.project or {}).get(project)

    if tool_format == "xml":
        content = f"<name>{xml_escape(project)}</name>\n{'<info>' + xml_escape(project_info) + '</info>' if project_info else ''}"
        yield Message("system", _xml_section("project", content))
    else:
        info_section = f"\n\n{project_info}" if project_info else ""
        yield Message(
            "system",
            f"## Current Project: {project}{info_section}",
        )


def prompt_tools(
    tools: list[ToolSpec],
    tool_format: ToolFormat = "markdown",
    examples: bool = True,
    model: str | None = None,
) -> Generator[Message, None, None]:
    """Generate the tools overview prompt.

    For reasoning models using native tool-calling (tool_format="tool"), examples are skipped
    per OpenAI best practices for function calling:
    https://platform.openai.com/docs/guides/function-calling#best-practices-for-defining-functions

    For text-based formats (markdown/xml), examples are kept even for reasoning models,
    since they serve as documentation in the system prompt rather than few-shot examples.
    """
    # Only skip examples for native tool-calling format with reasoning models.
    # For markdown/xml, examples are part of the system prompt text and still useful
    # as documentation. The OpenAI guideline specifically targets native function schemas.
    if examples and model and tool_format == "tool":
        model_meta = get_model(model)
        if model_meta.supports_reasoning:
            logger.debug(
                "Skipping tool examples for reasoning model %s (native tool-calling format)",
                model,
            )
            examples = False

    if tool_format == "xml":
        prompt = "<tools>"
        for tool in tools:
            prompt += tool.get_tool_prompt(examples, tool_format)
        prompt += "\n</tools>"
    else:
        prompt = "# Tools Overview"
        for tool in tools:
            prompt += tool.get_tool_prompt(examples, tool_format)
        prompt += "\n\n*End of Tools List.*"

    yield Message("system", prompt.strip() + "\n\n")


def prompt_systeminfo(
    workspace: Path | None = None,
    tool_format: ToolFormat = "markdown",
) -> Generator[Message, None, None]:
    """Generate the system information prompt."""
    if platform.system() == "Linux":
        try:
            release_info = platform.freedesktop_os_release()
        except OSError:
            release_info = {}
        os_info = release_info.get("NAME", "Linux")
        os_version = (
            release_info.get("VERSION_ID")
            or release_info.get("BUILD_ID")
            or platform.release()
        )
    elif platform.system() == "Windows":
        os_info = "Windows"
        os_version = platform.version()
    elif platform.system() == "Darwin":
        os_info = "macOS"
        os_version = platform.mac_ver()[0]
    else:
        os_info = "unknown"
        os_version = ""

    # Get current working directory (use provided workspace if available)
    pwd = workspace or Path.cwd()

    if tool_format == "xml":
        prompt = _xml_section(
            "system-info",
            f"<os>{xml_escape(f'{os_info} {os_version}')}</os>\n"
            f"<working-directory>{xml_escape(str(pwd))}</working-directory>",
        )
    else:
        prompt = f"""## System Information

**OS:** {os_info} {os_version}
**Working Directory:** {pwd}""".strip()

    yield Message(
        "system",
        prompt,
    )


def prompt_timeinfo(
    tool_format: ToolFormat = "markdown",
) -> Generator[Message, None, None]:
    """Generate the current time prompt."""
    # we only set the date in order for prompt caching and such to work
    date_str = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    if tool_format == "xml":
        prompt = _xml_section("current-date", date_str)
    else:
        prompt = f"## Current Date\n\n**UTC:** {date_str}"
    yield Message("system", prompt)
