"""The session-environment rule: which variables may change what a command runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from amplifier_hooks_util.env_policy import review, risky_name
from hypothesis import given, settings
from hypothesis import strategies as st

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


OPTION_STEMS = st.sampled_from(["PYTEST", "MY_TOOL", "JAVA", "FOO", "X", "TERRAFORM_CLI"])
OPTION_ENDS = st.sampled_from(
    ["_ADDOPTS", "ADDOPTS", "_OPTS", "OPTS", "_OPTIONS", "_FLAGS", "FLAGS", "_ARGS", "ARGS",
     "_ARGV", "_EXTRA_ARGS", "_PARAMS", "_DEFAULTS"]
)  # fmt: skip


@settings(max_examples=200, derandomize=True, deadline=None)
@given(stem=OPTION_STEMS, end=OPTION_ENDS, lower=st.booleans(), value=st.text(max_size=12))
def test_variables_that_hand_a_program_options_are_refused(
    stem: str, end: str, lower: bool, value: str
) -> None:
    name = stem + end
    name = name.lower() if lower else name
    judged = review({name: value})
    assert name not in judged.allowed
    assert [r.name for r in judged.refused] == [name]


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    name=st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True),
    option=st.from_regex(r"--?[A-Za-z][a-z-]{0,10}(=[a-z/]{0,8})?", fullmatch=True),
    before=st.sampled_from(["", "x ", "-q "]),
)
def test_a_value_holding_an_option_is_refused_whatever_the_name(
    name: str, option: str, before: str
) -> None:
    if name.upper() in {"PATH"}:
        return
    judged = review({name: before + option})
    assert name not in judged.allowed


def test_pytest_addopts_is_refused_with_what_it_does() -> None:
    judged = review({"PYTEST_ADDOPTS": "--basetemp=/home/me/work", "API_URL": "https://x"})
    assert judged.allowed == {"API_URL": "https://x"}
    (refusal,) = judged.refused
    assert refusal.name == "PYTEST_ADDOPTS"
    assert "options" in refusal.why or "loads" in refusal.why


MANAGERS = st.sampled_from(
    ["PYENV", "RBENV", "NODENV", "GOENV", "JENV", "PLENV", "PHPENV", "ASDF_PYTHON", "MISE_NODE",
     "RTX_RUBY", "VOLTA", "FNM", "NVM", "SDKMAN_JAVA", "NODE", "TERRAFORM", "RUSTUP", "DENO"]
)  # fmt: skip


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    manager=MANAGERS,
    end=st.sampled_from(["_VERSION", "_TOOLCHAIN", "_ROOT", "_DIR", "_HOME", "_X"]),
    lower=st.booleans(),
    value=st.text(max_size=12),
)
def test_what_picks_the_program_a_version_manager_runs_is_refused(
    manager: str, end: str, lower: bool, value: str
) -> None:
    """``PYENV_VERSION=../../../repo/evil`` made the pyenv shim of an approved ``pytest`` run
    the project's program: every version manager's variable, and any name ending in
    ``_VERSION`` or ``_TOOLCHAIN`` (which program a shim picks), is refused, whatever its
    value."""
    if end not in ("_VERSION", "_TOOLCHAIN") and manager in ("TERRAFORM", "RUSTUP"):
        manager = "PYENV"  # only a manager's own prefix makes its other variables refused
    name = manager + end
    name = name.lower() if lower else name
    judged = review({name: value})
    assert name not in judged.allowed


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    name=st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True),
    before=st.lists(st.sampled_from(["a", "x.y", ".", "v1.2", "/abs", "~"]), max_size=3),
    after=st.lists(st.sampled_from(["a", "evil", "bin", ".."]), max_size=3),
    separator=st.sampled_from(["/", "\\"]),
)
def test_a_value_climbing_out_of_a_directory_is_refused_whatever_the_name(
    name: str, before: list[str], after: list[str], separator: str
) -> None:
    if name == "PATH":
        return
    value = separator.join([*before, "..", *after])
    judged = review({name: value})
    assert name not in judged.allowed, value


@pytest.mark.parametrize("value", ["1.2.3", "x..y", "v2..v3", "a...b", "https://e.x/a..b"])
def test_dots_inside_a_word_are_data(value: str) -> None:
    assert review({"RELEASE": value}).allowed == {"RELEASE": value}


ACTING = [
    "TMPDIR",
    "DISPLAY",
    "TZDIR",
    "PYTHONDONTWRITEBYTECODE",
    "COMP_WORDBREAKS",
    "OCAMLRUNPARAM",
    "SSLKEYLOGFILE",
    "http_proxy",
    "HTTPS_PROXY",
    "WAYLAND_DISPLAY",
    "DBUS_SESSION_BUS_ADDRESS",
    "XAUTHORITY",
    "HISTCONTROL",
    "TIMEFORMAT",
    "MALLOC_ARENA_MAX",
    "AWS_ENDPOINT_URL",
    "CURL_CA_BUNDLE",
    "AWS_CA_BUNDLE",
    "GTK_MODULES",
    "GIO_EXTRA_MODULES",
    "DJANGO_SETTINGS_MODULE",
    "FLASK_APP",
    "TCL_LIBRARY",
    "GST_PLUGIN_PATH_1_0",
    "GST_PLUGIN_SYSTEM_PATH_1_0",
    "TEXINPUTS",
    "KRB5CCNAME",
    "JULIA_PROJECT",
    # what the session environment's names did to programs in the last round
    "GVIMINIT",
    "CMAKE_C_COMPILER_LAUNCHER",
    "ELECTRON_RUN_AS_NODE",
    "MPLBACKEND",
    "NVIM_APPNAME",
    "DEBUGINFOD_URLS",
    "DISTCC_HOSTS",
    "GPG_AGENT_INFO",
    "TAPE",
    "MAGIC",
    "TERMCAP",
    "LESSKEYIN",
    "SIMPLE_BACKUP_SUFFIX",
    "VERSION_CONTROL",
    "COV_CORE_SOURCE",
]


@pytest.mark.parametrize("name", ACTING)
def test_variables_that_act_on_the_programs_reading_them_are_refused(name: str) -> None:
    judged = review({name: "1"})
    assert name not in judged.allowed
    assert [r.name for r in judged.refused] == [name]


CLASS_ENDS = st.sampled_from(
    ["DIR", "_DIR", "DIRS", "FILE", "_FILE", "LOGFILE", "_LOG", "TMP", "_TEMP", "_ROOT",
     "_PREFIX", "_CACHE", "_SOCK", "_SOCKET", "DISPLAY", "_PROXY", "_ADDRESS", "_ENDPOINT",
     "RUNPARAM", "_PARAM", "_TUNABLES", "_DEBUG", "_MODULE", "_MODULES", "_PLUGINS",
     "_LIBRARY", "INPUTS", "_APP", "_CA_BUNDLE", "_CAINFO", "_CERTS", "_PATH_1_0", "_OPTS_2",
     "INIT", "_INIT", "LAUNCHER", "_LAUNCHER", "WRAPPER", "_RUN_AS_X", "RUN_AS", "_URLS",
     "_URIS", "HOSTS", "_HOST", "_SERVER", "_SERVERS", "REGISTRY", "BACKEND", "_BACKEND",
     "APPNAME"]
)  # fmt: skip


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    stem=st.from_regex(r"[A-Z][A-Z0-9]{0,8}", fullmatch=True),
    end=CLASS_ENDS,
    lower=st.booleans(),
    value=st.text(alphabet="abc/.:019", max_size=12),
)
def test_a_name_that_says_where_a_program_reads_writes_or_connects_is_refused(
    stem: str, end: str, lower: bool, value: str
) -> None:
    """A name of a class that acts on the programs reading it (a place they read or write, a
    place they connect to, a runtime's parameters) is refused whatever the stem and value:
    the class is read from the name's shape, not from a list of the names seen."""
    name = stem + end
    name = name.lower() if lower else name
    judged = review({name: value})
    assert name not in judged.allowed


@pytest.mark.parametrize("value", [":/etc/evil", "/home/me/zone", "~/zone"])
def test_a_time_zone_naming_a_file_is_refused(value: str) -> None:
    assert "TZ" not in review({"TZ": value}).allowed


def test_a_time_zone_by_name_is_data() -> None:
    assert review({"TZ": "Europe/Paris"}).allowed == {"TZ": "Europe/Paris"}
