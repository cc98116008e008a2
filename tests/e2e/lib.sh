# shellcheck shell=bash
# The throwaway upload server shared by tests/e2e, scripts/demo and bench/e2e.
#
# Source it from a bash script that already runs, as root, inside
#   syslog-capture LOG -- private-etc bash SCRIPT
# (e2e_reexec does that): users, groups, /etc/pam.d/postern-sshd and
# /etc/postern/postern.yaml then live in a throwaway overlay of /etc, and
# every syslog record lands in LOG. The run also gets a /run of its own (a
# tmpfs in the same private mount namespace): sshd's privilege separation
# directory /run/sshd, and $E2E_ROOT, where everything else lives (not under
# /tmp: sshd's StrictModes and pam_postern's trusted-path walk refuse
# anything below a world-writable directory). Parallel runs cannot pull
# /run/sshd from under each other, and nothing outlives the namespace;
# e2e_teardown stops the processes it started and removes $E2E_ROOT.
#
# What runs is the real thing: OpenSSH's sshd with the PAM service
# `postern-sshd` (PAMServiceName on OpenSSH 9.8 and later; before, sshd
# takes it from the name it was started under, so it runs through a link of
# that name either way), Linux-PAM with
# pam_postern.so, postern-shell as the users' login shell, rrsync behind it,
# and postern-installd as the `postern` user.
#
# Inputs: E2E_BUILD (a meson build dir of this tree), E2E_LOG (the capture).
# TOTP window: E2E_TOTP_WINDOW (pam_postern's window=, default 1).

set -euo pipefail
# shellcheck source=../common/lib-accounts.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common/lib-accounts.sh"

E2E_SSHD=/usr/sbin/sshd
E2E_HOST=127.0.0.1
E2E_PAM_SERVICE=postern-sshd
E2E_CONFIG=/etc/postern/postern.yaml
E2E_TOTP_WINDOW=${E2E_TOTP_WINDOW:-1}
E2E_ROOT=
E2E_PIDS=()
# Set by e2e_ci_configure.
E2E_CI_PORT=
E2E_CI_URL=

e2e_die() {
	echo "e2e: $*" >&2
	exit 1
}

# Re-run SCRIPT inside a private /etc and a syslog capture, unless already
# there. Usage: e2e_reexec LOG SCRIPT ARGS... (exec, does not return).
e2e_reexec() {
	local log=$1; shift
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	[ "$(id -u)" = 0 ] || e2e_die "must run as root (it starts sshd and creates users)"
	: >"$log"
	exec "$E2E_BUILD/tests/common/syslog-capture" "$log" -- \
		"$top/tests/common/private-etc" env E2E_INSIDE=1 E2E_LOG="$log" E2E_BUILD="$E2E_BUILD" \
		E2E_RUN_DIR="${E2E_RUN_DIR:-}" bash "$@"
}

# e2e_test_ready [--sk-lib FILE] [PROG...]: what an end-to-end test checks
# before e2e_reexec (it needs tests/common/tap.sh): root, every component
# built, FILE (tests/sk's middleware) and PROGs on the PATH; the TAP skip or
# bail-out names what is missing.
e2e_test_ready() {
	local sk= missing prog
	if [ "${1:-}" = --sk-lib ]; then sk=$2; shift 2; fi
	[ "$(id -u)" = 0 ] || skip_all "needs root (starts sshd, creates users in a private /etc)"
	missing=$(e2e_missing_components | tr '\n' ' ')
	if [ -n "$missing" ]; then
		echo "Bail out! not built in $E2E_BUILD: $missing(the end-to-end test needs every component)"
		exit 1
	fi
	if [ -n "$sk" ] && [ ! -f "$sk" ]; then
		echo "Bail out! $sk is not built (meson target sk_test_provider)"
		exit 1
	fi
	for prog in "$@"; do
		command -v "$prog" >/dev/null || { echo "Bail out! $prog not found"; exit 1; }
	done
}

# --- the programs under test -------------------------------------------------

