#!/bin/sh
# Runs the Qt UTF-8 codec adapter (qt.py) with a Python that can import PyQt5:
# Debian's python3-pyqt5 is built for /usr/bin/python3, which may not be the python3
# first on PATH. Exits 2 with one line when none can.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for python in python3 /usr/bin/python3; do
    if command -v "$python" >/dev/null 2>&1 && "$python" -c 'import PyQt5.QtCore' 2>/dev/null; then
        exec "$python" "$here/qt.py" "$@"
    fi
done
echo "qt adapter: no python3 can import PyQt5 (apt-get install python3-pyqt5)" >&2
exit 2
