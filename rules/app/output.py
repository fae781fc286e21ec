"""Writing a report file (``--output``) so that no reader ever sees half of one.

The text goes to a temporary file in the same directory, is flushed to disk and then renamed over the
destination (``os.replace``: atomic on POSIX and Windows). Two runs writing the same path at once leave
one whole report, never a mixture or a truncated file, and a run that fails half-way leaves the previous
report as it was. The new file gets the mode the old one had (else the umask's default, as ``open`` would).

A destination that exists and is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO another program
reads) is written in place: renaming over it would replace the device or the pipe. A symbolic link is
followed, so the file it names is replaced and the link stays.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` as described above; :class:`OSError` when it cannot be written, naming
    ``path`` (hostile9: a missing folder's error named the temporary file, ``nowhere/.r.json.x1y2.tmp``)."""
    try:
        _write_atomically(path, text)
    except OSError as e:
        if e.filename is None or e.filename == path:
            raise
        raise OSError(e.errno, e.strerror or str(e), path) from None


def _write_atomically(path: str, text: str) -> None:
    target = os.path.realpath(path) if os.path.islink(path) else path
    try:
        st = os.stat(target)
    except FileNotFoundError:
        mode = _default_mode()
    else:
        if not stat.S_ISREG(st.st_mode):
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text)
            return
        mode = stat.S_IMODE(st.st_mode)
    directory = os.path.dirname(target) or "."
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
