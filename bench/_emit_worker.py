"""Time one emit implementation on request; ``bench/emit.py`` drives it over stdin/stdout.

Run with whichever interpreter holds the implementation to measure::

    python -I bench/_emit_worker.py registry --src core/src   # this checkout's amplifier_core
    peer/bin/python -I bench/_emit_worker.py registry         # amplifier-core from PyPI
    python -I bench/_emit_worker.py pluggy                    # pluggy's hook call

``registry`` imports whatever ``amplifier_core`` is first on the path (``--src`` puts a source
tree in front) and times ``await HookRegistry.emit(EVENT, DATA)`` with N async no-op handlers
in one of two variants: ``const`` returns a module-level ``HookResult()``, ``new`` builds a new
``HookResult()`` on every call. ``pluggy`` times ``pm.hook.bench_emit(event=..., data=...)``
with N sync no-op hookimpls returning ``None`` (variant ``sync``).

Protocol: one JSON object per line. The worker first writes a description of what it imported
(package, version, file, implementation class). Then, for each request line:

``{"op": "prepare", "variant": V, "handlers": N, "min_time": S}``
    Build the registry (or plugin manager), check it holds N handlers and that emit answers
    ``continue``, grow the batch size (1, 2, 5, 10, 20 ...) until one batch of calls lasts at
    least S seconds (this warms up too), run one more batch, reply ``{"batch": B}``.
``{"op": "time", "variant": V, "handlers": N}``
    ``gc.collect()``, then time one batch with :func:`time.perf_counter`; reply ``{"us": X}``,
    microseconds per call.

All of it runs inside one asyncio event loop. An error is replied as ``{"error": "..."}``.
Only the standard library is imported up front, so the worker runs in any interpreter that has
the implementation under test.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import platform
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

__all__ = ["DATA", "EVENT", "main"]

EVENT = "tool:pre"
DATA: dict[str, Any] = {
    "tool_name": "bash",
    "tool_input": {"command": "ls -la"},
    "session_id": "bench-session",
}

# Runs ``n`` calls and returns the elapsed seconds.
BatchRunner = Callable[[int], Awaitable[float]]

# Set once the implementation under test is imported (``registry`` target only).
_HookResult: Any = None
_CONST_RESULT: Any = None


def _batch_sizes() -> Iterator[int]:
    """1, 2, 5, 10, 20, 50, ... as :meth:`timeit.Timer.autorange` tries them."""
    scale = 1
    while True:
        for step in (1, 2, 5):
            yield step * scale
        scale *= 10


async def _calibrate(run: BatchRunner, min_time: float) -> int:
    """The smallest batch size lasting ``min_time`` seconds, plus one warm-up batch of it."""
    batch = 1
    for batch in _batch_sizes():
        if await run(batch) >= min_time:
            break
    await run(batch)
    return batch


# ---------------------------------------------------------------------- amplifier_core registries


def _import_registry_module(src: str | None) -> Any:
    """Import ``amplifier_core`` (from ``src`` when given) and set the handlers' results."""
    global _HookResult, _CONST_RESULT
    root = Path(src).resolve() if src is not None else None
    if root is not None:
        sys.path.insert(0, str(root))
    module: Any = importlib.import_module("amplifier_core")
    if root is not None and not Path(module.__file__).resolve().is_relative_to(root):
        raise RuntimeError(f"--src {src} given but amplifier_core came from {module.__file__}")
    _HookResult = module.HookResult
    _CONST_RESULT = module.HookResult()
    return module


def _make_handler(variant: str) -> Callable[[str, dict[str, Any]], Awaitable[Any]]:
    """A fresh async no-op handler, as a separately written hook would be."""
    if variant == "const":

        async def noop_const(event: str, data: dict[str, Any]) -> Any:
            return _CONST_RESULT

        return noop_const
    if variant == "new":

        async def noop_new(event: str, data: dict[str, Any]) -> Any:
            return _HookResult()

        return noop_new
    raise ValueError(f"unknown handler variant {variant!r} (registry takes const or new)")


async def _registry_runner(module: Any, variant: str, count: int) -> BatchRunner:
    registry = module.HookRegistry()
    for index in range(count):
        registry.register(EVENT, _make_handler(variant), name=f"noop-{index}")
    listed = registry.list_handlers(EVENT).get(EVENT, [])
    if len(listed) != count:
        raise RuntimeError(
            f"registered {count} {variant!r} handlers on {EVENT!r}, list_handlers shows "
            f"{len(listed)}"
        )
    result = await registry.emit(EVENT, dict(DATA))
    action = getattr(result, "action", None)
    if action != "continue":
        raise RuntimeError(f"emit({EVENT!r}) with {count} no-op handlers gave action {action!r}")
    emit = registry.emit

    async def run(n: int) -> float:
        event, data = EVENT, DATA
        start = time.perf_counter()
        for _ in range(n):
            await emit(event, data)
        return time.perf_counter() - start

    return run


