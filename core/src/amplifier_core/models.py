"""Data models of the hook contract: :class:`HookResult` and what it carries.

A hook handler is ``async def handler(event: str, data: dict) -> HookResult`` (sync handlers
are accepted too). The result tells the kernel what to do next: ``continue``, ``deny``,
``modify``, ``inject_context`` or ``ask_user``. Names and defaults match amplifier-core 2.x so
that modules written for it run unchanged.

Unknown keyword arguments are rejected: ``HookResult(acton="deny")`` is a typo that would
otherwise silently let an operation through.

Also here: :class:`ToolResult` (what a tool returns), the descriptions modules and providers
publish (:class:`ModuleInfo`, :class:`ProviderInfo`, :class:`ModelInfo`, :class:`Pricing`,
:class:`ConfigField`) and :class:`SessionStatus`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

if TYPE_CHECKING:
    from .descriptions import (
        ConfigField,
        ModelInfo,
        ModuleInfo,
        Pricing,
        ProviderInfo,
        SessionStatus,
    )

__all__ = [
    "ConfigField",
    "ContextInjection",
    "HookAction",
    "HookResult",
    "MessageLevel",
    "ModelInfo",
    "ModuleInfo",
    "Pricing",
    "ProviderInfo",
    "Role",
    "SessionStatus",
    "ToolResult",
    "UserMessage",
]

HookAction = Literal["continue", "deny", "modify", "inject_context", "ask_user"]
Role = Literal["system", "user", "assistant"]
MessageLevel = Literal["info", "warning", "error"]


def _empty_list() -> list[Any]:
    """``default_factory`` of the list fields. A function of ours rather than ``list``: pydantic
    reads the factory's signature, and reading a builtin's compiles the tokenizer (~5 ms)."""
    return []


class ContextInjection(BaseModel):
    """One piece of text a hook adds to the agent's context, kept with its source."""

    model_config = ConfigDict(extra="forbid")

    content: str
    role: Role = "system"
    ephemeral: bool = False
    append_to_last_tool_result: bool = False
    hook_name: str = "unknown"
    event: str = ""


class UserMessage(BaseModel):
    """One message for the human (never for the model), kept with its source."""

    model_config = ConfigDict(extra="forbid")

    message: str
    level: MessageLevel = "info"
    source: str = "hook"


_LEVELS: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


def _injection_fields(injections: list[ContextInjection]) -> dict[str, Any]:
    """The scalar context fields older callers read, projected from ordered injections."""
    first = injections[0]
    return {
        "context_injection": "\n\n".join(i.content for i in injections),
        "context_injection_role": first.role,
        "ephemeral": all(i.ephemeral for i in injections),
        "append_to_last_tool_result": first.append_to_last_tool_result,
    }


def _message_fields(messages: list[UserMessage]) -> dict[str, Any]:
    """The scalar user-message fields older callers read, projected from ordered messages:
    the texts one per line, the most severe level, the distinct sources."""
    return {
        "user_message": "\n".join(m.message for m in messages),
        "user_message_level": max((m.level for m in messages), key=_LEVELS.__getitem__),
        "user_message_source": ", ".join(dict.fromkeys(m.source for m in messages)),
    }


