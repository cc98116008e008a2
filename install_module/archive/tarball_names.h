/*
 * The folded namespace of one archive: member names as case-insensitive
 * and Unicode-normalising file systems read them (macOS APFS/HFS+, Windows
 * NTFS, ext4 casefold), HFS+'s ignored code points dropped and NTFS's
 * trailing dots and spaces stripped.
 *
 * It answers facts for the member rules (member_rules.h) and decides
 * nothing: which earlier symlink a name goes through, which earlier member
 * has the same folded name. Nothing here reads member data.
 */
#ifndef POSTERN_TARBALL_NAMES_H
#define POSTERN_TARBALL_NAMES_H

#include "member_rules.h"

struct tarball_names;

struct tarball_names *tarball_names_new(void);
void tarball_names_free(struct tarball_names *names);

/*
 * What the earlier members make of this one (name, and for a hard link
 * linkname), into *seen; its strings live as long as names. Call it only
 * for a member the header rules allowed (valid UTF-8, no control
 * characters). Returns 0, -ENOMEM, or -EILSEQ when a name cannot be
 * folded.
 */
int tarball_names_look(struct tarball_names *names, const char *name,
		       enum tarball_member_kind kind, const char *linkname,
		       struct member_seen *seen);

/*
 * Add the member last looked up, once the rules allowed it (a repeated
 * directory is kept once). Returns 0 or -ENOMEM.
 */
int tarball_names_remember(struct tarball_names *names, const char *name,
			   enum tarball_member_kind kind);

#endif
