#!/bin/bash
# Real rsync pushes through postern-shell: the rsync client runs as root
# with -e pointing at a helper that does what sshd would, i.e. runs
# `postern-shell -c "<the remote command>"` as the test user. Uploads land
# in <incoming>/<user>/ through the real rrsync; pulls, deletions,
# --link-dest=/ and friends are refused with nothing written; a broken
# incoming directory stops the upload. The audit trail is checked at the end.
#
# Usage: test-rsync.sh SYSLOG_CAPTURE PRIVATE_ETC POSTERN_SHELL
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/rshell/lib-shell.sh
. "$here/lib-shell.sh"

shell_test_start "$0" "$@"
PORT=30000
SRC="$ROOT/src"
install -d -m 0755 "$SRC" "$ROOT/pulled"

# What sshd does for `ssh HOST CMD...`: join the words with spaces and run
# the login shell with -c, as the user, in a fresh environment.
cat >"$ROOT/bin/ssh-helper" <<HELPER
#!/bin/sh
shift
conn="$SHELL_CONN_HOST \$HELPER_PORT 192.0.2.1 22"
exec "$LOGIN_ADMIT" --logins "$LOGINS" --uid $SHELL_UID --user $SHELL_USER --connection "\$conn" -- \\
	setpriv --reuid $SHELL_UID --regid $SHELL_GID --init-groups \\
	env -i "SSH_CONNECTION=\$conn" \${HELPER_EXTRA:+"\$HELPER_EXTRA"} \\
	"$SH" -c "\$*"
HELPER
chmod 0755 "$ROOT/bin/ssh-helper"

# push [--extra VAR=value] RSYNC-ARGS...: rsync -e the helper; sets STATUS, OUT.
push() {
	local extra=
	if [ "$1" = --extra ]; then extra=$2; shift 2; fi
	PORT=$((PORT + 1))
	OUT=$(cd "$SRC" && HELPER_PORT=$PORT HELPER_EXTRA=$extra \
		timeout 60 rsync -e "$ROOT/bin/ssh-helper" "$@" 2>&1)
	STATUS=$?
}

landed() { # NAME: in incoming, owned by the user, same bytes as the source
	[ -f "$MYIN/$1" ] && [ "$(stat -c %u "$MYIN/$1")" = "$SHELL_UID" ] &&
		cmp -s "$SRC/$1" "$MYIN/$1"
}

# refused_push NAME MESSAGE RSYNC-ARGS...: the client fails, the message
# reaches it, nothing changes in incoming or anywhere the user can write.
refused_push() {
	local name=$1 msg=$2; shift 2
	local before_in before_fx before_src
	before_in=$(incoming_state)
	before_fx=$(side_effects)
	before_src=$(find "$SRC" "$ROOT/pulled" -printf '%P %s\n' | sort)
	push "$@"
	if [ "$STATUS" != 0 ] && grep -qE -- "$msg" <<<"$OUT" &&
	   [ "$(incoming_state)" = "$before_in" ] && [ "$(side_effects)" = "$before_fx" ] &&
	   [ "$(find "$SRC" "$ROOT/pulled" -printf '%P %s\n' | sort)" = "$before_src" ]; then
		ok "$name"
	else
		not_ok "$name"
		echo "# status $STATUS; output: $OUT" | head -5
	fi
	expect_record "$PORT" "event=command_deny user=$SHELL_USER .* mode=login_shell reason="
	expect_record "$PORT" "event=session_end .* status=1$"
}

head -c 100000 /dev/urandom >"$SRC/hello-1.0.tar.xz"
check "push: a file lands in incoming, byte for byte" push -v hello-1.0.tar.xz h: 
check "push: ... exit status 0" [ "$STATUS" = 0 ]
check "push: ... landed" landed hello-1.0.tar.xz
expect_record "$PORT" "event=command_allow user=$SHELL_USER from=$SHELL_CONN_HOST port=$PORT sid=[0-9a-f]{16} command=\"rsync --server -ve.LsfxCIvu . .\" name=rsync mode=login_shell"
expect_record "$PORT" "event=upload_done .* status=ok exit=0 files=hello-1.0.tar.xz$"
expect_record "$PORT" "event=session_end .* name=rsync status=0$"

head -c 300000 /dev/urandom >"$SRC/glib-2.80.0.tar.xz"
push -avP glib-2.80.0.tar.xz h:
check "push -avP (the usual archive, partial, progress flags)" landed glib-2.80.0.tar.xz
head -c 300000 /dev/zero >"$SRC/zeros-1.tar.gz"
push -avz zeros-1.tar.gz h:
check "push -avz (compressed)" landed zeros-1.tar.gz

