#!/usr/bin/env bash
# A Docker engine and the Compose v2 plugin on a Debian 12 (or Ubuntu >= 24.04) machine that has
# the Debian archive and the Go module proxy but no container registry -- a CI machine, a lab
# host behind a proxy -- and then the one base image every Dockerfile of the testbed starts FROM.
#
#   sudo docker/engine.sh                 # each step skipped when already done; ~3-5 min fresh
#   sudo docker/engine.sh --no-base-image # the engine and compose only
#
# Steps:
#   1. Debian's engine: apt-get install docker.io (dockerd, containerd, runc, the docker CLI).
#   2. dockerd started in the background when none answers (log: $DOCKERD_LOG), for machines
#      without systemd (containers, CI runners); with systemd, `systemctl start docker` is tried first.
#   3. the `docker compose` verb: Debian 12 packages no Compose v2, so the plugin is built from
#      its source with `go install` (needs Go >= 1.21 and the Go module proxy) at COMPOSE_VERSION.
#   4. debian:bookworm-slim: pulled if a registry answers, else built by docker/base-image.sh
#      (debootstrap from the Debian archive, the host's added CA certificates trusted inside).
# Containers live on private networks that compose makes: they are this machine's own test hosts.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COMPOSE_VERSION=${COMPOSE_VERSION:-v2.29.7}
BASE_IMAGE=${BASE_IMAGE:-debian:bookworm-slim}
DOCKERD_LOG=${DOCKERD_LOG:-/var/log/testbed-dockerd.log}

base_image=1
for arg in "$@"; do
  case "$arg" in
    --no-base-image) base_image=0 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--no-base-image]" >&2; exit 2 ;;
  esac
done

say() { echo "engine: $*"; }
die() { echo "engine: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (it installs packages and starts dockerd): sudo $0 $*"
export DEBIAN_FRONTEND=noninteractive

# 1. the engine (and debootstrap, which the base image needs)
need=()
command -v dockerd >/dev/null || need+=(docker.io)
[ "$base_image" = 0 ] || command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]} with apt-get ..."
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${need[@]}" >/dev/null
fi

# 2. a running daemon
if ! docker info >/dev/null 2>&1; then
  if [ -d /run/systemd/system ] && systemctl start docker >/dev/null 2>&1; then
    say "dockerd started by systemd"
  else
    say "starting dockerd in the background (log: $DOCKERD_LOG)"
    nohup dockerd >"$DOCKERD_LOG" 2>&1 &
  fi
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -n 20 "$DOCKERD_LOG" >&2 || true; die "dockerd did not answer within 60 s"; }
fi

# 3. the compose plugin
if ! docker compose version >/dev/null 2>&1; then
  command -v go >/dev/null || die "go not found: Compose v2 is built with go install (apt-get install -y golang-go, Go >= 1.21)"
  plugins=${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins
  build=$(mktemp -d)
  trap 'rm -rf "$build"' EXIT
  say "building the Compose plugin $COMPOSE_VERSION with go install (a few minutes) ..."
  GOBIN=$build GOFLAGS=-mod=mod go install \
    -ldflags "-X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
    "github.com/docker/compose/v2/cmd@$COMPOSE_VERSION"
  install -D -m 0755 "$build/cmd" "$plugins/docker-compose"
fi
say "$(docker compose version)"

# 4. the base image
if [ "$base_image" = 1 ] && ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  if docker pull -q "$BASE_IMAGE" >/dev/null 2>&1; then
    say "pulled $BASE_IMAGE"
  else
    say "no registry answers for $BASE_IMAGE: building it from the Debian archive"
    BASE_IMAGE=$BASE_IMAGE bash "$here/base-image.sh"
  fi
fi
say "ready: $(docker version --format 'engine {{.Server.Version}}, API {{.Server.APIVersion}}')"
