"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, the provider
answers that kernel's ``ChatRequest`` from a loopback chat completions API and fails with its
errors; that kernel's ``ProviderValidator`` passes it.
"""

from __future__ import annotations

from pathlib import Path

from amplifier_hooks_testsupport.upstream import check_provider_upstream, needs_upstream


@needs_upstream
def test_mounts_and_answers_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    check_provider_upstream("openai", __file__, tmp_path)
