# shellcheck shell=bash
# Helpers of scripts/test-package's installed-system check (sourced inside
# its private mount namespace, from the clean copy of HEAD it built): the
# overlays, DEPLOY.md's recipes, the daemon started as its units would,
# apt-get, a PAM login. The caller defines die, WORK and PKGTEST (this
# folder). Never run outside that namespace: it mounts over /etc, /usr,
# /var, /srv and /run.

overlay_system() {
	local work=$1 d
	mount -t tmpfs -o mode=0755 pkgtest-upper "$work/ov"
	for d in etc usr var srv run; do
		mkdir "$work/ov/$d-upper" "$work/ov/$d-work"
		mount -t overlay "pkgtest-$d" \
			-o "lowerdir=/$d,upperdir=$work/ov/$d-upper,workdir=$work/ov/$d-work" "/$d"
	done
	# adduser (DEPLOY.md's recipe) makes a home directory.
	mount -t tmpfs -o mode=0755 pkgtest-home /home
}

# recipe NAME FILE: the lines of the code block after "<!-- recipe: NAME"
# in FILE (compressed or not): the commands the docs give, as written.
recipe() {
	zcat -f "$2" | awk -v name="$1" '
		index($0, "<!-- recipe: " name) == 1 { want = 1; next }
		want && /^```/ { want = inside = !inside; next }
		inside { print }'
}

# lines_in LINES FILE WHAT: every line of LINES is a line of FILE (leading
# blanks aside): the docs agree.
lines_in() {
	local line
	sed 's/^[[:space:]]*//' "$2" >"$2.stripped"
	while IFS= read -r line; do
		grep -qxF -- "$line" "$2.stripped" || die "$3 lacks DEPLOY.md's line: $line"
	done <<<"$1"
}

# nolog COMMAND...: run COMMAND with no /dev/log and no journal at all.
nolog() {
	"$WORK/syslog-capture" --log=absent "$WORK/nolog.log" -- "$@"
}

# logged PATTERN: the capture got a record matching PATTERN (it writes
# asynchronously: poll).
logged() {
	for _ in $(seq 100); do
		grep -q -- "$1" "$WORK/syslog.log" && return 0
		sleep 0.05
	done
	return 1
}

# unit_key FILE KEY: the value of the last KEY= line of a unit file
unit_key() {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

expect_mode() {
	local path=$1 want=$2 got
	got=$(stat -c '%U:%G %a' "$path") || die "$path: missing"
	[ "$got" = "$want" ] || die "$path: is $got, expected $want"
}

expect_file() {
	[ -e "$1" ] || die "$1: missing after installation"
}

as_user() {
	local user=$1 conn="192.0.2.9 40000 192.0.2.1 22"; shift
	"$WORK/login-admit" --logins /run/postern-logins --uid "$(id -u "$user")" --user "$user" \
		--connection "$conn" -- \
		env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME=/nonexistent "SSH_CONNECTION=$conn" \
		setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups -- "$@"
}

# wait_for_socket PATH LOG: the daemon is listening.
wait_for_socket() {
	for _ in $(seq 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	cat "$2"
	die "the daemon's socket $1 never appeared"
}

# A socket unit and its Accept=yes service as systemd runs them: one
# service per connection, as the unit's User=, on the unit's socket with its
# owner and mode. (The unit's extra sandbox is systemd's; the programs' own
# confinement is tested in tests/install_module.) Sets ACTIVATOR to its pid.
start_accepting_unit_like_systemd() { # UNIT LOG
	local socket_unit=/lib/systemd/system/$1.socket
	local service_unit=/lib/systemd/system/$1@.service
	local listen
	listen=$(unit_key "$socket_unit" ListenSequentialPacket)
	rm -f "$listen"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		systemd-socket-activate --seqpacket --accept --inetd -l "$listen" \
		setpriv --reuid="$(unit_key "$service_unit" User)" --regid="$(unit_key "$service_unit" Group)" \
			--clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- \
			"$(unit_key "$service_unit" ExecStart)" >"$2" 2>&1 &
	ACTIVATOR=$!
	wait_for_socket "$listen" "$2"
	chown "$(unit_key "$socket_unit" SocketUser):$(unit_key "$socket_unit" SocketGroup)" "$listen"
	chmod "$(unit_key "$socket_unit" SocketMode)" "$listen"
}

start_checker_like_units() {
	start_accepting_unit_like_systemd postern-check "$WORK/checker.log"
	CHECKER_PID=$ACTIVATOR
}

start_signer_like_units() {
	start_accepting_unit_like_systemd postern-logsign "$WORK/signer.log"
	SIGNER_PID=$ACTIVATOR
}

start_daemon_like_units() {
	local socket_unit=/lib/systemd/system/postern-installd.socket
	local service_unit=/lib/systemd/system/postern-installd.service
	local listen user group exec
	listen=$(unit_key "$socket_unit" ListenStream)
	user=$(unit_key "$service_unit" User)
	group=$(unit_key "$service_unit" Group)
	exec=$(unit_key "$service_unit" ExecStart)
	start_checker_like_units
	start_signer_like_units
	# shellcheck disable=SC2086 # ExecStart= is a word list, as systemd splits it
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		systemd-socket-activate -l "$listen" -- \
		unshare --mount --net -- \
		sh "$PKGTEST/sandbox.sh" "$(unit_key "$service_unit" ReadWritePaths)" \
			"$(unit_key "$service_unit" InaccessiblePaths)" \
		setpriv --reuid="$user" --regid="$group" --init-groups --no-new-privs \
			--inh-caps=-all --bounding-set=-all -- $exec \
		>"$WORK/installd.log" 2>&1 &
	DAEMON_PID=$!
	for _ in $(seq 100); do
		[ -S "$listen" ] && break
		sleep 0.05
	done
	[ -S "$listen" ] || { cat "$WORK/installd.log"; die "the daemon's socket $listen never appeared"; }
	chown "$(unit_key "$socket_unit" SocketUser):$(unit_key "$socket_unit" SocketGroup)" "$listen"
	chmod "$(unit_key "$socket_unit" SocketMode)" "$listen"
	DAEMON_USER=$user
}

# systemd-socket-activate, like systemd, starts the service at the first
# connection; by then it must be the unit's User=.
check_daemon_user() {
	for _ in $(seq 100); do
		[ "$(ps -o user= -p "$DAEMON_PID" 2>/dev/null | tr -d ' ')" = "$DAEMON_USER" ] && return 0
		sleep 0.05
	done
	cat "$WORK/installd.log"
	die "the daemon is not running as $DAEMON_USER"
}

# Also on a failure: a socket-activate still waiting for its first
# connection would otherwise outlive the test.
stop_daemon() {
	if [ -n "${CHECKER_PID:-}" ]; then
		stop_tree "$CHECKER_PID"
		CHECKER_PID=
	fi
	if [ -n "${SIGNER_PID:-}" ]; then
		stop_tree "$SIGNER_PID"
		SIGNER_PID=
	fi
	if [ -n "${DAEMON_PID:-}" ]; then
		stop_tree "$DAEMON_PID"
		DAEMON_PID=
	fi
}

# stop_tree PID: PID and every process below it, until they are gone.
# Under nolog the daemon is syslog-capture's grandchild (the background
# subshell, syslog-capture, the daemon), and syslog-capture forwards no
# signal: killing the first two alone left the daemon running.
stop_tree() {
	local pids
	pids="$(tree_pids "$1") $1"
	# shellcheck disable=SC2086 # a list of pids
	kill $pids 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	for _ in $(seq 100); do
		# shellcheck disable=SC2086
		any_alive $pids || return 0
		sleep 0.05
	done
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null || true
}

any_alive() {
	local p
	for p in "$@"; do kill -0 "$p" 2>/dev/null && return 0; done
	return 1
}

# tree_pids PID: the processes below PID, deepest first.
tree_pids() {
	local c
	for c in $(pgrep -P "$1"); do
		tree_pids "$c"
		echo "$c"
	done
}

install_debs() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" \
		"$WORK"/debs/libpam-postern_*.deb "$WORK"/debs/postern-server_*.deb \
		"$WORK"/debs/postern-client_*.deb >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; die "apt-get install failed"; }
}

purge_debs() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q postern-client postern-server libpam-postern \
		>"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; die "apt-get purge failed"; }
	for p in postern-client postern-server libpam-postern; do
		! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q installed ||
			die "$p is still installed after purge"
	done
	[ ! -e /etc/postern ] || die "/etc/postern survived the purge"
	! grep -q postern-shell /etc/shells || die "postern-shell is still in /etc/shells after purge"
	expect_mode /srv/postern/pub "postern:postern 755"
	cmp -s "$WORK/pkgtest-1.0.tar.xz" /srv/postern/pub/sources/pkgtest/1.0/pkgtest-1.0.tar.xz ||
		die "purge lost a release in the tree"
	expect_mode /srv/postern/incoming/ptpkg-maint "ptpkg-maint:uploaders 700"
}

# pam_login USER CODE KEYLINE: one pam_authenticate of USER through the real
# libpam and the installed service /etc/pam.d/postern-pkgtest, answering the
# code prompt with CODE, as sshd would after the key (tests/pam_module/pam_harness.c,
# without pam_wrapper). True on PAM_SUCCESS.
pam_login() {
	local out
	out=$("$WORK/pam-harness" postern-pkgtest "$@") || die "pam-harness failed: $out"
	echo "pam_authenticate $1: $out"
	case $out in "result=PAM_SUCCESS "*) return 0 ;; esac
	return 1
}
