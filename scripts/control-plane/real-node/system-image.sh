#!/usr/bin/env bash
# The root filesystem of a system container shaped like Manager's base image, from Debian's
# packages: minbase plus systemd as /sbin/init, sshd, iproute2, procps and dbus.
#
#   system-image.sh <suite> <output.tar>     # suite: bookworm or trixie
#
# No host key is baked in: each container makes its own at first boot (so two containers of
# the image never share one), into /etc/ssh, which a pet persists. The root's authorized key
# is not here either: the real node adds it as a layer of its own at every start.
# images.ts keys its cache by a hash of this file: any change here is a rebuild.
set -euo pipefail

suite=$1
output=$2
mirror=${KUBE_PROVISIONER_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# One customize hook, run with the new root as $1 after every package is in.
customize=$(
  cat <<'HOOK'
set -eu
root=$1
rm -f "$root"/etc/ssh/ssh_host_*
# Keys at first boot, before sshd checks its configuration (Debian makes them at install time).
mkdir -p "$root/etc/systemd/system/ssh.service.d"
cat > "$root/etc/systemd/system/ssh.service.d/host-keys.conf" <<'UNIT'
[Service]
ExecStartPre=
ExecStartPre=/usr/bin/ssh-keygen -A
ExecStartPre=/usr/sbin/sshd -t
UNIT
# The container's environment (PID 1's: what Kubernetes passed) for login shells, through
# pam_env. Only root reads the file; each session still gets the values.
cat > "$root/etc/systemd/system/container-environment.service" <<'UNIT'
[Unit]
Description=Container environment into /etc/environment
DefaultDependencies=no
Before=sysinit.target

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'umask 077; tr "\\000" "\\n" < /proc/1/environ | grep -Ev "^(HOME|PWD|SHLVL|TERM|_)=" > /etc/environment.new; mv /etc/environment.new /etc/environment'

[Install]
WantedBy=sysinit.target
UNIT
mkdir -p "$root/etc/systemd/system/sysinit.target.wants"
ln -sf ../container-environment.service "$root/etc/systemd/system/sysinit.target.wants/container-environment.service"
# Writing the audit login uid needs CAP_AUDIT_CONTROL, which a container does not have.
sed -i -E 's/^session\s+required\s+pam_loginuid\.so/session optional pam_loginuid.so/' "$root/etc/pam.d/sshd"
# Empty: systemd makes a machine id at boot and commits it to /etc (no first-boot presets).
: > "$root/etc/machine-id"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/*.log
HOOK
)

mmdebstrap --quiet --variant=minbase \
  --include=systemd,systemd-sysv,openssh-server,iproute2,procps,dbus \
  --customize-hook="$customize" \
  "$suite" "$output" "$mirror"
