# Ringside: `make run` (simulated ring, no hardware) and `make test` (the whole suite).
PY      ?= python3
VENV    ?= .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
PORT    ?= /dev/ttyACM0
# make deploy: the modules to the board's ROMFS partition when it has one (auto), always (yes), never (no)
ROMFS   ?= auto

.PHONY: run run-ring test venv firmware deploy docs bench bench-suite clean

$(STAMP): requirements.txt requirements-board.txt requirements-stubs.txt pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.txt
	$(VPY) -m pip install --quiet --no-deps -r requirements-board.txt
	$(VPY) -m pip install --quiet --no-deps -e .
	$(VPY) -m pip install --quiet --no-deps --upgrade --target $(VENV)/mpstubs -r requirements-stubs.txt
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/ringside serve --game darts --players You --bots Cy:good --sim

run-ring: $(STAMP)
	$(VENV)/bin/ringside play-ring

test: $(STAMP)
	$(VPY) -m pytest

firmware: $(STAMP)
	$(VPY) -m ringside.app.build_firmware build/firmware

# the generated blocks of hardware/README.md (ring.json, bom.csv) and docs/board.md (the build)
docs: $(STAMP)
	$(VPY) hardware/tools/draw_layout.py
	$(VPY) -m ringside.app.build_firmware --docs

# release: a board running the app hands its port to the REPL (a board already at the REPL
# says so and passes); if it fails, make stops here with its reason. The deploy keeps the
# board's calibration.json (docs/board.md "Updating the firmware").
deploy: firmware
	$(VENV)/bin/ringside release --port $(PORT)
	$(VPY) -m ringside.app.deploy --port $(PORT) --romfs $(ROMFS) build/firmware

bench: $(STAMP)
	$(VENV)/bin/ringside bench ring --flicks 2000 --seed 1 --json
	$(VENV)/bin/ringside bench ring --flicks 2000 --seed 1 --tilt 1.0 --json
	$(VENV)/bin/ringside bench firmware --json

# every measurement README's table publishes (about 95 min on 2 cores; resumable: run it again
# after an interruption and it goes on where it stopped). Its files are in bench-suite/.
bench-suite: $(STAMP)
	$(VENV)/bin/ringside bench suite --out bench-suite --jobs 2 --progress

clean:
	rm -rf build $(VENV)
