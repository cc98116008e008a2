# Shared fixture of the postern-installd process tests (sourced, runs as root
# inside private-etc and syslog-capture; see test-installd.sh), with TAP
# from tests/common/tap.sh.
#
# Users: ptinst-d runs the daemon (the `postern` role); ptinst-ci is the CI
# front-end (the `postern-ci` role); ptinst-c runs the
# archive checker (the `postern-check` role); ptinst-m maintains ptmod and
# ptbig; ptinst-n maintains ptother; ptinst-rt is the release team;
# ptinst-s holds the release log's key (the `postern-logsign` role).
# Group ptinst-up is the socket's group (the `uploaders` role).

# enter_fixture "$@": from meson (as root), re-run the calling script inside
# syslog-capture and private-etc with its own work directory $R; inside, set
# the tool paths. Arguments: SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER.
enter_fixture() {
	if [ -z "${PTINST_INNER:-}" ]; then
		[ "$(id -u)" = 0 ] || skip_all "needs root"
		R=$(mktemp -d -p "$6")
		chmod 0755 "$R"
		export PTINST_INNER=1 R
		"$1" "$R.log" -- "$2" "$0" "$@"
		rc=$?
		if [ "$rc" != 0 ]; then
			echo "# audit log:"; sed 's/^/# /' "$R.log"
			echo "# daemon stderr:"; sed 's/^/# /' "$R/daemon.err" 2>/dev/null
			echo "# checker stderr:"; sed 's/^/# /' "$R/checker.err" 2>/dev/null
			echo "# signer stderr:"; sed 's/^/# /' "$R/signer.err" 2>/dev/null
		fi
		rm -rf "$R" "$R.log"
		exit "$rc"
	fi
	INSTALLD="$3" DRIVER="$4" ABUSE="$5" CHECKER="$7" LOG="$R.log" PRIVATE_ETC="$2"
	LOGSIGN="$(dirname "$INSTALLD")/postern-logsign"
	trap 'kill_daemon' EXIT
	setup_users
	setup_dirs
	write_config
}

. "$(dirname "${BASH_SOURCE[0]}")/../../common/tap.sh"
TAP_CHECK_QUIET=1

setup_users() {
	. "$(dirname "$PRIVATE_ETC")/lib-accounts.sh"
	acct_group ptinst-up -r
	acct_user ptinst-d -r -M -d /nonexistent -s /usr/sbin/nologin
	acct_user ptinst-c -r -M -d /nonexistent -s /usr/sbin/nologin
	acct_user ptinst-s -r -M -d /nonexistent -s /usr/sbin/nologin
	for u in ptinst-m ptinst-n ptinst-rt; do
		acct_user "$u" -M -d /nonexistent -s /bin/sh -G ptinst-up
	done
	# The CI front-end's user (the `postern-ci` role): may connect, has no incoming.
	acct_user ptinst-ci -r -M -d /nonexistent -s /usr/sbin/nologin -G ptinst-up
}

# The directories, as docs/RELEASES.md lays them out, under $R.
setup_dirs() {
	install -d -m 0755 -o root -g root "$R" "$R/state" "$R/srv"
	install -d -m 0711 -o root -g root "$R/incoming"
	for u in ptinst-m ptinst-n ptinst-rt; do
		install -d -m 0700 -o "$u" -g "$u" "$R/incoming/$u"
	done
	install -d -m 0755 -o ptinst-d -g ptinst-d "$R/pub" "$R/run" "$R/hooks"
	setup_signer
}

# The release log's signer: its own user and key, as postinst makes them.
setup_signer() {
	# The benches source this file without enter_fixture: the signer is built beside the daemon.
	LOGSIGN=${LOGSIGN:-$(dirname "$INSTALLD")/postern-logsign}
	install -d -m 0700 -o ptinst-s -g ptinst-s "$R/logsign"
	as ptinst-s "$LOGSIGN" --dir "$R/logsign" --keygen ptinst.test/log >/dev/null
}

# A socket as postern-check.socket and postern-logsign.socket make it: one
# COMMAND per connection, as USER, reachable by the daemon's user only.
# Sets ACTIVATOR to the activator's pid.
start_activated() { # SOCKET USER STDERR COMMAND...
	local sock=$1 user=$2 err=$3
	shift 3
	rm -f "$sock"
	systemd-socket-activate --seqpacket --accept --inetd -l "$sock" \
		setpriv --reuid="$user" --regid="$user" --clear-groups --inh-caps=-all -- \
		"$@" 2>>"$err" &
	ACTIVATOR=$!
	wait_until test -S "$sock"
	chown ptinst-d:ptinst-d "$sock"
	chmod 0600 "$sock"
}

