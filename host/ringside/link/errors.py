"""The serial link's one exception type."""
from ringside.errors import RingsideError


class LinkError(RingsideError):
    """The board cannot be reached, refused a command, or speaks another protocol.

    The message is one sentence for the user; `why` holds the board's NACK reason token
    when there was one."""

    def __init__(self, message: str, why: str | None = None):
        super().__init__(message)
        self.why = why
