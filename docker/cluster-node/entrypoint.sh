#!/usr/bin/env bash
# A cluster node's start: make the cgroup hierarchies writable for the node's own engine, start
# the private registry on the manager, then run dockerd in the foreground (cli/testbed/stacks/cluster.py).
#
#   NODE_ROLE=manager|worker     the manager also runs the registry (port 5000)
#   REGISTRY=node-1:5000         where every node's engine pulls the stack's images (plain HTTP:
#                                the cluster's own network; --insecure-registry names it)
#   SOCKET_DIR=/run/testbed      dockerd also listens on $SOCKET_DIR/docker.sock, a directory the
#                                host mounts: the CLI there talks to this node's engine
#
# The node runs without --privileged (refused where CAP_SYS_RESOURCE is missing): it has every
# other capability, no seccomp or AppArmor profile, and its own cgroup namespace, so the
# containers its engine starts sit inside the node's cgroup, under the node's CPU quota.
set -euo pipefail
say() { echo "cluster-node: $*" >&2; }

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  # cgroup v2 (unified): remount writable, move this node's processes into a leaf so that the
  # root may delegate its controllers to the engine's containers (moby's dind script does the same)
  mount -o remount,rw /sys/fs/cgroup 2>/dev/null || true
  mkdir -p /sys/fs/cgroup/init
  while read -r pid; do echo "$pid" > /sys/fs/cgroup/init/cgroup.procs 2>/dev/null || true; done < /sys/fs/cgroup/cgroup.procs
  sed -e 's/ / +/g' -e 's/^/+/' < /sys/fs/cgroup/cgroup.controllers > /sys/fs/cgroup/cgroup.subtree_control
else
  # cgroup v1: Docker mounts each hierarchy read-only in an unprivileged container; mount each
  # again, read-write (in the node's cgroup namespace the mount shows the node's own subtree)
  mount -o remount,rw /sys/fs/cgroup 2>/dev/null || true
  while read -r _ dir type opts _; do
    [ "$type" = cgroup ] || continue
    ctrl=$(tr ',' '\n' <<<"$opts" | grep -Ev '^(ro|rw|nosuid|nodev|noexec|relatime|seclabel)$' | paste -sd, -)
    case "$ctrl" in name=*) ctrl="none,$ctrl" ;; esac     # a named hierarchy without controllers
    umount "$dir" 2>/dev/null || true
    mkdir -p "$dir"
    mount -t cgroup -o "$ctrl" cgroup "$dir" || say "could not mount the cgroup hierarchy $ctrl at $dir"
  done < <(awk '$3 == "cgroup"' /proc/self/mounts)
fi

if [ "${NODE_ROLE:-worker}" = manager ]; then
  mkdir -p /var/lib/docker/registry
  docker-registry serve /etc/docker/registry/config.yml >/var/log/registry.log 2>&1 &
  say "registry listening on :5000 (pid $!)"
fi

# a node started again (fault kill --for, docker start) keeps its volume (images, Swarm state)
# but not its engine's pid files: /run is a tmpfs (cluster.py), and these go in any case
rm -f /var/run/docker.pid /var/run/docker/containerd/containerd.pid
mkdir -p "${SOCKET_DIR:=/run/testbed}"
rm -f "$SOCKET_DIR/docker.sock"
args=(--host unix:///var/run/docker.sock --host "unix://$SOCKET_DIR/docker.sock")
[ -n "${REGISTRY:-}" ] && args+=(--insecure-registry "$REGISTRY")
exec dockerd "${args[@]}" "$@"
