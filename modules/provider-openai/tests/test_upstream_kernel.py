"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, the provider
answers that kernel's ``ChatRequest`` from a loopback chat completions API and fails with its
errors; that kernel's ``ProviderValidator`` passes it.
"""

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
    import asyncio, os, sys
    from amplifier_hooks_testsupport.loopback import (
        OpenAIApi, check_provider_module, openai_completion, openai_error,
    )
    from amplifier_module_provider_openai import mount

    api = OpenAIApi([
        openai_completion("hello", [("toolu_1", "bash", '{"command": "ls"}')]),
        openai_error(401, "bad key", "invalid_request_error", "invalid_api_key"),
    ])
    asyncio.run(check_provider_module(mount, "openai", api))

    from amplifier_core.validation.provider import ProviderValidator

    # that kernel's own protocol check: mounted with no config (and no key)
    result = asyncio.run(ProviderValidator().validate("amplifier_module_provider_openai"))
    assert result.passed, [c.message for c in result.errors]
    print("ok")
    """
)


@needs_upstream
def test_mounts_and_answers_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.startswith("ok"), out
