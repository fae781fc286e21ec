#!/usr/bin/env bash
# make setup's editable install as a plain path entry instead of setuptools' finder hook.
#
#   scripts/editable-path.sh PYTHON    rewrite the editable install of shardwise in PYTHON's environment
#
# pyproject.toml maps rules/ and components/ into the package (shardwise.rules, shardwise.components), which no
# path entry can say, so `pip install -e` writes a .pth that imports setuptools' finder module at every start of the
# environment's interpreter: it imports pathlib, urllib.parse, ipaddress, importlib.util and more, about 49M
# instructions (0.01 s) before any command runs, `python -c pass` included (lintspeed30). Here that .pth names a
# folder in the environment that holds one link, shardwise -> this checkout's shardwise/, and shardwise/__init__.py
# adds the checkout's root to the package's path, so shardwise.rules and shardwise.components are this checkout's
# rules/ and components/ as before (same files, same __file__). pip still knows the install as editable (its
# dist-info is untouched; `pip uninstall shardwise` removes the .pth). Without an editable install it does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-python3}"
site=$("$python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
prefix=$("$python" -c "import sys; print(sys.prefix)")
shopt -s nullglob
pths=("$site"/__editable__.shardwise-*.pth)
if [ "${#pths[@]}" -ne 1 ]; then
    echo "editable-path: no editable install of shardwise in $site; left as it is" >&2
    exit 0
fi
mkdir -p "$prefix/checkout"
ln -sfn "$PWD/shardwise" "$prefix/checkout/shardwise"
printf '%s\n' "$prefix/checkout" > "${pths[0]}"
