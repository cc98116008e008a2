#!/bin/bash
# The release log end to end (tests/log/meson.build): a log of real entries
# for a real tree, proved by postern-verify and by Go's sumdb, then every
# tamper case the issue lists, each caught with a message that says what.
set -euo pipefail
make_log=$1 verify=$2 src=$3
tmp=$(mktemp -d /tmp/test-log-verify.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
checks=0

die() { echo "FAIL: $*" >&2; exit 1; }

# expect RC PATTERN CMD...: CMD exits RC and its output matches PATTERN.
expect() {
	local want=$1 pattern=$2 rc=0 out
	shift 2
	out=$("$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || die "exit $rc, not $want: $*"$'\n'"$out"
	grep -Eq -- "$pattern" <<<"$out" || die "no /$pattern/ in the output of: $*"$'\n'"$out"
	checks=$((checks + 1))
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# entry NAME OP MODULE VERSION UPLOADER (file|gone):PATH...: one entry file.
entry() {
	local name=$1 op=$2 module=$3 version=$4 uploader=$5 f
	shift 5
	{
		printf 'postern-entry 1\nop %s\ntime 2026-12-07T03:00:00Z\nmodule %s\n' "$op" "$module"
		printf 'version %s\nuploader %s\nsigner -\nforced no\n' "$version" "$uploader"
		if [ "$op" = delete ]; then printf 'attic attic/%s-%s\n' "$module" "$version"
		else printf 'attic -\n'; fi
		for f in "$@"; do
			printf '%s %s %s\n' "${f%%:*}" "${f#*:}" "$(sha "tree/${f#*:}")"
		done
	} >"entries/$name"
}

# release MODULE VERSION: a tarball and its .sha256sum in the tree, and its entry.
release() {
	local m=$1 v=$2 dir=tree/sources/$1/${2%.*}
	mkdir -p "$dir"
	head -c 2000 /dev/urandom >"$dir/$m-$v.tar.xz"
	(cd "$dir" && sha256sum "$m-$v.tar.xz" >"$m-$v.sha256sum")
	entry "$m-$v" install "$m" "$v" alice "file:sources/$m/${v%.*}/$m-$v.tar.xz" \
		"file:sources/$m/${v%.*}/$m-$v.sha256sum"
}

go_conformance() {
	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$tmp/gocache" GOFLAGS= \
		go run "$src/conformance.go" "$@"
}

command -v go >/dev/null || die "go is missing: install the Build-Depends (scripts/install-deps)"
mkdir -p entries tree/log state
"$make_log" keygen releases.test/postern-log log.key log.vkey
vkey=$(cat log.vkey)

release gtk 4.14.0
release glib 2.80.1
"$make_log" append log.key tree/log entries/gtk-4.14.0 entries/glib-2.80.1
cp tree/log/checkpoint checkpoint.2
for i in $(seq 1 300); do release pkg 1.$i; done
"$make_log" append log.key tree/log $(for i in $(seq 1 300); do echo entries/pkg-1.$i; done)
release gtk 4.14.1
"$make_log" append log.key tree/log entries/gtk-4.14.1
# A delete-own: the files go to the attic, the entry says so.
entry glib-gone delete glib 2.80.1 alice gone:sources/glib/2.80/glib-2.80.1.tar.xz \
	gone:sources/glib/2.80/glib-2.80.1.sha256sum
mkdir -p tree/attic/glib-2.80.1
mv tree/sources/glib/2.80/glib-2.80.1.* tree/attic/glib-2.80.1/
"$make_log" append log.key tree/log entries/glib-gone
[ -f tree/log/tile/0/001.p/48 ] && [ -f tree/log/tile/entries/001.p/48 ] && [ -f tree/log/tile/1/000.p/1 ] ||
	die "a log of 304 entries should have tile/0/001.p/48, tile/entries/001.p/48, tile/1/000.p/1"

echo "== postern-verify proves genuine files, the mirror and the state"
gtk=tree/sources/gtk/4.14/gtk-4.14.0.tar.xz
expect 0 "^OK .*gtk-4.14.0.tar.xz: gtk 4.14.0, entry 0 of 304, uploaded by alice" \
	"$verify" --vkey log.vkey --log tree/log "$gtk"
expect 0 "^OK .*pkg-1.299.tar.xz" "$verify" "tree/sources/pkg/1/pkg-1.299.tar.xz" --log tree/log --vkey "$vkey"
expect 0 "NOTE .*glib-2.80.1.tar.xz: removed from the tree later \(entry 303\)" \
	"$verify" --vkey log.vkey --log tree/log tree/attic/glib-2.80.1/glib-2.80.1.tar.xz
expect 0 "^OK the mirror holds exactly the 604 files the log of 304 entries publishes" \
	"$verify" --vkey log.vkey --mirror tree
expect 0 "^NEW first checkpoint of releases.test/postern-log remembered: 304 entries" \
	"$verify" --vkey log.vkey --mirror tree --state state
expect 0 "^OK the mirror" "$verify" --vkey log.vkey --mirror tree --state state
expect 0 "go sumdb: checkpoint signature, 304 entries, tiles and inclusion proofs verified" \
	go_conformance log.vkey tree/log
expect 0 "go sumdb: consistency from 2 to 304 entries verified" \
	go_conformance log.vkey tree/log checkpoint.2
expect 0 "^usage: postern-verify" "$verify" --help
expect 2 "vkey is required" "$verify" --log tree/log "$gtk"
expect 2 "a log URL is http:// or https://" "$verify" --vkey log.vkey --log ftp://127.0.0.1/log "$gtk"

echo "== the same over HTTP (libcurl), from a server on loopback"
python3 -u -m http.server --bind 127.0.0.1 --directory "$tmp" 0 >http.out 2>&1 &
http_pid=$!
trap 'kill $http_pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do grep -q "port [0-9]" http.out && break; sleep 0.1; done
port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' http.out | head -1)
[ -n "$port" ] || die "python3 -m http.server did not start: $(cat http.out)"
url=http://127.0.0.1:$port
# curl, which we did not write, sees the same checkpoint postern-verify will read.
curl -fsS "$url/tree/log/checkpoint" | cmp - tree/log/checkpoint || die "curl read another checkpoint"
expect 0 "^OK .*gtk-4.14.0.tar.xz: gtk 4.14.0, entry 0 of 304" \
	"$verify" --vkey log.vkey --log "$url/tree/log/" "$gtk"
expect 0 "^OK the mirror holds exactly the 604 files" "$verify" --vkey log.vkey --log "$url/tree/log" --mirror tree
expect 2 "ERROR the log: .*/nothing/checkpoint: not found \\(404\\)" "$verify" --vkey log.vkey --log "$url/nothing" "$gtk"
expect 2 "ERROR the log: .*Couldn't connect|ERROR the log: .*connect" \
	"$verify" --vkey log.vkey --log "http://127.0.0.1:1/log" "$gtk"

echo "== the inclusion proof beside a release (c2sp.org/tlog-proof), offline"
gtk1=tree/sources/gtk/4.14/gtk-4.14.1.tar.xz
"$make_log" proof log.vkey tree/log 302 entries/gtk-4.14.1 "$gtk1.tlog-proof"
expect 0 "^OK .*gtk-4.14.1.tar.xz: gtk 4.14.1, entry 302 of 304, uploaded by alice \(offline" \
	"$verify" --vkey log.vkey "$gtk1"
expect 0 "go sumdb: tlog-proof of entry 302 under the checkpoint of 304 entries verified" \
	go_conformance proof log.vkey "$gtk1.tlog-proof"
expect 0 "^OK the mirror holds exactly the 604 files" "$verify" --vkey log.vkey --mirror tree
expect 2 "ERROR .*gtk-4.14.0.tar.xz.tlog-proof: cannot open it" "$verify" --vkey log.vkey "$gtk"
expect 2 "state needs --log" "$verify" --vkey log.vkey --state state "$gtk1"
mkdir -p p1 && cp "$gtk1" "$gtk1.tlog-proof" p1/
sed -i 's/^index 302$/index 301/' p1/gtk-4.14.1.tar.xz.tlog-proof
expect 1 "^MISMATCH .*: the inclusion proof of entry 301 does not lead to the signed root" \
	"$verify" --vkey log.vkey p1/gtk-4.14.1.tar.xz
expect 1 "tlog-proof of entry 301: " go_conformance proof log.vkey p1/gtk-4.14.1.tar.xz.tlog-proof
cp "$gtk1.tlog-proof" p1/
head -c 2000 /dev/urandom >p1/gtk-4.14.1.tar.xz
expect 1 "^MISMATCH .*: sha256 [0-9a-f]{64}: the proved entry 302 did not publish this file" \
	"$verify" --vkey log.vkey p1/gtk-4.14.1.tar.xz
mkdir -p p2 && cp "$gtk1" p2/
"$make_log" keygen releases.test/postern-log p2.key p2.vkey
"$make_log" append p2.key p2 entries/gtk-4.14.1
"$make_log" proof p2.vkey p2 0 entries/gtk-4.14.1 p2/gtk-4.14.1.tar.xz.tlog-proof
expect 1 "^MISMATCH .*the note is not signed by the log key" "$verify" --vkey log.vkey p2/gtk-4.14.1.tar.xz
cp -a tree p3
"$make_log" proof log.vkey tree/log 0 entries/gtk-4.14.0 p3/sources/gtk/4.14/gtk-4.14.1.tar.xz.tlog-proof
expect 1 "^CHANGED sources/gtk/4.14/gtk-4.14.1.tar.xz.tlog-proof: the inclusion proof does not hold: entry 0 does not publish gtk-4.14.1.tar.xz" \
	"$verify" --vkey log.vkey --mirror p3
cp "$gtk1.tlog-proof" p3/sources/gtk/4.14/gtk-4.14.0.tar.xz.tlog-proof
sed -i '2s/^extra ..../extra cG9z/' p3/sources/gtk/4.14/gtk-4.14.0.tar.xz.tlog-proof
expect 1 "^CHANGED sources/gtk/4.14/gtk-4.14.0.tar.xz.tlog-proof: the inclusion proof does not hold" \
	"$verify" --vkey log.vkey --mirror p3
echo stray >p3/sources/gtk/4.14/gtk-4.99.0.tar.xz.tlog-proof
expect 1 "^UNLOGGED sources/gtk/4.14/gtk-4.99.0.tar.xz.tlog-proof" "$verify" --vkey log.vkey --mirror p3

echo "== tamper: a tarball and its .sha256sum replaced in the tree"
cp -a tree t1
head -c 2000 /dev/urandom >t1/sources/gtk/4.14/gtk-4.14.0.tar.xz
(cd t1/sources/gtk/4.14 && sha256sum gtk-4.14.0.tar.xz >gtk-4.14.0.sha256sum)
expect 1 "^MISMATCH .*gtk-4.14.0.tar.xz: sha256 [0-9a-f]{64}, but the log's entry 0 released this name with sha256" \
	"$verify" --vkey log.vkey --log t1/log t1/sources/gtk/4.14/gtk-4.14.0.tar.xz
expect 1 "^CHANGED sources/gtk/4.14/gtk-4.14.0.sha256sum: sha256" "$verify" --vkey log.vkey --mirror t1
expect 1 "^CHANGED sources/gtk/4.14/gtk-4.14.0.tar.xz: sha256 .*, the log says" "$verify" --vkey log.vkey --mirror t1

echo "== tamper: files added to and missing from a mirror"
cp -a tree t2
echo evil >t2/sources/gtk/4.14/gtk-4.14.9.tar.xz
rm t2/sources/pkg/1/pkg-1.7.tar.xz
mkfifo t2/sources/gtk/fifo
expect 1 "^UNLOGGED sources/gtk/4.14/gtk-4.14.9.tar.xz: sha256 .*no entry of the log published it" \
	"$verify" --vkey log.vkey --mirror t2
expect 1 "^MISSING sources/pkg/1/pkg-1.7.tar.xz: the log published it" "$verify" --vkey log.vkey --mirror t2
expect 1 "^UNLOGGED sources/gtk/fifo: not a regular file" "$verify" --vkey log.vkey --mirror t2

# bundle_edit TREE PYTHON: rewrite the entries of bundle 001 (48 of them) with PYTHON over list e.
bundle_edit() {
	python3 - "$1/log/tile/entries/001.p/48" "$2" <<'PY'
import sys
path, code = sys.argv[1], sys.argv[2]
d = open(path, 'rb').read(); e = []
while d:
    n = d[0] << 8 | d[1]; e.append(d[2:2 + n]); d = d[2 + n:]
exec(code)
open(path, 'wb').write(b''.join(len(x).to_bytes(2, 'big') + x for x in e))
PY
}

echo "== tamper: the log's entries"
cp -a tree t3
bundle_edit t3 "e[5] = e[5].replace(b'alice', b'alicf')"
expect 1 "MISMATCH the log: the log's entries do not hash to its signed checkpoint" \
	"$verify" --vkey log.vkey --log t3/log "$gtk"
expect 1 "entry 261: its record hash is not the tiles'" go_conformance log.vkey t3/log
cp -a tree t4
bundle_edit t4 "del e[10]; e.append(e[-1])"
expect 1 "entries do not hash to its signed checkpoint: an entry was changed, removed, added or reordered" \
	"$verify" --vkey log.vkey --mirror t4
cp -a tree t5
bundle_edit t5 "e[3], e[4] = e[4], e[3]"
expect 1 "entries do not hash to its signed checkpoint" "$verify" --vkey log.vkey --mirror t5
cp -a tree t6
bundle_edit t6 "del e[10]"
expect 2 "tile/entries/001.p/48 does not hold exactly 48 entries" "$verify" --vkey log.vkey --mirror t6
cp -a tree t7
printf '\x00' | dd of=t7/log/tile/0/000 bs=1 seek=100 conv=notrunc status=none
expect 1 "MISMATCH the log: the log.s hash tile tile/0/000 does not match its entries \(hash 3\)" "$verify" --vkey log.vkey --log t7/log "$gtk"

echo "== tamper: the log restarted from nothing and re-signed, or rolled back"
mkdir -p t8/log
"$make_log" append log.key t8/log entries/gtk-4.14.0 $(for i in $(seq 1 303); do echo entries/pkg-1.$((i % 300 + 1)); done)
cp -a state state8
expect 3 "^FORK the log releases.test/postern-log is not an extension of the one this state remembers: it has the same size and another root" \
	"$verify" --vkey log.vkey --log t8/log --state state8 "$gtk"
"$make_log" append log.key t8/log entries/gtk-4.14.1
expect 3 "its consistency proof fails" "$verify" --vkey log.vkey --log t8/log --state state8 "$gtk"
grep -q "^304$" state8/checkpoint.releases.test_postern-log || die "a fork must leave the remembered checkpoint alone"
mkdir -p t9/log
"$make_log" append log.key t9/log entries/gtk-4.14.0
expect 3 "it is smaller than before" "$verify" --vkey log.vkey --log t9/log --state state8 "$gtk"

echo "== tamper: a checkpoint signed by another key"
"$make_log" keygen releases.test/postern-log other.key other.vkey
mkdir -p t10/log
"$make_log" append other.key t10/log entries/gtk-4.14.0
cp -a tree t11
cp t10/log/checkpoint t11/log/checkpoint
expect 2 "the note is not signed by the log key releases.test/postern-log" "$verify" --vkey log.vkey --mirror t11
expect 1 "checkpoint: verifier name|unknown key|invalid signature|signature" go_conformance log.vkey t11/log

echo "ok: $checks checks"
