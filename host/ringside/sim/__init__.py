"""The ring simulator: marble physics (`physics`) and the VL53L0X sensor model (`sensors`).

Everything is driven by the parsed `hardware/ring.json` dict and by explicit
`random.Random` instances, so a seed reproduces a run exactly. Units: mm, mm/s,
degrees counter-clockwise from east, milliseconds of simulated time.
See docs/simulator.md for every number and where it comes from.
"""
