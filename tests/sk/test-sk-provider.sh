#!/bin/bash
# libpostern-sk-test.so (postern_sk_test.c) against the real OpenSSH, code
# we did not write: ssh-keygen enrols sk-ssh-ed25519@openssh.com and
# sk-ecdsa-sha2-nistp256@openssh.com keys through it and signs with them
# (-Y sign), ssh-keygen -Y verify checks those signatures, and a throwaway
# sshd on 127.0.0.1 admits or refuses ssh logins by the flags byte the
# library puts in each signature (POSTERN_SK_TEST_FLAGS). What is proven is
# that sshd's check decides: with verify-required (sshd_config
# PubkeyAuthOptions, in a Match block here, or the authorized_keys option)
# 0x05 gets in and 0x01 does not; without it 0x01 gets in; with neither
# no-touch-required, 0x00 (no user presence) does not. Each refusal must
# be sshd's for that reason (its log says which requirement was not met).
#
# Usage: test-sk-provider.sh PROVIDER PRIVATE_ETC      (TAP on stdout)
#
# Root only: it re-runs itself in tests/common/private-etc, so its two
# accounts (made with lib-accounts.sh) live in a throwaway overlay of /etc,
# and mounts a private /run there (sshd's /run/sshd and the scratch dir,
# not below a world-writable directory, for StrictModes). Loopback only;
# every command has a timeout; the trap stops sshd and removes the scratch
# dir, and the namespace takes the rest with it.
set -u
LIB=$1
PRIVATE_ETC=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../common/tap.sh
. "$here/../common/tap.sh"

SSHD=/usr/sbin/sshd
HOST=127.0.0.1
STRICT=ptsk-strict
PLAIN=ptsk-plain
UV_NOT_MET="rejected: user verification requirement not met"
UP_NOT_MET="rejected: user presence (authenticator touch) requirement not met"

[ "$(id -u)" = 0 ] || skip_all "needs root (starts sshd, creates users in a private /etc)"
for prog in "$SSHD" ssh ssh-keygen nm python3 setsid timeout; do
	command -v "$prog" >/dev/null || { echo "Bail out! $prog not found (openssh-server, openssh-client, binutils, python3)"; exit 1; }
done
[ -f "$LIB" ] || { echo "Bail out! $LIB is not built"; exit 1; }
if [ -z "${PTSK_INSIDE:-}" ]; then
	export PTSK_INSIDE=1
	exec "$PRIVATE_ETC" "$BASH" "${BASH_SOURCE[0]}" "$@"
fi
# shellcheck source=../common/lib-accounts.sh
. "$(dirname "$PRIVATE_ETC")/lib-accounts.sh"

# Whatever the caller had set would change what the library reports.
unset POSTERN_SK_TEST_FLAGS POSTERN_SK_TEST_COUNTER POSTERN_SK_TEST_COUNTER_FILE \
	SSH_SK_PROVIDER SSH_SK_HELPER SSH_AUTH_SOCK DISPLAY
# A PIN prompt (ssh-keygen asks for one for verify-required keys) is
# answered by this script, never from a terminal.
export SSH_ASKPASS_REQUIRE=force

T=
SSHD_PID=
cleanup() {
	if [ -n "$SSHD_PID" ]; then
		kill "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
	fi
	[ -z "$T" ] || rm -rf --one-file-system "$T"
}
trap cleanup EXIT

mount -t tmpfs -o mode=0755,nosuid,nodev ptsk-run /run || { echo "Bail out! cannot mount a private /run"; exit 1; }
install -d -m 0755 /run/sshd
T=$(mktemp -d /run/postern-sk.XXXXXX)
chmod 0755 "$T"
install -d -m 0700 "$T/client"
install -d -m 0755 "$T/home" "$T/ssh"
cat >"$T/client/askpass" <<EOF
#!/bin/sh
# Answers ssh-keygen's PIN prompts, and keeps them for the checks.
printf '%s\n' "\$1" >>"$T/client/askpass.log"
echo 123456
EOF
chmod 0755 "$T/client/askpass"
export SSH_ASKPASS=$T/client/askpass

