"""The session-environment rule: which variables may change what a command runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from amplifier_hooks_util.env_policy import review, risky_name

REFUSED = [
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS4",
    "SHELLOPTS",
    "BASHOPTS",
    "BASH_FUNC_ls%%",
    "IFS",
    "CDPATH",
    "HOME",
    "ZDOTDIR",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "GCONV_PATH",
    "GLIBC_TUNABLES",
    "DYLD_INSERT_LIBRARIES",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH_COMMAND",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_VALUE_0",
    "GIT_CONFIG_PARAMETERS",
    "GIT_DIR",
    "GIT_EXEC_PATH",
    "GIT_PAGER",
    "GIT_ASKPASS",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PYTHONWARNINGS",
    "PYTHONBREAKPOINT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "npm_config_script_shell",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "CLASSPATH",
    "LUA_INIT",
    "RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTC",
    "GOFLAGS",
    "EDITOR",
    "PAGER",
    "LESSOPEN",
    "SUDO_ASKPASS",
    "CC",
    "MAKEFLAGS",
    "MAKEFILES",
    "OPENSSL_CONF",
    "XDG_CONFIG_HOME",
    "KUBECONFIG",
    "AWS_CONFIG_FILE",
    "PIP_INDEX_URL",
    "VIRTUAL_ENV",
    "MANPATH",
    "SOME_TOOL_PATH",
    "TOOL_OPTS",
    "MYTOOLRC",
    "FOO_COMMAND",
]
KEPT = [
    "NODE_ENV",
    "API_URL",
    "DEBUG",
    "GIT_AUTHOR_NAME",
    "PYTHONUNBUFFERED",
    "LANG",
    "DATABASE_URL",
    "FEATURE_FLAG",
]


@pytest.mark.parametrize("name", REFUSED)
def test_variables_that_change_what_runs_are_refused(name: str) -> None:
    assert risky_name(name)
    judged = review({name: "x"})
    assert name not in judged.allowed
    assert [r.name for r in judged.refused] == [name]


@pytest.mark.parametrize("name", KEPT)
def test_plain_data_passes(name: str) -> None:
    assert review({name: "x"}).allowed == {name: "x"}


def test_path_loses_relative_project_missing_and_shared_entries_only(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / "bin").mkdir(parents=True)
    (tmp_path / "link").symlink_to(project / "bin")
    shared = tmp_path / "shared"
    (shared / "bin").mkdir(parents=True)
    shared.chmod(0o777)
    tool = tmp_path / "tool"
    tool.mkdir()
    tmp_path.chmod(0o755)
    entries = [".", "", "bin", f"{project}/bin", f"{tmp_path}/link", f"{tmp_path}/missing"]
    entries += [f"{shared}/bin", str(tool), "/usr/bin"]
    judged = review({"PATH": ":".join(entries)}, project_dir=str(project))
    kept = judged.allowed["PATH"].split(":")
    if any(os.stat(p).st_mode & 0o002 for p in Path(tool).parents):  # under /tmp: shared too
        assert kept == ["/usr/bin"]
    else:
        assert kept == [str(tool), "/usr/bin"]
    assert len(judged.refused) == len(entries) - len(kept)
    assert all(r.name == "PATH" for r in judged.refused)
    reasons = " ".join(r.why for r in judged.refused)
    assert "is relative" in reasons
    assert "inside the project directory" in reasons
    assert "is not a directory" in reasons
    assert f"is in {shared}, which anyone may write to" in reasons


def test_a_path_of_only_refused_entries_is_left_out(tmp_path: Path) -> None:
    judged = review({"PATH": f"{tmp_path}/bin:."}, project_dir=str(tmp_path))
    assert judged.allowed == {}
