"""The table page: `ringside serve` (docs/web.md).

    server.py   the Starlette app: pages, the lobby's API, the WebSocket, tokens and origins
    hub.py      one game at one table (a Room): its worker thread, its screens, its updates
    tokens.py   pairing tokens (the table's and each seat's) and their QR codes
    lobby.py    what the lobby offers: games, levels, saves, boards and their health
    leds.py     the LED mirror: the pixels the ring shows, from the table's own LED frame
    rules.py    the rulebook text a game declares (Game.rulebook)
    static/     the page itself (no build step, no CDN)
"""
