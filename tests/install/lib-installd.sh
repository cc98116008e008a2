# Shared fixture of the postern-installd process tests (sourced, runs as root
# inside private-etc and syslog-capture; see test-installd.sh).
#
# Users: ptinst-d runs the daemon (the `postern` role); ptinst-m maintains
# ptmod and ptbig; ptinst-n maintains ptother; ptinst-rt is the release team.
# Group ptinst-up is the socket's group (the `uploaders` role).

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # check DESCRIPTION COMMAND...
	local what="$1"; shift
	if "$@" >/dev/null 2>&1; then ok "$what"; else not_ok "$what"; fi
}

setup_users() {
	groupadd -r ptinst-up
	useradd -r -M -d /nonexistent -s /usr/sbin/nologin ptinst-d
	for u in ptinst-m ptinst-n ptinst-rt; do
		useradd -M -d /nonexistent -s /bin/sh -G ptinst-up "$u"
	done
}

# The directories, as docs/RELEASES.md lays them out, under $R.
setup_dirs() {
	install -d -m 0755 -o root -g root "$R" "$R/state" "$R/srv"
	install -d -m 0711 -o root -g root "$R/incoming"
	for u in ptinst-m ptinst-n ptinst-rt; do
		install -d -m 0700 -o "$u" -g "$u" "$R/incoming/$u"
	done
	install -d -m 0755 -o ptinst-d -g ptinst-d "$R/pub" "$R/run" "$R/hooks"
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

# Start the daemon and wait for its "ready" line (after recovery, before accepting).
start_daemon() {
	ready_before=$(grep -c 'postern-installd.*ready:' "$LOG" || true)
	setsid "$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --socket-group ptinst-up \
		--socket "$R/run/installd.sock" --foreground 2>>"$R/daemon.err" &
	DAEMON=$!
	i=0
	while [ "$(grep -c 'postern-installd.*ready:' "$LOG" || true)" -le "$ready_before" ] && [ $i -lt 200 ]; do
		sleep 0.05; i=$((i + 1))
	done
}

# kill -9 the daemon and every connection handler it forked.
kill_daemon() {
	kill -9 -- "-$DAEMON" 2>/dev/null
	wait "$DAEMON" 2>/dev/null
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
	w=$(mktemp -d "$R/mk.XXXXXX")
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

audit_has() { # audit_has EVENT PATTERN...: a record of EVENT matching every pattern
	ev="$1"; shift
	lines=$(grep "event=$ev " "$LOG" || true)
	for p; do lines=$(printf '%s\n' "$lines" | grep -e "$p" || true); done
	[ -n "$lines" ]
}

cache_versions() { # the version list of cache.json for module $1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[0]==4; print(" ".join(d[2][sys.argv[2]]))' \
		"$R/pub/sources/$1/cache.json" "$1"
}
