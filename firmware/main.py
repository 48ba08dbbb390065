"""Ringside board boot: MicroPython runs this file after boot.py. The work is done in
ringfw/boot.py, which is compiled to .mpy with the rest of the firmware."""
from ringfw.boot import main

main()
