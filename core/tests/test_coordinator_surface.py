"""The coordinator's public surface stays small, and keeps every name amplifier-core 2.0.2 has."""

from __future__ import annotations

import inspect

from amplifier_core.cancellation import CancellationToken
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.injections import InjectionAdmission

# ``sorted(n for n in dir(amplifier_core.ModuleCoordinator) if not n.startswith("_"))`` on
# amplifier-core 2.0.2 from PyPI (read there, never installed beside this kernel).
AMPLIFIER_202_NAMES = (
    "approval_system",
    "cancellation",
    "channels",
    "cleanup",
    "collect_contributions",
    "config",
    "display_system",
    "get",
    "get_capability",
    "hooks",
    "injection_budget_per_turn",
    "injection_size_limit",
    "loader",
    "mount",
    "mount_points",
    "parent_id",
    "process_hook_result",
    "register_capability",
    "register_cleanup",
    "register_contributor",
    "request_cancel",
    "reset_turn",
    "session",
    "session_id",
    "session_state",
    "to_dict",
    "unmount",
)

MOST_PUBLIC_NAMES = 25


def public_names(cls: type) -> list[str]:
    return sorted(name for name in dir(cls) if not name.startswith("_"))


def test_the_coordinator_class_has_at_most_25_public_methods_and_properties() -> None:
    names = public_names(ModuleCoordinator)
    kinds = {name: type(inspect.getattr_static(ModuleCoordinator, name)) for name in names}
    assert set(kinds.values()) <= {property, type(public_names)}, kinds  # no data on the class
    assert len(names) <= MOST_PUBLIC_NAMES, names


def test_every_public_name_of_amplifier_core_202_is_on_a_coordinator() -> None:
    coordinator = ModuleCoordinator()
    missing = [name for name in AMPLIFIER_202_NAMES if not hasattr(coordinator, name)]
    assert missing == []


def test_the_parts_a_coordinator_delegates_to_are_reachable_from_it() -> None:
    coordinator = ModuleCoordinator(config={"session": {"injection_size_limit": 7}})
    assert isinstance(coordinator.injections, InjectionAdmission)
    assert coordinator.injection_size_limit == coordinator.injections.size_limit == 7
    assert isinstance(coordinator.cancellation, CancellationToken)
    assert coordinator.settings.injection_size_limit == 7
    coordinator.injections.turn_tokens = 12
    coordinator.reset_turn()
    assert coordinator.injections.turn_tokens == 0


def test_a_subclass_written_for_202_that_sets_up_in_new_works() -> None:
    class AmplifierStyle(ModuleCoordinator):
        def __new__(cls) -> AmplifierStyle:
            return super().__new__(cls, None, None, None, session_id="from-new")

        def __init__(self) -> None:  # as 2.0.2's MockCoordinator: no super().__init__()
            self.mount_history: list[str] = []

    coordinator = AmplifierStyle()
    assert coordinator.session_id == "from-new"
    assert coordinator.mount_history == []
    assert coordinator.get("hooks") is coordinator.hooks
