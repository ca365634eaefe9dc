#!/usr/bin/env bash
# Builds the --lib shims for GLib, GNU libunistring and utf8proc into DIR (default
# target/c-lib), each a shared library exporting the function of include/utf8conf.h.
# Needs a C compiler, pkg-config and the -dev packages (.ci/c-lib.sh installs them on
# Debian/Ubuntu: libglib2.0-dev libunistring-dev libutf8proc-dev). Takes a few seconds.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/c-lib}"
mkdir -p "$out"
cc="${CC:-cc}"
flags=(-O2 -fPIC -shared -Wall -Wextra -Werror -I"$root/include")
"$cc" "${flags[@]}" $(pkg-config --cflags glib-2.0) "$here/glib.c" -o "$out/libutf8conf-glib.so" $(pkg-config --libs glib-2.0)
"$cc" "${flags[@]}" "$here/unistring.c" -o "$out/libutf8conf-unistring.so" -lunistring
"$cc" "${flags[@]}" $(pkg-config --cflags libutf8proc) "$here/utf8proc.c" -o "$out/libutf8conf-utf8proc.so" $(pkg-config --libs libutf8proc)
echo "built: $out/libutf8conf-glib.so (glib_decode), $out/libutf8conf-unistring.so (unistring_decode), $out/libutf8conf-utf8proc.so (utf8proc_decode)"
