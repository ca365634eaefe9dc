# Sourced by the CI scripts that need Debian packages: `apt_install PACKAGE...` installs
# them with apt-get (through sudo when not root), saying which on stdout.
apt_install() {
  printf '\n=== installing %s\n' "$*"
  local as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "$@" >/dev/null
}
