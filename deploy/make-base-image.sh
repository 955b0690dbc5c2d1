#!/usr/bin/env bash
# Makes a Node 20 base image locally, for machines that cannot pull one from a registry.
# The image has the layout of the official node:20-bookworm-slim (node, npm and the headers under
# /usr/local, a "node" user with uid 1000), so the Dockerfile builds from either.
#
#   sudo deploy/make-base-image.sh [TAG]        # default TAG: localhost/node:20-bookworm-slim
#
# Needs: debootstrap, podman (or docker), a Debian mirror (DEBIAN_MIRROR), and Node 20 installed
# on this machine under /usr (NodeSource's package) or /usr/local (nodejs.org's tarball): Debian
# bookworm's own nodejs is 18, older than the service needs.
set -euo pipefail

tag="${1:-localhost/node:20-bookworm-slim}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
engine="$(command -v podman || command -v docker)"

node_bin="$(readlink -f "$(command -v node)")"
prefix="$(dirname "$(dirname "$node_bin")")"
major="$("$node_bin" -p 'process.versions.node.split(".")[0]')"
if [ "$major" != 20 ] && [ "$major" != 22 ]; then
  echo "make-base-image: node $("$node_bin" --version) found; 20 or 22 is needed" >&2
  exit 1
fi
for path in "$prefix/lib/node_modules/npm" "$prefix/include/node"; do
  [ -e "$path" ] || { echo "make-base-image: $path is missing" >&2; exit 1; }
done

rootfs="$(mktemp -d /tmp/node-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT

debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror"

install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules" "$rootfs/usr/local/include"
cp -a "$prefix/lib/node_modules/npm" "$rootfs/usr/local/lib/node_modules/"
cp -a "$prefix/include/node" "$rootfs/usr/local/include/"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin

tar -C "$rootfs" --numeric-owner -c . |
  "$engine" import --change 'CMD ["node"]' --change 'ENV NODE_VERSION='"$("$node_bin" -p 'process.versions.node')" - "$tag"
"$engine" run --rm "$tag" node -e 'console.log("base image: node " + process.version)'