name="G\xc3\xb6llnitz notes; \$(id) 1.0.tar.xz"
printf -v name '%b' "$name"
echo utf8 >"$SRC/$name"
push -a "$name" h:
check "push: a name with UTF-8, spaces and shell characters lands under that exact name" landed "$name"
expect_record "$PORT" "event=upload_done .* status=ok exit=0 files=\"G"

# One file whose name holds the list separator is not two files: the list
# in upload_done escapes ',' (and '%') inside a name (docs/AUDIT.md).
echo comma >"$SRC/a,b%c"
push -a "a,b%c" h:
check "push: a name with ',' and '%' lands under that exact name" landed "a,b%c"
expect_record "$PORT" "event=upload_done .* status=ok exit=0 files=a%2cb%25c$"
echo x >"$SRC/x.tar.xz"
echo y >"$SRC/y.tar.xz"
push -a x.tar.xz y.tar.xz h:
expect_record "$PORT" "event=upload_done .* status=ok exit=0 files=x.tar.xz,y.tar.xz$"

# The destination name travels in the command line: through rsync's
# escaping, our tokenizer, our re-escaping for rrsync and rrsync's splitter.
# U+00A0 is white space to rrsync's (Python) splitter, so it must arrive
# escaped.
dest="Dest G\xc3\xb6llnitz\xc2\xa0nbsp; \$(id) 'q' 1.0.tar.xz"
printf -v dest '%b' "$dest"
push -a hello-1.0.tar.xz "h:$dest"
if [ "$STATUS" = 0 ] && [ -f "$MYIN/$dest" ] && cmp -s "$SRC/hello-1.0.tar.xz" "$MYIN/$dest"; then
	ok "push to a destination name with UTF-8, U+00A0, quotes and shell characters: exact name"
else
	not_ok "push to a tricky destination name: status $STATUS: $OUT"
	ls -la "$MYIN" | sed 's/^/# /'
fi

# rrsync (Python) decodes SSH_ORIGINAL_COMMAND in LANG's codeset before it
# splits on white space. In ISO-8859-1 the UTF-8 bytes of U+0160 (c5 a0)
# read as "Å" and U+00A0, which would split one validated word in two: a
# client's LANG that is not UTF-8 must never reach rrsync. The locale is
# compiled into an overlay of /usr/lib/locale in this private namespace.
latin=en_US.ISO-8859-1
install -d -m 0755 "$ROOT/locale-up" "$ROOT/locale-work"
if mount -t overlay postern-locale \
	-o "lowerdir=/usr/lib/locale,upperdir=$ROOT/locale-up,workdir=$ROOT/locale-work" \
	/usr/lib/locale 2>/dev/null &&
   localedef -i en_US -f ISO-8859-1 "/usr/lib/locale/$latin" >/dev/null 2>&1; then
	dest="lat\xc5\xa0in --sender x-1.0.tar.xz"
	printf -v dest '%b' "$dest"
	push --extra "LANG=$latin" -a hello-1.0.tar.xz "h:$dest"
	if [ "$STATUS" = 0 ] && [ -f "$MYIN/$dest" ] && cmp -s "$SRC/hello-1.0.tar.xz" "$MYIN/$dest"; then
		ok "push with LANG=$latin to a name whose UTF-8 holds byte 0xa0: exact name"
	else
		not_ok "push with LANG=$latin: status $STATUS: $OUT"
		ls -la "$MYIN" | sed 's/^/# /'
	fi
else
	ok "# SKIP cannot build the $latin locale (localedef, package locales)"
fi
umount /usr/lib/locale 2>/dev/null

echo dash >"$SRC/-rf.tar.xz"
push -a -- -rf.tar.xz h:
check "push: a file named -rf.tar.xz lands as a plain file" landed -rf.tar.xz

install -d -m 0755 "$SRC/tree/sub"
echo deep >"$SRC/tree/sub/deep.txt"
push -a tree h:uploads/
check "push -a into a new subdirectory" [ -f "$MYIN/uploads/tree/sub/deep.txt" ]

ln -sf /etc/shadow "$SRC/link-to-shadow"
push -al link-to-shadow h:
target=$(readlink "$MYIN/link-to-shadow" 2>/dev/null)
check "push -l: an uploaded symlink is munged (rrsync -munge), never pointing at /etc/shadow" \
	[ -n "$target" ] && [ "$target" != /etc/shadow ]

cp "$MYIN/hello-1.0.tar.xz" "$ROOT/hello.orig"
head -c 1000 /dev/urandom >"$SRC/hello-1.0.tar.xz"
push -a hello-1.0.tar.xz h:
check "push over an existing upload: the first upload is kept (rrsync -no-overwrite)" \
	cmp -s "$ROOT/hello.orig" "$MYIN/hello-1.0.tar.xz"