# run CMD...: status in $rc, stdout and stderr together in $T/out; no
# terminal (stdin is /dev/null unless the caller redirects it), a time limit.
exec </dev/null
rc=0
run() {
	timeout 60 setsid -w "$@" >"$T/out" 2>&1
	rc=$?
}
out() { head -c 3000 "$T/out"; }

# --- the library itself ----------------------------------------------------------

syms=$(nm -D --defined-only "$LIB" | awk '{ print $3 }' | sort | tr '\n' ' ')
if [ "$syms" = "sk_api_version sk_enroll sk_load_resident_keys sk_sign " ]; then
	ok "only the four sk_* entry points are exported"
else
	not_ok "exported symbols: $syms"
fi

# --- enrolment by ssh-keygen -----------------------------------------------------------

K=$T/client
# enrol NAME TYPE EXPECTED_PUB_TYPE [ssh-keygen -O options]
enrol() {
	local name=$1 type=$2 want=$3
	shift 3
	run ssh-keygen -t "$type" -w "$LIB" -N '' -C "$name@ptsk" -f "$K/$name" "$@"
	if [ "$rc" = 0 ] && [ "$(cut -d' ' -f1 "$K/$name.pub" 2>/dev/null)" = "$want" ]; then
		ok "ssh-keygen -t $type${*:+ $*} makes a $want key"
	else
		not_ok "ssh-keygen -t $type${*:+ $*} makes a $want key" "status $rc: $(out)"
	fi
}
enrol ed ed25519-sk sk-ssh-ed25519@openssh.com
enrol ec ecdsa-sk sk-ecdsa-sha2-nistp256@openssh.com
enrol ed_uv ed25519-sk sk-ssh-ed25519@openssh.com -O verify-required
enrol ec_uv ecdsa-sk sk-ecdsa-sha2-nistp256@openssh.com -O verify-required
enrol ed_nt ed25519-sk sk-ssh-ed25519@openssh.com -O no-touch-required

run ssh-keygen -t ed25519-sk -w "$LIB" -N '' -f "$K/resident" -O resident
if [ "$rc" != 0 ] && grep -q "not supported" "$T/out" && [ ! -e "$K/resident" ] && [ ! -e "$K/resident.pub" ]; then
	ok "a resident key is refused as unsupported, and no key file is written"
else
	not_ok "a resident key is refused as unsupported, and no key file is written" "status $rc: $(out)"
fi
mkdir "$T/download"
cd "$T/download" || exit 1
run ssh-keygen -K -w "$LIB"
cd "$T" || exit 1
if [ "$rc" = 0 ] && grep -q "No keys to download" "$T/out" && [ -z "$(ls -A "$T/download")" ]; then
	ok "ssh-keygen -K finds no resident keys and writes nothing"
else
	not_ok "ssh-keygen -K finds no resident keys and writes nothing" "status $rc: $(out)"
fi

# --- signatures: ssh-keygen -Y sign and -Y verify ---------------------------------------

printf 'a release, 1.0\n' >"$T/msg"
printf 'a release, 1.1\n' >"$T/msg.tampered"
for k in ed ec ed_uv ec_uv; do
	printf 'ptsk@%s %s\n' "$k" "$(cut -d' ' -f1,2 "$K/$k.pub")"
done >"$T/allowed_signers"

# sign KEY [VAR=VALUE...]: $T/msg.sig, by the library with those settings.
sign() {
	local key=$1
	shift
	rm -f "$T/msg.sig"
	run env "$@" SSH_SK_PROVIDER="$LIB" ssh-keygen -Y sign -n file -f "$K/$key" "$T/msg"
}
# verify KEY FILE [OPTION...]: ssh-keygen -Y verify of $T/msg.sig over FILE.
verify() {
	local key=$1 file=$2
	shift 2
	run ssh-keygen -Y verify -n file -f "$T/allowed_signers" -I "ptsk@$key" -s "$T/msg.sig" "$@" <"$file"
}
# The flags and counter as OpenSSH read them from the signature.
details() {
	verify "$1" "$T/msg" -vv
	sed -n 's/.*signature details: \(counter = [0-9]*, flags = 0x[0-9a-f]*\).*/\1/p' "$T/out"
}

