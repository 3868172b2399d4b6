"""amplifier_hooks_testsupport: what this repository's tests share, never installed by users.

- :mod:`~amplifier_hooks_testsupport.loopback`: HTTP servers on 127.0.0.1 that check requests
  as the Anthropic Messages and OpenAI chat completions APIs do, and
  :func:`~amplifier_hooks_testsupport.loopback.check_provider_module` (with
  ``check_provider_package``, the check of this repository's provider modules);
- :mod:`~amplifier_hooks_testsupport.upstream`: a module's check run on amplifier-core 2.0.2,
  in that kernel's own environment;
- :mod:`~amplifier_hooks_testsupport.imports`: the modules a piece of code loads, seen from a
  fresh interpreter (the import-cost tests);
- :mod:`~amplifier_hooks_testsupport.claude_transcript`: the lines of a Claude Code session
  transcript, for ``replay``;
- :mod:`~amplifier_hooks_testsupport.plain_data`: Hypothesis strategies for plain event data;
- :mod:`~amplifier_hooks_testsupport.fresh_venv`: an install into a new virtual environment,
  then a script run there.

No shipped package depends on this one; the tests and the nox sessions install it. It sits
above the kernel, as a test does: ``check_provider_module`` imports whichever ``amplifier_core``
the environment has (ours or 2.0.2) when it is called.
"""

__all__: list[str] = []
