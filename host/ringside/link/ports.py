"""Reaching a board: a device path, a pty (or a symlink to one), a pyserial URL, or a
Raspberry Pi Pico found by its USB vendor id."""
from __future__ import annotations

import os
from dataclasses import dataclass

import serial
from serial.tools import list_ports

from ringside.link.errors import LinkError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

PICO_VID = 0x2E8A       # Raspberry Pi (RP2040 boards running MicroPython enumerate with it)
BAUDRATE = 115200       # ignored by USB CDC and ptys; set for real UARTs


@dataclass(frozen=True)
class PortInfo:
    device: str
    serial_number: str | None = None
    description: str = ""


def find_picos(comports: Callable[[], list] | None = None) -> list[PortInfo]:
    """Serial ports whose USB vendor id is the Raspberry Pi one, sorted by device name.

    comports: a callable like serial.tools.list_ports.comports (tests pass their own)."""
    ports = (comports or list_ports.comports)()
    out = [PortInfo(p.device, getattr(p, "serial_number", None), getattr(p, "description", "") or "")
           for p in ports if getattr(p, "vid", None) == PICO_VID]
    return sorted(out, key=lambda p: p.device)


def usb_serial_of(device: str, comports: Callable[[], list] | None = None) -> str | None:
    """The USB serial number of a device path, if the system lists it (None for ptys)."""
    try:
        real = os.path.realpath(device)
        for p in (comports or list_ports.comports)():
            if p.device in (device, real):
                return getattr(p, "serial_number", None)
    except Exception:  # listing ports is best effort
        return None
    return None


def is_url(spec: str) -> bool:
    return "://" in spec


def available(spec: str) -> bool:
    """True if the path exists (URLs are always worth a try)."""
    return is_url(spec) or os.path.exists(spec)


def open_port(spec: str, read_timeout_s: float = 0.05) -> serial.SerialBase:
    """Open a device path, pty or pyserial URL (loop://, socket://host:port, rfc2217://...).

    Raises LinkError with the reason when it cannot be opened."""
    try:
        if is_url(spec):
            port = serial.serial_for_url(spec, baudrate=BAUDRATE, timeout=read_timeout_s,
                                         write_timeout=1.0)
        else:
            port = serial.Serial(spec, baudrate=BAUDRATE, timeout=read_timeout_s,
                                 write_timeout=1.0)
    except (serial.SerialException, OSError, ValueError) as e:
        raise LinkError("cannot open %s: %s" % (spec, _short(e))) from None
    try:
        port.reset_input_buffer()  # whatever the board said before we listened is stale
    except (serial.SerialException, OSError):
        pass
    return port


def _short(e: BaseException) -> str:
    s = str(e)
    # pyserial wraps errno messages as "[Errno 2] could not open port X: [Errno 2] ..."
    if "] " in s:
        s = s.rsplit("] ", 1)[-1]
    return s or type(e).__name__
