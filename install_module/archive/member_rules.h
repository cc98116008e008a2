/*
 * Whether one tar member may be in a release tarball: one table of rules
 * over plain facts, no I/O. tarball.c reads each header with libarchive,
 * asks the table, then asks the folded namespace of the earlier members
 * (tarball_names.h) what they make of this one and asks the table again;
 * the first rule that refuses decides, and its sentence is what the
 * maintainer reads.
 *
 *   stage    facts known                  rules, in order
 *   header   name, kind, link target,     has_name, name_text, name_components,
 *            mode, the top directory      name_inside_top, kind_allowed,
 *                                         top_is_directory, symlink_target_text,
 *                                         symlink_target_climbs_first,
 *                                         symlink_target_inside, hardlink_target_text,
 *                                         hardlink_target_components,
 *                                         hardlink_target_inside, mode_safe,
 *                                         name_portable, link_target_portable
 *   earlier  what the earlier members     not_through_symlink,
 *            are, once folded             link_not_through_symlink, not_repeated
 *
 * Together: every name is "<module>-<version>" or under "<module>-<version>/",
 * a plain relative path as Linux, macOS and Windows read it; only files,
 * directories and links; a symlink's target climbs with ".." only first and
 * never above the top directory; a hard link's target is a member name; no
 * set-uid, set-gid or world-writable member; nothing written or linked
 * through an earlier symlink, and no name twice, case-insensitively and
 * Unicode-normalised too.
 */
#ifndef POSTERN_MEMBER_RULES_H
#define POSTERN_MEMBER_RULES_H

#include <stdbool.h>

#include "decision.h"
#include "tarball.h"

enum member_stage {
	MEMBER_STAGE_HEADER,
	MEMBER_STAGE_EARLIER,
};

/* What the earlier members make of this one, in the folded namespace. */
struct member_seen {
	/* The earlier symlink member (as the archive spells it) that the name
	 * goes through, or NULL; exact: byte for byte, not only once folded. */
	const char *symlink;
	bool symlink_exact;
	/* The same for a hard link's target, the target itself included. */
	const char *link_symlink;
	bool link_symlink_exact;
	/* The earlier member whose name is this one's once folded, or NULL;
	 * same_bytes: spelled the same too (but for a trailing '/'). */
	const char *same;
	enum tarball_member_kind same_kind;
	bool same_bytes;
};

struct member_facts {
	/* The tar header. */
	const char *name;               /* NULL: libarchive gave no usable name */
	enum tarball_member_kind kind;
	const char *linkname;           /* a link's target; ignored for other kinds */
	unsigned perm;                  /* the permission bits, 07777 */
	const char *top;                /* "<module>-<version>" */
	/* The earlier members (the earlier stage only). */
	struct member_seen seen;
};

/* Run the rules of one stage; true when none refused (d then says allowed). */
bool member_rules_check(enum member_stage stage, const struct member_facts *f,
			struct decision *d);

#endif
