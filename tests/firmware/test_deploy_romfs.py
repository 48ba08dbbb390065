"""`make deploy` onto a board whose MicroPython has a ROMFS partition.

The board is test_rescue_deploy's SimBoard (mpremote's own serial transport; CPython plays
the board against a directory standing for its flash) with a `vfs.rom_ioctl` over a
bytearray standing for a memory-mapped partition, answering as mpremote's `romfs deploy`
expects (segments, erase, write, the erase block; the RP2040's 4 KB sectors and 256 B pages). After the partition is written and the board reset, the image is
"mounted": unpacked under /rom, so the board's file listing sees what a board would. The
image the board holds is then booted in the real MicroPython VM, from /rom.
"""
import errno
import hashlib
import shutil
import tempfile
from pathlib import Path

import pytest
from test_rescue_deploy import SimBoard, _calibrated_board

from ringside.app import deploy as dp
from ringside.app.build_firmware import ROMFS_IMAGE
from ringside.bench import firmware as fwb

ROM_BYTES = 128 * 1024       # the partition of the fake board
ERASE_BLOCK = 4096           # the RP2040's flash erase sector
MIN_WRITE = 256              # and its flash page


def _uint(b, i):
    v = 0
    while True:
        c = b[i]
        i += 1
        v = (v << 7) | (c & 0x7F)
        if not c & 0x80:
            return v, i


def _unpack(b, i, end, dest: Path):
    """The records of a ROMFS image (mpremote.romfs.VfsRomWriter's format) as files."""
    while i < end:
        kind, i = _uint(b, i)
        n, i = _uint(b, i)
        j = i + n
        if kind in (4, 5):                       # a directory, a file
            ln, k = _uint(b, i)
            name = bytes(b[k:k + ln]).decode()
            k += ln
            if kind == 4:
                (dest / name).mkdir()
                _unpack(b, k, j, dest / name)
            else:
                _, k = _uint(b, k)               # its data record: verbatim
                dn, k = _uint(b, k)
                (dest / name).write_bytes(bytes(b[k:k + dn]))
        i = j


class RomBoard(SimBoard):
    """A board whose MicroPython has a ROMFS partition of `rom_bytes` (the flash erased)."""

    def __init__(self, root, rom_bytes=ROM_BYTES, corrupt=False):
        super().__init__(root)
        self.rom = bytearray(b"\xff" * rom_bytes)
        self.writes = 0
        self.corrupt = corrupt
        self._mount()

    def _mount(self):
        """What the board's _boot.py does at a reset: a valid image appears at /rom."""
        rom = self.root / "rom"
        if rom.exists():
            shutil.rmtree(rom)
        if self.rom[:3] == b"\xd2\xcd\x31":
            rom.mkdir()
            n, i = _uint(self.rom, 3)
            _unpack(self.rom, i, i + n, rom)

    def _modules(self):
        board = self

        class Vfs:
            @staticmethod
            def rom_ioctl(op, *a):
                if op == 1:
                    return 1
                if op == 2:
                    return memoryview(board.rom) if a[0] == 0 else -errno.ENODEV
                if op == 3:                      # prepare (erase) offset, length
                    off, n = (a[1], a[2]) if len(a) == 3 else (0, a[1])
                    board.rom[off:off + n] = b"\xff" * n
                    return MIN_WRITE
                if op == 4:                      # write
                    off, buf = a[1], bytes(a[2])
                    if board.corrupt and off == 0:
                        buf = buf[:100] + bytes([buf[100] ^ 1]) + buf[101:]
                    board.rom[off:off + len(buf)] = buf
                    board.writes += 1
                    return 0
                if op == 5:
                    return 0
                if op == 6:
                    return ERASE_BLOCK
                return -errno.EINVAL

            @staticmethod
            def umount(path):
                if (board.root / "rom").exists():
                    shutil.rmtree(board.root / "rom")

        return dict(super()._modules(), vfs=Vfs)

    def exec_raw_no_follow(self, command):
        super().exec_raw_no_follow(command)
        self._mount()


def _flash_files(flash: Path) -> set:
    return {p.relative_to(flash).as_posix() for p in flash.rglob("*")
            if p.is_file() and not p.relative_to(flash).as_posix().startswith("rom/")}


def test_a_board_with_romfs_gets_the_modules_in_its_partition(tmp_path, build, capsys):
    flash, ring = _calibrated_board(tmp_path, build)
    cal_before = (flash / "calibration.json").read_bytes()
    board = RomBoard(flash)
    assert dp.main(["--port", "sim", str(build)], open_board=lambda port: board) == 0
    image = (build / ROMFS_IMAGE).read_bytes()
    out = capsys.readouterr().out
    assert "deploy: modules to ROMFS (%d B)" % len(image) in out and "calibration kept" in out
    assert bytes(board.rom[:len(image)]) == image
    # only main.py, ring.json and the board's calibration stay on the filesystem
    assert _flash_files(flash) == {"main.py", "ring.json", "calibration.json"}
    assert not (flash / "ringfw").exists() and not (flash / "lib" / "adafruit_bus_device").exists()
    assert (flash / "calibration.json").read_bytes() == cal_before
    assert (flash / "main.py").read_bytes() == (build / "main.py").read_bytes()
    # after the reset the board sees every module of the build under /rom
    assert board.resets == 1
    for p in (build / "ringfw").glob("*.mpy"):
        assert (flash / "rom" / "ringfw" / p.name).read_bytes() == p.read_bytes()
    assert (flash / "rom" / "adafruit_vl53l0x.mpy").read_bytes() == \
        (build / "lib" / "adafruit_vl53l0x.mpy").read_bytes()


