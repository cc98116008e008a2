#!/bin/bash
# postern-check, the confined archive checker, through the real daemon: its
# seccomp filter kills open, socket and execve; during a real install it
# runs as its own user with Seccomp: 2 and NoNewPrivs: 1 and only its two
# fds; a stream that needs more memory than limits.check_memory is refused
# with a message that names the limit; and a checker that crashes, or
# answers with anything but one well-formed verdict, gets the upload
# refused. Every refusal leaves the upload in incoming and the tree as it
# was, and the daemon goes on.
#
# test-installd-checker.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"

echo "1..25"

# --- the sandbox itself ------------------------------------------------------
"$CHECKER" --help >/dev/null 2>&1 && ok "postern-check --help exits 0" || not_ok "--help failed"
w=$(mktemp -d -p "$R")
chown ptinst-c "$w"
for call in open socket execve; do
	(cd "$w" && as ptinst-c "$CHECKER" --seccomp-selftest="$call") >/dev/null 2>&1
	rc=$?
	[ "$rc" = $((128 + 31)) ] && ok "seccomp self-test: $call kills the checker with SIGSYS" ||
		not_ok "seccomp self-test: $call ended with status $rc (3: the call was allowed)"
done
[ -z "$(ls -A "$w")" ] && ok "the self-tests created nothing (the checker's own directory is writable)" ||
	not_ok "self-tests left: $(ls -A "$w")"

# --- watching a real install ---------------------------------------------------
start_daemon
cuid=$(id -u ptinst-c)
# Text that xz decodes slowly enough to be watched at work (a second or so).
w=$(mktemp -d -p "$R")
mkdir "$w/ptmod-2.0"
head -c 16M /dev/urandom | od -x > "$w/ptmod-2.0/data.txt"
tar -C "$w" -cf - ptmod-2.0 | xz -0 -T2 > "$R/incoming/ptinst-m/ptmod-2.0.tar.xz"
rm -rf "$w"
chown ptinst-m:ptinst-m "$R/incoming/ptinst-m/ptmod-2.0.tar.xz"
# Poll /proc for the checker while it decodes: the first sample taken after it
# entered its sandbox (Seccomp: 2) is kept, with its fds.
python3 - "$cuid" "$(readlink -f "$CHECKER")" "$R/watch" <<'PY' & watcher=$!
import os, sys, time
uid, exe, out = sys.argv[1], sys.argv[2], sys.argv[3]
end = time.time() + 60
while time.time() < end:
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            if str(os.stat('/proc/' + pid).st_uid) != uid or os.readlink('/proc/%s/exe' % pid) != exe:
                continue
            status = open('/proc/%s/status' % pid).read()
            fds = sorted(os.listdir('/proc/%s/fd' % pid), key=int)
        except OSError:
            continue
        if 'Seccomp:\t2' in status:
            open(out, 'w').write(status + 'Fds:\t' + ' '.join(fds) + '\n')
            sys.exit(0)
    time.sleep(0.002)
sys.exit(1)
PY
wait_until test -e /proc/$watcher
out=$(client ptinst-m install-module ptmod-2.0.tar.xz 2>&1)
[ $? = 0 ] && [ -e "$R/pub/sources/ptmod/2.0/ptmod-2.0.tar.xz" ] && ok "a 60 MB tar is installed through the checker" ||
	not_ok "big install: $out"
