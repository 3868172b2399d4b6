"""Project trust: which projects may run the hooks they bring, and the check before each run.

- :mod:`.projects`: ``amplifier-hooks trust PATH`` (:func:`trust_project`), the record of
  trusted projects and :func:`trust_status`, which says whether a project's hooks may run;
- :mod:`.surface`: the fingerprint of a project's hook surface (what trust covers);
- :mod:`.watch`: :class:`~.watch.TrustGuard`, which re-checks trust before each hook run
  (an inotify watch, else a stat of the running hook's surface).

hooks-declarative enforces it; the command line's ``trust`` command and the benchmarks import
it from here. ``TrustGuard`` is imported from :mod:`.watch` when a session needs it.
"""

from .projects import (
    PROJECT_HOOK_DIRS,
    PROJECT_HOOK_FILES,
    TRUST_ENV,
    TRUST_FILE,
    Surface,
    TooManyFiles,
    TrustStatus,
    changed_names,
    fingerprint,
    forget_project,
    hook_files,
    included_path,
    mark_data,
    trust_project,
    trust_status,
    trusted_projects,
)

__all__ = [
    "PROJECT_HOOK_DIRS",
    "PROJECT_HOOK_FILES",
    "TRUST_ENV",
    "TRUST_FILE",
    "Surface",
    "TooManyFiles",
    "TrustStatus",
    "changed_names",
    "fingerprint",
    "forget_project",
    "hook_files",
    "included_path",
    "mark_data",
    "trust_project",
    "trust_status",
    "trusted_projects",
]
