# shellcheck shell=bash
# Shared by the process-level tests of postern-shell. Source it from a bash
# script that runs as root inside `syslog-capture LOG -- private-etc ...`
# (shell_reexec does that), so that the test user, its group and
# /etc/postern/postern.yaml live in a throwaway /etc and every audit record
# lands in LOG.
#
# Everything outside /etc lives under $ROOT, a root-owned 0755 directory in
# /run (the shell's trusted-path walk to <incoming> refuses anything below
# the world-writable /tmp), removed by the outer script.
#
# The test user gets a uid of its own, the first free one from 47311 up
# (looked up, never assumed), so that "no file owned by it appeared outside
# incoming" is a meaningful check even while other suites' users (1001, ...)
# run in parallel.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../common/tap.sh"

SHELL_USER=ptsh-maint
SHELL_CONN_HOST=192.0.2.7

# shell_reexec LOG SCRIPT ARGS...: run SCRIPT in a private /etc under a
# syslog capture (exec, does not return).
shell_reexec() {
	local log=$1; shift
	exec "$SYSLOG_CAPTURE" "$log" -- "$PRIVATE_ETC" env SHELL_INSIDE=1 \
		SYSLOG_CAPTURE="$SYSLOG_CAPTURE" PRIVATE_ETC="$PRIVATE_ETC" bash "$@"
}

# shell_setup ROOT POSTERN_SHELL: the user, the layout, the config.
shell_setup() {
	ROOT=$1
	install -d -m 0755 "$ROOT/bin" "$ROOT/home"
	install -m 0755 "$2" "$ROOT/bin/postern-shell"
	SH="$ROOT/bin/postern-shell"
	INCOMING="$ROOT/incoming"
	LOGINS="$ROOT/logins"
	MYIN="$INCOMING/$SHELL_USER"
	CANARY="$ROOT/canary"
	install -d -m 0711 -o root -g root "$INCOMING"
	install -d -m 1777 "$CANARY"
	. "$(dirname "$PRIVATE_ETC")/lib-accounts.sh"
	SHELL_UID=$(acct_free_uid 47311)
	acct_user "$SHELL_USER" -u "$SHELL_UID" -U -M -d "$ROOT/home/$SHELL_USER" -s "$SH" ||
		{ echo "Bail out! cannot create $SHELL_USER"; exit 1; }
	SHELL_GID=$(id -g "$SHELL_USER")
	install -d -m 0700 -o "$SHELL_USER" -g "$SHELL_USER" "$ROOT/home/$SHELL_USER" "$MYIN"
	shell_write_config
	EXPECT="$ROOT/expect"
	: >"$EXPECT"
}

# shell_write_config [YAML]: /etc/postern/postern.yaml with the test's
# paths, then YAML (by default: the test user maintains gtk).
shell_write_config() {
	install -d -m 0755 /etc/postern
	cat >/etc/postern/postern.yaml <<YAML
paths:
  incoming: $INCOMING
  tree: $ROOT/pub
  state: $ROOT/state
  socket: $ROOT/installd.sock
  logins: $LOGINS
${1:-modules:
  gtk:
    maintainers: [$SHELL_USER]}
YAML
	chmod 0644 /etc/postern/postern.yaml
}

# shell_env_canaries: what the environment tests point variables at, each
# leaving a file in $CANARY if it ever runs: $ROOT/evil.sh, a Python
# sitecustomize in $ROOT/evilpy, and an empty $ROOT/evilbin for the test's
# own decoys.
shell_env_canaries() {
	printf '#!/bin/sh\ntouch %s/hit-env\n' "$CANARY" >"$ROOT/evil.sh"
	chmod 0755 "$ROOT/evil.sh"
	install -d -m 0755 "$ROOT/evilpy" "$ROOT/evilbin"
	echo "open('$CANARY/hit-python', 'w')" >"$ROOT/evilpy/sitecustomize.py"
}

