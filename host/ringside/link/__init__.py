"""The serial link to a board (real or simulated): see link.Link and docs/protocol.md.

    from ringside.link import Link, LinkError
    with Link("/dev/ttyACM0") as link:      # a device, a pty, a pyserial URL; None = find a Pico
        link.paint("green", space="7")
        ev = link.wait_for(("landed", "off_ring"), timeout=30)
"""
from ringside.link.errors import LinkError
from ringside.link.link import (COMMAND_TIMEOUT_S, HANDSHAKE_TIMEOUT_S, SILENCE_S, Event, Link,
                                connect)
from ringside.link.ports import PICO_VID, PortInfo, find_picos, open_port

__all__ = ["LinkError", "Link", "Event", "connect", "find_picos", "open_port", "PICO_VID",
           "PortInfo", "SILENCE_S", "COMMAND_TIMEOUT_S", "HANDSHAKE_TIMEOUT_S"]
