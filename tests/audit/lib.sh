# shellcheck shell=bash
# Shared by the shell tests of postern-audit: TAP (tests/common/tap.sh), a
# scratch directory, and the private /run and /dev a test's own syslog
# daemon runs in. Never touches the host's logging.
. "$(dirname "${BASH_SOURCE[0]}")/../common/tap.sh"

# audit_work: $work, a fresh directory (0755: the test users read in it),
# removed at exit unless KEEP is set.
audit_work() {
	work=$(mktemp -d)
	chmod 755 "$work"
	trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
}

# audit_private_run_dev WORK: an empty /run and a /dev holding only the
# harmless devices, for a syslog daemon of the test's own (run it inside a
# private mount namespace: private-etc).
audit_private_run_dev() {
	local d
	mount -t tmpfs -o mode=0755 audit-run /run
	mkdir "$1/dev"
	mount -t tmpfs -o mode=0755 audit-dev "$1/dev"
	for d in null zero full random urandom tty; do
		touch "$1/dev/$d"
		mount --bind "/dev/$d" "$1/dev/$d"
	done
	mount --move "$1/dev" /dev
}