# The build's binaries, copied to a root-owned 0755 directory: the users'
# login shell and the daemon must be executable by them, which a build dir
# under /root would not be.
e2e_find_program() {
	local name=$1 sub=$2 path
	path="$E2E_BUILD/$sub/$name"
	[ -f "$path" ] || path=$(find "$E2E_BUILD" -name "$name" -type f ! -path '*.p/*' 2>/dev/null | head -n 1)
	[ -n "$path" ] && [ -f "$path" ] || return 1
	printf '%s\n' "$path"
}

# Names of the components this harness needs, "file subdir".
E2E_COMPONENTS=(
	"pam_postern.so pam_module"
	"postern-totp pam_module"
	"postern-shell rshell"
	"postern-installd install_module"
	"postern-check install_module"
	"postern-logsign install_module"
	"postern-client client"
	"postern-verify client"
)

# Prints the missing ones, one per line; nothing when all are built.
e2e_missing_components() {
	local c
	for c in "${E2E_COMPONENTS[@]}"; do
		# shellcheck disable=SC2086
		e2e_find_program $c >/dev/null || echo "${c%% *}"
	done
}

e2e_install_programs() {
	local c name path
	install -d -m 0755 "$E2E_ROOT/bin" "$E2E_ROOT/sbin"
	for c in "${E2E_COMPONENTS[@]}"; do
		name=${c%% *}
		# shellcheck disable=SC2086
		path=$(e2e_find_program $c) || e2e_die "$name is not built in $E2E_BUILD"
		install -m 0755 "$path" "$E2E_ROOT/bin/$name"
	done
	for name in postern-audit postern-policy postern-ci; do
		path=$(e2e_find_program "$name" "${name#postern-}" 2>/dev/null) &&
			install -m 0755 "$path" "$E2E_ROOT/bin/$name" || true
	done
	# OpenSSH before 9.8 takes its PAM service name from the name it was
	# started under; later ones from PAMServiceName (e2e_sshd_options).
	ln -s "$E2E_SSHD" "$E2E_ROOT/sbin/$E2E_PAM_SERVICE"
}

# e2e_sshd_accepts KEYWORD VALUE: this sshd knows the keyword (sshd -T
# with it on the command line; older ones refuse an unknown option).
e2e_sshd_accepts() {
	"$E2E_SSHD" -T -f /dev/null -o "$1=$2" -o "HostKey=$E2E_ROOT/ssh/host_ed25519" \
		-C user=root,host=localhost,addr=127.0.0.1 >/dev/null 2>&1
}

# e2e_sshd_options SERVICE: the lines of the version-dependent settings:
# the PAM service by name, and no PerSourcePenalties (OpenSSH 9.8 and
# later), which would cut off the tests' many quick failures from one
# address (the lockout case) as an attack; a real server keeps them
# (docs/DEPLOY.md).
e2e_sshd_options() {
	if e2e_sshd_accepts PAMServiceName "$1"; then
		echo "PAMServiceName $1"
	fi
	if e2e_sshd_accepts PerSourcePenalties no; then
		echo "PerSourcePenalties no"
	fi
}

# --- filesystem layout (docs/ARCHITECTURE.md, the brief's installed layout) --

# A private /run: only for this mount namespace, gone with it. A tmpfs, or
# with E2E_RUN_DIR (a root-owned 0755 directory on disk, for bench/e2e, so
# that fsync costs what it costs on a server) that directory bound there.
e2e_private_run() {
	if [ -n "${E2E_RUN_DIR:-}" ]; then
		mount --bind "$E2E_RUN_DIR" /run ||
			e2e_die "cannot bind $E2E_RUN_DIR on /run (not in a private mount namespace?)"
	else
		mount -t tmpfs -o mode=0755,nosuid,nodev postern-run /run ||
			e2e_die "cannot mount a private /run (not in a private mount namespace?)"
	fi
	install -d -m 0755 -o root -g root /run/sshd
}