wait "$watcher" && ok "the checker was seen at work in its sandbox" || not_ok "no sandboxed checker seen in /proc"
field() { awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$R/watch" 2>/dev/null; }
[ "$(field Uid)" = "$cuid $cuid $cuid $cuid" ] && [ "$(field Gid | tr -s ' \t' ' ')" = "$(id -g ptinst-c) $(id -g ptinst-c) $(id -g ptinst-c) $(id -g ptinst-c)" ] &&
	ok "the checker runs as ptinst-c (real, effective, saved, fs uid and gid)" || not_ok "checker ids: $(field Uid) / $(field Gid)"
[ -z "$(field Groups)" ] && ok "the checker has no supplementary groups" || not_ok "checker groups: $(field Groups)"
[ "$(field Seccomp)" = 2 ] && [ "$(field NoNewPrivs)" = 1 ] && ok "Seccomp: 2 and NoNewPrivs: 1" ||
	not_ok "Seccomp $(field Seccomp), NoNewPrivs $(field NoNewPrivs)"
[ "$(field CapEff)" = 0000000000000000 ] && [ "$(field CapPrm)" = 0000000000000000 ] && ok "the checker has no capabilities" ||
	not_ok "checker capabilities: $(field CapEff) $(field CapPrm)"
[ "$(field Fds)" = "0 1" ] && ok "the checker holds only its socket and the upload (fds 0 and 1)" || not_ok "checker fds: $(field Fds)"

# --- memory: a 1.5 GiB xz dictionary under the default 512 MiB -----------------
before=$(tree_state)
w=$(mktemp -d -p "$R")
mkdir -p "$w/ptmod-3.0"
echo "a small release" > "$w/ptmod-3.0/README"
tar -C "$w" -cf - ptmod-3.0 | xz -T1 --lzma2=dict=1536MiB > "$R/incoming/ptinst-m/ptmod-3.0.tar.xz"
chown ptinst-m:ptinst-m "$R/incoming/ptinst-m/ptmod-3.0.tar.xz"
xz -lvv "$R/incoming/ptinst-m/ptmod-3.0.tar.xz" | grep -q 'Memory needed: *1537 MiB' &&
	ok "the test upload is a valid xz stream that asks for 1.5 GiB" || not_ok "xz did not make a 1.5 GiB dictionary"
out=$(client ptinst-m install-module ptmod-3.0.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'more memory than the limit of 512 MiB (limits.check_memory).*xz -9 needs 65 MiB' &&
	ok "refused, naming the memory limit and how to recompress" || not_ok "big dictionary: $out"
[ -e "$R/incoming/ptinst-m/ptmod-3.0.tar.xz" ] && [ "$before" = "$(tree_state)" ] &&
	ok "the upload stays in incoming, the tree is unchanged" || not_ok "memory refusal changed something"
make_tarball ptinst-m ptmod-3.1.tar.xz
check "the daemon goes on: the next install works" client ptinst-m install-module ptmod-3.1.tar.xz
# The limit is the policy's: at 64M, even xz -9 (64 MiB dictionary) is too much.
sed -i 's/^  time_limit: 60$/  time_limit: 60\n  check_memory: 64M/' /etc/postern/postern.yaml
stop_daemon; start_daemon
w=$(mktemp -d -p "$R")
mkdir -p "$w/ptmod-3.2"
echo "a small release" > "$w/ptmod-3.2/README"
tar -C "$w" -cf - ptmod-3.2 | xz -T1 -9 > "$R/incoming/ptinst-m/ptmod-3.2.tar.xz"
chown ptinst-m:ptinst-m "$R/incoming/ptinst-m/ptmod-3.2.tar.xz"
out=$(client ptinst-m install-module ptmod-3.2.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'more memory than the limit of 64 MiB (limits.check_memory)' &&
	[ -e "$R/incoming/ptinst-m/ptmod-3.2.tar.xz" ] &&
	ok "limits.check_memory: 64M refuses xz -9, naming 64 MiB" || not_ok "check_memory 64M: $out"
sed -i '/^  check_memory: 64M$/d' /etc/postern/postern.yaml
stop_daemon; start_daemon

# --- a hostile checker: the daemon believes nothing but one clean verdict ---------
# fake_checker PROGRAM: serve the checker socket with PROGRAM (python) instead.
fake_checker() {
	stop_checker
	rm -f "$R/run/check.sock"
	systemd-socket-activate --seqpacket --accept --inetd -l "$R/run/check.sock" \
		setpriv --reuid=ptinst-c --regid=ptinst-c --clear-groups -- /usr/bin/python3 -c "$1" 2>>"$R/checker.err" &
	CHECKD=$!
	wait_until test -S "$R/run/check.sock"
	chown ptinst-d:ptinst-d "$R/run/check.sock"
	chmod 0600 "$R/run/check.sock"
}
# A verdict record (wire/check_wire.h) with the given fields.
verdict_py='
import os, socket, struct, sys
s = socket.socket(fileno=0)
s.recvmsg(4096, 64)
def rec(outcome=1, comp=0, msg=b"", news=b"", has_news=0, magic=b"PSTCHKV2", signer=b""):
    return magic + struct.pack(">IQQQI", outcome, comp, 10240, 3, has_news) + msg.ljust(512, b"\0") + news.ljust(4097, b"\0") + signer.ljust(65, b"\0")
'
hostile() { # hostile NAME PYTHON EXPECTED-MESSAGE
	local v="$2" f="ptmod-4.$n.tar.xz"
	fake_checker "$verdict_py$v"
	make_tarball ptinst-m "$f"
	before=$(tree_state)
	out=$(client ptinst-m install-module "$f" 2>&1)
	if [ $? -ne 0 ] && printf '%s' "$out" | grep -q "$3" && [ -e "$R/incoming/ptinst-m/$f" ] &&
		[ "$before" = "$(tree_state)" ]; then
		ok "hostile checker, $1: refused, upload kept, tree unchanged"
	else
		not_ok "hostile checker, $1: $out"
	fi
}
size_of() { stat -c %s "$R/incoming/ptinst-m/$1"; }
hostile "no verdict (crash)" 'os.kill(os.getpid(), 11)' 'stopped without a verdict'
hostile "a short verdict" 's.send(rec()[:100])' 'malformed verdict'
hostile "an oversized verdict" 's.send(rec() + b"x" * 60000)' 'oversized verdict'
hostile "a pass that did not read the file" 's.send(rec())' 'read 0 bytes of the'
hostile "a message with a terminal escape" 's.send(rec(outcome=2, msg=b"ok\x1b[2J"))' 'malformed verdict'
check "the daemon survived every hostile checker" kill -0 "$DAEMON"
start_checker
make_tarball ptinst-m ptmod-5.0.tar.xz
check "with the real checker back, installs work again" client ptinst-m install-module ptmod-5.0.tar.xz
check "tree and indexes consistent after all of it" tree_consistent
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
