"""Reading a file the run was asked to read: a regular file, never more than :data:`MAX_FILE_BYTES`.

Every file shardwise reads from a repository goes through :func:`read_file_bytes` (manifests, stack
files, the ignore file, the configuration file, a model's ``config.json``), so no file can hang the
run or grow its memory without bound:

- the file is opened without blocking (``O_NONBLOCK``: a FIFO with no writer does not wait for one) and
  checked with ``fstat`` on the descriptor opened (no race between a check and the open): a FIFO, a
  device (``/dev/zero``), a socket or a directory is an input error with its path, never read;
- at most ``limit + 1`` bytes are read: a larger file is an input error naming the limit.

:func:`inside` says whether a path, its symbolic links followed, stays inside a directory: what a
repository names (a symbolic link met while searching a folder, a path in an annotation) is read only
there, unless the user names it on the command line.
"""

from __future__ import annotations

import errno
import os
import stat

from .errors import InputError

#: The most bytes read from one file: 32 MiB, twice the largest ``pulumi stack export`` the project has
#: met, several hundred times a large manifest. A larger file is an input error, and is not read.
MAX_FILE_BYTES = 32 * 1024 * 1024

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def _what(mode: int) -> str:
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def _why_not_opened(path: str, e: OSError) -> str:
    """Why ``open`` failed, in the input's terms: a socket refuses to be opened (``ENXIO``, "No such device or
    address"), a link names a file that does not exist or a loop of links (``ENOENT``/``ELOOP`` on the link)."""
    try:
        if e.errno == errno.ENXIO:
            mode = os.stat(path).st_mode
            if not stat.S_ISREG(mode):
                return f"it is {_what(mode)}, not a regular file; shardwise reads only regular files"
        if e.errno == errno.ELOOP:
            return "a loop of symbolic links (each names another, and none a file)"
        if e.errno == errno.ENOENT and os.path.islink(path):
            return f"a symbolic link to {os.readlink(path)}, which does not exist"
    except OSError:
        pass
    return str(e.strerror or e)


def size_text(limit: int) -> str:
    """``32 MiB`` for a whole number of MiB, else the bytes."""
    return f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit:,} bytes"


def read_file_bytes(path: str, name: str | None = None, limit: int = MAX_FILE_BYTES, *, head: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (errors name ``name``, default the path), or :class:`InputError`:
    the file cannot be opened, is not a regular file (a FIFO, a device, a socket, a directory), or holds more
    than ``limit`` bytes. With ``head``, its first ``limit`` bytes, however long it is (a program source looked at
    for a vLLM mention, :mod:`..adapters.programs`)."""
    name = path if name is None else name
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise InputError(f"cannot read: {_why_not_opened(path, e)}", name) from None
    try:
        st = os.fstat(fd)
        mode = st.st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"cannot read: it is {_what(mode)}, not a regular file; shardwise reads only regular "
                             "files", name)
        chunks: list[bytes] = []
        left = limit if head else limit + 1
        # the first read asks for the size fstat gave and one byte more, the next (which finds the end) for what is
        # left of that: os.read makes a buffer of the size asked for, and a 1 MiB one for each of a manifest's two
        # reads was most of their cost. A file that grew since is read on in 1 MiB reads, as before
        want = st.st_size + 1
        while left > 0:
            chunk = os.read(fd, min(left, want if want > 0 else 1 << 20))
            want -= len(chunk)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", name) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise InputError(f"not read: the file is larger than {size_text(limit)}, the most shardwise reads from "
                         "one file", name)
    return data


def read_stream_bytes(stream: object, name: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """At most ``limit`` bytes of an open binary stream (stdin), or :class:`InputError` when it holds more."""
    data: bytes = stream.read(limit + 1)  # type: ignore[attr-defined]
    if len(data) > limit:
        raise InputError(f"not read: the input is larger than {size_text(limit)}, the most shardwise reads from "
                         "one file", name)
    return data


def link_target(path: str) -> str:
    """A symbolic link's target as the link writes it (what git stores, so the same in every checkout), for a
    message: never the path it resolves to, which is the checkout's own absolute path (mend21)."""
    try:
        return os.readlink(path)
    except OSError:  # gone, or no longer a link, since it was met
        return "?"


def inside(path: str, directory: str) -> bool:
    """Whether ``path``, every symbolic link in it followed, is ``directory`` (links followed too) or below it."""
    real = os.path.realpath(path)
    top = os.path.realpath(directory)
    try:
        return os.path.commonpath([real, top]) == top
    except ValueError:  # different drives
        return False
