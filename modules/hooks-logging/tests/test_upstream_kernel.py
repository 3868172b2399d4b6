"""On amplifier-core 2.0.2 (its registry has no wildcards), in its own virtual environment."""

from __future__ import annotations

import textwrap
from pathlib import Path

from amplifier_hooks_testsupport.upstream import (
    module_source,
    needs_upstream,
    run_upstream,
)

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys
    from amplifier_core.events import ALL_EVENTS
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_hooks_logging import MASK, mount, on_session_ready

    async def main(path):
        coordinator = MockCoordinator()
        coordinator.register_capability("observability.events", ["declared:early"])
        cleanup = await mount(coordinator, {"path": path, "extra_events": ["my:extra"]})
        handlers = coordinator.hooks.list_handlers()
        assert "*" not in handlers, handlers
        coordinator.register_capability(
            "observability.events", ["declared:early", "declared:late"]
        )
        await on_session_ready(coordinator)
        names = [*ALL_EVENTS, "my:extra", "declared:early", "declared:late", "not:known"]
        for n, name in enumerate(names):
            await coordinator.hooks.emit(name, {"n": n, "api_key": "sk-1"})
        await cleanup()
        left = {k: v for k, v in coordinator.hooks.list_handlers().items() if v}
        assert left == {}, left
        with open(path.format(session_id=coordinator.session_id)) as f:
            records = [json.loads(line) for line in f]
        assert [r["event"] for r in records] == names[:-1], [r["event"] for r in records]
        assert all(r["data"]["api_key"] == MASK for r in records)
        assert all(r["session_id"] == coordinator.session_id for r in records)
        print("ok", len(records))

    asyncio.run(main(sys.argv[1]))
    """
)


@needs_upstream
def test_mounts_and_logs_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    log = str(tmp_path / "{session_id}.jsonl")
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)], args=[log])
    assert out.startswith("ok "), out
