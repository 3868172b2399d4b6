"""The session-environment rule: which variables may change what a command runs."""

from __future__ import annotations

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


def test_path_loses_relative_and_project_entries_only(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / "bin").mkdir(parents=True)
    (tmp_path / "link").symlink_to(project / "bin")
    value = f".::bin:{project}/bin:{tmp_path}/link:/opt/tool/bin:/usr/bin"
    judged = review({"PATH": value}, project_dir=str(project))
    assert judged.allowed == {"PATH": "/opt/tool/bin:/usr/bin"}
    assert len(judged.refused) == 5
    assert all(r.name == "PATH" for r in judged.refused)


def test_a_path_of_only_refused_entries_is_left_out(tmp_path: Path) -> None:
    judged = review({"PATH": f"{tmp_path}/bin:."}, project_dir=str(tmp_path))
    assert judged.allowed == {}
