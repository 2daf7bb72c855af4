#!/usr/bin/env bash
# Build debian:bookworm-slim -- the one base image every Dockerfile of the testbed starts
# FROM -- on a host that cannot pull it (air-gapped, or no container registry reachable):
# debootstrap a minimal Debian 12 from a Debian mirror, trim it the way the official slim
# image is trimmed, trust the host's locally added CA certificates inside (so apt, pip and
# Maven in the builds get through a TLS-inspecting proxy), and `docker import` it.
#
#   sudo docker/base-image.sh              # does nothing if the image is already there
#   sudo docker/base-image.sh --force      # rebuild and replace it
#   sudo MIRROR=http://mirror.local/debian docker/base-image.sh
#
# Needs root and a running Docker engine; installs debootstrap with apt-get when it is missing.
# Builds for this machine's architecture (amd64, arm64, ...). About 2 minutes.
set -euo pipefail
IMAGE=${BASE_IMAGE:-debian:bookworm-slim}
SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
CA_DIR=/usr/local/share/ca-certificates       # where local CA certificates are added

force=0
case "${1:-}" in
  --force) force=1 ;;
  "") ;;
  *) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

die() { echo "base-image: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (debootstrap and chroot need it): sudo $0 $*"
if ! command -v debootstrap >/dev/null; then
  command -v apt-get >/dev/null || die "debootstrap missing: install it with your package manager"
  echo "base-image: installing debootstrap with apt-get ..."
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq debootstrap >/dev/null 2>&1 \
    || { apt-get -o DPkg::Lock::Timeout=300 update -qq && \
         DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq debootstrap >/dev/null; } \
    || die "debootstrap missing and apt-get could not install it: apt-get install -y debootstrap"
fi
docker info >/dev/null 2>&1 || die "no Docker engine answers (docker info)"
if [ "$force" = 0 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "base-image: $IMAGE already exists (--force rebuilds it)"
  exit 0
fi

rootfs=$(mktemp -d)
trap 'rm -rf "$rootfs"' EXIT
arch=$(dpkg --print-architecture)
echo "base-image: debootstrap $SUITE ($arch) from $MIRROR ..."
debootstrap --variant=minbase --arch="$arch" --include=ca-certificates "$SUITE" "$rootfs" "$MIRROR" \
  >"$rootfs.log" 2>&1 || { tail -20 "$rootfs.log"; die "debootstrap failed (log: $rootfs.log)"; }
rm -f "$rootfs.log"

# Trim like the official slim image (debuerreotype's minimizing config): no docs, man
# pages or translations from later installs; apt keeps no package caches or .debs;
# services are never started by package scripts inside a build.
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
CFG
cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CFG
echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod +x "$rootfs/usr/sbin/policy-rc.d"
find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$rootfs"/usr/share/{man,info,locale,groff,lintian,linda}/* \
       "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
       "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* "$rootfs"/tmp/*

# The host's locally added CA certificates, trusted inside like on the host.
added=0
if [ -d "$CA_DIR" ]; then
  while IFS= read -r -d '' crt; do
    install -D -m 0644 "$crt" "$rootfs$CA_DIR/${crt#"$CA_DIR"/}"
    added=$((added + 1))
  done < <(find "$CA_DIR" -name '*.crt' -print0)
fi
chroot "$rootfs" update-ca-certificates >/dev/null 2>&1 || die "update-ca-certificates failed inside the image"
echo "base-image: $added local CA certificate(s) trusted"

tar --numeric-owner -C "$rootfs" -c . | docker import --change 'CMD ["bash"]' - "$IMAGE" >/dev/null
docker image inspect --format "base-image: {{index .RepoTags 0}} {{.Architecture}} {{.Size}} bytes" "$IMAGE"
