"""The typed error every engine raises for a move it refuses; the state is left as it was."""


class IllegalAction(Exception):
    """`code` is stable and machine-readable; `message` is English, for logs and programs."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message
