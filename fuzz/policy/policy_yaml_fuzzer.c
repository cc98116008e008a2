/*
 * policy_parse (and policy_parse_merged) on any bytes. An input holding the
 * line "#--doap--" is split there: the text before is postern.yaml, the text
 * after the generated DOAP module file. Whatever parses must answer
 * decisions without crashing, every allowed answer must carry a reason, and
 * every section must take files named after its patterns; a failed parse
 * must leave no policy and an error with a message.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

#define SPLIT "\n#--doap--\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ask(const struct policy *p, const char *user, const char *module)
{
	char why[256];
	enum policy_basis b = policy_may(p, user, POLICY_INSTALL, module, why, sizeof(why));

	if (why[0] == '\0' || strlen(why) >= sizeof(why))
		abort();
	if (b != POLICY_DENY && policy_may(p, user, POLICY_DELETE, module, NULL, 0) != b)
		abort();
}

/* Every section is found by its name and takes a file named after each of
 * its patterns, by that pattern or a longer one; never a path. */
static void exercise_sections(const struct policy *p)
{
	char name[64];
	size_t i, j;

	for (i = 0; i < policy_section_count(p); i++) {
		const struct policy_section *s = policy_section_at(p, i);
		if (s == NULL || policy_section_find(p, s->name) != s || s->files[0] == NULL)
			abort();
		for (j = 0; s->files[j] != NULL; j++) {
			const char *got;
			snprintf(name, sizeof(name), "m-1%s", s->files[j] + 1);
			got = policy_section_accepts(s, name);
			if (got == NULL || strlen(got) < strlen(s->files[j]))
				abort();
			snprintf(name, sizeof(name), "a/m-1%s", s->files[j] + 1);
			if (policy_section_accepts(s, name) != NULL)
				abort();
		}
	}
	if (policy_section_find(p, "sources") != NULL || policy_section_at(p, i) != NULL ||
	    (i > 0 && policy_section_accepts(policy_section_at(p, 0), "") != NULL))
		abort();
}

static void exercise(const struct policy *p)
{
	size_t i;

	for (i = 0; i < policy_module_count(p) && i < 16; i++) {
		const struct policy_module *m = policy_module_at(p, i);
		if (m == NULL || policy_module_find(p, m->name) != m || m->maintainers == NULL)
			abort();
		if (m->maintainers[0] != NULL)
			ask(p, m->maintainers[0], m->name);
		ask(p, "nobody", m->name);
	}
	ask(p, "alice", "gtk");
	ask(p, "alice", "../etc");
	(void)policy_is_release_team(p, "alice");
	(void)policy_settings(p)->limits.max_compressed;
	exercise_sections(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *split = memmem(text, size, SPLIT, strlen(SPLIT));
	struct policy *p = NULL;
	struct pst_err e = { "" };
	int rc;

	if (split != NULL) {
		size_t first = (size_t)(split - text);
		const char *doap = split + strlen(SPLIT);
		rc = policy_parse_merged(text, first, "fuzz.yaml", doap, size - first - strlen(SPLIT),
					 "fuzz-doap.yaml", &p, &e);
	} else {
		rc = policy_parse(text, size, "fuzz.yaml", &p, &e);
	}
	if (rc == 0) {
		if (p == NULL)
			abort();
		exercise(p);
		policy_free(p);
	} else if (p != NULL || e.msg[0] == '\0') {
		abort();
	}
	return 0;
}
