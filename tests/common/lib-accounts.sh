# lib-accounts.sh: throwaway accounts for tests, only inside tests/common/private-etc.
#
# A test machine may be a real server: postern installed (user and group
# `postern`, `uploaders`, /etc/postern/postern.yaml), any number of other
# accounts, any uid taken. So a test never assumes a free name or uid: it
# makes its accounts with acct_user/acct_group, which first forget any
# account of that name in the private /etc (the real /etc is the read-only
# lower layer of the overlay and is never touched; homes are never
# removed), and it looks uids up with `id -u NAME` or acct_free_uid.
# Every function refuses to run outside private-etc.

acct_private_or_die() {
	if [ -z "${POSTERN_PRIVATE_ETC:-}" ] || [ "$(stat -f -c %T /etc 2>/dev/null)" != overlayfs ]; then
		echo "Bail out! lib-accounts: not inside tests/common/private-etc; refusing to edit /etc" >&2
		exit 1
	fi
}

# acct_forget_user NAME / acct_forget_group NAME: drop the entry from the private copy.
acct_forget_user() {
	acct_private_or_die
	sed -i "/^$1:/d" /etc/passwd /etc/shadow
}

acct_forget_group() {
	acct_private_or_die
	sed -i "/^$1:/d" /etc/group /etc/gshadow
}

# acct_user NAME [useradd options...]: a new account NAME, whatever existed.
# Without -N or -g, useradd makes a group NAME too, so that is forgotten first.
acct_user() {
	local name=$1
	shift
	acct_forget_user "$name"
	case " $* " in
	*" -N "* | *" -g "* | *" --gid "* | *" --no-user-group "*) ;;
	*) acct_forget_group "$name" ;;
	esac
	useradd "$@" "$name"
}

# acct_group NAME [groupadd options...]: a new group NAME, whatever existed.
acct_group() {
	local name=$1
	shift
	acct_forget_group "$name"
	groupadd "$@" "$name"
}

# acct_free_uid START: the first number >= START that is neither a uid nor a gid here.
acct_free_uid() {
	local id=$1
	while getent passwd "$id" >/dev/null || getent group "$id" >/dev/null; do
		id=$((id + 1))
	done
	echo "$id"
}
