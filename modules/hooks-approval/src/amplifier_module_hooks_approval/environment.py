"""The environment a shell command will run in, judged with the command.

A rule that allows ``ls`` judges the command text; the session may run that text with variables
it sets for its commands (the coordinator capability ``session.environment``, for example a
``SessionStart`` hook's ``CLAUDE_ENV_FILE``). When those variables could change what the command
runs or loads (:func:`amplifier_hooks_util.env_policy.review`: a ``PATH`` entry that is relative
or inside the workspace, ``BASH_ENV``, ``LD_*``, ``GIT_*``, ``PYTHON*``, ...), nothing is
allowed without a question: every shell command a rule or a default would allow is asked instead,
and the prompt names the variables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from amplifier_hooks_util.env_policy import review

__all__ = ["ENVIRONMENT_CAPABILITY", "environment_risks"]

logger = logging.getLogger(__name__)

ENVIRONMENT_CAPABILITY = "session.environment"
"""The capability whose variables the session's shell commands run with."""


def environment_risks(offered: Callable[[], object] | None, workspace: str) -> list[str]:
    """What of the variables ``offered()`` returns could change what a command runs, one
    ``NAME: why`` each; an environment that cannot be read counts as one risk."""
    if offered is None:
        return []
    try:
        capability = offered()
        variables = capability() if callable(capability) else None
    except Exception as err:  # unreadable: the command would run in an environment not judged
        return [f"{ENVIRONMENT_CAPABILITY}: could not be read ({type(err).__name__}: {err})"]
    if not isinstance(variables, Mapping):
        return []
    judged = review({str(k): str(v) for k, v in variables.items()}, project_dir=workspace)
    return [f"{refusal.name}: {refusal.why}" for refusal in judged.refused]
