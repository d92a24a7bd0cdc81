"""What the command sandbox hides and keeps read-only, in one place: the credential stores of
common tools under the home folder, and the workspace files that configure programs the host
runs on its own (git hooks, Claude Code and prefixlock settings, MCP servers, editor tasks),
and how a command's output shows that it needed the network the sandbox keeps off.

A command that could write `.git/hooks/post-commit` would run unsandboxed at the user's next
`git commit`; one that could write `.claude/settings.local.json` or `.mcp.json` would start a
server on the host at the next chat. So those stay read-only inside the sandbox, and one the
command creates where none was is removed when it ends (`created_protected`). The lists are
data: `tests/coding/test_sandbox_redteam.py` checks every entry.
"""

# pure: imports no I/O (tests/test_layout.py checks it)

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Secret:
    """A credential store under the home folder: `path` relative to it, and whose it is."""

    path: str
    owner: str


#: Hidden from every sandboxed command (`home="secrets"`, the default): a directory is covered
#: by an empty one, a file by an empty file. `.config` covers gh, gcloud, pip, hub, op and most
#: other XDG tools at once; the toolchains people install under $HOME (~/.cargo/bin, ~/.nvm,
#: ~/.pyenv, ~/.m2/repository) stay readable, only their credential files are covered.
HOME_SECRETS: tuple[Secret, ...] = (
    Secret(".claude", "Claude Code (.credentials.json, settings)"),
    Secret(".claude.json", "Claude Code (account and project state)"),
    Secret(".codex", "Codex (auth.json)"),
    Secret(".config", "gh, gcloud, pip, hub, op and other XDG tools"),
    Secret(".aws", "AWS CLI"),
    Secret(".azure", "Azure CLI"),
    Secret(".oci", "Oracle Cloud CLI"),
    Secret(".kube", "kubectl"),
    Secret(".docker", "docker (config.json auths)"),
    Secret(".ssh", "ssh keys"),
    Secret(".gnupg", "GnuPG keys"),
    Secret(".password-store", "pass"),
    Secret(".local/share/keyrings", "GNOME keyring"),
    Secret(".git-credentials", "git credential store"),
    Secret(".netrc", "netrc (curl, git, pip)"),
    Secret(".npmrc", "npm tokens"),
    Secret(".yarnrc", "yarn 1 tokens"),
    Secret(".yarnrc.yml", "yarn 2+ tokens"),
    Secret(".pypirc", "PyPI upload tokens"),
    Secret(".pip", "pip index credentials (old location)"),
    Secret(".pgpass", "PostgreSQL passwords"),
    Secret(".m2/settings.xml", "Maven server passwords"),
    Secret(".m2/settings-security.xml", "Maven master password"),
    Secret(".gradle/gradle.properties", "Gradle publishing credentials"),
    Secret(".cargo/credentials", "cargo registry token"),
    Secret(".cargo/credentials.toml", "cargo registry token"),
    Secret(".gem/credentials", "RubyGems API key"),
    Secret(".terraform.d/credentials.tfrc.json", "Terraform Cloud token"),
    Secret(".vault-token", "HashiCorp Vault token"),
    Secret(".boto", "gsutil / boto credentials"),
    Secret(".s3cfg", "s3cmd credentials"),
    Secret(".databrickscfg", "Databricks token"),
    Secret(".cache/huggingface", "Hugging Face token"),
    Secret(".huggingface", "Hugging Face token (old location)"),
    Secret(".bash_history", "shell history (exported keys)"),
    Secret(".zsh_history", "shell history (exported keys)"),
    Secret(".sh_history", "shell history (exported keys)"),
    Secret(".history", "shell history (exported keys)"),
    Secret(".local/share/fish/fish_history", "shell history (exported keys)"),
    Secret(".python_history", "Python REPL history"),
    Secret(".node_repl_history", "Node REPL history"),
    Secret(".psql_history", "psql history"),
    Secret(".mysql_history", "mysql history"),
    Secret(".sqlite_history", "sqlite3 history"),
)


#: Workspace entries a sandboxed command may not write (bound read-only when they exist,
#: removed after the command when it created them): each configures a program the host runs
#: without the user running the project's code. Git metadata changes go through commands the
#: user runs outside the sandbox.
WORKSPACE_READ_ONLY: tuple[Secret, ...] = (
    Secret(".git", "git: hooks and config run by the user's next git command"),
    Secret(".githooks", "git hooks directory (core.hooksPath)"),
    Secret(".husky", "husky git hooks (core.hooksPath)"),
    Secret(".pre-commit-config.yaml", "pre-commit hooks run by git commit"),
    Secret(".claude", "Claude Code settings, hooks and commands"),
    Secret(".prefixlock", "prefixlock settings and commands"),
    Secret(".mcp.json", "project MCP servers started by the next chat"),
    Secret(".cursor", "Cursor settings and MCP servers"),
    Secret(".gemini", "Gemini CLI settings and MCP servers"),
    Secret(".vscode", "VS Code tasks run on folder open"),
    Secret(".idea", "JetBrains run configurations"),
    Secret(".devcontainer", "dev container lifecycle commands"),
    Secret(".envrc", "direnv, run on cd"),
)


def home_secret_paths() -> tuple[str, ...]:
    """The HOME_SECRETS paths, relative to the home folder."""
    return tuple(s.path for s in HOME_SECRETS)


def workspace_read_only_names() -> tuple[str, ...]:
    """The WORKSPACE_READ_ONLY names, relative to the workspace root."""
    return tuple(s.path for s in WORKSPACE_READ_ONLY)


def is_protected(rel: str) -> bool:
    """Whether a workspace-relative path ('/'-separated) is, or is under, a read-only entry."""
    first = rel.strip("/").split("/", 1)[0]
    return first in workspace_read_only_names()


def created_protected(before: set[str], after: set[str]) -> list[str]:
    """The protected names present after a command that were absent before it, sorted."""
    return sorted(after - before)


#: What a command prints when it could not reach the network (the sandbox's is off): name
#: resolution first (curl, git, wget, pip and Python, Node, Go, Rust), then unreachable hosts.
NETWORK_FAILURES: tuple[str, ...] = (
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "No address associated with hostname",
    "nodename nor servname provided",
    "getaddrinfo EAI_AGAIN",
    "getaddrinfo ENOTFOUND",
    "dial tcp: lookup",
    "failed to lookup address information",
    "Could not resolve hostname",
    "unable to resolve host address",
    "Network is unreachable",
)


def network_failure(output: str) -> str | None:
    """The line of `output` that says the network could not be reached, or None."""
    for line in output.splitlines():
        if any(sign in line for sign in NETWORK_FAILURES):
            return line.strip()[:200]
    return None


def network_key(command: str) -> str:
    """What an "always" for the network covers: the program and its first word that is not an
    option (`npm install`, `git clone`, `sh fetch.sh`, `curl https://host/file`), so an answer
    about one script or subcommand never covers a whole interpreter."""
    words = command.split()
    if not words:
        return ""
    rest = next((w for w in words[1:] if not w.startswith("-")), None)
    return f"{words[0]} {rest}" if rest else words[0]