class HookResult(BaseModel):
    """What a hook handler asks the kernel to do.

    Actions:
        ``continue``: proceed. ``deny``: block the operation; ``reason`` is shown to the agent
        and the handler chain stops. ``modify``: ``data`` replaces the event data the next
        handler (and the caller) sees. ``inject_context``: ``context_injection`` is added to the
        agent's context. ``ask_user``: the kernel's approval system asks the human.

    Injections and user messages each have two forms: the ordered, lossless lists
    (``context_injections``, ``user_messages``) and the scalar fields amplifier-core 2.0.2's
    callers read (``context_injection`` with its role and flags, ``user_message`` with its
    level and source). A result keeps the two in step itself, however it is made
    (validated, ``model_construct``, :meth:`merged`): a scalar given alone becomes a
    one-item list, a list given alone projects its scalars; both given are kept as given.
    Readers use the lists; nobody converts.
    """

    model_config = ConfigDict(extra="forbid")

    action: HookAction = "continue"
    data: dict[str, Any] | None = None
    reason: str | None = None

    # Context injection
    context_injection: str | None = None
    context_injection_role: Role = "system"
    ephemeral: bool = False
    append_to_last_tool_result: bool = False
    context_injections: list[ContextInjection] = Field(default_factory=_empty_list)

    # Approval gate
    approval_prompt: str | None = None
    approval_options: list[str] | None = None
    approval_timeout: float = Field(default=300.0, gt=0)
    approval_default: Literal["allow", "deny"] = "deny"

    # Output control
    suppress_output: bool = False
    user_message: str | None = None
    user_message_level: MessageLevel = "info"
    user_message_source: str | None = None
    user_messages: list[UserMessage] = Field(default_factory=_empty_list)

    # Provenance: the handler a deny or ask_user came from (set by the registry).
    source: str | None = None

    @field_validator("approval_options")
    @classmethod
    def _options_not_empty(cls, value: list[str] | None, info: ValidationInfo) -> list[str] | None:
        if value is not None and not value:
            raise ValueError(
                "approval_options must name at least one option (or be None for Allow/Deny)"
            )
        return value

    def model_post_init(self, context: Any, /) -> None:
        """Keep the scalar and list forms in step (runs after validation and after
        ``model_construct``, so that no reader ever has to convert)."""
        if self.context_injections:
            if self.context_injection is None:
                for name, value in _injection_fields(self.context_injections).items():
                    setattr(self, name, value)
        elif self.context_injection is not None:
            self.context_injections = [
                ContextInjection(
                    content=self.context_injection,
                    role=self.context_injection_role,
                    ephemeral=self.ephemeral,
                    append_to_last_tool_result=self.append_to_last_tool_result,
                )
            ]
        if self.user_messages:
            if self.user_message is None:
                for name, value in _message_fields(self.user_messages).items():
                    setattr(self, name, value)
        elif self.user_message is not None:
            self.user_messages = [
                UserMessage(
                    message=self.user_message,
                    level=self.user_message_level,
                    source=self.user_message_source or "hook",
                )
            ]

    @model_validator(mode="after")
    def _injection_has_text(self) -> HookResult:
        if self.action == "inject_context" and not (
            self.context_injection and self.context_injection.strip()
        ):
            raise ValueError(
                "context_injection: action 'inject_context' needs non-empty context_injection text"
            )
        return self

    @classmethod
    def carrying(cls, data: dict[str, Any] | None) -> HookResult:
        """A new ``continue`` result carrying ``data``, equal to ``HookResult(data=data)`` but
        made without validating (or copying) ``data``: what emit returns when no handler asked
        for more. Made the way pydantic's own ``__copy__`` makes an instance, because a
        validated construction or a ``model_copy`` costs more than all the rest of an emit
        with ten handlers (``bench/emit.py``; docs/benchmarks.md)."""
        fields = _CARRYING_FIELDS.copy()
        fields["data"] = data
        fields["context_injections"] = []
        fields["user_messages"] = []
        result = _new(cls)
        # the slots' own setters: a third cheaper than object.__setattr__ by name
        _set_dict(result, fields)
        _set_fields_set(result, {"data"})
        _set_extra(result, None)
        _set_private(result, None)
        return result

    def merged(
        self,
        *,
        data: dict[str, Any] | None,
        injections: list[ContextInjection],
        messages: list[UserMessage],
        action: HookAction | None = None,
    ) -> HookResult:
        """A copy of this result carrying ``data`` and, in place of its own lists, the given
        injections and user messages, with the scalar forms projected from them (how
        :meth:`HookRegistry.emit <amplifier_core.hooks.HookRegistry.emit>` combines the
        results of its handlers). Nothing is validated again: every value is valid already.
        """
        update: dict[str, Any] = {
            "data": data,
            "context_injections": injections,
            "user_messages": messages,
        }
        if action is not None:
            update["action"] = action
        if injections:
            update.update(_injection_fields(injections))
        if messages:
            update.update(_message_fields(messages))
        return self.model_copy(update=update)


_CARRYING_FIELDS: dict[str, Any] = dict(HookResult())
"""Every field of a default ``HookResult`` with its value, for :meth:`HookResult.carrying`."""
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_IMAGE_MEDIA_TYPE = re.compile(r"image/[a-z0-9][a-z0-9.+-]*")
_IMAGE_OMITTED = (
    "[Image omitted from tool event; original retained for model request if unmodified.]"
)