# The environment sshd hands over never reaches rrsync or rsync.
shell_env_canaries
cp "$ROOT/evil.sh" "$ROOT/evilbin/rsync"
cp "$ROOT/evil.sh" "$ROOT/evilbin/python3"
i=0
for v in "BASH_ENV=$ROOT/evil.sh" "ENV=$ROOT/evil.sh" "IFS=/" "PATH=$ROOT/evilbin" \
	 "PYTHONPATH=$ROOT/evilpy" "PYTHONSTARTUP=$ROOT/evil.sh" "PYTHONHOME=$ROOT/evilpy" \
	 "HOME=$ROOT/evilpy" "RSYNC_RSH=$ROOT/evil.sh"; do
	i=$((i + 1))
	echo "$v" >"$SRC/env-$i.txt"
	push --extra "$v" -a "env-$i.txt" h:
	if [ "$STATUS" = 0 ] && landed "env-$i.txt" && [ -z "$(find "$CANARY" -mindepth 1)" ]; then
		ok "push with ${v%%=*} in the inherited environment: lands, nothing it names ran"
	else
		not_ok "push with ${v%%=*}: status $STATUS: $OUT"
	fi
done

# rrsync is Python: without PYTHONNOUSERSITE it would run a usercustomize
# module from the user's own home (left over from a shell account, or an
# NFS home writable elsewhere) on every upload.
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
usersite="$ROOT/home/$SHELL_USER/.local/lib/python$pyver/site-packages"
install -d -m 0755 "$usersite"
echo "open('$CANARY/hit-usersite', 'w')" >"$usersite/usercustomize.py"
echo usersite >"$SRC/usersite-1.tar.xz"
push -a usersite-1.tar.xz h:
if [ "$STATUS" = 0 ] && landed usersite-1.tar.xz && [ -z "$(find "$CANARY" -mindepth 1)" ]; then
	ok "push with a usercustomize.py in the user's home: lands, rrsync's Python did not run it"
else
	not_ok "push with a usercustomize.py in the user's home: status $STATUS: $OUT"
fi
rm -rf "$ROOT/home/$SHELL_USER/.local" "$CANARY/hit-usersite"

# A popt alias in $HOME/.popt (rssh CVE-2019-3464) would rewrite the argv
# rrsync checked, here turning the -munge that rrsync adds into plain
# --links. rsync reads ~/.popt as a client but not as a server: this guards
# that postern-shell relies on it (HOME is the user's own home).
echo "rsync alias --munge-links --links" >"$ROOT/home/$SHELL_USER/.popt"
ln -sf /etc/shadow "$SRC/popt-link"
push -al popt-link h:
target=$(readlink "$MYIN/popt-link" 2>/dev/null)
if [ "$STATUS" = 0 ] && [ -n "$target" ] && [ "$target" != /etc/shadow ]; then
	ok "push with a ~/.popt alias in the user's home: rsync never reads it, the symlink is munged"
else
	not_ok "push with a ~/.popt alias: status $STATUS, link target '$target': $OUT"
fi
rm -f "$ROOT/home/$SHELL_USER/.popt" "$SRC/popt-link"

# Refusals: the rsync client shows our message; nothing is written.
echo pulled >"$MYIN/pull-me.tar.xz"; chown "$SHELL_USER": "$MYIN/pull-me.tar.xz"
refused_push "pull: refused (write-only)" "downloads are not allowed" -a h:pull-me.tar.xz "$ROOT/pulled/"
check "pull: nothing was downloaded" [ ! -e "$ROOT/pulled/pull-me.tar.xz" ]
install -d -m 0755 "$SRC/del"
refused_push "push --delete: refused" "deleting files through rsync is not allowed" -r --delete del/ h:
refused_push "push --delete-after: refused" "deleting files through rsync" -r --delete-after del/ h:
refused_push "push --remove-source-files: refused, the source is kept" "deleting files through rsync" \
	--remove-source-files glib-2.80.0.tar.xz h:
check "--remove-source-files: the local source still exists" [ -f "$SRC/glib-2.80.0.tar.xz" ]
refused_push "push --link-dest=/: refused" "--link-dest '/': absolute paths are refused" \
	-a --link-dest=/ hello-1.0.tar.xz h:
refused_push "push --link-dest=../..: refused" "'\.\.' points outside" \
	-a --link-dest=../.. hello-1.0.tar.xz h:
refused_push "push --temp-dir=/tmp: refused" "--temp-dir '/tmp': absolute" -a --temp-dir=/tmp hello-1.0.tar.xz h:
refused_push "push --backup --backup-dir: refused" "uploads never replace files" \
	-a --backup --backup-dir=old hello-1.0.tar.xz h:
