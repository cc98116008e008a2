/*
 * policy_parse (and policy_parse_merged) on any bytes. An input holding the
 * line "#--doap--" is split there: the text before is postern.yaml, the text
 * after the generated DOAP module file. Whatever parses must answer
 * decisions without crashing, and every allowed answer must carry a reason;
 * a failed parse must leave no policy and an error with a message.
 */
#define _GNU_SOURCE
#include <stdint.h>
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
