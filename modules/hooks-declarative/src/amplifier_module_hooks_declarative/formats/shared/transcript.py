"""The ``transcript_path`` of the stdin objects of Claude Code, Gemini CLI, Codex and GitHub
Copilot hooks: the host's when it sets one, else ``transcript.jsonl`` in the session's
directory of the state directory (``amplifier_hooks_util.state``), which may not exist."""

from __future__ import annotations

from amplifier_hooks_util.state import session_dir

from ...types import HookContext

__all__ = ["transcript_path"]


def transcript_path(ctx: HookContext, project_dir: str) -> str:
    """The event data's ``transcript_path`` when it is a non-empty string, else the session's
    ``transcript.jsonl`` for ``project_dir``."""
    transcript = ctx.data.get("transcript_path")
    if isinstance(transcript, str) and transcript:
        return transcript
    return str(session_dir(ctx.session_id, working_dir=project_dir) / "transcript.jsonl")