def _json_default(value: Any) -> Any:
    """``json.dumps`` fallback for the text a model reads, as 2.0.2's: a Decimal keeps its
    digits as a string; any other type JSON cannot encode raises ``TypeError``, so a tool's
    bug surfaces rather than reaching the model as a ``repr``."""
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _json_lenient(value: Any) -> Any:
    """``json.dumps`` fallback for event data: a Decimal as its digits, a pydantic model as its
    JSON dump, anything else as ``str()`` (a hook sees every result, however odd)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return str(value)


def _for_model(text: str) -> str:
    """``text`` without the control characters and lone surrogates model APIs reject."""
    return _CONTROL_CHARACTERS.sub("", text)


def _rich_block(index: int, block: Any) -> dict[str, Any]:
    """One rich content block as a canonical dict (text or base64 image)."""
    if isinstance(block, BaseModel):
        block = block.model_dump(exclude_none=True)
    where = f"ToolResult.content[{index}]"
    if not isinstance(block, Mapping):
        raise ValueError(f"{where}: expected a text or image block, got {type(block).__name__}")
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        if not isinstance(text, str):
            raise ValueError(f"{where}: a text block needs 'text' as a string")
        return {"type": "text", "text": text}
    if kind == "image":
        source = block.get("source")
        if not isinstance(source, Mapping) or source.get("type") != "base64":
            raise ValueError(f"{where}: an image block needs source.type 'base64'")
        media_type = source.get("media_type")
        if not isinstance(media_type, str) or not _IMAGE_MEDIA_TYPE.fullmatch(media_type):
            raise ValueError(f"{where}: source.media_type must be 'image/...', got {media_type!r}")
        data = source.get("data")
        if not isinstance(data, str) or not data or not _is_base64(data):
            raise ValueError(f"{where}: source.data must be non-empty standard base64")
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": data},
        }
    raise ValueError(f"{where}: type must be 'text' or 'image', got {kind!r}")


def _is_base64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _rich_content(value: Any) -> list[Any] | None:
    """Validated rich content as TextBlock/ImageBlock objects; an empty list is ``None``."""
    if value is None:
        return None
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, list | tuple):
        raise ValueError(
            f"ToolResult.content must be a list of text/image blocks, got {type(value).__name__}"
        )
    blocks = [_rich_block(i, block) for i, block in enumerate(value)]
    if not blocks:
        return None
    from .message_models import ImageBlock, TextBlock  # on use: most results carry no content

    return [TextBlock(**b) if b["type"] == "text" else ImageBlock(**b) for b in blocks]


class ToolResult(BaseModel):
    """Outcome of a tool call, as tools and ``tool:post`` hooks see it.

    ``output`` is what the model reads (see :meth:`get_serialized_output`), ``error`` the
    failure details (``{"message": ...}``), and ``content`` optional rich content (text and
    base64 image blocks) for providers that pass it to the model. Extra keys are kept.
    """

    # defer_build: the validator is built when the first result is made, not on import (a hook
    # author's ``import amplifier_core`` does not need it).
    model_config = ConfigDict(
        extra="allow", validate_assignment=True, hide_input_in_errors=True, defer_build=True
    )

    success: bool = True
    output: Any | None = None
    error: dict[str, Any] | None = None
    content: list[Any] | None = None
    """Text/image blocks (``TextBlock`` / ``ImageBlock``); ``None`` when there are none."""

    @field_validator("content", mode="before")
    @classmethod
    def _check_content(cls, value: Any) -> list[Any] | None:
        return _rich_content(value)

    def model_post_init(self, context: Any, /) -> None:
        """A failed result without output reads its error message as output (2.0.2)."""
        if not self.success and self.output is None and self.error:
            message = self.error.get("message")
            if message is not None:
                self.output = message

    @field_serializer("content", when_used="unless-none")
    def _content_as_dicts(self, value: list[Any]) -> list[dict[str, Any]]:
        return [_rich_block(i, block) for i, block in enumerate(value)]

    @model_serializer(mode="wrap")
    def _without_empty_content(self, handler: SerializerFunctionWrapHandler) -> Any:
        dumped = handler(self)
        if isinstance(dumped, dict) and not self.content:
            dumped.pop("content", None)
        return dumped

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A validated copy: updated fields go through the same checks as construction."""
        data = self.model_dump()
        if update:
            data.update(update)
        return self.model_validate(data)

    def __str__(self) -> str:
        if self.success:
            return "" if self.output is None else str(self.output)
        message = (self.error or {}).get("message", "unknown error")
        return f"Error: {message}"

    def get_serialized_output(self) -> str:
        """The text a model reads for this result.

        A dict or list ``output`` becomes JSON (Decimal as a string), anything else ``str()``,
        whatever ``success`` says (a failed command's output carries its stderr); control
        characters are removed. Without output: ``"Success"``, or ``"Error: <message>"``.
        """
        if self.output is not None:
            if isinstance(self.output, dict | list):
                import json  # on use: a hook author's import does not need it

                text = json.dumps(self.output, default=_json_default)
            else:
                text = str(self.output)
            return _for_model(text)
        if self.success:
            return "Success"
        if self.error:
            return _for_model(f"Error: {self.error.get('message', 'Unknown error')}")
        return "Error: Failed"

    def safe_hook_presentation(self) -> dict[str, Any]:
        """The result as JSON-ready event data, with each image replaced by a short note."""
        payload: dict[str, Any] = {
            "success": self.success,
            "output": self.output,
            "error": self.error,
        }
        if self.content is not None:
            blocks = (_rich_block(i, block) for i, block in enumerate(self.content))
            payload["content"] = [
                {"type": "text", "text": _IMAGE_OMITTED} if b["type"] == "image" else b
                for b in blocks
            ]
        import json

        loaded: dict[str, Any] = json.loads(json.dumps(payload, default=_json_lenient))
        return loaded


_DESCRIPTIONS = (
    "ConfigField",
    "ModelInfo",
    "ModuleInfo",
    "Pricing",
    "ProviderInfo",
    "SessionStatus",
)


def __getattr__(name: str) -> Any:
    """The description models (``ModelInfo``, ``ProviderInfo`` ...) live in
    :mod:`amplifier_core.descriptions`; they are found here too, loaded on first use."""
    if name in _DESCRIPTIONS:
        from . import descriptions

        return getattr(descriptions, name)
    raise AttributeError(f"module 'amplifier_core.models' has no attribute {name!r}")