# Pseudo-terminals for tests that type at a prompt. The private /dev of
# syslog-capture may not reach a devpts instance through /dev/ptmx; then
# give this mount namespace its own.
e2e_private_pts() {
	python3 -c 'import os; os.openpty()' 2>/dev/null && return 0
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 postern-pts /dev/pts &&
		mount --bind /dev/pts/ptmx /dev/ptmx
}

e2e_make_root() {
	E2E_ROOT=$(mktemp -d /run/postern-e2e.XXXXXX)
	chmod 0755 "$E2E_ROOT"
	install -d -m 0700 "$E2E_ROOT/client"
	install -d -m 0755 "$E2E_ROOT/home" "$E2E_ROOT/ssh"
}

e2e_make_dirs() {
	install -d -m 0755 -o root -g root "$E2E_ROOT/state"
	install -d -m 0700 -o root -g root "$E2E_ROOT/state/totp"
	install -d -m 0750 -o postern -g postern "$E2E_ROOT/state/attic"
	install -d -m 0700 -o postern -g postern "$E2E_ROOT/state/locks"
	# The state root is root's, so the daemon cannot create its ledger.
	install -m 0640 -o postern -g postern /dev/null "$E2E_ROOT/state/ledger"
	install -d -m 0755 -o postern -g postern "$E2E_ROOT/pub" "$E2E_ROOT/pub/sources"
	install -d -m 0711 -o root -g root "$E2E_ROOT/incoming"
	install -d -m 0755 -o postern -g postern "$E2E_ROOT/run"
	install -d -m 0755 -o root -g root "$E2E_ROOT/keyrings"
}

# --- users ---------------------------------------------------------------------

# e2e_add_group [groupadd options] NAME
e2e_add_group() {
	getent group "${!#}" >/dev/null || groupadd "$@"
}

e2e_system_users() {
	e2e_add_group --system postern
	getent passwd postern >/dev/null ||
		useradd --system --gid postern --home-dir "$E2E_ROOT/state" --no-create-home \
			--shell /usr/sbin/nologin postern
	e2e_add_group uploaders
	# The archive checker's user: owns nothing, writes nowhere.
	e2e_add_group --system postern-check
	getent passwd postern-check >/dev/null ||
		useradd --system --gid postern-check --home-dir /nonexistent --no-create-home \
			--shell /usr/sbin/nologin postern-check
	# The release log's signer: holds the log's key, which postern cannot read.
	e2e_add_group --system postern-logsign
	getent passwd postern-logsign >/dev/null ||
		useradd --system --gid postern-logsign --home-dir /nonexistent --no-create-home \
			--shell /usr/sbin/nologin postern-logsign
	# The CI front-end: reaches the daemon's socket, as postinst sets it up.
	e2e_add_group --system postern-ci
	getent passwd postern-ci >/dev/null ||
		useradd --system --gid postern-ci --home-dir /nonexistent --no-create-home \
			--shell /usr/sbin/nologin postern-ci
	usermod -a -G uploaders postern-ci
}

# e2e_add_uploader USER: a maintainer account with postern-shell as its
# shell, an SSH key pair (the private half in $E2E_ROOT/client/USER.key) and
# the public half in its authorized_keys.
e2e_add_uploader() {
	e2e_add_keyed_user "$1" --shell "$E2E_ROOT/bin/postern-shell" --groups uploaders
}

# e2e_add_plain_user USER: an ordinary account with /bin/sh, outside the
# uploaders group, so sshd's global rules (key only) apply: the baseline
# that bench/e2e compares postern with.
e2e_add_plain_user() {
	e2e_add_keyed_user "$1" --shell /bin/sh
}

# e2e_add_keyed_user USER ACCT_USER-OPTIONS...: the account with a home of
# its own, and a fresh key of the client's in its authorized_keys.
e2e_add_keyed_user() {
	local user=$1 home="$E2E_ROOT/home/$1"
	shift
	acct_user "$user" --create-home --home-dir "$home" "$@"
	chmod 0755 "$home"
	ssh-keygen -q -t ed25519 -N '' -C "$user@e2e" -f "$E2E_ROOT/client/$user.key"
	install -d -m 0700 -o "$user" -g "$user" "$home/.ssh"
	install -m 0600 -o "$user" -g "$user" "$E2E_ROOT/client/$user.key.pub" \
		"$home/.ssh/authorized_keys"
}

