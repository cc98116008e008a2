#!/bin/sh
# sandbox.sh READ_WRITE_PATHS INACCESSIBLE_PATHS COMMAND...: the file-system
# side of postern-installd.service's sandbox, built from the unit's own
# settings, for scripts/test-package (systemd is not PID 1 there). Run it in
# a private mount namespace (unshare --mount): it must never remount the
# host's file systems.
#
# ReadWritePaths= stay writable, everything else read-only
# (ProtectSystem=strict), InaccessiblePaths= and ProtectHome= hidden, a
# private /tmp. The caller adds PrivateNetwork= (unshare --net),
# NoNewPrivileges= and the empty capability sets (setpriv). The system call
# filter and the other kernel-side settings need systemd itself.
set -e
rw=$1 hidden=$2
shift 2
for p in $rw; do mount --bind "$p" "$p"; done
for m in / /etc /usr /var /srv /run; do
	mountpoint -q "$m" || mount --bind "$m" "$m"
	mount -o remount,bind,ro "$m"
done
mount -t tmpfs -o mode=1777 private-tmp /tmp
for p in $hidden /home /root; do
	p=${p#-}
	[ -d "$p" ] && mount -t tmpfs -o mode=000 inaccessible "$p"
done
exec "$@"