# as_user [VAR=value...] -- ARGV...: run ARGV as the test user with exactly
# the given environment (what sshd would have built), as a grandchild of
# login-admit, which leaves the login proof pam_postern leaves for an
# admitted connection (the one in SSH_CONNECTION). ADMIT_EXTRA (an array)
# adds login-admit options that spoil the proof.
ADMIT_EXTRA=()
as_user() {
	local vars=() admit=() conn=
	while [ "$1" != -- ]; do
		vars+=("$1")
		case $1 in SSH_CONNECTION=*) conn=${1#SSH_CONNECTION=} ;; esac
		shift
	done
	shift
	mapfile -t admit < <(admit_args "$conn")
	"$LOGIN_ADMIT" "${admit[@]}" "${ADMIT_EXTRA[@]}" -- \
		setpriv --reuid "$SHELL_UID" --regid "$SHELL_GID" --init-groups \
		env -i "${vars[@]}" "$@"
}

# admit_args CONNECTION: login-admit's options for the test user, one a line.
admit_args() {
	if [ -z "$1" ]; then
		echo --no-proof
	else
		printf '%s\n' --logins "$LOGINS" --uid "$SHELL_UID" --user "$SHELL_USER" \
			"--connection=$1"
	fi
}

# What the test user owns outside its incoming directory, and everything in
# the places it could write to: must not change across a refused command.
side_effects() {
	find /tmp /var/tmp /dev/shm "$ROOT/home" -xdev -user "$SHELL_UID" 2>/dev/null | sort
	find "$CANARY" -mindepth 1 2>/dev/null | sort
}

incoming_state() {
	find "$MYIN" -mindepth 1 -printf '%P %y %s %T@\n' 2>/dev/null | sort
}


# Audit expectations are checked after the capture has ended: each case
# uses its own client port in SSH_CONNECTION, so its records are the lines
# with "port=<that port>".
expect_record() { printf '%s\t%s\n' "$1" "$2" >>"$EXPECT"; }

# shell_test_start SCRIPT ARGS...: how every test of postern-shell starts.
# Outside, shell_outer SCRIPT ARGS... (does not return); inside, with ARGS
# now ROOT POSTERN_SHELL..., shell_setup.
shell_test_start() {
	local script=$1
	shift
	[ -n "${SHELL_INSIDE:-}" ] || shell_outer "$script" "$@"
	shell_setup "$1" "$2"
}

# shell_test_end: the inner run hands its count and status to shell_outer.
shell_test_end() {
	echo "$n" >"$ROOT/count"
	exit "$failed"
}

# shell_outer SCRIPT ARGS...: the part of a test that runs as root outside:
# re-runs SCRIPT inside syslog-capture and private-etc (ARGS are
# SYSLOG_CAPTURE PRIVATE_ETC and the script's own), then checks the audit
# trail against the "port<TAB>pattern" lines the inner run wrote to
# $top/expect, prints the TAP plan and exits.
shell_outer() {
	local script=$1 port pattern rc
	shift
	[ "$(id -u)" = 0 ] || skip_all "needs root (real users, private /etc, syslog capture)"
	SYSLOG_CAPTURE=$1 PRIVATE_ETC=$2
	shift 2
	top=$(mktemp -d /run/postern-test-shell-XXXXXX)
	chmod 0755 "$top"
	trap 'rm -rf "$top"' EXIT
	: >"$top/log"
	(shell_reexec "$top/log" "$script" "$top" "$@")
	rc=$?
	n=$(cat "$top/count" 2>/dev/null || echo 0)
	[ "$rc" = 0 ] || failed=1
	# The audit trail, now that the capture is complete.
	while IFS=$'\t' read -r port pattern; do
		if grep " port=$port " "$top/log" | grep -qE -- "$pattern"; then
			ok "audit: port $port: $pattern"
		else
			not_ok "audit: port $port: $pattern" "$(grep " port=$port " "$top/log")"
		fi
	done <"$top/expect"
	finish
}
