# shellcheck shell=bash
# Sourced by scripts/bootstrap.sh and scripts/lab/up.sh: Debian packages on demand, and the local base image
# built without a registry. Every `docker` call honours DOCKER_HOST, so the lab loads the same image into each
# host's engine. Progress goes to stderr; each function prints what it did on stdout.

BASE_IMAGE=${MESH_BASE_IMAGE:-mesh-local/busybox:latest}
apt_updated=0

apt_install() {
  if [ "$apt_updated" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

base_image() {
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    echo "present"
    return
  fi
  # The lab's hosts reach no registry by design: scripts/lab/up.sh sets MESH_BASE_IMAGE_PULL=0.
  if [ "${MESH_BASE_IMAGE_PULL:-1}" != 0 ] && timeout 20 docker pull -q busybox:stable >/dev/null 2>&1; then
    docker tag busybox:stable "$BASE_IMAGE"
    echo "pulled busybox:stable"
    return
  fi
  if [ ! -x /bin/busybox ] || ! /bin/busybox --list | grep -qx httpd; then
    apt_install busybox-static
  fi
  local root
  root=$(mktemp -d)
  mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/www"
  cp /bin/busybox "$root/bin/busybox"
  chroot "$root" /bin/busybox --install -s /bin
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
  tar -C "$root" -c . | docker import -c 'CMD ["/bin/sh"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$root"
  echo "built from busybox-static (no registry)"
}