for k in ed ec ed_uv ec_uv; do
	sign "$k"
	if [ "$rc" = 0 ] && [ -s "$T/msg.sig" ]; then ok "$k: ssh-keygen -Y sign through the library"; else not_ok "$k: ssh-keygen -Y sign through the library" "status $rc: $(out)"; fi
	verify "$k" "$T/msg"
	if [ "$rc" = 0 ] && grep -q "Good \"file\" signature for ptsk@$k" "$T/out"; then ok "$k: ssh-keygen -Y verify accepts the signature"; else not_ok "$k: ssh-keygen -Y verify accepts the signature" "status $rc: $(out)"; fi
	verify "$k" "$T/msg.tampered"
	if [ "$rc" != 0 ] && grep -q "incorrect signature" "$T/out"; then ok "$k: ssh-keygen -Y verify refuses it over a tampered message"; else not_ok "$k: ssh-keygen -Y verify refuses it over a tampered message" "status $rc: $(out)"; fi
done

# The flags sk_enroll handed back are in the key file: ssh-keygen asks for
# a PIN when signing with a verify-required key, for a touch unless it is
# no-touch-required.
asked() {
	: >"$T/client/askpass.log"
	sign "$1"
	[ "$rc" = 0 ] || { echo "no signature: $(out)"; return; }
	grep -q "Enter PIN" "$T/client/askpass.log" && printf 'PIN '
	grep -q "Confirm user presence" "$T/out" && printf 'touch'
}
for k in "ed touch" "ec touch" "ed_uv PIN touch" "ec_uv PIN touch" "ed_nt "; do
	got=$(asked "${k%% *}")
	check "${k%% *}: signing asks for '${k#* }' (got '$got')" test "$got" = "${k#* }"
done

for k in ed ec; do
	sign "$k"
	got=$(details "$k")
	check "$k: by default the signature says counter 1, flags 0x05 (got '$got')" test "$got" = "counter = 1, flags = 0x05"
	sign "$k" POSTERN_SK_TEST_FLAGS=0x01 POSTERN_SK_TEST_COUNTER=4000000000
	got=$(details "$k")
	check "$k: POSTERN_SK_TEST_FLAGS and POSTERN_SK_TEST_COUNTER are what it signs (got '$got')" \
		test "$got" = "counter = 4000000000, flags = 0x01"
done

counter=$T/counter
for _ in 1 2 3; do sign ed POSTERN_SK_TEST_COUNTER_FILE="$counter"; done
got=$(details ed)
check "three signatures with a counter file: the file says 3, the last signature counter 3 (got '$got')" \
	test "$(cat "$counter" 2>/dev/null)/$got" = "3/counter = 3, flags = 0x05"
sign ed POSTERN_SK_TEST_COUNTER_FILE="$counter" POSTERN_SK_TEST_COUNTER=2
got=$(details ed)
check "a fixed counter wins and leaves the counter file alone (got '$got')" \
	test "$(cat "$counter")/$got" = "3/counter = 2, flags = 0x05"
check "the counter file is replaced by rename: no temporary file is left beside it" \
	test "$(cd "$T" && echo counter*)" = "counter counter.lock"

for bad in POSTERN_SK_TEST_FLAGS=0x100 POSTERN_SK_TEST_FLAGS=yes POSTERN_SK_TEST_FLAGS= \
	POSTERN_SK_TEST_COUNTER=-1 POSTERN_SK_TEST_COUNTER=4294967296 POSTERN_SK_TEST_COUNTER=' 7'; do
	sign ed "$bad"
	if [ "$rc" != 0 ] && [ ! -e "$T/msg.sig" ]; then ok "$bad: no signature"; else not_ok "$bad: no signature" "status $rc: $(out)"; fi
