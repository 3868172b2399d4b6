"""What several hook formats share, so that no format imports another: Claude Code's hook
protocol (:mod:`.claude_protocol`, spoken by Claude Code and Factory Droid), the
``transcript_path`` of the Claude-like stdin objects (:mod:`.transcript`) and the
``hook_event_name`` of the formats that call a child session's stop ``SubagentStop``
(:mod:`.event_name`). This package is no format: it registers nothing and imports no format."""

__all__: list[str] = []
