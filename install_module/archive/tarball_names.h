/*
 * Member names as other file systems read them: case-insensitive and
 * Unicode-normalising ones (macOS APFS/HFS+, Windows NTFS, ext4 casefold),
 * HFS+'s ignored code points and NTFS's trailing dots, spaces, streams and
 * 8.3 short names. Also the member modes a release must not ship.
 *
 * These rules add to tarball_member_check() (tarball.h); they never relax
 * it. They decide on names and modes only: nothing here reads member data.
 */
#ifndef POSTERN_TARBALL_NAMES_H
#define POSTERN_TARBALL_NAMES_H

#include <stdbool.h>

#include "errmsg.h"
#include "tarball.h"

/*
 * A member's permission bits (07777): no set-uid, no set-gid, and nothing
 * world-writable but a symlink (whose mode means nothing). Pure; false
 * with why naming the member and its mode.
 */
bool tarball_member_mode_check(const char *name, enum tarball_member_kind kind, unsigned perm,
			       struct pst_err *why);

/*
 * Each component of name and of linkname (for links) on its own, as HFS+
 * and NTFS read it. Refused: a backslash (a separator on Windows); a
 * component that, once the code points HFS+ ignores are dropped, an NTFS
 * stream suffix (":...") cut off and trailing dots and spaces stripped, is
 * empty, "." or ".." without being exactly that (it would alias the
 * directory itself or its parent); an explicit stream type (":$", as in
 * "x::$DATA", which is "x" itself); an 8.3 short name ("GIT~1",
 * "DEMO-1~1.TXT"), which may name another member on NTFS. Pure.
 */
bool tarball_name_portable_check(const char *name, enum tarball_member_kind kind,
				 const char *linkname, struct pst_err *why);

/* The folded namespace of one archive. */
struct tarball_names;

struct tarball_names *tarball_names_new(void);
void tarball_names_free(struct tarball_names *names);

/*
 * Check the next member against the earlier ones, in the namespace where
 * names are case folded and NFC normalised, HFS+'s ignored code points
 * dropped and NTFS's trailing dots and spaces stripped:
 *   - tarball_name_portable_check() first;
 *   - no two members whose names differ as bytes but are the same there;
 *   - no member under an earlier symlink member there, no hard link to or
 *     under one (the folded form of tarball.c's exact-name rule: on a
 *     case-insensitive disk "demo-1.0/LINK/x" is written through the
 *     symlink "demo-1.0/link").
 * Call it after tarball_member_check() has allowed the member. Returns 0,
 * -EBADMSG with why filled, or -ENOMEM.
 */
int tarball_names_add(struct tarball_names *names, const char *name,
		      enum tarball_member_kind kind, const char *linkname, struct pst_err *why);

#endif