# --- configuration ---------------------------------------------------------------

# e2e_write_policy RELEASE_TEAM_USER|- MODULE:MAINTAINER...
e2e_write_policy() {
	local rel=$1; shift
	local m
	install -d -m 0755 /etc/postern
	{
		echo "# Written by tests/e2e/lib.sh for one run; gone with the private /etc."
		echo "paths:"
		echo "  incoming: $E2E_ROOT/incoming"
		echo "  tree: $E2E_ROOT/pub"
		echo "  state: $E2E_ROOT/state"
		echo "  socket: $E2E_ROOT/run/installd.sock"
		echo "signatures:"
		echo "  keyrings: $E2E_ROOT/keyrings"
		if [ "$rel" != - ]; then
			echo "release_team:"
			echo "  users: [$rel]"
		fi
		echo "modules:"
		for m in "$@"; do
			echo "  ${m%%:*}:"
			echo "    maintainers: [${m#*:}]"
		done
	} >"$E2E_CONFIG"
	chmod 0644 "$E2E_CONFIG"
}

e2e_write_pam() {
	cat >"/etc/pam.d/$E2E_PAM_SERVICE" <<EOF
# PAM service of the throwaway postern sshd (tests/e2e/lib.sh).
# The code is the only thing PAM checks: the key was checked by sshd
# (AuthenticationMethods publickey,keyboard-interactive:pam), and
# pam_postern verifies that it was, from SSH_AUTH_INFO_0.
auth     required  $E2E_ROOT/bin/pam_postern.so store=$E2E_ROOT/state/totp window=$E2E_TOTP_WINDOW
account  required  pam_unix.so
session  required  pam_unix.so
EOF
	chmod 0644 "/etc/pam.d/$E2E_PAM_SERVICE"
}

E2E_PORT=
e2e_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

e2e_write_sshd_config() {
	E2E_PORT=$(e2e_free_port)
	ssh-keygen -q -t ed25519 -N '' -C "postern-e2e-host" -f "$E2E_ROOT/ssh/host_ed25519"
	cat >"$E2E_ROOT/ssh/sshd_config" <<EOF
# The throwaway postern sshd: examples/sshd_config.postern on a free
# loopback port, with its own host key and no system config.
ListenAddress $E2E_HOST:$E2E_PORT
HostKey $E2E_ROOT/ssh/host_ed25519
PidFile none
LogLevel VERBOSE
SyslogFacility AUTHPRIV
UsePAM yes
$(e2e_sshd_options "$E2E_PAM_SERVICE")
PermitRootLogin no
PasswordAuthentication no
KbdInteractiveAuthentication yes
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
PermitUserEnvironment no
StrictModes yes
MaxAuthTries 6
LoginGraceTime 30
# No Subsystem line: no sftp, hence no scp in its default (sftp) mode.

# Accounts outside the group (only the benchmark's baseline user here).
AuthenticationMethods publickey

Match Group uploaders
	AuthenticationMethods publickey,keyboard-interactive:pam
	DisableForwarding yes
	PermitTTY no
	PermitTunnel no
	AllowAgentForwarding no
	AllowTcpForwarding no
	X11Forwarding no
	PermitUserRC no
EOF
	"$E2E_ROOT/sbin/$E2E_PAM_SERVICE" -t -f "$E2E_ROOT/ssh/sshd_config" ||
		e2e_die "sshd refuses the generated configuration"
	printf '[%s]:%s %s\n' "$E2E_HOST" "$E2E_PORT" \
		"$(cut -d' ' -f1-2 "$E2E_ROOT/ssh/host_ed25519.pub")" >"$E2E_ROOT/client/known_hosts"
}