# By pid, not by process group: its children first, then the activator.
# `|| true`: under set -e (the benches) a pkill that found no child would
# end the EXIT trap here, leaving the daemon running.
stop_activated() { # PID
	[ -n "$1" ] || return 0
	pkill -9 -P "$1" 2>/dev/null || true
	kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

start_signer() {
	stop_signer
	start_activated "$R/run/logsign.sock" ptinst-s "$R/signer.err" "$LOGSIGN" --dir "$R/logsign"
	SIGND=$ACTIVATOR
}

stop_signer() {
	stop_activated "${SIGND:-}"
	SIGND=
}

write_config() {
	mkdir -p /etc/postern
	cat > /etc/postern/postern.yaml <<YAML
paths:
  incoming: $R/incoming
  tree: $R/pub
  state: $R/state
  socket: $R/run/installd.sock
release_team:
  users: [ptinst-rt]
modules:
  ptmod:
    maintainers: [ptinst-m]
  ptbig:
    maintainers: [ptinst-m]
    version_dir: major
  ptother:
    maintainers: [ptinst-n]
  ptopen:
    open: true
hooks:
  after_install: [/bin/sh, -c, 'echo "\$MODULE \$VERSION \$USER \$MAINTAINER_UPLOAD \$SHA256" >> $R/hooks/after.log']
  mirror_sync: [/bin/sh, -c, 'date +%s >> $R/hooks/sync.log']
mirror_sync_interval: 2
delete_window: 3600
limits:
  time_limit: 60
YAML
	chmod 0644 /etc/postern/postern.yaml
}

start_checker() {
	stop_checker
	start_activated "$R/run/check.sock" ptinst-c "$R/checker.err" "$CHECKER"
	CHECKD=$ACTIVATOR
}

stop_checker() {
	stop_activated "${CHECKD:-}"
	CHECKD=
}

# Start the daemon (and the checker socket, once) and wait for its "ready"
# line (after recovery, before accepting). With arguments, they run the
# daemon (a wrapper such as strace or faketime, with its options).
start_daemon() {
	[ -n "$CHECKD" ] || start_checker
	[ -n "${SIGND:-}" ] || start_signer
	ready_before=$(grep -c 'postern-installd.*ready:' "$LOG" || true)
	setsid "$@" "$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --socket-group ptinst-up \
		--socket "$R/run/installd.sock" --check-socket "$R/run/check.sock" \
		--log-socket "$R/run/logsign.sock" --ci-user ptinst-ci --foreground 2>>"$R/daemon.err" &
	DAEMON=$!
	wait_until daemon_ready_since "$ready_before"
}

daemon_ready_since() {
	[ "$(grep -c 'postern-installd.*ready:' "$LOG" || true)" -gt "$1" ]
}

# kill -9 the daemon and every connection handler it forked, and the checker socket.
DAEMON=
CHECKD=
SIGND=
kill_daemon() {
	stop_checker
	stop_signer
	[ -n "$DAEMON" ] || return 0
	kill -9 -- "-$DAEMON" 2>/dev/null || true
	# Its status is 137 by design; under set -e (the benches) a failing wait
	# in an EXIT trap would become the script's own status.
	wait "$DAEMON" 2>/dev/null || true
}

stop_daemon() {
	kill -TERM "$DAEMON" 2>/dev/null
	wait "$DAEMON" 2>/dev/null
}

# as USER COMMAND...: run as one of the test users, with its groups.
as() {
	u="$1"; shift
	setpriv --reuid="$u" --regid="$u" --init-groups -- "$@"
}

client() { # client USER COMMAND ARGS...
	u="$1"; shift
	as "$u" "$DRIVER" /etc/postern/postern.yaml "$@"
}

# make_tarball USER FILE [TOPDIR] [COMPRESSOR]: a release tarball in USER's incoming.
make_tarball() {
	u="$1"; f="$2"; top="${3:-}"; comp="${4:-}"
	stem="${f%.tar.*}"
	[ -n "$top" ] || top="$stem"
	w=$(mktemp -d -p "$R")
	mkdir -p "$w/$top/src"
	echo "$f" > "$w/$top/README"
	printf 'Version %s\n\n- something changed\n' "$stem" > "$w/$top/NEWS"
	head -c 4096 /dev/urandom | od -x > "$w/$top/src/data.txt"
	case "${comp:-${f##*.}}" in
	xz) c=-J ;; gz) c=-z ;; bz2) c=-j ;; zst) c=--zstd ;; *) c= ;;
	esac
	tar -C "$w" $c -cf "$R/incoming/$u/$f" "$top"
	rm -rf "$w"
	chown "$u:$u" "$R/incoming/$u/$f"
	chmod 0644 "$R/incoming/$u/$f"
}

