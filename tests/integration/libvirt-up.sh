#!/bin/sh
# libvirt-up.sh - starts what `hugebench run --backend libvirt` needs on this
# machine, as root and without systemd (Debian's libvirt-daemon-system does
# the same with its maintainer scripts and systemd units): the libvirt-qemu
# user, the kvm and libvirt-qemu groups, /dev/kvm as Debian's udev rule
# leaves it, then virtlogd and libvirtd. Does nothing that is already done.
#
# With --ssh DIR it also starts a private sshd on 127.0.0.1 (its own config,
# host key, client key and pid file in DIR; the system's sshd config is not
# touched) so that qemu+ssh:// reaches this libvirtd over a real ssh
# transport: the remote path, for real.
#
# Output: name=value lines
#   uri=qemu:///system
#   ssh_uri=qemu+ssh://root@127.0.0.1:PORT/system?keyfile=DIR/id&no_verify=1
set -eu

ssh_dir=
case "${1:-}" in
--ssh) ssh_dir=${2:?--ssh needs a directory} ;;
"") ;;
*) echo "usage: $0 [--ssh DIR]" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "libvirt-up.sh: run as root (it creates users and starts libvirtd)" >&2
	exit 2
fi
for b in libvirtd virtlogd virsh; do
	command -v $b >/dev/null || PATH=$PATH:/usr/sbin
	command -v $b >/dev/null || { echo "libvirt-up.sh: $b missing; run: make deps" >&2; exit 2; }
done

# The user and groups QEMU runs as (libvirt's compiled-in default on Debian:
# user libvirt-qemu, group libvirt-qemu; Debian adds the user to kvm).
getent group kvm >/dev/null || groupadd -r kvm
getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
if ! id libvirt-qemu >/dev/null 2>&1; then
	useradd -r -g kvm -G libvirt-qemu -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
fi
id -nG libvirt-qemu | grep -qw libvirt-qemu || usermod -a -G libvirt-qemu libvirt-qemu
mkdir -p /var/log/libvirt/qemu /var/lib/libvirt /var/cache/libvirt
# Debian's udev rule makes /dev/kvm root:kvm 0660. Left root-only, libvirt
# finds KVM at its QEMU probe but not for the libvirt-qemu user afterwards,
# calls its capability cache stale and probes QEMU again at every lookup:
# ~50 s per domain start here instead of ~0.5 s.
if [ -c /dev/kvm ] && [ "$(stat -c %G /dev/kvm)" != kvm ]; then
	chgrp kvm /dev/kvm
	chmod 0660 /dev/kvm
fi

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
alive /run/virtlogd.pid || virtlogd -d
alive /run/libvirtd.pid || libvirtd -d
i=0
until virsh -c qemu:///system version >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 60 ]; then
		echo "libvirt-up.sh: libvirtd does not answer on qemu:///system; see /var/log/libvirt/libvirtd.log" >&2
		exit 3
	fi
	sleep 0.5
done
echo "uri=qemu:///system"
[ -n "$ssh_dir" ] || exit 0

command -v sshd >/dev/null || { echo "libvirt-up.sh: sshd missing; run: apt-get install -y openssh-server" >&2; exit 2; }
mkdir -p "$ssh_dir" /run/sshd
chmod 700 "$ssh_dir"
[ -f "$ssh_dir/host_key" ] || ssh-keygen -q -t ed25519 -N "" -f "$ssh_dir/host_key"
[ -f "$ssh_dir/id" ] || ssh-keygen -q -t ed25519 -N "" -f "$ssh_dir/id"
cp "$ssh_dir/id.pub" "$ssh_dir/authorized_keys"
if ! alive "$ssh_dir/sshd.pid"; then
	port=22220
	while :; do
		cat >"$ssh_dir/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $ssh_dir/host_key
PidFile $ssh_dir/sshd.pid
AuthorizedKeysFile $ssh_dir/authorized_keys
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
EOF
		rm -f "$ssh_dir/sshd.pid"
		"$(command -v sshd)" -f "$ssh_dir/sshd_config" -E "$ssh_dir/sshd.log" || true
		sleep 0.5
		alive "$ssh_dir/sshd.pid" && break
		port=$((port + 1))
		if [ $port -gt 22240 ]; then
			echo "libvirt-up.sh: sshd would not start on 127.0.0.1:22220-22240; see $ssh_dir/sshd.log" >&2
			exit 3
		fi
	done
	echo "$port" >"$ssh_dir/port"
fi
ssh_uri="qemu+ssh://root@127.0.0.1:$(cat "$ssh_dir/port")/system?keyfile=$ssh_dir/id&no_verify=1"
if ! virsh -c "$ssh_uri" version >/dev/null 2>&1; then
	echo "libvirt-up.sh: no libvirt over $ssh_uri; see $ssh_dir/sshd.log" >&2
	exit 3
fi
echo "ssh_uri=$ssh_uri"