# e2e_sshd_match_add LINE...: LINEs added to the uploaders' Match block (the
# last block e2e_write_sshd_config writes), and the result checked by sshd -t.
# After e2e_setup, before e2e_start.
e2e_sshd_match_add() {
	local line
	for line in "$@"; do
		printf '\t%s\n' "$line"
	done >>"$E2E_ROOT/ssh/sshd_config"
	"$E2E_ROOT/sbin/$E2E_PAM_SERVICE" -t -f "$E2E_ROOT/ssh/sshd_config" ||
		e2e_die "sshd refuses the configuration with: $*"
}

# --- processes -----------------------------------------------------------------

e2e_wait_for() {
	local what=$1 tries=$2; shift 2
	while ! "$@" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || e2e_die "$what did not come up"
		sleep 0.1
	done
}

e2e_port_open() {
	(exec 3<>"/dev/tcp/$E2E_HOST/$E2E_PORT") 2>/dev/null
}

e2e_start_sshd() {
	"$E2E_ROOT/sbin/$E2E_PAM_SERVICE" -D -f "$E2E_ROOT/ssh/sshd_config" </dev/null &
	E2E_PIDS+=("$!")
	e2e_wait_for "sshd on port $E2E_PORT" 100 e2e_port_open
}

# Started as root, as under systemd: it binds the socket (postern:uploaders
# 0660) and drops to the postern user for good before reading anything.
e2e_start_installd() {
	# The checker socket, as postern-check.socket makes it.
	e2e_activate "$E2E_ROOT/run/check.sock" postern-check "$E2E_ROOT/bin/postern-check"
	e2e_start_signer
	"$E2E_ROOT/bin/postern-installd" -C "$E2E_CONFIG" --user postern --socket-group uploaders \
		--ci-user postern-ci \
		--socket "$E2E_ROOT/run/installd.sock" --check-socket "$E2E_ROOT/run/check.sock" \
		--log-socket "$E2E_ROOT/run/logsign.sock" --foreground </dev/null &
	E2E_PIDS+=("$!")
	e2e_wait_for "postern-installd" 100 test -S "$E2E_ROOT/run/installd.sock"
}

# The release log's signer, as postinst and postern-logsign.socket set it up:
# its key made once, one signer per connection, reachable by the daemon only.
e2e_start_signer() {
	install -d -m 0700 -o postern-logsign -g postern-logsign "$E2E_ROOT/logsign"
	setpriv --reuid=postern-logsign --regid=postern-logsign --clear-groups -- \
		"$E2E_ROOT/bin/postern-logsign" --dir "$E2E_ROOT/logsign" --keygen e2e.test/log >/dev/null
	e2e_activate "$E2E_ROOT/run/logsign.sock" postern-logsign \
		"$E2E_ROOT/bin/postern-logsign" --dir "$E2E_ROOT/logsign"
}

# A socket as the postern-*.socket units make it: one COMMAND per
# connection, as USER, reachable by the daemon's user only.
e2e_activate() { # SOCKET USER COMMAND...
	local sock=$1 user=$2
	shift 2
	systemd-socket-activate --seqpacket --accept --inetd -l "$sock" \
		setpriv --reuid="$user" --regid="$user" --clear-groups -- "$@" </dev/null 2>/dev/null &
	E2E_PIDS+=("$!")
	e2e_wait_for "the socket $sock" 100 test -S "$sock"
	chown postern:postern "$sock"
	chmod 0600 "$sock"
}

# --- CI releases ------------------------------------------------------------------

E2E_CI_ISSUER=https://gitlab.e2e.test
E2E_CI_AUDIENCE=https://e2e.test

