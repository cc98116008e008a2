/*
 * postern.yaml's sections (schema_sections.h). A section's name becomes a
 * directory <tree>/NAME/ once uploads into sections exist, so it MUST be a
 * plain word that no directory of the tree's own already has; a pattern
 * MUST be a plain suffix, so that which section takes a file never depends
 * on glob rules or on anything but the file's name.
 */
#include "schema_sections.h"

#include <stdio.h>
#include <string.h>

/*
 * The tree's own top-level names (install_module/installd/installd_dirs.c,
 * release_log.c): sources/, the built-in section, and log/, the release
 * log. .staging/ cannot be a section name, which starts with a letter.
 */
static const struct {
	const char *name;
	const char *why;
} tree_names[] = {
	{ "sources", "the built-in section of source tarballs (it needs no entry)" },
	{ "log", "the tree's release log, <tree>/log/" },
};

static bool is_lower_or_digit(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

static bool section_name_is_plain(const char *s)
{
	size_t i, len = strlen(s);

	if (len == 0 || len > POLICY_SECTION_NAME_MAX || !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (i = 1; i < len; i++)
		if (!is_lower_or_digit(s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

/* "*.EXT": EXT of letters, digits and . - _, no empty part between dots. */
static bool pattern_is_suffix(const char *p)
{
	const char *ext = p + 2;
	size_t i, len;

	if (strncmp(p, "*.", 2) != 0)
		return false;
	len = strlen(ext);
	if (len == 0 || len > POLICY_SECTION_SUFFIX_MAX || ext[0] == '.' || ext[len - 1] == '.' ||
	    strstr(ext, "..") != NULL)
		return false;
	for (i = 0; i < len; i++)
		if (!is_lower_or_digit(ext[i]) && !(ext[i] >= 'A' && ext[i] <= 'Z') &&
		    strchr(".-_", ext[i]) == NULL)
			return false;
	return true;
}

/* The section its keys are read into, and its name for messages. */
struct section_read {
	struct policy_section *s;
	char what[POLICY_SECTION_NAME_MAX + 32];
};

static int read_files(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct section_read *r = t;
	char what[sizeof(r->what) + 8], kind[128];

	snprintf(what, sizeof(what), "%s.files", r->what);
	snprintf(kind, sizeof(kind), "a suffix pattern such as \"*.zip\" (\"*.\", then letters, "
		 "digits, '.', '-' and '_', at most %d bytes)", POLICY_SECTION_SUFFIX_MAX);
	if (v->kind == YNODE_SEQUENCE && v->count == 0)
		return schema_fail(c, v, "%s: the list is empty (list the files it takes, such as "
				   "\"*.zip\")", what);
	return schema_word_list(c, v, what, POLICY_SECTION_FILES_MAX, pattern_is_suffix, kind,
				&r->s->files);
}

static int read_group(struct schema_ctx *c, const struct ynode *v, void *t)
{
	struct section_read *r = t;
	char what[sizeof(r->what) + 32];

	snprintf(what, sizeof(what), "%s.uploaders.group", r->what);
	return schema_group(c, v, what, &r->s->group);
}

static int read_uploaders(struct schema_ctx *c, const struct ynode *v, void *t)
{
	static const struct schema_key keys[] = {
		{ "group", read_group },
	};
	static const struct {
		const char *word;
		enum policy_uploaders who;
	} words[] = {
		{ "maintainers", POLICY_UPLOADERS_MAINTAINERS },
		{ "release_team", POLICY_UPLOADERS_RELEASE_TEAM },
		{ "open", POLICY_UPLOADERS_OPEN },
	};
	struct section_read *r = t;
	char what[sizeof(r->what) + 16];
	const char *found;
	size_t i;
	int rc;

	snprintf(what, sizeof(what), "%s.uploaders", r->what);
	if (v->kind == YNODE_MAPPING) {
		rc = schema_walk(c, v, what, keys, sizeof(keys) / sizeof(keys[0]), r);
		if (rc == 0 && r->s->group == NULL)
			return schema_fail(c, v, "%s: name the group: {group: NAME}", what);
		r->s->uploaders = POLICY_UPLOADERS_GROUP;
		return rc;
	}
	for (i = 0; v->kind == YNODE_SCALAR && i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcmp(v->value, words[i].word) == 0) {
			r->s->uploaders = words[i].who;
			return 0;
		}
	}
	found = v->kind == YNODE_SEQUENCE ? "a list" : schema_is_null(v) ? "nothing" : NULL;
	if (found != NULL)
		return schema_fail(c, v, "%s: expected maintainers, release_team, open or "
				   "{group: NAME}, found %s", what, found);
	return schema_fail(c, v, "%s: expected maintainers, release_team, open or {group: NAME}, "
			   "found '%s'", what, v->value);
}

static int check_name(struct schema_ctx *c, const struct ynode *k, const struct policy_section *done,
		      size_t n)
{
	size_t i;

	if (k->kind != YNODE_SCALAR || !section_name_is_plain(k->value))
		return schema_fail(c, k, "sections: '%s' is not a plain section name (a lower-case "
				   "letter, then lower-case letters, digits, '_' and '-', at most %d "
				   "bytes)", k->kind == YNODE_SCALAR ? k->value : "(not a word)",
				   POLICY_SECTION_NAME_MAX);
	for (i = 0; i < sizeof(tree_names) / sizeof(tree_names[0]); i++)
		if (strcmp(k->value, tree_names[i].name) == 0)
			return schema_fail(c, k, "sections: '%s' is %s: choose another name",
					   k->value, tree_names[i].why);
	for (i = 0; i < n; i++)
		if (strcmp(done[i].name, k->value) == 0)
			return schema_fail(c, k, "sections: duplicate key '%s' (first at line %lu)",
					   k->value, done[i].line);
	return 0;
}

static int read_one_section(struct schema_ctx *c, const struct ynode *k, struct policy_section *s)
{
	static const struct schema_key keys[] = {
		{ "files", read_files },
		{ "uploaders", read_uploaders },
	};
	struct section_read r = { s, "" };
	int rc;

	snprintf(r.what, sizeof(r.what), "sections.%s", k->value);
	s->name = k->value;
	s->line = k->line;
	s->col = k->col;
	rc = schema_walk(c, k->next, r.what, keys, sizeof(keys) / sizeof(keys[0]), &r);
	if (rc == 0 && (s->files == NULL || s->uploaders == 0))
		return schema_fail(c, k, "%s: files and uploaders are both required", r.what);
	return rc;
}

int schema_sections(struct schema_ctx *c, const struct ynode *v, struct policy_settings *s)
{
	const struct ynode *k;
	size_t n = 0;
	int rc;
	struct policy_section *out = schema_entries(c, v, "sections", "sections",
						    POLICY_SECTIONS_MAX, sizeof(*out), &rc);

	if (out == NULL)
		return rc;
	for (k = v->first; rc == 0 && k != NULL && k->next != NULL; k = k->next->next) {
		rc = check_name(c, k, out, n);
		if (rc == 0)
			rc = read_one_section(c, k, &out[n++]);
	}
	s->sections = out;
	s->nsections = n;
	return rc;
}
