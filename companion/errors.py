"""Errors raised by the rules core and the table.

Every refusal is a :class:`RulesError` (a ``ValueError``) carrying one human
sentence, and in :attr:`RulesError.data` what a program needs from it as fields
(``undo_to``: the event to undo back to, from which on every live entry is undone,
when the refusal says a card went to the wrong player or a go was false; ``false_go``: that go's event and
player, ``{"seq", "player"}``; ``amend``: the amend command that fixes it;
``meanwhile``: what a late command missed; ``entry``: the entry an amend no longer fits); ``web/`` maps them to
HTTP 400 with the fields beside ``error``, the CLI to one line on stderr.
"""


class RulesError(ValueError):
    """A command or input the rules refuse; nothing was changed.

    >>> e = RulesError("no", undo_to=7, other=None)
    >>> str(e), e.data
    ('no', {'undo_to': 7})
    """

    def __init__(self, message: str = "", **data) -> None:
        super().__init__(message)
        self.data = {k: v for k, v in data.items() if v is not None}

    def __reduce__(self):
        return (_rebuild, (type(self), str(self), self.data))


def _rebuild(cls, message: str, data: dict) -> "RulesError":
    return cls(message, **data)


class InvalidCard(RulesError):
    """A token that is not a card, or a duplicate card in one hand."""


class IllegalAction(RulesError):
    """A well-formed command that the game's state or rules do not allow."""


class NotAllowed(IllegalAction):
    """A request the table's house rules do not allow (live advice during a hand with ``live_advice``
    off: table talk); ``web/`` answers it 403."""


class StaleCommand(IllegalAction):
    """A command made from an older state than the table's (``if_seq``): it is never applied to a state
    its sender did not see."""


class UnknownGame(RulesError):
    """A preset name or ruleset option that does not exist or is out of range."""


class ConflictError(RulesError):
    """A lost race in the event store: the sequence number was taken."""


class StoreError(RuntimeError):
    """The event store cannot be used: a damaged or locked database file, a damaged event.

    Not a :class:`RulesError`: the command may be fine, the table's memory is not.
    The message names the database file and what is wrong with it.
    """