# e2e_ci_configure MODULE PROJECT TAG...: a throwaway GitLab issuer, its
# JWKS root-owned in /etc/postern/ci and a token of each protected TAG of
# PROJECT in $E2E_ROOT/ci/tokens/tag-TAG.jwt (tests/ci/e2e-tokens.py, PyJWT),
# MODULE bound to PROJECT and ci: in the policy. Before e2e_start.
e2e_ci_configure() {
	local module=$1 project=$2 top
	shift 2
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	[ -x "$E2E_ROOT/bin/postern-ci" ] || e2e_die "postern-ci is not built in $E2E_BUILD"
	install -d -m 0755 "$E2E_ROOT/ci" "$E2E_ROOT/ci/tokens" /etc/postern/ci
	install -d -m 0700 -o postern-ci -g postern-ci "$E2E_ROOT/ci/jti" "$E2E_ROOT/ci/uploads"
	/usr/bin/python3 "$top/tests/ci/e2e-tokens.py" "$E2E_ROOT/ci/tokens" "$E2E_CI_ISSUER" \
		"$E2E_CI_AUDIENCE" "$project" "$@" || e2e_die "could not make the CI tokens (python3-jwt)"
	install -m 0644 -o root -g root "$E2E_ROOT/ci/tokens/jwks.json" /etc/postern/ci/e2e.jwks
	E2E_CI_PORT=$(e2e_free_port)
	E2E_CI_URL="http://$E2E_HOST:$E2E_CI_PORT/v1/release"
	sed -i "s|^  $module:\$|  $module:\n    ci: [{issuer: e2e, project: $project}]|" "$E2E_CONFIG"
	cat >>"$E2E_CONFIG" <<EOF
ci:
  listen: $E2E_HOST:$E2E_CI_PORT
  issuers:
    e2e: {issuer: $E2E_CI_ISSUER, audience: $E2E_CI_AUDIENCE, jwks: /etc/postern/ci/e2e.jwks}
EOF
}

# postern-ci as postern-ci.service runs it: its own user, in uploaders.
e2e_start_ci() {
	setpriv --reuid=postern-ci --regid=postern-ci --init-groups -- "$E2E_ROOT/bin/postern-ci" \
		-C "$E2E_CONFIG" --state "$E2E_ROOT/ci/jti" --staging "$E2E_ROOT/ci/uploads" \
		</dev/null 2>"$E2E_ROOT/ci/postern-ci.err" &
	E2E_PIDS+=("$!")
	e2e_wait_for "postern-ci on port $E2E_CI_PORT" 100 grep -q "ready: listening" "$E2E_ROOT/ci/postern-ci.err"
}

# Processes of this run other than the servers it started: everything whose
# command line names $E2E_ROOT (a unique path), e.g. a client that a failed
# step left behind.
e2e_leftover_pids() {
	local pid ours
	[ -n "$E2E_ROOT" ] || return 0
	for pid in $(pgrep -f -- "$E2E_ROOT/"); do
		for ours in "${E2E_PIDS[@]}"; do
			[ "$pid" = "$ours" ] && continue 2
		done
		echo "$pid"
	done
}

# Stop the servers, then anything else of the run (returns 1 if there was
# anything else, after naming it), and remove $E2E_ROOT.
e2e_teardown() {
	local pid left rc=0
	left=$(e2e_leftover_pids)
	if [ -n "$left" ]; then
		echo "e2e: stopping leftover processes:" >&2
		# shellcheck disable=SC2086
		ps -o pid=,args= -p "$(echo $left | tr ' ' ,)" >&2 || true
		# shellcheck disable=SC2086
		kill $left 2>/dev/null || true
		rc=1
	fi
	for pid in "${E2E_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${E2E_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	E2E_PIDS=()
	if [ -n "$E2E_ROOT" ] && [ -d "$E2E_ROOT" ]; then
		rm -rf --one-file-system "$E2E_ROOT"
	fi
	return "$rc"
}

# --- one-time codes --------------------------------------------------------------

# e2e_enroll USER [postern-totp options]: enrol and keep the otpauth URI in
# $E2E_ROOT/client/USER.uri for the code helpers below.
e2e_enroll() {
	local user=$1; shift
	"$E2E_ROOT/bin/postern-totp" -C "$E2E_CONFIG" enroll --no-verify --format uri "$@" "$user" \
		>"$E2E_ROOT/client/$user.uri"
	grep -q '^otpauth://totp/' "$E2E_ROOT/client/$user.uri" ||
		e2e_die "postern-totp enroll $user printed no otpauth URI"
}

e2e_uri_param() {
	sed -n "s/.*[?&]$2=\([^&]*\).*/\1/p" "$E2E_ROOT/client/$1.uri" | head -n 1
}

