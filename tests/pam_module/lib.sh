# Shared by the PAM test scripts: TAP (tests/common/tap.sh), a root-trusted
# scratch dir (SF_TRUSTED_PATH refuses /tmp), pam_wrapper service files and
# a harness run that captures the audit records of exactly that run.
. "$(dirname "${BASH_SOURCE[0]}")/../common/tap.sh"

# pam_test_enter INSIDE_VAR ARGS...: refuse to run without pam_wrapper or
# root, then re-run the calling script (once) in a throwaway /etc with no
# postern configuration of the host's in it.
pam_test_enter() {
	local inside=$1
	shift
	if [ ! -f "$PAM_WRAPPER_LIB" ]; then
		echo "Bail out! libpam_wrapper.so not found ('$PAM_WRAPPER_LIB'): apt-get install libpam-wrapper"
		exit 1
	fi
	[ "$(id -u)" = 0 ] || skip_all "needs root (root-owned store, users, private /etc)"
	if [ -z "${!inside:-}" ]; then
		export "$inside=1"
		# With a /dev/log of its own: without one, postern-totp refuses to
		# change anything (docs/AUDIT.md), and this machine may have none.
		exec "$PRIVATE_ETC" "$CAPTURE" /dev/null -- "$BASH" "$0" "$@"
	fi
	rm -rf /etc/postern
}

# pam_test_start INSIDE_VAR MODULE HARNESS POSTERN_TOTP SYSLOG_CAPTURE
# PRIVATE_ETC PAM_WRAPPER_LIB: what every PAM test starts with: the tool
# paths, the private /etc (pam_test_enter), a scratch dir removed at exit
# and lib-accounts.sh.
pam_test_start() {
	MODULE=$2 HARNESS=$3 TOTP=$4 CAPTURE=$5 PRIVATE_ETC=$6 PAM_WRAPPER_LIB=$7
	pam_test_enter "$@"
	scratch_new
	trap 'rm -rf "$T"' EXIT
	. "$(dirname "$PRIVATE_ETC")/lib-accounts.sh"
}

# A scratch dir under /run: root-owned all the way up, unlike /tmp.
scratch_new() {
	T=$(mktemp -d /run/postern-test-pam-XXXXXX)
	chmod 0755 "$T"
	mkdir -m 0755 "$T/svc" "$T/rt"
	echo "auth required pam_deny.so" >"$T/svc/other"
}

# service NAME MODULE-OPTIONS...: login proofs go to $T/logins (the
# default, /run/postern-logins, belongs to the machine).
service() {
	local name=$1; shift
	echo "auth required $MODULE logins=$T/logins $*" >"$T/svc/$name"
}

# auth SERVICE USER CODE [SSH_AUTH_INFO_0]: sets $result, $prompted, $log.
auth() {
	log=$T/log.$((n + 1)).$RANDOM
	local out
	out=$("$CAPTURE" "$log" -- env PAM_WRAPPER=1 PAM_WRAPPER_USE_SYSLOG=1 \
		PAM_WRAPPER_SERVICE_DIR="$T/svc" PAM_WRAPPER_RUNTIME_DIR="$T/rt" \
		LD_PRELOAD="$PAM_WRAPPER_LIB" "$HARNESS" "$@")
	result=$(echo "$out" | sed -n 's/.*result=\([A-Z_]*\).*/\1/p')
	prompted=$(echo "$out" | sed -n 's/.*prompted=\([0-9]*\).*/\1/p')
	touch "$log"
}

# logged EVENT KEY=VALUE...: the last run wrote that record with those fields.
logged() {
	local ev=$1 line; shift
	line=$(grep "pam_postern(.*): event=$ev " "$log") || return 1
	for kv in "$@"; do
		case " $line " in *" $kv "*) ;; *) echo "# missing $kv in: $line" >&2; return 1 ;; esac
	done
}

secret_of() { sed -n 's/^secret //p' "$1"; }
field_of() { sed -n "s/^$2 //p" "$1"; }

# newkey NAME KIND COMMENT: a security key's public half in $T/NAME.pub
# (tests/pam_module/sk-pubkey.py, $SK_PUBKEY), its SSH_AUTH_INFO_0 line and
# fingerprint (ssh-keygen's) in $T/NAME.info and $T/NAME.fpr; info NAME and
# fpr NAME print them.
newkey() {
	/usr/bin/python3 "$SK_PUBKEY" "$2" "$3" >"$T/$1.pub"
	echo "publickey $(cut -d' ' -f1,2 "$T/$1.pub")" >"$T/$1.info"
	ssh-keygen -lf "$T/$1.pub" | cut -d' ' -f2 >"$T/$1.fpr"
}
info() { cat "$T/$1.info"; }
fpr() { cat "$T/$1.fpr"; }
