"""Ringside host companion: serial link, ring simulator, game engines, terminal app."""
__version__ = "0.1.0"
