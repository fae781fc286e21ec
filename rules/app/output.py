"""Writing a report file (``--output``) so that no reader ever sees half of one.

The text goes to a temporary file in the same directory, is flushed to disk and then renamed over the
destination (``os.replace``: atomic on POSIX and Windows). Two runs writing the same path at once leave
one whole report, never a mixture or a truncated file, and a run that fails half-way leaves the previous
report as it was. The new file gets the mode the old one had (else the umask's default, as ``open`` would).

A destination that exists and is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO another program
reads) is written in place: renaming over it would replace the device or the pipe; a FIFO that no process reads
is an error at once, not a wait without end (fuzz15). A symbolic link is
followed, so the file it names is replaced and the link stays.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _open_in_place(target: str, mode: int) -> int:
    """A descriptor to write ``target`` (no regular file) in place. A FIFO is opened without waiting: a FIFO no
    process reads held the run in ``open`` for ever (fuzz15), so it is :class:`OSError` ``ENXIO`` naming it; one a
    process reads (``-o >(gzip > r.gz)``, a FIFO a reader waits on) is then written as a blocking pipe."""
    if not stat.S_ISFIFO(mode):
        return os.open(target, os.O_WRONLY | os.O_TRUNC | os.O_CREAT, 0o666)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as e:
        if e.errno != errno.ENXIO:
            raise
        raise OSError(errno.ENXIO, "it is a FIFO (named pipe) that no process reads, so the report would wait for "
                      "ever; start its reader first, or write a regular file", target) from None
    os.set_blocking(fd, True)
    return fd


def write_atomically(path: str, text: str | bytes) -> None:
    """Write ``text`` (UTF-8; or bytes, its UTF-8 already: :func:`..report.formats.utf8_bytes`) to ``path`` as
    described above; :class:`OSError` when it cannot be written, naming ``path`` (hostile9: a missing folder's error
    named the temporary file, ``nowhere/.r.json.x1y2.tmp``)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    if os.linesep != "\n":  # what a file opened as text writes for each line break
        data = data.replace(b"\n", os.linesep.encode("ascii"))
    try:
        _write_atomically(path, data)
    except OSError as e:
        if e.filename is None or e.filename == path:
            raise
        raise OSError(e.errno, e.strerror or str(e), path) from None


def _write_atomically(path: str, data: bytes) -> None:
    target = os.path.realpath(path) if os.path.islink(path) else path
    try:
        # the path itself, links followed by the kernel: /dev/stdout or /dev/fd/63 (``-o >(…)``) that is a pipe
        # links to ``pipe:[N]``, a name realpath cannot open (exit 2, "No such file or directory": fuzz15)
        st = os.stat(path)
    except FileNotFoundError:
        mode = _default_mode()
    else:
        if not stat.S_ISREG(st.st_mode):
            with os.fdopen(_open_in_place(path, st.st_mode), "wb") as fh:
                fh.write(data)
            return
        mode = stat.S_IMODE(st.st_mode)
    directory = os.path.dirname(target) or "."
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