refused_push "push -s (arguments inside the protocol): refused" "bypass these checks" -s hello-1.0.tar.xz h:
refused_push "push -aAX (ACLs, xattrs): refused" "-A \(in" -aAX hello-1.0.tar.xz h:
refused_push "push to an absolute path: refused" "absolute paths are refused" -a hello-1.0.tar.xz h:/etc/
refused_push "push to ../: refused" "'\.\.' points outside" -a hello-1.0.tar.xz h:../
refused_push "push to ~root/: refused" "unquoted '~'" -a hello-1.0.tar.xz "h:~root/"
refused_push "rsync daemon over ssh: refused" "daemon mode" -a hello-1.0.tar.xz h::module/

# A broken incoming directory stops the upload before rrsync runs.
echo new >"$SRC/new-1.tar.xz"
mv "$MYIN" "$ROOT/aside"
refused_push "incoming dir missing: refused" "does not exist \(it is created when you are enrolled" -a new-1.tar.xz h:
install -d -m 0700 -o root -g root "$MYIN"
refused_push "incoming dir owned by root: refused" "owned by uid 0 with mode 0700, expected your own uid" -a new-1.tar.xz h:
rmdir "$MYIN"
install -d -m 0755 -o "$SHELL_USER" -g "$SHELL_USER" "$MYIN"
refused_push "incoming dir mode 0755: refused" "mode 0755" -a new-1.tar.xz h:
rmdir "$MYIN"
install -d -m 0700 -o "$SHELL_USER" -g "$SHELL_USER" "$ROOT/elsewhere"
ln -s "$ROOT/elsewhere" "$MYIN"
refused_push "incoming dir is a symlink: refused" "not a directory \(a symlink\?\)" -a new-1.tar.xz h:
check "symlinked incoming: nothing written where it points" [ -z "$(ls -A "$ROOT/elsewhere")" ]
rm "$MYIN"
mv "$ROOT/aside" "$MYIN"
chmod 0777 "$INCOMING"
refused_push "<incoming> writable by others: refused" "incoming directory is not safe to use" -a new-1.tar.xz h:
chmod 0711 "$INCOMING"
push -a new-1.tar.xz h:
check "incoming restored: the upload goes through again" landed new-1.tar.xz

sed -i "s|incoming: $INCOMING\$|incoming: $INCOMING/|" /etc/postern/postern.yaml
echo slash >"$SRC/slash-1.tar.xz"
push -a slash-1.tar.xz h:
if grep -q "incoming: $INCOMING/\$" /etc/postern/postern.yaml && landed slash-1.tar.xz; then
	ok "paths.incoming with a trailing '/': uploads still land"
else
	not_ok "paths.incoming with a trailing '/': status $STATUS: $OUT"
fi
shell_write_config

# Quotas: each file rsync writes is capped at limits.max_compressed (the
# kernel's file-size limit on rrsync and rsync, whatever the sender
# announces), and an upload does not start while incoming holds
# limits.incoming_total.
shell_write_config "modules:
  gtk:
    maintainers: [$SHELL_USER]
limits:
  max_compressed: 1M
  max_uncompressed: 1M
  incoming_total: 3M"
head -c 1048576 /dev/urandom >"$SRC/fits-1.tar.xz"
push -a fits-1.tar.xz h:
check "a file of exactly limits.max_compressed lands" landed fits-1.tar.xz
head -c 1048577 /dev/urandom >"$SRC/big-1.tar.xz"
before_in=$(incoming_state)
push -a big-1.tar.xz h:
if [ "$STATUS" != 0 ] && grep -q "each file may be at most 1 MiB (limits.max_compressed)" <<<"$OUT" &&
   grep -q "File too large" <<<"$OUT" && [ "$(incoming_state)" = "$before_in" ]; then
	ok "a file one byte over limits.max_compressed: fails as it is written, nothing of it kept"
else
	not_ok "over max_compressed: status $STATUS: $OUT"
fi
expect_record "$PORT" "event=upload_done .* status=failed exit=11 files=-$"
head -c 2200000 /dev/urandom >"$MYIN/filler"
chown "$SHELL_USER:" "$MYIN/filler"
echo small >"$SRC/small-1.tar.xz"
refused_push "incoming over limits.incoming_total: the upload does not start, and says how much" \
	"your incoming directory holds [0-9.]+ MiB, and uploads start only below 3 MiB \(limits.incoming_total\)" \
	-a small-1.tar.xz h:
rm "$MYIN/filler" "$MYIN/fits-1.tar.xz"
shell_write_config

shell_test_end