# The oathtool arguments that reproduce USER's authenticator app.
e2e_oath_args() {
	local alg digits period
	alg=$(e2e_uri_param "$1" algorithm); digits=$(e2e_uri_param "$1" digits)
	period=$(e2e_uri_param "$1" period)
	printf '%s\n' "--totp=${alg:-SHA1}" "--digits=${digits:-6}" \
		"--time-step-size=${period:-30}s" -b "$(e2e_uri_param "$1" secret)"
}

e2e_period() {
	local p
	p=$(e2e_uri_param "$1" period)
	echo "${p:-30}"
}

# e2e_code_at USER STEP: the code the app shows during time step STEP.
e2e_code_at() {
	local args
	mapfile -t args < <(e2e_oath_args "$1")
	oathtool "${args[@]}" -N "@$(($2 * $(e2e_period "$1")))"
}

e2e_now_step() {
	echo $(($(date +%s) / $(e2e_period "$1")))
}

# e2e_fresh_code USER: a code for a time step after the last one this
# harness handed out for USER (pam_postern accepts each step once), waiting
# for the clock when the window ahead is used up. Sets E2E_STEP.
E2E_STEP=
e2e_fresh_code() {
	local user=$1 last now stepfile="$E2E_ROOT/client/$1.step"
	last=$(cat "$stepfile" 2>/dev/null || echo 0)
	while :; do
		now=$(e2e_now_step "$user")
		E2E_STEP=$((last + 1 > now ? last + 1 : now))
		[ "$E2E_STEP" -le $((now + E2E_TOTP_WINDOW)) ] && break
		sleep 1
	done
	echo "$E2E_STEP" >"$stepfile"
	e2e_code_at "$user" "$E2E_STEP"
}

# e2e_last_code USER: the code handed out last (for replay tests).
e2e_last_code() {
	e2e_code_at "$1" "$(cat "$E2E_ROOT/client/$1.step")"
}

