#!/usr/bin/env bash
# Installs what the fuzz build needs on Debian 12 and fetches the gSOAP runtime's source:
#   - clang and libclang-rt-14-dev (libFuzzer, ASan, UBSan runtimes), dpkg-dev (dpkg-source);
#   - Debian's source package of the installed libgsoap-dev (same version, Debian's
#     patches applied), so that run.sh can compile the runtime with instrumentation.
# The source is fetched by apt with a private sources list and private state under the
# destination; the system's apt configuration is not touched.
#
#   services/gsoap/fuzz/install.sh [DEST]      (default DEST: build/fuzz/gsoap-src)
# Afterwards DEST/gsoap/stdsoap2.cpp exists. Needs root or sudo for the packages only.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
dest=${1:-$root/build/fuzz/gsoap-src}

packages=(clang libclang-rt-14-dev dpkg-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "install.sh: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ -f "$dest/gsoap/stdsoap2.cpp" ]; then
  echo "install.sh: gSOAP source already in $dest"
  exit 0
fi
version=$(dpkg-query -W -f='${source:Version}' libgsoap-dev 2>/dev/null) || {
  echo "install.sh: libgsoap-dev is not installed (./testbed build needs it first)" >&2; exit 1; }
. /etc/os-release
apt_dir=$dest.apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/fetch"
echo "deb-src http://deb.debian.org/debian ${VERSION_CODENAME:-bookworm} main" >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
          -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "Debug::NoLocking=1")
echo "install.sh: fetching Debian's source of gsoap $version into $dest" >&2
apt-get "${apt_opts[@]}" -qq update
(cd "$apt_dir/fetch" && apt-get "${apt_opts[@]}" -qq source --download-only "gsoap=$version")
rm -rf "$dest"
# apt checked the files against the archive's signed Sources index; dpkg-source would also
# look for the uploader's key, which is not installed: its gpgv complaint is dropped.
dpkg-source -x "$apt_dir"/fetch/gsoap_*.dsc "$dest" >"$apt_dir/dpkg-source.log" 2>&1 || {
  cat "$apt_dir/dpkg-source.log" >&2; exit 1; }
test -f "$dest/gsoap/stdsoap2.cpp"
cmp -s "$dest/gsoap/stdsoap2.h" /usr/include/stdsoap2.h ||
  echo "install.sh: warning: the fetched stdsoap2.h differs from /usr/include/stdsoap2.h" >&2
echo "install.sh: gSOAP source ready: $dest/gsoap"