# A fingerprint of the whole tree: names, types, link targets, contents.
tree_state() {
	(cd "$R/pub" && find . -path ./.staging -prune -o -print0 | sort -z |
		xargs -0 -r sh -c 'for p; do if [ -L "$p" ]; then echo "$p -> $(readlink "$p")"; elif [ -f "$p" ]; then echo "$p $(sha256sum < "$p")"; else echo "$p/"; fi; done' sh)
}

# wait_until COMMAND...: poll COMMAND for up to 15 s. Hooks and the syslog
# capture run asynchronously, and a loaded CI machine makes any fixed sleep
# a guess.
wait_until() {
	local tries=0
	until "$@"; do
		[ $tries -ge 300 ] && return 1
		sleep 0.05; tries=$((tries + 1))
	done
}

# audit_has EVENT PATTERN...: a record of EVENT matching every pattern. The
# capture writes asynchronously, so give it up to 15 s.
audit_has() {
	local ev="$1" tries=0 lines p
	shift
	while [ $tries -lt 300 ]; do
		lines=$(grep "event=$ev " "$LOG" || true)
		for p; do lines=$(printf '%s\n' "$lines" | grep -e "$p" || true); done
		[ -n "$lines" ] && return 0
		sleep 0.05; tries=$((tries + 1))
	done
	return 1
}

cache_versions() { # the version list of cache.json for module $1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[0]==4; print(" ".join(d[2][sys.argv[2]]))' \
		"$R/pub/sources/$1/cache.json" "$1"
}

# make_big USER FILE MB: a release tarball of MB megabytes of incompressible data (gzip -1).
make_big() {
	u="$1"; f="$2"; mb="$3"
	stem="${f%.tar.gz}"
	w=$(mktemp -d -p "$R")
	mkdir "$w/$stem"
	head -c "${mb}M" /dev/urandom > "$w/$stem/blob"
	tar -C "$w" -cf - "$stem" | gzip -1 > "$R/incoming/$u/$f"
	rm -rf "$w"
	chown "$u:$u" "$R/incoming/$u/$f"
}

# The tree is consistent: every release verifies against its .sha256sum,
# cache.json lists exactly the releases present, nothing is left in .staging,
# and a reindex changes nothing.
tree_consistent() {
	python3 - "$R/pub/sources" <<'PY' || return 1
import json, os, sys, hashlib, re
root = sys.argv[1]
for mod in os.listdir(root):
    mdir = os.path.join(root, mod)
    present = {}
    for d in os.listdir(mdir):
        p = os.path.join(mdir, d)
        if not os.path.isdir(p) or os.path.islink(p):
            continue
        for f in os.listdir(p):
            m = re.fullmatch(re.escape(mod) + r'-(.+)\.(tar\.(?:xz|gz|bz2|zst))', f)
            if m:
                present.setdefault(m.group(1), {})[m.group(2)] = d + '/' + f
                lines = [l.split() for l in open(os.path.join(p, mod + '-' + m.group(1) + '.sha256sum')).read().splitlines()]
                h = hashlib.sha256(open(os.path.join(p, f), 'rb').read()).hexdigest()
                assert lines[0] == [h, f], (f, lines, h)
                # A signed release: its signature's line, second and last.
                for sh, sf in lines[1:]:
                    assert sf in (f + '.asc', f + '.sig', mod + '-' + m.group(1) + '.tar.sign'), (f, sf)
                    assert hashlib.sha256(open(os.path.join(p, sf), 'rb').read()).hexdigest() == sh, sf
                assert len(lines) <= 2, (f, lines)
    cache = json.load(open(os.path.join(mdir, 'cache.json')))
    listed = {v: {k: x for k, x in fm.items() if k != 'sha256sum'} for v, fm in cache[1][mod].items()}
    assert listed == present, (mod, listed, present)
    assert sorted(cache[2][mod]) == sorted(present), (cache[2], present)
PY
	[ -z "$(ls -A "$R/pub/.staging")" ] || return 1
	log_agrees || return 1
	before=$(tree_state)
	"$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --reindex --all || return 1
	[ "$before" = "$(tree_state)" ]
}

