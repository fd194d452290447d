"""The value methods of a frozen, keyword-only record that writes its own ``__init__``.

The stored events (:class:`companion.events.Event`) and the board's settings
(``firmware.config.Record``: the config classes, the palette, the voice's settings) are
dataclasses for their fields, but each writes its ``__init__`` once for all its kinds
instead of letting the dataclass machinery compile six functions per class at import
(issue 25's start-up, bench/README.md). :class:`Frozen` is the rest of what the generated
ones did, written once for both: compared and hashed by the values of every field, a
dataclass's ``repr``, and frozen (assignment and deletion refused; an ``__init__`` sets
its fields through ``object.__setattr__`` or the instance's ``__dict__``).
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields
from typing import Any

__all__ = ["Frozen"]


class Frozen:
    """Equality, hash, ``repr`` and refusal of assignment for a frozen dataclass with its own ``__init__``."""

    __slots__ = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, f.name) for f in fields(self))      # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(" + ", ".join(f"{f.name}={getattr(self, f.name)!r}"
                                                        for f in fields(self)) + ")"      # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()      # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
