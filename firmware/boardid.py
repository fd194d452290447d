"""Which board this is, as gpiozero will see it: said once in the journal, and on the page when it is not a Pi.

gpiozero's pin factory (lgpio on Bookworm) builds the board's pins from the Raspberry Pi's revision code. The
Pi's firmware puts that code into the device tree it hands the kernel (``/system/linux,revision``, four bytes,
big-endian), and Raspberry Pi OS's kernel also prints it in ``/proc/cpuinfo`` (``Revision``). Debian's kernel
does not print it, so on our image the device tree is the one place. When neither says, gpiozero only lists the
factories it fell back from ("unable to locate Pi revision ...") and ends with ``BadPinFactory``: nothing there
tells a board owner that the buttons are off because the board could not be identified. :func:`identify` reads
the same places and :func:`buttons_fault` words the fault (docs/operation.md, "The buttons do nothing").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REVISION = "proc/device-tree/system/linux,revision"
MODEL = "proc/device-tree/model"
CPUINFO = "proc/cpuinfo"


@dataclass(frozen=True)
class Board:
    model: str | None
    """The device tree's model ("Raspberry Pi 3 Model B Rev 1.2"; "linux,dummy-virt" in qemu's virt machine)."""
    revision: int | None
    """The Pi's revision code (0xa02082 is a Pi 3 Model B made by Sony UK), or None when nothing says it."""
    source: str | None = None
    """Where the revision was read (``/proc/device-tree/...`` or ``/proc/cpuinfo``)."""

    def describe(self) -> str:
        model = self.model or "no model in the device tree"
        if self.revision is None:
            return (f"not identified as a Raspberry Pi: no revision code in /{REVISION} or /{CPUINFO} "
                    f"(model: {model})")
        return f"{model}, revision {self.revision:06x} (from {self.source})"


def identify(root: Path | str = "/") -> Board:
    """Read the board's model and revision code under ``root`` (``/`` on the board; a folder in tests)."""
    root = Path(root)
    model = None
    try:
        model = (root / MODEL).read_bytes().rstrip(b"\0").decode("utf-8", "replace").strip() or None
    except OSError:
        pass
    try:
        raw = (root / REVISION).read_bytes()
        if len(raw) == 4:
            return Board(model, int.from_bytes(raw, "big"), "/" + REVISION)
    except OSError:
        pass
    try:
        for line in (root / CPUINFO).read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Revision" and value.strip():
                return Board(model, int(value.strip(), 16), "/" + CPUINFO)
    except (OSError, ValueError):
        pass
    return Board(model, None)


def buttons_fault(exc: BaseException, board: Board | None) -> str:
    """The page's and journal's words for buttons that could not be built (always starts ``buttons: ``).

    ``board`` is None when the pins were not gpiozero's own choice (a test's ``MockFactory``)."""
    said = f"{type(exc).__name__}: {exc}"
    if board is None:
        return f"buttons: {said}"
    if board.revision is None:
        return f"buttons: off, this board is {board.describe()}, so gpiozero has no pins for them ({said})"
    return f"buttons: {said} (board: {board.describe()})"
