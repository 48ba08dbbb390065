"""Ringside firmware: pure logic for the RP2040 ring controller.

Everything here runs unchanged under CPython (the simulator, the tests) and
MicroPython (the board, the MicroPython VM in CI). Hardware lives only in
`board_rp2040`.
"""
VERSION = "0.1.0"
