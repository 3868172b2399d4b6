"""The kernel a module is mounted on, asked once at mount: :class:`Kernel`.

A module runs on this repository's kernel and on amplifier-core 2.0.2. They differ in what a
hook registry offers and in what a handler's result means; a module resolves a :class:`Kernel`
at mount (:meth:`Kernel.of`) and asks it, never the registry or the coordinator:

* **registering** (:meth:`Kernel.register`): ours takes a handler's own ``timeout`` and
  ``fail_closed`` and wildcard events (``*:error``); 2.0.2 takes the event, the handler, a
  priority and a name only;
* **what ``None`` means** (:attr:`Kernel.none_is_continue`): ours takes a handler's ``None``
  as *continue* (the cheapest answer); 2.0.2 wants a result object;
* **context beside a change** (:attr:`Kernel.keeps_modify_injections`): ours keeps the context
  a ``modify`` result carries; 2.0.2 drops it, so a module hands it to the coordinator
  (:meth:`Kernel.inject_aside`);
* **ending the turn** (:meth:`Kernel.interrupt`): the orchestrator's ``cancel()`` where it has
  one, else the coordinator's cancellation token (:attr:`Kernel.cancellation`);
* **ephemeral injections** (:attr:`Kernel.take_ephemeral`): ours queues them on the
  coordinator, to be taken by the next model request; on 2.0.2 the orchestrator keeps them;
* **a new turn** (:meth:`Kernel.reset_turn`): ours counts some things per turn;
* **who listens** (:meth:`Kernel.listened`): whether any handler runs for an event, so that a
  costly payload is built only for someone;
* **which handlers** (:meth:`Kernel.handlers_for`): the handlers an event reaches, in order,
  where the kernel can say (ours);
* **handler runs** (:meth:`Kernel.add_observer`): an observer told of every handler run (ours);
* **a capability kept current** (:meth:`Kernel.watched_capability`): ours calls back each time
  a capability is registered again; on 2.0.2 it is asked again when needed;
* **wildcards, tried** (:func:`wildcards_reach`): whether a ``"*"`` registration reaches an
  arbitrary event on a given registry, checked by registering one and looking.

It imports no kernel: the result objects it passes on are built by the module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Interrupted", "Kernel", "hook_registry", "wildcards_reach"]

Interrupted = Literal["cancel", "token"]
"""How a turn was asked to end: the orchestrator's ``cancel()`` or the cancellation token."""


def hook_registry(coordinator: Any) -> Any:
    """The coordinator's hook registry (``.hooks``, ``.hook_registry`` or ``get("hooks")``),
    or ``None`` when it has none with ``register()``."""
    hooks = getattr(coordinator, "hooks", None) or getattr(coordinator, "hook_registry", None)
    if hooks is None and callable(getattr(coordinator, "get", None)):
        try:
            hooks = coordinator.get("hooks")
        except Exception:
            hooks = None
    return hooks if callable(getattr(hooks, "register", None)) else None


_PROBE_EVENT = "amplifier-hooks:wildcard-probe"
_UNSAID: Any = object()  # a registry that cannot list its handlers


def _probe(event: str, data: dict[str, Any]) -> None:
    return None


def wildcards_reach(registry: Any, *, name: str = "amplifier-hooks:probe") -> bool:
    """True when ``registry.register("*", ...)`` reaches an arbitrary event, checked by
    registering a handler under ``name`` and asking which handlers that event reaches; the
    registration is undone. amplifier-core 2.0.2's registry takes ``"*"`` as a plain name:
    False."""
    handlers_for = getattr(registry, "handlers_for", None)
    if not callable(handlers_for):
        return False
    try:
        undo = registry.register("*", _probe, priority=0, name=name)
    except Exception:
        return False
    try:
        chain = handlers_for(_PROBE_EVENT)
        return any(getattr(info, "handler", None) is _probe for info in chain)
    except Exception:
        return False
    finally:
        if callable(undo):
            undo()
        else:
            registry.unregister(name)


