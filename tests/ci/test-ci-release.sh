#!/bin/bash
# CI releases end to end (issue 28): tokens of a throwaway GitLab issuer
# (tests/ci/e2e-tokens.py, PyJWT), sent by curl to the real postern-ci,
# which runs as its own user, hands each file to the real daemon, checker
# and signer. One release is installed with its path and SHA-256 answered;
# each refusal has its HTTP status and installs nothing: token problems
# 401, policy 403, already released 409, checker 422, oversize 413,
# malformed 400, the daemon down 503; a slow body is cut off and the
# server goes on.
#
# test-ci-release.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER POSTERN_CI E2E_TOKENS
set -u
. "$(dirname "$0")/../install_module/installd/lib-installd.sh"
enter_fixture "$@"
POSTERN_CI="$8" TOKENS="$9"

echo "1..39"

ISS=https://gitlab.ptci.test AUD=https://ptci.test
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$port/v1/release"
install -d -m 0755 -o root -g root "$R/jwks"
install -d -m 0700 -o ptinst-ci -g ptinst-ci "$R/ci" "$R/ci/jti" "$R/ci/uploads"
install -d -m 0755 "$R/tok" "$R/up"
/usr/bin/python3 "$TOKENS" "$R/tok" "$ISS" "$AUD" GNOME/ptmod || { echo "Bail out! tokens"; exit 1; }
install -m 0644 -o root -g root "$R/tok/jwks.json" "$R/jwks/gitlab.jwks"
sed -i "s|^  ptmod:\$|  ptmod:\n    ci: [{issuer: gitlab, project: GNOME/ptmod}]|" /etc/postern/postern.yaml
sed -i "s|^  time_limit: 60\$|  time_limit: 60\n  max_compressed: 1M|" /etc/postern/postern.yaml
cat >> /etc/postern/postern.yaml <<YAML
ci:
  listen: 127.0.0.1:$port
  issuers:
    gitlab: {issuer: $ISS, audience: $AUD, jwks: $R/jwks/gitlab.jwks}
YAML
start_daemon

CI_PID=
start_ci() {
	local before
	before=$(grep -c 'ready: listening' "$R/ci.err" 2>/dev/null || true)
	setpriv --reuid=ptinst-ci --regid=ptinst-ci --init-groups -- "$POSTERN_CI" \
		-C /etc/postern/postern.yaml --state "$R/ci/jti" --staging "$R/ci/uploads" \
		--foreground 2>>"$R/ci.err" &
	CI_PID=$!
	wait_until sh -c "[ \"\$(grep -c 'ready: listening' '$R/ci.err')\" -gt ${before:-0} ]"
}
stop_ci() { [ -z "$CI_PID" ] || { kill -9 "$CI_PID" 2>/dev/null; wait "$CI_PID" 2>/dev/null; CI_PID=; }; }
trap 'stop_ci; kill_daemon' EXIT

# up FILE [TOPDIR]: a release tarball to send, in $R/up.
up() {
	make_tarball ptinst-m "$1" "${2:-}"
	mv "$R/incoming/ptinst-m/$1" "$R/up/$1"
}

# post TOKEN_CASE CURL_ARGS...: sets code (HTTP status) and body ($R/body).
post() {
	local tok=$1
	shift
	code=$(curl -s -o "$R/body" -w '%{http_code}' --max-time 60 \
		${tok:+-H "Authorization: Bearer $(cat "$R/tok/$tok.jwt")"} "$@" "$URL")
}
# field FILE KEY: a file's entry in the JSON answer.
field() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(next((f.get(sys.argv[3], "") for f in d["files"] if f["file"] == sys.argv[2]), ""))' "$R/body" "$1" "$2" 2>/dev/null
}

"$POSTERN_CI" --help >/dev/null 2>&1 && ok "postern-ci --help exits 0" || not_ok "--help"
out=$("$POSTERN_CI" -C /etc/postern/postern.yaml --state "$R/ci/jti" --staging "$R/ci/uploads" 2>&1)
[ $? != 0 ] && grep -q "root" <<<"$out" && ok "postern-ci refuses to serve as root" ||
	not_ok "as root: $out"
start_ci
pid_user=$(ps -o user= -p "$CI_PID")
[ "$pid_user" = ptinst-ci ] && ok "postern-ci serves as its own user" || not_ok "runs as $pid_user"

# --- one release ----------------------------------------------------------------
up ptmod-1.0.tar.xz
post ok-1.0 -F "file=@$R/up/ptmod-1.0.tar.xz"
sum=$(sha256sum < "$R/up/ptmod-1.0.tar.xz" | cut -d' ' -f1)
[ "$code" = 200 ] && [ "$(field ptmod-1.0.tar.xz status)" = installed ] &&
	[ "$(field ptmod-1.0.tar.xz sha256)" = "$sum" ] &&
	cmp -s "$R/up/ptmod-1.0.tar.xz" "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" &&
	ok "a tag pipeline's tarball is installed; the answer has its SHA-256" ||
	not_ok "release: $code $(cat "$R/body")"
