/*
 * The member rules as a table of cases (install_module/archive/member_rules.h):
 * plain facts in, the refusing rule and its sentence out, no archive and no
 * libarchive. Every rule of the table refuses in at least one case, and
 * every refusal is printable, whatever the name holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "member_rules.h"
#include "text_show.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define F TARBALL_MEMBER_FILE
#define D TARBALL_MEMBER_DIR
#define L TARBALL_MEMBER_SYMLINK
#define H TARBALL_MEMBER_HARDLINK

struct rule_case {
	const char *name;
	enum tarball_member_kind kind;
	const char *link;
	unsigned perm;
	struct member_seen seen;     /* the earlier stage's facts */
	const char *rule;            /* the refusing rule; NULL: allowed */
	const char *why;             /* a part of its sentence */
};

#define SEEN_NONE { NULL, false, NULL, false, NULL, F, false }
/* Goes through the earlier symlink s, exactly or only once folded. */
#define THROUGH(s, exact) { s, exact, NULL, false, NULL, F, false }
#define LINK_THROUGH(s, exact) { NULL, false, s, exact, NULL, F, false }
#define SAME(s, kind, bytes) { NULL, false, NULL, false, s, kind, bytes }

static const struct rule_case cases[] = {
	/* Names and kinds. */
	{ "demo-1.0", D, NULL, 0755, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/", D, NULL, 0755, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/a/b/", D, NULL, 0755, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/a/b/c", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/.hidden", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/..data", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/caf\xc3\xa9", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/a b", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ NULL, F, NULL, 0644, SEEN_NONE, "has_name", "a member has no usable name" },
	{ "", F, NULL, 0644, SEEN_NONE, "name_text", "its name is empty" },
	{ "/etc/passwd", F, NULL, 0644, SEEN_NONE, "name_text", "its name is an absolute path" },
	{ "demo-1.0/x\n", F, NULL, 0644, SEEN_NONE, "name_text", "control characters" },
	{ "demo-1.0/x\xc2\x9b" "2J", F, NULL, 0644, SEEN_NONE, "name_text", "control characters" },
	{ "demo-1.0/x\x1b[2J", F, NULL, 0644, SEEN_NONE, "name_text", "control characters" },
	{ "demo-1.0/\xff", F, NULL, 0644, SEEN_NONE, "name_text", "not UTF-8" },
	{ "demo-1.0/x\x9b" "2J", F, NULL, 0644, SEEN_NONE, "name_text", "not UTF-8" },
	{ "demo-1.0//x", F, NULL, 0644, SEEN_NONE, "name_components", "empty path components (//)" },
	{ "demo-1.0/./x", F, NULL, 0644, SEEN_NONE, "name_components", "'.' components" },
	{ "demo-1.0/../x", F, NULL, 0644, SEEN_NONE, "name_components", "'..' components" },
	{ "demo-1.0/x/..", F, NULL, 0644, SEEN_NONE, "name_components", "'..' components" },
	{ "DEMO-1.0/x", F, NULL, 0644, SEEN_NONE, "name_inside_top", "its name is not inside demo-1.0/" },
	{ "demo-1.0x/y", F, NULL, 0644, SEEN_NONE, "name_inside_top", "not inside demo-1.0/" },
	{ "demo-1.0/s", TARBALL_MEMBER_SOCKET, NULL, 0644, SEEN_NONE, "kind_allowed",
	  "member demo-1.0/s is a socket; a release may only contain files" },
	{ "demo-1.0/c", TARBALL_MEMBER_CHARDEV, NULL, 0644, SEEN_NONE, "kind_allowed", "is a character device" },
	{ "demo-1.0/b", TARBALL_MEMBER_BLOCKDEV, NULL, 0644, SEEN_NONE, "kind_allowed", "is a block device" },
	{ "demo-1.0/p", TARBALL_MEMBER_FIFO, NULL, 0644, SEEN_NONE, "kind_allowed", "is a FIFO" },
	{ "demo-1.0/u", TARBALL_MEMBER_UNKNOWN, NULL, 0644, SEEN_NONE, "kind_allowed", "is of an unknown type" },
	{ "demo-1.0", F, NULL, 0644, SEEN_NONE, "top_is_directory", "the top entry demo-1.0 must be a directory" },
	{ "demo-1.0/", L, ".", 0777, SEEN_NONE, "top_is_directory", "must be a directory, not a symlink" },
	{ "demo-1.0", H, "demo-1.0/x", 0644, SEEN_NONE, "top_is_directory", "not a hard link" },
	/* Symlink targets. */
	{ "demo-1.0/a/l", L, "../b", 0777, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/a/l", L, "./../b", 0777, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/a/l", L, "..", 0777, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/a/l", L, "x/y/z", 0777, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/l", L, "./x", 0777, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/l", L, "", 0777, SEEN_NONE, "symlink_target_text", "its link target is empty" },
	{ "demo-1.0/l", L, NULL, 0777, SEEN_NONE, "symlink_target_text", "its link target is empty" },
	{ "demo-1.0/l", L, "/etc/shadow", 0777, SEEN_NONE, "symlink_target_text",
	  "its link target is an absolute path" },
	{ "demo-1.0/l", L, "x\x1b[2J", 0777, SEEN_NONE, "symlink_target_text", "control characters" },
	{ "demo-1.0/l", L, "x\xc2\x85" "y", 0777, SEEN_NONE, "symlink_target_text", "control characters" },
	{ "demo-1.0/a/l", L, "x/../../y", 0777, SEEN_NONE, "symlink_target_climbs_first",
	  "symlink target x/../../y has '..' after a directory name" },
	{ "demo-1.0/l", L, "..", 0777, SEEN_NONE, "symlink_target_inside", "points outside the top directory" },
	{ "demo-1.0/l", L, "../x", 0777, SEEN_NONE, "symlink_target_inside",
	  "symlink target ../x points outside the top directory" },
	{ "demo-1.0/a/l", L, "../..", 0777, SEEN_NONE, "symlink_target_inside", "points outside" },
	/* Hard link targets. */
	{ "demo-1.0/h", H, "demo-1.0/a/b/c", 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/h", H, "demo-1.0", 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/h", H, NULL, 0644, SEEN_NONE, "hardlink_target_text", "its hard link target is empty" },
	{ "demo-1.0/h", H, "/etc/shadow", 0644, SEEN_NONE, "hardlink_target_text",
	  "its hard link target is an absolute path" },
	{ "demo-1.0/h", H, "demo-1.0/../x", 0644, SEEN_NONE, "hardlink_target_components",
	  "'..' components are not allowed" },
	{ "demo-1.0/h", H, "demo-1.0x/y", 0644, SEEN_NONE, "hardlink_target_inside",
	  "its hard link target is not inside demo-1.0/" },
	/* Modes. */
	{ "demo-1.0/exe", F, NULL, 0755, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/group", F, NULL, 0664, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/l", L, "exe", 0777, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/su", F, NULL, 04755, SEEN_NONE, "mode_safe", "member demo-1.0/su has mode 4755 (set-uid)" },
	{ "demo-1.0/sg/", D, NULL, 02775, SEEN_NONE, "mode_safe", "has mode 2775 (set-gid)" },
	{ "demo-1.0/ww", F, NULL, 0666, SEEN_NONE, "mode_safe", "has mode 0666 (world-writable)" },
	{ "demo-1.0/tmp/", D, NULL, 01777, SEEN_NONE, "mode_safe", "has mode 1777 (world-writable)" },
	{ "demo-1.0/h", H, "demo-1.0/x", 06755, SEEN_NONE, "mode_safe", "(set-uid)" },
	/* As macOS and Windows read names and link targets. */
	{ "demo-1.0/GIT~1", F, NULL, 0644, SEEN_NONE, "name_portable",
	  "'GIT~1', which looks like a Windows 8.3 short name" },
	{ "demo-1.0/DEMO-1~1.TXT", F, NULL, 0644, SEEN_NONE, "name_portable", "8.3 short name" },
	{ "demo-1.0/a~12", D, NULL, 0755, SEEN_NONE, "name_portable", "8.3 short name" },
	{ "demo-1.0/a~0", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/toolongname~1", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/a~1.tar.gz", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/Foo::Bar.3pm", F, NULL, 0644, SEEN_NONE, NULL, NULL },
	{ "demo-1.0/...", F, NULL, 0644, SEEN_NONE, "name_portable", "its name has the component '...'" },
	{ "demo-1.0/:x", F, NULL, 0644, SEEN_NONE, "name_portable", "read as '.', '..' or nothing" },
	{ "demo-1.0/ ", F, NULL, 0644, SEEN_NONE, "name_portable", "its name has the component ' '" },
	{ "demo-1.0/.. ", F, NULL, 0644, SEEN_NONE, "name_portable", "its name has the component '.. '" },
	{ "demo-1.0/\xe2\x80\x8b", F, NULL, 0644, SEEN_NONE, "name_portable", "or nothing" },
	{ "demo-1.0/a\\b", F, NULL, 0644, SEEN_NONE, "name_portable", "its name holds a backslash" },
	{ "demo-1.0/x::$DATA", F, NULL, 0644, SEEN_NONE, "name_portable", "an NTFS stream type" },
	{ "demo-1.0/l", L, ".\xe2\x81\xa0/x", 0777, SEEN_NONE, "link_target_portable",
	  "its link target has the component" },
	{ "demo-1.0/l", L, "\xef\xbb\xbf/x", 0777, SEEN_NONE, "link_target_portable", "or nothing" },
	{ "demo-1.0/l", L, "x:$I30", 0777, SEEN_NONE, "link_target_portable", "an NTFS stream type" },
	{ "demo-1.0/l", L, "a\\b", 0777, SEEN_NONE, "link_target_portable", "its link target holds a backslash" },
	{ "demo-1.0/h", H, "demo-1.0/.../x", 0644, SEEN_NONE, "link_target_portable",
	  "its hard link target has the component '...'" },
	/* What the earlier members make of this one. */
	{ "demo-1.0/d/x", F, NULL, 0644, THROUGH("demo-1.0/d", true), "not_through_symlink",
	  "member demo-1.0/d/x goes through the symlink demo-1.0/d: a symlink may not stand" },
	{ "demo-1.0/LINK/x", F, NULL, 0644, THROUGH("demo-1.0/link", false), "not_through_symlink",
	  "goes through the symlink demo-1.0/link on case-insensitive or Unicode-normalising" },
	{ "demo-1.0/h", H, "demo-1.0/a/l", 0644, LINK_THROUGH("demo-1.0/a/l", true),
	  "link_not_through_symlink", "member demo-1.0/h goes through the symlink demo-1.0/a/l:" },
	{ "demo-1.0/h", H, "demo-1.0/D/f", 0644, LINK_THROUGH("demo-1.0/d", false),
	  "link_not_through_symlink", "demo-1.0/d on case-insensitive" },
	/* Only a hard link's target is looked at, a symlink's is relative. */
	{ "demo-1.0/l", L, "x", 0777, LINK_THROUGH("demo-1.0/x", true), NULL, NULL },
	{ "demo-1.0/d", D, NULL, 0755, SAME("demo-1.0/d", D, true), NULL, NULL },
	{ "demo-1.0/d/", D, NULL, 0755, SAME("demo-1.0/d", D, true), NULL, NULL },
	{ "demo-1.0/x", F, NULL, 0644, SAME("demo-1.0/x", F, true), "not_repeated",
	  "member demo-1.0/x appears twice in the archive" },
	{ "demo-1.0/d", D, NULL, 0755, SAME("demo-1.0/d", L, true), "not_repeated", "appears twice" },
	{ "demo-1.0/D", D, NULL, 0755, SAME("demo-1.0/d", D, false), "not_repeated",
	  "member demo-1.0/D and member demo-1.0/d have names that are the same file" },
};

/* Every rule of the table, as member_rules.c names them. */
static const char *const all_rules[] = {
	"has_name", "name_text", "name_components", "name_inside_top", "kind_allowed",
	"top_is_directory", "symlink_target_text", "symlink_target_climbs_first",
	"symlink_target_inside", "hardlink_target_text", "hardlink_target_components",
	"hardlink_target_inside", "mode_safe", "name_portable", "link_target_portable",
	"not_through_symlink", "link_not_through_symlink", "not_repeated",
};

static struct member_facts facts_of(const struct rule_case *c)
{
	return (struct member_facts){ .name = c->name, .kind = c->kind, .linkname = c->link,
				      .perm = c->perm, .top = "demo-1.0", .seen = c->seen };
}

/* Both stages, as tarball.c asks them. */
static bool both_stages(const struct member_facts *f, struct decision *d)
{
	return member_rules_check(MEMBER_STAGE_HEADER, f, d) &&
	       member_rules_check(MEMBER_STAGE_EARLIER, f, d);
}

static void assert_printable(size_t i, const char *msg)
{
	char escaped[4 * DECISION_REASON_MAX + 1];

	if (!text_printable(msg, strlen(msg))) {
		text_safe_copy(escaped, sizeof(escaped), msg, strlen(msg), TEXT_ESCAPE);
		fail_msg("case %zu: the refusal is not printable: %s", i, escaped);
	}
}

static void check_case(size_t i, const struct rule_case *c)
{
	struct member_facts f = facts_of(c);
	struct decision d;
	bool ok = both_stages(&f, &d);

	if (c->rule == NULL && !ok)
		fail_msg("case %zu (%s) refused by %s: %s", i, c->name, d.rule, d.reason);
	if (c->rule == NULL) {
		assert_null(d.rule);
		return;
	}
	if (ok)
		fail_msg("case %zu (%s): allowed, want %s", i, c->name, c->rule);
	if (strcmp(d.rule, c->rule) != 0 || strstr(d.reason, c->why) == NULL)
		fail_msg("case %zu (%s): got %s '%s', want %s '%s'", i, c->name, d.rule, d.reason,
			 c->rule, c->why);
	assert_printable(i, d.reason);
}

static void test_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		check_case(i, &cases[i]);
}

static void test_every_rule_refuses_somewhere(void **state)
{
	size_t r, i;
	bool seen;

	(void)state;
	for (r = 0; r < N(all_rules); r++) {
		seen = false;
		for (i = 0; i < N(cases) && !seen; i++)
			seen = cases[i].rule != NULL && strcmp(cases[i].rule, all_rules[r]) == 0;
		if (!seen)
			fail_msg("no case is refused by %s", all_rules[r]);
	}
}

/* The earlier stage's facts do not matter to the header stage, and the other way round. */
static void test_stages_apart(void **state)
{
	struct member_facts f = { .name = "demo-1.0/../x", .kind = F, .perm = 0644,
				  .top = "demo-1.0", .seen = THROUGH("demo-1.0/d", true) };
	struct decision d;

	(void)state;
	assert_false(member_rules_check(MEMBER_STAGE_HEADER, &f, &d));
	assert_string_equal(d.rule, "name_components");
	f.name = "demo-1.0/d/x";
	assert_true(member_rules_check(MEMBER_STAGE_HEADER, &f, &d));
	assert_false(member_rules_check(MEMBER_STAGE_EARLIER, &f, &d));
	assert_string_equal(d.rule, "not_through_symlink");
	f.seen = (struct member_seen)SEEN_NONE;
	assert_true(member_rules_check(MEMBER_STAGE_EARLIER, &f, &d));
	assert_null(d.rule);
	assert_string_equal(d.reason, "");
}

static void test_long_names(void **state)
{
	char name[5000];
	struct member_facts f = { .name = name, .kind = F, .perm = 0644, .top = "demo-1.0" };
	struct decision d;

	(void)state;
	memset(name, 'a', sizeof(name));
	memcpy(name, "demo-1.0/", 9);
	name[4096] = '\0';
	assert_true(both_stages(&f, &d));
	name[4096] = 'a';
	name[4097] = '\0';
	assert_false(both_stages(&f, &d));
	assert_string_equal(d.rule, "name_text");
	assert_non_null(strstr(d.reason, "longer than 4096 bytes"));
	assert_true(strlen(d.reason) < 400);
}

/* A hostile name is quoted clean in every sentence that quotes it. */
static void test_hostile_names_shown_clean(void **state)
{
	static const char *const hostile[] = {
		"demo-1.0/x\xe2\x80\xae" "exe.txt",   /* bidi override */
		"demo-1.0/\xe2\x81\xa6" "a",           /* isolate */
	};
	struct member_facts f = { .kind = F, .perm = 04755, .top = "demo-1.0" };
	struct decision d;
	size_t i;

	(void)state;
	for (i = 0; i < N(hostile); i++) {
		f.name = hostile[i];
		assert_false(both_stages(&f, &d));
		assert_string_equal(d.rule, "mode_safe");
		assert_printable(i, d.reason);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_every_rule_refuses_somewhere),
		cmocka_unit_test(test_stages_apart),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_hostile_names_shown_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