done
echo banana >"$counter"
sign ed POSTERN_SK_TEST_COUNTER_FILE="$counter"
if [ "$rc" != 0 ] && [ ! -e "$T/msg.sig" ] && [ "$(cat "$counter")" = banana ]; then
	ok "a counter file that holds no number: no signature, the file as it was"
else
	not_ok "a counter file that holds no number: no signature, the file as it was" "status $rc: $(out)"
fi

# --- the real sshd ------------------------------------------------------------------------------

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -C ptsk-host -f "$T/ssh/host_ed25519"
printf '[%s]:%s %s\n' "$HOST" "$port" "$(cut -d' ' -f1,2 "$T/ssh/host_ed25519.pub")" >"$K/known_hosts"
# OpenSSH 9.8 and later would penalise this test's refusals from one
# address by refusing the connections after them.
penalties=
if "$SSHD" -T -f /dev/null -o PerSourcePenalties=no -o HostKey="$T/ssh/host_ed25519" \
	-C user=root,host=localhost,addr=$HOST >/dev/null 2>&1; then
	penalties="PerSourcePenalties no"
fi
cat >"$T/ssh/sshd_config" <<EOF
# The throwaway sshd of tests/sk/test-sk-provider.sh: key only, no PAM.
ListenAddress $HOST:$port
HostKey $T/ssh/host_ed25519
PidFile none
LogLevel VERBOSE
UsePAM no
PermitRootLogin no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthenticationMethods publickey
AuthorizedKeysFile .ssh/authorized_keys
StrictModes yes
MaxAuthTries 3
LoginGraceTime 30
$penalties

Match User $STRICT
	PubkeyAuthOptions verify-required
EOF

# add_user NAME AUTHORIZED_KEYS_LINES: '*' as password: with UsePAM no,
# sshd refuses a locked ('!') account, which is useradd's default.
add_user() {
	local home=$T/home/$1
	acct_user "$1" --create-home --home-dir "$home" --shell /bin/sh --password '*' || return 1
	install -d -m 0700 -o "$1" -g "$1" "$home/.ssh"
	printf '%s\n' "$2" >"$home/.ssh/authorized_keys"
	chown "$1:$1" "$home/.ssh/authorized_keys"
	chmod 0600 "$home/.ssh/authorized_keys"
}
pub() { cut -d' ' -f1,2 "$K/$1.pub"; }
add_user "$STRICT" "$(pub ed_uv)
$(pub ec_uv)" || { echo "Bail out! cannot create $STRICT"; exit 1; }
add_user "$PLAIN" "$(pub ed)
$(pub ec)
verify-required $(pub ed_uv)
verify-required $(pub ec_uv)
no-touch-required $(pub ed_nt)" || { echo "Bail out! cannot create $PLAIN"; exit 1; }

if ! "$SSHD" -t -f "$T/ssh/sshd_config" >"$T/out" 2>&1; then
	echo "Bail out! sshd refuses its configuration: $(head -c 500 "$T/out" | tr '\n' ' ')"
	exit 1
fi
"$SSHD" -D -e -f "$T/ssh/sshd_config" </dev/null >"$T/sshd.log" 2>&1 &
SSHD_PID=$!
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/$HOST/$port") 2>/dev/null && break
	sleep 0.1
done
(exec 3<>"/dev/tcp/$HOST/$port") 2>/dev/null || {
	echo "Bail out! sshd did not start on $HOST:$port: $(head -c 500 "$T/sshd.log" | tr '\n' ' ')"
	exit 1
}

log_mark() { wc -l <"$T/sshd.log"; }
log_since() { tail -n +"$(($1 + 1))" "$T/sshd.log"; }
# log_wait MARK TEXT: sshd logged TEXT after MARK (it may land a moment
# after the client has gone).
log_wait() {
	local _
	for _ in $(seq 50); do
		log_since "$1" | grep -qF -- "$2" && return 0
		sleep 0.1
	done
	return 1
}

