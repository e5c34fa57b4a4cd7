#!/bin/sh
# libvirt-up.sh - starts what the libvirt tests need on this machine, as
# root and without systemd (production hosts use the packaged service,
# docs/libvirt.md): the libvirt-qemu user, the kvm and libvirt-qemu groups,
# /dev/kvm as Debian's udev rule leaves it, then virtlogd and libvirtd.
# Nothing that is already there or running is touched.
#
#   libvirt-up.sh [DIR [--owner PID]]
#
# With DIR it also starts:
#  - a private sshd on 127.0.0.1:22220+ (its own config, host key, client
#    key and pid file in DIR; the system's sshd is not touched), so that
#    qemu+ssh:// reaches this libvirtd over a real ssh transport;
#  - a second, independent libvirt host ("host2"): virtlogd, libvirtd and an
#    sshd of its own in a mount namespace of their own, where /run/libvirt,
#    /var/lib/libvirt, /var/cache/libvirt, /var/log/libvirt and /etc/libvirt
#    are folders under DIR/host2: its own sockets, domains, storage pool,
#    capability cache, logs and configuration. It shares the network
#    namespace (its sshd listens on 127.0.0.1:22241+) and the kernel.
# Everything it starts is recorded in DIR/started, and
# tests/integration/libvirt-down.sh DIR stops exactly that (and gives
# /dev/kvm its group back). With --owner PID a watcher runs libvirt-down.sh
# when process PID is gone, however it ended.
#
# Output: name=value lines
#   uri=qemu:///system
#   ssh_uri=qemu+ssh://root@127.0.0.1:PORT/system?keyfile=DIR/id&no_verify=1
#   host2_uri=qemu+ssh://root@127.0.0.1:PORT2/system?keyfile=DIR/id&no_verify=1
#   host2_socket=DIR/host2/run/libvirt-sock  (for virsh on this machine)
set -eu

dir=
owner=
case "${1:-}" in
"") ;;
-*) echo "usage: $0 [DIR [--owner PID]]" >&2; exit 2 ;;
*) dir=$1; shift
	if [ "${1:-}" = --owner ]; then
		owner=${2:?--owner needs a pid}
		case "$owner" in *[!0-9]*) echo "libvirt-up.sh: --owner $owner: not a pid" >&2; exit 2 ;; esac
	fi ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "libvirt-up.sh: run as root (it creates users and starts libvirtd)" >&2
	exit 2
fi
PATH=$PATH:/usr/sbin:/sbin
for b in libvirtd virtlogd virsh; do
	command -v $b >/dev/null || { echo "libvirt-up.sh: $b missing; run: make deps" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")" && pwd)
record() { [ -z "$dir" ] || echo "$*" >>"$dir/started"; }
if [ -n "$dir" ]; then
	mkdir -p "$dir"
	chmod 700 "$dir"
	dir=$(cd "$dir" && pwd)
fi

# The user and groups QEMU runs as (libvirt's compiled-in default on Debian:
# user libvirt-qemu, group libvirt-qemu; Debian adds the user to kvm).
getent group kvm >/dev/null || groupadd -r kvm
getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
if ! id libvirt-qemu >/dev/null 2>&1; then
	useradd -r -g kvm -G libvirt-qemu -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
fi
id -nG libvirt-qemu | grep -qw libvirt-qemu || usermod -a -G libvirt-qemu libvirt-qemu
mkdir -p /var/log/libvirt/qemu /var/lib/libvirt /var/cache/libvirt /run/libvirt
# Debian's udev rule makes /dev/kvm root:kvm 0660. Left root-only, libvirt
# finds KVM at its QEMU probe but not for the libvirt-qemu user afterwards,
# calls its capability cache stale and probes QEMU again at every lookup:
# ~50 s per domain start here instead of ~0.5 s. libvirt-down.sh restores it.
if [ -c /dev/kvm ] && [ "$(stat -c %G /dev/kvm)" != kvm ]; then
	record "kvm $(stat -c '%g %a' /dev/kvm)"
	chgrp kvm /dev/kvm
	chmod 0660 /dev/kvm
fi

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
# waits for a libvirtd to answer on virsh URI $1 (log $2 says why not)
answers() {
	i=0
	until virsh -c "$1" version >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 120 ]; then
			echo "libvirt-up.sh: libvirtd does not answer on $1; see $2" >&2
			exit 3
		fi
		sleep 0.5
	done
}
if ! alive /run/virtlogd.pid; then
	virtlogd -d
	record "virtlogd $(cat /run/virtlogd.pid)"
fi
if ! alive /run/libvirtd.pid; then
	libvirtd -d
	record "libvirtd $(cat /run/libvirtd.pid)"
fi
answers qemu:///system /var/log/libvirt/libvirtd.log
echo "uri=qemu:///system"
[ -n "$dir" ] || exit 0

