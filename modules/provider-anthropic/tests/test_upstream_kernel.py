"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, the provider
answers that kernel's ``ChatRequest`` from a loopback Messages API and fails with its errors;
that kernel's ``ProviderValidator`` passes it.
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
        AnthropicApi, anthropic_error, anthropic_message, check_provider_module,
    )
    from amplifier_module_provider_anthropic import mount

    api = AnthropicApi([
        anthropic_message("hello", [("toolu_1", "bash", {"command": "ls"})]),
        anthropic_error(401, "authentication_error", "invalid x-api-key"),
    ])
    asyncio.run(check_provider_module(mount, "anthropic", api))

    from amplifier_core.validation.provider import ProviderValidator

    # that kernel's own protocol check: mounted with no config (and no key)
    result = asyncio.run(ProviderValidator().validate("amplifier_module_provider_anthropic"))
    assert result.passed, [c.message for c in result.errors]
    print("ok")
    """
)


@needs_upstream
def test_mounts_and_answers_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.startswith("ok"), out