# ---------------------------------------------------------------------- pluggy


async def _pluggy_runner(variant: str, count: int) -> BatchRunner:
    import pluggy

    if variant != "sync":
        raise ValueError(f"unknown handler variant {variant!r} (pluggy takes sync)")
    hookspec = pluggy.HookspecMarker("bench")
    hookimpl = pluggy.HookimplMarker("bench")

    class Spec:
        @hookspec
        def bench_emit(self, event: str, data: dict[str, Any]) -> None:
            """The event a session emits."""

    class NoopPlugin:
        @hookimpl
        def bench_emit(self, event: str, data: dict[str, Any]) -> None:
            return None

    manager = pluggy.PluginManager("bench")
    manager.add_hookspecs(Spec)
    for index in range(count):
        manager.register(NoopPlugin(), name=f"noop-{index}")
    hook = manager.hook.bench_emit
    if len(hook.get_hookimpls()) != count:
        raise RuntimeError(
            f"registered {count} hookimpls, pluggy holds {len(hook.get_hookimpls())}"
        )

    async def run(n: int) -> float:
        event, data = EVENT, DATA
        start = time.perf_counter()
        for _ in range(n):
            hook(event=event, data=data)
        return time.perf_counter() - start

    return run


# ---------------------------------------------------------------------- serving


class _Worker:
    """Holds the prepared runners and answers ``prepare`` / ``time`` requests."""

    def __init__(self, target: str, module: Any) -> None:
        self.target = target
        self.module = module
        self.runners: dict[tuple[str, int], tuple[BatchRunner, int]] = {}

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        key = (str(request["variant"]), int(request["handlers"]))
        if op == "prepare":
            if self.target == "pluggy":
                run = await _pluggy_runner(*key)
            else:
                run = await _registry_runner(self.module, *key)
            batch = await _calibrate(run, float(request["min_time"]))
            self.runners[key] = (run, batch)
            return {"batch": batch}
        if op == "time":
            run, batch = self.runners[key]
            gc.collect()
            elapsed = await run(batch)
            return {"us": elapsed / batch * 1e6}
        raise ValueError(f"unknown op {op!r} (prepare or time)")


def _describe(target: str, src: str | None) -> tuple[dict[str, Any], Any]:
    info: dict[str, Any] = {
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "platform": platform.platform(),
    }
    if target == "pluggy":
        import pluggy

        info.update(package="pluggy", version=pluggy.__version__, module_file=pluggy.__file__)
        return info, None
    module = _import_registry_module(src)
    info.update(
        package="amplifier_core",
        version=str(getattr(module, "__version__", "unknown")),
        module_file=module.__file__,
        implementation=_type_path(module.HookRegistry),
    )
    return info, module


def _type_path(kind: type) -> str:
    """``package.module.Class``; for an extension type that reports ``builtins``, its module."""
    owner = kind.__module__
    if owner == "builtins":
        for name, loaded in list(sys.modules.items()):
            if getattr(loaded, kind.__qualname__, None) is kind:
                owner = name
                break
    return f"{owner}.{kind.__qualname__}"


def _reply(out: TextIO, payload: dict[str, Any]) -> None:
    out.write(json.dumps(payload) + "\n")
    out.flush()


async def _serve(args: argparse.Namespace, out: TextIO) -> None:
    try:
        info, module = _describe(args.target, args.src)
    except Exception as exc:
        _reply(out, {"error": f"cannot load {args.target}: {type(exc).__name__}: {exc}"})
        return
    _reply(out, info)
    worker = _Worker(args.target, module)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            payload = await worker.handle(json.loads(line))
        except Exception as exc:
            payload = {"error": f"{type(exc).__name__}: {exc} (request {line.strip()})"}
        _reply(out, payload)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time one emit implementation (see docstring).")
    parser.add_argument("target", choices=["registry", "pluggy"])
    parser.add_argument("--src", help="source tree to import amplifier_core from")
    args = parser.parse_args(argv)
    # Replies go to the real stdout; anything the code under test prints goes to stderr.
    out = sys.stdout
    sys.stdout = sys.stderr
    asyncio.run(_serve(args, out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
