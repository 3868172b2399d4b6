"""The system-call filter a contained command runs under: no socket but the network
namespace's own, so no way to a service listening on a path.

A network namespace (``bwrap --unshare-net``) cuts a command off from the host's network and
from abstract unix sockets, but not from a unix socket file: ``connect()`` to
``/run/docker.sock`` or ``~/.colima/docker.sock`` works through a read-only bind, and a
listener there may start containers, run commands, read secrets. Hiding every such file is a
list that cannot be finished; the filter closes the family instead:

* ``socket()`` is allowed for ``AF_INET``, ``AF_INET6`` (the namespace's loopback only) and
  ``AF_NETLINK`` (the namespace's interfaces: what ``getaddrinfo`` asks); every other family,
  ``AF_UNIX`` first, fails with ``EACCES``. ``socketpair()`` stays allowed: its two ends are
  connected to each other and to nothing else (Python's ``asyncio`` needs it);
* ``io_uring_setup``, ``io_uring_enter``, ``io_uring_register`` fail with ``EPERM``
  (an io_uring can create and connect sockets without the ``socket()`` call);
* ``add_key``, ``request_key`` and ``keyctl`` fail with ``EPERM``: the kernel's keyrings are
  not the sandbox's (the user's keyring is every process of the user's, outside any mount or
  PID namespace), so a contained command added keys there that outlived it, and could read
  the credentials other programs keep there (Kerberos caches, stored passwords);
* a system call of another ABI (a 32-bit program's ``socketcall``, x86-64's x32 calls) kills
  the process: its numbers are not the ones checked.

:func:`socket_filter` returns the classic BPF program for the machine, as ``bwrap --seccomp FD``
reads it (an array of ``struct sock_filter``); ``None`` on a machine it does not know, where
the caller must refuse to run contained rather than run unfiltered.
"""

from __future__ import annotations

import functools
import platform
import struct
from collections.abc import Sequence
from typing import Final, NamedTuple

__all__ = ["ALLOWED_FAMILIES", "socket_filter"]

ALLOWED_FAMILIES: Final = {"AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16}
"""The socket families a contained command may create (all in its network namespace)."""

_LD_W_ABS: Final = 0x20
_JEQ: Final = 0x15
_JGE: Final = 0x35
_RET: Final = 0x06
_ALLOW: Final = 0x7FFF0000
_ERRNO: Final = 0x00050000
_KILL_PROCESS: Final = 0x80000000
_EACCES: Final = 13
_EPERM: Final = 1
_NR: Final = 0
_ARCH: Final = 4
_ARG0: Final = 16  # the low 32 bits of args[0] (little-endian; an int argument is 32 bits)
_X32_BIT: Final = 0x40000000
_IO_URING: Final = (425, 426, 427)  # io_uring_setup, io_uring_enter, io_uring_register


class _Abi(NamedTuple):
    audit_arch: int
    socket: int
    x32: bool
    keys: tuple[int, int, int]  # add_key, request_key, keyctl


_ABIS: Final = {
    "x86_64": _Abi(0xC000003E, 41, True, (248, 249, 250)),
    "aarch64": _Abi(0xC00000B7, 198, False, (217, 218, 219)),
}


class _Op(NamedTuple):
    code: int
    k: int
    yes: str | None = None  # label jumped to when the comparison holds
    no: str | None = None


def _assemble(program: Sequence[_Op | str]) -> bytes:
    """``struct sock_filter`` bytes of ``program``: operations and labels (strings) that mark
    the next operation; a jump names labels further on."""
    labels: dict[str, int] = {}
    ops: list[_Op] = []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(ops)
        else:
            ops.append(item)
    out = bytearray()
    for index, op in enumerate(ops):
        jt = labels[op.yes] - index - 1 if op.yes else 0
        jf = labels[op.no] - index - 1 if op.no else 0
        out += struct.pack("=HBBI", op.code, jt, jf, op.k)
    return bytes(out)


@functools.cache
def socket_filter(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one, ``platform.machine()``); ``None`` when
    its system-call numbers are not known here."""
    abi = _ABIS.get(machine or platform.machine())
    if abi is None:
        return None
    program: list[_Op | str] = [
        _Op(_LD_W_ABS, _ARCH),
        _Op(_JEQ, abi.audit_arch, None, "kill"),
        _Op(_LD_W_ABS, _NR),
    ]
    if abi.x32:
        program.append(_Op(_JGE, _X32_BIT, "kill", None))
    program.append(_Op(_JEQ, abi.socket, "family", None))
    program += [_Op(_JEQ, number, "refuse", None) for number in (*_IO_URING, *abi.keys)]
    program += [
        _Op(_RET, _ALLOW),
        "family",
        _Op(_LD_W_ABS, _ARG0),
        *(_Op(_JEQ, family, "allow", None) for family in ALLOWED_FAMILIES.values()),
        _Op(_RET, _ERRNO | _EACCES),
        "allow",
        _Op(_RET, _ALLOW),
        "refuse",
        _Op(_RET, _ERRNO | _EPERM),
        "kill",
        _Op(_RET, _KILL_PROCESS),
    ]
    return _assemble(program)
