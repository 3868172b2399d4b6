"""Claude Code ``type: http`` hooks: the event POSTed to a URL, the response read as the hook's
answer.

The body is the Claude Code stdin object of the event (the ``claude-code`` protocol's
``stdin``, :func:`~..protocols.command_protocol`), sent as ``application/json`` with the hook's
``headers``; a header value's ``$NAME`` / ``${NAME}`` is the environment variable's value when
``NAME`` is in the hook's ``allowedEnvVars``, and empty otherwise (nothing else of the
environment leaves the machine; for the http hooks a project brings, ``allowedEnvVars`` is cut
to the user's ``http_env_vars`` before the runner sees it: :mod:`..containment`). A hook that
runs contained (``sandbox``) is never sent: a contained hook has no network, and the failure
is handled by its ``on_failure``. A 2xx response's body is read exactly as a command hook's
stdout on exit code 0 (an empty body: nothing to say). A status that is not 2xx, a connection
that fails, a body that is not valid JSON, and no answer within the hook's ``timeout`` are hook
failures, handled by its ``on_failure`` (by default a warning, and the event goes on, as Claude
Code treats them: non-blocking errors).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Final

from ..protocols import command_protocol
from ..specs import HttpHookSpec
from ..types import Decision, HookContext, failure_decision

__all__ = ["HttpRunner", "expand_header"]

_REFERENCE: Final = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_MAX_BODY: Final = 1_000_000


def expand_header(value: str, allowed: tuple[str, ...], environ: Mapping[str, str]) -> str:
    """``value`` with each ``$NAME`` / ``${NAME}`` replaced by the variable's value when the
    name is allowed, by nothing otherwise."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return environ.get(name, "") if name in allowed else ""

    return _REFERENCE.sub(one, value)


class HttpRunner:
    """Runs one ``type: http`` hook (see the module docstring)."""

    def __init__(self, spec: HttpHookSpec, *, label: str, project_dir: str) -> None:
        self.spec = spec
        self.label = label
        self.project_dir = project_dir

    def _post(self, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
        request = urllib.request.Request(self.spec.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.spec.timeout_ms / 1000) as answer:
                return answer.status, answer.read(_MAX_BODY).decode("utf-8", "replace")
        except urllib.error.HTTPError as err:
            return err.code, ""

    async def run(self, ctx: HookContext) -> Decision:
        spec = self.spec
        if spec.sandbox:
            problem = (
                f"POST {spec.url} was not sent: the hook runs contained (sandbox), which has no "
                "network; run it uncontained in the user's config to let it reach the URL"
            )
            return failure_decision(spec.on_failure, self.label, problem)
        environ = {**os.environ, **ctx.environment}
        headers = {
            name: expand_header(value, spec.allowed_env_vars, environ)
            for name, value in spec.headers.items()
        }
        headers.setdefault("Content-Type", "application/json")
        claude = command_protocol("claude-code")
        body = json.dumps(claude.stdin(ctx, self.project_dir), default=str).encode()
        try:
            status, text = await asyncio.wait_for(
                asyncio.to_thread(self._post, body, headers), spec.timeout_ms / 1000 + 1
            )
        except (TimeoutError, OSError) as err:
            problem = f"POST {spec.url} failed: {type(err).__name__}: {err}"
            return failure_decision(spec.on_failure, self.label, problem)
        if not 200 <= status < 300:
            problem = f"POST {spec.url} answered HTTP {status}"
            return failure_decision(spec.on_failure, self.label, problem)
        decision = claude.decision(ctx, text, self.label, self.project_dir, False)
        if isinstance(decision, str):
            return failure_decision(spec.on_failure, self.label, f"{spec.url}: {decision}")
        return decision