# login USER KEY FLAGS: `ssh ... true` with the library reporting FLAGS.
login() {
	run env POSTERN_SK_TEST_FLAGS="$3" ssh -F /dev/null -p "$port" -i "$K/$2" \
		-o SecurityKeyProvider="$LIB" -o IdentitiesOnly=yes -o IdentityAgent=none \
		-o BatchMode=yes -o PreferredAuthentications=publickey \
		-o UserKnownHostsFile="$K/known_hosts" -o GlobalKnownHostsFile=/dev/null \
		-o StrictHostKeyChecking=yes -o ConnectTimeout=10 "$1@$HOST" true
}

# admitted DESCRIPTION USER KEY FLAGS
admitted() {
	local mark
	mark=$(log_mark)
	login "$2" "$3" "$4"
	if [ "$rc" = 0 ] && log_wait "$mark" "Accepted publickey for $2 from $HOST"; then
		ok "$1"
	else
		not_ok "$1" "ssh: status $rc: $(out)
sshd: $(log_since "$mark" | head -c 2000)"
	fi
}

# refused DESCRIPTION USER KEY FLAGS WHY: refused, for that reason.
refused() {
	local mark
	mark=$(log_mark)
	login "$2" "$3" "$4"
	if [ "$rc" != 0 ] && log_wait "$mark" "$5" && ! log_since "$mark" | grep -q "Accepted publickey"; then
		ok "$1"
	else
		not_ok "$1" "ssh: status $rc: $(out)
sshd: $(log_since "$mark" | head -c 2000)"
	fi
}

U=$STRICT
admitted "PubkeyAuthOptions verify-required: ed25519-sk with flags 0x05 gets in" "$U" ed_uv 0x05
refused "PubkeyAuthOptions verify-required: ed25519-sk with flags 0x01 (no UV) is refused" "$U" ed_uv 0x01 "$UV_NOT_MET"
admitted "PubkeyAuthOptions verify-required: ecdsa-sk with flags 0x05 gets in" "$U" ec_uv 0x05
refused "PubkeyAuthOptions verify-required: ecdsa-sk with flags 0x01 (no UV) is refused" "$U" ec_uv 0x01 "$UV_NOT_MET"
refused "PubkeyAuthOptions verify-required: flags 0x04 (UV, no touch) is refused for presence" "$U" ed_uv 0x04 "$UP_NOT_MET"

U=$PLAIN
admitted "authorized_keys verify-required: ed25519-sk with flags 0x05 gets in" "$U" ed_uv 0x05
refused "authorized_keys verify-required: ed25519-sk with flags 0x01 is refused" "$U" ed_uv 0x01 "$UV_NOT_MET"
admitted "authorized_keys verify-required: ecdsa-sk with flags 0x05 gets in" "$U" ec_uv 0x05
refused "authorized_keys verify-required: ecdsa-sk with flags 0x01 is refused" "$U" ec_uv 0x01 "$UV_NOT_MET"
admitted "no verify-required anywhere: ed25519-sk with flags 0x01 gets in" "$U" ed 0x01
admitted "no verify-required anywhere: ecdsa-sk with flags 0x01 gets in" "$U" ec 0x01
refused "touch required by default: ed25519-sk with flags 0x00 is refused" "$U" ed 0x00 "$UP_NOT_MET"
refused "touch required by default: ecdsa-sk with flags 0x00 is refused" "$U" ec 0x00 "$UP_NOT_MET"
admitted "authorized_keys no-touch-required: ed25519-sk with flags 0x00 gets in" "$U" ed_nt 0x00

mark=$(log_mark)
login "$PLAIN" ed banana
sleep 0.5
if [ "$rc" != 0 ] && ! log_since "$mark" | grep -q "Accepted publickey"; then
	ok "a malformed POSTERN_SK_TEST_FLAGS: no signature, no login"
else
	not_ok "a malformed POSTERN_SK_TEST_FLAGS: no signature, no login" "ssh: status $rc: $(out)"
fi

finish
