"""Which inputs are shell scripts (:mod:`.shell` reads their here-documents): the cheap test every read file and
every searched folder's files go through, kept apart so that a run without scripts never imports the reader."""

from __future__ import annotations

import os
import re
import stat

#: Names a user expects to be shell scripts; a file without a suffix is one when its first line is a sh/bash shebang.
SHELL_SUFFIXES = (".sh", ".bash")
_SHEBANG = re.compile(r"#![ \t]*(?:/usr)?(?:/local)?/bin/(?:env[ \t]+(?:-\S+[ \t]+)*)?(?:ba|da|k|z)?sh(?=\s|$)")


def is_shell_name(path: str) -> bool:
    return path.endswith(SHELL_SUFFIXES)


def has_shell_shebang(text: str) -> bool:
    """Whether ``text`` (a file's first bytes, decoded) starts with a sh/bash shebang."""
    return _SHEBANG.match(text) is not None


def shebang_file(path: str) -> bool:
    """Whether ``path``, a regular file without a suffix, starts with a sh/bash shebang: its first 128 bytes
    are read, without blocking (a FIFO or a device is never opened for reading)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        head = os.read(fd, 128)
    except OSError:
        return False
    finally:
        os.close(fd)
    return has_shell_shebang(head.decode("utf-8", "replace"))


def is_script(path: str, text: str) -> bool:
    """Whether a file read as an input is a shell script: its name says so, or (not a YAML or JSON name) its
    shebang does."""
    if is_shell_name(path):
        return True
    return not path.endswith((".yaml", ".yml", ".json")) and has_shell_shebang(text)
