"""Ringside board boot: MicroPython runs this file after boot.py. The work is done in
ringfw/boot.py, which is compiled to .mpy with the rest of the firmware."""
try:
    from ringfw.boot import main
except ImportError as e:   # a half-done copy: say so, and leave the REPL to mpremote
    print("ringside: the firmware is incomplete (%s): run `make deploy` again" % e)
else:
    main()
