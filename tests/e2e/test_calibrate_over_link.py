"""`ringside calibrate --port`: calibration over the serial link, the person at the table
played by the simulated board's sim_place (a real board has none: the user is asked)."""
import io
import json
import time

from ringside.calibration import PASSES, calibrate
from ringside.link_table import LinkTable
from ringside.sim.serve import SimServer


def test_calibration_over_the_link_fits_the_sensors(tmp_path):
    # The ideal model, on purpose: the check is that the offset fitted over the link is the
    # sensor's own bias, which holds only where a reading is the marble's chord range plus that
    # bias. Under the physical model the offset also takes in the lens in the wall and the blend
    # with the empty ring (docs/simulator.md); its calibrated angles are `bench ring`'s figures.
    srv = SimServer(seed=4, speed=20.0, out=io.StringIO(), sensor_model="ideal")
    srv.board.advance(1000)
    srv._t0 = time.monotonic()
    srv._v0 = srv.board.now
    srv.start()
    try:
        from ringside.link import Link
        link = Link(srv.port).open()
        asked = []

        def ask(prompt):          # the person at the table sets the marble down, or lifts it
            asked.append(prompt)
            if prompt.startswith("Take the marble off the ring"):
                link.command("sim_lift")
                return ""
            angle = float(prompt.split("(")[1].split(" deg")[0])
            link.command("sim_place", ang=int(round(angle * 100)))
            return ""

        table = LinkTable(link, json.loads(srv.board.ring_bytes), ask=ask)
        res = calibrate(table, table.ring_dict, spaces=["7", "16", "8", "11", "14", "9"],
                        settle_ms=800, collect_ms=1500, log=lambda *a: None)
        # set down once and taken off (the sensors learn the empty ring), then the six spaces,
        # twice round (calibration.PASSES)
        assert asked[0].startswith("Set the marble down on ")
        assert asked[1].startswith("Take the marble off the ring")
        assert len(asked) == 2 + 6 * PASSES == 14
        assert all(p.startswith("Set the marble down on ") for p in asked[2:])
        assert asked[2:8] == asked[8:14]
        truth = srv.board.model
        fitted = {f.sensor: f for f in res.fits}
        assert len(fitted) >= 3
        for i, f in fitted.items():
            # the offset the board now subtracts is the sensor's true bias, within 1.5 mm
            assert abs(f.offset_mm - truth.bias_mm[i]) < 1.5 + abs(f.scale - 1 / truth.scale[i]) * 140
        link.close()
    finally:
        srv.stop()
