#!/bin/bash
# kill -9 of the connection handler at each step of an install and of a
# delete-own, deterministically: strace's fault injection delivers SIGKILL
# on entry to the k-th call of each syscall a step is made of (rename,
# link, unlink, fsync: every atomic write, move, append and removal), for
# every k the operation makes. After each kill the daemon is restarted
# (recovery at start) and the log, the ledger, the index and the tree must
# agree: postern-verify --mirror proves the tree is what the log says, the
# log's size is <state>/history/log.size and the ledger's line count, the
# index holds the module's and the user's lines of the ledger, nothing is
# left pending, and the change either happened everywhere or nowhere.
#
# test-installd-crash-steps.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
command -v strace >/dev/null || skip_all "strace is not installed (Build-Depends)"
STEP_CALLS="renameat renameat2 linkat unlinkat fsync"

# The daemon under strace: SIGKILL at the k-th call of one syscall, or (no
# arguments) only counting, into $R/trace.
start_traced() {
	local inject=()
	[ $# = 0 ] || inject=(-e "inject=$1:signal=SIGKILL:when=$2")
	start_daemon strace -f -qq -o "$R/trace" -e trace=${STEP_CALLS// /,} "${inject[@]}"
}

# The calls of each step syscall the handler made, from an untouched run.
count_calls() { # SYSCALL
	awk -v sc="$1" '$2 ~ "^" sc "\\(" { n[$1]++ } END { m = 0; for (p in n) if (n[p] > m) m = n[p]; print m }' "$R/trace"
}

lines_of() { [ -e "$1" ] && wc -l < "$1" || echo 0; }

# Wait for a new second. <state>/history/clock is rewritten only when the
# time passed the one it holds (whole seconds), and the daemon records it at
# start: an operation in a new second always makes that write, so the step
# counts are those of the longest run.
next_second() {
	local s
	s=$(date +%s)
	while [ "$(date +%s)" = "$s" ]; do sleep 0.05; done
}

# Everything agrees, and the change of FILE (op OP) happened everywhere or nowhere.
agree() { # OP FILE
	local size ledger in_tree logged
	tree_consistent || { echo "# tree or log inconsistent"; return 1; }
	size=$(cat "$R/state/history/log.size")
	ledger=$(lines_of "$R/state/ledger")
	[ "$size" = "$ledger" ] || { echo "# log has $size entries, ledger $ledger lines"; return 1; }
	[ "$(lines_of "$R/state/history/index/module/ptmod")" = "$(grep -c ' module=ptmod ' "$R/state/ledger")" ] ||
		{ echo "# module index disagrees"; return 1; }
	[ "$(lines_of "$R/state/history/index/user/ptinst-m")" = "$(grep -c ' user=ptinst-m ' "$R/state/ledger")" ] ||
		{ echo "# user index disagrees"; return 1; }
	[ ! -e "$R/state/history/log.pending" ] && [ -z "$(ls "$R/state/locks" | grep intent)" ] ||
		{ echo "# a pending record or intent is left"; return 1; }
	in_tree=no
	find "$R/pub/sources/ptmod" -name "$2" | grep -q . && in_tree=yes
	logged=no; tail -n 1 "$R/state/ledger" | grep -q "op=$1 .* file=$2 " && logged=yes
	if [ "$1" = install ]; then [ "$in_tree" = "$logged" ]; else [ "$in_tree" != "$logged" ]; fi ||
		{ echo "# $1 $2: in the tree $in_tree, last record $logged"; return 1; }
}

# One case: the op under SIGKILL at call k of sc, a restart, the checks.
crash_case() { # OP FILE SYSCALL K
	kill_daemon
	start_traced "$3" "$4"
	next_second
	if [ "$1" = install ]; then
		client ptinst-m install-module "$2" >"$R/case.out" 2>&1
	else
		client ptinst-m delete-own "$2" >"$R/case.out" 2>&1
	fi
	kill_daemon
	start_daemon
	made=$(count_calls "$3")
	if ! grep -q 'killed by SIGKILL' "$R/trace" && [ "$made" -lt "$4" ] && agree "$1" "$2"; then
		# A second began between two clock records of one operation while counting.
		ok "$1 at $3 #$4: this run made only $made such calls (one clock record fewer), and all agree"
	elif ! grep -q 'killed by SIGKILL' "$R/trace"; then
		not_ok "$1: no process was killed at $3 #$4"
	elif agree "$1" "$2"; then
		ok "$1 killed at $3 #$4: log, ledger, index and tree agree"
	else
		not_ok "$1 killed at $3 #$4: $(tr '\n' ' ' < "$R/case.out")"
	fi
}

# The syscalls one install and one delete make, counted on untraced runs.
start_daemon
make_tarball ptinst-m ptmod-1.0.tar.xz
client ptinst-m install-module ptmod-1.0.tar.xz >/dev/null 2>&1
kill_daemon
start_traced
make_tarball ptinst-m ptmod-1.1.tar.xz
next_second
client ptinst-m install-module ptmod-1.1.tar.xz >/dev/null 2>&1
kill_daemon
declare -A n_install n_delete
total=0
for sc in $STEP_CALLS; do n_install[$sc]=$(count_calls "$sc"); total=$((total + n_install[$sc])); done
start_traced
next_second
client ptinst-m delete-own ptmod-1.1.tar.xz >/dev/null 2>&1
kill_daemon
for sc in $STEP_CALLS; do n_delete[$sc]=$(count_calls "$sc"); total=$((total + n_delete[$sc])); done
echo "1..$((total + 2))"
echo "# one install: $(for sc in $STEP_CALLS; do printf '%s %s ' "$sc" "${n_install[$sc]}"; done)"
echo "# one delete:  $(for sc in $STEP_CALLS; do printf '%s %s ' "$sc" "${n_delete[$sc]}"; done)"
[ "${n_install[renameat]}" -gt 3 ] && [ "${n_delete[renameat]}" -gt 3 ] && ok "the steps were counted" ||
	not_ok "no steps counted: is strace working here?"

v=0
for sc in $STEP_CALLS; do
	for k in $(seq 1 "${n_install[$sc]}"); do
		v=$((v + 1))
		make_tarball ptinst-m "ptmod-2.$v.tar.xz"
		crash_case install "ptmod-2.$v.tar.xz" "$sc" "$k"
	done
done
for sc in $STEP_CALLS; do
	for k in $(seq 1 "${n_delete[$sc]}"); do
		v=$((v + 1))
		make_tarball ptinst-m "ptmod-3.$v.tar.xz"
		client ptinst-m install-module "ptmod-3.$v.tar.xz" >/dev/null 2>&1
		crash_case delete "ptmod-3.$v.tar.xz" "$sc" "$k"
	done
done
# The killed changes that did not happen can be made now.
make_tarball ptinst-m ptmod-9.0.tar.xz
check "and the daemon installs again" client ptinst-m install-module ptmod-9.0.tar.xz
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