grep -qF "$(field ptmod-1.0.tar.xz path)" <<<"sources/ptmod/1.0/ptmod-1.0.tar.xz" &&
	ok "the answer names the tree path" || not_ok "path: $(cat "$R/body")"
grep -q "op=install user=ptinst-ci module=ptmod version=1.0 .* basis=ci .* ci=ci:gitlab/GNOME/ptmod ci_pipeline=4711 ci_job=815 ci_sha=c\{40\} ci_user=ebassi$" "$R/state/ledger" &&
	ok "the ledger records the CI identity and the job" || not_ok "ledger: $(cat "$R/state/ledger")"
audit_has install_ok "uploader=ci:gitlab/GNOME/ptmod" "version=1.0" &&
	ok "install_ok names the uploader" || not_ok "no install_ok"
[ -z "$(ls -A "$R/ci/uploads")" ] && ok "the staged upload is gone from postern-ci's directory" ||
	not_ok "left in staging: $(ls -A "$R/ci/uploads")"

# --- refusals, each leaving the tree as it was --------------------------------------
before=$(tree_state)
refused() { # refused LABEL STATUS [TEXT]
	if [ "$code" = "$2" ] && { [ -z "${3:-}" ] || grep -qF -- "$3" "$R/body"; } &&
	   [ "$(tree_state)" = "$before" ]; then
		ok "$1"
	else
		not_ok "$1: $code $(head -c 600 "$R/body")"
	fi
}
up ptmod-1.2.tar.xz
post "" -F "file=@$R/up/ptmod-1.2.tar.xz"
refused "no token: 401" 401
curl -s -o /dev/null -D "$R/headers" -F "file=@$R/up/ptmod-1.2.tar.xz" "$URL"
grep -qi '^WWW-Authenticate: Bearer' "$R/headers" && ok "401 says WWW-Authenticate: Bearer" ||
	not_ok "headers: $(cat "$R/headers")"
for c in wrong-audience wrong-issuer expired not-yet-valid unknown-kid alg-none hmac-public-key; do
	post "$c" -F "file=@$R/up/ptmod-1.2.tar.xz"
	refused "token $c: 401" 401
done
post ok-1.0 -F "file=@$R/up/ptmod-1.2.tar.xz"
refused "a token used once already (replay): 401" 401
post unprotected -F "file=@$R/up/ptmod-1.2.tar.xz"
refused "an unprotected tag: 403" 403 "is not protected"
post branch -F "file=@$R/up/ptmod-1.2.tar.xz"
refused "a branch pipeline: 403" 403 "releases come from tag pipelines"
post tag-not-version -F "file=@$R/up/ptmod-1.2.tar.xz"
refused "a tag that is not the version: 403" 403 "is not the release's version 1.2"
post other-project -F "file=@$R/up/ptmod-1.2.tar.xz"
refused "another project: 403" 403 "may not release ptmod"
post dup-1.0 -F "file=@$R/up/ptmod-1.0.tar.xz"
refused "a version released already: 409" 409
up ptmod-1.3.tar.xz ../escape
post hostile-1.3 -F "file=@$R/up/ptmod-1.3.tar.xz"
refused "a tarball the checker refuses: 422" 422 "is not inside ptmod-1.3/"
head -c 2M /dev/urandom > "$R/up/ptmod-1.4.tar.xz"
post oversize-1.4 -F "file=@$R/up/ptmod-1.4.tar.xz"
refused "a body over limits.max_compressed: 413" 413
printf -- '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="ptmod-1.6.tar.xz"\r\n\r\nabc' > "$R/up/malformed"
post malformed-1.6 -H 'Content-Type: multipart/form-data; boundary=XyZ' --data-binary "@$R/up/malformed"
refused "a multipart body that never ends its part: 400" 400
audit_has ci_refused "status=401" && ok "postern-ci records its refusals (ci_refused)" ||
	not_ok "no ci_refused record"
[ -z "$(ls -A "$R/ci/uploads")" ] && ok "no refused upload is left in postern-ci's staging" ||
	not_ok "left in staging: $(ls -A "$R/ci/uploads")"

# slow.py PORT TOKEN FILE: send the headers and 100 bytes of FILE, then
# nothing, and say when the server closed the connection.
cat > "$R/slow.py" <<'PY'
import socket, sys, time
port, tok, path = int(sys.argv[1]), open(sys.argv[2]).read(), open(sys.argv[3], "rb").read()
b = b"--S1ow\r\nContent-Disposition: form-data; name=\"file\"; filename=\"ptmod-1.5.tar.xz\"\r\n\r\n"
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"POST /v1/release HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tok.encode() +
          b"\r\nContent-Type: multipart/form-data; boundary=S1ow\r\nContent-Length: %d\r\n\r\n" % (len(b) + len(path) + 12) + b + path[:100])
start = time.time()
s.settimeout(120)
try:
    while s.recv(4096):
        pass
except OSError:
    pass