# e2e_wrong_code USER: a well-formed code that is none of the codes of the
# steps pam_postern could accept now or in the next minute.
e2e_wrong_code() {
	local user=$1 args digits start candidate
	mapfile -t args < <(e2e_oath_args "$user")
	digits=$(e2e_uri_param "$user" digits); digits=${digits:-6}
	start=$(($(e2e_now_step "$user") - E2E_TOTP_WINDOW - 2))
	local valid
	valid=$(oathtool "${args[@]}" -N "@$((start * $(e2e_period "$user")))" \
		-w $((2 * E2E_TOTP_WINDOW + 6)))
	candidate=$((RANDOM * 32768 + RANDOM))
	while :; do
		candidate=$(printf "%0${digits}d" $((candidate % (10 ** digits))))
		grep -qx "$candidate" <<<"$valid" || break
		candidate=$((10#$candidate + 7919))
	done
	echo "$candidate"
}

# --- clients --------------------------------------------------------------------

# OpenSSH's ssh with nothing from ~/.ssh or /etc/ssh, the server's host
# key pinned, and the code supplied through SSH_ASKPASS from the file
# $E2E_ROOT/client/code (write it with e2e_set_code).
e2e_write_askpass() {
	cat >"$E2E_ROOT/client/askpass" <<EOF
#!/bin/sh
# ssh calls this for every question it would ask on a terminal; the
# question goes to a log the tests read, the answer comes from a file.
printf '%s\n' "\$*" >>"$E2E_ROOT/client/askpass.log"
cat "$E2E_ROOT/client/code"
EOF
	chmod 0700 "$E2E_ROOT/client/askpass"
	: >"$E2E_ROOT/client/askpass.log"
	: >"$E2E_ROOT/client/code"
}

e2e_set_code() {
	printf '%s\n' "$1" >"$E2E_ROOT/client/code"
}

e2e_ssh_opts() {
	printf '%s\n' -F /dev/null -p "$E2E_PORT" -i "$E2E_ROOT/client/$1.key" \
		-o IdentitiesOnly=yes -o IdentityAgent=none \
		-o UserKnownHostsFile="$E2E_ROOT/client/known_hosts" \
		-o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes \
		-o PasswordAuthentication=no -o NumberOfPasswordPrompts=1 \
		-o ConnectTimeout=10 -o ServerAliveInterval=10 -o LogLevel=ERROR
}

# e2e_ssh USER [ssh options] [-- COMMAND...]: ssh as USER; code from e2e_set_code.
e2e_ssh() {
	local user=$1; shift
	local opts extra=() cmd=()
	mapfile -t opts < <(e2e_ssh_opts "$user")
	while [ $# -gt 0 ] && [ "$1" != -- ]; do extra+=("$1"); shift; done
	[ $# -gt 0 ] && { shift; cmd=("$@"); }
	SSH_ASKPASS="$E2E_ROOT/client/askpass" SSH_ASKPASS_REQUIRE=force \
		timeout 60 setsid -w ssh "${opts[@]}" "${extra[@]}" "$user@$E2E_HOST" "${cmd[@]}"
}

# The `ssh` command line for rsync -e, as one string (askpass included:
# rsync runs it through execvp, so `env` sets the variables).
e2e_ssh_command() {
	local opts
	mapfile -t opts < <(e2e_ssh_opts "$1")
	echo "env SSH_ASKPASS=$E2E_ROOT/client/askpass SSH_ASKPASS_REQUIRE=force ssh ${opts[*]}"
}

# e2e_client USER [postern-client options] -- COMMAND...: postern-client as
# USER, with the code from $E2E_ROOT/client/code unless the options name
# another source.
e2e_client() {
	local user=$1; shift
	local extra=() code=(--code-file "$E2E_ROOT/client/code")
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in --code-command | --code-file) code=() ;; esac
		extra+=("$1"); shift
	done
	[ $# -gt 0 ] && shift
	timeout 60 setsid -w "$E2E_ROOT/bin/postern-client" -p "$E2E_PORT" \
		-i "$E2E_ROOT/client/$user.key" --known-hosts "$E2E_ROOT/client/known_hosts" \
		"${code[@]}" "${extra[@]}" "$user@$E2E_HOST" "$@"
}

# The postern-client command line for rsync -e, as one string.
e2e_client_command() {
	echo "$E2E_ROOT/bin/postern-client -p $E2E_PORT -i $E2E_ROOT/client/$1.key" \
		"--known-hosts $E2E_ROOT/client/known_hosts --code-file $E2E_ROOT/client/code"
}

# --- audit records -----------------------------------------------------------------

# e2e_log_mark: the capture's current length, to read one step's records.
e2e_log_mark() {
	wc -l <"$E2E_LOG"
}

# e2e_log_since MARK: the records written after MARK.
e2e_log_since() {
	tail -n "+$(($1 + 1))" "$E2E_LOG"
}

# e2e_log_wait MARK PATTERN...: wait up to 15 s for one record after MARK
# that matches every pattern. Syslog is a datagram socket, so the capture
# may write a record a little after the sender has exited; a loaded CI
# machine stretches "a little", and a fixed sleep would be a flaky guess.
e2e_log_wait() {
	local mark=$1 tries=0 lines p; shift
	while :; do
		lines=$(e2e_log_since "$mark")
		for p in "$@"; do
			lines=$(grep -F -- "$p" <<<"$lines")
		done
		[ -n "$lines" ] && return 0
		[ $tries -ge 150 ] && return 1
		sleep 0.1
		tries=$((tries + 1))
	done
}

# --- all of it -------------------------------------------------------------------

# e2e_setup: the whole server, without users of the uploaders group.
e2e_setup() {
	[ "${E2E_INSIDE:-}" = 1 ] || e2e_die "e2e_setup must run under e2e_reexec"
	e2e_private_run
	e2e_make_root
	e2e_install_programs
	e2e_system_users
	e2e_make_dirs
	e2e_write_pam
	e2e_write_sshd_config
	e2e_write_askpass
}

# e2e_start: after users and policy exist.
e2e_start() {
	e2e_start_installd
	e2e_start_sshd
}
