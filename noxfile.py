"""Developer sessions for the workspace: tests, per-package tests, lint, types, bench, demo.

``nox`` with no arguments runs tests, lint, types, compat, upstream, otel (a session traced into
a real Arize Phoenix), build (the README's Quick start on the built wheels, then every command
of the README and docs/rollout.md as printed) and app (Amplifier's
own application on our kernel and on 2.0.2, compared): the whole check that CI runs.
Packages are found, not listed: ``core/``, ``util/``, ``redact/``, ``provider-base/``,
``bundle/``, ``cli/`` and ``modules/*/pyproject.toml``.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

import nox

ROOT = Path(__file__).parent
CORE = ROOT / "core"
UTIL = ROOT / "util"
BUNDLE = ROOT / "bundle"
PROVIDER_BASE = ROOT / "provider-base"
REDACT = ROOT / "redact"
CLI = ROOT / "cli"
TESTSUPPORT = ROOT / "testsupport"
"""The tests' own package (loopback API servers, the amplifier-core 2.0.2 runner): installed
wherever tests run, never built or shipped, no package depends on it."""
MODULES = sorted(p.parent for p in ROOT.glob("modules/*/pyproject.toml"))
SHARED = [UTIL, REDACT, PROVIDER_BASE, BUNDLE]
"""The packages that are not the kernel, the command line or a module: util, redact and
provider-base (shared by modules), bundle (the application's bundle reader)."""
PACKAGES = [CORE, *(p for p in (*SHARED, CLI) if (p / "pyproject.toml").exists()), *MODULES]
DROP_IN = ROOT / "compat" / "amplifier-core-dist"
"""The distribution named ``amplifier-core`` (``2.0.2+hooks.N``) that depends on our kernel, so
that Amplifier's packages never install amplifier-core 2.0.2 over it."""
TEST_TOOLS = [
    "pytest>=8",
    "pytest-asyncio>=0.23",
    "hypothesis>=6.100",
    "ruff>=0.6",
    "mypy>=1.10",
    "pytest-xdist>=3.5",
]

# The tests start hundreds of Python processes (the command line, command hooks, the peers):
# with bytecode caching off in the caller's environment each of them compiled every source file
# it imported again, about a sixth of the CPU time of the command line's tests.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

nox.options.sessions = ["tests", "lint", "types", "compat", "upstream", "otel", "build", "app"]
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_missing_interpreters = False


def _build_requirements(packages: list[Path]) -> list[str]:
    """What ``packages`` build with (their ``[build-system] requires``), and ``editables``,
    which hatchling asks for when it builds an editable wheel."""
    found: dict[str, None] = {}
    for package in packages:
        system = tomllib.loads((package / "pyproject.toml").read_text()).get("build-system", {})
        found.update(dict.fromkeys(system.get("requires", [])))
    return [*found, "editables"]


def _install_editable(session: nox.Session, packages: list[Path], *others: str) -> None:
    """Install ``packages`` of this workspace editable, and ``others`` (requirements), showing
    pip's progress.

    Their build backend is installed first, once, and each package builds with it
    (``--no-build-isolation``) instead of in a fresh environment of its own: one isolated
    environment per package was most of the cost of an install (21 packages: 7 min against
    1.5 min on a busy 2-core machine, docs/benchmarks.md). Only packages of this workspace are
    built here, all with the backend their ``pyproject.toml`` names.
    """
    backend = _build_requirements(packages)
    names = ", ".join(p.name for p in packages)
    session.log(f"[1/2] installing the build backend: {', '.join(backend)}")
    session.install(*backend)
    extra = f" and {len(others)} requirements ({', '.join(others)})" if others else ""
    session.log(
        f"[2/2] installing {len(packages)} packages of this workspace, editable ({names}){extra};"
        " pip names each step"
    )
    editable = [arg for package in packages for arg in ("-e", str(package))]
    session.install("--no-build-isolation", *others, *editable, silent=False)


def _install_workspace(session: nox.Session) -> None:
    """Install the kernel, every module and the test support editable, with the test tools."""
    session.log(f"installing {len(PACKAGES)} packages of this workspace and the test tools")
    _install_editable(session, [*PACKAGES, TESTSUPPORT], *TEST_TOOLS)


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite: kernel, every module, and the integration tests.

    In two runs: every test but those that compare CPU times, one worker per core
    (pytest-xdist, a test file per worker at a time); then the tests marked ``cpu_timing``,
    alone, so that no other test shares the machine while they measure. Arguments replace
    both (``nox -s tests -- -q core/tests``).
    """
    _install_workspace(session)
    if session.posargs:
        session.run("pytest", *session.posargs)
        return
    session.run("pytest", "-q", "-n", "auto", "--dist", "loadfile", "-m", "not cpu_timing")
    session.run("pytest", "-q", "-m", "cpu_timing")


@nox.session(name="package")
@nox.parametrize("package", [p.name for p in PACKAGES], ids=[p.name for p in PACKAGES])
def package_tests(session: nox.Session, package: str) -> None:
    """One package's own tests, with only what it needs installed.

    The kernel, the test support and the workspace packages the package requires (not on PyPI
    yet) come from the tree; the command line needs every runtime module it composes sessions
    from.
    """
    path = next(p for p in PACKAGES if p.name == package)
    needs = PACKAGES if path == CLI else [CORE, *_workspace_dependencies(path), path]
    needs = list(dict.fromkeys([*needs, TESTSUPPORT]))
    names = ", ".join(p.name for p in needs)
    session.log(f"installing {names}, editable, and the test tools")
    _install_editable(session, needs, *TEST_TOOLS)
    session.run("pytest", "-q", "--rootdir", str(ROOT), str(path / "tests"), *session.posargs)


def _workspace_dependencies(package: Path) -> list[Path]:
    """The workspace packages ``package``'s pyproject requires, and what they require in turn
    (hooks-logging needs amplifier-hooks-redact, which needs util), which are not on the
    package index; each before the packages that need it."""
    names = {
        tomllib.loads((p / "pyproject.toml").read_text())["project"]["name"]: p for p in PACKAGES
    }
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    requirements = project.get("dependencies", [])
    wanted = [m.group() for r in requirements if (m := re.match(r"[A-Za-z0-9._-]+", r))]
    found: list[Path] = []
    for name in wanted:
        if name in names and names[name] != package:
            found += [*_workspace_dependencies(names[name]), names[name]]
    return list(dict.fromkeys(found))


IMPORT_LINTER = "import-linter>=2.1"
"""The import contracts' checker (``lint-imports``, ``[tool.importlinter]`` in pyproject.toml)."""


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree, then the import contracts
    (``lint-imports``): the layers of docs/architecture.md, checked on every package installed
    editable, so an import that crosses a layer fails CI."""
    session.log("installing every package of this workspace, ruff and import-linter")
    _install_editable(session, [*PACKAGES, TESTSUPPORT], "ruff>=0.6", IMPORT_LINTER)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("lint-imports")


@nox.session
def types(session: nox.Session) -> None:
    """mypy --strict over the kernel, every module, the benchmarks and the repository's tools."""
    _install_workspace(session)
    session.install("types-PyYAML", "nox", "pluggy")
    targets = [str(p / "src") for p in (*PACKAGES, TESTSUPPORT)] + ["bench", "tools", "noxfile.py"]
    session.run("mypy", "--strict", *targets)


UPSTREAM = ROOT.parent / "shared" / "upstream"
AMPLIFIER_RUNTIME = [
    "loop-basic",
    "context-simple",
    "provider-mock",
    "tool-bash",
    "tool-filesystem",
]
RUNTIME_MODULES = [m for m in MODULES if not m.name.startswith(("hooks-", "_"))]
HOOK_MODULES = [m for m in MODULES if m.name.startswith("hooks-")]


def _third_party(packages: list[Path]) -> list[str]:
    """The requirements of ``packages`` that are not packages of this workspace or a kernel
    (``amplifier-*``): what installing them with ``--no-deps`` leaves out."""
    found: dict[str, None] = {}
    for package in packages:
        project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
        for requirement in project.get("dependencies", []):
            if not requirement.lower().startswith("amplifier-"):
                found[requirement] = None
    return list(found)


def _amplifier_runtime(session: nox.Session) -> list[str]:
    """Amplifier's runtime modules: pip requirements from the environment, else the archives."""
    requirements = os.environ.get("AMPLIFIER_MODULES_REQUIREMENTS", "").split()
    if requirements:
        return requirements
    archives = [UPSTREAM / f"amplifier-module-{name}.tar.gz" for name in AMPLIFIER_RUNTIME]
    missing = [a.name for a in archives if not a.exists()]
    if missing:
        session.skip(
            f"Amplifier's modules are not available ({', '.join(missing)} not in {UPSTREAM}); "
            "set AMPLIFIER_MODULES_REQUIREMENTS to pip requirements for them "
            "(git+https://github.com/microsoft/amplifier-module-loop-basic@<commit> ...)"
        )
    return [str(a) for a in archives]


LEAK_HOOKS = [ROOT / "modules" / "hooks-redaction", ROOT / "modules" / "hooks-logging"]


def _amplifier_runtime_202(session: nox.Session) -> str | None:
    """An environment of amplifier-core 2.0.2 with Amplifier's runtime modules and our
    hooks-redaction and hooks-logging (apart from the session's own, which holds our runtime
    modules under the same module ids); its interpreter, or None when Amplifier's modules are
    not available (said so)."""
    requirements = os.environ.get("AMPLIFIER_MODULES_REQUIREMENTS", "").split()
    archives = [UPSTREAM / f"amplifier-module-{name}.tar.gz" for name in AMPLIFIER_RUNTIME]
    if not requirements and not all(a.exists() for a in archives):
        session.log(f"Amplifier's modules are not in {UPSTREAM}: loop-basic on 2.0.2 not run")
        return None
    venv = Path(session.create_tmp()).resolve() / "amplifier-core-2.0.2-loop-basic"
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    if not python.exists():
        session.run("python", "-m", "venv", str(venv))
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    session.run(*pip, "amplifier-core==2.0.2", "pytest>=8", external=True)
    session.run(*pip, *_third_party([UTIL, REDACT, *LEAK_HOOKS]), external=True)
    editable = [f"-e{p}" for p in (UTIL, REDACT, *LEAK_HOOKS)]
    session.run(*pip, "--no-deps", *editable, *(requirements or map(str, archives)), external=True)
    return str(python)


@nox.session
@nox.parametrize("kernel", ["amplifier-core", "ours"], ids=["amplifier-core", "ours"])
def compat(session: nox.Session, kernel: str) -> None:
    """Both directions of compatibility, each in an environment of its own.

    ``amplifier-core``: amplifier-core 2.0.2 from PyPI with our modules (never our kernel):
    each module's ``tests/test_upstream*.py``, each module's ``tests/test_contract.py`` (the
    structural and behavioral contract classes of 2.0.2's own ``amplifier_core.validation``),
    a whole session of our runtime and hook modules, and the documented hook outputs in real
    session turns against loopback API servers (``tests/compat/test_outputs.py``, which the
    ``tests`` session runs on our kernel); then, in a second environment of
    2.0.2 with Amplifier's runtime modules and our hooks-redaction and hooks-logging, the
    secrets that must reach neither the provider nor the log (``tests/compat/test_leaks.py``).
    ``ours``: our kernel and hook modules with Amplifier's published runtime modules
    (loop-basic, context-simple, provider-mock, tool-bash, tool-filesystem), installed from
    ``../shared/upstream`` or ``AMPLIFIER_MODULES_REQUIREMENTS``: a whole session, and the
    same secrets.
    """
    python = str(Path(session.bin) / "python")
    session.install("pytest>=8", "pytest-asyncio>=0.23")
    if kernel == "amplifier-core":
        session.log("installing amplifier-core 2.0.2 from PyPI, util and every module of ours")
        shared = [f"-e{p}" for p in (UTIL, REDACT, PROVIDER_BASE, TESTSUPPORT)]
        session.install("amplifier-core==2.0.2", *shared)
        for module in MODULES:
            session.install("--no-deps", "-e", str(module))
        session.install(*_third_party([PROVIDER_BASE, *MODULES]))
        files = sorted(str(p) for p in ROOT.glob("modules/*/tests/test_upstream*.py"))
        files += [str(ROOT / "tests" / "compat" / f"test_{n}.py") for n in ("sessions", "outputs")]
        env = {"AMPLIFIER_CORE_202_PYTHON": python}
        runtime = _amplifier_runtime_202(session)
        if runtime is not None:
            files.append(str(ROOT / "tests" / "compat" / "test_leaks.py"))
            env["AMPLIFIER_RUNTIME_202_PYTHON"] = runtime
    else:
        session.log("installing our kernel and hook modules, then Amplifier's runtime modules")
        session.install(
            "-e", str(CORE), "-e", str(UTIL), "-e", str(REDACT), *(f"-e{m}" for m in HOOK_MODULES)
        )  # fmt: skip
        session.install("--no-deps", *_amplifier_runtime(session))
        files = [str(ROOT / "tests" / "compat" / f"test_{n}.py") for n in ("sessions", "leaks")]
        env = {"AMPLIFIER_MODULES_PYTHON": python}
    session.run("pytest", "-q", "-p", "no:cacheprovider", *files, env=env)
    if kernel == "amplifier-core":
        # The kernel adapter's scenario on this kernel (its other half runs in ``tests``).
        adapter = ROOT / "tests" / "integration" / "test_kernel_adapter.py"
        session.run(
            "pytest", "-q", "-p", "no:cacheprovider", str(adapter), "-k", "amplifier_core_2_0_2",
            env=env,
        )  # fmt: skip
        # Each module's contract tests (amplifier_core.validation's structural and behavioral
        # classes) on 2.0.2's own validation and pytest plugin, told which package to mount.
        for module in MODULES:
            package = next((module / "src").glob("amplifier_module_*"))
            session.run(
                "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(module),
                str(module / "tests" / "test_contract.py"), f"--module-path={package}",
            )  # fmt: skip


@nox.session
def upstream(session: nox.Session) -> None:
    """Amplifier's own kernel test suite, on amplifier-core 2.0.2 and on ours.

    The suite is the whole kernel repository (``tests/`` and ``bindings/python/tests/``, run
    from its root): ``../shared/upstream/amplifier-core-repo.tar.gz``, else a git URL in
    ``AMPLIFIER_CORE_REPOSITORY`` (``https://github.com/microsoft/amplifier-core@<commit>``),
    cloned. Every test that passes on 2.0.2 (PyPI, in a virtual environment of its own) must
    pass on ours unless ``tests/upstream/differences.txt`` lists it with its reason.
    """
    archive = UPSTREAM / "amplifier-core-repo.tar.gz"
    repository = os.environ.get("AMPLIFIER_CORE_REPOSITORY", "")
    if not repository and not archive.exists():
        session.skip(
            f"Amplifier's kernel suite is not available ({archive} is missing); set "
            "AMPLIFIER_CORE_REPOSITORY to https://github.com/microsoft/amplifier-core@<commit>"
        )
    _install_workspace(session)
    scratch = Path(session.create_tmp())
    reference = scratch / "amplifier-core-2.0.2"
    reference_python = reference / ("Scripts" if os.name == "nt" else "bin") / "python"
    if not reference_python.exists():
        session.log(
            f"installing amplifier-core 2.0.2 from PyPI in its own environment, {reference}"
        )
        session.run("python", "-m", "venv", str(reference))
        session.run(
            str(reference_python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "amplifier-core==2.0.2",
            *TEST_TOOLS[:2],
            external=True,
        )
    suite = ["--archive", str(archive)]
    if repository:
        url, _, commit = repository.rpartition("@")
        if not url or "/" in commit or ":" in commit:  # git@host:path has no commit after it
            url, commit = repository, ""
        checkout = scratch / "amplifier-core"
        if not checkout.exists():
            session.run("git", "clone", "--quiet", url, str(checkout), external=True)
        if commit:
            session.run("git", "-C", str(checkout), "checkout", "--quiet", commit, external=True)
        suite = ["--source", str(checkout)]
    runner = ROOT / "tests" / "upstream" / "run_suite.py"
    results = {"2.0.2": scratch / "reference.json", "ours": scratch / "ours.json"}
    for name, python in (("2.0.2", str(reference_python)), ("ours", "python")):
        session.run(
            "python", str(runner), "--python", python, *suite, "--out", str(results[name])
        )  # fmt: skip
    compare = ROOT / "tests" / "upstream" / "compare.py"
    session.run("python", str(compare), str(results["2.0.2"]), str(results["ours"]))


def _artifacts(package: Path, out: Path) -> list[Path]:
    """The wheel and sdist of ``package`` in ``out`` (by its normalized name and version)."""
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    stem = f"{project['name'].replace('-', '_').lower()}-{project['version']}"
    return sorted(p for p in out.glob(f"{stem}*") if p.name.endswith((f"{stem}.tar.gz", ".whl")))


def _wheelhouse_requirements(packages: list[Path]) -> list[str]:
    """Every third-party requirement of ``packages``, their extras but ``test`` included: what
    ``pip install --no-index --find-links dist`` needs besides the workspace's own wheels."""
    found: dict[str, None] = {}
    for package in packages:
        project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
        extras = project.get("optional-dependencies", {})
        groups = [project.get("dependencies", [])]
        groups += [reqs for name, reqs in extras.items() if name != "test"]
        for requirement in (r for group in groups for r in group):
            if not requirement.lower().startswith("amplifier-"):
                found[requirement] = None
    return list(found)


AMPLIFIER_APP = ["amplifier-foundation", "amplifier-app-cli"]
APP_HOOKS = ["hooks-logging", "hooks-redaction", "hooks-approval"]


def _amplifier_app(session: nox.Session) -> list[str]:
    """Amplifier's application and foundation: pip requirements from the environment, else the
    archives."""
    requirements = os.environ.get("AMPLIFIER_APP_REQUIREMENTS", "").split()
    if requirements:
        return requirements
    archives = [UPSTREAM / f"{name}.tar.gz" for name in AMPLIFIER_APP]
    missing = [a.name for a in archives if not a.exists()]
    if missing:
        session.skip(
            f"Amplifier's application is not available ({', '.join(missing)} not in {UPSTREAM}); "
            "set AMPLIFIER_APP_REQUIREMENTS to pip requirements for amplifier-foundation and "
            "amplifier-app-cli (git+https://github.com/microsoft/amplifier-app-cli@<commit> ...)"
        )
    return [str(a) for a in archives]


@nox.session
def app(session: nox.Session) -> None:
    """Amplifier's own command-line application, offline, on our kernel and on 2.0.2, compared.

    Ours (this session's environment): our kernel, the drop-in ``amplifier-core`` distribution,
    then amplifier-foundation, amplifier-app-cli and Amplifier's reference modules installed
    with their dependencies (the drop-in keeps pip from installing amplifier-core 2.0.2), and
    our hooks-logging, hooks-redaction and hooks-approval. The reference: the same on
    amplifier-core 2.0.2 from PyPI, in an environment of its own. ``tests/app/run_app.py``
    runs the same commands on each (``version``, ``module list``, ``module show``,
    ``provider list``, ``run`` with a tool call, ``session list``, ``run --resume``,
    ``tool list``, ``tool invoke``) and times foundation's ``create_session`` and one turn in
    process; ``tests/app/compare_app.py`` compares them step by step and fails on any
    difference.
    """
    application = _amplifier_app(session)
    runtime = _amplifier_runtime(session)
    hooks = [str(ROOT / "modules" / name) for name in APP_HOOKS]
    session.install("-e", str(CORE), "-e", str(UTIL), "-e", str(REDACT), str(DROP_IN))
    session.install(*application, *runtime, *(f"-e{h}" for h in hooks))
    check = (
        "import importlib.metadata as m, pathlib, sys, amplifier_core;"
        "v = m.version('amplifier-core'); f = pathlib.Path(amplifier_core.__file__).resolve();"
        f"ok = '+hooks.' in v and f.is_relative_to({str(CORE.resolve())!r});"
        "print('amplifier-core', v, 'is', f); sys.exit(0 if ok else 1)"
    )
    session.run("python", "-c", check)  # the app's install kept our kernel

    scratch = Path(session.create_tmp())
    reference = scratch / "amplifier-core-2.0.2"
    reference_bin = reference / ("Scripts" if os.name == "nt" else "bin")
    if not (reference_bin / "amplifier").exists():
        session.run("python", "-m", "venv", "--clear", str(reference))
        session.run(
            str(reference_bin / "python"), "-m", "pip", "install", "--quiet",
            "amplifier-core==2.0.2", *application, *runtime, "-e", str(UTIL),
            "-e", str(REDACT), *(f"-e{h}" for h in hooks), external=True,
        )  # fmt: skip
    runner = ROOT / "tests" / "app" / "run_app.py"
    results = {"2.0.2": scratch / "app-2.0.2.json", "ours": scratch / "app-ours.json"}
    for label, bin_dir in (("2.0.2", reference_bin), ("ours", Path(session.bin))):
        session.run(
            "python", str(runner), "--bin", str(bin_dir), "--out", str(results[label]),
            "--label", label, "--scratch", str(scratch / "scenario"), *session.posargs,
        )  # fmt: skip
    compare = ROOT / "tests" / "app" / "compare_app.py"
    session.run("python", str(compare), str(results["2.0.2"]), str(results["ours"]))


def _build_each(session: nox.Session, packages: list[Path], out: Path) -> None:
    """``python -m build --no-isolation`` of each package into ``out`` (an sdist, then the
    wheel built from that sdist), as many at a time as there are cores, each named as it
    ends; the build backend is the session's own (no fresh environment per build)."""
    import concurrent.futures
    import subprocess
    import time

    python = str(Path(session.bin) / "python")

    def build_one(package: Path) -> tuple[Path, subprocess.CompletedProcess[str], float]:
        started = time.monotonic()
        done = subprocess.run(
            [python, "-m", "build", "--no-isolation", "--outdir", str(out), str(package)],
            capture_output=True,
            text=True,
            check=False,
        )
        return package, done, time.monotonic() - started

    jobs = max(1, min(len(packages), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(build_one, package) for package in packages]
        for count, future in enumerate(concurrent.futures.as_completed(futures), start=1):
            package, done, seconds = future.result()
            if done.returncode != 0:
                session.error(
                    f"python -m build {package} failed (exit {done.returncode}):\n"
                    f"{(done.stdout + done.stderr)[-3000:]}"
                )
            session.log(
                f"[{count}/{len(packages)}] {package.name}: sdist and wheel, {seconds:.0f} s"
            )


@nox.session
def build(session: nox.Session) -> None:
    """A wheel and an sdist of every package into ``dist/``, each checked with ``twine check``;
    the wheels of their third-party requirements beside them, so ``dist/`` installs with
    ``--no-index``; then the README's Quick start, word for word, on those wheels alone in an
    empty virtual environment (``tests/packaging/quickstart_from_wheels.py``); then every
    command of the shell blocks of the README and docs/rollout.md as printed, from a copy of
    the checkout, in a fresh virtual environment (``tests/packaging/doc_commands.py``)."""
    targets = [*PACKAGES, DROP_IN]
    session.install("build>=1.2", "twine>=5", *_build_requirements(targets)[:-1])
    out = ROOT / "dist"
    session.log(f"building a wheel and an sdist of {len(targets)} packages into {out}")
    _build_each(session, targets, out)
    built = [str(p) for package in targets for p in _artifacts(package, out)]
    if len(built) != 2 * len(targets):
        session.error(f"expected a wheel and an sdist for {len(targets)} packages in {out}")
    session.run("twine", "check", "--strict", *built)
    session.log("adding the wheels of their third-party requirements to dist/")
    session.run(
        "python", "-m", "pip", "wheel", "--progress-bar", "off", "--wheel-dir", str(out),
        *_wheelhouse_requirements(PACKAGES), silent=False,
    )  # fmt: skip
    session.log("the README's Quick start on the wheels alone")
    session.run("python", str(ROOT / "tests" / "packaging" / "quickstart_from_wheels.py"),
                "--dist", str(out), *session.posargs)  # fmt: skip
    tools = Path(session.create_tmp()).resolve() / "tools"
    session.log(f"the wheels of nox and of the build backend, for the docs' commands: {tools}")
    session.run(
        "python", "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(tools), "nox",
        *_build_requirements(targets),
    )  # fmt: skip
    session.log("every command of README.md and docs/rollout.md, as printed")
    session.run("python", str(ROOT / "tests" / "packaging" / "doc_commands.py"),
                "--dist", str(out), "--tools", str(tools))  # fmt: skip


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks against pluggy and amplifier-core 2.0.2 (in its own virtual environment)."""
    _install_workspace(session)
    session.install("pluggy")
    for script in sorted((ROOT / "bench").glob("*.py")):
        if not script.name.startswith("_"):
            session.run("python", str(script), *session.posargs)


DEMO_BUNDLE = ROOT / "examples" / "demo-bundle.yaml"


def _demo_packages() -> list[Path]:
    """What ``amplifier-hooks demo`` runs: the command line, the packages it requires, and the
    modules its bundle (``examples/demo-bundle.yaml``) mounts with theirs; each after the
    packages it needs."""
    by_id = {p.name: p for p in MODULES}
    mounted = re.findall(r"^\s*-?\s*module:\s*([\w-]+)", DEMO_BUNDLE.read_text(), re.M)
    found: list[Path] = []
    for package in [CLI, *(by_id[m] for m in mounted if m in by_id)]:
        found += [*_workspace_dependencies(package), package]
    return list(dict.fromkeys(found))


@nox.session
def demo(session: nox.Session) -> None:
    """An offline agent session with the reference hooks firing: installs only what the demo
    runs (the command line and the modules of its bundle, with what they require), no test
    tools."""
    packages = _demo_packages()
    session.log(f"installing the {len(packages)} packages the demo runs")
    _install_editable(session, packages)
    session.run("amplifier-hooks", "demo", *session.posargs)


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_ready(url: str, process: Any, bound: float) -> None:
    """Poll ``url`` until it answers 200, the process exits, or ``bound`` seconds pass."""
    import time
    import urllib.request

    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Phoenix exited with status {process.returncode} before ready")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"Phoenix did not answer {url} within {bound:g}s")


@nox.session
def otel(session: nox.Session) -> None:
    """hooks-otel against a real backend: Arize Phoenix (PyPI ``arize-phoenix``, in a virtual
    environment of its own) on a free loopback port with its working directory in a temporary
    directory; a scripted session with deny, ask, modify and failing hooks and a child session
    is exported to it, and its spans are read back from Phoenix's REST API and checked.
    Phoenix is stopped afterwards. ``PHOENIX_REQUIREMENT`` overrides the requirement."""
    import subprocess
    import tempfile

    modules = [ROOT / "modules" / m for m in ("hooks-otel", "hooks-redaction")]
    needs = [CORE, UTIL, REDACT, PROVIDER_BASE, *modules, *RUNTIME_MODULES]
    session.log("installing the kernel, hooks-otel, hooks-redaction and the runtime modules")
    _install_editable(session, needs, *TEST_TOOLS[:2])
    scratch = Path(session.create_tmp()).resolve()  # Phoenix runs in another directory
    phoenix_venv = scratch / "phoenix"
    phoenix_bin = phoenix_venv / ("Scripts" if os.name == "nt" else "bin")
    requirement = os.environ.get("PHOENIX_REQUIREMENT", "arize-phoenix")
    if not (phoenix_bin / "phoenix").exists():
        session.run("python", "-m", "venv", str(phoenix_venv))
        session.run(
            str(phoenix_bin / "python"), "-m", "pip", "install", "--quiet", requirement,
            external=True,
        )  # fmt: skip
    port, grpc_port = _free_port(), _free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="phoenix-") as workdir:
        env = {
            **os.environ,
            "PHOENIX_WORKING_DIR": workdir,
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(port),
            "PHOENIX_GRPC_PORT": str(grpc_port),
        }
        log = Path(workdir) / "phoenix.log"
        with log.open("w") as output:
            process = subprocess.Popen(
                [str(phoenix_bin / "phoenix"), "serve"],
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
                cwd=workdir,
            )
            failed = True
            try:
                _wait_ready(f"{url}/healthz", process, bound=300.0)
                session.log(f"Phoenix is ready at {url}")
                session.run(
                    "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
                    str(ROOT / "modules" / "hooks-otel" / "tests" / "phoenix"),
                    *session.posargs,
                    env={"HOOKS_OTEL_PHOENIX_URL": url},
                )  # fmt: skip
                failed = False
            finally:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=30)
                if failed:
                    tail = log.read_text(errors="replace")[-3000:]
                    session.log(f"Phoenix's log ends with:\n{tail}")