print("closed after %d s" % (time.time() - start))
PY

# A body that stops arriving: the connection is cut, nothing is installed, the server goes on.
up ptmod-1.5.tar.xz
python3 "$R/slow.py" "$port" "$R/tok/slow-1.5.jwt" "$R/up/ptmod-1.5.tar.xz" > "$R/slow.out" 2>&1 &
slow=$!
post "" -F "file=@$R/up/ptmod-1.5.tar.xz"
[ "$code" = 401 ] && ok "another request is answered while a body trickles" || not_ok "while slow: $code"
wait "$slow"
grep -q "closed after" "$R/slow.out" && [ ! -e "$R/pub/sources/ptmod/1.5" ] &&
	ok "a body that stops arriving is cut off ($(cat "$R/slow.out")), nothing installed" ||
	not_ok "slow body: $(cat "$R/slow.out")"

# postern-ci killed while a body arrives: nothing installed, nothing left
# staged (the files have no name), the tree as it was; that token stays
# used, and a new one (a rerun of the job) releases after a restart.
before=$(tree_state)
up ptmod-1.8.tar.xz
python3 "$R/slow.py" "$port" "$R/tok/crash-1.8.jwt" "$R/up/ptmod-1.8.tar.xz" > "$R/crash.out" 2>&1 &
slow=$!
# Its staged file, open and nameless: the body is arriving.
staged=no
wait_until sh -c "ls -l /proc/$CI_PID/fd | grep -q '/ci/uploads/#'" && staged=yes
kill -9 "$CI_PID"
wait "$CI_PID" 2>/dev/null
CI_PID=
wait "$slow"
[ "$staged" = yes ] && [ "$(tree_state)" = "$before" ] && [ -z "$(ls -A "$R/ci/uploads")" ] &&
	ok "postern-ci killed during an upload: tree unchanged, nothing left in staging" ||
	not_ok "after the kill (body staged: $staged): $(ls -A "$R/ci/uploads") $(tree_state | diff - <(echo "$before") | head -5)"
start_ci
post crash-1.8 -F "file=@$R/up/ptmod-1.8.tar.xz"
refused "after the restart, the killed request's token is still used: 401" 401
post after-crash-1.8 -F "file=@$R/up/ptmod-1.8.tar.xz"
[ "$code" = 200 ] && cmp -s "$R/up/ptmod-1.8.tar.xz" "$R/pub/sources/ptmod/1.8/ptmod-1.8.tar.xz" &&
	ok "after the restart, the rerun job's new token releases 1.8" || not_ok "after crash: $code $(cat "$R/body")"

# Several files in one request: each has its entry; the status is the first refusal's.
up ptmod-2.0.tar.xz
up ptmod-2.0.tar.gz
post multi-2.0 -F "file=@$R/up/ptmod-2.0.tar.xz" -F "file=@$R/up/ptmod-2.0.tar.gz"
[ "$code" = 409 ] && [ "$(field ptmod-2.0.tar.xz status)" = installed ] &&
	[ "$(field ptmod-2.0.tar.gz status)" = refused ] &&
	cmp -s "$R/up/ptmod-2.0.tar.xz" "$R/pub/sources/ptmod/2.0/ptmod-2.0.tar.xz" &&
	[ ! -e "$R/pub/sources/ptmod/2.0/ptmod-2.0.tar.gz" ] &&
	ok "two files: the .tar.xz installed, the .tar.gz of the same version refused, status 409" ||
	not_ok "multi: $code $(cat "$R/body")"
grep -q "already released" "$R/body" && ok "the refused file's entry says why" || not_ok "why: $(cat "$R/body")"
before=$(tree_state)
up ptmod-2.1.tar.xz
printf 'not really a signature\n' > "$R/up/ptmod-2.1.tar.xz.asc"
post signed-2.1 -F "file=@$R/up/ptmod-2.1.tar.xz" -F "file=@$R/up/ptmod-2.1.tar.xz.asc"
refused "a signature sent with a CI release: 422, neither file installed" 422

# ES256, a v-prefixed tag.
up ptmod-1.1.tar.xz
post ok-es256-v1.1 -F "file=@$R/up/ptmod-1.1.tar.xz"
[ "$code" = 200 ] && [ -f "$R/pub/sources/ptmod/1.1/ptmod-1.1.tar.xz" ] &&
	ok "an ES256 token of tag v1.1 releases 1.1" || not_ok "es256: $code $(cat "$R/body")"

# The daemon down: 503, nothing installed (the token is used up all the same).
kill_daemon
DAEMON=
up ptmod-1.7.tar.xz
post bigger-1.7 -F "file=@$R/up/ptmod-1.7.tar.xz"
[ "$code" = 503 ] && [ ! -e "$R/pub/sources/ptmod/1.7" ] && ok "the daemon down: 503, nothing installed" ||
	not_ok "daemon down: $code $(cat "$R/body")"
tree_consistent && ok "the tree and its log agree after the CI releases" || not_ok "tree inconsistent"