def test_the_firmware_boots_from_the_partition_with_its_bytecode_out_of_the_heap(tmp_path, build):
    """The image as the board holds it, booted in the MicroPython VM from /rom: the modules
    come from the partition and the heap holds their objects and names, not their code."""
    flash, _ = _calibrated_board(tmp_path, build)
    board = RomBoard(flash)
    dp.deploy(board, build, log=lambda *a: None)
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        fwb._stage_heap_tree(d, None, romfs=True)
        (d / fwb.ROMFS_FILE).write_bytes(bytes(board.rom))     # the whole partition
        rom = fwb._boot_in(d, None, calsave=True, romfs=True)
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        fwb._stage_heap_tree(d, None)
        fs = fwb._boot_in(d, None, calsave=True)
    assert rom is not None, "the firmware did not boot (and save a calibration) from /rom"
    live_rom, live_fs = rom[4], fs[4]
    # the tracker alone is about 24 KB of bytecode: measured 43.5 KB against 90.7 KB
    assert live_rom < live_fs - 30_000, (live_rom, live_fs)


def test_a_second_deploy_writes_nothing(tmp_path, build):
    flash, _ = _calibrated_board(tmp_path, build)
    board = RomBoard(flash)
    dp.deploy(board, build, log=lambda *a: None)
    writes = board.writes
    board.exec_raw_no_follow("import machine\nmachine.reset()")
    logs = []
    rep = dp.deploy(board, build, log=logs.append)
    assert board.writes == writes
    assert rep["copied"] == [] and rep["removed"] == [] and rep["romfs"] > 0
    assert any("already holds this firmware" in m for m in logs)


def test_a_board_without_romfs_gets_the_filesystem_and_yes_says_why(tmp_path, build, capsys):
    flash, _ = _calibrated_board(tmp_path, build)
    logs = []
    rep = dp.deploy(SimBoard(flash), build, log=logs.append)     # the stock RPI_PICO build
    assert rep["romfs"] == 0 and (flash / "ringfw" / "tracker.mpy").exists()
    assert any("no ROMFS partition (the stock RPI_PICO build has none)" in m for m in logs)
    before = {p: (flash / p).read_bytes() for p in _flash_files(flash)}
    assert dp.main(["--port", "sim", "--romfs", "yes", str(build)],
                   open_board=lambda port: SimBoard(flash)) == 1
    err = capsys.readouterr().err
    assert "cannot deploy to ROMFS: its MicroPython has no ROMFS partition" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert {p: (flash / p).read_bytes() for p in _flash_files(flash)} == before


def test_a_partition_too_small_for_the_image(tmp_path, build, capsys):
    flash, _ = _calibrated_board(tmp_path, build)
    logs = []
    rep = dp.deploy(RomBoard(flash, rom_bytes=32 * 1024), build, log=logs.append)
    assert rep["romfs"] == 0 and (flash / "ringfw" / "tracker.mpy").exists()
    assert any("ROMFS partition (32768 B) is smaller than the image" in m for m in logs)
    assert dp.main(["--port", "sim", "--romfs", "yes", str(build)],
                   open_board=lambda port: RomBoard(flash, rom_bytes=32 * 1024)) == 1
    assert "is smaller than the image" in capsys.readouterr().err


def test_a_filesystem_deploy_clears_an_older_firmware_in_the_partition(tmp_path, build):
    """/rom comes first on sys.path: an image left there would shadow the copied files."""
    flash, _ = _calibrated_board(tmp_path, build)
    board = RomBoard(flash)
    dp.deploy(board, build, log=lambda *a: None)
    board.exec_raw_no_follow("import machine\nmachine.reset()")
    assert (flash / "rom" / "ringfw").is_dir()
    logs = []
    rep = dp.deploy(board, build, log=logs.append, romfs="no")
    assert "/rom/ringfw/" in rep["removed"] and rep["romfs"] == 0
    assert any("cleared the board's ROMFS partition" in m for m in logs)
    board.exec_raw_no_follow("import machine\nmachine.reset()")
    assert not (flash / "rom" / "ringfw").exists()
    for p in (build / "ringfw").glob("*.mpy"):
        assert (flash / "ringfw" / p.name).read_bytes() == p.read_bytes()


def test_a_partition_that_reads_back_wrong_leaves_the_filesystem_as_it_was(tmp_path, build,
                                                                           capsys):
    flash, _ = _calibrated_board(tmp_path, build)
    before = {p: (flash / p).read_bytes() for p in _flash_files(flash)}
    board = RomBoard(flash, corrupt=True)
    assert dp.main(["--port", "sim", str(build)], open_board=lambda port: board) == 1
    err = capsys.readouterr().err
    assert "does not read back what was written" in err and "Traceback" not in err
    assert {p: (flash / p).read_bytes() for p in _flash_files(flash)} == before
    assert board.resets == 0


def test_the_image_is_the_builds_modules(build):
    image = (build / ROMFS_IMAGE).read_bytes()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        n, i = _uint(image, 3)
        _unpack(image, i, i + n, d)
        got = {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in d.rglob("*") if p.is_file()}
    want = {p.relative_to(build).as_posix().removeprefix("lib/"):
            hashlib.sha256(p.read_bytes()).hexdigest()
            for p in build.rglob("*.mpy")}
    assert got == want and "ringfw/tracker.mpy" in got


@pytest.mark.parametrize("mode", ["maybe", ""])
def test_an_unknown_romfs_mode_is_refused(tmp_path, build, mode):
    with pytest.raises(dp.DeployError, match="--romfs is one of auto, yes, no"):
        dp.deploy(SimBoard(tmp_path), build, romfs=mode)