# The release log proves exactly what the tree holds (postern-verify
# --mirror, with the signer's own key), and its size is what the state says.
log_agrees() {
	local vkey size
	[ -e "$R/pub/log/checkpoint" ] || return 0
	vkey=$(as ptinst-s "$LOGSIGN" --dir "$R/logsign" --vkey) || return 1
	size=$(sed -n 2p "$R/pub/log/checkpoint")
	[ "$size" = "$(cat "$R/state/history/log.size")" ] || { echo "# log.size disagrees"; return 1; }
	"$(dirname "$INSTALLD")/../client/postern-verify" --vkey "$vkey" --mirror "$R/pub" >"$R/verify.out" 2>&1 ||
		{ sed 's/^/# verify: /' "$R/verify.out"; return 1; }
}

# --- OpenPGP signatures (test-installd-signatures.sh) -------------------------
# Keys live in throwaway GNUPGHOMEs under $R; each uploader's keyring is
# exported into $R/keyrings/<user>.pgp, root-owned 0644, as an admin would.

# gpg_in HOME ARGS...: gpg on the throwaway home, no passphrase, no terminal.
gpg_in() {
	local home="$1"; shift
	GNUPGHOME="$home" gpg --batch --yes --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"
}

# make_key HOME UID [EXPIRE]: a new signing-only ed25519 key; prints its fingerprint.
make_key() {
	[ -d "$1" ] || install -d -m 0700 "$1"
	GPG_HOMES="${GPG_HOMES:-} $1"
	gpg_in "$1" --quick-gen-key "$2" ed25519 sign "${3:-never}" 2>/dev/null || return 1
	gpg_in "$1" --with-colons --list-keys "$2" | awk -F: '/^fpr/ { print $10; exit }'
}

# export_keyring USER HOME FPR...: those keys, exported, as USER's keyring.
export_keyring() {
	local u="$1" home="$2"; shift 2
	install -d -m 0755 -o root -g root "$R/keyrings"
	gpg_in "$home" --export "$@" > "$R/keyrings/$u.pgp"
	chown root:root "$R/keyrings/$u.pgp"
	chmod 0644 "$R/keyrings/$u.pgp"
}

# sign_file HOME FPR FILE OUT [--armor]: a detached signature of FILE by FPR, owned like FILE.
sign_file() {
	local home="$1" fpr="$2" f="$3" out="$4"; shift 4
	gpg_in "$home" --local-user "$fpr" "$@" --detach-sign --output "$out" "$f" &&
		chown --reference="$f" "$out" && chmod 0644 "$out"
}

# sign_tar HOME FPR TARBALL OUT: kup's armored signature of the uncompressed tar stream.
sign_tar() {
	local home="$1" fpr="$2" f="$3" out="$4"
	xz -dcf "$f" 2>/dev/null | gpg_in "$home" --local-user "$fpr" --armor --detach-sign --output "$out" - &&
		chown --reference="$f" "$out" && chmod 0644 "$out"
}

# Stop the gpg-agents the keys started (by their homes, one by one).
kill_gpg_agents() {
	local h
	for h in ${GPG_HOMES:-}; do
		gpgconf --homedir "$h" --kill gpg-agent 2>/dev/null || true
	done
	# An EXIT trap's status would become a `set -e` script's own.
	return 0
}

# enable_signatures: signatures.keyrings in $R/keyrings, and module ptsig
# (maintainer ptinst-m) requiring a signature; ptmod keeps them optional.
enable_signatures() {
	install -d -m 0755 -o root -g root "$R/keyrings"
	python3 - /etc/postern/postern.yaml "$R/keyrings" <<'PY'
import sys
path, keyrings = sys.argv[1], sys.argv[2]
text = open(path).read()
text = text.replace("modules:\n", "modules:\n  ptsig:\n    maintainers: [ptinst-m]\n    signature: required\n", 1)
text += "signatures:\n  keyrings: %s\n  require: false\n" % keyrings
open(path, 'w').write(text)
PY
	chmod 0644 /etc/postern/postern.yaml
}