if [ -n "$owner" ] && ! alive "$dir/watcher.pid"; then
	# stops what was recorded once the owner is gone (a killed test too)
	setsid sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done; exec "$2" "$3"' \
		watcher "$owner" "$here/libvirt-down.sh" "$dir" </dev/null >/dev/null 2>&1 &
	echo $! >"$dir/watcher.pid"
fi

command -v sshd >/dev/null || { echo "libvirt-up.sh: sshd missing; run: apt-get install -y openssh-server" >&2; exit 2; }
mkdir -p /run/sshd
[ -f "$dir/host_key" ] || ssh-keygen -q -t ed25519 -N "" -f "$dir/host_key"
[ -f "$dir/id" ] || ssh-keygen -q -t ed25519 -N "" -f "$dir/id"
cp "$dir/id.pub" "$dir/authorized_keys"

# start_sshd NAME FIRST LAST [COMMAND-PREFIX...]: an sshd with config
# $dir/NAME_config on the first free port of FIRST..LAST; its port in
# $dir/NAME.port. A prefix (nsenter ...) starts it in another namespace.
start_sshd() {
	name=$1 port=$2 last=$3
	shift 3
	alive "$dir/$name.pid" && return 0
	while :; do
		cat >"$dir/${name}_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/$name.pid
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
CONF
		rm -f "$dir/$name.pid"
		"$@" "$(command -v sshd)" -f "$dir/${name}_config" -E "$dir/$name.log" || true
		sleep 0.5
		if alive "$dir/$name.pid"; then
			record "sshd $(cat "$dir/$name.pid")"
			break
		fi
		port=$((port + 1))
		if [ $port -gt "$last" ]; then
			echo "libvirt-up.sh: sshd would not start on 127.0.0.1:$2-$last; see $dir/$name.log" >&2
			exit 3
		fi
	done
	echo "$port" >"$dir/$name.port"
	# no_verify=1 adds this sshd's key to root's known_hosts; another
	# clone's run on the same port had another key, and ssh then warns
	# "REMOTE HOST IDENTIFICATION HAS CHANGED" into libvirt's errors
	ssh-keygen -R "[127.0.0.1]:$port" >/dev/null 2>&1 || true
}
# the old name of the first sshd's files
[ ! -f "$dir/sshd.pid" ] || [ -f "$dir/ssh1.pid" ] || mv "$dir/sshd.pid" "$dir/ssh1.pid"
start_sshd ssh1 22220 22240
ssh_uri="qemu+ssh://root@127.0.0.1:$(cat "$dir/ssh1.port")/system?keyfile=$dir/id&no_verify=1"
if ! virsh -c "$ssh_uri" version >/dev/null 2>&1; then
	echo "libvirt-up.sh: no libvirt over $ssh_uri; see $dir/ssh1.log" >&2
	exit 3
fi
echo "ssh_uri=$ssh_uri"

# host2: the second libvirt host, in a mount namespace held by its daemons.
h2=$dir/host2
mkdir -p "$h2/run" "$h2/lib" "$h2/cache" "$h2/log/qemu" "$h2/etc"
[ -f "$h2/etc/.copied" ] || { cp -a /etc/libvirt/. "$h2/etc/" && touch "$h2/etc/.copied"; }
chmod 755 "$h2" "$h2/lib"
if ! alive "$h2/libvirtd.pid"; then
	rm -f "$h2/run/libvirt-sock"
	unshare --mount --propagation private sh -eu -c '
		h2=$1
		mount --bind "$h2/run" /run/libvirt
		mount --bind "$h2/lib" /var/lib/libvirt
		mount --bind "$h2/cache" /var/cache/libvirt
		mount --bind "$h2/log" /var/log/libvirt
		mount --bind "$h2/etc" /etc/libvirt
		virtlogd -d -p "$h2/virtlogd.pid"
		libvirtd -d -p "$h2/libvirtd.pid"' host2 "$h2"
	record "virtlogd $(cat "$h2/virtlogd.pid")"
	record "libvirtd $(cat "$h2/libvirtd.pid")"
fi
answers "qemu:///system?socket=$h2/run/libvirt-sock" "$h2/log/libvirtd.log"
# its sshd in its namespace: ssh sessions reach host2's libvirtd at the
# usual /run/libvirt/libvirt-sock
start_sshd ssh2 22241 22260 nsenter --mount="/proc/$(cat "$h2/libvirtd.pid")/ns/mnt" --
host2_uri="qemu+ssh://root@127.0.0.1:$(cat "$dir/ssh2.port")/system?keyfile=$dir/id&no_verify=1"
if ! virsh -c "$host2_uri" version >/dev/null 2>&1; then
	echo "libvirt-up.sh: no libvirt over $host2_uri; see $dir/ssh2.log" >&2
	exit 3
fi
echo "host2_uri=$host2_uri"
echo "host2_socket=$h2/run/libvirt-sock"