@dataclass(frozen=True, slots=True)
class Kernel:
    """What a module needs of the kernel it is mounted on (see the module docstring)."""

    coordinator: Any
    registry: Any
    """The hook registry, or ``None`` (a bare coordinator, a test without one)."""
    rich: bool
    """This repository's kernel: handler timeouts, fail-closed handlers, wildcard events."""
    take_ephemeral: Callable[[], list[Any]] | None = None
    """Takes the ephemeral injections the kernel queued for the next request (ours);
    ``None``: the kernel does not queue them, the orchestrator keeps them (2.0.2)."""
    _reset_turn: Callable[[], Any] | None = None

    @classmethod
    def of(cls, coordinator: Any, registry: Any = None) -> Kernel:
        """The kernel ``coordinator`` belongs to; ``registry``: its hook registry when the
        caller found it otherwise. Without a registry, the kernel is taken for ours."""
        found = registry if registry is not None else hook_registry(coordinator)
        rich = found is None or callable(getattr(found, "handlers_for", None))
        take = getattr(getattr(coordinator, "injections", None), "take_ephemeral", None)
        reset = getattr(coordinator, "reset_turn", None)
        return cls(
            coordinator,
            found,
            rich,
            take if callable(take) else None,
            reset if callable(reset) else None,
        )

    @property
    def cancellation(self) -> Any:
        """The coordinator's cancellation token (``is_cancelled``, ``request_graceful()``,
        ``request_immediate()``, ``reset()``), or ``None`` (ours makes it on first use)."""
        return getattr(self.coordinator, "cancellation", None)

    @property
    def none_is_continue(self) -> bool:
        """A handler's ``None`` is *continue*; otherwise a handler returns a result object."""
        return self.rich

    @property
    def keeps_modify_injections(self) -> bool:
        """The context a ``modify`` result carries reaches the session."""
        return self.rich

    @property
    def wildcards(self) -> bool:
        """Handlers may subscribe to patterns (``*:error``)."""
        return self.rich

    def register(
        self,
        event: str,
        handler: Callable[[str, dict[str, Any]], Awaitable[Any]],
        *,
        priority: int,
        name: str,
        timeout: float | None = None,
        fail_closed: bool = False,
    ) -> Callable[[], Any]:
        """Subscribe ``handler``; return its unregister function. ``timeout`` and
        ``fail_closed`` are the handler's own where the kernel has them (ours), else left out.

        :raises TypeError: the coordinator has no hook registry.
        """
        if self.registry is None:
            raise TypeError(
                f"the coordinator ({type(self.coordinator).__name__}) has no hook registry "
                "(.hooks with register())"
            )
        if not self.rich:
            return self.registry.register(event, handler, priority=priority, name=name)  # type: ignore[no-any-return]
        return self.registry.register(  # type: ignore[no-any-return]
            event, handler, priority=priority, name=name, timeout=timeout, fail_closed=fail_closed
        )

    async def inject_aside(self, result: Any, event: str, source: str) -> bool:
        """Hand ``result`` (an ``inject_context`` result) to the coordinator beside the
        handler's own; False when the coordinator cannot take it.

        :raises Exception: what the coordinator raised.
        """
        process = getattr(self.coordinator, "process_hook_result", None)
        if not callable(process):
            return False
        await process(result, event, source)
        return True

    async def interrupt(self) -> Interrupted | None:
        """Ask the running turn to stop as a user's cancel does; how, or ``None`` when the
        session has no way to.

        :raises Exception: what the orchestrator or the token raised.
        """
        get = getattr(self.coordinator, "get", None)
        orchestrator = get("orchestrator") if callable(get) else None
        cancel = getattr(orchestrator, "cancel", None)
        if callable(cancel):
            await cancel(immediate=False)
            return "cancel"
        request = getattr(self.cancellation, "request_graceful", None)
        if not callable(request):
            return None
        request()
        return "token"

    def listened(self, event: str) -> bool:
        """Whether a handler runs for ``event`` (a registry that cannot say: assume so)."""
        found = self._list_handlers(event)
        if found is _UNSAID:
            return True
        if isinstance(found, dict):
            return any(found.values())
        return bool(found)

    def handlers_for(self, event: str) -> tuple[Any, ...]:
        """The handlers ``event`` reaches, in the order they run (each with ``.name`` and
        ``.handler``); empty where the kernel cannot say (2.0.2) or has no registry."""
        if not self.rich or self.registry is None:
            return ()
        return tuple(self.registry.handlers_for(event))

    def add_observer(
        self, observer: Callable[..., Any], *, ignore: tuple[str, ...] = ()
    ) -> Callable[[], Any] | None:
        """Tell ``observer`` of every handler run but those of the handlers named in
        ``ignore``; its removal function, or ``None`` when the kernel reports no runs."""
        add = getattr(self.registry, "add_observer", None)
        if not callable(add):
            return None
        return add(observer, ignore=ignore)  # type: ignore[no-any-return]

    def handler_names(self) -> dict[str, list[str]]:
        """Each event with handlers and their names (the registry's ``list_handlers()``);
        empty where the registry cannot say."""
        found = self._list_handlers()
        return {str(k): list(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def _list_handlers(self, *event: str) -> Any:
        """The registry's ``list_handlers(*event)``, or :data:`_UNSAID` where it has none or
        it raised."""
        lister = getattr(self.registry, "list_handlers", None)
        if not callable(lister):
            return _UNSAID
        try:
            return lister(*event)
        except Exception:
            return _UNSAID

    def watched_capability(self, name: str, on_change: Callable[[Any], Any]) -> tuple[Any, bool]:
        """The capability ``name`` and whether the kernel calls ``on_change`` with its new
        value each time it is registered again (ours: ``get_capability(name, watch=...)``).
        Where it does not (2.0.2), the caller asks :meth:`capability` again when it needs the
        current value."""
        get = getattr(self.coordinator, "get_capability", None)
        if not callable(get):
            return None, False
        try:
            return get(name, watch=on_change), True
        except TypeError:  # amplifier-core 2.0.2 takes the name only
            return self.capability(name), False

    def reset_turn(self) -> None:
        """Tell the kernel a new turn begins (where it counts per turn)."""
        if self._reset_turn is not None:
            self._reset_turn()

    def capability(self, name: str) -> Any:
        """The coordinator's capability ``name``, or ``None`` (none, or no capabilities)."""
        get = getattr(self.coordinator, "get_capability", None)
        if not callable(get):
            return None
        try:
            return get(name)
        except Exception:
            return None
